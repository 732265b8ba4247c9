#!/bin/sh
# make bench: what the Landlock rulesets cost (bench_landlock.c), in a
# folder of its own.  Not a test: it prints, and exits 1 only when it
# could not measure.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/sc-llbench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" && "$top/regress/bench/bench_landlock"
