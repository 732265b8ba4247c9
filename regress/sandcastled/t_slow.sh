#! /usr/bin/env atf-sh
# A claude reply that takes minutes to be whole, streamed by
# regress/lib/fakeapi.py as the Messages API streams it (message_start at
# once, a ping every 15 s, the reply at the end).  The keep's deadline
# for the call, the gate's limits for its tunnel and the box's own time
# are ordered so that the call ends first and its record says which
# limit ended it.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

TOKEN=tok-notes-slow-1234

# slow_up TIMEOUT: the network, config.yaml with claude's timeout, the
# notes source, the fake API, the keep, the gate, the images and
# sandcastled.
slow_up()
{
	daemon_net_up notes.example.com api.anthropic.com
	cat > "$SC_CONFIG/config.yaml" <<EOC
data_dir: $SC_ROOT/data
capabilities:
$(sc_claude_yaml claude-test-1)
    timeout: $1
    cooldown: 1s
EOC
	sc_source_file notes https://notes.example.com/api/worker claude 30 5s 1h
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_secret notes "$TOKEN"
	sc_secret claude key-claude-slow
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	keep_up
	images
	daemon_up
}

# job ID DELAY: the source hands out claude job ID alone, whose reply
# the API makes whole after DELAY seconds.
job()
{
	[ -f "$SC_ROOT/log/fs-notes.pid" ] &&
	    kill "$(cat "$SC_ROOT/log/fs-notes.pid")" && sleep 0.3
	sc_scenario api.anthropic.com "{\"default\": {\"delay\": $2, \"ping\": 15}}"
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    "[{\"id\": \"$1\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]"
}

atf_test_case minutes cleanup
minutes_head()
{
	atf_set "descr" "A claude reply that comes after 45 s (past a source's 30 s call) and after 100 s (past the gate's 60 s of silence for a source's tunnel) succeeds, each with one POST to the API"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "420"
}
minutes_body()
{
	slow_up 5m
	for d in 45 100; do
		job "after-$d" "$d"
		got=$(outcome "after-$d" $((d + 60)))
		[ "$got" = '{"output": {"tag": "x"}, "status": "succeeded"}' ] ||
		    { sc_log sandcastled; sc_log keepd; atf_fail "after-$d: $got"; }
	done
	[ "$(posts_api)" -eq 2 ] ||
	    atf_fail "$(posts_api) POSTs to the API for two jobs, not one each"
	grep -q 'job source=notes job=after-100 capability=claude status=succeeded seconds=10[0-9] ' \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no log line of after-100's 100 s"; }
	# One journal line for each poll that found work, none for the others.
	[ "$(grep -c 'poll source=notes job=after-[0-9]* capability=claude$' \
	    "$SC_ROOT/log/sandcastled.log")" -eq 2 ] &&
	    [ "$(grep -c 'poll source=' "$SC_ROOT/log/sandcastled.log")" -eq 2 ] ||
	    { sc_log sandcastled; atf_fail "not one poll line for each job"; }
}
minutes_cleanup()
{
	sc_net_cleanup
}

atf_test_case past_timeout cleanup
past_timeout_head()
{
	atf_set "descr" "A claude reply that would come after the capability's timeout: the keep ends the call first, the job fails (not released: asked again it would be billed again) and its record names the limit and the very seconds keepd was given; one POST"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "240"
}
past_timeout_body()
{
	slow_up 25s
	job late 60
	# The box asks some 0.3 s to 2 s after it starts: 25 s less that,
	# less the 10 s it keeps to end.
	got=$(outcome late 60)
	echo "$got" | grep -qE '^\{"error": "no answer from the Messages API within 1[2-4]s, the box.s 25s less 10s to end it", "status": "failed"\}$' ||
	    { sc_log sandcastled; sc_log keepd; atf_fail "late: $got"; }
	[ "$(posts_api)" -eq 1 ] || atf_fail "$(posts_api) POSTs to the API, not one"
	grep -q 'job source=notes job=late capability=claude status=failed seconds=[0-9]* error=time ' \
	    "$SC_ROOT/log/sandcastled.log" ||
	    { sc_log sandcastled; atf_fail "no log line with the word time"; }
	kept=$(sed -nE 's,.*claude POST /v1/messages refused: no answer within (1[2-4])s.*,\1,p' \
	    "$SC_ROOT/log/keepd.log")
	[ -n "$kept" ] || { sc_log keepd; atf_fail "keepd did not end the call"; }
	# The record names the seconds keepd was given, read once.
	said=$(echo "$got" | sed -E 's/.* within ([0-9]+)s, .*/\1/')
	[ "$said" = "$kept" ] || atf_fail "the record says ${said}s, keepd ${kept}s"
	[ "$(meta notes late status)" = failed ] || atf_fail "the record's status"
}
past_timeout_cleanup()
{
	sc_net_cleanup
}

atf_test_case stop_midcall cleanup
stop_midcall_head()
{
	atf_set "descr" "SIGTERM while a claude call waits minutes for the API: the launcher gives the call up, the job is released as stopped, its box removed and confirmed gone, with one POST, and its result goes out at the next start; sandcastled ends within the core's stop grace, not at the call's end"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
stop_midcall_body()
{
	slow_up 5m
	job waiting 120
	wait_api_post 30 ||
	    { sc_log sandcastled; atf_fail "the job never reached the API"; }
	sleep 1
	start=$(date +%s)
	sc_stop sandcastled
	took=$(( $(date +%s) - start ))
	# The core's grace, CORE_STOP_SECONDS and 5, and a margin.
	[ "$took" -le 85 ] || atf_fail "sandcastled took $took s to stop"
	# The keep frontend, in the claude call, outlives its grace and is
	# killed, so sandcastled exits 1 (sandcastled(8), CAVEATS).
	echo "sandcastled stopped in $took s"
	[ "$(meta notes waiting status)" = released ] || atf_fail "the record's status"
	meta notes waiting error | grep -q 'stopping while the job ran' ||
	    atf_fail "the record does not say it stopped: $(meta notes waiting error)"
	[ -z "$(sc_as_user podman ps -aq --filter label=sandcastle.role=core)" ] ||
	    atf_fail "the box outlived sandcastled's stop"
	# The result the stop left goes out at the next start.
	daemon_up
	got=$(outcome waiting 30)
	[ "$got" = '{"status": "released"}' ] || { sc_log sandcastled; atf_fail "waiting: $got"; }
	[ "$(posts_api)" -eq 1 ] || atf_fail "$(posts_api) POSTs to the API, not one"
}
stop_midcall_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case minutes
	atf_add_test_case past_timeout
	atf_add_test_case stop_midcall
}
