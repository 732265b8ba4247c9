#!/bin/sh
# record.sh OUT COMMIT TIMES SECONDS TOP: the Test-runs record of a run
# of make reference, in the shape sandcastle-tests(7), TEST RUNS, gives it,
# from what the guest left in OUT (versions, cases/<case>.result, .seen,
# .time); TIMES is run.sh's "part=seconds" lines.  Its last line is a
# comment with the summary, "N passed, N failed".
set -u

OUT=$1
COMMIT=$2
TIMES=$3
TOTAL=$4
TOP=$5
T=$TOP/regress/reference/t_reference.sh

v() { sed -n "s/^$1 //p" "$OUT/versions" 2>/dev/null; }
cell() { tr '\n|' ' /' | sed 's/ *$//'; }

# The cases, in the order the guest ran them, with the ids each cites.
cases=$(grep -o 'atf_add_test_case [a-z0-9_]*' "$T" | awk '{ print $2 }')
ids_of()
{
	awk -v c="$1" '
	    $0 ~ "^" c "_head\\(\\)" { h = 1; next }
	    h && /atf_set "descr"/ {
		sub(/.*atf_set "descr" "/, ""); sub(/:.*/, ""); print; exit }' "$T"
}

echo "## Reference run of ${COMMIT%"${COMMIT#????????????}"} on Debian $(v debian)"
echo
echo "- **Date**: $(date -u +%Y-%m-%d)"
echo "- **Commit**: $COMMIT (and, for the upgrade, the same source built as $COMMIT+upgrade)"
echo "- **Kernel**: $(v kernel)"
echo "- **Podman**: $(v podman)"
echo "- **systemd**: $(v systemd)"
echo "- **pasta**: passt $(v pasta)"
echo "- **Machine**: Debian $(v debian) under qemu $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), TCG (-cpu max without AVX), 2 processors, 4 GiB, no network; crun $(v crun | awk '{ print $3 }')"
echo

pass=0 failed=0
rows=
for c in $cases; do
	# A row run.sh left out of this release (REFERENCE_PACKAGE,
	# REFERENCE_SHORT) is said with run.sh's reason, and counted neither
	# way.
	if grep -qxF "$c" "$OUT/../in/omit" 2>/dev/null; then
		why=$(sed -n "s/^$c //p" "$OUT/../in/omit.why" | head -n 1)
		rows="$rows| $c | $(ids_of "$c") | not run here: ${why:-run.sh left it out} |
"
		continue
	fi
	r=$(head -n 1 "$OUT/cases/$c.result" 2>/dev/null)
	s=$([ -f "$OUT/cases/$c.seen" ] && cell < "$OUT/cases/$c.seen")
	case $r in
	passed)	pass=$((pass + 1)); res="pass: $s" ;;
	'')	failed=$((failed + 1))
		if [ -f "$OUT/cases/$c.log" ]; then
			res="fail: it did not end: the guest was stopped in it"
		else
			res="fail: it did not run"
		fi ;;
	*)	failed=$((failed + 1)); res="fail: ${r#failed: }${s:+ (seen: $s)}" ;;
	esac
	rows="$rows| $c | $(ids_of "$c") | $(echo "$res" | cell) |
"
done

ui="not run in this checkout"
if [ -f "$TOP/regress/results.db" ] && command -v kyua > /dev/null; then
	set -- $(kyua report --results-file="$TOP/regress/results.db" 2>/dev/null |
	    grep '^Test cases:' | tr -cs '0-9' ' ')
	if [ $# -ge 5 ]; then
		ui="$(( $1 - $2 - $3 - $4 - $5 )) passed, $(( $4 + $5 )) failed (the last make test in this checkout, $(date -u -r "$TOP/regress/results.db" '+%Y-%m-%d %H:%M'))"
	fi
fi
echo "| Level | Command | Result |"
echo "|---|---|---|"
echo "| U I | \`make test\` | $ui |"
echo "| R | \`make reference\` | $pass passed, $failed failed |"
echo
echo "| Step | Proves | Result |"
echo "|---|---|---|"
printf '%s' "$rows"
echo "| Names | M | by hand: sandcastle-tests(7), THE MANUAL LIST, Names |"
echo
echo "| Part | Seconds |"
echo "|---|---|"
printf '%s' "$TIMES" | sed -n 's/^\([^=]*\)=\(.*\)$/| \1 | \2 |/p'
for c in $cases; do
	[ -f "$OUT/cases/$c.time" ] && echo "| case $c | $(cat "$OUT/cases/$c.time") |"
done
echo "| make reference in all | $TOTAL |"
echo
echo "<!-- summary: $pass passed, $failed failed -->"
