#! /usr/bin/env atf-sh
# keepd as the operator runs it, against test hosts on the test network:
# the envelope's rules, the secrets' rules, TLS, the answer's limits, the
# 30 s call, its namespace, its socket and its end.  The suite runs as
# root to make the network (net.subr); keepd and the gate run as the test
# account in the host namespace, behind the real gated.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"

NOTES_SECRET=tok-notes-0a1b2c3d
TWIN_SECRET=tok-twin-8c9d0e1f
CLAUDE_SECRET=key-claude-4e5f6a7b
CANARY=CANARY-d41d8cd98f00b204

# keep_config: claude, notes, twin (another destination on notes'
# address, with its own secret), and one source on each bad certificate.
keep_config()
{
	cat > "$SC_CONFIG/config.yaml" <<EOC
retention_days: 30
capabilities:
$(sc_claude_yaml claude-sonnet-4-5)
EOC
	sc_source_file notes https://notes.example.com/api/worker
	sc_source_file twin https://notes.example.com/api/worker
	sc_source_file other https://other.example.com/api
	sc_source_file selfsigned https://notes.example.com:8441/api
	sc_source_file wrongname https://notes.example.com:8442/api
	sc_source_file expired https://notes.example.com:8443/api
	sc_source_file silent https://notes.example.com:8444/api
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# start_gate: the gate on gate.sock, letting through every destination
# but other.example.com (for the gate's refusal).
start_gate()
{
	sc_gate_up
	sc_wait_file "$SC_RUN/sandcastle/gate.sock" ||
	    { cat "$SC_ROOT/log/gate.log"; atf_fail "no gate.sock"; }
}

# keep_up: the network, the CA, the test hosts, the secrets, the gate, keepd.
keep_up()
{
	sc_setup
	sc_net_up
	sh "$(sc_srcdir)/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com \
	    api.anthropic.com other.example.com || atf_fail "ca.sh"
	keep_config
	sc_fakehost notes.example.com "$SC_NS_WORLD" 198.20.5.10 443 tls
	sc_fakehost api.anthropic.com "$SC_NS_WORLD" 198.20.5.11 443 tls
	sc_fakehost selfsigned "$SC_NS_WORLD" 198.20.5.10 8441 tls
	sc_fakehost wrongname "$SC_NS_WORLD" 198.20.5.10 8442 tls
	sc_fakehost expired "$SC_NS_WORLD" 198.20.5.10 8443 tls
	sc_fakehost internal "$SC_NS_LAN" 192.168.77.20 80
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}}, "/api/worker/jobs/claim": {"status": 200, "json": {"jobs": []}}}}'
	sc_scenario api.anthropic.com '{"routes": {"/v1/messages": {"status": 200, "json": {"type": "message"}}}}'
	sc_secret notes "$NOTES_SECRET"
	sc_secret twin "$TWIN_SECRET"
	sc_secret claude "$CLAUDE_SECRET"
	for s in other selfsigned wrongname expired silent; do
		sc_secret "$s" "$NOTES_SECRET"
	done
	start_gate
	# -v: the spares' lines (spares()).
	sc_keep_up -v
	set_commands
}

# $ASK ENVELOPE...: keepclient's lines for each envelope, as the operator
# (command words, for atf_check, which runs programs and not functions);
# $AS_OTHER CMD...: CMD as another account.
set_commands()
{
	ASK="setpriv --reuid=$SC_USER --regid=$SC_USER --init-groups --inh-caps=-all -- env -i PATH=/usr/bin:/bin python3 $(sc_srcdir)/regress/keepd/keepclient.py $SC_RUN/sandcastle/keep.sock"
	AS_OTHER="setpriv --reuid=$SC_OTHER --regid=$SC_OTHER --init-groups --inh-caps=-all -- env -i PATH=/usr/bin:/bin"
}

requests()
{
	cat "$SC_ROOT/$1.requests"
}

nothing_reached()
{
	[ -s "$SC_ROOT/$1.requests" ] &&
	    { requests "$1"; atf_fail "a request reached $1"; }
	return 0
}

# direct URL: a plain GET from the host namespace, no proxy, no keep.
direct()
{
	sc_in_host /usr/bin/python3 -c 'import sys, urllib.request as u
u.build_opener(u.ProxyHandler({})).open(sys.argv[1], timeout=5)' "$1" \
	    >/dev/null 2>&1
	return 0
}

