#! /usr/bin/env atf-sh
# sandcastled as the operator runs it: the parent and its three children,
# the control socket and its locks, the end of a child, and -n.  Every
# daemon runs as the test account; the suite itself runs as root.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"

FIXTURES=regress/sandcastled/fixtures
READY="running: core, keep-frontend and box launcher are ready"

# as_accounts: the command words of sc_as_user and of another account,
# for atf_check, which runs programs and not shell functions.
as_accounts()
{
	AS_USER="runuser -u $SC_USER -- env -i HOME=$SC_HOME XDG_RUNTIME_DIR=$SC_RUN PATH=/usr/bin:/bin LC_ALL=C.UTF-8"
	AS_OTHER="runuser -u $SC_OTHER -- env -i HOME=/nonexistent XDG_RUNTIME_DIR=$SC_RUN PATH=/usr/bin:/bin LC_ALL=C.UTF-8"
}

# start_daemon: a valid configuration, sandcastled -d, and its children ready.
start_daemon()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/valid"
	sc_start sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$SC_RUN/sandcastle/control.sock" ||
	    { sc_log sandcastled; atf_fail "no control.sock"; }
	sc_wait_log sandcastled "$READY" ||
	    { sc_log sandcastled; atf_fail "the children never were ready"; }
}

# stop_daemon PID: SIGTERM to the daemon itself (sc_stop's pid is runuser's)
# and its exit status, as the background job's.  Not to be run in $(...):
# a subshell cannot wait for the job.
stop_daemon()
{
	kill -TERM "$1"
	_st=0
	wait "$(cat "$SC_ROOT/log/sandcastled.pid")" || _st=$?
	echo $_st
}

# child_pid TITLE: the pid of the child whose process title is TITLE.
child_pid()
{
	pgrep -u "$SC_USER" -f "^sandcastled: $1\$"
}


