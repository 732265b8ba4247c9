#! /usr/bin/env atf-sh
# keepd as the operator runs it, against test hosts on the test network:
# the envelope's rules, the secrets' rules, TLS, the answer's limits, the
# 30 s call, its namespace, its socket and its end.  The suite runs as
# root to make the network (net.subr); keepd and the gate run as the test
# account in the host namespace, behind the real gated.  The warm and
# spare request processes are t_keepwarm.sh's.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/keep.subr"

atf_test_case authorized cleanup
authorized_head()
{
	atf_set "descr" "S1: a GET and a POST reach notes with Authorization: Bearer, claude's with x-api-key alone, each through the gate"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
authorized_body()
{
	keep_up
	$ASK "$GET_PING" \
	    '{"destination":"notes","method":"POST","path":"/jobs/claim","headers":{"content-type":"application/json"},"body":{"capabilities":["claude"],"limit":1}}' \
	    '{"destination":"claude","method":"POST","path":"/v1/messages","headers":{"content-type":"application/json","anthropic-version":"2023-06-01"},"body":{"model":"m"}}' \
	    > out || { cat out; sc_log keepd; atf_fail "keepclient"; }
	atf_check -o inline:"status 200\ncontent-type application/json\nretry-after 0\nbody-length 14\nbody {\"waiting\": 3}\nstatus 200\ncontent-type application/json\nretry-after 0\nbody-length 12\nbody {\"jobs\": []}\nstatus 200\ncontent-type application/json\nretry-after 0\nbody-length 19\nbody {\"type\": \"message\"}\n" cat out
	[ "$(grep -c "\"authorization\": \"Bearer $NOTES_SECRET\"" "$SC_ROOT/notes.example.com.requests")" -eq 2 ] ||
	    { requests notes.example.com; atf_fail "notes did not get the token twice"; }
	grep -q '"method": "POST", "path": "/api/worker/jobs/claim"' "$SC_ROOT/notes.example.com.requests" ||
	    atf_fail "the POST did not reach its path"
	grep -q '"body": "{\\"capabilities\\":\[\\"claude\\"\],\\"limit\\":1}"' "$SC_ROOT/notes.example.com.requests" ||
	    { requests notes.example.com; atf_fail "the body did not arrive as sent"; }
	atf_check -o match:"\"x-api-key\": \"$CLAUDE_SECRET\"" cat "$SC_ROOT/api.anthropic.com.requests"
	atf_check -s exit:1 grep -q authorization "$SC_ROOT/api.anthropic.com.requests"
	sc_wait_log keepd "^keepd: notes GET /ping 200$" 2 || { sc_log keepd; atf_fail "no log line"; }
	sc_wait_log keepd "^keepd: claude POST /v1/messages 200$" 2 || { sc_log keepd; atf_fail "no log line"; }
	for s in "$NOTES_SECRET" "$CLAUDE_SECRET"; do
		grep -qF "$s" "$SC_ROOT/log/keepd.log" && atf_fail "a secret is in the log"
	done
	# Every request went through the gate, to the name and port configured.
	atf_check -o inline:"2\n" grep -c "tunnel notes: notes.example.com:443 via 198.20.5.10$" "$SC_ROOT/log/gated.log"
	atf_check -o inline:"1\n" grep -c "tunnel claude: api.anthropic.com:443 via 198.20.5.11$" "$SC_ROOT/log/gated.log"
	# The gate's refusal is passed on with its reason; nothing is sent.
	atf_check -o match:"^refused gate the gate (refused|cannot reach) it: " \
	    $ASK '{"destination":"other","method":"GET","path":"/ping"}'
}
authorized_cleanup()
{
	sc_net_cleanup
}

atf_test_case envelope_attacks cleanup
envelope_attacks_head()
{
	atf_set "descr" "S7 S1: each envelope that breaks a rule, written or encoded, is refused with its reason and reaches nothing"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
envelope_attacks_body()
{
	keep_up
	while IFS='|' read -r env reason; do
		[ -n "$env" ] || continue
		$ASK "$env" > out
		grep -qF "refused envelope $reason" out ||
		    { cat out; atf_fail "$env: not refused with: $reason"; }
	done <<'EOA'
{"destination":"notes","method":"GET","path":"/a/../b"}|field path: the path holds ..
{"destination":"notes","method":"GET","path":"/a/%2e%2e/b"}|field path: the path holds an encoded ..
{"destination":"notes","method":"GET","path":"/a/%2E%2e/b"}|field path: the path holds an encoded ..
{"destination":"notes","method":"GET","path":"//evil.example.net/x"}|field path: the path holds //
{"destination":"notes","method":"GET","path":"/a/%2f/b"}|field path: the path holds an encoded //
{"destination":"notes","method":"GET","path":"/jobs/1%2fb/result"}|field path: the path holds an encoded /
{"destination":"notes","method":"GET","path":"/a\\b"}|field path: the path holds \
{"destination":"notes","method":"GET","path":"/a%5cb"}|field path: the path holds an encoded \
{"destination":"notes","method":"GET","path":"/http://evil/"}|field path: the path holds : (a scheme
{"destination":"notes","method":"GET","path":"/a%3a%2f%2fevil"}|field path: the path holds an encoded :
{"destination":"notes","method":"GET","path":"/ping?x=1"}|field path: the path holds a query
{"destination":"notes","method":"GET","path":"/ping%3fx=1"}|field path: the path holds an encoded query
{"destination":"notes","method":"GET","path":"/ping#top"}|field path: the path holds a fragment
{"destination":"notes","method":"GET","path":"/ping%23top"}|field path: the path holds an encoded fragment
{"destination":"notes","method":"GET","path":"/a%252e%252e/b"}|field path: the path holds an encoded %
{"destination":"notes","method":"GET","path":"/a\r\nX-Evil: 1"}|field path: the path holds a control character
{"destination":"notes","method":"GET","path":"/a%0d%0aX-Evil%3a%201"}|field path: the path holds an encoded control character
{"destination":"notes","method":"GET","path":"/ping","headers":{"x-forwarded-for":"1.2.3.4"}}|header x-forwarded-for: not one the keep takes
{"destination":"notes","method":"GET","path":"/ping","headers":{"Authorization":"Bearer stolen"}}|header authorization: refused: the keep adds the secret itself
{"destination":"notes","method":"GET","path":"/ping","headers":{"x-api-key":"k"}}|header x-api-key: refused: the keep adds the secret itself
{"destination":"notes","method":"GET","path":"/ping","headers":{"accept":"a\r\nHost: evil"}}|header accept: the value holds a line break
{"destination":"notes","method":"GET","path":"/ping","url":"https://evil.example.net/"}|field url: the envelope has no such field
{"destination":"notes","method":"PUT","path":"/ping"}|method PUT: only GET and POST
{"destination":"evil","method":"GET","path":"/ping"}|destination evil: not a configured destination
{"destination":"notes","method":"GET","path":"/ping","body":{}}|field body: a GET has no body
EOA
	nothing_reached notes.example.com
	grep -q '^keepd: notes GET /a/../b refused: field path: the path holds ..$' \
	    "$SC_ROOT/log/keepd.log" || { sc_log keepd; atf_fail "no log line for the refusal"; }
	# Control: the same destination and path, within the rules, reach it.
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:'"path": "/api/worker/ping"' cat "$SC_ROOT/notes.example.com.requests"
}
envelope_attacks_cleanup()
{
	sc_net_cleanup
}

atf_test_case secret_rules cleanup
secret_rules_head()
{
	atf_set "descr" "S1 A1: a secret broken by each rule stops the request with unusable secret: notes, and no byte of it shows"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
secret_rules_body()
{
	keep_up
	f=$SC_SECRETS/notes
	for rule in symlink mode empty linebreak; do
		rm -f "$f"
		case $rule in
		symlink)
			printf '%s\n' "$CANARY" > "$SC_ROOT/canary"
			chown "$SC_USER:$SC_USER" "$SC_ROOT/canary"
			chmod 0600 "$SC_ROOT/canary"
			ln -s "$SC_ROOT/canary" "$f"
			why="is a symbolic link" ;;
		mode)	printf '%s\n' "$CANARY" > "$f"; chmod 0644 "$f"
			why="access" ;;
		empty)	: > "$f"; chmod 0600 "$f"
			why="is empty" ;;
		linebreak)
			printf '%s\n%s\n' "$CANARY" "$CANARY" > "$f"; chmod 0600 "$f"
			why="line break" ;;
		esac
		chown -h "$SC_USER:$SC_USER" "$f"
		atf_check -o inline:"refused secret unusable secret: notes\n" \
		    $ASK "$GET_PING"
		sc_wait_log keepd "notes GET /ping refused: unusable secret: notes (its file .*$why" 2 ||
		    { sc_log keepd; atf_fail "$rule: the log does not name the rule"; }
	done
	nothing_reached notes.example.com
	grep -F "CANARY" "$SC_ROOT/log/keepd.log" && atf_fail "the log holds the secret"
	# Control: a usable secret, and the request goes out with it.
	rm -f "$f"
	sc_secret notes "$NOTES_SECRET"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:"Bearer $NOTES_SECRET" cat "$SC_ROOT/notes.example.com.requests"
}
secret_rules_cleanup()
{
	sc_net_cleanup
}