GET_PING='{"destination":"notes","method":"GET","path":"/ping"}'
CLAUDE_POST='{"destination":"claude","method":"POST","path":"/v1/messages","headers":{"content-type":"application/json","anthropic-version":"2023-06-01"},"body":{"model":"m"}}'
TWIN_PING='{"destination":"twin","method":"GET","path":"/ping"}'
# notes' answer to a ping, the connection kept open between requests.
KEPT='{"keep_alive": true, "routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}}}}'

# seen HOST: one line per request that reached HOST, the number of its
# connection and the secret it carried (a function: into a file for
# atf_check).
seen()
{
	sed -n 's/.*"Bearer \([^"]*\)".*"conn": \([0-9]*\)}$/\2 \1/p' \
	    "$SC_ROOT/$1.requests"
}

# spares: the request processes that logged themselves spare and were
# never given a destination (keepd -v's lines), alive or not.
spares()
{
	awk '/spare request process [0-9]+ ready/ {
		sub(/.*spare request process /, ""); sub(/ .*/, ""); s[$0] = 1 }
	    /: its request process [0-9]+$/ {
		sub(/.*: its request process /, ""); delete s[$0] }
	    END { for (p in s) print p }' "$SC_ROOT/log/keepd.log"
}

# spare: the spare that waits now, within 3 s.
spare()
{
	_i=0
	while [ $_i -lt 30 ]; do
		for _p in $(spares); do
			[ "$(ps -o ppid= -p "$_p" | tr -d ' ')" = "$(sc_pid keepd)" ] &&
			    { echo "$_p"; return 0; }
		done
		_i=$((_i + 1))
		sleep 0.1
	done
	return 1
}

# workers: keepd's children but its spare, at work or warm.
workers()
{
	_s=" $(spares | tr '\n' ' ') "
	for _p in $(pgrep -P "$(sc_pid keepd)"); do
		case $_s in
		*" $_p "*)	;;
		*)		echo "$_p" ;;
		esac
	done
}

# none_failed DAEMON...: no process of theirs was killed or failed, by
# their logs.
none_failed()
{
	for _d; do
		if grep -E "killed by signal|exited [0-9]" "$SC_ROOT/log/$_d.log"
		then
			atf_fail "a process of $_d was killed or failed"
		fi
	done
}

# children: how many processes keepd has at work or warm.
children()
{
	workers | wc -l
}

# sandboxed PID: PID is under seccomp (mode 2) with two filters, keepd's
# and its own, and logged its Landlock ruleset's ABI as it went spare.
sandboxed()
{
	atf_check -o inline:"2\n2\n" awk '/^Seccomp(_filters)?:/ { print $2 }' \
	    "/proc/$1/status"
	grep -Eq "spare request process $1 ready: landlock ABI [1-9][0-9]*, seccomp filter on\$" \
	    "$SC_ROOT/log/keepd.log" || { sc_log keepd; atf_fail "$1: no ruleset"; }
}

# holds_none PID: PID holds none of the secrets in its memory or its
# environment, and no descriptor of the secrets folder.
holds_none()
{
	atf_check -s exit:1 python3 "$(sc_srcdir)/regress/keepd/holds.py" \
	    "$1" "$NOTES_SECRET" "$TWIN_SECRET" "$CLAUDE_SECRET"
	atf_check -s exit:1 python3 "$(sc_srcdir)/regress/keepd/holds.py" -f \
	    "$1" "$SC_SECRETS"
}

# children_gone: keepd's children are gone within 3 s.
children_gone()
{
	_i=0
	while [ "$(children)" -ne 0 ]; do
		_i=$((_i + 1))
		[ $_i -gt 30 ] && return 1
		sleep 0.1
	done
	return 0
}

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