atf_test_case start_status_stop cleanup
start_status_stop_head()
{
	atf_set "descr" "sandcastled starts its children, answers show status, shows their titles, and SIGTERM ends them all with 0"
	atf_set "require.config" "prefix checkout"
}
start_status_stop_body()
{
	start_daemon
	atf_check -o inline:"700\n" stat -c %a "$SC_RUN/sandcastle"
	atf_check -o inline:"600\n" stat -c %a "$SC_RUN/sandcastle/control.sock"
	$AS_USER "$(sc_bin sandcastlectl)" show status > status ||
	    { cat status; atf_fail "show status"; }
	for t in parent core keep-frontend "box launcher"; do
		grep -Eq "^$t +[0-9]+ +running" status ||
		    { cat status; atf_fail "$t is not listed as running"; }
	done
	pids=
	for t in core keep-frontend "box launcher"; do
		p=$(child_pid "$t") || atf_fail "no process titled $t"
		atf_check -o inline:"sandcastled: $t\n" ps -o args= -p "$p"
		pids="$pids $p"
	done
	parent=$(awk '$1 == "parent" { print $2 }' status)
	[ "$(pgrep -P "$parent" | sort | tr '\n' ' ')" = \
	    "$(echo $pids | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
	    atf_fail "the parent's children are not the three listed"
	stop_daemon "$parent" > stopped
	st=$(cat stopped)
	[ "$st" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $st after SIGTERM"; }
	for p in $parent $pids; do
		kill -0 "$p" 2>/dev/null && atf_fail "pid $p outlived the daemon"
	done
	[ -e "$SC_RUN/sandcastle/control.sock" ] && atf_fail "control.sock left"
	return 0
}
start_status_stop_cleanup()
{
	sc_cleanup
}

atf_test_case parent_locked cleanup
parent_locked_head()
{
	atf_set "descr" "N5: once its children run, the parent is under its seccomp filter and no_new_privs, as the kernel shows it, and its Landlock ruleset; SIGTERM still stops the children and removes control.sock"
	atf_set "require.config" "prefix checkout"
}
parent_locked_body()
{
	start_daemon
	$AS_USER "$(sc_bin sandcastlectl)" show status > status ||
	    { cat status; atf_fail "show status"; }
	parent=$(awk '$1 == "parent" { print $2 }' status)
	[ -n "$parent" ] || { cat status; atf_fail "no parent in show status"; }
	atf_check -o inline:"1\n" awk '/^NoNewPrivs:/ { print $2 }' \
	    "/proc/$parent/status"
	atf_check -o inline:"2\n" awk '/^Seccomp:/ { print $2 }' \
	    "/proc/$parent/status"
	grep -Eq "^sandcastled: landlock ABI [0-9]+: sandcastled's parent sees no file but control.sock to remove" \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no line of the parent's ruleset"; }
	pids="$(child_pid core) $(child_pid keep-frontend) $(child_pid 'box launcher')"
	stop_daemon "$parent" > stopped
	st=$(cat stopped)
	[ "$st" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $st after SIGTERM"; }
	for p in $pids; do
		kill -0 "$p" 2>/dev/null && atf_fail "child $p outlived the parent"
	done
	[ -e "$SC_RUN/sandcastle/control.sock" ] && atf_fail "control.sock left"
	return 0
}
parent_locked_cleanup()
{
	sc_cleanup
}

atf_test_case stopped_mid_poll cleanup
stopped_mid_poll_head()
{
	atf_set "descr" "F4: the parent, the core, the keep frontend and the box launcher, each stopped and continued while it waits in poll (the core's with its timer), go on: the kernel restarts the wait as restart_syscall(2), which every filter allows; show status answers after, no child died, and SIGTERM still ends them with 0; the control is show status before the stops"
	atf_set "require.config" "prefix checkout"
}
stopped_mid_poll_body()
{
	start_daemon
	$AS_USER "$(sc_bin sandcastlectl)" show status > status ||
	    { cat status; atf_fail "show status before"; }
	parent=$(awk '$1 == "parent" { print $2 }' status)
	pids="$(child_pid core) $(child_pid keep-frontend) $(child_pid 'box launcher')"
	for p in $parent $pids; do
		kill -STOP "$p" && sleep 0.3 && kill -CONT "$p"
	done
	sleep 1
	for p in $parent $pids; do
		kill -0 "$p" 2>/dev/null || { sc_log sandcastled; atf_fail "process $p died of a stop"; }
	done
	$AS_USER "$(sc_bin sandcastlectl)" show status > status ||
	    { cat status; sc_log sandcastled; atf_fail "show status after the stops"; }
	if grep -E "killed by signal|filter denied" "$SC_ROOT/log/sandcastled.log"; then
		atf_fail "a process was killed"
	fi
	stop_daemon "$parent" > stopped
	st=$(cat stopped)
	[ "$st" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $st after SIGTERM"; }
}
stopped_mid_poll_cleanup()
{
	sc_cleanup
}

atf_test_case root_refused cleanup
root_refused_head()
{
	atf_set "descr" "sandcastled refuses to run as root; the test account may"
	atf_set "require.config" "prefix checkout"
}
root_refused_body()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/valid"
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastled: refusing to run as root\n" \
	    env XDG_RUNTIME_DIR="$SC_RUN" "$(sc_bin sandcastled)" -d \
	    -c "$SC_CONFIG"
	atf_check -s exit:1 -o empty \
	    -e inline:"sandcastled: refusing to run as root\n" \
	    "$(sc_bin sandcastled)" -n -c "$SC_CONFIG"
	[ -e "$SC_RUN/sandcastle" ] && atf_fail "root made the runtime folder"
	# Control: the same check as the test account passes.
	atf_check -s exit:0 -o empty -e inline:"configuration OK\n" \
	    $AS_USER "$(sc_bin sandcastled)" -n -c "$SC_CONFIG"
}
root_refused_cleanup()
{
	sc_cleanup
}

atf_test_case child_killed cleanup
child_killed_head()
{
	atf_set "descr" "a child killed takes sandcastled down with exit 1 and a line naming it"
	atf_set "require.config" "prefix checkout"
}
child_killed_body()
{
	start_daemon
	core=$(child_pid core) || atf_fail "no core"
	others="$(child_pid keep-frontend) $(child_pid 'box launcher')"
	kill -KILL "$core"
	st=0
	wait "$(cat "$SC_ROOT/log/sandcastled.pid")" || st=$?
	[ "$st" -eq 1 ] || { sc_log sandcastled; atf_fail "exit $st, not 1"; }
	grep -q "^sandcastled: core was killed by signal 9 (SIGKILL)\$" \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no line names the core's end"; }
	for p in $others; do
		kill -0 "$p" 2>/dev/null && atf_fail "child $p outlived the parent"
	done
	[ -e "$SC_RUN/sandcastle/control.sock" ] && atf_fail "control.sock left"
	return 0
}
child_killed_cleanup()
{
	sc_cleanup
}

atf_test_case control_other_uid cleanup
control_other_uid_head()
{
	atf_set "descr" "A3: the control socket refuses another uid: by its permissions, and by the peer's uid once they are opened"
	atf_set "require.config" "prefix checkout"
}
control_other_uid_body()
{
	start_daemon
	other=$(id -u "$SC_OTHER")
	# With the lock in place, another account cannot even connect.
	atf_check -s not-exit:0 -o empty -e match:"Permission denied" \
	    $AS_OTHER "$(sc_bin sandcastlectl)" show status
	# The lock removed: the uid check alone refuses it.
	chmod 0711 "$SC_RUN" "$SC_RUN/sandcastle"
	chmod 0666 "$SC_RUN/sandcastle/control.sock"
	atf_check -s not-exit:0 -o empty \
	    -e match:"refused: uid $other is not the operator's" \
	    $AS_OTHER "$(sc_bin sandcastlectl)" show status
	sc_wait_log sandcastled \
	    "control: refused a client of uid $other (pid [0-9]*): not the operator's" 5 ||
	    { sc_log sandcastled; atf_fail "no log line for the refusal"; }
	# Control: the operator gets the status through the same socket.
	atf_check -o match:"^core +[0-9]+ +running" $AS_USER "$(sc_bin sandcastlectl)" show status
	chmod 0700 "$SC_RUN"
}
control_other_uid_cleanup()
{
	sc_cleanup
}

atf_test_case control_protocol cleanup
control_protocol_head()
{
	atf_set "descr" "the control socket refuses another protocol version, closes a malformed client alone, and serves 16 clients at most"
	atf_set "require.config" "prefix checkout"
	atf_set "require.progs" "python3"
}
control_protocol_body()
{
	start_daemon
	probe="$(sc_srcdir)/regress/sandcastled/ctlprobe.py"
	# 2, before the jobs running (issue 47), and one after this one's.
	atf_check -o inline:"error: protocol version 2, this sandcastled speaks 3\n" \
	    $AS_USER python3 "$probe" hello 2
	atf_check -o inline:"error: protocol version 4, this sandcastled speaks 3\n" \
	    $AS_USER python3 "$probe" hello 4
	# Control: the version it speaks is answered.
	atf_check -o inline:"hello 3\n" $AS_USER python3 "$probe" hello 3
	# A malformed message closes that client, and the daemon serves on.
	atf_check -o inline:"hello 3\nclosed\n" $AS_USER python3 "$probe" malformed
	grep -q "control: client pid [0-9]* sent a malformed message (type 99, 2 bytes: unknown type): closed" \
	    "$SC_ROOT/log/sandcastled.log" || { sc_log sandcastled; atf_fail "no log line"; }
	atf_check -o match:"^core +[0-9]+ +running" \
	    $AS_USER "$(sc_bin sandcastlectl)" show status
	# Sixteen clients at once are served; the seventeenth is told why.
	$AS_USER python3 "$probe" many 17 > many || atf_fail "ctlprobe many"
	[ "$(grep -c '^hello 3$' many)" -eq 16 ] || { cat many; atf_fail "not 16 served"; }
	atf_check -o inline:"error: refused: too many clients, try again\n" tail -n 1 many
}
control_protocol_cleanup()
{
	sc_cleanup
}

# start_held: sandcastled -d under strace(1), which stops the parent
# with SIGSTOP at its first socketpair(2), the first child's: after the
# parent read the configuration, before any child reads it.  The
# parent's pid is left in HELD.
start_held()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/valid"
	: > "$SC_ROOT/log/sandcastled.log"
	setpriv --reuid="$SC_USER" --regid="$SC_USER" --init-groups \
	    --inh-caps=-all -- env -i HOME="$SC_HOME" \
	    XDG_RUNTIME_DIR="$SC_RUN" PATH=/usr/bin:/bin:/usr/sbin:/sbin \
	    LC_ALL=C.UTF-8 strace -qq -o /dev/null -e trace=socketpair \
	    -e inject=socketpair:signal=SIGSTOP:when=1 \
	    "$(sc_bin sandcastled)" -d -c "$SC_CONFIG" -s "$SC_SECRETS" \
	    >"$SC_ROOT/log/sandcastled.log" 2>&1 &
	echo $! > "$SC_ROOT/log/sandcastled.pid"
	_i=0
	HELD=
	while [ $_i -lt 100 ]; do
		HELD=$(pgrep -P "$(sc_pid sandcastled)") &&
		    grep -q '^State:[[:space:]]*[tT]' "/proc/$HELD/status" &&
		    break
		HELD=
		_i=$((_i + 1))
		sleep 0.1
	done
	[ -n "$HELD" ] || { sc_log sandcastled; atf_fail "the parent was never held"; }
	pgrep -P "$HELD" >/dev/null && atf_fail "a child started before the hold"
	return 0
}

atf_test_case config_changed cleanup
config_changed_head()
{
	atf_set "descr" "a source's file changed, still valid, between the parent's read and its children's: each child refuses it by name and sandcastled ends; the control, unchanged, starts"
	atf_set "require.config" "prefix checkout"
	atf_set "require.progs" "strace"
}
config_changed_body()
{
	# The control: held and let go, the configuration as it was.
	start_held
	kill -CONT "$HELD"
	sc_wait_log sandcastled "$READY" 20 ||
	    { sc_log sandcastled; atf_fail "unchanged, the children never were ready"; }
	stop_daemon "$HELD" > stopped
	sc_cleanup
	start_held
	sed -i 's/^poll_interval: 30s$/poll_interval: 45s/' \
	    "$SC_CONFIG/sources/one.yaml"
	grep -q '^poll_interval: 45s$' "$SC_CONFIG/sources/one.yaml" ||
	    atf_fail "the fixture's poll_interval is not 30s"
	kill -CONT "$HELD"
	sc_wait_log sandcastled "a child ended: stopping sandcastled" 20 ||
	    { sc_log sandcastled; atf_fail "sandcastled runs on"; }
	grep -qF "$SC_CONFIG/sources/one.yaml: changed since sandcastled started, which read the configuration before: restart sandcastled to run with the configuration as it is now" \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no child named the file changed"; }
	grep -q "$READY" "$SC_ROOT/log/sandcastled.log" &&
	    { sc_log sandcastled; atf_fail "the children ran the changed file"; }
	return 0
}
config_changed_cleanup()
{
	sc_cleanup
}

atf_test_case check_config cleanup
check_config_head()
{
	atf_set "descr" "sandcastled -n lists every mistake of a configuration, passes a valid one, and -nv prints it back, as keepd's and gated's do"
	atf_set "require.config" "prefix checkout"
}
check_config_body()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/mistakes"
	sed "s|^CONF/|$SC_CONFIG/|" "$(sc_srcdir)/$FIXTURES/mistakes.ok" > expected
	atf_check -s exit:1 -o empty -e file:expected \
	    $AS_USER "$(sc_bin sandcastled)" -n -c "$SC_CONFIG"
	# Control: a valid configuration passes, and -v prints it back.
	sc_fixture "$FIXTURES/valid"
	atf_check -s exit:0 -o empty -e inline:"configuration OK\n" \
	    $AS_USER "$(sc_bin sandcastled)" -n -c "$SC_CONFIG"
	for d in sandcastled keepd gated; do
		atf_check -s exit:0 -o save:printed -e inline:"configuration OK\n" \
		    $AS_USER "$(sc_bin $d)" -nv -c "$SC_CONFIG"
		for l in "    model: claude-sonnet-4-5" "    max_tokens: 1024" \
		    "  one:" "    poll_interval: 30s"; do
			grep -qxF "$l" printed ||
			    { cat printed; atf_fail "$d -nv lacks: $l"; }
		done
	done
}
check_config_cleanup()
{
	sc_cleanup
}

atf_test_case other_programs cleanup
other_programs_head()
{
	atf_set "descr" "keepd and gated check their configuration with -n, listing every mistake, and refuse root; each capability's sandcastle-box knows its own capability alone and releases a job outside its image"
	atf_set "require.config" "prefix checkout"
}
other_programs_body()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/valid"
	for d in keepd gated; do
		atf_check -s exit:0 -o empty -e inline:"configuration OK\n" \
		    $AS_USER "$(sc_bin $d)" -n -c "$SC_CONFIG"
		atf_check -s exit:1 -o empty \
		    -e inline:"$d: refusing to run as root\n" \
		    "$(sc_bin $d)" -n -c "$SC_CONFIG"
	done
	sc_fixture "$FIXTURES/mistakes"
	sed "s|^CONF/|$SC_CONFIG/|" "$(sc_srcdir)/$FIXTURES/mistakes.ok" > expected
	for d in keepd gated; do
		atf_check -s exit:1 -o empty -e file:expected \
		    $AS_USER "$(sc_bin $d)" -n -c "$SC_CONFIG"
	done
	# Outside an image of this build, a box releases its job, and says why.
	atf_check -s exit:0 -o match:'^\{"type":"failure","release":true,"word":"build","error":"/sandcastle/build: ' \
	    "$(sc_bin sandcastle-box-ocr)" ocr
	atf_check -s exit:1 -o empty -e match:"^usage: sandcastle-box" \
	    "$(sc_bin sandcastle-box-ocr)" shell
	# Each capability's box knows its own alone: the other's is a usage.
	atf_check -s exit:1 -o empty -e inline:"usage: sandcastle-box claude\n" \
	    "$(sc_bin sandcastle-box-claude)" ocr
	atf_check -s exit:1 -o empty -e inline:"usage: sandcastle-box ocr\n" \
	    "$(sc_bin sandcastle-box-ocr)" claude
}
other_programs_cleanup()
{
	sc_cleanup
}

