#!/bin/sh
# units.sh RELEASE [PHASE]: what a new user of RELEASE meets first, in a
# fresh root of it (root.sh): make dist's tarball of this checkout's
# HEAD, unpacked alone (no .git: the version and the commit come from
# the tarball), make deps, make -j2 all units, then make test's unit
# programs (make run-units).  Ends with their "N passed, N failed", and exits 1 on a
# failure.  As root.
#
# PHASE build does the root, the clone, deps and the build alone; PHASE
# run then runs the unit programs of that build, as it stands: CI builds
# while the suite runs, at the lowest priority, and runs them after.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASE=$1
PHASE=${2:-all}
case $PHASE in
all|build|run) ;;
*) echo "units.sh: $PHASE: not a phase (all, build or run)" >&2; exit 2 ;;
esac
# A root of its own, never make reference's.
RELEASE_ROOT=$RELEASE-clean
export RELEASE_ROOT
LOG=$TOP/regress/units-$RELEASE.log
t=$(date +%s)
if [ "$PHASE" != run ]; then
	root=$(sh "$TOP/regress/release/root.sh" "$RELEASE") ||
	    { echo "0 passed, 1 failed"; exit 1; }
	echo "release $RELEASE: the root in $(( $(date +%s) - t )) s"
	t=$(date +%s)
	rm -rf "$root/src" "$root/dist"
	mkdir -p "$root/src" "$root/dist"
	make -s -C "$TOP" dist DISTDIR="$root/dist" > /dev/null 2>&1 &&
	    tar -xzf "$root"/dist/sandcastle-*.tar.gz -C "$root/src" --strip-components=1 ||
	    { echo "release $RELEASE: make dist failed"; echo "0 passed, 1 failed"; exit 1; }
	RELEASE_SRC=keep sh "$TOP/regress/release/in.sh" "$RELEASE" \
	    '[ ! -e .git ] || { echo "release: the tarball holds .git"; exit 1; }
	    make deps > /var/tmp/deps.log 2>&1 || { tail -n 20 /var/tmp/deps.log; exit 1; }
	    echo "release: make deps in $(( $(date +%s) - '"$t"' )) s"
	    make -j2 all units > /var/tmp/build.log 2>&1 || { tail -n 40 /var/tmp/build.log; exit 1; }
	    echo "release: make -j2 all units in $(( $(date +%s) - '"$t"' )) s from the start"
	    touch /src/.built' > "$LOG" 2>&1
	st=$?
	if [ "$PHASE" = build ]; then
		grep '^release: ' "$LOG" | sed "s/^release:/release $RELEASE:/"
		[ "$st" -eq 0 ] || { tail -n 40 "$LOG"; echo "release $RELEASE: the build failed"; }
		exit "$st"
	fi
	[ "$st" -eq 0 ] || { tail -n 40 "$LOG"; echo "0 passed, 1 failed"; exit 1; }
fi
# The build of the phase before, as it stands: neither cloned nor copied.
RELEASE_SRC=keep sh "$TOP/regress/release/in.sh" "$RELEASE" \
    '[ -f /src/.built ] || { echo "release: no build of units.sh build in the root"; exit 1; }
    make --no-print-directory run-units' >> "$LOG" 2>&1
st=$?
grep -E '^release: |^[a-z]+/t_[a-z_0-9.]+:[a-z_0-9]+ +-> +(failed|broken)' "$LOG" |
    sed "s/^release:/release $RELEASE:/"
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1)
echo "release $RELEASE: $(( $(date +%s) - t )) s in all"
[ "$st" -eq 0 ] && [ -n "$last" ] && { echo "$last"; exit 0; }
echo "${last:-0 passed, 1 failed}"
exit 1
