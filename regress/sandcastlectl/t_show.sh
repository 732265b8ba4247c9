#! /usr/bin/env atf-sh
# sandcastlectl show status: asks sandcastled over control.sock.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/ctl.subr"

atf_test_case no_answer cleanup
no_answer_head()
{
	atf_set "descr" "show status says where nothing answers, and exits 1"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
no_answer_body()
{
	sc_setup
	sc_mkctl
	sock=$SC_RUN/sandcastle/control.sock
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastlectl: sandcastled does not answer at $sock: No such file or directory\n" \
	    ./ctl show status
	SC_ENV="XDG_RUNTIME_DIR=" atf_check -s exit:1 \
	    -e inline:"sandcastlectl: XDG_RUNTIME_DIR is not set\n" ./ctl show status
}
no_answer_cleanup()
{
	sc_cleanup
}

atf_test_case status cleanup
status_head()
{
	atf_set "descr" "show status lists sandcastled's processes, as the operator only"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
status_body()
{
	sc_setup
	sc_mkctl
	sc_fixture regress/sandcastlectl/fixtures/good
	sc_start sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$SC_RUN/sandcastle/control.sock" ||
	    { sc_log sandcastled; atf_fail "no control.sock"; }
	sc_wait_log sandcastled "ready" ||
	    { sc_log sandcastled; atf_fail "sandcastled was never ready"; }
	atf_check -o save:status -e empty ./ctl show status
	cat status
	atf_check -o inline:"PROCESS               PID STATE     SINCE\n" head -n 1 status
	today=$(date +%Y-%m-%d)
	parent=$(awk '$1 == "parent" { print $2 }' status)
	[ -n "$parent" ] || atf_fail "no parent line"
	atf_check -o match:"^ *$SC_USER +sandcastled$" ps -o user=,comm= -p "$parent"
	grep -Eq "^parent +$parent running +$today [0-9:]{8}\$" status ||
	    atf_fail "the parent's line is not PROCESS PID STATE SINCE"
	for t in core keep-frontend "box launcher"; do
		p=$(pgrep -u "$SC_USER" -f "^sandcastled: $t\$") ||
		    atf_fail "no process titled $t"
		atf_check -o match:"^ *$parent$" ps -o ppid= -p "$p"
		grep -Eq "^$t +$p running +$today [0-9:]{8}\$" status ||
		    atf_fail "$t is not listed with its pid $p"
	done
	# Another account cannot even connect; the operator (above) can.
	atf_check -s exit:1 -o empty \
	    -e match:"^sandcastlectl: sandcastled does not answer at .*: Permission denied$" \
	    runuser -u "$SC_OTHER" -- env -i XDG_RUNTIME_DIR="$SC_RUN" \
	    "$(sc_bin sandcastlectl)" show status
	kill -TERM "$parent"
	i=0
	while kill -0 "$parent" 2>/dev/null; do
		i=$((i + 1)); [ $i -le 100 ] || atf_fail "sandcastled did not end"
		sleep 0.1
	done
	# Control: with it gone, nothing answers.
	atf_check -s exit:1 -e match:"does not answer" ./ctl show status
}
status_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case no_answer
	atf_add_test_case status
}
