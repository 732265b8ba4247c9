#! /usr/bin/env atf-sh
# make reference's watch on a guest's boot (regress/reference/watch.subr):
# a boot whose runner never wrote, never powered off once it asked, or is
# stuck in a case past its time has its qemu stopped; the control of each
# is the same boot within its time, left to end by itself.  A stand-in
# boot runs `timeout N sleep` where run.sh's runs `timeout N qemu`.

. "$(atf_get_srcdir)/../lib/helpers.subr"

# standin SECONDS: a boot as run.sh starts one, in the background.
standin() { timeout "$1" sleep 60; }

# watched SECONDS: the stand-in, watched; st is its exit status (143:
# its sleep was stopped by SIGTERM; 124: it ran its SECONDS), took its
# seconds.
watched()
{
	_t=$(date +%s)
	standin "$1" &
	_p=$!
	watch "$_p" "$_t"
	wait "$_p"
	st=$? took=$(( $(date +%s) - _t ))
}

setup()
{
	. "$(sc_srcdir)/regress/reference/watch.subr"
	SHARE=$PWD/share START_TIMEOUT=300 STOP_TIMEOUT=300 WATCH_POLL=1
	mkdir -p share/out
	echo "guest: 10:00:00 boot 1" > share/out/guest.log
}

atf_test_case start
start_head()
{
	atf_set "descr" "a guest whose runner writes nothing within START_TIMEOUT is stopped (why=start); the control: one whose runner writes a line in time runs on"
	atf_set "require.config" "prefix"
}
start_body()
{
	setup
	START_TIMEOUT=2
	watched 30
	[ "$why" = start ] || atf_fail "why='$why' for a runner that wrote nothing"
	[ "$st" -eq 143 ] && [ "$took" -le 10 ] ||
	    atf_fail "the stand-in was not stopped: exit $st after $took s"
	# The control: a line after 1 s.
	( sleep 1; echo "guest: 10:00:01 system running after 40 s" >> share/out/guest.log ) &
	watched 6
	[ -z "$why" ] && [ "$st" -eq 124 ] ||
	    atf_fail "the control was stopped: why='$why', exit $st"
}

atf_test_case stop
stop_head()
{
	atf_set "descr" "a guest that has not powered off or rebooted STOP_TIMEOUT after its runner asked is stopped (why=stop); the control: within STOP_TIMEOUT it is left to end"
	atf_set "require.config" "prefix"
}
stop_body()
{
	setup
	STOP_TIMEOUT=2
	for last in "done" "rebooting; sessions: 0"; do
		( sleep 1; echo "guest: 10:00:01 $last" >> share/out/guest.log ) &
		watched 30
		[ "$why" = stop ] || atf_fail "why='$why' after '$last'"
		[ "$st" -eq 143 ] || atf_fail "not stopped after '$last': exit $st"
	done
	# The next boot begins with the boot before's "rebooting;" last in
	# the log, then its runner writes a case: no ending of its own (CI
	# stopped trixie's second boot in its package case 300 s in).
	( sleep 3; echo "guest: 10:01:00 boot 2" >> share/out/guest.log
	  echo "guest: 10:01:40 case package (at most 1800 s; 0 s since the case before)" >> share/out/guest.log ) &
	watched 8
	[ -z "$why" ] && [ "$st" -eq 124 ] ||
	    atf_fail "a boot that began after the boot before's reboot was stopped: why='$why', exit $st"
	STOP_TIMEOUT=30
	echo "guest: 10:02:00 rebooting; sessions: 0" >> share/out/guest.log
	watched 6
	[ -z "$why" ] && [ "$st" -eq 124 ] ||
	    atf_fail "the control was stopped: why='$why', exit $st"
}

atf_test_case case
case_head()
{
	atf_set "descr" "a guest whose runner is in a case a minute past the time the case allows is stopped (why=case, how long the runner was silent); the control: a case within its time runs on"
	atf_set "require.config" "prefix"
}
case_body()
{
	setup
	echo "guest: 10:00:01 case install (at most 5 s; 0 s since the case before)" >> share/out/guest.log
	touch -d '-70 seconds' share/out/guest.log
	watched 30
	[ "$why" = case ] || atf_fail "why='$why' for a runner 70 s in a 5 s case"
	[ "$stuck" -ge 70 ] || atf_fail "stuck for $stuck s, not 70"
	[ "$st" -eq 143 ] || atf_fail "not stopped: exit $st"
	# The control: 70 s into a case that allows 500.
	echo "guest: 10:00:01 case hints (at most 500 s; 0 s since the case before)" >> share/out/guest.log
	touch -d '-70 seconds' share/out/guest.log
	watched 6
	[ -z "$why" ] && [ "$st" -eq 124 ] ||
	    atf_fail "the control was stopped: why='$why', exit $st"
}

atf_init_test_cases()
{
	atf_add_test_case start
	atf_add_test_case stop
	atf_add_test_case case
}
