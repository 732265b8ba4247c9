#!/bin/sh
# make bench: what each flag of the launcher's podman run (sandcastled/podman.c)
# costs alone.  The ocr box's check job through a bare "podman run --rm -i
# --network=none", then through the same with one group of the launcher's
# flags added, BENCH_RUNS runs each (5), the rows taken in turn; printed as
# the median of each and its difference from the bare box's.  The seccomp
# profile is podman's own default by a descriptor: ours (sandcastled/profile.c)
# is that file with a few rules rewritten, of the same size to parse.
# Not a test: it prints, and exits 1 only when it could not measure.
set -u

prefix=${1:?usage: bench_launcher.sh PREFIX}
N=${BENCH_RUNS:-5}
. "$(dirname "$0")/user.subr"
tmp=$(mktemp -d /tmp/sc-bench-launcher.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"

ocr_build "$prefix" "$tmp/conf"
image=sandcastle-ocr:$build
printf '%s\n' '{"type":"job","mode":"check","build":"'"$build"'","limits":{"max_input":16777216,"max_output":1048576},"settings":{"languages":["eng"],"max_pixels":40000000,"max_edge":4000}}' \
    > "$tmp/job"
chmod 0644 "$tmp/job"

# One row a line: its name, then its flags (the defaults' sizes of a box).
cat > "$tmp/rows" <<'EOF'
bare
read-only --read-only --read-only-tmpfs=false --tmpfs=/tmp:rw,noexec,nosuid,nodev,size=67108864,mode=1700,U
ipc --ipc=none --tmpfs=/dev/mqueue:ro,nosuid,nodev,noexec,size=4k
caps --cap-drop=all --security-opt=no-new-privileges
profile --security-opt=seccomp=/proc/self/fd/3
user --user=65534:65534 --userns=host
env --env-host=false --unsetenv-all
log --log-driver=none
labels --label=sandcastle.box=sandcastle --label=sandcastle.role=check --pull=never
ulimits --ulimit=data=1073741824:1073741824 --ulimit=nproc=64:64 --ulimit=fsize=67108864:67108864 --ulimit=nofile=64:64 --ulimit=core=0:0 --ulimit=cpu=60:60
all --read-only --read-only-tmpfs=false --tmpfs=/tmp:rw,noexec,nosuid,nodev,size=67108864,mode=1700,U --ipc=none --tmpfs=/dev/mqueue:ro,nosuid,nodev,noexec,size=4k --cap-drop=all --security-opt=seccomp=/proc/self/fd/3 --security-opt=no-new-privileges --user=65534:65534 --userns=host --env-host=false --unsetenv-all --pull=never --log-driver=none --label=sandcastle.box=sandcastle --label=sandcastle.role=check --ulimit=data=1073741824:1073741824 --ulimit=nproc=64:64 --ulimit=fsize=67108864:67108864 --ulimit=nofile=64:64 --ulimit=core=0:0 --ulimit=cpu=60:60
EOF

# run FLAGS...: one box, its seconds on stdout.
run()
{
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	as_user podman run --rm -i --network=none "$@" "$image" \
	    /sandcastle-box ocr < "$tmp/job" 3< /usr/share/containers/seccomp.json \
	    > "$tmp/out" 2> "$tmp/err" || return 1
	t1=$(date +%s.%N)
	grep -q '"type":"result"' "$tmp/out" || return 1
	echo "$t1 - $t0" | bc -l
}

# Each row once, to warm podman's store and to see that each works.
while read -r name flags; do
	# shellcheck disable=SC2086
	run $flags > /dev/null || { echo "bench: the row $name failed:"; cat "$tmp/err"; exit 1; }
done < "$tmp/rows"
i=0
while [ $i -lt "$N" ]; do
	while read -r name flags; do
		# shellcheck disable=SC2086
		run $flags >> "$tmp/t.$name" || { echo "bench: $name failed"; exit 1; }
	done < "$tmp/rows"
	i=$((i + 1))
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f to %.3f", lo, hi }'; }
printf 'bench: the launcher'"'"'s flags of podman run, each group alone, %d runs each, in turn (load %s)\n' \
    "$N" "$(cut -d' ' -f1 /proc/loadavg)"
b=$(median "$tmp/t.bare")
while read -r name flags; do
	m=$(median "$tmp/t.$name")
	printf 'bench:   %-9s median %.3f s (%s)  %+.3f s against bare\n' \
	    "$name" "$m" "$(spread "$tmp/t.$name")" "$(echo "$m - $b" | bc -l)"
done < "$tmp/rows"
exit 0
