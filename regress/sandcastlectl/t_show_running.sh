#! /usr/bin/env atf-sh
# sandcastlectl show status and show sources: the jobs running now, in
# all, of each capability and of each source, each out of its jobs.
# Real daemons and boxes at jobs: 2 on the test network; the fake API
# holds two claude replies (regress/lib/fakeapi.py, a delay), so two
# boxes run while the shows are read, then none.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"
. "$(atf_get_srcdir)/ctl.subr"

HOLD=90		# seconds the API holds a reply to the prompt "hold"

# job ID PROMPT: a claude job whose reply is the API's to PROMPT.
job()
{
	printf '{"id": "%s", "capability": "claude", "input": {"prompt": "%s", "schema": {"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"], "additionalProperties": false}}}' "$1" "$2"
}

# running_up: jobs: 2, claude's 2 and ocr's 1; s1 (claude, jobs: 1)
# with a held job and a quick one after it, s2 (claude and ocr) with a
# held one.
running_up()
{
	daemon_net_up s1.example.com s2.example.com api.anthropic.com
	sc_mkctl
	cat > "$SC_CONFIG/config.yaml" <<EOC
data_dir: $SC_ROOT/data
jobs: 2
capabilities:
$(sc_claude_yaml claude-test-1)
    cooldown: 1s
  ocr:
    languages: [eng]
    jobs: 1
EOC
	source_hosts 2
	sc_source_file s1 https://s1.example.com/api/worker claude 30 5s 5m
	echo 'jobs: 1' >> "$SC_CONFIG/sources/s1.yaml"
	sc_source_file s2 https://s2.example.com/api/worker "claude, ocr" 30 5s 5m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_scenario api.anthropic.com "{\"answers\": {\"hold\": {\"delay\": $HOLD, \"ping\": 5}}, \"default\": {}}"
	sc_fakesource s1 s1.example.com 198.20.5.31 tok-s1 \
	    "[$(job hold-1 hold), $(job quick-1 quick)]" strict
	sc_fakesource s2 s2.example.com 198.20.5.32 tok-s2 \
	    "[$(job hold-2 hold)]" strict
	sc_secret s1 tok-s1
	sc_secret s2 tok-s2
	sc_secret claude key-claude-running
	keep_up
	images
	daemon_up
}

# status_jobs: show status -j's jobs, one line: all, then each row.
status_jobs()
{
	./ctl show status -j > status.json || return 1
	python3 -c 'import json
v = json.load(open("status.json"))
rows = ["%s %d/%d" % (r["capability"], r["running"], r["jobs"]) for r in v["capabilities"]]
rows += ["%s %d/%d" % (r["source"], r["running"], r["jobs"]) for r in v["sources"]]
print("%d/%d %s%s" % (v["running"], v["jobs"], ", ".join(rows),
    "" if v["as_of"] else " (no summary)"))'
}

# sources_jobs: show sources -j's running and jobs of each source.
sources_jobs()
{
	./ctl show sources -j > sources.json || return 1
	python3 -c 'import json
print(", ".join("%s %d/%d" % (s["source"], s["running"], s["jobs"])
    for s in json.load(open("sources.json"))))'
}

atf_test_case running cleanup
running_head()
{
	atf_set "descr" "at jobs: 2, two claude jobs held in their boxes: show status says all 2/2, claude 2/2, ocr 0/1, s1 1/1 (its own jobs), s2 1/2, show sources s1 1/1 and s2 1/2, plain and -j, and show jobs lists the two running; the control: once every job ended, each is 0"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
running_body()
{
	running_up
	sc_wait_line "$SC_ROOT/api.anthropic.com.requests" \
	    '"method": "POST", "path": "/v1/messages"' 120 2 ||
	    { sc_log sandcastled; atf_fail "two boxes never asked the API"; }
	# The pushes of both jobs' start follow their claims at once.
	i=0
	while [ "$(status_jobs)" != "2/2 claude 2/2, ocr 0/1, s1 1/1, s2 1/2" ]; do
		i=$((i + 1))
		[ $i -le 50 ] || { status_jobs; sc_log sandcastled
		    atf_fail "show status -j never said the two jobs run"; }
		sleep 0.2
	done
	first=$(python3 -c 'import json, sys
print(int(min(e["at"] for e in map(json.loads, open(sys.argv[1]))
    if e["method"] == "POST")))' "$SC_ROOT/api.anthropic.com.requests")
	atf_check -o save:all -e empty ./ctl show status
	cat all
	cat > expjobs <<EOF
JOBS                     RUNNING
all                      2/2
capability claude        2/2
capability ocr           0/1
source s1                1/1
source s2                1/2
EOF
	sed '1,/^$/d' all > jobs
	atf_check -o file:expjobs cat jobs
	got=$(sources_jobs)
	[ "$got" = "s1 1/1, s2 1/2" ] || atf_fail "show sources -j: $got"
	atf_check -o save:table -e empty ./ctl show sources
	cat table
	atf_check -o inline:"SOURCE           NEXT POLL BACK-OFF  RUNNING   JOBS/HOUR RESTING                LAST ERROR\n" \
	    head -n 1 table
	grep -Eq '^s1 +(now|[0-9:]{8}) +none +1/1 +1/30 +- +-$' table ||
	    atf_fail "s1's line is not as asked"
	grep -Eq '^s2 +(now|[0-9:]{8}) +none +1/2 +1/30 +- +-$' table ||
	    atf_fail "s2's line is not as asked"
	# The records say the same two jobs run.
	./ctl show jobs > records
	cat records
	atf_check -o inline:"hold-1\nhold-2\n" sh -c \
	    "awk '\$6 == \"running\" { print \$4 }' records | sort"
	# s1's one slot is taken: it was not asked again meanwhile.
	[ "$(grep -c '/jobs/claim' "$SC_ROOT/s1.requests")" -eq 1 ] ||
	    atf_fail "s1 was asked again while its one job ran"
	# All of it while both replies were held.
	[ $(($(date +%s) - first)) -lt $HOLD ] ||
	    atf_fail "read after the first reply came: the test proves nothing"
	# Control: once the three jobs ended, none runs.
	sc_wait_line "$SC_ROOT/s1.results" '"status": "succeeded"' \
	    $((HOLD + 90)) 2 ||
	    { sc_log sandcastled; atf_fail "s1's jobs did not both succeed"; }
	sc_wait_line "$SC_ROOT/s2.results" '"status": "succeeded"' 30 ||
	    { sc_log sandcastled; atf_fail "s2's job did not succeed"; }
	i=0
	while [ "$(status_jobs)" != "0/2 claude 0/2, ocr 0/1, s1 0/1, s2 0/2" ]; do
		i=$((i + 1))
		[ $i -le 50 ] || { status_jobs; atf_fail "jobs still run"; }
		sleep 0.2
	done
	got=$(sources_jobs)
	[ "$got" = "s1 0/1, s2 0/2" ] || atf_fail "show sources -j: $got"
	./ctl show jobs > records2
	cat records2
	atf_check -s exit:1 -o empty grep -w running records2
}
running_cleanup()
{
	daemon_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case running
}
