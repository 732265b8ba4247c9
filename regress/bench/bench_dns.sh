#!/bin/sh
# make bench, the gate's resolver under load: BENCH_DNS_N (2000) CONNECTs
# through gated, 24 at a time, each a lookup of its own in a tunnel's
# child, on a home network whose resolver is the router (net.subr's
# sc_home_up), so every query goes through pasta's DNS forward.  Prints
# the share of lookups lost.  BENCH_GATED names another gated to measure
# (an older build, say).  Run as root: it makes namespaces; gated and the
# client run as the test account in the machine's namespace.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$1
N=${BENCH_DNS_N:-2000}

. "$TOP/regress/bench/bench.subr"

sc_setup
sc_home_up
sc_ocr_config home
sc_source_file notes https://notes.example.com/api/worker ocr
chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
sc_closer notes "$SC_NS_WORLD" 198.20.5.10 443
# A busy machine: BENCH_DNS_BUSY (565, 2%) ephemeral UDP ports held, as
# a real machine's processes hold some; pasta drops a query whose source
# port the machine holds.
ip netns exec "$SC_NS_HOST" python3 "$TOP/regress/gated/udpbusy.py" \
    "${BENCH_DNS_BUSY:-565}" "$SC_ROOT/busy.ports" &
sc_wait_file "$SC_ROOT/busy.ports" 30 || atf_fail "udpbusy did not start"
if [ -n "${BENCH_GATED:-}" ]; then
	install -m 0755 "$BENCH_GATED" "$SC_ROOT/gated-other"
	: > "$SC_ROOT/log/gated.log"
	ip netns exec "$SC_NS_HOST" setpriv --reuid="$SC_USER" \
	    --regid="$SC_USER" --init-groups --inh-caps=-all -- env -i \
	    HOME="$SC_HOME" XDG_RUNTIME_DIR="$SC_RUN" \
	    PATH=/usr/bin:/bin:/usr/sbin:/sbin "$SC_ROOT/gated-other" -dv \
	    -c "$SC_CONFIG" > "$SC_ROOT/log/gated.log" 2>&1 &
	echo $! > "$SC_ROOT/log/gated.pid"
	sc_wait_log gated "serving " 15 || { sc_log gated; atf_fail "no gate"; }
else
	sc_gate_up
fi
echo "bench: the gate's resolver, $N lookups through gated, 24 at a time," \
    "$(wc -l < "$SC_ROOT/busy.ports") of the machine's ephemeral UDP ports held"
sc_as_user_in_host python3 "$TOP/regress/gated/dnsload.py" \
    "$SC_RUN/sandcastle/gate.sock" notes.example.com:443 "$N" 24 > load.out
cat load.out
set -- $(tail -n 1 load.out)
echo "bench: lookups lost: $6 of $2 ($(echo "scale=3; 100 * $6 / $2" | bc)%), goal 0"
retried=$(grep -c "answered at try" "$SC_ROOT/log/gated.log")
echo "bench: lookups answered only at a later try: $retried"
