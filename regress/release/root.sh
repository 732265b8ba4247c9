#!/bin/sh
# root.sh RELEASE [ROOTS]: a root of a Debian release (bookworm, trixie,
# testing), made by debootstrap from the mirror apt uses here, with git
# and make alone, as a new user's machine has before make deps; kept in
# ROOTS/<release>/ (/var/tmp/sandcastle-roots) and printed.  As root.
#
#   sh regress/release/root.sh trixie
#   sh regress/release/in.sh trixie 'cd /src && make deps && make -j2 all units'
#
# A root is a fresh copy of the one debootstrap made once (kept in
# ROOTS/<release>.base): RELEASE_KEEP=1 takes the root of the run
# before, with what its make deps installed.  RELEASE_ROOT names the
# root (<release>, make reference's build; units.sh's is
# <release>-clean), so that two never share one.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASE=$1
ROOTS=${2:-${RELEASE_ROOTS:-/var/tmp/sandcastle-roots}}
say() { echo "release: $*" >&2; }
die() { echo "release: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "root.sh runs as root (debootstrap, chroot)"
case $RELEASE in
bookworm|trixie|forky|testing|sid) ;;
*) die "$RELEASE: not a Debian release sandcastle supports (bookworm, trixie, testing)" ;;
esac

. "$TOP/regress/release/mirror.subr"
base=$ROOTS/$RELEASE.base
root=$ROOTS/${RELEASE_ROOT:-$RELEASE}
mkdir -p "$ROOTS"
# One at a time in a root (in.sh takes the same lock): CI builds ahead in
# a root that make reference may ask for.
exec 6> "$root.lock"
flock 6
exec 5> "$base.lock"
flock 5
if [ ! -f "$base/.made" ]; then
	rm -rf "$base"
	say "debootstrap $RELEASE from $MIRROR into $base (a few minutes)"
	debootstrap --variant=minbase --include=git,make,ca-certificates \
	    "$RELEASE" "$base" "$MIRROR" "$(debootstrap_script "$RELEASE")" \
	    > "$ROOTS/$RELEASE.log" 2>&1 ||
	    { tail -n 20 "$ROOTS/$RELEASE.log" >&2; die "debootstrap $RELEASE failed"; }
	apt_setup "$base"
	touch "$base/.made"
fi
exec 5>&-
if [ "${RELEASE_KEEP:-0}" != 1 ] || [ ! -f "$root/.made" ]; then
	rm -rf "$root" "$root.new"
	cp -a "$base" "$root.new"
	mv "$root.new" "$root"
fi
echo "$root"
