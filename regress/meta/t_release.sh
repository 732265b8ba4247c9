#! /usr/bin/env atf-sh
# A version: the Makefile's VERSION is what every program prints, the
# newest version of CHANGES once it has one, and a v* tag on the commit;
# make dist gives the same bytes twice, and its tarball alone, with no
# .git, builds a sandcastlectl that knows the version and the commit;
# each version TESTRUNS.md records is one of CHANGES, on its tag's commit.
# (regress/release/units.sh builds and runs every unit program from it.)

. "$(atf_get_srcdir)/../lib/helpers.subr"

# in_git: the checkout is git's, or the case is skipped (a tarball's).
in_git()
{
	git -C "$(sc_srcdir)" rev-parse -q --verify HEAD > /dev/null 2>&1 ||
	    atf_skip "$(sc_srcdir) is not a git checkout"
}

# version_of MAKEFILE: its VERSION line's value.
version_of()
{
	sed -n 's/^VERSION[ 	]*=[ 	]*//p' "$1"
}

# says STATUS TEXT CMD...: CMD (a function of this file) exits STATUS
# and prints TEXT, whole.
says()
{
	_st=$1 _want=$2
	shift 2
	"$@" > said 2>&1
	_got=$?
	[ "$_got" -eq "$_st" ] && [ "$(cat said)" = "$_want" ] ||
	    atf_fail "$*: exit $_got, said '$(cat said)'; expected exit $_st, '$_want'"
}

# agree MAKEFILE CHANGES [TAG]: the rule, on these files; its complaints
# on stdout, 1 when there is one.  CHANGES keeps [Unreleased] on top and
# its newest "## [x.y.z] - date" is VERSION; a tag v* is vVERSION.
agree()
{
	_v=$(version_of "$1")
	_r=0
	echo "$_v" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' ||
	    { echo "$1: VERSION '$_v' is not x.y.z"; _r=1; }
	_first=$(grep -m 1 '^## \[' "$2")
	[ "$_first" = "## [Unreleased]" ] ||
	    { echo "$2: its first heading is '$_first', not ## [Unreleased]"; _r=1; }
	_newest=$(sed -n 's/^## \[\([0-9][0-9.]*\)\] - [0-9]\{4\}-[0-9][0-9]-[0-9][0-9]$/\1/p' "$2" | head -n 1)
	if [ -n "$_newest" ] && [ "$_newest" != "$_v" ]; then
		echo "$2: its newest version is $_newest, the Makefile's VERSION $_v"
		_r=1
	fi
	if [ -n "${3:-}" ] && [ "$3" != "v$_v" ]; then
		echo "the commit's tag is $3, the Makefile's VERSION $_v"
		_r=1
	fi
	return $_r
}

# recorded TESTRUNS CHANGES: each version's section of TESTRUNS agrees
# with CHANGES and with its tag where the checkout has it; complaints on
# stdout, 1 when there is one.
recorded()
{
	_r=0
	for _v in $(sed -n 's/^## v\([0-9][0-9.]*\)$/\1/p' "$1"); do
		_c=$(sed -n "/^## v$_v\$/,/^## v/s/^- \*\*Commit\*\*: \([0-9a-f]\{40\}\)\$/\1/p" "$1")
		[ -n "$_c" ] || { echo "$1: v$_v names no commit"; _r=1; continue; }
		grep -q "^## \[$_v\] - [0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\$" "$2" ||
		    { echo "$2: no version $_v, which $1 records"; _r=1; }
		sed -n "/^## v$_v\$/,/^## v/p" "$1" | grep -q '^| [^|]* | [^|]* | fail' &&
		    { echo "$1: v$_v has a row that failed"; _r=1; }
		_t=$(git -C "$(sc_srcdir)" rev-parse -q --verify "refs/tags/v$_v^{commit}" 2>/dev/null) || continue
		[ "$_t" = "$_c" ] ||
		    { echo "$1: v$_v records $_c, its tag is on $_t"; _r=1; }
	done
	return $_r
}