atf_test_case secret_replaced cleanup
secret_replaced_head()
{
	atf_set "descr" "a replaced secret is used from the next request, with no restart"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
secret_replaced_body()
{
	keep_up
	pid=$(sc_pid keepd)
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sc_secret notes tok-second-99
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o inline:"Bearer $NOTES_SECRET\nBearer tok-second-99\n" \
	    sh -c "grep -o 'Bearer [^\"]*' '$SC_ROOT/notes.example.com.requests'"
	[ "$(sc_pid keepd)" = "$pid" ] && kill -0 "$pid" || atf_fail "keepd restarted"
}
secret_replaced_cleanup()
{
	sc_net_cleanup
}

atf_test_case redirect cleanup
redirect_head()
{
	atf_set "descr" "S2: a redirect to an internal address is returned with its status and logged, never followed"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
redirect_body()
{
	keep_up
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 302, "headers": {"Location": "http://192.168.77.20/steal"}, "body": "moved"}}}'
	atf_check -o inline:"status 302\ncontent-type \nretry-after 0\nbody-length 0\nbody \n" $ASK "$GET_PING"
	sc_wait_log keepd "^keepd: notes GET /ping 302 (location http://192.168.77.20/steal, not followed)$" 2 ||
	    { sc_log keepd; atf_fail "no log line with the location"; }
	nothing_reached internal
	# Control: the internal host answers whoever asks it directly.
	direct http://192.168.77.20/steal
	atf_check -o match:'"/steal"' cat "$SC_ROOT/internal.requests"
}
redirect_cleanup()
{
	sc_net_cleanup
}

