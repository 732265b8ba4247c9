#! /usr/bin/env atf-sh
# gated as the operator runs it, in the test network of net.subr: the
# gate's list, both barriers, the internal exception, the routes, who
# may use gate.sock, the request's limits, the end, and the resolver.
# The suite runs as root to make the namespaces; gated always runs as
# the test account, in the "host" namespace, with pasta of its own.

. "$(atf_get_srcdir)/../lib/helpers.subr"
. "$(atf_get_srcdir)/../lib/net.subr"

BOGONS="0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 169.254.0.0/16 172.16.0.0/12
192.0.0.0/24 192.0.2.0/24 192.88.99.0/24 192.168.0.0/16 198.18.0.0/15
198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4"

# source NAME ADDRESS [INTERNAL]: one source file of the fixture.
source_file()
{
	{
		echo "name: $1"
		echo "destination:"
		echo "  address: $2"
		echo "  secret: $1"
		[ -n "${3:-}" ] && echo "  internal: $3"
		echo "poll_interval: 30s"
		echo "capabilities: [claude]"
		echo "max_jobs_per_hour: 30"
		echo "job_timeout: 6m"
	} > "$SC_CONFIG/sources/$1.yaml"
}

# write_config [nolan]: claude, four public sources and, unless nolan,
# lan with its internal exception to 192.168.77.20:8443.
write_config()
{
	cat > "$SC_CONFIG/config.yaml" <<-EOT
	data_dir: ~/jobs
	capabilities:
	  claude:
	    destination:
	      address: https://api.anthropic.com
	      secret: claude
	    model: claude-sonnet-4-5
	EOT
	for n in notes rebind mixed metadata; do
		source_file "$n" "https://$n.example.com"
	done
	[ "${1:-}" = nolan ] ||
	    source_file lan http://lan.home.arpa:8443 192.168.77.20:8443
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
}

# gate_net [nolan]: the tree, the network, the fixture and the test
# hosts: notes in the world (198.20.5.10:443), and on the private host
# lan (192.168.77.20:8443) and private (192.168.77.20:443).  Plain
# HTTP: the gate relays bytes, TLS is keepd's.
gate_net()
{
	sc_setup
	sc_net_up
	write_config "${1:-}"
	sc_scenario notes '{"default": {"status": 200, "body": "notes here"}}'
	sc_fakehost notes "$SC_NS_WORLD" 198.20.5.10 443
	sc_scenario lan '{"default": {"status": 200, "body": "lan here"}}'
	sc_fakehost lan "$SC_NS_LAN" 192.168.77.20 8443
	sc_scenario private '{"default": {"status": 200, "body": "private"}}'
	sc_fakehost private "$SC_NS_LAN" 192.168.77.20 443
	gate_vars
}

# gate_vars: command words for atf_check, which runs programs, not
# functions: the test client as the account in the host namespace, and
# as another account.
gate_vars()
{
	GATE_SOCK=$SC_RUN/sandcastle/gate.sock
	AS_HOST="ip netns exec $SC_NS_HOST setpriv --reuid=$SC_USER"
	AS_HOST="$AS_HOST --regid=$SC_USER --init-groups --inh-caps=-all --"
	AS_HOST="$AS_HOST env -i HOME=$SC_HOME PATH=/usr/bin:/bin LC_ALL=C.UTF-8"
	AS_OTHER="setpriv --reuid=$SC_OTHER --regid=$SC_OTHER --init-groups"
	AS_OTHER="$AS_OTHER --inh-caps=-all -- env -i HOME=/nonexistent"
	AS_OTHER="$AS_OTHER PATH=/usr/bin:/bin LC_ALL=C.UTF-8"
	CLIENT="python3 $(sc_srcdir)/regress/gated/gateclient.py $GATE_SOCK"
	GC="$AS_HOST $CLIENT"
	PROBE="python3 $(sc_srcdir)/regress/gated/connprobe.py"
}

# home_net [noself] [ADDRESS/LEN ROUTER NAS PRINTER]: a home network
# (sc_home_up) with claude, a public source (notes), sources named after
# the home hosts (printer, router, nas: each name resolves to its host),
# metadata, and internal exceptions: files on the NAS at port 8443 and,
# unless noself, scans on this machine's own address at port 8080, as
# GETTING STARTED has it.  Each host answers with its name.
home_net()
{
	_self=1
	[ "${1:-}" = noself ] && { _self=; shift; }
	sc_setup
	sc_home_up "$@"
	write_config nolan
	for n in printer router nas; do
		source_file "$n" "https://$n.example.com"
	done
	source_file files http://files.home.arpa:8443 "$SC_NAS:8443"
	[ -n "$_self" ] && source_file scans http://scans.home.arpa:8080 \
	    "$SC_HOME_ADDR:8080"
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	for h in "notes $SC_NS_WORLD 198.20.5.10 443" \
	    "printer $SC_NS_LAN $SC_PRINTER 443" \
	    "router $SC_NS_ROUTER $SC_ROUTER 443" \
	    "nas $SC_NS_LAN $SC_NAS 443" "files $SC_NS_LAN $SC_NAS 8443" \
	    "scans $SC_NS_HOST $SC_HOME_ADDR 8080"; do
		set -- $h
		sc_scenario "$1" "{\"default\": {\"status\": 200, \"body\": \"$1 here\"}}"
		sc_fakehost "$1" "$2" "$3" "$4"
	done
	gate_vars
}

