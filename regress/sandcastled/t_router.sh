#! /usr/bin/env atf-sh
# A claude reply that takes 100 s, through a home router that forgets a
# silent TCP flow after 60 s (net.subr's sc_home_nat: a NAT, conntrack's
# established timeout 60 s, no loose pick-up, invalid packets dropped).
# The streamed reply's pings cross the router while the reply is made,
# so its flow lives; the control, the same reply with no ping, loses it.
# The router's conntrack table and its counters say so, not our config.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/../lib/daemon.subr"

TOKEN=tok-router-2468

# router_up PING: the home network behind the NAT, claude with 150 s,
# the API's reply whole after 100 s with a ping every PING seconds (0:
# none), one job.
router_up()
{
	sc_setup
	sc_home_up
	sc_home_nat 60
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    api.anthropic.com >/dev/null || atf_fail "ca.sh"
	cat > "$SC_CONFIG/config.yaml" <<EOC
data_dir: $SC_ROOT/data
capabilities:
$(sc_claude_yaml claude-test-1)
    timeout: 150s
    cooldown: 1h
EOC
	sc_source_file notes https://notes.example.com/api/worker claude 30 5s 1h
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_secret notes "$TOKEN"
	sc_secret claude key-claude-router
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls fakeapi.py
	sc_scenario api.anthropic.com "{\"default\": {\"delay\": 100, \"ping\": $1}}"
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN" \
	    "[{\"id\": \"slow\", \"capability\": \"claude\", \"input\": $CLAUDE_INPUT}]"
	keep_up
	images
	daemon_up
}

# api_flow: the router's established flow to the API, if it has one.
api_flow()
{
	sc_home_flows --orig-dst 198.20.5.11 --dport 443 --state ESTABLISHED
}

# at_75: 75 s after the POST, past the router's 60 s, the flow's row.
at_75()
{
	wait_api_post 60 ||
	    { sc_log sandcastled; atf_fail "the job never reached the API"; }
	api_flow > flow-0
	grep -q 'src=198.20.5.11 dst=198.20.5.2 ' flow-0 ||
	    atf_fail "the router does not NAT the API's flow: $(cat flow-0)"
	sleep 75
	api_flow > flow-75
	echo "the flow 75 s after the POST:"; cat flow-75
}

atf_test_case streamed cleanup
streamed_head()
{
	atf_set "descr" "A claude reply whole after 100 s, streamed with a ping every 15 s, crosses a home router that forgets a flow silent for 60 s: the router still tracks the flow 75 s after the POST, drops no packet as invalid, and the job succeeds with one POST"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "420"
}
streamed_body()
{
	router_up 15
	at_75
	[ -s flow-75 ] || atf_fail "the router forgot the streamed flow"
	got=$(outcome slow 120)
	[ "$got" = '{"output": {"tag": "x"}, "status": "succeeded"}' ] ||
	    { sc_log sandcastled; sc_log keepd; atf_fail "slow: $got"; }
	[ "$(posts_api)" -eq 1 ] || atf_fail "$(posts_api) POSTs to the API, not one"
	[ "$(sc_home_dropped forward)" -eq 0 ] && [ "$(sc_home_dropped input)" -eq 0 ] ||
	    atf_fail "the router dropped packets as invalid"
}
streamed_cleanup()
{
	sc_net_cleanup
}

atf_test_case silent cleanup
silent_head()
{
	atf_set "descr" "The control: the same reply, its stream with no ping before the reply is whole, through the same router: 75 s after the POST the router has forgotten the flow, the reply's packets are dropped as invalid, and the job fails at the keep's deadline (no answer within its time) with one POST"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "420"
}
silent_body()
{
	router_up 0
	at_75
	[ ! -s flow-75 ] || atf_fail "the router still tracks the silent flow"
	got=$(outcome slow 120)
	echo "$got" | grep -qE '^\{"error": "no answer from the Messages API within [0-9m]+s, the box.s 2m30s less 10s to end it", "status": "failed"\}$' ||
	    { sc_log sandcastled; sc_log keepd; atf_fail "slow: $got"; }
	[ "$(posts_api)" -eq 1 ] || atf_fail "$(posts_api) POSTs to the API, not one"
	# The reply at 100 s met no flow: its packets were dropped.
	dropped=$(( $(sc_home_dropped forward) + $(sc_home_dropped input) ))
	echo "dropped as invalid: $dropped"
	[ "$dropped" -gt 0 ] || atf_fail "the router dropped nothing as invalid"
}
silent_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case streamed
	atf_add_test_case silent
}
