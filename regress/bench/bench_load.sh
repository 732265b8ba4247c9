#!/bin/sh
# make bench: the load run of regress/sandcastled/t_load.sh at its full
# size: BENCH_LOAD_JOBS jobs (100 by default) from each of
# BENCH_LOAD_SOURCES strict sources (3), with every fault injected mid-job
# BENCH_LOAD_ROUNDS times (3).  It prints what the run measured: the
# jobs, the time, the faults, the daemons' ends, and ledger.py's count of
# jobs whose records agree with their sources.  Run as root, as make
# test is; exits 1 when the run failed.
set -u

prefix=${1:?usage: bench_load.sh PREFIX}
top=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${BENCH_LOAD_JOBS:-100}
sources=${BENCH_LOAD_SOURCES:-3}
rounds=${BENCH_LOAD_ROUNDS:-3}
work=$(mktemp -d /tmp/sc-bench-load.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
# The account runs podman from here.
chmod 0755 "$work"

sh "$top/regress/lib/accounts.sh" && sh "$top/regress/lib/podman.sh" ||
    { echo "bench: the test accounts could not be made"; exit 1; }
prog=$top/regress/sandcastled/t_load.sh
cd "$work" || exit 1
set -- -s "$top/regress/sandcastled" -v "prefix=$prefix" -v "checkout=$top" \
    -v "load_jobs=$jobs" -v "load_sources=$sources" -v "load_rounds=$rounds"
"$prog" "$@" -r result load > out 2> err
"$prog" "$@" load:cleanup > /dev/null 2>&1
cat result
if ! grep -q '^passed' result; then
	tail -n 60 out err
	exit 1
fi
grep -E '^(load:|[0-9]+ jobs, )' out
