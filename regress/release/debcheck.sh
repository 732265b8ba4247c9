#!/bin/sh
# debcheck.sh RELEASE: the package make deb built for RELEASE, in
# deb/RELEASE/, checked three ways, each a line "passed" or "failed:
# why", then "N passed, N failed".  As root.
#
#   piuparts  installs it with its Depends and purges it in a copy of
#             root.sh's debootstrap root of RELEASE (--existing-chroot),
#             from the mirror apt uses here, and finds nothing left;
#   contents  it holds no maintainer script and no path under /home,
#             /root, /run, /var or /etc: nothing that could touch an
#             account;
#   upgrade   a package of an earlier commit (DEB_OLD, by default the
#             parent of the commit that added debian/control), built the
#             same way with this debian/, is installed in a fresh root;
#             an account's configuration, secrets, records, units,
#             drop-in and runtime files are put in place; the package is
#             upgraded, then purged, and each time every one of those
#             files is as it was (path, mode, owner, size, time, inode,
#             SHA-256); control: a file touched is seen.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RELEASE=$1
DEBS=$TOP/deb
ROOTS=${RELEASE_ROOTS:-/var/tmp/sandcastle-roots}
. "$TOP/regress/release/mirror.subr"
say() { echo "debcheck $RELEASE: $*"; }
pass=0 failed=0
result()
{
	case $2 in
	passed*) pass=$((pass + 1)) ;;
	*)	failed=$((failed + 1)) ;;
	esac
	say "$1: ${2:-failed: no result}"
}

