#! /usr/bin/env atf-sh
# Many jobs at once (sandcastled(8), jobs): the boxes alive sampled
# through a backlog and held to config.yaml's jobs and a source's, the
# slots shared, a stop and a crash with jobs in flight, two workers on
# the same sources.  Each claude job's prompt is its id, which the fake
# API answers at its source's pace; a source's log of requests says
# when it handed each job out and when its result came.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

# claude_jobs SOURCE N: N claude jobs SOURCE-0 on, each prompt its id.
claude_jobs()
{
	python3 - "$1" "$2" "$CLAUDE_INPUT" <<'EOF'
import json, sys
src, n, inp = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
print(json.dumps([{"id": "%s-%d" % (src, i), "capability": "claude",
                   "input": dict(inp, prompt="%s-%d" % (src, i))}
                  for i in range(n)]))
EOF
}

# api_delays DEFAULT [SOURCE SECONDS]...: the fake API's replies, whole
# after DEFAULT seconds, or SECONDS for each job of SOURCE (ids up to 9).
api_delays()
{
	python3 - "$@" > "$SC_ROOT/api.anthropic.com.scenario" <<'EOF'
import json, sys
a = sys.argv[1:]
sc = {"default": {"delay": float(a[0])}, "answers": {}}
for src, d in zip(a[1::2], a[2::2]):
    for i in range(10):
        sc["answers"]["%s-%d" % (src, i)] = {"delay": float(d)}
print(json.dumps(sc))
EOF
}

# jobs_config N: config.yaml of claude alone at jobs: N, its cooldown a
# second, under this worker's root.
jobs_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOC
data_dir: $SC_ROOT/data
jobs: $1
capabilities:
$(sc_claude_yaml claude-test-1)
    cooldown: 1s
EOC
}