# stdio_of NAME SOCKET: NAME's socket bound and NAME still running a
# second on; then where its descriptors 0, 1 and 2 lead, one a line.
stdio_of()
{
	sc_wait_file "$2" 15 || { sc_log "$1"; atf_fail "$1 never bound $2"; }
	sleep 1
	kill -0 "$(sc_pid "$1")" 2>/dev/null || atf_fail "$1 ended"
	for fd in 0 1 2; do
		readlink "/proc/$(sc_pid "$1")/fd/$fd"
	done
}

# start_each: the three daemons -d (the gate and the keep in the host
# namespace), each's descriptors 0 to 2 in NAME.fds; then stopped.
start_each()
{
	sc_start_in_host gated -d -c "$SC_CONFIG"
	stdio_of gated "$SC_RUN/sandcastle/gate.sock" > gated.fds
	sc_start_in_host keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	stdio_of keepd "$SC_RUN/sandcastle/keep.sock" > keepd.fds
	sc_start sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	stdio_of sandcastled "$SC_RUN/sandcastle/control.sock" > sandcastled.fds
	for d in sandcastled keepd gated; do
		sc_stop $d
	done
}

atf_test_case stdio_closed cleanup
stdio_closed_head()
{
	atf_set "descr" "sandcastled, keepd and gated started with descriptors 0 to 2 closed run with /dev/null on them, where a socket or a file would take them; started with them open (the control), they keep theirs"
	atf_set "require.config" "prefix checkout"
}
stdio_closed_body()
{
	sc_setup
	sc_net_up
	sc_fixture "$FIXTURES/valid"
	printf '#!/bin/sh\nexec "$@" <&- >&- 2>&-\n' > "$SC_ROOT/closed.sh"
	chmod 0755 "$SC_ROOT/closed.sh"
	SC_ENV="/bin/sh $SC_ROOT/closed.sh"
	start_each
	SC_ENV=
	for d in sandcastled keepd gated; do
		atf_check -o inline:"/dev/null\n/dev/null\n/dev/null\n" cat $d.fds
	done
	# The control: open, they are the log's, as the test gave them.
	start_each
	for d in sandcastled keepd gated; do
		atf_check -o inline:"$SC_ROOT/log/$d.log\n$SC_ROOT/log/$d.log\n" \
		    sed 1d $d.fds
	done
}
stdio_closed_cleanup()
{
	sc_net_cleanup
}

