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

atf_test_case man_fl_runon
man_fl_runon_head()
{
	atf_set "descr" "no .Fl line runs on into words that mdoc renders as flags, which mandoc -Tlint does not see"
	atf_set "require.config" "checkout"
}
man_fl_runon_body()
{
	src=$(sc_srcdir)
	atf_check -o empty awk -f "$src/regress/meta/flrunon.awk" "$src"/man/*.[1-9]
	# Control: the line sandcastled(8) had, which rendered "-i, -a -configuration -with".
	printf '.Fl i , a configuration with\n' > bad.8
	atf_check -o match:'bad.8:1:' awk -f "$src/regress/meta/flrunon.awk" bad.8
	printf '.Fl i , Fl n .\n' > good.8
	atf_check -o empty awk -f "$src/regress/meta/flrunon.awk" good.8
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
	for p in "$(atf_config_get prefix)"/bin/* \
	    "$(atf_config_get prefix)"/libexec/sandcastle/*; do
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
	atf_set "descr" "plain make builds the six binaries an operator runs (the box one per capability), and nothing else first; the tree holds a LICENSE and no build or interpreter leftover"
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

# binaries_wrong FILE COUNT: each "<number> binaries" of FILE whose
# number is not COUNT's word, one a line.
binaries_wrong()
{
	set -- "$1" "$(echo "$2" | awk '{ split("one two three four five six seven eight nine ten", w); print w[$1] }')"
	tr '\n' ' ' < "$1" |
	    grep -oiE '\b(one|two|three|four|five|six|seven|eight|nine|ten|[0-9]+) (installed )?binaries' |
	    grep -viE "^$2 " || true
}

atf_test_case binaries_counted
binaries_counted_head()
{
	atf_set "descr" "every page and the README count the binaries as the Makefile's PROGS has them, and sandcastle(7)'s Install names each; a page that says five is caught (the control)"
	atf_set "require.config" "checkout"
}
binaries_counted_body()
{
	src=$(sc_srcdir)
	make -C "$src" -s -n -p 2>/dev/null | sed -n 's/^all: //p' | tr ' ' '\n' |
	    sed '/^$/d; s|.*/||' | sort > progs
	n=$(wc -l < progs)
	[ "$n" -ge 6 ] || atf_fail "the Makefile builds $n programs"
	for f in "$src"/man/*.[1-9] "$src/README.md"; do
		binaries_wrong "$f" "$n" > wrong
		[ -s wrong ] && atf_fail "${f##*/} says $(head -n 1 wrong); PROGS has $n"
	done
	sed -n '/^\.Ss Install$/,/^\.Ss /p' "$src/man/sandcastle.7" > install
	grep -oE '(^\.| )Nm [a-z-]+' install | awk '{ print $2 }' | sort -u > named
	comm -23 progs named > unnamed
	[ -s unnamed ] && atf_fail "sandcastle(7) Install does not name $(tr '\n' ' ' < unnamed)"
	# The control: a page that counts five is found.
	printf '.Pp\ntakes the five binaries from\n' > bad.7
	binaries_wrong bad.7 "$n" > wrong
	atf_check -o inline:"five binaries\n" cat wrong
}

# recipe FILE: sandcastle(7)'s section Delegate the cgroup controllers.
recipe()
{
	sed -n '/^\.Ss Delegate the cgroup controllers$/,/^\.S[sh] /p' "$1"
}

# dropin_verify DIR TEXT: systemd-analyze verify of user@.service with
# TEXT as its drop-in delegate.conf (in DIR); its stderr.
dropin_verify()
{
	mkdir -p "$1/user@.service.d"
	printf '%s\n' "$2" > "$1/user@.service.d/delegate.conf"
	SYSTEMD_UNIT_PATH="$1:" systemd-analyze verify --man=no \
	    user@1000.service 2>&1 >/dev/null
}

atf_test_case delegation_recipe
delegation_recipe_head()
{
	atf_set "descr" "sandcastle(7)'s delegation recipe: its drop-in is user@.service's, systemd-analyze verify takes it without a word (a wrong controller name is named, the control), and the check lines it promises are the rows of sandcastled/podman.c that check prints under cgroup v2 (a changed line is not found, the control)"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "systemd-analyze"
	atf_set "require.files" "/lib/systemd/system/user@.service"
}
delegation_recipe_body()
{
	src=$(sc_srcdir)
	recipe "$src/man/sandcastle.7" > recipe
	[ -s recipe ] || atf_fail "sandcastle(7) has no Delegate the cgroup controllers"
	atf_check -o inline:"/etc/systemd/system/user@.service.d/delegate.conf\n" \
	    sed -n "s|^# cat > \([^ ]*\) <<'EOF'\$|\1|p" recipe
	drop=$(sed -n "/^# cat > .* <<'EOF'\$/,/^EOF\$/p" recipe | sed '1d;$d')
	atf_check -o inline:"[Service]\nDelegate=cpu cpuset io memory pids\n" \
	    echo "$drop"
	dropin_verify units "$drop" > verify
	atf_check -o empty cat verify
	dropin_verify badunits "$(echo "$drop" | sed 's/cpuset/cpuz/')" > verify
	atf_check -o match:"Invalid controller name 'cpuz'" cat verify
	for s in 'systemctl daemon-reload' 'systemctl restart user@'; do
		grep -q "^\.Dl # $s" recipe || atf_fail "the recipe lacks $s"
	done
	grep '^ok    toolbox: ' recipe > lines
	[ "$(wc -l < lines)" -eq 3 ] || atf_fail "the recipe shows $(wc -l < lines) check lines"
	holds_missing "$src/sandcastled/podman.c" lines > missing
	atf_check -o empty cat missing
	# The control: a line check never prints is found.
	echo 'ok    toolbox: box.cpus held by cgroup v3 (--cpus)' > bad
	holds_missing "$src/sandcastled/podman.c" bad > missing
	atf_check -o inline:"box.cpus held by cgroup v3 (--cpus)\n" cat missing
}