atf_test_case tls_refused cleanup
tls_refused_head()
{
	atf_set "descr" "N4 S1: self-signed, wrong-name and expired certificates are refused before anything is sent"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
tls_refused_body()
{
	keep_up
	for h in selfsigned:"self.signed|local issuer" \
	    wrongname:"not present in server certificate" expired:"expired"; do
		why=${h#*:}; h=${h%%:*}
		$ASK "{\"destination\":\"$h\",\"method\":\"GET\",\"path\":\"/ping\"}" > out
		grep -Eq "^refused tls TLS with notes.example.com: .*($why)" out ||
		    { cat out; sc_log keepd; atf_fail "$h: not refused for its certificate"; }
		grep -Eq "^keepd: $h GET /ping refused: TLS with notes.example.com: .*($why)" \
		    "$SC_ROOT/log/keepd.log" || { sc_log keepd; atf_fail "$h: no log line"; }
		nothing_reached "$h"
	done
	# Control: the same name with the CA's certificate for it.
	atf_check -o match:"^status 200" $ASK "$GET_PING"
}
tls_refused_cleanup()
{
	sc_net_cleanup
}

atf_test_case silent_handshake cleanup
silent_handshake_head()
{
	atf_set "descr" "a destination that takes the connection and never answers the TLS handshake ends as a TLS error that says so, within 30 s, the request process ending by itself; the keep serves on"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
silent_handshake_body()
{
	keep_up
	# It takes the connection, reads what comes and never writes.
	ip netns exec "$SC_NS_WORLD" python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.20.5.10", 8444)); s.listen(8); print("ready", flush=True)
held = []
while True:
    c, _ = s.accept(); held.append(c)
' > "$SC_ROOT/log/silent.log" 2>&1 &
	echo $! > "$SC_ROOT/log/silent.pid"
	sc_wait_log silent ready 10 || atf_fail "the silent host did not start"
	atf_check -o inline:"refused tls TLS with notes.example.com: no handshake within 10 s\n" \
	    $ASK '{"destination":"silent","method":"GET","path":"/ping"}'
	grep -q "^keepd: silent GET /ping refused: TLS with notes.example.com: no handshake within 10 s" \
	    "$SC_ROOT/log/keepd.log" || { sc_log keepd; atf_fail "no log line"; }
	if grep -E "killed by signal|ended without an answer|no answer within" \
	    "$SC_ROOT/log/keepd.log"; then
		atf_fail "the request process did not end by itself"
	fi
	# The control: the same host name on its port that answers.
	atf_check -o match:"^status 200" $ASK "$GET_PING"
}
silent_handshake_cleanup()
{
	sc_net_cleanup
}

atf_test_case answer_limits cleanup
answer_limits_head()
{
	atf_set "descr" "an answer over 32 MiB (by length or by chunks), a bad chunk size and a header flood end as errors, never a partial success"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "300"
}
answer_limits_body()
{
	keep_up
	big=$((32 * 1024 * 1024))
	python3 - "$SC_ROOT/scenarios" "$big" <<'EOP'
import json, sys
d, big = sys.argv[1], int(sys.argv[2])
import os
os.makedirs(d, exist_ok=True)
mib = "a" * (1 << 20)
flood = "HTTP/1.1 200 OK\r\n" + "".join("X-F%d: y\r\n" % i for i in range(200)) + "Content-Length: 0\r\n\r\n"
s = {
 "length": {"status": 200, "size": big + 1},
 "chunks": {"status": 200, "chunks": [mib] * 32 + ["b"]},
 "badchunk": {"raw": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"},
 "flood": {"raw": flood},
 "exact": {"status": 200, "size": big},
}
for k, v in s.items():
    with open(os.path.join(d, k), "w") as f:
        json.dump({"routes": {"/api/worker/ping": v}}, f)
EOP
	for k in length chunks badchunk flood; do
		cp "$SC_ROOT/scenarios/$k" "$SC_ROOT/notes.example.com.scenario"
		case $k in
		length|chunks) why="body over 32 MiB" ;;
		badchunk) why="bad chunk size" ;;
		flood) why="too many header lines" ;;
		esac
		atf_check -o inline:"refused http $why\n" $ASK "$GET_PING"
	done
	# Control: exactly 32 MiB is an answer, whole.
	cp "$SC_ROOT/scenarios/exact" "$SC_ROOT/notes.example.com.scenario"
	atf_check -o match:"^body-length $big\$" $ASK "$GET_PING"
}
answer_limits_cleanup()
{
	sc_net_cleanup
}

atf_test_case slow_answer cleanup
slow_answer_head()
{
	atf_set "descr" "a source that takes longer than its 30 s ends the call as a timeout, on the connection a warm request process kept too, though the client gave the call 100 s (the keep takes the lesser); a client's 5 s end it in 5 s; and the keep serves on"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "150"
}
slow_answer_body()
{
	keep_up
	# A prompt answer first, so that the slow one is on a kept connection.
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"delay": 40, "status": 200, "body": "late"}}}'
	start=$(date +%s)
	atf_check -o inline:"refused timeout no answer within 30s\n" $ASK \
	    --seconds 100 "$GET_PING"
	took=$(( $(date +%s) - start ))
	[ "$took" -ge 30 ] && [ "$took" -le 33 ] || atf_fail "the timeout came after $took s"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n1 $NOTES_SECRET\n" cat seen
	start=$(date +%s)
	atf_check -o inline:"refused timeout no answer within 5s\n" $ASK \
	    --seconds 5 "$GET_PING"
	took=$(( $(date +%s) - start ))
	[ "$took" -ge 5 ] && [ "$took" -le 8 ] || atf_fail "the 5 s call ended after $took s"
	# Control: a prompt answer right after.
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "body": "prompt"}}}'
	atf_check -o match:"^body prompt\$" $ASK "$GET_PING"
}
slow_answer_cleanup()
{
	sc_net_cleanup
}

