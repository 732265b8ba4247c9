#! /usr/bin/env atf-sh
# sandcastlectl secret set, list and rm, as the operator (the test
# account), and the refusals: a value as an argument, root, a command
# that does not exist.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"

CANARY=SCTEST-CANARY-c7d2

atf_test_case set_stdin cleanup
set_stdin_head()
{
	atf_set "descr" "A1: secret set reads stdin, writes 0600 in a 0700 folder it makes"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
set_stdin_body()
{
	sc_setup
	sc_mkctl
	printf '%s\n' "$CANARY" > value
	atf_check -o inline:"secret x set\n" -e empty ./ctl secret set x < value
	atf_check -o inline:"$CANARY" cat "$SC_SECRETS/x"
	atf_check -o inline:"600\n" stat -c %a "$SC_SECRETS/x"
	atf_check -o inline:"$SC_USER\n" stat -c %U "$SC_SECRETS/x"
	# A folder that is not there yet is made 0700, with its parents.
	new=$SC_HOME/a/b/secrets
	atf_check -o inline:"secret x set\n" ./asuser \
	    "$(sc_bin sandcastlectl)" -s "$new" secret set x < value
	atf_check -o inline:"700\n" stat -c %a "$new"
	atf_check -o inline:"700\n" stat -c %a "$SC_HOME/a"
	# Setting it again replaces it and leaves no temporary file.
	printf 'second\n' > value2
	atf_check -o inline:"secret x set\n" ./ctl secret set x < value2
	atf_check -o inline:"second" cat "$SC_SECRETS/x"
	atf_check -o inline:"x\n" ls -A "$SC_SECRETS"
}
set_stdin_cleanup()
{
	sc_cleanup
}

atf_test_case set_refused cleanup
set_refused_head()
{
	atf_set "descr" "secret set refuses a value breaking a rule and keeps the old one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
set_refused_body()
{
	sc_setup
	sc_mkctl
	sc_secret x old
	printf '%s\r\n' "$CANARY" > cr
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: secret x: holds a control character\n" \
	    ./ctl secret set x < cr
	printf 'a\n%s\n' "$CANARY" > lines
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: secret x: holds a line break before its end\n" \
	    ./ctl secret set x < lines
	: > empty
	atf_check -s exit:1 -e inline:"sandcastlectl: secret x: is empty\n" \
	    ./ctl secret set x < empty
	head -c 16385 /dev/zero | tr '\0' a > long
	atf_check -s exit:1 -e inline:"sandcastlectl: secret x: longer than 16 KiB\n" \
	    ./ctl secret set x < long
	atf_check -o inline:"old" cat "$SC_SECRETS/x"
	atf_check -o inline:"x\n" ls -A "$SC_SECRETS"
	atf_check -s exit:1 -e match:"secret Bad: is not a name" \
	    ./ctl secret set Bad < cr
	# Control: exactly 16 KiB, with its line break, is taken.
	head -c 16384 /dev/zero | tr '\0' a > exact
	echo >> exact
	atf_check -o inline:"secret x set\n" ./ctl secret set x < exact
	atf_check -o inline:"16384\n" stat -c %s "$SC_SECRETS/x"
}
set_refused_cleanup()
{
	sc_cleanup
}

atf_test_case set_no_argument cleanup
set_no_argument_head()
{
	atf_set "descr" "A2: secret set never takes the value as an argument"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
set_no_argument_body()
{
	sc_setup
	sc_mkctl
	printf 'v\n' > value
	atf_check -s exit:1 -o empty \
	    -e match:"^sandcastlectl: secret set takes no value: it reads it from the terminal or stdin$" \
	    ./ctl secret set x "$CANARY" < value
	[ ! -e "$SC_SECRETS/x" ] || atf_fail "a value given as an argument was written"
	# Control: the same command without the value sets it.
	atf_check -o inline:"secret x set\n" ./ctl secret set x < value
}
set_no_argument_cleanup()
{
	sc_cleanup
}

atf_test_case set_tty cleanup
set_tty_head()
{
	atf_set "descr" "at a terminal, secret set prompts on it and reads without echo"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "require.progs" "script"
}
set_tty_body()
{
	sc_setup
	sc_mkctl
	bin=$(sc_bin sandcastlectl)
	# The value goes in a second late, once the prompt has turned echo off.
	(sleep 1; printf '%s\r' "$CANARY"; sleep 1) |
	    sc_as_user script -qec "$bin -s $SC_SECRETS secret set x" /dev/null \
	    > typescript 2>&1
	cat typescript
	grep -q 'secret x: ' typescript || atf_fail "no prompt on the terminal"
	grep -q 'secret x set' typescript || atf_fail "secret x was not set"
	if grep -q "$CANARY" typescript; then
		atf_fail "the value was echoed on the terminal"
	fi
	atf_check -o inline:"$CANARY" cat "$SC_SECRETS/x"
	# Control: a reader that keeps echo on shows the value in the capture.
	(sleep 1; printf '%s\r' "$CANARY"; sleep 1) |
	    sc_as_user script -qec "sh -c 'read v; echo done'" /dev/null \
	    > control 2>&1
	grep -q "$CANARY" control || atf_fail "the capture does not show an echo"
}
set_tty_cleanup()
{
	sc_cleanup
}

atf_test_case list cleanup
list_head()
{
	atf_set "descr" "secret list: missing, used, unused, sorted; dot files skipped"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
list_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	sc_secret notes n
	sc_secret old-token o
	sc_secret recipes r
	sc_as_user touch "$SC_SECRETS/.tmp-0badc0de" "$SC_SECRETS/.hidden"
	cat > expout <<EOF
missing  claude
used     notes
unused   old-token
used     recipes
EOF
	atf_check -o file:expout -e empty ./ctl secret list
	atf_check -o file:expout -e empty ./ctl sec l
	# It needs the configuration: without one it says why and lists nothing.
	sc_fixture regress/sandcastlectl/fixtures/broken
	atf_check -s exit:1 -o empty \
	    -e match:"^sandcastlectl: $SC_CONFIG/sources/notes.yaml:[0-9]+: destination: " \
	    ./ctl secret list
}
list_cleanup()
{
	sc_cleanup
}

atf_test_case list_never_opens cleanup
list_never_opens_head()
{
	atf_set "descr" "secret list opens no secret: a FIFO and a mode 0000 file are used"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "require.progs" "strace timeout"
}
list_never_opens_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	# An open of the FIFO blocks, one of the 0000 file fails: either would show.
	sc_as_user mkfifo -m 0600 "$SC_SECRETS/notes"
	sc_secret recipes r
	chmod 0000 "$SC_SECRETS/recipes"
	sc_secret claude c
	cat > expout <<EOF
used     claude
used     notes
used     recipes
EOF
	atf_check -o file:expout -e empty ./asuser timeout 10 \
	    "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" -s "$SC_SECRETS" secret list
	sc_as_user strace -f -qq -o "$SC_ROOT/log/list.trace" \
	    -e trace=open,openat,openat2 "$(sc_bin sandcastlectl)" \
	    -c "$SC_CONFIG" -s "$SC_SECRETS" secret list > /dev/null ||
	    atf_fail "secret list under strace"
	if grep -E '"(claude|notes|recipes)"|/secrets/(claude|notes|recipes)"' \
	    "$SC_ROOT/log/list.trace"; then
		atf_fail "secret list opened a secret"
	fi
	# Control: check reads the secrets, and the same trace shows it.
	sc_as_user strace -f -qq -o "$SC_ROOT/log/check.trace" \
	    -e trace=open,openat,openat2 "$(sc_bin sandcastlectl)" \
	    -c "$SC_CONFIG" -s "$SC_SECRETS" check > /dev/null
	grep -q '"claude"' "$SC_ROOT/log/check.trace" ||
	    atf_fail "the trace does not show an open of a secret"
}
list_never_opens_cleanup()
{
	sc_cleanup
}

atf_test_case rm cleanup
rm_head()
{
	atf_set "descr" "secret rm removes a secret; one that is not set is an error"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
rm_body()
{
	sc_setup
	sc_mkctl
	sc_secret old-token o
	sc_secret keep k
	atf_check -o inline:"secret old-token removed\n" -e empty \
	    ./ctl secret rm old-token
	[ ! -e "$SC_SECRETS/old-token" ] || atf_fail "old-token is still there"
	atf_check -o inline:"k" cat "$SC_SECRETS/keep"
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: secret old-token: not set\n" \
	    ./ctl secret rm old-token
}
rm_cleanup()
{
	sc_cleanup
}

atf_test_case root_refused cleanup
root_refused_head()
{
	atf_set "descr" "every command but version refuses root"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
root_refused_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	bin=$(sc_bin sandcastlectl)
	msg="sandcastlectl: refusing to run as root: run it as the operator\n"
	printf 'v\n' > value
	for c in "check" "secret list" "secret rm x" "secret set x" "show status"; do
		atf_check -s exit:1 -o empty -e inline:"$msg" \
		    "$bin" -c "$SC_CONFIG" -s "$SC_SECRETS" $c < value
	done
	[ ! -e "$SC_SECRETS/x" ] || atf_fail "root set a secret"
	# Control: version runs as root; and the operator may list.
	atf_check -o match:"^build   [0-9a-f]{12}$" "$bin" version
	atf_check -o inline:"missing  claude\nmissing  notes\nmissing  recipes\n" \
	    ./ctl secret list
}
root_refused_cleanup()
{
	sc_cleanup
}

atf_test_case commands cleanup
commands_head()
{
	atf_set "descr" "unknown, ambiguous and incomplete commands are refused with the list"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
commands_body()
{
	sc_setup
	sc_mkctl
	atf_check -s exit:1 -o empty \
	    -e match:"^sandcastlectl: bogus: unknown or ambiguous command$" \
	    -e match:"secret set NAME" -e match:"show status" ./ctl bogus
	# s is secret or show.
	atf_check -s exit:1 -e match:"^sandcastlectl: s: unknown or ambiguous" \
	    -e match:"^	version$" ./ctl s list
	atf_check -s exit:1 -e match:"secret: the command is not complete" \
	    ./ctl secret
	atf_check -s exit:1 -e match:"^usage: sandcastlectl \[-c dir\] \[-s dir\] command" \
	    ./ctl
	atf_check -s exit:1 -e match:"^usage:" ./ctl -x version
	# Control: a shortened word that is not ambiguous is taken.
	atf_check -o match:"^build " ./ctl ver
}
commands_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case set_stdin
	atf_add_test_case set_refused
	atf_add_test_case set_no_argument
	atf_add_test_case set_tty
	atf_add_test_case list
	atf_add_test_case list_never_opens
	atf_add_test_case rm
	atf_add_test_case root_refused
	atf_add_test_case commands
}