# probe_gate ARGS...: connprobe.py in the gate's network namespace.
probe_gate()
{
	nsenter -t "$(sc_pid "$GATE")" -n $PROBE "$@"
}

# all_refused FILE: every line of a probe's output is EACCES.
all_refused()
{
	if grep -v " EACCES$" "$1"; then
		atf_fail "not refused with EACCES by the gate's routes (above)"
	fi
}

# run_gate PROGRAM NAME ARGS...: PROGRAM as the account in the host
# namespace, in the foreground, logging to log/NAME.log.
run_gate()
{
	_prog=$1 _name=$2; shift 2
	: > "$SC_ROOT/log/$_name.log"
	ip netns exec "$SC_NS_HOST" setpriv --reuid="$SC_USER" \
	    --regid="$SC_USER" --init-groups --inh-caps=-all \
	    -- env -i HOME="$SC_HOME" XDG_RUNTIME_DIR="$SC_RUN" \
	    PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C.UTF-8 ${SC_ENV:-} \
	    "$_prog" "$@" >"$SC_ROOT/log/$_name.log" 2>&1 &
	echo $! > "$SC_ROOT/log/$_name.pid"
}

# gate_start [nocheck]: gated (or gated-nocheck) -dv, serving.
gate_start()
{
	if [ "${1:-}" = nocheck ]; then
		GATE=gated-nocheck
		run_gate "$(atf_config_get prefix)/libexec/gated-nocheck" \
		    "$GATE" -dv -c "$SC_CONFIG"
	else
		GATE=gated
		sc_start_in_host gated -dv -c "$SC_CONFIG"
	fi
	sc_wait_log "$GATE" "serving " 15 ||
	    { sc_log "$GATE"; atf_fail "$GATE does not serve"; }
}

# expect_requests NAME N: test host NAME got exactly N GETs.
expect_requests()
{
	_n=$(grep -c '"method": "GET"' "$SC_ROOT/$1.requests")
	[ "$_n" = "$2" ] ||
	    atf_fail "$1 got $_n GET(s), not $2: $(cat "$SC_ROOT/$1.requests")"
}

# pasta_of NAME: the pasta that program NAME started, if one runs.
# (pasta runs as passt.avx2, and podman's pastas run as the account too.)
pasta_of()
{
	pgrep -u "$SC_USER" -f "^pasta --no-map-gw .* $(sc_pid "$1")\$"
}

requests()
{
	grep -c '"method": "GET"' "$SC_ROOT/$1.requests"
}

# gate_spare [OLD]: the spare tunnel process that waits now, the last
# gated -dv logged ready, alive and not OLD, within 3 s.
gate_spare()
{
	_i=0
	while [ $_i -lt 30 ]; do
		_p=$(sed -n 's/.*spare tunnel process \([0-9]*\) ready.*/\1/p' \
		    "$SC_ROOT/log/gated.log" | tail -n 1)
		[ -n "$_p" ] && [ "$_p" != "${1:-}" ] &&
		    [ "$(ps -o ppid= -p "$_p" | tr -d ' ')" = "$(sc_pid gated)" ] &&
		    { echo "$_p"; return 0; }
		_i=$((_i + 1))
		sleep 0.1
	done
	return 1
}