atf_test_case warm_reuse cleanup
warm_reuse_head()
{
	atf_set "descr" "a second and a third request to a destination within its idle limit go on the connection the first opened, one tunnel for all, each through keep.sock anew; the control, a host that closes after each answer, sees a connection each"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_reuse_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:'^body ."waiting": 3' $ASK "$GET_PING" "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n1 $NOTES_SECRET\n1 $NOTES_SECRET\n" cat seen
	atf_check -o inline:"1\n" grep -c "tunnel notes: notes.example.com:443 via 198.20.5.10$" "$SC_ROOT/log/gated.log"
	[ "$(grep -c '^keepd: notes GET /ping 200$' "$SC_ROOT/log/keepd.log")" -eq 3 ] ||
	    { sc_log keepd; atf_fail "not three log lines"; }
	# Control: the same host, closing after each answer from now on.
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}}}}'
	for i in 1 2 3; do
		atf_check -o match:"^status 200" $ASK "$GET_PING"
	done
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $NOTES_SECRET\n3 $NOTES_SECRET\n" tail -n 3 seen
}
warm_reuse_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_closed cleanup
warm_closed_head()
{
	atf_set "descr" "a kept connection the destination closed before the request, or after it but before a byte of the answer, is replaced and the request answered; one that closes once the answer began fails the request, which is not sent again"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_closed_body()
{
	keep_up
	# Closed after the answer, with no word: the next request finds it so.
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}}}}'
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	# Kept, but closed once the next request came, before any answer.
	sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"status": 200, "close_reused": true, "json": {"waiting": 3}}}}'
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:'^body ."waiting": 3' $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $NOTES_SECRET\n3 $NOTES_SECRET\n3 $NOTES_SECRET\n4 $NOTES_SECRET\n" cat seen
	# Kept, then closed half-way through the next answer: refused, once.
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"raw": "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf"}}}'
	atf_check -o match:"^refused http " $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"4 $NOTES_SECRET\n4 $NOTES_SECRET\n" tail -n 2 seen
	atf_check -o inline:"7\n" grep -c . seen
	none_failed keepd
}
warm_closed_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_stray_bytes cleanup
warm_stray_bytes_head()
{
	atf_set "descr" "a kept connection that brought bytes no request asked for after its answer is not used again, and none of them reaches the next connection, whose handshake reads what the request process has read ahead: the next request is answered on a connection of its own; the control, the same answer without them, shares one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_stray_bytes_body()
{
	keep_up
	# Three TLS records after the answer: one is read to find the
	# connection not idle, the others wait, read ahead.
	sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}, "after": ["stray one", "stray two", "stray three"]}}}'
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sleep 0.2
	atf_check -o match:'^body ."waiting": 3' $ASK "$GET_PING"
	# Control: without them the next two share a connection.
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $NOTES_SECRET\n3 $NOTES_SECRET\n3 $NOTES_SECRET\n" cat seen
	none_failed keepd
}
warm_stray_bytes_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_connection_close cleanup
warm_connection_close_head()
{
	atf_set "descr" "an answer with Connection: close leaves no warm request process, even from a host that keeps the connection open after it: the next request opens its own; the control, the same answers without it, share one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_connection_close_body()
{
	keep_up
	sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"status": 200, "headers": {"Connection": "close"}, "json": {"waiting": 3}}}}'
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	children_gone || atf_fail "a request process is left after Connection: close"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	# Control: without it, the next two share a connection.
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	[ "$(children)" -eq 1 ] || atf_fail "keepd has $(children) children, not 1"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $NOTES_SECRET\n3 $NOTES_SECRET\n3 $NOTES_SECRET\n" cat seen
}
warm_connection_close_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_other_destination cleanup
warm_other_destination_head()
{
	atf_set "descr" "a warm request process serves its own destination alone: twin, on notes' very address, gets a process and a connection of its own with its own secret, and notes' warm one still serves notes"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_other_destination_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	for env in "$GET_PING" "$TWIN_PING" "$GET_PING" "$TWIN_PING"; do
		atf_check -o match:"^status 200" $ASK "$env"
	done
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $TWIN_SECRET\n1 $NOTES_SECRET\n2 $TWIN_SECRET\n" cat seen
	[ "$(children)" -eq 2 ] || atf_fail "keepd has $(children) children, not 2"
}
warm_other_destination_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_idle cleanup
warm_idle_head()
{
	atf_set "descr" "a warm request process not asked within its idle limit (5 s) is gone, and the next request opens a new connection; the control, asked within it, is served on the kept one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_idle_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	[ "$(children)" -eq 1 ] || atf_fail "keepd has $(children) children, not 1"
	sleep 2
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sleep 5
	children_gone || atf_fail "the warm request process is still there"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n1 $NOTES_SECRET\n2 $NOTES_SECRET\n" cat seen
}
warm_idle_cleanup()
{
	sc_net_cleanup
}

atf_test_case warm_secret cleanup
warm_secret_head()
{
	atf_set "descr" "a secret replaced between two requests is the one the second carries, on the connection the warm request process kept; the control is the first, with the old one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_secret_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sc_secret notes tok-second-99
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n1 tok-second-99\n" cat seen
	# A broken one stops the request, warm process or not.
	: > "$SC_SECRETS/notes"
	atf_check -o inline:"refused secret unusable secret: notes\n" $ASK "$GET_PING"
	atf_check -o inline:"2\n" grep -c . "$SC_ROOT/notes.example.com.requests"
}
warm_secret_cleanup()
{
	sc_net_cleanup
}

