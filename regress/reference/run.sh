#!/bin/sh
# Level R of sandcastle-tests(7) on the reference machine of one Debian
# release (make reference runs it for each, regress/reference/all.sh).
# As root, from the checkout, after make (it installs what it lacks):
#
#   sh regress/reference/run.sh [RELEASE]
#
# builds this checkout twice for RELEASE (bookworm, the default, trixie
# or testing): the build, and a second one for the upgrade, the same
# source with another commit label, so another build id.  On this
# machine's own release it builds here; on another, in a root of that
# release (regress/release/root.sh, then make deps and make install in
# it at this machine's speed).  Then the hostile box, and the guest of
# RELEASE (image.sh, cached under REFCACHE by release and package list);
# its Debian package for the package row (regress/release/deb.sh); puts
# the builds on a 9p share; boots the guest with no network, under
# TCG, as many times as the suite reboots it; and writes the Test-runs
# record of the run (sandcastle-tests(7), TEST RUNS) to REFRECORD, then "N
# passed, N failed".  It exits 1 when a row failed.
#
#   REFCACHE          where the guest images are kept
#                     (/var/tmp/sandcastle-reference)
#   REFRECORD         the record (regress/reference-RELEASE.md)
#   REFERENCE_CASES   only these cases of t_reference.sh, in this order
#   REFERENCE_KEEP=1  the guest's disk of the run before, not a fresh one
#   REFERENCE_DEADLINE
#                     a time (seconds since 1970) no boot runs past: CI's
#                     budget; the case it stops "did not end", those after
#                     it "did not run"
#   REFERENCE_START_TIMEOUT, REFERENCE_STOP_TIMEOUT
#                     watch.subr's bounds on a boot's start and its end
#   REFERENCE_PACKAGE the releases whose guest runs the package row (all
#                     by default)
#   REFERENCE_SHORT   the releases whose guest runs the suite's rows
#                     through jobs alone, a prefix of its order, so that
#                     no row loses what a row before it made (none by
#                     default; CI's minutes)
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/regress/reference
RELEASE=${1:-bookworm}
CACHE=${REFCACHE:-/var/tmp/sandcastle-reference}
RECORD=${REFRECORD:-$TOP/regress/reference-$RELEASE.md}
RUN=$CACHE/run-$RELEASE
SHARE=$RUN/share
# Each boot's time: the suite's cases before the reboot, then after it.
BOOT_TIMEOUT=${REFERENCE_BOOT_TIMEOUT:-3600}
# A boot's start: the guest's runner writes its first line in it (the
# machine was up 40 to 110 s after qemu started, in the runs here).
START_TIMEOUT=${REFERENCE_START_TIMEOUT:-300}
# A boot's end: the runner has asked for the reboot or the power off.
STOP_TIMEOUT=${REFERENCE_STOP_TIMEOUT:-300}
# Two boots (the suite reboots once), and two more for a guest stuck.
MAX_BOOTS=4
PKGS="qemu-system-x86 qemu-utils debootstrap"

. "$HERE/watch.subr"

say() { echo "reference $RELEASE: $*"; }
die() { echo "reference $RELEASE: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

TIMES=
# part NAME SINCE: NAME took from SINCE until now.
part()
{
	TIMES="$TIMES$1=$(( $(date +%s) - $2 ))
"
	say "$1: $(( $(date +%s) - $2 )) s"
}

[ "$(id -u)" -eq 0 ] || die "run make reference as root: it builds and boots a guest"
T0=$(date +%s)

t=$(date +%s)
sh "$TOP/regress/lib/deps.sh" $PKGS || die "the packages it needs: $PKGS"
part packages "$t"

# The two builds: this commit, and the same source labelled
# COMMIT+upgrade, whose binaries differ, so its build id does.
t=$(date +%s)
mkdir -p "$CACHE"
COMMIT=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)
rm -rf "$SHARE"
mkdir -p "$SHARE/in/reference" "$SHARE/out"
if [ "$RELEASE" = "$(. /etc/os-release; echo "$VERSION_CODENAME")" ]; then
	# One build in the checkout at a time; a root's builds take turns by
	# the root's own lock (root.sh, in.sh).
	exec 9> "$CACHE/build.lock"
	flock 9
	make -s -C "$TOP" install PREFIX="$SHARE/in/second" COMMIT="$COMMIT+upgrade" \
	    > "$RUN.build.log" 2>&1 &&
	    make -s -C "$TOP" install PREFIX="$SHARE/in/prefix" COMMIT="$COMMIT" \
	    >> "$RUN.build.log" 2>&1 || { cat "$RUN.build.log"; die "make install failed"; }
	flock -u 9
	exec 9>&-
else
	# The root of the release is kept between runs: make deps there
	# asks apt only for what it lacks, make builds only what changed.
	root=$(RELEASE_KEEP=1 sh "$TOP/regress/release/root.sh" "$RELEASE") ||
	    die "no root of $RELEASE to build in"
	rm -rf "$root/var/tmp/reference-build"
	sh "$TOP/regress/release/in.sh" "$RELEASE" "make deps &&
	    make -s -j2 install PREFIX=/var/tmp/reference-build/second COMMIT='$COMMIT+upgrade' &&
	    make -s install PREFIX=/var/tmp/reference-build/prefix COMMIT='$COMMIT'" \
	    > "$RUN.build.log" 2>&1 || { tail -n 40 "$RUN.build.log"; die "the build in the root of $RELEASE failed"; }
	mv "$root/var/tmp/reference-build/second" "$root/var/tmp/reference-build/prefix" \
	    "$SHARE/in/"