atf_test_case testruns
testruns_head()
{
	atf_set "descr" "each version TESTRUNS.md records names a commit, is a version of CHANGES, has no failed row, and is the commit its v* tag is on where the checkout has the tag; controls: a record of another commit, of a version CHANGES lacks, and with a failed row each fail, named"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "git"
}
testruns_body()
{
	src=$(sc_srcdir)
	in_git
	[ -s "$src/TESTRUNS.md" ] || atf_skip "no version is recorded yet"
	recorded "$src/TESTRUNS.md" "$src/CHANGES" > out ||
	    { cat out; atf_fail "TESTRUNS.md disagrees"; }
	v=$(sed -n 's/^## v\([0-9][0-9.]*\)$/\1/p' "$src/TESTRUNS.md" | head -n 1)
	# The controls, each on a copy of the newest record.
	sed "0,/^- \*\*Commit\*\*: .*/s//- **Commit**: $(printf '%040d' 0)/" \
	    "$src/TESTRUNS.md" > other
	if git -C "$src" rev-parse -q --verify "refs/tags/v$v" > /dev/null; then
		says 1 "other: v$v records $(printf '%040d' 0), its tag is on $(git -C "$src" rev-parse "v$v^{commit}")" \
		    recorded other "$src/CHANGES"
	fi
	sed "0,/^## v$v\$/s//## v9.9.8/" "$src/TESTRUNS.md" > unknown
	recorded unknown "$src/CHANGES" > said 2>&1 &&
	    atf_fail "a record of 9.9.8, which CHANGES lacks, was taken"
	grep -qx "$src/CHANGES: no version 9.9.8, which unknown records" said ||
	    atf_fail "said: $(cat said)"
	awk '!done && /^\| [^|]* \| [^|]* \| pass/ { sub(/\| pass/, "| fail"); done = 1 } { print }' \
	    "$src/TESTRUNS.md" > failing
	recorded failing "$src/CHANGES" > said 2>&1 &&
	    atf_fail "a record with a failed row was taken"
	grep -qx "failing: v$v has a row that failed" said ||
	    atf_fail "said: $(cat said)"
}

atf_test_case version_rule
version_rule_head()
{
	atf_set "descr" "the Makefile's VERSION is x.y.z, the installed sandcastlectl's version line, CHANGES' newest version once it has one (under [Unreleased]), and the commit's v* tag if it has one; controls: CHANGES with a newer version, a Makefile with another, a tag of another each fail, named"
	atf_set "require.config" "checkout prefix"
	atf_set "require.progs" "git"
}
version_rule_body()
{
	src=$(sc_srcdir)
	in_git
	v=$(version_of "$src/Makefile")
	tag=$(git -C "$src" describe --exact-match --match 'v*' HEAD 2>/dev/null)
	agree "$src/Makefile" "$src/CHANGES" "$tag" > out || { cat out; atf_fail "the version rule"; }
	atf_check -o match:"^version $v\$" -s ignore "$(sc_bin sandcastlectl)" version
	# The controls: each breaks the rule once.
	sed "0,/^## \[Unreleased\]/s//&\n\n## [9.9.9] - 2026-12-01/" "$src/CHANGES" > newer
	grep -q '^## \[9.9.9\]' newer || atf_fail "the doctored CHANGES has no 9.9.9"
	says 1 "newer: its newest version is 9.9.9, the Makefile's VERSION $v" \
	    agree "$src/Makefile" newer
	sed 's/^VERSION[ 	]*=.*/VERSION	= 0.9/' "$src/Makefile" > Makefile.other
	printf '# Changelog\n\n## [Unreleased]\n' > unversioned
	says 1 "Makefile.other: VERSION '0.9' is not x.y.z" \
	    agree Makefile.other unversioned
	says 1 "the commit's tag is v0.0.1, the Makefile's VERSION $v" \
	    agree "$src/Makefile" "$src/CHANGES" v0.0.1
	# The doctored CHANGES agrees with a Makefile of its version.
	sed "s/^VERSION[ 	]*=.*/VERSION	= 9.9.9/" "$src/Makefile" > Makefile.9
	says 0 "" agree Makefile.9 newer v9.9.9
}

# tar_ok TARBALL TOP TIME: every entry under TOP/, owner and group 0,
# time TIME, the names sorted, gzip with no name and no time; else says
# which and exits 1.
tar_ok()
{
	python3 - "$@" <<'EOF'
import sys, tarfile
path, top, when = sys.argv[1], sys.argv[2], int(sys.argv[3])
head = open(path, 'rb').read(10)
bad = []
if head[3] & 0x08 or head[4:8] != b'\0\0\0\0':
    bad.append('gzip keeps a name or a time')
names = []
for m in tarfile.open(path, 'r:gz'):
    n = m.name + ('/' if m.isdir() else '')
    names.append(n)
    if m.uid or m.gid:
        bad.append('%s: owner %d/%d' % (n, m.uid, m.gid))
    if int(m.mtime) != when:
        bad.append('%s: time %d, not %d' % (n, m.mtime, when))
    if n != top + '/' and not n.startswith(top + '/'):
        bad.append('%s: not under %s/' % (n, top))
if names != sorted(names):
    bad.append('the names are not sorted')
print('\n'.join(bad[:5]))
sys.exit(1 if bad else 0)
EOF
}