atf_test_case proxy_ignored cleanup
proxy_ignored_head()
{
	atf_set "descr" "N5: proxy variables have no effect: the request still goes through the gate"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
proxy_ignored_body()
{
	SC_ENV="https_proxy=http://198.20.5.13:3128 HTTPS_PROXY=http://198.20.5.13:3128 http_proxy=http://198.20.5.13:3128 ALL_PROXY=http://198.20.5.13:3128 all_proxy=http://198.20.5.13:3128 no_proxy=*"
	keep_up
	sc_fakehost proxy "$SC_NS_WORLD" 198.20.5.13 3128
	tr '\0' '\n' < "/proc/$(sc_pid keepd)/environ" | grep -q "^HTTPS_PROXY=" ||
	    atf_fail "keepd did not get the proxy variables"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	nothing_reached proxy
	atf_check -o inline:"1\n" grep -c "tunnel notes: notes.example.com:443 via 198.20.5.10$" "$SC_ROOT/log/gated.log"
	# Control: the proxy's address answers whoever uses it.
	direct http://198.20.5.13:3128/x
	atf_check -o match:'"/x"' cat "$SC_ROOT/proxy.requests"
}
proxy_ignored_cleanup()
{
	sc_net_cleanup
}

atf_test_case no_network cleanup
no_network_head()
{
	atf_set "descr" "N5: keepd's network namespace holds only lo, while the namespace it started in has the test network"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
no_network_body()
{
	keep_up
	pid=$(sc_pid keepd)
	atf_check -o inline:"lo\n" sh -c "tail -n +3 /proc/$pid/net/dev | cut -d: -f1 | tr -d ' '"
	[ "$(readlink /proc/$pid/ns/net)" != "$(sc_in_host readlink /proc/self/ns/net)" ] ||
	    atf_fail "keepd is in the host namespace"
	# Control: where it was started, the network is there.
	atf_check -o match:"hw$SC_NETID" ip netns exec "$SC_NS_HOST" cat /proc/self/net/dev
}
no_network_cleanup()
{
	sc_net_cleanup
}

atf_test_case other_uid cleanup
other_uid_head()
{
	atf_set "descr" "A3: another account cannot connect to keep.sock, and once the folder is opened the uid check refuses it"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
other_uid_body()
{
	keep_up
	client="$(sc_srcdir)/regress/keepd/keepclient.py"
	atf_check -s exit:1 -e match:"Permission denied" \
	    $AS_OTHER python3 "$client" "$SC_RUN/sandcastle/keep.sock" "$GET_PING"
	chmod 0711 "$SC_RUN" "$SC_RUN/sandcastle"
	chmod 0666 "$SC_RUN/sandcastle/keep.sock"
	atf_check -o match:"^refused peer refused: uid [0-9]* is not the operator's\$" \
	    $AS_OTHER python3 "$client" "$SC_RUN/sandcastle/keep.sock" "$GET_PING"
	sc_wait_log keepd "keep.sock: refused a client of uid [0-9]* (pid [0-9]*): not the operator's" 2 ||
	    { sc_log keepd; atf_fail "no log line for the refusal"; }
	nothing_reached notes.example.com
	# Control: the operator, through the same socket.
	atf_check -o match:"^status 200" $ASK "$GET_PING"
}
other_uid_cleanup()
{
	sc_net_cleanup
}

atf_test_case sigterm cleanup
sigterm_head()
{
	atf_set "descr" "SIGTERM: keepd exits 0, removes keep.sock, and its warm request process ends too"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
sigterm_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	# A warm request process is there, and ends with keepd.
	[ "$(children)" -eq 1 ] || atf_fail "keepd has $(children) children, not 1"
	[ -S "$SC_RUN/sandcastle/keep.sock" ] || atf_fail "no keep.sock"
	atf_check -o inline:"600\n" stat -c %a "$SC_RUN/sandcastle/keep.sock"
	sc_stop keepd
	[ "$SC_STATUS" -eq 0 ] || { sc_log keepd; atf_fail "exit $SC_STATUS"; }
	[ -e "$SC_RUN/sandcastle/keep.sock" ] && atf_fail "keep.sock is left"
	pgrep -u "$SC_USER" -f "keepd -d -v -c $SC_CONFIG" && atf_fail "a keepd process is left"
	return 0
}
sigterm_cleanup()
{
	sc_net_cleanup
}

atf_test_case taken_child cleanup
taken_child_head()
{
	atf_set "descr" "T1: a running request's child, made by a debugger to call socket(2) as a taken one would to reach keep.sock, is killed by its filter (SIGSYS, in keepd's log) and the request fails; the control, the same call made in keepd, gets a socket; the next request goes on"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
taken_child_body()
{
	keep_up
	# The child dies of the call long before the answer's delay ends.
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"delay": 30, "status": 200, "body": "late"}}}'
	$ASK "$GET_PING" > answer 2>&1 &
	asked=$!
	reached notes.example.com 1
	child=$(workers) && [ -n "$child" ] || atf_fail "no request process waits"
	# Control: keepd itself may make a Unix socket (it connects to the gate).
	fd=$(inject "$(sc_pid keepd)" "socket(1, 1, 0)")
	[ -n "$fd" ] && [ "$fd" -ge 0 ] || atf_fail "the control: keepd made no socket ($fd)"
	inject "$child" "socket(1, 1, 0)" > made
	wait "$asked"
	sc_wait_log keepd "request process $child was killed by signal 31 (its seccomp filter)" 5 ||
	    { sc_log keepd; cat made; atf_fail "the request's child was not killed by its filter"; }
	atf_check -o match:"^refused internal " cat answer
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "body": "prompt"}}}'
	atf_check -o match:"^body prompt\$" $ASK "$GET_PING"
}
taken_child_cleanup()
{
	sc_net_cleanup
}

