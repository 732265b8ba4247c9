#!/bin/sh
# deb.sh RELEASE TARBALL [OUT]: the Debian package of make dist's
# TARBALL, built as Debian builds one: in a clean root of RELEASE (a
# fresh copy of root.sh's; DEB_KEEP=1 takes the root of the run before,
# with the packages it installed), its Build-Depends from the release's
# archive (apt-get build-dep), dpkg-buildpackage -us -uc -b, then the
# release's lintian on the .changes, which must say no error and no
# warning (DEB_LINTIAN=0 leaves it out).  The .deb, .buildinfo, .changes
# and the logs go in OUT/RELEASE/ (deb/).  As root; make deb runs it for
# each release, make reference for its package row.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASE=$1
TARBALL=$(cd "$(dirname "$2")" && pwd)/${2##*/}
OUT=${3:-$TOP/deb}/$RELEASE
RELEASE_ROOT=$RELEASE-deb
RELEASE_KEEP=${DEB_KEEP:-0}
export RELEASE_ROOT RELEASE_KEEP
say() { echo "deb $RELEASE: $*"; }
t=$(date +%s)
# One build at a time in a root, from its copy to its outputs (in.sh's
# lock is held only while it runs): make deb, make reference's package
# row and debcheck.sh's earlier package may ask for the same root.
mkdir -p "${RELEASE_ROOTS:-/var/tmp/sandcastle-roots}"
exec 7> "${RELEASE_ROOTS:-/var/tmp/sandcastle-roots}/$RELEASE_ROOT.deb.lock"
flock 7

root=$(sh "$TOP/regress/release/root.sh" "$RELEASE")
dir=$(tar -tzf "$TARBALL" | head -n 1 | cut -d/ -f1)
rm -rf "$root/build"
mkdir -p "$root/build" "$root/src"
tar -xzf "$TARBALL" -C "$root/build"
say "the root in $(( $(date +%s) - t )) s"
st=0
RELEASE_SRC=keep sh "$TOP/regress/release/in.sh" "$RELEASE" "
	export DEBIAN_FRONTEND=noninteractive
	cd /build/$dir
	{ apt-get update -q &&
	    apt-get install -y -q --no-install-recommends dpkg-dev lintian &&
	    apt-get build-dep -y -q --no-install-recommends .; } > ../apt.log 2>&1 ||
	    { tail -n 20 ../apt.log; exit 1; }
	echo \"deb $RELEASE: the Build-Depends in \$(( \$(date +%s) - $t )) s from the start\"
	dpkg-buildpackage -us -uc -b > ../build.log 2>&1 ||
	    { tail -n 40 ../build.log; exit 1; }
	echo \"deb $RELEASE: dpkg-buildpackage -us -uc -b in \$(( \$(date +%s) - $t )) s from the start\"
	[ ${DEB_LINTIAN:-1} = 1 ] || exit 0
	l=\$(date +%s)
	lintian --version
	lintian --fail-on error,warning ../*.changes > ../lintian.log 2>&1
	st=\$?
	grep -v '^running with root privileges' ../lintian.log || true
	echo \"deb $RELEASE: lintian in \$(( \$(date +%s) - l )) s, exit \$st\"
	exit \$st" || st=$?
rm -rf "$OUT"
mkdir -p "$OUT"
cp "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo \
    "$root"/build/*.log "$OUT/" 2>/dev/null || true
ls "$OUT"/*_amd64.deb 2>/dev/null | grep -v dbgsym | sed "s/^/deb $RELEASE: built /" || true
say "$(( $(date +%s) - t )) s in all, exit $st"
exit "$st"