# wakes PID SECS: how many times PID went to sleep and woke in SECS
# seconds, as the kernel counts them (its voluntary context switches).
wakes()
{
	_w0=$(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$1/status")
	sleep "$2"
	_w1=$(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$1/status")
	echo $((_w1 - _w0))
}

# alive PID: PID runs, not a zombie.
alive()
{
	[ -n "$(ps -o stat= -p "$1" | grep -v Z)" ]
}


atf_test_case list cleanup
list_head()
{
	atf_set "descr" "N1: a listed name and port reaches its test host; another name, another port and an IP literal in any spelling are refused"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
list_body()
{
	gate_net
	gate_start
	# The control: the tunnel opens and the GET reaches the test host.
	atf_check -o match:"^status: HTTP/1.1 200 Connection established" \
	    -o match:"^answer: HTTP/1.1 200 OK" -o match:"^body: notes here" \
	    $GC notes.example.com:443
	expect_requests notes 1
	grep -q "tunnel notes: notes.example.com:443 via 198.20.5.10" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no tunnel line"; }
	for t in other.example.com:443 notes.example.com:444 \
	    api.anthropic.com:80; do
		atf_check -o match:"^status: HTTP/1.1 403 Forbidden" \
		    -o match:"^refusal: the name is not on the gate's list" \
		    $GC "$t"
	done
	for t in 198.20.5.10:443 3323200778:443 0xc6.0x14.5.10:443 \
	    0306.024.05.012:443 198.20.1290:443 198.20.5.10.:443 \
	    '[::ffff:198.20.5.10]:443'; do
		atf_check -o match:"^refusal: the request names an IP literal" \
		    $GC "$t"
	done
	# Not one of them reached the test host.
	expect_requests notes 1
}
list_cleanup()
{
	sc_net_cleanup
}

atf_test_case refused_port cleanup
refused_port_head()
{
	atf_set "descr" "a listed port that refuses connections: through the pasta of Debian 12 the gate cannot see the refusal, and its 502 says so, naming no answer and why; through a newer pasta it says Connection refused (gated(8)); the control, the same host's open port, answers 200"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
refused_port_body()
{
	gate_net
	source_file gone https://notes.example.com:8444
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	# The port refuses: from the host namespace, at once.
	atf_check -o inline:"refused\n" $AS_HOST python3 -c '
import socket
try:
	socket.create_connection(("198.20.5.10", 8444), 5); print("open")
except ConnectionRefusedError:
	print("refused")'
	gate_start
	atf_check -o match:"^status: HTTP/1.1 502 Bad Gateway" \
	    -o match:"^error: connect 198.20.5.10:8444: (no answer in 10 s \(through pasta, a port that refuses the connection looks the same\)|Connection refused)$" \
	    $GC notes.example.com:8444
	atf_check -o match:"^status: HTTP/1.1 200 Connection established" \
	    -o match:"^body: notes here" $GC notes.example.com:443
}
refused_port_cleanup()
{
	sc_net_cleanup
}

atf_test_case first_barrier cleanup
first_barrier_head()
{
	atf_set "descr" "N2 S3: names on the list that resolve inside, partly inside or to link-local are refused after resolving, recorded and logged once; nothing sent early is forwarded"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
first_barrier_body()
{
	gate_net
	gate_start
	atf_check -o match:"^status: HTTP/1.1 403 Forbidden" \
	    -o match:"^refusal: the name resolves to the internal network$" \
	    $GC --early rebind.example.com:443
	atf_check -o inline:"1\n" grep -c \
	    "refused rebind: rebind.example.com:443 192.168.77.20: the name resolves to the internal network" \
	    "$SC_ROOT/log/gated.log"
	atf_check -o match:"^[0-9]+ rebind rebind.example.com 443 192.168.77.20 internal$" \
	    cat "$SC_HOME/.local/state/sandcastle/gate-refusals"
	atf_check -o match:"^refusal: the name resolves partly to the internal network" \
	    $GC --early mixed.example.com:443
	atf_check -o match:"^refusal: the name resolves to a sealed address \(link-local\)" \
	    $GC metadata.example.com:443
	atf_check -o inline:"3\n" grep -c . \
	    "$SC_HOME/.local/state/sandcastle/gate-refusals"
	# The GET sent with the refused CONNECTs reached no host.
	expect_requests private 0
	expect_requests notes 0
	# The control: sent early to an allowed name, it is forwarded.
	atf_check -o match:"^status: HTTP/1.1 200" -o match:"^body: notes here" \
	    $GC --early notes.example.com:443
	expect_requests notes 1
}
first_barrier_cleanup()
{
	sc_net_cleanup
}

atf_test_case second_barrier cleanup
second_barrier_head()
{
	atf_set "descr" "N3: without the address check, the prohibit routes still refuse the private host and link-local with EACCES; a public host still works"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
second_barrier_body()
{
	# No exception here: its /32 would open 192.168.77.20.
	gate_net nolan
	# The control: the host namespace itself reaches the private host.
	atf_check -o inline:"private\n" $AS_HOST python3 -c \
	    'import urllib.request as u; print(u.urlopen("http://192.168.77.20:443/").read().decode())'
	gate_start nocheck
	atf_check -o match:"^status: HTTP/1.1 502 Bad Gateway" \
	    -o match:"^error: connect 192.168.77.20:443: Permission denied$" \
	    $GC --early rebind.example.com:443
	atf_check -o match:"^error: connect 169.254.169.254:443: Permission denied$" \
	    $GC metadata.example.com:443
	# Only the control's GET reached the private host.
	expect_requests private 1
	atf_check -o match:"^status: HTTP/1.1 200" -o match:"^body: notes here" \
	    $GC notes.example.com:443
}
second_barrier_cleanup()
{
	sc_net_cleanup
}

atf_test_case internal_exception cleanup
internal_exception_head()
{
	atf_set "descr" "N4: lan.home.arpa:8443 reaches exactly 192.168.77.20:8443 through its /32 route; another name on that address is still refused"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
internal_exception_body()
{
	gate_net
	gate_start
	atf_check -o match:"^status: HTTP/1.1 200" -o match:"^body: lan here" \
	    $GC lan.home.arpa:8443
	expect_requests lan 1
	grep -q "tunnel lan: lan.home.arpa:8443 via 192.168.77.20" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no tunnel line"; }
	atf_check -o match:"^192.168.77.20 via 169.254.77.1 dev egress " \
	    nsenter -t "$(sc_pid gated)" -n ip -4 route show
	atf_check -o match:"^refusal: the name resolves to the internal network" \
	    $GC --early rebind.example.com:443
	expect_requests private 0
	# The exception is for its name and port only.
	atf_check -o match:"^refusal: the name is not on the gate's list" \
	    $GC lan.home.arpa:443
}
internal_exception_cleanup()
{
	sc_net_cleanup
}

atf_test_case no_echo cleanup
no_echo_head()
{
	atf_set "descr" "pasta runs with --no-icmp: an ICMP echo from the gate's namespace to a host it reaches by TCP is not passed on, where the machine, pinging as an operator's Debian lets any account, gets its reply"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
no_echo_body()
{
	gate_net
	# Debian's systemd lets every group ping; a new namespace lets none.
	ip netns exec "$SC_NS_HOST" sysctl -q -w \
	    net.ipv4.ping_group_range="0 2147483647"
	gate_start
	# The control: the account, from the machine, gets the host's reply.
	atf_check -o inline:"198.20.5.10 echo reply\n" $AS_HOST $PROBE \
	    echo:198.20.5.10
	probe_gate 198.20.5.10:443 echo:198.20.5.10 > probe.out
	atf_check -o inline:"198.20.5.10:443 connected\n198.20.5.10 echo none\n" \
	    cat probe.out
}
no_echo_cleanup()
{
	sc_net_cleanup
}

atf_test_case routes cleanup
routes_head()
{
	atf_set "descr" "N3 N6: the gate's namespace holds the fourteen prohibit routes and a /32 for the machine's public address and router, and a gate missing one refuses to serve, naming the address the lookup let through"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
routes_body()
{
	gate_net
	gate_start
	nsenter -t "$(sc_pid gated)" -n ip -4 route show > routes
	for r in $BOGONS; do
		grep -q "^prohibit $r " routes ||
		    { cat routes; atf_fail "no prohibit route for $r"; }
	done
	# This machine's public address and its router, each a /32 of its own.
	atf_check -o inline:"16\n" grep -c "^prohibit " routes
	atf_check -o ignore grep "^prohibit 198.20.5.2 " routes
	atf_check -o ignore grep "^prohibit 198.20.5.1 " routes
	sc_stop gated
	atf_check -o inline:"0\n" echo "$SC_STATUS"
	# The control: gated-nocheck serves with every route...
	gate_start nocheck
	sc_stop gated-nocheck
	# ...and with one left out, it refuses to serve.
	SC_ENV="GATE_TEST_SKIP_ROUTE=192.168.0.0/16"
	run_gate "$(atf_config_get prefix)/libexec/gated-nocheck" skip \
	    -d -c "$SC_CONFIG"
	_st=0; wait "$(sc_pid skip)" || _st=$?
	SC_ENV=
	atf_check -o inline:"1\n" echo "$_st"
	atf_check -o match:"the gate's network: 192.168.0.0 \(the first of 192.168.0.0/16\) is answered by default via 169.254.77.1 dev egress, not prohibit: refusing to serve" \
	    cat "$SC_ROOT/log/skip.log"
	[ -z "$(pasta_of skip)" ] || atf_fail "the gate left its pasta"
	atf_check -s exit:1 test -e "$GATE_SOCK"
}
routes_cleanup()
{
	sc_net_cleanup
}

atf_test_case accounts cleanup
accounts_head()
{
	atf_set "descr" "A4: another account cannot reach gate.sock, and with the folder opened its uid is refused; the operator is served"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
accounts_body()
{
	gate_net
	gate_start
	atf_check -o inline:"600\n" stat -c %a "$GATE_SOCK"
	atf_check -s exit:1 -o inline:"connect: Permission denied\n" \
	    $AS_OTHER $CLIENT notes.example.com:443
	# Opened for the test: the gate's own check is what is left.
	chmod 0711 "$SC_RUN" "$SC_RUN/sandcastle"
	chmod 0666 "$GATE_SOCK"
	atf_check -o match:"^status: HTTP/1.1 403 Forbidden" \
	    -o match:"^error: not the gate's own user" \
	    $AS_OTHER $CLIENT notes.example.com:443
	grep -q "is not the gate's own" "$SC_ROOT/log/gated.log" ||
	    { sc_log gated; atf_fail "no log line for the other uid"; }
	expect_requests notes 0
	atf_check -o match:"^status: HTTP/1.1 200" $GC notes.example.com:443
	expect_requests notes 1
}
accounts_cleanup()
{
	sc_net_cleanup
}

atf_test_case request_limits cleanup
request_limits_head()
{
	atf_set "descr" "a request line over 512 bytes, 33 header lines and a client silent for 11 s are answered and closed; the limits themselves pass"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
	atf_set "timeout" "120"
}
request_limits_body()
{
	gate_net
	gate_start
	_a=$(printf 'a%.0s' $(seq 1 490))
	atf_check -o match:"^status: HTTP/1.1 400 Bad Request" \
	    -o match:"^error: request line over 512 bytes" \
	    $GC x --raw "CONNECT $_a:443 HTTP/1.1\\r\\n\\r\\n"
	# 512 bytes with its CRLF: read whole, then refused for its name.
	_a=${_a%a}
	atf_check -o match:"^error: not a DNS name" \
	    $GC x --raw "CONNECT $_a:443 HTTP/1.1\\r\\n\\r\\n"
	_h=$(printf 'X-A: b\\r\\n%.0s' $(seq 1 33))
	atf_check -o match:"^status: HTTP/1.1 400 Bad Request" \
	    -o match:"^error: over 32 header lines" \
	    $GC notes.example.com:443 --raw \
	    "CONNECT notes.example.com:443 HTTP/1.1\\r\\n$_h\\r\\n"
	_h=$(printf 'X-A: b\\r\\n%.0s' $(seq 1 32))
	atf_check -o match:"^status: HTTP/1.1 200" -o match:"^body: notes here" \
	    $GC notes.example.com:443 --raw \
	    "CONNECT notes.example.com:443 HTTP/1.1\\r\\n$_h\\r\\n"
	atf_check -o match:"^status: HTTP/1.1 408 Request Timeout" \
	    -o match:"^error: no whole request within 10 s" \
	    $GC notes.example.com:443 --silent 11
	# The control: silent for less than the limit, then served.
	atf_check -o match:"^status: HTTP/1.1 200" \
	    $GC notes.example.com:443 --silent 3
}
request_limits_cleanup()
{
	sc_net_cleanup
}

atf_test_case sigterm cleanup
sigterm_head()
{
	atf_set "descr" "SIGTERM ends gated with 0 and leaves no gated, no pasta and no gate.sock, also when it comes the moment gate.sock is bound; a second gate refuses to start beside a live one"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
sigterm_body()
{
	gate_net
	gate_start
	# The controls: while it runs, its pasta runs and the socket is there.
	[ -n "$(pasta_of gated)" ] || atf_fail "no pasta runs for gated"
	atf_check test -S "$GATE_SOCK"
	run_gate "$(sc_bin gated)" second -d -c "$SC_CONFIG"
	_st=0; wait "$(sc_pid second)" || _st=$?
	atf_check -o inline:"1\n" echo "$_st"
	atf_check -o match:"another gate is running" cat "$SC_ROOT/log/second.log"
	[ -z "$(pasta_of second)" ] || atf_fail "the second gate left a pasta"
	_pasta=$(pasta_of gated)
	sc_stop gated
	atf_check -o inline:"0\n" echo "$SC_STATUS"
	atf_check -s exit:1 -e ignore kill -0 "$_pasta"
	atf_check -s exit:1 -e ignore kill -0 "$(sc_pid gated)"
	atf_check -s exit:1 pgrep -u "$SC_USER" -f "gated -dv -c $SC_CONFIG"
	atf_check -s exit:1 test -e "$GATE_SOCK"
	# Killed outright, it leaves a stale socket, which the next removes.
	gate_start
	_pasta=$(pasta_of gated)
	[ -n "$_pasta" ] || atf_fail "no pasta runs for the second gated"
	kill -KILL "$(sc_pid gated)"
	wait "$(sc_pid gated)" 2>/dev/null
	# Its helper ends pasta once gated is gone: bounded, not timed.
	_i=0
	while kill -0 "$_pasta" 2>/dev/null && [ $_i -lt 30 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	atf_check -s exit:1 -e ignore kill -0 "$_pasta"
	atf_check -s exit:1 pgrep -u "$SC_USER" -f "gated -dv -c $SC_CONFIG"
	atf_check test -S "$GATE_SOCK"
	gate_start
	atf_check -o match:"^status: HTTP/1.1 200" $GC notes.example.com:443
	sc_stop gated
	# A SIGTERM the moment gate.sock is bound, while gated still starts
	# pasta: held until it serves, then the same clean end (a loop with
	# no sleep signals within microseconds of the bind).
	printf '%s\n' 'import os, signal, sys' \
	    'while not os.path.exists(sys.argv[2]):' '	pass' \
	    'os.kill(int(sys.argv[1]), signal.SIGTERM)' > kill_at.py
	sc_start_in_host gated -dv -c "$SC_CONFIG"
	python3 kill_at.py "$(sc_pid gated)" "$GATE_SOCK"
	sc_stop gated
	[ "$SC_STATUS" -eq 0 ] || { sc_log gated; atf_fail "exit $SC_STATUS"; }
	atf_check -s exit:1 test -e "$GATE_SOCK"
	atf_check -s exit:1 pgrep -u "$SC_USER" -f "gated -dv -c $SC_CONFIG"
	atf_check -s exit:1 pgrep -u "$SC_USER" -x pasta
}
sigterm_cleanup()
{
	sc_net_cleanup
}

atf_test_case loopback_resolver cleanup
loopback_resolver_head()
{
	atf_set "descr" "gated refuses to start when /etc/resolv.conf names only a loopback resolver, which its namespace cannot reach"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
loopback_resolver_body()
{
	gate_net
	echo "nameserver 127.0.0.53" > "/etc/netns/$SC_NS_HOST/resolv.conf"
	run_gate "$(sc_bin gated)" loop -d -c "$SC_CONFIG"
	_st=0; wait "$(sc_pid loop)" || _st=$?
	atf_check -o inline:"1\n" echo "$_st"
	atf_check -o match:"names only resolvers the gate's network cannot reach \(127.0.0.53" \
	    cat "$SC_ROOT/log/loop.log"
	[ -z "$(pasta_of loop)" ] || atf_fail "gated left its pasta"
	# The control: with the test's resolver, it serves.
	echo "nameserver 198.20.5.53" > "/etc/netns/$SC_NS_HOST/resolv.conf"
	gate_start
	atf_check -o match:"^status: HTTP/1.1 200" $GC notes.example.com:443
}
loopback_resolver_cleanup()
{
	sc_net_cleanup
}

atf_test_case home_second_barrier cleanup
home_second_barrier_head()
{
	atf_set "descr" "N3: on a home network (one interface on a private /24), without the address check, the kernel refuses another home host, the router and link-local with EACCES; a public host, the NAS's exception and the machine's own address by its exception still work"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
home_second_barrier_body()
{
	home_net
	# The controls: from the machine itself, every home host answers.
	for h in "$SC_PRINTER:443" "$SC_ROUTER:443" "$SC_NAS:443"; do
		atf_check -o match:" here$" $AS_HOST python3 -c \
		    "import urllib.request as u; print(u.urlopen('http://$h/').read().decode())"
	done
	gate_start nocheck
	for t in "printer $SC_PRINTER" "router $SC_ROUTER" \
	    "metadata 169.254.169.254"; do
		set -- $t
		atf_check -o match:"^status: HTTP/1.1 502 Bad Gateway" \
		    -o match:"^error: connect $2:443: Permission denied$" \
		    $GC --early "$1.example.com:443"
	done
	probe_gate --bogons "$SC_PRINTER:80" "$SC_ROUTER:53" > probe.out
	all_refused probe.out
	# Only the controls' GETs reached the home hosts.
	expect_requests printer 1
	expect_requests router 1
	# The NAS's exception opens its whole address at the second barrier
	# (sandcastle(7), O7): another port of it is reached, the gate's
	# list alone holds the port.
	atf_check -o match:"^body: nas here" $GC --early nas.example.com:443
	atf_check -o match:"^body: notes here" $GC notes.example.com:443
	atf_check -o match:"^body: files here" $GC files.home.arpa:8443
	atf_check -o match:"^body: scans here" $GC scans.home.arpa:8080
}
home_second_barrier_cleanup()
{
	sc_net_cleanup
}

atf_test_case home_exceptions cleanup
home_exceptions_head()
{
	atf_set "descr" "N2 N4 S3: on a home network, an internal exception reaches the machine's own address (GETTING STARTED's internal: 192.168.1.20:8080) and one to the NAS reaches it; the other home hosts, the router and another port stay refused by the gate"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
home_exceptions_body()
{
	home_net
	gate_start
	atf_check -o match:"^status: HTTP/1.1 200" -o match:"^body: scans here" \
	    $GC scans.home.arpa:8080
	grep -q "tunnel scans: scans.home.arpa:8080 via $SC_HOME_ADDR" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no tunnel line"; }
	atf_check -o match:"^body: files here" $GC files.home.arpa:8443
	for n in printer router nas; do
		atf_check -o match:"^status: HTTP/1.1 403 Forbidden" \
		    -o match:"^refusal: the name resolves to the internal network$" \
		    $GC --early "$n.example.com:443"
	done
	atf_check -o match:"^refusal: the name is not on the gate's list" \
	    $GC scans.home.arpa:22
	atf_check -o match:"^refusal: the name is not on the gate's list" \
	    $GC files.home.arpa:443
	expect_requests printer 0
	expect_requests router 0
	expect_requests nas 0
	expect_requests scans 1
	expect_requests files 1
}
home_exceptions_cleanup()
{
	sc_net_cleanup
}

# layout ADDRESS/LEN ROUTER NAS PRINTER: gated on a machine of that
# layout, with an exception to the NAS only: every bogon, the machine's
# own address, its router and the printer refused with EACCES in the
# gate's namespace, the NAS's exception and a public host reached, and
# names resolved by the router's DNS through pasta while the router
# itself is refused.  The routes and the lookups are printed for the
# record.
layout()
{
	home_net noself "$@"
	gate_start
	probe_gate --bogons "$SC_HOME_ADDR:443" "$SC_ROUTER:443" \
	    "$SC_ROUTER:53" "$SC_PRINTER:443" "169.254.77.1:443" \
	    "169.254.77.53:53" > probe.out
	all_refused probe.out
	probe_gate 198.20.5.10:443 "$SC_NAS:8443" > control.out
	atf_check -o inline:"198.20.5.10:443 connected\n$SC_NAS:8443 connected\n" \
	    cat control.out
	atf_check -o match:"^body: notes here" $GC notes.example.com:443
	atf_check -o match:"^body: files here" $GC files.home.arpa:8443
	echo "--- the gate's routes on $1 (router $2):"
	nsenter -t "$(sc_pid gated)" -n ip -4 route show
	nsenter -t "$(sc_pid gated)" -n ip -4 rule show
	nsenter -t "$(sc_pid gated)" -n ip -4 route show table 4750
	echo "--- what the lookups answered:"
	cat probe.out
	grep "route lookups" "$SC_ROOT/log/gated.log"
}

atf_test_case layout_home cleanup
layout_home_head()
{
	atf_set "descr" "N3 N6: the gate's namespace on a machine whose one interface is 192.168.1.20/24: nothing of the home /24 is copied, every bogon and the machine answer EACCES"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
layout_home_body()
{
	layout 192.168.1.20/24 192.168.1.1 192.168.1.30 192.168.1.31
}
layout_home_cleanup()
{
	sc_net_cleanup
}

atf_test_case layout_cgnat cleanup
layout_cgnat_head()
{
	atf_set "descr" "N3 N6: the gate's namespace on a machine with a CGNAT address, 100.64.12.34/10: every bogon and the machine answer EACCES"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
layout_cgnat_body()
{
	layout 100.64.12.34/10 100.64.0.1 100.64.12.40 100.64.12.41
}
layout_cgnat_cleanup()
{
	sc_net_cleanup
}

atf_test_case layout_ten cleanup
layout_ten_head()
{
	atf_set "descr" "N3 N6: the gate's namespace on a machine in 10/8, 10.1.2.3/8: every bogon and the machine answer EACCES"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
layout_ten_body()
{
	layout 10.1.2.3/8 10.0.0.1 10.1.2.30 10.1.2.31
}
layout_ten_cleanup()
{
	sc_net_cleanup
}

atf_test_case layout_172 cleanup
layout_172_head()
{
	atf_set "descr" "N3 N6: the gate's namespace on a machine in 172.16/12, 172.16.5.4/12: every bogon and the machine answer EACCES"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
layout_172_body()
{
	layout 172.16.5.4/12 172.16.0.1 172.16.5.30 172.16.5.31
}
layout_172_cleanup()
{
	sc_net_cleanup
}

atf_test_case resolver_load cleanup
resolver_load_head()
{
	atf_set "descr" "on a busy home machine (2% of its ephemeral UDP ports taken) whose resolver is the router, a thousand lookups through the gate, 24 at a time: none lost; controls: pasta drops a query from a port the machine holds and answers one from another, and a listed name that does not exist is counted unresolved each time"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
	atf_set "timeout" "600"
}
resolver_load_body()
{
	home_net noself
	source_file ghost https://ghost.example.com
	source_file closer https://closer.example.com
	chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
	sc_net_dns closer.example.com 198.20.5.13
	sc_closer closer "$SC_NS_WORLD" 198.20.5.13 443
	# A busy machine: pasta forwards a query from a host socket bound to
	# its source port, and drops it when the machine holds that port.
	ip netns exec "$SC_NS_HOST" python3 \
	    "$(sc_srcdir)/regress/gated/udpbusy.py" 565 "$SC_ROOT/busy.ports" &
	echo $! > "$SC_ROOT/log/udpbusy.pid"
	sc_wait_file "$SC_ROOT/busy.ports" 30 || atf_fail "udpbusy did not start"
	gate_start
	QUERY="python3 $(sc_srcdir)/regress/gated/dnsquery.py notes.example.com"
	probe_dns() { nsenter -t "$(sc_pid gated)" -n $QUERY "$1" 169.254.77.53; }
	probe_dns "$(head -n 1 "$SC_ROOT/busy.ports")" > busy.out
	probe_dns 20053 > free.out
	atf_check -o inline:"lost\n" cat busy.out
	atf_check -o inline:"answered\n" cat free.out
	LOAD="$AS_HOST python3 $(sc_srcdir)/regress/gated/dnsload.py $GATE_SOCK"
	$LOAD closer.example.com:443 1000 24 > load.out
	cat load.out
	atf_check -o match:"^lookups 1000 opened 1000 unresolved 0 other 0 " \
	    tail -n 1 load.out
	atf_check -o match:"^lookups 20 opened 0 unresolved 20 other 0 " \
	    $LOAD ghost.example.com:443 20 4
}
resolver_load_cleanup()
{
	sc_net_cleanup
}

atf_test_case ignored_sigpipe cleanup
ignored_sigpipe_head()
{
	atf_set "descr" "gated started with SIGPIPE ignored, as systemd starts every service (IgnoreSIGPIPE=), serves with its pasta: pasta is started with the signals of a new program"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
ignored_sigpipe_body()
{
	gate_net
	# What the shell ignores, the programs it starts inherit: the
	# control of the setup is a program started so.
	_ign=$( (trap '' PIPE; exec awk '/^SigIgn:/ { print $2 }' /proc/self/status) )
	[ $(( 0x$_ign & 0x1000 )) -ne 0 ] ||
	    atf_fail "a program started so does not have SIGPIPE ignored ($_ign)"
	(trap '' PIPE; run_gate "$(sc_bin gated)" gated -dv -c "$SC_CONFIG")
	sc_wait_log gated "serving " 15 ||
	    { sc_log gated; atf_fail "gated does not serve with SIGPIPE ignored"; }
	[ -n "$(pasta_of gated)" ] || atf_fail "no pasta runs for gated"
	atf_check -o match:"^status: HTTP/1.1 200" $GC notes.example.com:443
}
ignored_sigpipe_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare cleanup
spare_head()
{
	atf_set "descr" "a spare tunnel process waits before any client, under its own filter on the gate's and its Landlock ruleset; a client is handed to it and a new spare made once no client came for 10 ms: two clients at once go to two spares, each ending with its tunnel, never one process for both; a spare that ends untaken is replaced"
	atf_set "require.user" "root"
	atf_set "require.config" "prefix checkout"
}
spare_body()
{
	gate_net
	gate_start
	first=$(gate_spare) || { sc_log gated; atf_fail "no spare tunnel process"; }
	atf_check -o inline:"2\n2\n" awk '/^Seccomp(_filters)?:/ { print $2 }' \
	    "/proc/$first/status"
	grep -Eq "spare tunnel process $first ready: landlock ABI [1-9][0-9]*, seccomp filter on\$" \
	    "$SC_ROOT/log/gated.log" || { sc_log gated; atf_fail "no ruleset"; }
	# Two clients, silent for 2 s before their CONNECT: two spares take them.
	$GC notes.example.com:443 --silent 2 > one 2>&1 &
	one=$!
	second=$(gate_spare "$first") || { sc_log gated; atf_fail "no second spare"; }
	$GC notes.example.com:443 --silent 2 > two 2>&1 &
	two=$!
	third=$(gate_spare "$second") || { sc_log gated; atf_fail "no third spare"; }
	[ "$third" != "$first" ] || atf_fail "a spare was used again"
	alive "$first" && alive "$second" || atf_fail "a taken spare ended early"
	wait "$one"; wait "$two"
	atf_check -o match:"^body: notes here" cat one
	atf_check -o match:"^body: notes here" cat two
	expect_requests notes 2
	# Each ended with its tunnel; the third still waits.
	sleep 0.5
	alive "$first" && atf_fail "the first tunnel's process is left"
	alive "$second" && atf_fail "the second tunnel's process is left"
	alive "$third" || atf_fail "the spare ended"
	# A spare killed untaken is replaced; the next client is served.
	kill -KILL "$third"
	sc_wait_log gated "the spare tunnel process $third ended untaken\$" 5 ||
	    { sc_log gated; atf_fail "the spare's end not seen"; }
	gate_spare "$third" > /dev/null || atf_fail "the spare was not replaced"
	atf_check -o match:"^body: notes here" $GC notes.example.com:443
}
spare_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare_lost cleanup
spare_lost_head()
{
	atf_set "descr" "three spares in a row that end untaken are replaced, then no fourth is made and the gate sleeps (it does not wake every 10 ms for a spare it will not make) until the next client, which is served by a child of its own, and a spare is made again"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
spare_lost_body()
{
	gate_net
	gate_start
	sp=
	for i in 1 2 3; do
		sp=$(gate_spare "$sp") || { sc_log gated; atf_fail "no spare $i"; }
		kill -KILL "$sp"
		sc_wait_log gated "the spare tunnel process $sp ended untaken\$" 5 ||
		    { sc_log gated; atf_fail "spare $i's end not seen"; }
	done
	gate_spare "$sp" && { sc_log gated; atf_fail "a fourth spare was made"; }
	# The control: the same count sees a process that wakes every 10 ms.
	sh -c 'while :; do sleep 0.01; done' &
	ticker=$!
	w=$(wakes $ticker 2)
	kill $ticker
	[ "$w" -ge 50 ] || atf_fail "the count saw $w wakes of a 10 ms ticker in 2 s"
	w=$(wakes "$(sc_pid gated)" 2)
	[ "$w" -le 5 ] ||
	    { sc_log gated; atf_fail "gated woke $w times in 2 s with no spare to make"; }
	atf_check -o match:"^body: notes here" $GC notes.example.com:443
	gate_spare "$sp" > /dev/null ||
	    { sc_log gated; atf_fail "no spare after the client"; }
}
spare_lost_cleanup()
{
	sc_net_cleanup
}

atf_test_case spare_quiet cleanup
spare_quiet_head()
{
	atf_set "descr" "the quiet spell before the next spare begins at the last client: while 30 silent tunnels end one every 4 ms, and no client comes, the next spare is made; a tunnel's end does not put it off"
	atf_set "require.config" "prefix checkout"
	atf_set "require.user" "root"
}
spare_quiet_body()
{
	# The gate's timing, not the machine's: the ends come 4 ms apart in
	# a spell of 10, which a gate kept waiting for a processor behind the
	# cases beside it outlasts.
	sc_favour
	gate_net
	gate_start
	first=$(gate_spare) || { sc_log gated; atf_fail "no spare tunnel process"; }
	$AS_HOST python3 "$(sc_srcdir)/regress/gated/tunnelends.py" "$GATE_SOCK" \
	    --n 30 --step 4 --not "$first" 3< "$SC_ROOT/log/gated.log" > ends ||
	    atf_fail "tunnelends.py"
	grep -Eq '^spare: ready with [1-9][0-9]* of 30 tunnels still open$' ends ||
	    { cat ends; sc_log gated; atf_fail "no spare was made while the tunnels ended: $(cat ends)"; }
	# Control: the tunnels all ended, the gate serves, a spare waits.
	atf_check -o match:"^body: notes here" $GC notes.example.com:443
	gate_spare "$first" > /dev/null ||
	    { sc_log gated; atf_fail "no spare after the client"; }
}
spare_quiet_cleanup()
{
	sc_net_cleanup
}

atf_init_test_cases()
{
	atf_add_test_case list
	atf_add_test_case refused_port
	atf_add_test_case first_barrier
	atf_add_test_case second_barrier
	atf_add_test_case internal_exception
	atf_add_test_case routes
	atf_add_test_case no_echo
	atf_add_test_case accounts
	atf_add_test_case request_limits
	atf_add_test_case sigterm
	atf_add_test_case loopback_resolver
	atf_add_test_case home_second_barrier
	atf_add_test_case home_exceptions
	atf_add_test_case layout_home
	atf_add_test_case layout_cgnat
	atf_add_test_case layout_ten
	atf_add_test_case layout_172
	atf_add_test_case resolver_load
	atf_add_test_case ignored_sigpipe
	atf_add_test_case spare
	atf_add_test_case spare_lost
	atf_add_test_case spare_quiet
}
