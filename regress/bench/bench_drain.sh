#!/bin/sh
# make bench: a backlog drained at the speed of the boxes.  One source
# with BENCH_DRAIN_JOBS small ocr jobs waiting (100 by default) and a
# poll_interval of an hour, through sandcastled, keepd and gated
# (regress/sandcastled/t_drain.sh at full size), against the same boxes
# run back to back with a bare "podman run --rm -i" of the same image and
# the same job line.  Printed as jobs a minute each and their ratio, with
# its goal (issue 24: at least 0.95), then the median job, from its claim
# to its result as the source saw them, against the median bare box (at
# most 1.05).  The drain's time is the source's own, first claim to last
# result; the ratio's is from the first result to the last, the jobs
# after the first, since the bare loop's first box, the first its podman
# runs, is run unmeasured too.  The bare boxes run half before the drain
# and half after it.  The source keeps its connections open between
# requests, as a real HTTP/1.1 server does (BENCH_DRAIN_KEEPALIVE=no: it
# closes each after its answer, as the test's does).  Run as root, as
# make test is; exits 1 only when it could not measure.
set -u

prefix=${1:?usage: bench_drain.sh PREFIX}
top=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${BENCH_DRAIN_JOBS:-100}
. "$(dirname "$0")/user.subr"
work=$(mktemp -d /tmp/sc-bench-drain.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
# The account runs podman from here.
chmod 0755 "$work"

sh "$top/regress/lib/accounts.sh" && sh "$top/regress/lib/podman.sh" ||
    { echo "bench: the test accounts could not be made"; exit 1; }
prog=$top/regress/sandcastled/t_drain.sh
cd "$work" || exit 1

# The same boxes bare: the image t_drain.sh installs, the same picture.
# The test makes its images in a home of its own: these in the account's.
ocr_build "$prefix" "$work/conf"
"$prefix/libexec/render_image" png "HELLO WORLD" > image.png || exit 1
printf '{"type":"job","mode":"run","build":"%s","limits":{"max_input":16777216,"max_output":1048576},"settings":{"languages":["eng"],"max_pixels":40000000,"max_edge":4000},"input":{"image":"%s"}}\n' \
    "$build" "$(base64 -w0 image.png)" > job
chmod 0644 job
bare()
{
	as_user podman run --rm -i --network=none "sandcastle-ocr:$build" \
	    /sandcastle-box ocr < job
}
# bare_loop N: N bare boxes in a row; each box's start and end are
# added to bare.times, the loop's seconds to bare.secs.
bare_loop()
{
	_t0=$(date +%s.%N)
	_i=0
	while [ $_i -lt "$1" ]; do
		date +%s.%N >> bare.times
		bare > /dev/null || { echo "bench: a bare box failed"; exit 1; }
		date +%s.%N >> bare.times
		_i=$((_i + 1))
	done
	echo "$(date +%s.%N) - $_t0" | bc -l >> bare.secs
}
bare | grep -q '"type":"result"' ||
    { echo "bench: the bare box failed"; bare; exit 1; }
: > bare.times
: > bare.secs
# Half before the drain and half after, so that a machine that speeds up
# or slows down over the minutes weighs on both alike.
bare_loop $((jobs / 2))

set -- -s "$top/regress/sandcastled" -v "prefix=$prefix" -v "checkout=$top" \
    -v "drain_jobs=$jobs" -v "drain_sources=1" \
    -v "drain_keepalive=${BENCH_DRAIN_KEEPALIVE:-yes}"
"$prog" "$@" -r result drain > out 2> err
"$prog" "$@" drain:cleanup > /dev/null 2>&1
if ! grep -q '^passed' result; then
	cat result
	tail -n 60 out err
	exit 1
fi
secs=$(sed -n 's/^drain: .* in \([0-9.]*\) s$/\1/p' out)
after=$(sed -n 's/^drain: the .* after the first, first result to last: \([0-9.]*\) s$/\1/p' out)
[ -n "$secs" ] && [ -n "$after" ] ||
    { echo "bench: t_drain.sh printed no time"; cat out; exit 1; }
sed -n 's/^drain: /bench: t_drain.sh: /p' out

bare_loop $((jobs - jobs / 2))
bsecs=$(awk '{ s += $1 } END { print s }' bare.secs)
bjob=$(awk 'NR % 2 { s = $1; next } { print $1 - s }' bare.times | sort -n |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
job=$(sed -n 's/^drain: a job, claim to result at the source: \([0-9.]*\) s.*/\1/p' out)

printf 'bench: a backlog of %d small ocr jobs, one source asked every hour\n' "$jobs"
printf 'bench:   sandcastle (claim, box, result)  %5.1f jobs a minute (%.1f s); the %d after the first, %5.1f a minute (%.1f s)\n' \
    "$(echo "$jobs * 60 / $secs" | bc -l)" "$secs" $((jobs - 1)) \
    "$(echo "($jobs - 1) * 60 / $after" | bc -l)" "$after"
printf 'bench:   bare podman run --rm -i, in a row %5.1f jobs a minute (%.1f s), after one run unmeasured; half before the drain, half after\n' \
    "$(echo "$jobs * 60 / $bsecs" | bc -l)" "$bsecs"
# met GOAL least|most VALUE: met or NOT met.
met()
{
	awk -v g="$1" -v w="$2" -v v="$3" 'BEGIN {
	    ok = w == "least" ? v >= g : v <= g; print ok ? "met" : "NOT met" }'
}
r=$(echo "($jobs - 1) * $bsecs / ($jobs * $after)" | bc -l)
printf 'bench:   ratio sandcastle / bare          %5.2f   goal at least 0.95: %s (the whole drain, its first box too: %.2f)\n' \
    "$r" "$(met 0.95 least "$r")" "$(echo "$bsecs / $secs" | bc -l)"
r=$(echo "$job / $bjob" | bc -l)
printf 'bench:   a job, its claim to its result at the source, %.3f s, against a bare box, %.3f s (medians): %.2f   goal at most 1.05: %s\n' \
    "$job" "$bjob" "$r" "$(met 1.05 most "$r")"