atf_test_case dist
dist_head()
{
	atf_set "descr" "make dist twice gives the same bytes, the tarball and its SHA-256; every entry under sandcastle-VERSION/, owner 0/0, the commit's time, names sorted, gzip -n; its files are the commit's tracked files, COMMIT the commit; control: a file's time changed is named"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "git gzip python3"
	atf_set "timeout" "300"
}
dist_body()
{
	src=$(sc_srcdir)
	in_git
	v=$(version_of "$src/Makefile")
	head=$(git -C "$src" rev-parse HEAD)
	when=$(git -C "$src" log -1 --format=%ct HEAD)
	mkdir one two
	atf_check -o ignore -e ignore make -s -C "$src" dist DISTDIR="$PWD/one"
	sleep 1
	atf_check -o ignore -e ignore make -s -C "$src" dist DISTDIR="$PWD/two"
	t=sandcastle-$v.tar.gz
	cmp "one/$t" "two/$t" || atf_fail "make dist gave two tarballs"
	(cd one && sha256sum -c "$t.sha256") || atf_fail "the SHA-256 beside it"
	tar_ok "one/$t" "sandcastle-$v" "$when" > out || { cat out; atf_fail "the tarball"; }
	tar -tzf "one/$t" | sed -n "s|^sandcastle-$v/||p" | grep -v '/$' | grep . > files
	git -C "$src" ls-tree -r --name-only HEAD | diff - files ||
	    atf_fail "the tarball is not the commit's tracked files"
	atf_check -o inline:"$head\n" tar -xzOf "one/$t" "sandcastle-$v/COMMIT"
	# The control: one entry's time changed is seen and named.
	mkdir x && tar -xzf "one/$t" -C x
	touch -d @1 "x/sandcastle-$v/README.md"
	tar -tzf "one/$t" > list
	(cd x && tar --no-recursion --owner=0 --group=0 --numeric-owner \
	    -T ../list -cf -) | gzip -n > doctored.tar.gz
	says 1 "sandcastle-$v/README.md: time 1, not $when" \
	    tar_ok doctored.tar.gz "sandcastle-$v" "$when"
}

atf_test_case dist_builds
dist_builds_head()
{
	atf_set "descr" "the tarball unpacked in an empty folder, with no .git, builds a sandcastlectl whose version names VERSION and the commit, read from COMMIT; control: COMMIT as git keeps it gives commit unknown"
	atf_set "require.config" "checkout"
	atf_set "require.progs" "git make cc"
	atf_set "timeout" "600"
}
dist_builds_body()
{
	src=$(sc_srcdir)
	in_git
	v=$(version_of "$src/Makefile")
	head=$(git -C "$src" rev-parse HEAD)
	atf_check -o ignore -e ignore make -s -C "$src" dist DISTDIR="$PWD"
	mkdir empty && tar -xzf "sandcastle-$v.tar.gz" -C empty
	cd "empty/sandcastle-$v" || atf_fail "no sandcastle-$v/"
	[ -e .git ] && atf_fail "the tarball holds .git"
	make -s -j2 sandcastlectl/sandcastlectl > build.log 2>&1 ||
	    { cat build.log; atf_fail "sandcastlectl does not build from the tarball"; }
	# No other binary is built: version says its build is unknown.
	atf_check -s exit:1 -e ignore -o inline:"version $v\nbuild   unknown\ncommit  $head\n" \
	    sandcastlectl/sandcastlectl version
	printf '$Format:%%H$\n' > COMMIT
	make -s sandcastlectl/sandcastlectl > build.log 2>&1 ||
	    { cat build.log; atf_fail "sandcastlectl does not build again"; }
	atf_check -s exit:1 -e ignore -o inline:"version $v\nbuild   unknown\ncommit  unknown\n" \
	    sandcastlectl/sandcastlectl version
}

atf_init_test_cases()
{
	atf_add_test_case version_rule
	atf_add_test_case testruns
	atf_add_test_case dist
	atf_add_test_case dist_builds
}
