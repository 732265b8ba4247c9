#! /usr/bin/env atf-sh
# What HACKING's recipes would leave silent: a test program no Kyuafile
# runs, a capability's file that nothing else would miss.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# make_var NAME [MAKE ARGS...]: the Makefile's NAME, expanded.
make_var()
{
	_v=$1; shift
	printf 'sc-var-%%:\n\t@echo $($*)\n' |
	    make -s -C "$(sc_srcdir)" -f Makefile -f - "$@" "sc-var-$_v"
}

# kyua_names SRC: each test program the suite's Kyuafiles name, as
# regress/<folder>/<name>, one a line.
kyua_names()
{
	sed -n 's/^include("\([a-z]*\)\/Kyuafile")$/\1/p' "$1/regress/Kyuafile" |
	    while read -r _d; do
		sed -n "s|^atf_test_program{name=\"\([^\"]*\)\".*|regress/$_d/\1|p" \
		    "$1/regress/$_d/Kyuafile"
	done | sort
}

# programs SRC: each test program the tree makes or holds: the Makefile's
# units, sanitized and ABI 1 twins, and each t_*.sh of a folder with t_*.
programs()
{
	{
		for v in UNITS SAN_UNITS ABI1_UNITS; do
			make_var $v | tr ' ' '\n'
		done
		ls "$1"/regress/*/t_*.sh | sed "s|^$1/||"
	} | grep -v '^regress/reference/' | sed '/^$/d' | sort
}

atf_test_case kyuafile_every_program
kyuafile_every_program_head()
{
	atf_set "descr" "each test program the Makefile builds (t_*.c, its .san and .abi1) and each t_*.sh is named by its folder's Kyuafile, which the top one includes, and no Kyuafile names one that is not there; a t_*.c without its line is found (the control)"
	atf_set "require.config" "checkout"
}
kyuafile_every_program_body()
{
	src=$(sc_srcdir)
	programs "$src" > made
	kyua_names "$src" > named
	atf_check -o empty comm -23 made named
	atf_check -o empty comm -13 made named
	# The control: a unit with no line is missed.
	{ cat made; echo regress/box/t_pdf; } | sort > more
	atf_check -o inline:"regress/box/t_pdf\n" comm -23 more named
}

# cap_missing CAPS: for each capability of CAPS, each file or Makefile
# line of HACKING's recipe that the tree lacks, one a line.
cap_missing()
{
	src=$(sc_srcdir)
	for c in $1; do
		for f in box/$c.c box/$c.h regress/box/t_$c.c; do
			[ -f "$src/$f" ] || echo "$f"
		done
		for v in BOX_SRCS_$c; do
			[ -n "$(make_var $v)" ] || echo "Makefile $v"
		done
		_id=$(echo $c | tr a-z A-Z)
		grep -q "CAP_ROW($_id, $c)" "$src/common/cap.h" ||
		    echo "common/cap.h CAP_ROW($_id, $c)"
		grep -qs "^const struct cap_row cap_$c = {" \
		    "$src/common/cap_$c.c" || echo "common/cap_$c.c its row"
		grep -q "^/box/sandcastle-box-$c\$" "$src/.gitignore" ||
		    echo ".gitignore /box/sandcastle-box-$c"
		grep -q "sandcastle-box-$c\b" "$src/README.md" ||
		    echo "README.md sandcastle-box-$c"
		grep -q "^\.Ss capabilities\.$c\$" "$src/man/sandcastle.conf.5" ||
		    echo "man/sandcastle.conf.5 capabilities.$c"
		grep -q "^\.Ss $c\$" "$src/man/sandcastle-box.8" ||
		    echo "man/sandcastle-box.8 .Ss $c"
		grep -q "^  $c:" "$src/examples/config.yaml" ||
		    echo "examples/config.yaml $c:"
		grep -q "^  $c:" "$src/regress/config/valid-full/config.yaml" ||
		    echo "regress/config/valid-full $c:"
	done
}

atf_test_case capability_files
capability_files_head()
{
	atf_set "descr" "each capability of the Makefile's BOX_CAPS has every file and line of HACKING's recipe that nothing else would miss; a third capability, pdf, is found wanting each (the control)"
	atf_set "require.config" "checkout"
}
capability_files_body()
{
	caps=$(make_var BOX_CAPS)
	[ -n "$caps" ] || atf_fail "the Makefile has no BOX_CAPS"
	cap_missing "$caps" > missing
	atf_check -o empty cat missing
	# The control: pdf, which has none of them.
	cap_missing pdf > missing
	[ "$(wc -l < missing)" -eq 12 ] ||
	    { cat missing; atf_fail "pdf lacks other than the 12"; }
}

# cap_files SRC CAPS: the programs' files HACKING lets name a capability:
# the list of the rows (cap.h's CAP_ROWS), its own file and header
# (common/cap_<capability>.[ch]), and each of its box's files
# (BOX_SRCS_<capability>, with their headers).  config.c's strings may
# too, as its errors' examples, but not its code (cap_named).
cap_files()
{
	echo common/cap.h common/config.c
	for c in $2; do
		echo "common/cap_$c.c" "common/cap_$c.h"
		for f in $(make_var BOX_SRCS_$c); do
			echo "$f" "${f%.c}.h"
		done
	done
}

# cap_named SRC CAPS: each line of the programs' code (comments left
# out; config.c's strings too) outside cap_files that names a capability,
# alone or in a name (CAP_OCR, claude_conf), or a constant of its row in
# its common/cap_<capability>.c
# (its headers, its credential's header, its image's paths), as
# file:line:text.
cap_named()
{
	_consts=$(for c in $2; do cat "$1/common/cap_$c.c"; done |
	    grep -E '^static const char \*const [a-z]+_(headers|loads)\[\]|\.credential = |^#define [A-Z_]+[[:space:]]+"/' |
	    grep -o '"[^"]*"' | tr -d '"' | grep -v '^$' |
	    sed 's/[.]/[.]/g' | paste -sd'|' -)
	_pat="(^|[^[:alnum:]])($(echo $2 | tr ' ' '|'))([^[:alnum:]]|\$)"
	[ -n "$_consts" ] && _pat="$_pat|$_consts"
	cap_files "$1" "$2" | tr ' ' '\n' | sort -u > allowed
	(cd "$1" && ls common/*.[ch] sandcastled/*.[ch] keepd/*.[ch] \
	    gated/*.[ch] sandcastlectl/*.[ch] box/*.[ch]) | sort |
	    comm -23 - allowed | while read -r _f; do
		cc -fpreprocessed -dD -E -P "$1/$_f" 2>/dev/null |
		    grep -n -i -E "$_pat" | sed "s|^|$_f:|"
	done
	cc -fpreprocessed -dD -E -P "$1/common/config.c" 2>/dev/null |
	    sed 's/"\([^"\\]\|\\.\)*"/""/g' | grep -n -i -E "$_pat" |
	    sed "s|^|common/config.c:|"
}

atf_test_case capability_named
capability_named_head()
{
	atf_set "descr" "no program's code names a capability of BOX_CAPS, its CAP_ id or its row's constants (headers, credential, image paths) outside cap.h's list of the rows, its own common/cap_<capability>.[ch], its box's files and config.c's strings; stray mentions in a copy of the launcher, cap.c, config.h, outcome.h, capreq.c and config.c's code are found, and one in config.c's strings is not (the control)"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "cc"
}
capability_named_body()
{
	src=$(sc_srcdir)
	caps=$(make_var BOX_CAPS)
	[ -n "$caps" ] || atf_fail "the Makefile has no BOX_CAPS"
	cap_named "$src" "$caps" > named
	atf_check -o empty cat named
	# The control: a copy of the tree where a capability and one of the
	# row's constants are named where they may not be, each found on its
	# line, and one in config.c's strings, which may be, not found.
	mkdir copy
	for d in common sandcastled keepd gated sandcastlectl box; do
		cp -R "$src/$d" copy/
	done
	c=${caps%% *}
	C=$(echo "$c" | tr a-z A-Z)
	printf 'static const char *stray = "%s";\nstatic const char *hdr = "anthropic-version";\n' \
	    "$c" >> copy/sandcastled/launcher.c
	printf 'static const int stray = CAP_%s;\n' "$C" >> copy/common/cap.c
	printf 'struct %s_conf;\n' "$c" >> copy/common/config.h
	printf '#define JW_STRAY JW_%s(0)\n' "$C" >> copy/common/outcome.h
	printf 'static int stray(void) { return CAP_%s; }\n' "$C" >> copy/common/capreq.c
	printf 'static const char *ok = "as %s";\nstatic int stray = CAP_%s;\n' \
	    "$c" "$C" >> copy/common/config.c
	cap_named "$PWD/copy" "$caps" | cut -d: -f1 | sort | uniq -c |
	    awk '{ print $2, $1 }' > named
	atf_check -o inline:"common/cap.c 1\ncommon/capreq.c 1\ncommon/config.c 1\ncommon/config.h 1\ncommon/outcome.h 1\nsandcastled/launcher.c 2\n" \
	    cat named
}

atf_init_test_cases()
{
	atf_add_test_case kyuafile_every_program
	atf_add_test_case capability_files
	atf_add_test_case capability_named
}
