#! /usr/bin/env atf-sh
# examples/config.yaml and examples/sources/*.yaml are a complete
# configuration to start from: the installed programs take them as they
# are, and every key of sandcastle.conf(5) is written in them, the
# optional ones at least as a comment.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# keys_missing DIR: each key of sandcastle.conf(5) that no file of the
# configuration folder DIR writes, as "KEY:" or "# KEY:", one a line.
keys_missing()
{
	sed -n 's/^\.It Ic \([a-z_]*\) :.*/\1/p' \
	    "$(sc_srcdir)/man/sandcastle.conf.5" | sort -u > keys
	[ -s keys ] || atf_fail "no key in sandcastle.conf(5)"
	while read -r k; do
		cat "$1/config.yaml" "$1"/sources/*.yaml |
		    grep -Eq "(^|[[:space:]{,#])$k:" || echo "$k"
	done < keys
}

atf_test_case every_key
every_key_head()
{
	atf_set "descr" "every key of sandcastle.conf(5) is in examples/, each with a comment above it; control: a copy with job_timeout left out is named"
	atf_set "require.config" "checkout"
}
every_key_body()
{
	src=$(sc_srcdir)
	keys_missing "$src/examples" > missing
	atf_check -o empty cat missing
	# Each key line of the examples has a comment line above it, or
	# is a mapping's own line in a block whose comment says what it is.
	for f in "$src/examples/config.yaml" "$src"/examples/sources/*.yaml; do
		awk -v f="$f" '
		    /^[[:space:]]*[a-z_]+:/ && prev !~ /^[[:space:]]*#/ &&
		    prev !~ /^[[:space:]]*[a-z_]+:[[:space:]]*$/ {
			print f ": " FNR ": no comment above: " $0; bad = 1
		    }
		    { prev = $0 }
		    END { exit bad }' "$f" || atf_fail "a key without its comment"
	done
	# Control: the same folder without job_timeout, in either source.
	cp -R "$src/examples" copy
	sed -i '/job_timeout/d' copy/sources/*.yaml
	keys_missing copy > missing
	atf_check -o inline:"job_timeout\n" cat missing
}

atf_test_case loads cleanup
loads_head()
{
	atf_set "descr" "sandcastled, keepd and gated -n take examples/ as it is; control: the same folder with a key misspelled is refused, naming the file and the key"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
loads_body()
{
	sc_setup
	sc_fixture examples
	for p in sandcastled keepd gated; do
		sc_as_user "$(sc_bin $p)" -n -c "$SC_CONFIG" > out 2> err ||
		    { cat out err; atf_fail "$p -n refused examples/"; }
		grep -v '^configuration OK$' err > other
		atf_check -o empty cat other
	done
	# Control: one key misspelled.
	sed -i 's/^poll_interval:/poll_intervl:/' "$SC_CONFIG/sources/notes.yaml"
	sc_as_user "$(sc_bin sandcastled)" -n -c "$SC_CONFIG" > out 2> err &&
	    atf_fail "a misspelled key was taken"
	cat out err
	grep -q "notes.yaml.*poll_intervl" out err ||
	    atf_fail "the refusal names neither the file nor the key"
}
loads_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case every_key
	atf_add_test_case loads
}
