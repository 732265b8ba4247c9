#! /usr/bin/env atf-sh
# The documents an auditor reads are held to the code: the man pages are
# clean mdoc, every program has one, and the README names the two commands.

. "$(atf_get_srcdir)/../lib/helpers.subr"

atf_test_case man_lint
man_lint_head()
{
	atf_set "descr" "every man page is clean under mandoc -Tlint"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "mandoc"
}
man_lint_body()
{
	src=$(sc_srcdir)
	set -- "$src"/man/*.[1-9]
	[ -e "$1" ] || atf_fail "no man page in $src/man"
	atf_check -o empty -e empty mandoc -Tlint -Wwarning "$@"
	# Control: mandoc does flag a page that is wrong.
	printf '.Dd\n.Dt X 8\n.Sh NAME\n.Nm x\n.Xx bogus\n' > bad.8
	atf_check -s not-exit:0 -o not-empty -e ignore mandoc -Tlint -Wwarning bad.8
}

atf_test_case man_every_program
man_every_program_head()
{
	atf_set "descr" "every installed program and the configuration have a man page, of its name or naming it in its NAME section"
	atf_set "require.config" "checkout prefix"
}
man_every_program_body()
{
	src=$(sc_srcdir)
	for p in "$(atf_config_get prefix)"/bin/*; do
		n=${p##*/}
		ls "$src"/man/"$n".[1-9] >/dev/null 2>&1 ||
		    sed -n '/^\.Sh NAME/,/^\.Nd/p' "$src"/man/*.[1-9] |
		    grep -Eqx "\.Nm $n( ,)?" ||
		    atf_fail "$n has no man page in man/"
	done
	[ -f "$src/man/sandcastle.conf.5" ] || atf_fail "no sandcastle.conf.5"
}

atf_test_case readme_commands
readme_commands_head()
{
	atf_set "descr" "the README names make demo, make test and make reference, the Makefile has each, each installs its packages first, and CI runs the three from its clean checkout, in this order"
	atf_set "require.config" "checkout"
}
readme_commands_body()
{
	src=$(sc_srcdir)
	for t in demo test reference; do
		atf_check -o ignore grep -q "make $t" "$src/README.md"
		atf_check -o ignore grep -q "^$t: deps\$" "$src/Makefile"
	done
	# CI's clean checkout is the fresh clone: the commands, in order.
	atf_check -o inline:"make demo\nmake test\nmake reference\n" \
	    sh -c "grep -E '^make (demo|test|reference)( |\$)' '$src/.ci/run' |
	    cut -d' ' -f1,2"
	grep -q '^## \[Unreleased\]' "$src/CHANGES" || atf_fail "CHANGES has no [Unreleased]"
}

atf_test_case plain_make
plain_make_head()
{
	atf_set "descr" "plain make builds the five programs an operator runs (the box one per capability), and nothing else first; the tree holds a LICENSE and no build or interpreter leftover"
	atf_set "require.config" "checkout"
}
plain_make_body()
{
	src=$(sc_srcdir)
	atf_check -o inline:"all\n" sh -c "make -C '$src' -s -n -p 2>/dev/null |
	    sed -n 's/^\.DEFAULT_GOAL := //p'"
	make -C "$src" -s -n -p 2>/dev/null | sed -n 's/^all: //p' | tr ' ' '\n' |
	    sort > progs
	printf '%s\n' box/sandcastle-box-claude box/sandcastle-box-ocr \
	    gated/gated keepd/keepd \
	    sandcastlectl/sandcastlectl sandcastled/sandcastled > want
	atf_check -o file:want cat progs
	atf_check test -s "$src/LICENSE"
	if git -C "$src" ls-files 2>/dev/null | grep -E '__pycache__|\.pyc$'; then
		atf_fail "compiled Python is in the tree"
	fi
}

# hacking_missing FILE: each path FILE names that the tree lacks, one a
# line: a path of a top folder, or a bare file name, as core.c, which
# must be a file of a folder of the tree.
hacking_missing()
{
	_src=$(sc_srcdir)
	grep -oE '(\.ci|box|common|etc|examples|gated|keepd|man|regress|sandcastlectl|sandcastled)/[A-Za-z0-9_./<>-]*|(Makefile|CHANGES|README\.md)' "$1" |
	    grep -v '<' | sed 's|/$||; s|\.$||' | sort -u | while read -r _p; do
		[ -e "$_src/$_p" ] || echo "$_p"
	done
	grep -oE '(^|[ (,])[a-z_-]+\.[ch]\b' "$1" | sed 's/^[ (,]//' | sort -u |
	    while read -r _f; do
		ls "$_src"/*/"$_f" >/dev/null 2>&1 || echo "$_f"
	done
}

atf_test_case hacking
hacking_head()
{
	atf_set "descr" "HACKING names only files and folders of the tree, and every top folder of it; a path the tree lacks fails the check (the control)"
	atf_set "require.config" "checkout"
}
hacking_body()
{
	src=$(sc_srcdir)
	atf_check test -s "$src/HACKING"
	hacking_missing "$src/HACKING" > missing
	atf_check -o empty cat missing
	for d in "$src"/*/ "$src/.ci/"; do
		d=${d%/}; d=${d##*/}
		grep -qE "^  $d/ " "$src/HACKING" ||
		    atf_fail "HACKING's map lacks the folder $d/"
	done
	# The control: a path that is not in the tree is found.
	{ cat "$src/HACKING"; echo "  common/nothere.c  a file"; echo "(gone.c)"; } > bad
	hacking_missing bad > missing
	atf_check -o inline:"common/nothere.c\ngone.c\n" cat missing
}

atf_init_test_cases()
{
	atf_add_test_case hacking
	atf_add_test_case plain_make
	atf_add_test_case man_lint
	atf_add_test_case man_every_program
	atf_add_test_case readme_commands
}
