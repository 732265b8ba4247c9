#!/bin/sh
# make bench: a 32 MiB keep body from keepd's answer to the core and to
# a claude job's box reader, and a job's input from the core to the
# launcher, through the hops' own functions (bench_hops.c).  Not a test: it prints, and exits 1 only when it could
# not measure.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/regress/bench/bench_hops"