fi
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static \
    -o "$SHARE/in/reference/hostile" "$HERE/hostile.c" ||
    die "the hostile box does not build"
cp "$HERE/guest.sh" "$HERE/guest.subr" "$HERE/homenet.sh" \
    "$HERE/t_reference.sh" "$SHARE/in/reference/"
cp -R "$TOP/examples" "$SHARE/in/examples"
find "$SHARE/in/examples" -name __pycache__ -prune -exec rm -rf {} +
[ -n "${REFERENCE_CASES:-}" ] && echo "$REFERENCE_CASES" > "$SHARE/in/order"
chmod -R a+rX "$SHARE/in"
part builds "$t"

# The package row's, made while the guest runs the cases before it
# (the share shows the guest each file as it comes): make dist's tarball
# of HEAD, its Debian package for RELEASE and the release's lintian on
# it (regress/release/deb.sh, in a root of the release kept between
# runs), then deb/done, which the row waits for.
package()
{
	_t=$(date +%s)
	rm -rf "$RUN/deb"
	mkdir -p "$RUN/deb" "$SHARE/in/deb"
	make -s -C "$TOP" dist DISTDIR="$RUN/deb" > "$RUN.deb.log" 2>&1 &&
	    DEB_KEEP=1 sh "$TOP/regress/release/deb.sh" "$RELEASE" \
	    "$(ls "$RUN"/deb/sandcastle-*.tar.gz)" "$RUN/deb" >> "$RUN.deb.log" 2>&1
	grep "^deb $RELEASE: " "$RUN.deb.log" | sed 's/^deb /reference /'
	cp "$RUN/deb/$RELEASE"/sandcastle_*_amd64.deb "$SHARE/in/deb/" 2>/dev/null ||
	    tail -n 20 "$RUN.deb.log" > "$SHARE/in/deb/why"
	[ -f "$RUN/deb/$RELEASE/lintian.log" ] &&
	    grep -v '^running with root privileges' "$RUN/deb/$RELEASE/lintian.log" \
	    > "$SHARE/in/deb/lintian.log"
	echo "$(( $(date +%s) - _t ))" > "$SHARE/in/deb/done"
	chmod -R a+rX "$SHARE/in/deb"
	say "package: $(cat "$SHARE/in/deb/done") s, beside the guest"
}
# The rows left out of this release's run, each with the record's reason
# (in/omit, in/omit.why); the guest leaves out @reboot too when nothing
# after it runs.
OMIT=
omit()
{
	grep -qxF "$1" "$SHARE/in/omit" 2>/dev/null && return 0
	echo "$1" >> "$SHARE/in/omit"
	echo "$1 $2" >> "$SHARE/in/omit.why"
}
case " ${REFERENCE_PACKAGE:-$RELEASE} " in
*" $RELEASE "*) ;;
*) OMIT=package
   omit package "REFERENCE_PACKAGE holds it for $REFERENCE_PACKAGE" ;;
esac
case " ${REFERENCE_SHORT:-} " in
*" $RELEASE "*)
	for c in $(grep -o 'atf_add_test_case [a-z0-9_]*' "$HERE/t_reference.sh" |
	    awk '{ print $2 }' | sed '1,/^jobs$/d'); do
		omit "$c" "REFERENCE_SHORT runs this release's rows through jobs alone; make reference runs them all"
	done
	OMIT=package
	echo @reboot >> "$SHARE/in/omit" ;;
esac
pkg=
if [ -z "$OMIT" ] && echo "${REFERENCE_CASES:-package}" | grep -qw package; then
	package &
	pkg=$!
fi

t=$(date +%s)
# One build of a release's image at a time (CI makes them ahead).
GUEST=$(flock "$CACHE/guest-$RELEASE.lock" sh "$HERE/image.sh" "$CACHE" "$RELEASE") ||
    die "the guest image of $RELEASE could not be built"
part image "$t"

# The guest's layer grows by a few hundred MiB; a full disk would
# pause the guest (qemu's werror=enospc), so the errors go to the guest
# (werror=report), where the suite fails with them, and a machine with
# less than 2 GiB free stops here.
free=$(df -Pk "$CACHE" | awk 'NR == 2 { print int($4 / 1024) }')
[ "${free:-0}" -ge 2048 ] ||
    die "only ${free:-0} MiB free in $CACHE: the guest's disk needs up to 2 GiB"

# A fresh disk each run: a copy-on-write layer over the cached image.
if [ "${REFERENCE_KEEP:-0}" != 1 ] || [ ! -f "$RUN/disk.qcow2" ]; then
	rm -f "$RUN/disk.qcow2"
	qemu-img create -q -f qcow2 -F raw -b "$GUEST/disk.img" "$RUN/disk.qcow2" ||
	    die "qemu-img could not make the guest's disk"
