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
		for v in BOX_SRCS_$c BOX_FLAGS_$c; do
			[ -n "$(make_var $v)" ] || echo "Makefile $v"
		done
		grep -q "CAP_$(echo $c | tr a-z A-Z)\b" "$src/common/cap.h" ||
		    echo "common/cap.h CAP_$(echo $c | tr a-z A-Z)"
		grep -q "^	\[CAP_$(echo $c | tr a-z A-Z)\]" "$src/common/cap.c" ||
		    echo "common/cap.c its row"
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
	[ "$(wc -l < missing)" -eq 13 ] ||
	    { cat missing; atf_fail "pdf lacks other than the 13"; }
}

atf_init_test_cases()
{
	atf_add_test_case kyuafile_every_program
	atf_add_test_case capability_files
}
