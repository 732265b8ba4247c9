#!/bin/sh
# make bench, what sandcastle costs at rest: gated, keepd and sandcastled
# (with its core, keep frontend and box launcher) serving one source that
# has no work, on the test network.  Once a first round is over, the
# resident memory of every sandcastle process (Pss from smaps_rollup, so
# that the pages they share are counted once; Rss beside it; and its own,
# Private_Clean and Private_Dirty, what it alone holds, so what a spare
# costs), pasta's apart, then their CPU time over a quiet minute
# (BENCH_IDLE_SECS).  Not a test: it prints what it measured.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$1
QUIET=${BENCH_IDLE_SECS:-60}

. "$TOP/regress/bench/bench.subr"

sc_setup
sc_home_up
sh "$TOP/regress/lib/ca.sh" "$SC_ROOT/ca" notes.example.com >/dev/null ||
    atf_fail "ca.sh"
chown -R "$SC_USER:$SC_USER" "$SC_ROOT/ca"
sc_ocr_config
sc_source_file notes https://notes.example.com/api/worker ocr 10 30s 1m
chown -R "$SC_USER:$SC_USER" "$SC_CONFIG"
sc_secret notes bench-idle-token
sc_fakesource notes notes.example.com 198.20.5.10 bench-idle-token '[]'
sc_gate_up
sc_keep_up
sc_start_in_host sandcastled -d -c "$SC_CONFIG" -s "$SC_SECRETS"
sc_wait_log sandcastled "the keep answers" 30 ||
    { sc_log sandcastled; atf_fail "sandcastled did not start"; }
# At rest: past the first claim's warm child in keepd and its tunnel in
# gated, which wait 5 s for the destination's next request (keepd(8)).
sleep 8

# ticks PID: user plus system CPU time, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

bench_procs > procs.list
echo "bench: at rest, one source with no work, polled every 30 s:"
pss=0 rss=0 ppss=0 prss=0
while read -r pid name; do
	p=$(bench_kib Pss "$pid"); r=$(bench_kib Rss "$pid")
	[ -n "$p" ] || continue
	u=$(( $(bench_kib Private_Clean "$pid") + $(bench_kib Private_Dirty "$pid") ))
	printf '  %-8s %-16s Pss %6s KiB  Rss %6s KiB  its own %6s KiB\n' \
	    "$pid" "$name" "$p" "$r" "$u"
	case $name in
	passt*|pasta*) ppss=$((ppss + p)); prss=$((prss + r)) ;;
	*) pss=$((pss + p)); rss=$((rss + r)) ;;
	esac
done < procs.list
echo "bench: resident memory of sandcastle's processes: Pss $((pss / 1024)).$(( (pss % 1024) * 10 / 1024 )) MiB (Rss $((rss / 1024)) MiB), goal at most 6 MiB; pasta apart: Pss $((ppss / 1024)).$(( (ppss % 1024) * 10 / 1024 )) MiB"
hz=$(getconf CLK_TCK)
before=0
while read -r pid name; do
	before=$((before + $(ticks "$pid")))
done < procs.list
sleep "$QUIET"
after=0
while read -r pid name; do
	t=$(ticks "$pid")
	[ -n "$t" ] && after=$((after + t))
done < procs.list
echo "bench: CPU time of sandcastle's processes over a quiet $QUIET s:" \
    "$(echo "scale=3; ($after - $before) / $hz" | bc) s" \
    "($(grep -c '/jobs/claim' "$SC_ROOT/notes.requests") claims made in all)," \
    "goal nothing but the poll timers"