atf_test_case images_of_build cleanup
images_of_build_head()
{
	atf_set "descr" "I1: sandcastled -i, as the units run it, refuses with 78 and a line naming sandcastlectl install to start a build whose images are missing: before any image, and after an upgrade put new binaries where the images are the old build's; with its build's images it starts (the control)"
	atf_set "require.config" "prefix checkout"
	atf_set "timeout" "900"
}
images_of_build_body()
{
	sc_setup
	as_accounts
	sc_fixture "$FIXTURES/valid"
	# A copy of the binaries, the account's: the upgrade changes it.
	sc_copy_build "$SC_ROOT/build"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/build"
	bin=$SC_ROOT/build/bin
	old=$(sc_as_user "$bin/sandcastlectl" version | sed -n 's/^build   //p')
	daemon="$bin/sandcastled -d -i -c $SC_CONFIG -s $SC_SECRETS"
	# No image yet: refused before any child, and not restarted (78).
	atf_check -s exit:78 -o empty -e inline:"sandcastled: the image sandcastle-claude:$old of this build is missing, so this build does not start: run sandcastlectl install, which makes its images before it starts it\n" \
	    timeout 60 $AS_USER $daemon
	sc_as_user "$bin/sandcastlectl" -c "$SC_CONFIG" install --images \
	    > install.out 2>&1 || { cat install.out; atf_fail "install --images"; }
	# The control: with its build's images, it starts.
	: > "$SC_ROOT/log/sandcastled.log"
	setpriv --reuid="$SC_USER" --regid="$SC_USER" --init-groups \
	    --inh-caps=-all -- env -i HOME="$SC_HOME" \
	    XDG_RUNTIME_DIR="$SC_RUN" PATH=/usr/bin:/bin:/usr/sbin:/sbin \
	    LC_ALL=C.UTF-8 $daemon > "$SC_ROOT/log/sandcastled.log" 2>&1 &
	echo $! > "$SC_ROOT/log/sandcastled.pid"
	sc_wait_log sandcastled "$READY" 30 ||
	    { sc_log sandcastled; atf_fail "the children never were ready"; }
	sc_stop sandcastled
	[ "$SC_STATUS" -eq 0 ] ||
	    { sc_log sandcastled; atf_fail "exit $SC_STATUS after SIGTERM"; }
	# An upgrade's make install: new binaries beside the old build's images.
	printf '\n' >> "$SC_ROOT/build/libexec/sandcastle/gated"
	new=$(sc_as_user "$bin/sandcastlectl" version | sed -n 's/^build   //p')
	[ "$new" != "$old" ] || atf_fail "the build id did not change"
	atf_check -s exit:78 -o empty -e inline:"sandcastled: the image sandcastle-claude:$new of this build is missing, so this build does not start: run sandcastlectl install, which makes its images before it starts it\n" \
	    timeout 60 $AS_USER $daemon
	atf_check $AS_USER podman image exists "sandcastle-claude:$old"
}
images_of_build_cleanup()
{
	sc_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case start_status_stop
	atf_add_test_case parent_locked
	atf_add_test_case stopped_mid_poll
	atf_add_test_case root_refused
	atf_add_test_case child_killed
	atf_add_test_case control_other_uid
	atf_add_test_case control_protocol
	atf_add_test_case config_changed
	atf_add_test_case check_config
	atf_add_test_case other_programs
	atf_add_test_case images_of_build
	atf_add_test_case stdio_closed
}
