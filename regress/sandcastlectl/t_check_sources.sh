#! /usr/bin/env atf-sh
# S1 S3 N2: sandcastlectl check's source lines, each source pinged
# through the real keepd and gated on the test network: a source with 2
# waiting (fakesource.py), one that answers 401, one whose host is down,
# one whose name resolves inside (the gate's refusal shows), one whose
# secret is unusable, and one (fakehost.py) answering garbage to /ping,
# read strictly as {"waiting": N}.  Each FAIL makes check exit 1; the
# control, the reachable source alone with its images built, exits 0.
# N6: and the running gate's network, held to the route lookups.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/ctl.subr"

TOKEN_NOTES=tok-notes-check-1234
TOKEN_OTHER=tok-other-check-5678
CANARY=SCTEST-CANARY-77cd

# cs_config: ocr alone (no API to prove), and the six sources.
cs_config()
{
	sc_ocr_config
	sc_source_file notes https://notes.example.com/api/worker ocr 10 30s 1m
	sc_source_file badtoken https://other.example.com/api/worker ocr 10 30s 1m
	sc_source_file down https://down.example.com/api/worker ocr 10 30s 1m
	sc_source_file inside https://rebind.example.com/api/worker ocr 10 30s 1m
	sc_source_file garbage https://garbage.example.com/api/worker ocr 10 30s 1m
	sc_source_file nosecret https://notes.example.com/api/worker ocr 10 30s 1m nosecret
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# ping_answer JSON: what garbage.example.com answers to GET /api/worker/ping.
ping_answer()
{
	sc_scenario garbage.example.com "{\"routes\": {\"/api/worker/ping\": $1}}"
}

# run_check: check as the account in the host namespace; its exit status
# in check.status, its lines in check.out.
run_check()
{
	sc_as_user_in_host "$(sc_bin sandcastlectl)" -c "$SC_CONFIG" \
	    -s "$SC_SECRETS" check > check.out 2> check.err
	echo $? > check.status
}

has_line()
{
	grep -qxF -- "$1" check.out ||
	    { cat check.out check.err; atf_fail "no line: $1"; }
}

# has_prefix TEXT: a line that starts with TEXT.
has_prefix()
{
	awk -v p="$1" 'index($0, p) == 1 { f = 1 } END { exit !f }' check.out ||
	    { cat check.out check.err; atf_fail "no line starting: $1"; }
}

garbage_line()
{
	ping_answer "$1"
	run_check
	has_line "FAIL  source garbage: garbage cannot be reached: $2"
	[ "$(cat check.status)" = 1 ] || atf_fail "check exited $(cat check.status) on $1"
}

atf_test_case sources cleanup
sources_head()
{
	atf_set "descr" "S1 S3 N2: check's source lines through the keep and the gate: reachable with 2 waiting; a 401 names the secret to set; a host down, a name resolving inside (the gate's refusal), an unusable secret and every answer to /ping that is not {\"waiting\": N} FAIL with why; exit 1 on any FAIL, 0 for the reachable source alone"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "600"
}
sources_body()
{
	sc_setup
	sc_net_up
	sc_net_dns down.example.com 198.20.5.13
	sc_net_dns garbage.example.com 198.20.5.11
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    other.example.com down.example.com rebind.example.com \
	    garbage.example.com >/dev/null || atf_fail "ca.sh"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
	cs_config
	sc_fakesource notes notes.example.com 198.20.5.10 "$TOKEN_NOTES" \
	    '[{"id": "a", "capability": "ocr"}, {"id": "b", "capability": "ocr"}]'
	sc_fakesource other other.example.com 198.20.5.12 "$TOKEN_OTHER" '[]'
	sc_fakehost garbage.example.com "$SC_NS_WORLD" 198.20.5.11 443 tls
	sc_secret notes "$TOKEN_NOTES"
	sc_secret badtoken "$CANARY-wrong"
	sc_secret down tok-down
	sc_secret inside tok-inside
	sc_secret garbage tok-garbage
	sc_start_in_host gated -dv -c "$SC_CONFIG"
	sc_wait_log gated "serving " 15 || { sc_log gated; atf_fail "gated does not serve"; }
	sc_start_in_host keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_log keepd "ready: " 15 || { sc_log keepd; atf_fail "keepd is not ready"; }
	sc_images
	ping_answer '{"status": 200, "body": "not json at all"}'
	run_check
	cat check.out
	[ "$(cat check.status)" = 1 ] || atf_fail "check did not exit 1 on its FAIL lines"
	has_line "ok    source notes: reachable, 2 waiting"
	grep -q "^keepd: notes GET /ping 200$" "$SC_ROOT/log/keepd.log" ||
	    { sc_log keepd; atf_fail "the ping did not go through the keep"; }
	atf_check -o match:"\"auth\": \"Bearer $TOKEN_NOTES\"" \
	    -o match:'"method": "GET", "path": "/api/worker/ping"' cat "$SC_ROOT/notes.requests"
	atf_check -s exit:1 grep -q '/jobs/claim' "$SC_ROOT/notes.requests"
	has_line "FAIL  source badtoken: the token was rejected; create a new worker token and set it with sandcastlectl secret set badtoken"
	has_prefix "FAIL  source down: down cannot be reached: "
	has_prefix "FAIL  source inside: inside cannot be reached: "
	grep '^FAIL  source inside: ' check.out | grep -q 'the name resolves to the internal network' ||
	    { cat check.out; atf_fail "the gate's refusal is not shown"; }
	has_line "FAIL  source nosecret: unusable secret: nosecret; set it with sandcastlectl secret set nosecret"
	has_prefix "FAIL  source garbage: garbage cannot be reached: the ping answer is not {\"waiting\": N}: the answer is not JSON"
	# In order: after the toolbox's lines, before the capabilities', sorted.
	sed -n 's/^[a-zA-Z]* *\(toolbox\|source [a-z]*\|capability [a-z]*\): .*/\1/p' check.out |
	    uniq > got.order
	printf '%s\n' toolbox "source badtoken" "source down" "source garbage" \
	    "source inside" "source nosecret" "source notes" "capability ocr" > want.order
	atf_check -o file:want.order cat got.order
	! grep -q "$CANARY" check.out check.err || atf_fail "check printed a secret"
	# A ping answer is {"waiting": N}, N a non-negative integer, or nothing.
	garbage_line '{"status": 200, "json": {"waiting": -1}}' \
	    'the ping answer is not {"waiting": N}: waiting is not a non-negative integer'
	garbage_line '{"status": 200, "json": {"waiting": "2"}}' \
	    'the ping answer is not {"waiting": N}: waiting is not a non-negative integer'
	garbage_line '{"status": 200, "json": {"waiting": 1.5}}' \
	    'the ping answer is not {"waiting": N}: waiting is not a non-negative integer'
	garbage_line '{"status": 200, "json": {"jobs": []}}' \
	    'the ping answer is not {"waiting": N}: the answer has no waiting'
	garbage_line '{"status": 200, "json": [2]}' \
	    'the ping answer is not {"waiting": N}: the answer is not a JSON object'
	garbage_line '{"status": 500, "body": "database on fire\nsecond line"}' \
	    'status 500: database on fire'
	garbage_line '{"status": 302, "headers": {"location": "https://notes.example.com/api/worker/ping"}}' \
	    'status 302: a redirect is never followed'
	# Control: a strict answer, other fields without effect, is ok.
	ping_answer '{"status": 200, "json": {"waiting": 7, "note": "x"}}'
	run_check
	has_line "ok    source garbage: reachable, 7 waiting"
	# Control: the reachable source alone, its image built: exit 0.
	for s in badtoken down inside garbage nosecret; do
		rm "$SC_CONFIG/sources/$s.yaml"
	done
	run_check
	cat check.out
	grep -q '^FAIL' check.out && atf_fail "a FAIL line with notes alone"
	has_line "ok    source notes: reachable, 2 waiting"
	[ "$(cat check.status)" = 0 ] || atf_fail "check exited $(cat check.status) with no FAIL line"
}
sources_cleanup()
{
	sc_load || return 0
	sc_net_down
	sc_cleanup
}

atf_test_case no_keep cleanup
no_keep_head()
{
	atf_set "descr" "without a keep, no source is pinged and no source line is printed; the keep's line says why; control: with keepd, the source line comes"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
no_keep_body()
{
	sc_setup
	sc_mkctl
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    >/dev/null || atf_fail "ca.sh"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
	sc_ocr_config home
	sc_source_file notes https://notes.example.com/api/worker ocr 10 30s 1m
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_secret notes "$TOKEN_NOTES"
	./ctl check > out 2>&1
	cat out
	grep -q '^FAIL  keep: the keep does not answer' out || atf_fail "no keep line"
	grep -q ' source notes: ' out && atf_fail "a source line without the keep"
	# Control: with keepd (and no gate, which is why it cannot be reached).
	sc_start keepd -d -c "$SC_CONFIG" -s "$SC_SECRETS"
	sc_wait_file "$SC_RUN/sandcastle/keep.sock" 10 || { sc_log keepd; atf_fail "keepd does not serve"; }
	./ctl check > out 2>&1
	cat out
	grep -q '^FAIL  source notes: notes cannot be reached: ' out ||
	    atf_fail "no source line with the keep"
}
no_keep_cleanup()
{
	sc_cleanup
}

atf_test_case gate_network cleanup
gate_network_head()
{
	atf_set "descr" "N6: check holds the running gate's network to the route lookups: ok as the gate made it; a prohibit route removed after start, and the home /24 copied in, each FAIL naming the address and the route that won; control: restored, ok again; the FAIL's step by hand, its kill and its command run as printed, gives a gate whose network is whole; no gate: a warn whose command, run as printed, starts one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
gate_network_body()
{
	sc_setup
	sc_home_up
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    >/dev/null || atf_fail "ca.sh"
	chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
	sc_ocr_config
	sc_source_file notes https://notes.example.com/api/worker ocr 10 30s 1m
	cat > "$SC_CONFIG/sources/files.yaml" <<EOS
name: files
destination:
  address: http://files.home.arpa:8443/api/worker
  secret: files
  internal: $SC_NAS:8443
poll_interval: 30s
capabilities: [ocr]
max_jobs_per_hour: 10
job_timeout: 1m
EOS
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_secret notes "$TOKEN_NOTES"
	sc_secret files tok-files
	sc_gate_up
	sc_keep_up
	gate=$(sc_pid gated)
	run_check
	has_prefix "ok    gate: its network refuses every bogon and this machine ("
	by_hand="$(sc_bin gated) -d -c $SC_CONFIG"
	nsenter -t "$gate" -n ip route del prohibit 172.16.0.0/12
	run_check
	has_line "FAIL  gate: its network lets through: 172.16.0.0 (the first of 172.16.0.0/12) is answered by default via 169.254.77.1 dev egress, not prohibit; restart it: kill $gate, then start it again in a terminal of its own: $by_hand"
	[ "$(cat check.status)" = 1 ] || atf_fail "check did not exit 1"
	nsenter -t "$gate" -n ip route add prohibit 172.16.0.0/12
	run_check
	has_prefix "ok    gate: its network refuses every bogon and this machine ("
	nsenter -t "$gate" -n ip route add 192.168.1.0/24 dev egress
	run_check
	has_line "FAIL  gate: its network lets through: $SC_HOME_ADDR (this machine's address) is answered by 192.168.1.0/24 dev egress, not prohibit; restart it: kill $gate, then start it again in a terminal of its own: $by_hand"
	nsenter -t "$gate" -n ip route del 192.168.1.0/24 dev egress
	nsenter -t "$gate" -n ip route del "$SC_NAS/32"
	run_check
	has_line "FAIL  gate: its network lets through: $SC_NAS (the internal exception of files) is answered by prohibit, not by its /32 through 169.254.77.1; restart it: kill $gate, then start it again in a terminal of its own: $by_hand"
	# The step, as printed: the kill as the account, and once that gate
	# has ended (its terminal free again: this shell started it), the
	# command.
	stop=$(sed -n 's/^FAIL  gate: .*; restart it: \(kill [0-9]*\), then .*/\1/p' check.out)
	[ "$stop" = "kill $gate" ] || atf_fail "no kill of the gate in: $(cat check.out)"
	sc_as_user_in_host sh -c "$stop" || atf_fail "$stop"
	wait "$gate"
	sc_hint_run check.out gated "FAIL  gate: its network lets through: $SC_NAS "
	sc_wait_log gated "serving " 15 ||
	    { sc_log gated; atf_fail "$(cat gated.cmd): the gate does not serve"; }
	gate=$(sc_pid gated)
	run_check
	has_prefix "ok    gate: its network refuses every bogon and this machine ("
	# No gate: its line's command, run as printed, starts one.
	sc_stop gated
	run_check
	has_line "warn  gate: no gate answers at $SC_RUN/sandcastle/gate.sock: No such file or directory; its network was not looked at; start it in a terminal of its own: $by_hand"
	sc_hint_run check.out gated "warn  gate: no gate answers at "
	sc_wait_log gated "serving " 15 ||
	    { sc_log gated; atf_fail "$(cat gated.cmd): the gate does not serve"; }
	run_check
	has_prefix "ok    gate: its network refuses every bogon and this machine ("
}
gate_network_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case no_keep
	atf_add_test_case sources
	atf_add_test_case gate_network
}