atf_test_case stopped_mid_poll cleanup
stopped_mid_poll_head()
{
	atf_set "descr" "F4: keepd, its request's child, the gate and its tunnel's child, each stopped and continued while they wait in poll for a slow answer, go on (the kernel restarts the wait as restart_syscall(2), which each filter allows): the answer comes, nothing was killed; the control, the same request not stopped"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "120"
}
stopped_mid_poll_body()
{
	keep_up
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"delay": 4, "status": 200, "body": "late"}}}'
	# Control: the slow answer, not stopped.
	atf_check -o match:"^body late\$" $ASK "$GET_PING"
	$ASK "$GET_PING" > answer 2>&1 &
	asked=$!
	reached notes.example.com 2
	[ "$(children)" -eq 1 ] || atf_fail "no request process waits"
	stop_continue "$(sc_pid keepd)"
	stop_continue "$(sc_pid gated)"
	wait "$asked"
	atf_check -o match:"^body late\$" cat answer
	none_failed keepd gated
	kill -0 "$(sc_pid keepd)" && kill -0 "$(sc_pid gated)" ||
	    atf_fail "keepd or gated is gone"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
}
stopped_mid_poll_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case authorized
	atf_add_test_case envelope_attacks
	atf_add_test_case secret_rules
	atf_add_test_case secret_replaced
	atf_add_test_case redirect
	atf_add_test_case tls_refused
	atf_add_test_case silent_handshake
	atf_add_test_case answer_limits
	atf_add_test_case slow_answer
	atf_add_test_case proxy_ignored
	atf_add_test_case no_network
	atf_add_test_case other_uid
	atf_add_test_case sigterm
	atf_add_test_case stopped_mid_poll
	atf_add_test_case taken_child
}
