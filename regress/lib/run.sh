#!/bin/sh
# make test's runner: the whole suite under Kyua, then one line
# "N passed, N failed"; exit 1 on any failure.  Kyua's own report is kept
# in regress/results.txt for whoever reads a failure.
set -u

prefix=$1
shift
# What is left: Kyua's filters (gated/t_gate.sh, keepd/t_keep.sh:case),
# the whole suite when none.
top=$(cd "$(dirname "$0")/../.." && pwd)
results=$top/regress/results.db
report=$top/regress/results.txt
# Cases at once: most wait (on podman, a namespace, a timer), so twice
# the processors and one more keeps two cores busy without a timeout.
jobs=${SC_JOBS:-$(( $(nproc) * 2 + 1 ))}
start=$(date +%s)
# The system's programs, as an operator's Debian has them: a shim found
# first in PATH is not what the suite proves, and pyenv's python3 runs
# six bash scripts a call on a machine the suite keeps busy.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
# The atf-sh programs are POSIX shell: dash runs them for less of the
# processor time the suite is bound by than atf-sh's own bash.
ATF_SHELL=/bin/sh
export PATH ATF_SHELL

sh "$top/regress/lib/accounts.sh" && sh "$top/regress/lib/podman.sh" ||
    { echo "0 passed, 1 failed"; exit 1; }
rm -f "$results"
cd "$top/regress" || exit 1
kyua --variable=parallelism="$jobs" \
    --variable="test_suites.sandcastle.prefix=$prefix" \
    --variable="test_suites.sandcastle.checkout=$top" \
    test --results-file="$results" "$@"
kyua report --results-file="$results" --verbose \
    --results-filter=broken,failed > "$report" 2>&1
sed -n '/^===> Failed tests/,$p;/^===> Broken tests/,$p' "$report" | head -n 200
echo "make test: $(( $(date +%s) - start )) s, $jobs cases at once"
summary=$(kyua report --results-file="$results" | grep '^Test cases:')
echo "$summary"
# Test cases: 12 total, 0 skipped, 0 expected failures, 0 broken, 0 failed
set -- $(echo "$summary" | tr -cs '0-9' ' ')
total=${1:-0} skipped=${2:-0} xfail=${3:-0} broken=${4:-0} failed=${5:-0}
passed=$((total - skipped - xfail - broken - failed))
bad=$((broken + failed))
if [ "$total" -eq 0 ]; then
	bad=1
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $bad failed, $skipped skipped"
else
	echo "$passed passed, $bad failed"
fi
[ "$bad" -eq 0 ]
