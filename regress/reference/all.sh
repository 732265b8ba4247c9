#!/bin/sh
# make reference: level R on the reference machine of each release in
# RELEASES (bookworm trixie testing) (regress/reference/run.sh); each
# release's Test-runs record is kept in regress/reference-<release>.md,
# and regress/reference.md holds them all, newest release first.  The
# last line counts every release's rows: "N passed, N failed".  It exits
# 1 when a row failed.
#
# The guests run side by side, REFERENCE_JOBS at once (default: as many
# as the memory holds, 5 GiB each): a guest under TCG keeps about one
# processor busy (its record's "qemu's processor seconds"), the rest of
# its time it waits on the cases' timers.  The builds, which share the
# checkout, take their turns (run.sh).  Each release's output goes to
# regress/reference-<release>.log, its steps to the terminal as they
# come, each named by its release; the records once all have ended.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASES=${RELEASES:-bookworm trixie testing}
RECORD=${REFRECORD:-$TOP/regress/reference.md}

if [ -z "${REFERENCE_JOBS:-}" ]; then
	mem=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo)
	REFERENCE_JOBS=$(( ${mem:-0} / 5 ))
	[ "$REFERENCE_JOBS" -ge 1 ] || REFERENCE_JOBS=1
fi

# one RELEASE: its run, its summary in reference-RELEASE.sum.
one()
{
	_t=$(date +%s)
	REFRECORD=$TOP/regress/reference-$1.md sh "$TOP/regress/reference/run.sh" "$1" 2>&1 |
	    tee "$TOP/regress/reference-$1.log" | grep --line-buffered '^reference '
	_s=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TOP/regress/reference-$1.log" | tail -n 1)
	echo "${_s:-0 passed, 1 failed} in $(( $(date +%s) - _t )) s" \
	    > "$TOP/regress/reference-$1.sum"
}

echo "reference: $RELEASES, $REFERENCE_JOBS at once"
pids= n=0
for r in $RELEASES; do
	rm -f "$TOP/regress/reference-$r.sum" "$TOP/regress/reference-$r.log"
	if [ "$n" -ge "$REFERENCE_JOBS" ]; then
		# One of those running must end first: the oldest.
		set -- $pids
		wait "$1"
		shift
		pids=$*
		n=$((n - 1))
	fi
	one "$r" &
	pids="$pids $!"
	n=$((n + 1))
done
wait $pids

pass=0 failed=0 out=
for r in $RELEASES; do
	s=$(cat "$TOP/regress/reference-$r.sum" 2>/dev/null)
	s=${s:-0 passed, 1 failed in 0 s}
	p=${s%% passed*} f=${s#*passed, } f=${f%% failed*}
	pass=$((pass + p)) failed=$((failed + f))
	out="$out$r: $s
"
	rm -f "$TOP/regress/reference-$r.sum"
done
# The newest release first: RELEASES backwards.
{
	for r in $(echo $RELEASES | tr ' ' '\n' | tac); do
		[ -f "$TOP/regress/reference-$r.md" ] || continue
		cat "$TOP/regress/reference-$r.md"
		echo
	done
} > "$RECORD.tmp" && mv "$RECORD.tmp" "$RECORD"
cat "$RECORD"
printf 'reference: %s' "$out"
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