fi

# -cpu max without AVX: emulated, the AVX2 paths (OpenSSL's and Go's
# SHA-256, podman's layer digests among them, glibc's string functions)
# ran slower than the plain ones.  Two guests side by side: sha256sum of
# the 30 MiB libicudata three times 29 s with AVX2, 19 s without;
# Python's (OpenSSL) 9.1 s, 3.7 s; a fixed workload 87 s, 73 s.
# Nothing the suite proves needs AVX.
boot()
{
	timeout -k 30 "$2" qemu-system-x86_64 \
	    -accel tcg,thread=multi -cpu max,avx=off,avx2=off -m 4096 -smp 2 \
	    -nodefaults -display none -no-reboot \
	    -serial "file:$RUN/console.$1.log" \
	    -kernel "$GUEST/vmlinuz" -initrd "$GUEST/initrd.img" \
	    -append "root=/dev/vda rw console=ttyS0 quiet mitigations=off" \
	    -drive "file=$RUN/disk.qcow2,format=qcow2,if=virtio,werror=report,rerror=report" \
	    -nic none \
	    -virtfs "local,path=$SHARE,mount_tag=share,security_model=none"
}

# A guest's turn: one of REFERENCE_JOBS slots, each a lock under CACHE
# held until this run ends (all.sh).
t=$(date +%s)
turn=
while [ -z "$turn" ]; do
	i=0
	while [ "$i" -lt "${REFERENCE_JOBS:-1}" ]; do
		exec 8> "$CACHE/guest.$i.lock"
		flock -n 8 && { turn=$i; break; }
		exec 8>&-
		i=$((i + 1))
	done
	[ -n "$turn" ] || sleep 5
done
part turn "$t"

# console N LINES: the end of boot N's console (the kernel's quiet: its
# warnings, and systemd's failures).
console()
{
	if [ -s "$RUN/console.$1.log" ]; then
		tail -n "$2" "$RUN/console.$1.log" | tr -d '\r' |
		    sed "s/^/reference $RELEASE: console: /"
	else
		say "console: (empty)"
	fi
}

n=0 again=0
while [ "$n" -lt "$MAX_BOOTS" ]; do
	n=$((n + 1))
	t=$(date +%s)
	limit=$BOOT_TIMEOUT
	if [ -n "${REFERENCE_DEADLINE:-}" ]; then
		left=$((REFERENCE_DEADLINE - t))
		if [ "$left" -lt 60 ]; then
			say "no boot $n: the deadline has passed (REFERENCE_DEADLINE)"
			break
		fi
		[ "$left" -lt "$limit" ] && limit=$left
	fi
	say "boot $n of the guest (TCG, no network, at most $limit s)"
	boot "$n" "$limit" &
	qpid=$!
	watch "$qpid" "$t"
	wait "$qpid"
	st=$?
	# A boot started again after a stalled start keeps its number.
	label=boot$n
	[ "$again" = "$n" ] && label="boot$n again"
	part "$label" "$t"
	TIMES="${TIMES}$label, qemu's processor seconds=$cpu
"
	case $why in
	start)
		say "boot $n: the guest's runner wrote nothing in $START_TIMEOUT s: stopped"
		console "$n" 15
		# Once more: the boot itself, not a case, went wrong.
		[ "$again" -eq 0 ] || break
		again=$n n=$((n - 1))
		continue ;;
	stop)
		say "boot $n: the guest had not rebooted or powered off $STOP_TIMEOUT s after its runner asked: stopped"
		console "$n" 15
		st=0 ;;
	case)
		say "boot $n: the guest's runner is stuck in a case past its time: stopped, and booted again to go on from that case"
		tail -n 3 "$SHARE/out/guest.log" | sed "s/^/reference $RELEASE: /"
		console "$n" 15
		TIMES="${TIMES}boot$n stopped, case $(tail -n 1 "$SHARE/out/guest.log" | awk '{ print $4 }') running for=$stuck
"
		st=0 ;;
	esac
	state=$(cat "$SHARE/out/state" 2>/dev/null)
	[ "$state" = done ] && break
	if [ "$st" -ne 0 ]; then
		say "qemu exited $st: the guest ran past $limit s or failed; it ended:"
		tail -n 5 "$SHARE/out/guest.log" 2>/dev/null | sed "s/^/reference $RELEASE: /"
		console "$n" 10
		break
	fi
done

[ -n "$pkg" ] && wait "$pkg"
[ -f "$SHARE/in/deb/done" ] && TIMES="${TIMES}package, beside the guest=$(cat "$SHARE/in/deb/done")
"
sh "$HERE/record.sh" "$SHARE/out" "$COMMIT" "$TIMES" "$(( $(date +%s) - T0 ))" \
    "$TOP" > "$RECORD.tmp" && mv "$RECORD.tmp" "$RECORD"
cat "$RECORD"
sed -n 's/^<!-- summary: \(.*\) -->$/\1/p' "$RECORD"
grep -q '^<!-- summary: [0-9]* passed, 0 failed -->$' "$RECORD"
