#!/bin/sh
# make reference: level R on the reference machine of each release in
# RELEASES (bookworm trixie testing), one after the other
# (regress/reference/run.sh); each release's Test-runs record is kept in
# regress/reference-<release>.md, and regress/reference.md holds them
# all, newest release first.  The last line counts every release's rows:
# "N passed, N failed".  It exits 1 when a row failed.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASES=${RELEASES:-bookworm trixie testing}
RECORD=${REFRECORD:-$TOP/regress/reference.md}

pass=0 failed=0 out=
for r in $RELEASES; do
	t=$(date +%s)
	REFRECORD=$TOP/regress/reference-$r.md sh "$TOP/regress/reference/run.sh" "$r" |
	    tee "$TOP/regress/reference-$r.log"
	s=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TOP/regress/reference-$r.log" | tail -n 1)
	s=${s:-0 passed, 1 failed}
	p=${s%% passed*} f=${s#*passed, } f=${f%% failed*}
	pass=$((pass + p)) failed=$((failed + f))
	out="$out$r: $s in $(( $(date +%s) - t )) s
"
done
# The newest release first: RELEASES backwards.
{
	for r in $(echo $RELEASES | tr ' ' '\n' | tac); do
		[ -f "$TOP/regress/reference-$r.md" ] || continue
		cat "$TOP/regress/reference-$r.md"
		echo
	done
} > "$RECORD.tmp" && mv "$RECORD.tmp" "$RECORD"
printf 'reference: %s' "$out"
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
