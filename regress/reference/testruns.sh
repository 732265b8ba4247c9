#!/bin/sh
# testruns.sh VERSION [ROW ...]: VERSION's section put at the top of
# TESTRUNS.md, newest first (sandcastle-tests(7), TEST RUNS): the
# commit, then regress/reference.md, the last make reference of this
# checkout, each release's record under it.  Each ROW, "Level|Command|
# Result", is a row more of the version's table (make fuzz, the package).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAGE=$TOP/TESTRUNS.md
[ $# -ge 1 ] || { echo "usage: testruns.sh VERSION [ROW ...]" >&2; exit 2; }
V=$1; shift
REF=$TOP/regress/reference.md
[ -s "$REF" ] || { echo "testruns.sh: no $REF: run make reference" >&2; exit 1; }
commit=$(sed -n 's/^- \*\*Commit\*\*: \([0-9a-f]\{40\}\).*/\1/p' "$REF" | sort -u)
[ -n "$commit" ] && [ "$(echo "$commit" | wc -l)" -eq 1 ] ||
    { echo "testruns.sh: $REF holds runs of no commit or of more than one" >&2; exit 1; }
grep -q '^<!-- summary: [0-9]* passed, [1-9][0-9]* failed -->$' "$REF" &&
    { echo "testruns.sh: a row of $REF failed: no version" >&2; exit 1; }

section()
{
	echo "## v$V"
	echo
	echo "- **Date**: $(date -u +%Y-%m-%d)"
	echo "- **Commit**: $commit"
	echo
	echo "| Level | Command | Result |"
	echo "|---|---|---|"
	for r in "$@"; do echo "| $(echo "$r" | sed 's/|/ | /g') |"; done
	echo
	sed -e 's/^## /### /' -e '/^<!-- summary:/d' "$REF"
	echo
}

tmp=$PAGE.tmp
{
	if [ -s "$PAGE" ]; then
		sed '/^## /,$d' "$PAGE"
	else
		echo "# Test runs"
		echo
		echo "Each version runs the whole test matrix on the reference machine"
		echo "(sandcastle-tests(7)) before its tag is made; its record is added here,"
		echo "newest first. A record never names the machine, its addresses or its"
		echo "network."
		echo
	fi
	section "$@"
	if [ -s "$PAGE" ]; then sed -n '/^## /,$p' "$PAGE"; fi
} > "$tmp" && mv "$tmp" "$PAGE"