# jobs_sources K: sources s1 to sK, claude, asked every 5 s.
jobs_sources()
{
	for _k in $(seq 1 "$1"); do
		sc_source_file "s$_k" "https://s$_k.example.com/api/worker" \
		    claude 3600 5s 2m
		sc_secret "s$_k" "tok-jobs-$_k"
	done
	sc_secret claude key-claude-jobs
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# jobs_up N K: the network, the fake API, config.yaml at jobs: N and the
# files and secrets of K sources (source_up starts each).
jobs_up()
{
	_names=api.anthropic.com
	for _k in $(seq 1 "$2"); do _names="$_names s$_k.example.com"; done
	# shellcheck disable=SC2086
	daemon_net_up $_names
	source_hosts "$2"
	jobs_config "$1"
	jobs_sources "$2"
	api_delays 0
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
}

# source_up K JOBS: source sK, strict, handing out JOBS.
source_up()
{
	sc_fakesource "s$1" "s$1.example.com" "198.20.5.$((30 + $1))" \
	    "tok-jobs-$1" "$2" strict
}

# sample: until $SC_ROOT/halt, every 0.3 s, the boxes of role core the
# account's podman runs, a line "seconds count" in $SC_ROOT/boxes.
sample()
{
	while [ ! -e "$SC_ROOT/halt" ]; do
		_n=$(sc_as_user podman ps -q --filter label=sandcastle.role=core |
		    wc -l)
		echo "$(date +%s.%N) $_n" >> "$SC_ROOT/boxes"
		sleep 0.3
	done
}

sample_start()
{
	sample &
	echo $! > "$SC_ROOT/log/sample.pid"
}

# most FILE: the most boxes a sample saw.
most()
{
	awk '$2 > m { m = $2 } END { print m + 0 }' "$1"
}

# held: each job as its source saw it held, "start end source": from
# the claim that handed it out (a source's i-th claim hands out its i-th
# job, one claim in flight at a time) to its result's POST.
held()
{
	python3 - "$SC_ROOT" <<'EOF'
import glob, json, os, sys
for jobs in sorted(glob.glob(os.path.join(sys.argv[1], "s*.jobs"))):
    src = os.path.basename(jobs)[:-5]
    claims, done = [], {}
    for line in open(os.path.join(sys.argv[1], src + ".requests")):
        e = json.loads(line)
        if e["path"].endswith("/jobs/claim"):
            claims.append(e["time"])
        elif e["path"].endswith("/result"):
            done.setdefault(e["path"].split("/")[-2], e["time"])
    for i, j in enumerate(json.load(open(jobs))):
        if i < len(claims):
            print("%.3f %.3f %s" % (claims[i], done.get(j["id"], 1e12), src))
EOF
}

# at_once: from held, the most jobs held at once, "all N" and "SOURCE N"
# for each source: an end before a start at the same time.
at_once()
{
	held | python3 -c 'import sys
ev = []
for l in sys.stdin:
    s, e, src = l.split()
    ev += [(float(s), 1, src), (float(e), -1, src)]
now, most = {}, {}
for t, d, src in sorted(ev):
    for k in ("all", src):
        now[k] = now.get(k, 0) + d
        most[k] = max(most.get(k, 0), now[k])
for k in sorted(most):
    print(k, most[k])'
}

# at_once_of KEY: at_once's count for KEY (all, or a source).
at_once_of()
{
	at_once | awk -v k="$1" '$1 == k { print $2 }'
}

# unfair: each moment a source was handed a second job at once while
# another source had a job not yet handed out, a line.
unfair()
{
	held | python3 -c 'import sys
c = [(float(s), float(e), src) for s, e, src in map(str.split, sys.stdin)]
last = {}
for s, e, src in c:
    last[src] = max(last.get(src, 0), s)
for s, e, src in c:
    mine = sum(1 for s2, e2, o in c if o == src and s2 <= s < e2)
    for o, t in last.items():
        if mine > 1 and o != src and t > s:
            print("%s took its job %d at once at %.1f, while %s still had "
                  "one (handed out at %.1f)" % (src, mine, s, o, t))'
}

# all_served N...: the k-th source (sk) got one result for each of its N
# jobs, and each succeeded.
all_served()
{
	_k=0
	for _n in "$@"; do
		_k=$((_k + 1))
		_ok=$(grep -c '"status": "succeeded"' "$SC_ROOT/s$_k.results")
		_all=$(wc -l < "$SC_ROOT/s$_k.results")
		[ "$_ok" -eq "$_n" ] && [ "$_all" -eq "$_n" ] ||
		    { cat "$SC_ROOT/s$_k.results"; sc_log sandcastled
		    atf_fail "s$_k got $_all results, $_ok succeeded, of $_n jobs"; }
	done
}

# drained N SECONDS: until N jobs have their final answer.
drained()
{
	_i=0
	while [ "$(finals)" -lt "$1" ]; do
		_i=$((_i + 1))
		[ $_i -gt "$2" ] && { sc_log sandcastled
		    atf_fail "only $(finals) of $1 jobs answered in $2 s"; }
		sleep 1
	done
}

# ledger SOURCE...: every job answered once (released ones before), each
# record agreeing with its source.
ledger()
{
	for _s; do
		shift
		set -- "$@" "$_s:$SC_ROOT/$_s.results:$SC_ROOT/$_s.jobs"
	done
	python3 "$(sc_srcdir)/regress/lib/ledger.py" "$SC_ROOT/data" "$@" \
	    > ledger.out || { cat ledger.out; sc_log sandcastled
	    atf_fail "the records do not agree with the sources"; }
	cat ledger.out
}

# no_refusal: the core held the limits itself: the launcher refused no box.
no_refusal()
{
	! grep 'refused a box' "$SC_ROOT/log/sandcastled.log" ||
	    atf_fail "the core asked for a box past a limit"
}

atf_test_case limits cleanup
limits_head()
{
	atf_set "descr" "S5: a backlog from three sources at jobs: 3, one source at jobs: 1 with the most jobs: the boxes alive, sampled with podman ps, are never more than 3, the jobs the sources see held at once (from the claim that handed each out to its result) never more than 3 and never more than one of that source, each source gets every result; the control: three jobs were held at once"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
limits_body()
{
	jobs_up 3 3
	echo "jobs: 1" >> "$SC_CONFIG/sources/s1.yaml"
	source_up 1 "$(claude_jobs s1 4)"
	source_up 2 "$(claude_jobs s2 2)"
	source_up 3 "$(claude_jobs s3 2)"
	api_delays 3
	keep_up
	images
	sample_start
	daemon_up
	drained 8 150
	touch "$SC_ROOT/halt"
	all_served 4 2 2
	boxes=$(most "$SC_ROOT/boxes")
	echo "boxes at once: $boxes; jobs held at once: $(at_once | tr '\n' ' ')"
	[ "$boxes" -le 3 ] ||
	    { cat "$SC_ROOT/boxes"; atf_fail "more than 3 boxes at once"; }
	[ "$boxes" -ge 2 ] ||
	    { cat "$SC_ROOT/boxes"; atf_fail "the sample never saw two boxes"; }
	[ "$(at_once_of all)" -le 3 ] ||
	    { held; atf_fail "more than 3 jobs held at once"; }
	[ "$(at_once_of s1)" -eq 1 ] ||
	    { held; atf_fail "s1, at jobs: 1, had more than one at once"; }
	[ "$(at_once_of all)" -eq 3 ] ||
	    { held; atf_fail "never 3 jobs held at once at jobs: 3"; }
	[ "$(journal_most "$SC_ROOT/log/sandcastled.log")" -eq 3 ] ||
	    atf_fail "the core's journal has not 3 jobs at once at most"
	no_refusal
}
limits_cleanup()
{
	sc_load && touch "$SC_ROOT/halt"
	daemon_cleanup
}

atf_test_case fair cleanup
fair_head()
{
	atf_set "descr" "S5: two busy sources at jobs: 2, the first's replies slow (6 s), the second's fast (2 s): neither is seen to hold two jobs at once while the other has a job not yet handed out, each gets every result; the control: two jobs were held at once"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
fair_body()
{
	jobs_up 2 2
	source_up 1 "$(claude_jobs s1 2)"
	source_up 2 "$(claude_jobs s2 3)"
	api_delays 2 s1 6
	keep_up
	images
	sample_start
	daemon_up
	drained 5 150
	touch "$SC_ROOT/halt"
	all_served 2 3
	held
	[ "$(most "$SC_ROOT/boxes")" -le 2 ] ||
	    { cat "$SC_ROOT/boxes"; atf_fail "more than 2 boxes at once"; }
	[ "$(at_once_of all)" -eq 2 ] ||
	    atf_fail "never 2 jobs held at once at jobs: 2"
	unfair > unfair.out
	[ ! -s unfair.out ] ||
	    { cat unfair.out; atf_fail "a source took both slots"; }
	no_refusal
}
fair_cleanup()
{
	sc_load && touch "$SC_ROOT/halt"
	daemon_cleanup
}

# in_flight N: until N claude calls came to the fake API.
in_flight()
{
	sc_wait_line "$SC_ROOT/api.anthropic.com.requests" \
	    '"method": "POST", "path": "/v1/messages"' 60 "$1" ||
	    { sc_log sandcastled; atf_fail "$1 calls never came to the API"; }
}

# left_resolvable ID...: each job's record says released, its result
# sent (the source got it, once) or pending (the source got none).
left_resolvable()
{
	for _j; do
		_st=$(meta s1 "$_j" status)
		[ "$_st" = released ] ||
		    { sc_log sandcastled; atf_fail "$_j's record says $_st"; }
		_got=$(grep -c "\"id\": \"$_j\"" "$SC_ROOT/s1.results")
		_res=$(meta s1 "$_j" result)
		case $_res in
		sent)	[ "$_got" -eq 1 ] ;;
		pending) [ "$_got" -eq 0 ] ;;
		*)	false ;;
		esac || atf_fail "$_j: its record says $_res, the source got $_got results"
	done
}

