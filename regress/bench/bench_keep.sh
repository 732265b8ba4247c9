#!/bin/sh
# make bench, the keep and the gate: a request through keepd and gated
# against the same request made directly (cold: to a destination the
# keep has not asked for a while; warm: asked again within the second),
# and a 32 MiB body's throughput against a direct copy, measured side by
# side on the test network (regress/lib/net.subr), each with its goal
# (keepbench.py); then the cold request's TLS GET and the body through
# pasta alone, from a client in the gate's namespace, against the same
# client in the host's, in turn.  Run as root: it makes namespaces; keepd, gated
# and the clients run as the test account in the host namespace.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$1
N=${BENCH_N:-40}
ROUNDS=${BENCH_ROUNDS:-5}

. "$TOP/regress/bench/bench.subr"

sc_setup
sc_net_up
sh "$TOP/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com api.anthropic.com \
    >/dev/null || atf_fail "ca.sh"
cat > "$SC_CONFIG/config.yaml" <<EOF
capabilities:
$(sc_claude_yaml claude-sonnet-4-5)
EOF
sc_source_file notes https://notes.example.com/api/worker
# The cold requests' destinations: the same host under N names, each
# asked once, so that none has a warm child when it is asked.
cold=
i=1
while [ $i -le "$N" ]; do
	sc_source_file "cold$i" https://notes.example.com/api/worker claude 30 \
	    30s 6m notes
	cold=${cold:+$cold,}cold$i
	i=$((i + 1))
done
chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
chmod -R a+rX "$SC_ROOT/ca"
sc_secret claude bench-claude-key
sc_secret notes bench-notes-token
# The host keeps a connection open between requests, as a real one does.
sc_scenario notes.example.com '{"keep_alive": true, "routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 0}}, "/api/worker/big": {"status": 200, "size": 33554432}}}'
host_ip=198.20.5.10
sc_fakehost notes.example.com "$SC_NS_WORLD" "$host_ip" 443 tls
sc_gate_up
sc_keep_up

echo "bench: keepd and gated against direct calls, interleaved, $N requests and $ROUNDS bodies each"
[ -n "${BENCH_HOLD:-}" ] && { echo "bench: holding; keepd pid $(sc_pid keepd)"; sleep "$BENCH_HOLD"; }
sc_as_user_in_host python3 "$TOP/regress/bench/keepbench.py" \
    --keep "$SC_RUN/sandcastle/keep.sock" --gate "$SC_RUN/sandcastle/gate.sock" \
    --url https://notes.example.com/api/worker --cafile "$SC_ROOT/ca/ca.crt" \
    --secret bench-notes-token --n "$N" --rounds "$ROUNDS" --big /big \
    --warm notes --cold "$cold"
# The body through pasta alone: the same GET from a client in the gate's
# namespace (root enters it), against one in the host's, in turn.
: > pasta.rates
: > direct.rates
i=0
while [ $i -lt "$ROUNDS" ]; do
	nsenter -t "$(sc_pid gated)" -U -n --preserve-credentials \
	    python3 "$TOP/regress/bench/keepbench.py" --body-once \
	    --connect "$host_ip" --url https://notes.example.com/api/worker \
	    --cafile "$SC_ROOT/ca/ca.crt" --secret bench-notes-token \
	    --big /big >> pasta.rates || atf_fail "the body in the gate's namespace"
	sc_as_user_in_host python3 "$TOP/regress/bench/keepbench.py" --body-once \
	    --connect "$host_ip" --url https://notes.example.com/api/worker \
	    --cafile "$SC_ROOT/ca/ca.crt" --secret bench-notes-token \
	    --big /big >> direct.rates || atf_fail "the body directly"
	i=$((i + 1))
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p=$(median pasta.rates) d=$(median direct.rates)
printf 'bench: the same body through pasta alone (a client in the gate'"'"'s namespace, median of %d): %.1f MiB/s, direct %.1f MiB/s; ratio %.2f: pasta'"'"'s part\n' \
    "$ROUNDS" "$p" "$d" "$(echo "$p / $d" | bc -l)"
# The cold request's parts: the same GET by address, a new connection
# each after 100 ms at rest, through pasta alone and directly, in turn.
: > pasta.pings
: > direct.pings
i=0
while [ $i -lt 3 ]; do
	nsenter -t "$(sc_pid gated)" -U -n --preserve-credentials \
	    python3 "$TOP/regress/bench/keepbench.py" --pings-once \
	    --connect "$host_ip" --url https://notes.example.com/api/worker \
	    --cafile "$SC_ROOT/ca/ca.crt" --secret bench-notes-token \
	    --n $(( (N + 2) / 3 )) >> pasta.pings || atf_fail "the pings in the gate's namespace"
	sc_as_user_in_host python3 "$TOP/regress/bench/keepbench.py" --pings-once \
	    --connect "$host_ip" --url https://notes.example.com/api/worker \
	    --cafile "$SC_ROOT/ca/ca.crt" --secret bench-notes-token \
	    --n $(( (N + 2) / 3 )) >> direct.pings || atf_fail "the pings directly"
	i=$((i + 1))
done
p=$(median pasta.pings) d=$(median direct.pings)
printf 'bench: the cold request'"'"'s GET by address through pasta alone (a client in the gate'"'"'s namespace, median of 3 medians): %.2f ms, direct %.2f ms: pasta'"'"'s part %.2f ms\n' \
    "$p" "$d" "$(echo "$p - $d" | bc -l)"
# The floor under both: a new process for each request, and a body handed
# from the process that decrypted it to another, before any hop of ours
# (bench_fresh: a spare made as keepd makes one against its warm parent,
# the same host by address).
sc_as_user_in_host "$TOP/regress/bench/bench_fresh" "$SC_ROOT/ca/ca.crt" \
    "$host_ip" notes.example.com /api/worker/ping /api/worker/big ||
    atf_fail "bench_fresh against the test host"
