#!/bin/sh
# make reference: level R on the reference machine of each release in
# RELEASES (bookworm trixie testing) (regress/reference/run.sh); each
# release's Test-runs record is kept in regress/reference-<release>.md,
# and regress/reference.md holds them all, newest release first.  The
# last line counts every release's rows: "N passed, N failed".  It exits
# 1 when a row failed.
#
# Every release starts at once; their builds take their turns, and so
# do their guests: REFERENCE_JOBS at once, by default one (run.sh).  A
# guest under TCG keeps one processor busy, yet two or three side by
# side run each slower than their number says: on two cores, bookworm's
# reference took 854 s alone (880 s of qemu's processor time) and 2,323
# s beside the two others, so that three at once took longer than one
# after another.  While one guest runs, the next release builds.  Each
# release's output goes to regress/reference-<release>.log, its steps to
# the terminal as they come, each named by its release; the records
# once all have ended.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASES=${RELEASES:-bookworm trixie testing}
RECORD=${REFRECORD:-$TOP/regress/reference.md}

REFERENCE_JOBS=${REFERENCE_JOBS:-1}
export REFERENCE_JOBS

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

echo "reference: $RELEASES, $REFERENCE_JOBS guest(s) at once"
# The packages once, before the releases ask for them side by side.
sh "$TOP/regress/lib/deps.sh" qemu-system-x86 qemu-utils debootstrap ||
    { echo "0 passed, 1 failed"; exit 1; }
pids=
for r in $RELEASES; do
	rm -f "$TOP/regress/reference-$r.sum" "$TOP/regress/reference-$r.log"
	one "$r" &
	pids="$pids $!"
done
wait $pids
# A release that failed before its guest booted (its build, its image,
# the disk's room) is run once more, the others' guests ended: CI saw
# one fail in 10 s once, beside two that passed, and a reason printed
# once is all an auditor has.
for r in $RELEASES; do
	grep -q ' 0 failed' "$TOP/regress/reference-$r.sum" 2>/dev/null && continue
	grep -q "^reference $r: boot 1 " "$TOP/regress/reference-$r.log" 2>/dev/null && continue
	echo "reference $r: failed before its guest booted; it ended:"
	grep -v '^deps: ' "$TOP/regress/reference-$r.log" | tail -n 12 | sed "s/^/reference $r: | /"
	echo "reference $r: once more"
	mv "$TOP/regress/reference-$r.log" "$TOP/regress/reference-$r.first.log"
	one "$r"
done

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
