#! /usr/bin/env atf-sh
# keepd's request processes between requests: a spare before its first
# request, warm between requests of its destination, and what each holds
# (keep.subr's keep_up, as t_keep.sh).  Their steps between two requests
# must end within a warm process's 5 s (fetcher.h WARM_IDLE_SECONDS), which
# a machine make test keeps busy outlasts: warm_up runs each case, and all
# it starts, ahead of the cases beside it (helpers.subr's sc_favour, as
# t_gate.sh's spare_quiet).

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"
. "$(atf_get_srcdir)/keep.subr"

warm_up()
{
	sc_favour
	keep_up
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
	warm_up
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
	warm_up
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
	warm_up
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
	warm_up
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
	warm_up
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
	warm_up
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
	warm_up
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

atf_test_case warm_capability cleanup
warm_capability_head()
{
	atf_set "descr" "R2: a capability's request (claude's) is never sent twice: its connection is not kept after the answer, so a connection the API closes quietly is never the reason for a second POST; two requests take two connections, one each, and no process stays warm; the control, a source on the same kind of host, shares one"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
warm_capability_body()
{
	warm_up
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
	warm_up
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
	warm_up
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
	warm_up
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
	reached notes.example.com 3
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
	warm_up
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
	atf_add_test_case warm_reuse
	atf_add_test_case warm_closed
	atf_add_test_case warm_stray_bytes
	atf_add_test_case warm_capability
	atf_add_test_case warm_connection_close
	atf_add_test_case warm_other_destination
	atf_add_test_case warm_idle
	atf_add_test_case warm_secret
	atf_add_test_case code_given_back
	atf_add_test_case spare_ready
	atf_add_test_case spare_taken
	atf_add_test_case spare_lost
}