# stop_continue PID: PID and each of its own processes below it (keepd's
# or gated's, not pasta) stopped, then continued, as a debugger or a
# job control would.
stop_continue()
{
	for _p in "$1" $(pgrep -P "$1" -x keepd) $(pgrep -P "$1" -x gated); do
		kill -STOP "$_p" && sleep 0.3 && kill -CONT "$_p"
	done
}

# inject PID CALL: CALL (a C expression of libc's) made inside the
# running process PID by a debugger, as an attacker who took it would;
# prints what it returned, or nothing when the process died of it.
inject()
{
	gdb -p "$1" -batch -nx -ex "print (int)$2" 2>/dev/null |
	    sed -n 's/^\$1 = \(-*[0-9]*\)$/\1/p'
}

atf_test_case taken_child cleanup
taken_child_head()
{
	atf_set "descr" "T1: a running request's child, made by a debugger to call socket(2) as a taken one would to reach keep.sock, is killed by its filter (SIGSYS, in keepd's log) and the request fails; the control, the same call made in keepd, gets a socket; the next request goes on"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
	atf_set "timeout" "60"
}
taken_child_body()
{
	keep_up
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"delay": 4, "status": 200, "body": "late"}}}'
	$ASK "$GET_PING" > answer 2>&1 &
	asked=$!
	sleep 1.5
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
	atf_set "timeout" "60"
}
stopped_mid_poll_body()
{
	keep_up
	sc_scenario notes.example.com '{"routes": {"/api/worker/ping": {"delay": 4, "status": 200, "body": "late"}}}'
	# Control: the slow answer, not stopped.
	atf_check -o match:"^body late\$" $ASK "$GET_PING"
	$ASK "$GET_PING" > answer 2>&1 &
	asked=$!
	sleep 1.5
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

atf_test_case warm_capability cleanup
warm_capability_head()
{
	atf_set "descr" "R2: a capability's request (claude's) is never sent twice: its connection is not kept after the answer, so a connection the API closes quietly is never the reason for a second POST; two requests take two connections, one each, and no process stays warm; the control, a source on the same kind of host, shares one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_capability_body()
{
	keep_up
	# Kept open after each answer, and closed when a kept one is used
	# again before any answer: the case that once sent a request twice.
	sc_scenario api.anthropic.com '{"keep_alive": true, "routes": {"/v1/messages": {"status": 200, "close_reused": true, "json": {"type": "message"}}}}'
	for i in 1 2; do
		atf_check -o match:"^status 200" $ASK "$CLAUDE_POST"
		children_gone || atf_fail "a request process stayed after claude's answer"
	done
	sed -n 's/.*"conn": \([0-9]*\)}$/\1/p' "$SC_ROOT/api.anthropic.com.requests" > conns
	atf_check -o inline:"1\n2\n" cat conns
	# Control: notes, kept, shares one connection for two.
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n1 $NOTES_SECRET\n" cat seen
}
warm_capability_cleanup()
{
	sc_net_cleanup
}

atf_test_case code_given_back cleanup
code_given_back_head()
{
	atf_set "descr" "keepd gives back its mappings of libcrypto's and libssl's code once its TLS contexts are made: the kernel counts none of their code's pages mapped in keepd (Rss in smaps), before a request and after one; the control, the warm request process that made the TLS connection, maps libcrypto's code, and keepd maps libc's"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
# code_kib PID LIB: the KiB of LIB's code (its r-x mappings) PID maps.
code_kib()
{
	awk -v lib="$2" '
	    /^[0-9a-f]+-[0-9a-f]+ / { code = ($2 ~ /x/) && index($0, lib) > 0; next }
	    code && $1 == "Rss:" { kib += $2 }
	    END { print kib + 0 }' "/proc/$1/smaps"
}
code_given_back_body()
{
	keep_up
	spare >/dev/null || atf_fail "keepd is not ready"
	k=$(sc_pid keepd)
	for lib in libcrypto.so libssl.so; do
		[ "$(code_kib "$k" $lib)" -eq 0 ] ||
		    atf_fail "keepd maps $(code_kib "$k" $lib) KiB of $lib's code"
	done
	[ "$(code_kib "$k" libc.so)" -gt 0 ] || atf_fail "keepd maps no libc code"
	sc_scenario notes.example.com "$KEPT"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	w=$(workers)
	[ -n "$w" ] || atf_fail "no warm request process"
	[ "$(code_kib "$w" libcrypto.so)" -gt 0 ] ||
	    atf_fail "the request process maps no libcrypto code"
	[ "$(code_kib "$k" libcrypto.so)" -eq 0 ] ||
	    atf_fail "keepd maps libcrypto's code after the request"
}
code_given_back_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare_ready cleanup
spare_ready_head()
{
	atf_set "descr" "T1: a spare request process waits before any request, under its own filter on keepd's and its Landlock ruleset, with no secret in its memory or environment and no descriptor of the secrets folder; the control, keepd itself, holds the folder"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
spare_ready_body()
{
	keep_up
	sp=$(spare) || { sc_log keepd; atf_fail "no spare request process"; }
	sandboxed "$sp"
	holds_none "$sp"
	atf_check -o match:"^$SC_SECRETS fd " python3 \
	    "$(sc_srcdir)/regress/keepd/holds.py" -f "$(sc_pid keepd)" "$SC_SECRETS"
	[ "$(children)" -eq 0 ] || atf_fail "keepd has $(children) children at work"
}
spare_ready_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare_taken cleanup
spare_taken_head()
{
	atf_set "descr" "T1: a cold request takes the spare that waited and a new one is made after it, holding no secret though one was read: notes' request goes to the first spare, twin's to the second, each then warm, never one process for both; the control, a process at work on a slow answer, holds its secret and the scan finds it"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
spare_taken_body()
{
	keep_up
	sc_scenario notes.example.com "$KEPT"
	first=$(spare) || atf_fail "no spare before the first request"
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	sc_wait_log keepd "notes: its request process $first\$" 1 ||
	    { sc_log keepd; atf_fail "notes' request did not go to the spare"; }
	second=$(spare) || atf_fail "no spare after the first request"
	[ "$second" != "$first" ] || atf_fail "the spare was used again"
	holds_none "$second"
	atf_check -o match:"^status 200" $ASK "$TWIN_PING"
	sc_wait_log keepd "twin: its request process $second\$" 1 ||
	    { sc_log keepd; atf_fail "twin's request did not go to the spare"; }
	third=$(spare) || atf_fail "no spare after the second request"
	[ "$third" != "$first" ] && [ "$third" != "$second" ] ||
	    atf_fail "a spare was used again"
	holds_none "$third"
	workers | sort -n > workers
	printf '%s\n' "$first" "$second" | sort -n > expected
	atf_check -o file:expected cat workers
	seen notes.example.com > seen
	atf_check -o inline:"1 $NOTES_SECRET\n2 $TWIN_SECRET\n" cat seen
	# Control: notes' warm process at work on a slow answer holds its secret.
	sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"delay": 6, "status": 200, "body": "late"}}}'
	$ASK "$GET_PING" > answer 2>&1 &
	asked=$!
	# Looked at once the host has the request, in the answer's delay:
	# not after a fixed wait, which a loaded machine outruns.
	_i=0
	while [ "$(wc -l < "$SC_ROOT/notes.example.com.requests")" -lt 3 ]; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && atf_fail "the third request never reached notes"
		sleep 0.1
	done
	atf_check -o match:"^$NOTES_SECRET memory\$" python3 \
	    "$(sc_srcdir)/regress/keepd/holds.py" "$first" "$NOTES_SECRET"
	wait "$asked"
	atf_check -o match:"^body late\$" cat answer
	holds_none "$third"
}
spare_taken_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare_lost cleanup
spare_lost_head()
{
	atf_set "descr" "a spare that ends untaken is replaced, twice (the controls); after three in a row none is made, so that a crash loop does not spin; the next request forks its own process and is answered, and a spare waits after it"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
spare_lost_body()
{
	keep_up
	for i in 1 2 3; do
		sp=$(spare) || { sc_log keepd; atf_fail "no spare $i"; }
		kill -KILL "$sp"
		sc_wait_log keepd "the spare request process $sp ended untaken\$" 5 ||
		    { sc_log keepd; atf_fail "spare $i's end not seen"; }
	done
	spare && { sc_log keepd; atf_fail "a fourth spare was made"; }
	atf_check -o match:"^status 200" $ASK "$GET_PING"
	spare > /dev/null || { sc_log keepd; atf_fail "no spare after the request"; }
}
spare_lost_cleanup()
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
	atf_add_test_case warm_reuse
	atf_add_test_case warm_closed
	atf_add_test_case warm_stray_bytes
	atf_add_test_case warm_capability
	atf_add_test_case stopped_mid_poll
	atf_add_test_case taken_child
	atf_add_test_case warm_connection_close
	atf_add_test_case warm_other_destination
	atf_add_test_case warm_idle
	atf_add_test_case warm_secret
	atf_add_test_case code_given_back
	atf_add_test_case spare_ready
	atf_add_test_case spare_taken
	atf_add_test_case spare_lost
}