# holds_missing PODMAN_C LINES: each "ok    toolbox: L held by H" of
# LINES that is no row { "L", "H" of the cgroup v2 table, one a line.
holds_missing()
{
	sed -n '/box_holds_cgroup\[\] = {/,/^};/p' "$1" | tr -d '\n\t' |
	    sed 's/},/}\n/g' > table
	sed 's/^ok    toolbox: //' "$2" | while read -r l; do
		k=${l%% held by *}; h=${l#* held by }
		grep -qF "{ \"$k\", \"$h\"" table || echo "$l"
	done
}

atf_test_case flaw_reporting
flaw_reporting_head()
{
	atf_set "descr" "sandcastle(7) says how to report a flaw privately, what counts and what to expect, and the README points at it"
	atf_set "require.config" "checkout"
}
flaw_reporting_body()
{
	src=$(sc_srcdir)
	sed -n '/^\.Sh REPORTING A FLAW$/,/^\.Sh /p' "$src/man/sandcastle.7" > section
	for l in '^Report a flaw privately' '^\.Ss What counts$' \
	    '^\.Sx THE PROMISE' '^\.Ss What to expect$' '^An acknowledgement' \
	    'credits you'; do
		grep -q "$l" section || atf_fail "REPORTING A FLAW lacks $l"
	done
	atf_check -o ignore grep -q 'sandcastle(7), REPORTING A FLAW' "$src/README.md"
}

# pages SRC: the pages and the examples an operator reads.
pages()
{
	ls "$1"/man/*.[1-9] "$1/README.md" "$1/examples/README" \
	    "$1"/examples/*.* "$1"/examples/sources/*
}

atf_test_case pages_paths
pages_paths_head()
{
	atf_set "descr" "every path of the tree a page, the README or an example names is there (or is made by a build or a run); the control: examples/notes/notes.py, which notes.yaml named, is found"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "python3"
}
pages_paths_body()
{
	src=$(sc_srcdir)
	atf_check -o empty python3 "$src/regress/meta/pagepaths.py" "$src" \
	    $(pages "$src")
	printf '# (examples/notes/notes.py), beside examples/notes.py\n' > bad.yaml
	atf_check -o inline:"bad.yaml:1: examples/notes/notes.py\n" \
	    python3 "$src/regress/meta/pagepaths.py" "$src" bad.yaml
}

atf_test_case api_streamed
api_streamed_head()
{
	atf_set "descr" "no page, example or source file says the Messages API is silent until its reply is whole: the box asks for it streamed; the control: keepd(8)'s sentence before, across its lines, is found"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "python3"
}
api_streamed_body()
{
	src=$(sc_srcdir)
	atf_check -o empty python3 "$src/regress/meta/silent.py" \
	    $(pages "$src") "$src"/common/*.[ch] "$src"/keepd/*.[ch] \
	    "$src"/gated/*.[ch] "$src"/sandcastled/*.[ch] "$src"/box/*.[ch]
	printf '.Pq Xr sandcastle.conf 5 ,\nsince the Messages API sends nothing until its reply is whole, which\nmay take minutes.\n' > bad.8
	atf_check -o inline:"bad.8: nothing until its reply is whole\n" \
	    python3 "$src/regress/meta/silent.py" bad.8
}

atf_test_case prefix_removed
prefix_removed_head()
{
	atf_set "descr" "the manual's --prefix NAME is refused with a line that names its place in sandcastle(7), and that place says what replaces it (an account of its own) and why one account cannot hold two; CHANGES says it ([Unreleased] or the newest version); the control: the manual's --config DIR beside it is taken"
	atf_set "require.config" "checkout prefix"
}
prefix_removed_body()
{
	src=$(sc_srcdir)
	ctl=$(sc_bin sandcastlectl)
	atf_check -s exit:1 -o empty -e inline:"sandcastlectl: --prefix was removed: a second installation runs as an account of its own (sandcastle(7), Run two installations side by side)\n" \
	    "$ctl" --prefix two version
	atf_check -s exit:0 -o match:'^build ' -e empty "$ctl" --config "$PWD" version
	sed -n '/^\.Ss Run two installations side by side$/,/^\.S[sh] /p' \
	    "$src/man/sandcastle.7" | tr '\n' ' ' > section
	for l in '^\.Ss Run two installations side by side' 'useradd -m ' \
	    'loginctl enable-linger ' 'Fl \\-prefix Ar name' 'is gone' \
	    'removes the images of every other build'; do
		grep -q -e "$l" section || atf_fail "sandcastle(7) Run two installations side by side lacks: $l"
	done
	sed -n '/^## \[Unreleased\]/,$p' "$src/CHANGES" |
	    awk '/^## \[[0-9]/ { n++ } n < 2' | tr '\n' ' ' |
	    grep -q -e '--prefix.* removed' ||
	    atf_fail "CHANGES [Unreleased] and 1.0.0 do not say --prefix was removed"
}

atf_init_test_cases()
{
	atf_add_test_case hacking
	atf_add_test_case plain_make
	atf_add_test_case man_lint
	atf_add_test_case man_fl_runon
	atf_add_test_case man_every_program
	atf_add_test_case readme_commands
	atf_add_test_case binaries_counted
	atf_add_test_case delegation_recipe
	atf_add_test_case flaw_reporting
	atf_add_test_case pages_paths
	atf_add_test_case api_streamed
	atf_add_test_case prefix_removed
}
