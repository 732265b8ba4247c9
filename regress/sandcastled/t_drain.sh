#! /usr/bin/env atf-sh
# A backlog drained at the speed of the boxes (sandcastle(7), How often a
# source is asked).  Nothing here is timed: the claims are counted and
# put in order.  make bench (regress/bench/bench_drain.sh) runs it at full
# size through the config variables drain_jobs and drain_sources and
# prints the jobs a minute.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

# jobs SOURCE N IMAGE: N ocr jobs of IMAGE.
jobs()
{
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
src, n, img = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(json.dumps([{"id": "%s-%d" % (src, i), "capability": "ocr",
                   "input": {"image": img}} for i in range(n)]))
EOF
}

# claims SOURCE: the claims SOURCE was asked.
claims()
{
	cat "$SC_ROOT/$1.requests" 2>/dev/null | grep -c '/jobs/claim'
}

# drain_secs: from the first claim any source saw to the last result,
# the median of each job's claim to its result, and from the first
# result to the last (the jobs after the first, whose box was the first
# its podman ran), in seconds; then the median from a result to the
# next claim, in milliseconds.
drain_secs()
{
	cat "$SC_ROOT"/s*.requests | python3 -c 'import json, statistics, sys
e = [json.loads(l) for l in sys.stdin]
claims = [x["time"] for x in e if x["path"].endswith("/jobs/claim")]
results = [x["time"] for x in e if x["path"].endswith("/result")]
jobs = [r - max(c for c in claims if c < r) for r in results]
gaps = [min(c for c in claims if c > r) - r for r in results
        if any(c > r for c in claims)]
print("%.1f %.3f %.1f %.1f" % (max(results) - min(claims),
      statistics.median(jobs), max(results) - min(results),
      statistics.median(gaps) * 1e3))'
}

atf_test_case drain cleanup
drain_head()
{
	atf_set "descr" "sources asked every hour with ocr jobs waiting: each claim that brought a job is followed by the next once the job ended, the sources with work take turns job after job, and the claim that finds none waits the hour (the control: no claim after it); every job succeeds"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "3600"
}
drain_body()
{
	N=$(atf_config_get drain_jobs 3)
	K=$(atf_config_get drain_sources 2)
	TOTAL=$((N * K))
	# make bench's sources keep their connections open, as a real
	# HTTP/1.1 server does; the test's close them after each answer.
	conn=
	[ "$(atf_config_get drain_keepalive no)" = yes ] && conn=keepalive
	names=
	for k in $(seq 1 "$K"); do names="$names s$k.example.com"; done
	# shellcheck disable=SC2086
	daemon_net_up $names
	sc_ocr_config home
	img=$(render "HELLO WORLD")
	source_hosts "$K"
	for k in $(seq 1 "$K"); do
		sc_source_file "s$k" "https://s$k.example.com/api/worker" ocr \
		    3600 1h 1m
		sc_fakesource "s$k" "s$k.example.com" "198.20.5.$((30 + k))" \
		    "tok-drain-$k" "$(jobs "s$k" "$N" "$img")" "strict $conn"
		sc_secret "s$k" "tok-drain-$k"
	done
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	images
	keep_up
	sc_start_in_host sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	# Waited for at a second's pace, so that the wait takes little of
	# the machine the drain is timed on: the time is the sources' own,
	# from the first claim to the last result.
	i=0
	while [ "$(cat "$SC_ROOT"/s*.results 2>/dev/null |
	    grep -c '"status": "\(succeeded\|failed\)"')" -lt "$TOTAL" ]; do
		i=$((i + 1))
		[ $i -gt $((120 + TOTAL * 10)) ] && break
		sleep 1
	done
	[ "$(finals)" -ge "$TOTAL" ] || { sc_log sandcastled; atf_fail \
	    "only $(finals) of $TOTAL jobs were answered within the hour"; }
	# The empty claims come after the last result: 3 s for them, and
	# for any claim that should not come.
	sleep 3
	for k in $(seq 1 "$K"); do
		c=$(claims "s$k")
		[ "$c" -eq $((N + 1)) ] || { sc_log sandcastled; atf_fail \
		    "s$k was asked $c times for $N jobs, not $((N + 1))"; }
	done
	ok=$(cat "$SC_ROOT"/s*.results | grep -c '"status": "succeeded"')
	[ "$ok" -eq "$TOTAL" ] || { cat "$SC_ROOT"/s*.results;
	    atf_fail "$ok of $TOTAL jobs succeeded"; }
	# The jobs' order in the core's lines: s1 s2 .. sK, and again.
	sed -n 's/.*job source=\(s[0-9]*\) job=.*/\1/p' \
	    "$SC_ROOT/log/sandcastled.log" > order
	for k in $(seq 1 "$N"); do seq -f 's%g' 1 "$K"; done > want
	diff -u want order || atf_fail "the sources did not take turns"
	drain_secs | {
		read -r secs job after gap
		echo "drain: $TOTAL ocr jobs from $K sources in $secs s"
		echo "drain: a job, claim to result at the source: $job s (median)"
		echo "drain: the $((TOTAL - 1)) after the first, first result to last: $after s"
		echo "drain: from a result to the next claim at the source: $gap ms (median)"
	} | tee drain.out
}
drain_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case drain
}
