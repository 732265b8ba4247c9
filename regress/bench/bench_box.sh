#!/bin/sh
# make bench: what a box costs.  The launcher's ocr check (job_run() in
# sandcastlectl check, with every lock and limit of the box, an ocr-only
# configuration and no keep) against a bare "podman run --rm -i" of the
# same image with the same job line, N runs each, interleaved; printed
# as seconds and a ratio.  Then the box's peak memory: VmHWM of the
# sandcastle-box process in /proc, sampled while a bare box runs (podman
# stats needs cgroup v2, which this machine may not delegate).  Last,
# the cost of the box's own seccomp filter (boxtime.py).  Not a test: it
# prints, and exits 1 only when it could not measure.
set -u

prefix=${1:?usage: bench_box.sh PREFIX}
N=${BENCH_RUNS:-5}
. "$(dirname "$0")/user.subr"
ctl=$prefix/bin/sandcastlectl
tmp=$(mktemp -d /tmp/sc-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"

now() { date +%s.%N; }

mkdir -p "$tmp/secrets"
chmod 0700 "$tmp/secrets"
chown -R "$user" "$tmp"
# check reads this configuration whether or not the images are there.
ocr_conf "$tmp/conf"
ocr_build "$prefix" "$tmp/conf"
image=sandcastle-ocr:$build
job='{"type":"job","mode":"check","build":"'$build'","limits":{"max_input":16777216,"max_output":1048576},"settings":{"languages":["eng"],"max_pixels":40000000,"max_edge":4000}}'

bare()
{
	printf '%s\n' "$job" | as_user podman run --rm -i --network=none \
	    "$image" /sandcastle-box ocr
}

launcher()
{
	as_user "$ctl" -c "$tmp/conf" -s "$tmp/secrets" check
}

# Both once, to warm podman's store, and to see that each works.
bare | grep -q '"type":"result"' || { echo "bench: the bare box failed"; exit 1; }
launcher | grep -q '^ok    capability ocr: usable' ||
    { echo "bench: check's ocr proof failed"; launcher; exit 1; }

tb=0 tl=0 i=0
while [ $i -lt "$N" ]; do
	t0=$(now); bare >/dev/null; t1=$(now)
	launcher >/dev/null; t2=$(now)
	tb=$(echo "$tb + $t1 - $t0" | bc -l)
	tl=$(echo "$tl + $t2 - $t1" | bc -l)
	i=$((i + 1))
done
printf 'bench: ocr check, %d runs each, interleaved\n' "$N"
printf 'bench:   bare podman run --rm -i      %.3f s a run\n' "$(echo "$tb / $N" | bc -l)"
printf 'bench:   launcher (sandcastlectl check) %.3f s a run\n' "$(echo "$tl / $N" | bc -l)"
r=$(echo "$tl / $tb" | bc -l)
printf 'bench:   ratio launcher / bare         %.2f   goal at most 1.05 (a job overhead): %s\n' \
    "$r" "$(awk -v v="$r" 'BEGIN { print v <= 1.05 ? "met" : "NOT met" }')"
echo "bench:   (the launcher's runs include check's other sections)"

# Peak memory: the box's own process, sampled every 10 ms.  A check
# box may live less than a sample takes: up to five runs to see one.
# By command line and uid: ocr's box re-execs itself, as exe.
boxuid=$(awk -F: -v u="$user" '$1 == u { print $2 + 65533 }' /etc/subuid)
peak=0
tries=0
while [ "$peak" -eq 0 ] && [ "$tries" -lt 5 ]; do
	tries=$((tries + 1))
	bare >/dev/null &
	while kill -0 $! 2>/dev/null; do
		for p in $(pgrep -U "$boxuid" -f '^/sandcastle-box '); do
			kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
			[ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
		done
		sleep 0.01
	done
	wait
done
[ "$peak" -gt 0 ] || { echo "bench: no sandcastle-box process was seen in $tries runs"; exit 1; }
printf 'bench: ocr box peak memory (VmHWM of sandcastle-box, sampled): %d KiB\n' "$peak"

# The box's own locks (its filter and its Landlock ruleset): a test
# build with them against the same build without them
# (box/sandcastle-box-test and -nofilter, in libexec/), each
# in an ocr image of its own, on one job of real text.  Start: podman run
# to the hello (podman, the loader, Tesseract's start and the filter);
# run: the job to the result.
src=$(cd "$(dirname "$0")/../.." && pwd)
F=${BENCH_FILTER_RUNS:-10}
with=$(as_user sh "$src/regress/box/testbox/image.sh" \
    "$prefix/libexec/sandcastle-box-test" ocr) &&
    without=$(as_user sh "$src/regress/box/testbox/image.sh" \
    "$prefix/libexec/sandcastle-box-test-nofilter" ocr) ||
    { echo "bench: the test builds' images failed"; exit 1; }
"$prefix/libexec/render_image" png "HELLO WORLD" > "$tmp/h.png" ||
    { echo "bench: cannot draw the image"; exit 1; }
printf '{"type":"job","mode":"run","build":"@BUILD@","limits":{"max_input":16777216,"max_output":1048576},"settings":{"languages":["eng"],"max_pixels":40000000,"max_edge":4000},"input":{"image":"%s"}}\n' \
    "$(base64 -w0 "$tmp/h.png")" > "$tmp/job"
chmod 0644 "$tmp/job"
printf 'bench: the ocr box with its own filter and without, %d runs each, interleaved\n' "$F"
as_user python3 "$src/regress/bench/boxtime.py" "$F" "$tmp/job" \
    "with its filter" "sandcastle-ocr:$with" "$with" \
    "without" "sandcastle-ocr:$without" "$without" || exit 1
exit 0