# ended SECONDS: until sandcastled has ended.
ended()
{
	_i=0
	while kill -0 "$(sc_pid sandcastled)" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt $(($1 * 10)) ] && { sc_log sandcastled
		    atf_fail "sandcastled did not end in $1 s"; }
		sleep 0.1
	done
}

atf_test_case stop cleanup
stop_head()
{
	atf_set "descr" "F1 F2: SIGTERM at jobs: 3 with three claude jobs at the API, their replies 20 s away, and a fourth waiting: sandcastled ends within the unit's 90 s with no box left, each of the three released, its result sent or pending in its record, the fourth never claimed; after a start again every job succeeds, none answered twice, every record agreeing with the source"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
stop_body()
{
	jobs_up 3 1
	source_up 1 "$(claude_jobs s1 4)"
	api_delays 20
	keep_up
	images
	daemon_up
	in_flight 3
	[ ! -e "$SC_ROOT/data/s1/s1-3" ] ||
	    atf_fail "a fourth job was claimed at jobs: 3"
	start=$(date +%s)
	sc_stop sandcastled
	took=$(( $(date +%s) - start ))
	echo "sandcastled stopped in $took s, exit $SC_STATUS"
	# The unit's TimeoutStopSec.
	[ "$took" -le 90 ] || atf_fail "sandcastled took $took s to stop"
	sc_wait_log sandcastled 'SIGTERM: stopping: .* 3 job(s) running' 1 ||
	    { sc_log sandcastled; atf_fail "the stop did not count 3 jobs running"; }
	left_resolvable s1-0 s1-1 s1-2
	[ ! -e "$SC_ROOT/data/s1/s1-3" ] || atf_fail "s1-3 was claimed while stopping"
	[ -z "$(sc_as_user podman ps -aq --filter label=sandcastle.role=core)" ] ||
	    atf_fail "a box outlived sandcastled's stop"
	api_delays 0
	daemon_up
	drained 4 90
	ledger s1
}
stop_cleanup()
{
	daemon_cleanup
}

atf_test_case crash cleanup
crash_head()
{
	atf_set "descr" "F1 F2 F3: kill -9 of the box launcher at jobs: 3 with three claude jobs in their boxes at the API: sandcastled ends, each of the three released, its result sent or pending in its record, and none of the three boxes is there once the next launcher is ready; then kill -9 of the core with three more at the API: sandcastled ends with no box left, their records say running and nothing went out; at the next start each is sent back released, and every job then succeeds once, every record agreeing with the source"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
crash_body()
{
	jobs_up 3 1
	source_up 1 "$(claude_jobs s1 6)"
	api_delays 20
	keep_up
	images
	daemon_up
	in_flight 3
	boxes=$(sc_as_user podman ps --format '{{.Names}}' \
	    --filter label=sandcastle.role=core)
	[ "$(echo "$boxes" | wc -w)" -eq 3 ] ||
	    atf_fail "not 3 boxes at the API: $boxes"
	start=$(date +%s)
	kill -KILL "$(pgrep -P "$(sc_pid sandcastled)" \
	    -f '^sandcastled: box launcher$')" || atf_fail "no box launcher"
	ended 90
	echo "sandcastled ended $(( $(date +%s) - start )) s after its launcher"
	left_resolvable s1-0 s1-1 s1-2
	# The released ones went to the end of the source's queue.
	daemon_up
	sc_wait_log sandcastled "box launcher are ready" 30 ||
	    { sc_log sandcastled; atf_fail "the launcher did not start again"; }
	for b in $boxes; do
		! sc_as_user podman container exists "$b" ||
		    atf_fail "the killed launcher's box $b is still there"
	done
	in_flight 6
	start=$(date +%s)
	kill -KILL "$(pgrep -P "$(sc_pid sandcastled)" -f '^sandcastled: core$')" ||
	    atf_fail "no core"
	ended 90
	echo "sandcastled ended $(( $(date +%s) - start )) s after its core"
	[ -z "$(sc_as_user podman ps -aq --filter label=sandcastle.role=core)" ] ||
	    atf_fail "a box outlived the core's sandcastled"
	for j in s1-3 s1-4 s1-5; do
		[ "$(meta s1 "$j" status)" = running ] ||
		    atf_fail "$j's record says $(meta s1 "$j" status), not running"
		! grep -q "\"id\": \"$j\"" "$SC_ROOT/s1.results" ||
		    atf_fail "$j's result went out from a core killed"
	done
	api_delays 0
	daemon_up
	drained 6 120
	for j in s1-3 s1-4 s1-5; do
		grep "\"id\": \"$j\"" "$SC_ROOT/s1.results" | head -n 1 |
		    grep -q '"status": "released"' ||
		    atf_fail "$j was not sent back released first"
	done
	ledger s1
}
crash_cleanup()
{
	daemon_cleanup
}

# as_worker K: the helpers' account and tree, worker K's.
as_worker()
{
	eval "SC_USER=\$W$1_USER SC_ROOT=\$W$1_ROOT"
	SC_CONFIG=$SC_ROOT/config
	SC_SECRETS=$SC_ROOT/secrets
	SC_RUN=$SC_ROOT/run
	SC_HOME=$SC_ROOT/home
}

# second_worker: a second account of the pool with a tree of its own
# (held by w2/, this case's), the test's CA, config.yaml at jobs: 4 and
# the same sources.
second_worker()
{
	W1_USER=$SC_USER W1_ROOT=$SC_ROOT
	mkdir w2 && cd w2 || atf_fail "mkdir w2"
	SC_USER=
	sc_setup
	cd .. || atf_fail "cd .."
	W2_USER=$SC_USER W2_ROOT=$SC_ROOT
	install -d -m 0755 -o "$SC_USER" "$SC_ROOT/ca"
	install -m 0644 -o "$SC_USER" "$W1_ROOT/ca/ca.crt" "$SC_ROOT/ca/"
	jobs_config 4
	jobs_sources 3
}

# once_across: a folder, merged/, of both workers' records, each job's
# record a link to the one worker's that has it; a job with a record
# in both fails.
once_across()
{
	for k in 1 2 3; do
		mkdir -p "merged/s$k"
		for r in "$W1_ROOT/data/s$k"/* "$W2_ROOT/data/s$k"/*; do
			[ -d "$r" ] || continue
			[ ! -e "merged/s$k/${r##*/}" ] ||
			    atf_fail "s$k job ${r##*/} has a record at both workers"
			ln -s "$r" "merged/s$k/${r##*/}"
		done
	done
}

atf_test_case two_workers cleanup
two_workers_head()
{
	atf_set "descr" "F1: two workers, two accounts each with its own sandcastle at jobs: 4, against the same three strict sources with 9 claude jobs: each job runs once (one call at the API, one record at one worker, one result), each worker runs jobs and has never more than 4 boxes at once, sampled with its own podman ps, nor 4 jobs by its core's journal"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "400"
}
two_workers_body()
{
	jobs_up 4 3
	second_worker
	as_worker 1
	for k in 1 2 3; do
		source_up "$k" "$(claude_jobs "s$k" 3)"
	done
	api_delays 3
	for w in 1 2; do
		as_worker "$w"
		keep_up
		images
		sample_start
	done
	for w in 1 2; do
		as_worker "$w"
		daemon_up
	done
	as_worker 1
	drained 9 200
	touch "$W1_ROOT/halt" "$W2_ROOT/halt"
	all_served 3 3 3
	[ "$(posts_api)" -eq 9 ] ||
	    atf_fail "$(posts_api) calls at the API for 9 jobs"
	once_across
	python3 "$(sc_srcdir)/regress/lib/ledger.py" merged \
	    "s1:$SC_ROOT/s1.results:$SC_ROOT/s1.jobs" \
	    "s2:$SC_ROOT/s2.results:$SC_ROOT/s2.jobs" \
	    "s3:$SC_ROOT/s3.results:$SC_ROOT/s3.jobs" > ledger.out ||
	    { cat ledger.out; atf_fail "the records do not agree with the sources"; }
	cat ledger.out
	for w in 1 2; do
		as_worker "$w"
		n=$(find "$SC_ROOT/data" -mindepth 2 -maxdepth 2 -type d | wc -l)
		j=$(journal_most "$SC_ROOT/log/sandcastled.log")
		echo "worker $w: $n jobs, $(most "$SC_ROOT/boxes") boxes and $j" \
		    "jobs at once at most"
		[ "$n" -gt 0 ] || atf_fail "worker $w ran no job"
		[ "$j" -le 4 ] || atf_fail "worker $w's core had $j jobs at once"
		[ "$(most "$SC_ROOT/boxes")" -le 4 ] || { cat "$SC_ROOT/boxes"
		    atf_fail "worker $w had more than 4 boxes at once"; }
		no_refusal
	done
}
two_workers_cleanup()
{
	if [ -f w2/sc_root ]; then
		(cd w2 && sc_load && touch "$SC_ROOT/halt" && sc_cleanup)
	fi
	sc_load && touch "$SC_ROOT/halt"
	daemon_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case limits
	atf_add_test_case fair
	atf_add_test_case stop
	atf_add_test_case crash
	atf_add_test_case two_workers
}