new=$(ls "$DEBS/$RELEASE"/sandcastle_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$new" ] || { say "no package in $DEBS/$RELEASE: run make deb"; echo "0 passed, 1 failed"; exit 1; }
sh "$TOP/regress/lib/deps.sh" piuparts debootstrap > /dev/null || { echo "0 passed, 1 failed"; exit 1; }
sh "$TOP/regress/release/root.sh" "$RELEASE" > /dev/null 2>&1 ||
    RELEASE_ROOT=$RELEASE-deb sh "$TOP/regress/release/root.sh" "$RELEASE" > /dev/null

t=$(date +%s)
log=$DEBS/$RELEASE/piuparts.log
# What the Depends' own scripts leave after the purge: systemd's tmpfiles
# (DynamicUser='s private folders, coredump, pstore) and /root/.ssh.
# sandcastle's package has no script and none of these paths (contents,
# below), so none is its.
ignore="/root/.ssh/ /var/cache/private/ /var/lib/private/ /var/log/private/
/var/lib/systemd/coredump/ /var/lib/systemd/pstore/"
# From Debian 13 systemd-sysv is Protected: apt removes it only when told
# --allow-remove-essential, which piuparts 1.1 does not tell it, so its
# removal of the Depends fails.  It stays, as on any machine it boots.
keep=
chroot "$ROOTS/$RELEASE.base" apt-cache show systemd-sysv 2>/dev/null |
    grep -q '^Protected: yes' && keep=--fake-essential-packages=systemd-sysv
if piuparts --existing-chroot "$ROOTS/$RELEASE.base" -d "$RELEASE" -m "$MIRROR" \
    --no-adequate $keep $(printf -- '-i %s ' $ignore) "$new" > "$log" 2>&1; then
	result piuparts "passed ($(( $(date +%s) - t )) s: $(tail -n 1 "$log" | sed 's/^[0-9hms.]* //'))"
else
	grep -E 'ERROR|FAIL' "$log" | head -n 10 | sed "s/^/debcheck $RELEASE: piuparts: /"
	result piuparts "failed: see $log ($(( $(date +%s) - t )) s)"
fi

bad=$(dpkg-deb -c "$new" | awk '{ print $6 }' | grep -E '^\./(home|root|run|var|etc)/')
scripts=$(dpkg-deb --ctrl-tarfile "$new" | tar -tf - | grep -E 'preinst|postinst|prerm|postrm|config$')
if [ -z "$bad$scripts" ]; then
	result contents passed
else
	result contents "failed: $(echo $bad $scripts)"
fi

# The earlier package: DEB_OLD's tree with this debian/, a version below.
t=$(date +%s)
old=${DEB_OLD:-$(git -C "$TOP" log --diff-filter=A --format=%H -- debian/control | tail -n 1)^}
short=$(git -C "$TOP" rev-parse --short=12 "$old")
work=$(mktemp -d /var/tmp/debcheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
git -C "$TOP" archive --prefix=sandcastle-old/ "$old" | tar -xf - -C "$work"
rm -rf "$work/sandcastle-old/debian"
git -C "$TOP" archive --prefix=sandcastle-old/ HEAD debian | tar -xf - -C "$work"
cat > "$work/sandcastle-old/debian/changelog" <<EOF
sandcastle (1.0.0~git$short-1) unstable; urgency=medium

  * The package of the earlier commit $short, for the upgrade test.

 -- The sandcastle authors <sandcastle@example.org>  Mon, 07 Dec 2026 12:00:00 +0000
EOF
tar -czf "$work/old.tar.gz" -C "$work" sandcastle-old
# Built once for a commit: a run after it takes it again.
oldeb=$DEBS/old/$RELEASE/sandcastle_1.0.0~git$short-1_amd64.deb
[ -f "$oldeb" ] ||
    DEB_KEEP=1 DEB_LINTIAN=0 sh "$TOP/regress/release/deb.sh" "$RELEASE" "$work/old.tar.gz" \
    "$DEBS/old" > "$work/old.log" 2>&1 || tail -n 20 "$work/old.log"
[ -f "$oldeb" ] || oldeb=
[ -n "$oldeb" ] && say "the earlier package, of $short, in $(( $(date +%s) - t )) s"

t=$(date +%s)
root=$(RELEASE_ROOT=$RELEASE-upgrade sh "$TOP/regress/release/root.sh" "$RELEASE")
mkdir -p "$root/debs" "$root/src"
cp "$new" "$root/debs/new.deb"
[ -n "$oldeb" ] && cp "$oldeb" "$root/debs/old.deb"
RELEASE_ROOT=$RELEASE-upgrade RELEASE_SRC=keep sh "$TOP/regress/release/in.sh" "$RELEASE" '
	set -u
	export DEBIAN_FRONTEND=noninteractive
	fail() { echo "upgrade: failed: $*"; exit 1; }
	[ -f /debs/old.deb ] || fail "no package of the earlier commit was built"
	apt-get update -q > /debs/apt.log 2>&1
	apt-get install -y -q --no-install-recommends /debs/old.deb >> /debs/apt.log 2>&1 ||
	    { tail -n 20 /debs/apt.log; fail "the earlier package did not install"; }
	useradd -m -s /bin/sh op
	uid=$(id -u op)
	mkdir -p -m 0700 /run/user/$uid && chown op:op /run/user/$uid
	runuser -u op -- sh -c "
	    set -e
	    cd \$HOME
	    mkdir -p -m 0700 .config/sandcastle .local/share/sandcastle/secrets
	    mkdir -p .config/sandcastle/sources .local/share/sandcastle/jobs/notes/1 \
		.local/state/sandcastle .config/systemd/user/sandcastle.service.d \
		/run/user/$uid/sandcastle
	    cp /usr/share/doc/sandcastle/examples/config.yaml .config/sandcastle/
	    cp /usr/share/doc/sandcastle/examples/sources/notes.yaml .config/sandcastle/sources/
	    umask 077
	    head -c 32 /dev/urandom | base64 > .local/share/sandcastle/secrets/notes
	    echo sk-ant-canary > .local/share/sandcastle/secrets/claude
	    echo {\\\"note\\\": 1} > .local/share/sandcastle/jobs/notes/1/input.json
	    echo {\\\"tag\\\": \\\"canary\\\"} > .local/share/sandcastle/jobs/notes/1/output.json
	    echo 1 refusal > .local/state/sandcastle/gate-refusals
	    for u in sandcastle.target sandcastle-gate.service sandcastle-keep.service sandcastle.service; do
		echo \"# sandcastle build 000000000000, written by sandcastlectl install\" > .config/systemd/user/\$u
	    done
	    printf \"[Service]\nEnvironment=MINE=1\n\" > .config/systemd/user/sandcastle.service.d/10-mine.conf
	    : > /run/user/$uid/sandcastle/keep.sock.lock"
	snap() {
		find /home/op /run/user/$uid -printf "%p %m %u %g %s %T@ %i\n" | sort
		find /home/op /run/user/$uid -type f -exec sha256sum {} + | sort
	}
	snap > /debs/before
	[ "$(grep -c . /debs/before)" -ge 30 ] || fail "the account has too few files: $(wc -l < /debs/before)"
	apt-get install -y -q --no-install-recommends /debs/new.deb > /debs/upgrade.log 2>&1 ||
	    { tail -n 20 /debs/upgrade.log; fail "the upgrade did not install"; }
	grep -q "Unpacking sandcastle (.*) over (1.0.0~git" /debs/upgrade.log ||
	    { cat /debs/upgrade.log; fail "apt did not upgrade the earlier package"; }
	v=$(/usr/bin/sandcastlectl version | head -n 1)
	from=$(dpkg-query -W -f "\${Version}" sandcastle)
	snap | diff /debs/before - || fail "the upgrade changed the account'"'"'s files"
	apt-get purge -y -q sandcastle > /debs/purge.log 2>&1 || fail "apt-get purge"
	[ -e /usr/bin/sandcastlectl ] || [ -d /usr/libexec/sandcastle ] && fail "the purge left the package'"'"'s files"
	snap | diff /debs/before - || fail "the purge changed the account'"'"'s files"
	# The control: a file touched is seen.
	touch -d @1 /home/op/.local/share/sandcastle/jobs/notes/1/output.json
	snap | diff /debs/before - > /dev/null && fail "the snapshot did not see a file touched"
	echo "upgrade: passed (to $from, whose sandcastlectl says $v; $(grep -c . /debs/before) lines of the account'"'"'s files the same after the upgrade and the purge)"
' > "$work/upgrade.out" 2>&1
r=$(grep '^upgrade: ' "$work/upgrade.out" | tail -n 1)
case $r in
"upgrade: passed"*) result upgrade "${r#upgrade: } in $(( $(date +%s) - t )) s" ;;
*)	tail -n 30 "$work/upgrade.out" | sed "s/^/debcheck $RELEASE: /"
	result upgrade "${r#upgrade: }" ;;
esac
echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
