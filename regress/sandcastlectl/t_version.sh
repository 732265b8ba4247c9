#! /usr/bin/env atf-sh
# sandcastlectl version: the version, a build id over the installed
# binaries that changes when any of them does, and the commit; the
# daemons' -V the same.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# bins: the installed binaries, each capability's box among them.
bins()
{
	echo sandcastled sandcastlectl keepd gated
	sc_caps | sed 's/^/sandcastle-box-/'
}

# copy_bins DIR: a private copy of the installed binaries, as make
# install lays them out.
copy_bins()
{
	sc_copy_build "$1"
}

# at DIR NAME: the program NAME of the copy DIR.
at()
{
	sc_bin_in "$1" "$2"
}

build_of()
{
	"$1/bin/sandcastlectl" version | sed -n 's/^build   //p'
}

# digest_of DIR: the id as sandcastlectl(8) defines it, made by coreutils'
# sha256sum: each binary's name and NUL, its length in 8 bytes, high
# first, then its bytes, in the manual's order.
digest_of()
{
	for _b in sandcastled sandcastlectl keepd gated \
	    sandcastle-box-claude sandcastle-box-ocr; do
		printf '%s\000' "$_b"
		_n=$(stat -c %s "$(at "$1" "$_b")")
		_s=56
		while [ $_s -ge 0 ]; do
			printf "\\$(printf %03o $(( (_n >> _s) & 255 )))"
			_s=$((_s - 8))
		done
		cat "$(at "$1" "$_b")"
	done | sha256sum | cut -c1-12
}

atf_test_case version
version_head()
{
	atf_set "descr" "version prints the version, a 12-hex build and the commit, in three lines"
	atf_set "require.config" "prefix"
}
version_body()
{
	bin=$(sc_bin sandcastlectl)
	atf_check -o save:out -e empty "$bin" version
	[ "$(wc -l < out)" -eq 3 ] || atf_fail "not three lines"
	atf_check -o ignore grep -Ex 'version [0-9]+\.[0-9]+\.[0-9]+' out
	atf_check -o ignore grep -Ex 'build   [0-9a-f]{12}' out
	atf_check -o ignore grep -Ex 'commit  ([0-9a-f]{40}|unknown)' out
	# The same binaries give the same id.
	atf_check -o file:out "$bin" version
}

atf_test_case build_digest
build_digest_head()
{
	atf_set "descr" "the build id is the manual's SHA-256 over the six binaries, as another program makes it; one byte more in a binary makes both another"
	atf_set "require.config" "prefix"
}
build_digest_body()
{
	copy_bins copy
	id=$(build_of copy)
	[ -n "$id" ] || atf_fail "no build id"
	[ "$id" = "$(digest_of copy)" ] ||
	    atf_fail "sandcastlectl's id $id, sha256sum's $(digest_of copy)"
	# The control: the digest above sees the bytes it is given.
	printf x >> "$(at copy keepd)"
	[ "$(digest_of copy)" != "$id" ] || atf_fail "sha256sum's id kept"
	[ "$(build_of copy)" = "$(digest_of copy)" ] ||
	    atf_fail "after the change, sandcastlectl's id $(build_of copy), sha256sum's $(digest_of copy)"
}

atf_test_case build_changes
build_changes_head()
{
	atf_set "descr" "the build id changes when one binary changes, and names a missing one"
	atf_set "require.config" "prefix"
}
build_changes_body()
{
	copy_bins copy
	before=$(build_of copy)
	[ -n "$before" ] || atf_fail "no build id"
	# Control: a copy of the same binaries has the same id as the install.
	[ "$before" = "$(build_of "$(atf_config_get prefix)")" ] ||
	    atf_fail "the copy has another id"
	for b in $(bins); do
		rm -rf one && copy_bins one
		printf 'x' >> "$(at one "$b")"
		after=$(build_of one)
		[ -n "$after" ] && [ "$after" != "$before" ] ||
		    atf_fail "a byte more in $b left the id $before"
	done
	# The split is part of the id: a byte moved from one file to the next.
	rm -rf moved && copy_bins moved
	printf 'x' >> "$(at moved keepd)"
	printf 'x' >> moved/bin/sandcastlectl
	a=$(build_of moved)
	rm -rf moved2 && copy_bins moved2
	printf 'xx' >> "$(at moved2 keepd)"
	cp moved/bin/sandcastlectl moved2/bin/sandcastlectl
	truncate -s -1 moved2/bin/sandcastlectl
	[ "$a" != "$(build_of moved2)" ] || atf_fail "moving a byte kept the id"
	rm "$(at copy gated)"
	atf_check -s exit:1 -o match:"^build   unknown$" \
	    -e match:"copy/libexec/sandcastle/gated: No such file or directory" \
	    copy/bin/sandcastlectl version
}

atf_test_case daemons
daemons_head()
{
	atf_set "descr" "sandcastled, keepd and gated -V each print their name, the version, the build and the commit sandcastlectl version prints, and exit 0; control: a binary changed gives its -V another build"
	atf_set "require.config" "prefix"
}
daemons_body()
{
	"$(sc_bin sandcastlectl)" version > v || atf_fail "sandcastlectl version"
	want=$(awk '{ v[$1] = $2 } END { printf "%s (build %s, commit %s)", v["version"], v["build"], v["commit"] }' v)
	for d in sandcastled keepd gated; do
		atf_check -o inline:"$d $want\n" -e empty "$(sc_bin "$d")" -V
	done
	copy_bins copy
	printf 'x' >> "$(at copy sandcastle-box-ocr)"
	atf_check -o not-inline:"gated $want\n" -o match:"^gated [^ ]+ \(build [0-9a-f]{12}, " \
	    "$(at copy gated)" -V
}

atf_init_test_cases()
{
	atf_add_test_case version
	atf_add_test_case daemons
	atf_add_test_case build_digest
	atf_add_test_case build_changes
}
