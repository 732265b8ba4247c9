#!/bin/sh
# make bench: what a fresh process pays on this machine for each page it
# touches, and so for its first TLS ClientHello (bench_fresh.c): the
# part of the cold request (bench_keep.sh) that keepd's new process for
# each destination leaves to the machine.  Not a test: it prints, and
# exits 1 only when it could not measure.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
exec "$top/regress/bench/bench_fresh"
