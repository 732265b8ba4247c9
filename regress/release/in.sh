#!/bin/sh
# in.sh RELEASE COMMAND: COMMAND (sh -c) as root in the root of RELEASE
# that root.sh made (RELEASE_ROOT, as root.sh takes it), in its /src,
# with /proc, /sys and /dev of this machine and its own /tmp and /run,
# in a mount namespace of its own whose root it is: nothing stays
# mounted when it ends.  As root.
#
# /src is this checkout's files (those git tracks or would) as they are
# in the work tree, copied over the last copy with their times (make
# then builds again only what changed); RELEASE_SRC=clone makes it a
# fresh git clone of HEAD instead, as a new user's is; RELEASE_SRC=keep
# takes /src as the run before left it.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASE=$1
shift
ROOTS=${RELEASE_ROOTS:-/var/tmp/sandcastle-roots}
root=$ROOTS/${RELEASE_ROOT:-$RELEASE}
die() { echo "release: $*" >&2; exit 1; }

# One at a time in a root (root.sh takes the same lock).
exec 6> "$root.lock"
flock 6
[ -f "$root/.made" ] || die "no root of $RELEASE in $root: run root.sh $RELEASE first"
if [ "${RELEASE_SRC:-}" = clone ]; then
	rm -rf "$root/src"
	git clone -q "$TOP" "$root/src" || die "git clone into $root/src"
elif [ "${RELEASE_SRC:-}" != keep ]; then
	mkdir -p "$root/src"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	    tar --null --ignore-failed-read -T - -cf - 2>/dev/null) |
	    tar -xpf - -C "$root/src" || die "the checkout could not be copied in"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# pivot_root, not chroot: a chrooted process may not make a user
# namespace (unshare(2): EPERM), which podman and the filters' tests do.
exec unshare -m --propagation private sh -c '
	set -e
	r=$1; shift
	mount --bind "$r" "$r"
	mount -t proc proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs tmpfs "$r/tmp"
	mount -t tmpfs tmpfs "$r/run"
	mkdir -p "$r/run/lock" "$r/.old"
	cd "$r"
	pivot_root . .old
	exec chroot . /usr/bin/env -i HOME=/root TERM=dumb \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    LANG=C.UTF-8 sh -c "umount -l /.old && rmdir /.old && cd /src && $1"' \
	    sh "$root" "$@"
