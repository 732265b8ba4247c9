#! /usr/bin/env atf-sh
# An operator's bad day, end to end, on strict sources (fakesource.py
# --strict: a result for a job not held is answered 409, a released job
# handed out again); ledger.py holds the records to what the sources
# received.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

TOKEN=tok-faults-2468
# faults_up NAME...: the network, the CA for the names, a data_dir on a
# tmpfs of 4 MiB (a disk the test can fill), the configuration.
faults_up()
{
	daemon_net_up "$@"
	data_tmpfs 4m
	sc_caps_config
	sc_source_file notes "https://notes.example.com/api/worker" "ocr, claude" 60 5s 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# statuses ID: what the source got for ID, in order, each with its answer.
statuses()
{
	python3 -c 'import json,sys
print(" ".join("%s:%s" % (e["body"]["status"], e.get("answer", 200))
    for e in map(json.loads, open(sys.argv[1])) if e["id"] == sys.argv[2]))' \
	    "$SC_ROOT/notes.results" "$1"
}

# wait_statuses ID WANT [SECONDS]: until the source has as many answers
# for ID as WANT has words, then they must be WANT.
wait_statuses()
{
	set -- "$1" "$2" "${3:-30}" $2
	sc_wait_line "$SC_ROOT/notes.results" "\"id\": \"$1\"" "$3" \
	    $(($# - 3)) && [ "$(statuses "$1")" = "$2" ] ||
	    { sc_log sandcastled
	    atf_fail "job $1: the source got '$(statuses "$1")', not '$2'"; }
}

# wait_post PATH [N] [SECONDS]: until N POSTs to PATH reached the source.
wait_post()
{
	wait_posts notes "$1" "${2:-1}" "${3:-30}" ||
	    { sc_log sandcastled; atf_fail "no POST $1"; }
}

# wait_api: until the fake API got a request (a claude box is running).
wait_api()
{
	sc_wait_line "$SC_ROOT/api.anthropic.com.requests" '/v1/messages' 30 ||
	    { sc_log sandcastled; atf_fail "no box reached the API"; }
	: > "$SC_ROOT/api.anthropic.com.requests"
}

# ledger: every job answered once, every record agreeing with the source.
ledger()
{
	python3 "$(sc_srcdir)/regress/lib/ledger.py" "$SC_ROOT/data" \
	    "notes:$SC_ROOT/notes.results:$SC_ROOT/notes.jobs" > ledger.out ||
	    { cat ledger.out; sc_log sandcastled; atf_fail "the records do not agree with the source"; }
	cat ledger.out
}

# alive PID: PID runs (a zombie whose parent is gone has ended).
alive()
{
	_st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$_st" ] &&
	    [ "${_st#Z}" = "$_st" ]
}

# gone PID... : every PID ended within a second.
gone()
{
	_i=0
	for _p in "$@"; do
		while alive "$_p"; do
			_i=$((_i + 1))
			[ $_i -gt 10 ] && { ps -o pid,ppid,args -p "$_p"
			    atf_fail "pid $_p outlived its parent by a second"; }
			sleep 0.1
		done
	done
}

# children PID: the pids of PID's children.
children()
{
	pgrep -P "$1" | tr '\n' ' '
}

atf_test_case full_disk cleanup
full_disk_head()
{
	atf_set "descr" "F1: data_dir filled before a claim is noted (released, no record left), while a box runs (the result held, nothing claimed, then sent once the record is written), while the result is on its way (taken once, the record then made to say so) and while a result is held when sandcastled stops (released at the next start, never sent twice); each with the disk freed after, every job answered once and every record agreeing with the source"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
full_disk_body()
{
	faults_up notes.example.com api.anthropic.com
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    "[{\"id\": \"n1\", \"capability\": \"ocr\"},
	      {\"id\": \"b2\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT},
	      {\"id\": \"r3\", \"capability\": \"ocr\"},
	      {\"id\": \"d4\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]" strict
	api_up 4
	sc_secret notes "$TOKEN"
	sc_secret claude key-claude-faults
	keep_up
	images
	# 1. Full before the claim is noted: n1 is released and leaves no
	# record.  The next claim is 5 s away: the disk is freed before it.
	fill
	daemon_up
	wait_statuses n1 "released:200"
	unfill
	sc_wait_log sandcastled "source notes job n1: it cannot be noted (.*No space left on device): it is released and leaves no record" 1 ||
	    { sc_log sandcastled; atf_fail "no line for n1 not noted"; }
	[ ! -e "$SC_ROOT/data/notes/n1" ] || atf_fail "n1 left a record"
	# 2. Full while b2's box runs: its result is held, nothing is claimed.
	wait_api
	fill
	sc_wait_log sandcastled "source notes job b2: its record cannot be written (.*No space left on device): its result is held" 15 ||
	    { sc_log sandcastled; atf_fail "b2's record did not fail"; }
	claims=$(posts notes /jobs/claim)
	sleep 7
	[ "$(posts notes /jobs/claim)" -eq "$claims" ] || atf_fail "a job was claimed while a result was held"
	[ -z "$(statuses b2)" ] || atf_fail "b2's result went out before its record"
	[ "$(meta notes b2 status)" = running ] || atf_fail "b2's record does not say running"
	# r3, next, fails at once: its result is held at the source from now.
	echo r3 > "$SC_ROOT/notes.mode.hold"
	echo holdresult > "$SC_ROOT/notes.mode"
	unfill
	wait_statuses b2 "succeeded:200" 15
	sc_wait_log sandcastled "source notes job b2: its record is written: its result goes out" 1 ||
	    { sc_log sandcastled; atf_fail "no line for b2's record written"; }
	# 3. Full while r3's result is on its way: taken once, then recorded.
	wait_post /jobs/r3/result 1 20
	fill
	rm "$SC_ROOT/notes.mode.hold"
	wait_statuses r3 "failed:200"
	sc_wait_log sandcastled "source notes job r3: the record cannot say the result was taken" 10 ||
	    { sc_log sandcastled; atf_fail "r3's record did not fail"; }
	[ "$(meta notes r3 result)" = pending ] || atf_fail "r3's record says more than it could write"
	unfill
	sc_wait_log sandcastled "source notes job r3: the record says it now" 10 ||
	    { sc_log sandcastled; atf_fail "r3's record never said it was sent"; }
	echo normal > "$SC_ROOT/notes.mode"
	# 4. Full while d4's box runs, then a stop: held, so nothing went out;
	# at the next start its record (still running) sends it back released.
	wait_api
	fill
	sc_wait_log sandcastled "source notes job d4: its record cannot be written" 15 ||
	    { sc_log sandcastled; atf_fail "d4's record did not fail"; }
	sc_stop sandcastled
	[ "$SC_STATUS" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $SC_STATUS"; }
	grep -q "stopped: 0 result(s) left to send and 1 held for their record" "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "the stop did not say what it held"; }
	[ -z "$(statuses d4)" ] || atf_fail "d4's result went out without its record"
	unfill
	[ "$(meta notes d4 status)" = running ] || atf_fail "d4's record does not say running"
	sc_scenario api.anthropic.com "$(api_reply 0)"
	daemon_up
	wait_statuses d4 "released:200 succeeded:200" 60
	wait_statuses n1 "released:200 failed:200" 30
	[ "$(posts notes /jobs/r3/result)" -eq 1 ] || atf_fail "r3's result was sent twice"
	[ "$(posts notes /jobs/b2/result)" -eq 1 ] || atf_fail "b2's result was sent twice"
	ledger
}
full_disk_cleanup()
{
	daemon_cleanup
}

atf_test_case stop_claim cleanup
stop_claim_head()
{
	atf_set "descr" "F2: SIGTERM while a source holds its claim's answer: sandcastled waits for it, notes the job it brought and sends it back released before it exits 0; a job so noted whose release the source does not take is released at the next start; control: without a stop the same source's job runs"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
stop_claim_body()
{
	faults_up notes.example.com
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    '[{"id": "c0", "capability": "ocr"}, {"id": "s1", "capability": "ocr"},
	      {"id": "s2", "capability": "ocr"}]' strict
	sc_secret notes "$TOKEN"
	# Control: a claim answered at once, its job run (no input: failed).
	# The next claim follows its result at once: c0's result is held
	# until the claims are.
	echo holdresult > "$SC_ROOT/notes.mode"
	echo c0 > "$SC_ROOT/notes.mode.hold"
	keep_up
	daemon_up
	wait_post /jobs/c0/result 1 30
	claims=$(posts notes /jobs/claim)
	echo holdclaim > "$SC_ROOT/notes.mode"
	echo claim > "$SC_ROOT/notes.mode.hold"
	wait_statuses c0 "failed:200"
	wait_post /jobs/claim $((claims + 1)) 15
	kill -TERM "$(sc_pid sandcastled)"
	sleep 2
	kill -0 "$(sc_pid sandcastled)" 2>/dev/null ||
	    { sc_log sandcastled; atf_fail "sandcastled did not wait for the claim in flight"; }
	rm "$SC_ROOT/notes.mode.hold"
	wait "$(sc_pid sandcastled)"; st=$?
	[ "$st" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $st"; }
	wait_statuses s1 "released:200" 1
	[ "$(meta notes s1 status)" = released ] || atf_fail "s1's record does not say released"
	[ "$(meta notes s1 result)" = sent ] || atf_fail "s1's record does not say sent"
	[ "$(meta notes s1 error)" = "sandcastled stopped before the job ran" ] ||
	    atf_fail "s1's record does not say why"
	# The same, with the release refused: noted, answered at the next start.
	touch "$SC_ROOT/notes.mode.hold"
	claims=$(posts notes /jobs/claim)
	daemon_up
	wait_post /jobs/claim $((claims + 1)) 15
	kill -TERM "$(sc_pid sandcastled)"
	sleep 1
	echo down > "$SC_ROOT/notes.mode"
	rm "$SC_ROOT/notes.mode.hold"
	wait "$(sc_pid sandcastled)"; st=$?
	[ "$st" -eq 0 ] || { sc_log sandcastled; atf_fail "exit $st"; }
	[ "$(posts notes /jobs/s2/result)" -eq 1 ] || atf_fail "s2's release was not tried"
	[ -z "$(statuses s2)" ] || atf_fail "s2's release was taken"
	[ "$(meta notes s2 status)" = released ] || atf_fail "s2's record does not say released"
	[ "$(meta notes s2 result)" = pending ] || atf_fail "s2's record does not say pending"
	echo normal > "$SC_ROOT/notes.mode"
	daemon_up
	# s2's release taken at the start; then, handed out again (at once,
	# as a backlog is drained), each runs to its end.
	wait_statuses s1 "released:200 failed:200" 30
	wait_statuses s2 "released:200 failed:200" 30
	ledger
}
stop_claim_cleanup()
{
	daemon_cleanup
}

atf_test_case orphans cleanup
orphans_head()
{
	atf_set "descr" "F3: kill -9 of each parent while its children work: keepd's request process and gated's tunnel, each on a claim the source holds; the box launcher's podman run while a box runs (the box removed by the next launcher, the job released); sandcastled's core, keep-frontend, box launcher and its podman while a box runs, all gone within a second, the box removed, the job released at the next start; the control for each is the child seen at work before the kill"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
orphans_body()
{
	faults_up notes.example.com api.anthropic.com
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    "[{\"id\": \"k1\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]" strict
	api_up 20
	sc_secret notes "$TOKEN"
	sc_secret claude key-claude-faults
	keep_up
	images
	gate_before=$(children "$(sc_pid gated)")
	echo holdclaim > "$SC_ROOT/notes.mode"
	touch "$SC_ROOT/notes.mode.hold"
	daemon_up
	# keepd: its request process waits for the claim's answer.
	wait_post /jobs/claim 1 15
	fetch=$(children "$(sc_pid keepd)")
	[ -n "$fetch" ] || atf_fail "no request process of keepd at work"
	kill -KILL "$(sc_pid keepd)"
	# shellcheck disable=SC2086
	gone $fetch
	sc_keep_up
	# gated: its tunnel carries the next claim, which the source holds.
	claims=$(posts notes /jobs/claim)
	wait_post /jobs/claim $((claims + 1)) 20
	tunnels=
	for p in $(children "$(sc_pid gated)"); do
		case " $gate_before " in *" $p "*) ;; *) tunnels="$tunnels $p" ;; esac
	done
	[ -n "$tunnels" ] || atf_fail "no tunnel of gated at work"
	kill -KILL "$(sc_pid gated)"
	# shellcheck disable=SC2086
	gone $tunnels $gate_before
	rm "$SC_ROOT/notes.mode.hold"
	echo normal > "$SC_ROOT/notes.mode"
	sc_gate_up
	# The box launcher: its podman run ends with it; sandcastled goes
	# down, k1 is released, and the next launcher removes what is left.
	wait_api
	launcher=$(pgrep -P "$(sc_pid sandcastled)" -f '^sandcastled: box launcher$') ||
	    atf_fail "no box launcher"
	podman_run=$(children "$launcher")
	[ -n "$podman_run" ] || atf_fail "no podman run of the launcher at work"
	box=$(sc_as_user podman ps --format '{{.Names}}' --filter label=sandcastle.role=core)
	[ -n "$box" ] || atf_fail "no box runs"
	kill -KILL "$launcher"
	# shellcheck disable=SC2086
	gone $podman_run
	# Its result follows the box's call to the API (20 s), which the
	# keep-frontend's one connection to keepd still carries.
	wait_statuses k1 "released:200" 40
	wait "$(sc_pid sandcastled)"
	daemon_up
	sc_wait_log sandcastled "running: core, keep-frontend and box launcher are ready" 30 ||
	    { sc_log sandcastled; atf_fail "the launcher did not start again"; }
	if sc_as_user podman container exists "$box"; then
		atf_fail "the killed launcher's box is still there"
	fi
	# sandcastled: k1's box waits for the API again.
	wait_api
	parent=$(sc_pid sandcastled)
	kids=$(children "$parent")
	launcher=$(pgrep -P "$parent" -f '^sandcastled: box launcher$') ||
	    atf_fail "no box launcher"
	podman_run=$(children "$launcher")
	[ -n "$podman_run" ] || atf_fail "no podman run of the launcher at work"
	boxes=$(sc_as_user podman ps -q --filter label=sandcastle.role=core)
	[ -n "$boxes" ] || atf_fail "no box runs"
	kill -KILL "$parent"
	# shellcheck disable=SC2086
	gone $kids $podman_run
	[ -z "$(sc_as_user podman ps -aq --filter label=sandcastle.role=core)" ] ||
	    atf_fail "the box outlived its launcher"
	[ "$(meta notes k1 status)" = running ] || atf_fail "k1's record does not say running"
	sc_scenario api.anthropic.com "$(api_reply 0)"
	daemon_up
	wait_statuses k1 "released:200 released:200 succeeded:200" 60
	ledger
}
orphans_cleanup()
{
	daemon_cleanup
}

atf_test_case released_last cleanup
released_last_head()
{
	atf_set "descr" "A job sent back released after its source's last claim brought nothing (jobs: 2, so the core asked again while the job ran; poll_interval 1h) is claimed again once claude's 1 s rest is over, and succeeds: the source is not left for its hour; control: a second source with no job, at 1h too, is asked once"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "180"
}
released_last_body()
{
	daemon_net_up notes.example.com other.example.com api.anthropic.com
	sc_caps_config
	echo 'jobs: 2' >> "$SC_CONFIG/config.yaml"
	sc_source_file notes "https://notes.example.com/api/worker" claude 60 1h 1m
	sc_source_file quiet "https://other.example.com/api/worker" claude 60 1h 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_scenario api.anthropic.com '{"default": {"status": 500}}'
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    "[{\"id\": \"r1\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]" strict
	sc_fakesource quiet other.example.com 198.20.5.12 "$TOKEN" '[]' strict
	sc_secret notes "$TOKEN"
	sc_secret quiet "$TOKEN"
	sc_secret claude key-claude-faults
	keep_up
	images
	daemon_up
	wait_statuses r1 "released:200" 60
	# What the test proves: the claim that brought nothing came before
	# the release, so that only the release can have the source asked.
	before=$(sed '/"path": "\/api\/worker\/jobs\/r1\/result"/q' \
	    "$SC_ROOT/notes.requests" | grep -c '"path": "/api/worker/jobs/claim"')
	[ "$before" -eq 2 ] || atf_fail "$before claims before the release, not 2"
	sc_scenario api.anthropic.com '{"default": {}}'
	wait_statuses r1 "released:200 succeeded:200" 30
	[ "$(posts quiet /jobs/claim)" -eq 1 ] ||
	    atf_fail "the control: quiet was asked $(posts quiet /jobs/claim) times within its hour"
	ledger
}
released_last_cleanup()
{
	daemon_cleanup
}

atf_test_case launcher_lock cleanup
launcher_lock_head()
{
	atf_set "descr" "F3: a box launcher removes no box while another launcher holds the runtime folder's lock: the box of role core stays; once the holder ends, the same box is removed as a leftover (the control)"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
launcher_lock_body()
{
	faults_up notes.example.com
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" '[]' strict
	sc_secret notes "$TOKEN"
	keep_up
	images
	build=$(sc_as_user "$(sc_bin sandcastlectl)" version | awk '$1 == "build" { print $2 }')
	box=sandcastle-box-0123456789abcdef
	sc_as_user podman create --label sandcastle.box=sandcastle \
	    --label sandcastle.role=core --name "$box" --network=none \
	    "sandcastle-ocr:$build" /sandcastle-box ocr > /dev/null ||
	    atf_fail "cannot make a box"
	# Another launcher's hold on the lock, as the account.
	sc_as_user python3 -c 'import fcntl,os,sys,time
f = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(f, fcntl.LOCK_EX)
with open(sys.argv[2] + ".tmp", "w") as p:
    p.write("%d\n" % os.getpid())
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(600)' "$SC_RUN/sandcastle/launcher.lock" "$SC_RUN/held" &
	sc_wait_file "$SC_RUN/held" 10 || atf_fail "the lock was not taken"
	holder=$(cat "$SC_RUN/held")
	daemon_up
	sc_wait_log sandcastled "launcher.lock is held by pid $holder, the box launcher of another sandcastled: waiting for it to end" 15 ||
	    { sc_log sandcastled; atf_fail "the launcher did not wait for the lock"; }
	sleep 3
	sc_as_user podman container exists "$box" ||
	    atf_fail "a box another launcher owns was removed"
	kill "$holder"
	sc_wait_log sandcastled "removed 1 box a crash left" 20 ||
	    { sc_log sandcastled; atf_fail "the leftover was not removed once the lock was free"; }
	if sc_as_user podman container exists "$box"; then
		atf_fail "the leftover is still there"
	fi
}
launcher_lock_cleanup()
{
	daemon_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case full_disk
	atf_add_test_case stop_claim
	atf_add_test_case orphans
	atf_add_test_case released_last
	atf_add_test_case launcher_lock
}
