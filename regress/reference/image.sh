#!/bin/sh
# image.sh CACHE [RELEASE]: the reference machine's guest of a Debian
# release (bookworm, the default, trixie or testing), built once and kept
# in CACHE/guest-<release>-<key>/, where key is the SHA-256 of the
# release, the package list and this file: disk.img (a raw ext4 root, sparse), vmlinuz and initrd.img
# (the guest's own kernel, given to qemu with -kernel), packages.txt
# (what dpkg installed).  Prints that folder.  As root.
#
# Everything comes from Debian packages: debootstrap from the mirror apt
# uses here.  The guest has no network of its own when it runs: what it
# needs of this build comes on a 9p share (regress/reference/run.sh).
# The image holds the accounts and a unit that runs the suite from the
# share at each boot; nothing of sandcastle.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$1
HERE=$TOP/regress/reference
SUITE=${2:-bookworm}
say() { echo "reference: $*" >&2; }
die() { echo "reference: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "image.sh runs as root (debootstrap)"

key=$({ echo "$SUITE"; cat "$HERE/packages" "$HERE/image.sh" "$HERE/libs.awk"; } |
    sha256sum | cut -c1-12)
dir=$CACHE/guest-$SUITE-$key
if [ -f "$dir/disk.img" ] && [ -f "$dir/vmlinuz" ] && [ -f "$dir/initrd.img" ]; then
	say "the guest image is cached: $dir"
	echo "$dir"
	exit 0
fi

# The mirror apt uses here, so that the guest's libraries are this
# machine's.
. "$TOP/regress/release/mirror.subr"
mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/build.XXXXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

# The libraries, as this release names them, from its Packages index.
/usr/lib/apt/apt-helper download-file \
    "$MIRROR/dists/$SUITE/main/binary-amd64/Packages.xz" "$work/Packages.xz" \
    > "$work/apt-helper.log" 2>&1 ||
    { cat "$work/apt-helper.log" >&2; die "$MIRROR has no Packages index of $SUITE"; }
libs=$(xz -dc "$work/Packages.xz" | awk -f "$HERE/libs.awk" \
    -v WANT="$(sed -n 's/^@//p' "$HERE/packages" | paste -sd' ' -)")
lack=$(echo "$libs" | sed -n 's/^?//p')
[ -z "$lack" ] || die "$SUITE: $(echo "$lack" | paste -sd';' -)"
pkgs=$({ grep -v '^[#@]' "$HERE/packages" | grep .; echo "$libs"; } | paste -sd, -)
say "debootstrap $SUITE from $MIRROR into $root (a few minutes)"
debootstrap --variant=minbase --include="$pkgs" "$SUITE" "$root" "$MIRROR" \
    "$(debootstrap_script "$SUITE")" \
    > "$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed"; }

# The machine: its name, its root and the share, no password for root
# (the console is never logged into), the operator op and another
# account with no privileges, each op's range of subordinate ids.
echo reference > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\treference\n' > "$root/etc/hosts"
cat > "$root/etc/fstab" <<'EOF'
/dev/vda / ext4 rw 0 1
share /share 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0
EOF
mkdir -p "$root/share"
chroot "$root" passwd -d root >/dev/null
chroot "$root" useradd --create-home --shell /bin/bash --user-group op
chroot "$root" useradd --create-home --shell /bin/bash --user-group other
echo 'op:100000:65536' > "$root/etc/subuid"
echo 'op:100000:65536' > "$root/etc/subgid"
# The home network's resolver, in the world namespace the suite makes.
echo 'nameserver 198.20.5.53' > "$root/etc/resolv.conf"
# podman 4.3 picks vfs for a new rootless store (a full copy of the
# image for each box); the kernel's overlay works rootless: the
# machine's own setting, as an administrator would make it.
printf '[storage]\ndriver = "overlay"\n' > "$root/etc/containers/storage.conf"
# pasta opens /dev/net/tun as the operator.
echo 'KERNEL=="tun", MODE="0666"' > "$root/etc/udev/rules.d/60-tun.rules"

# The suite's runner: at each boot, once the machine is up, the share's
# guest.sh as root; it powers the machine off or reboots it itself, and
# a runner that fails powers it off.
cat > "$root/etc/systemd/system/sandcastle-reference.service" <<'EOF'
[Unit]
Description=sandcastle's reference suite, from the share
After=local-fs.target network.target systemd-logind.service
RequiresMountsFor=/share
FailureAction=poweroff-force

[Service]
Type=simple
ExecStart=/bin/sh /share/in/reference/guest.sh
StandardOutput=append:/share/out/guest.log
StandardError=inherit

[Install]
WantedBy=multi-user.target
EOF
# The home network comes up at boot, before network.target, as a real
# machine's does: the user manager, which lingering starts after it,
# finds the machine's interface and its default route there.
cat > "$root/etc/systemd/system/sandcastle-homenet.service" <<'EOF'
[Unit]
Description=the reference machine's home network (regress/reference/homenet.sh)
RequiresMountsFor=/share
Before=network.target
Wants=network.target

[Service]
Type=oneshot
RemainAfterExit=yes
# A oneshot waits for ever by default: the boot would hang with it.
TimeoutStartSec=300
ExecStart=/bin/sh /share/in/reference/homenet.sh up
ExecStop=/bin/sh /share/in/reference/homenet.sh down

[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable sandcastle-reference.service \
    sandcastle-homenet.service >/dev/null 2>&1
# Nothing to wait for at boot: no network, no login on a console, no
# timer of Debian's (podman's auto-update, e2scrub, apt) to run in the
# middle of the suite.
for u in systemd-networkd-wait-online.service getty@tty1.service \
    serial-getty@ttyS0.service podman-auto-update.timer \
    podman-auto-update.service podman-restart.service podman.socket \
    podman.service \
    e2scrub_reap.service e2scrub_all.timer apt-daily.timer \
    apt-daily-upgrade.timer dpkg-db-backup.timer fstrim.timer; do
	chroot "$root" systemctl mask "$u" >/dev/null 2>&1 || true
done
# An initrd of what this machine boots from alone: emulated, unpacking
# one of most modules takes longer than the rest of the kernel's start.
# The kernel's package picks its maker: initramfs-tools on Debian 12 and
# 13, dracut on testing.
kver=$(ls "$root/lib/modules" | sort -V | tail -n 1)
if [ -f "$root/etc/initramfs-tools/initramfs.conf" ]; then
	sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
	printf 'virtio_pci\nvirtio_blk\next4\n' >> "$root/etc/initramfs-tools/modules"
	chroot "$root" update-initramfs -u -k all > "$work/initramfs.log" 2>&1
else
	chroot "$root" dracut --force --no-hostonly --no-hostonly-cmdline \
	    --drivers "virtio_pci virtio_blk ext4" --kver "$kver" \
	    "/boot/initrd.img-$kver" > "$work/initramfs.log" 2>&1
fi || { cat "$work/initramfs.log" >&2; die "the initrd could not be made"; }

chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' > "$work/packages.txt"
cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1)" "$work/vmlinuz"
cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)" "$work/initrd.img"
rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*_Packages

truncate -s 8G "$work/disk.img"
mkfs.ext4 -q -F -L reference -d "$root" "$work/disk.img" ||
    die "mkfs.ext4 -d could not make the disk"
rm -rf "$root"

# Only the newest guest of each release is kept.
for old in "$CACHE/guest-$SUITE"-*; do
	[ -d "$old" ] && [ "$old" != "$dir" ] && rm -rf "$old"
done
rm -rf "$dir"
mkdir "$dir"
mv "$work/disk.img" "$work/vmlinuz" "$work/initrd.img" "$work/packages.txt" \
    "$work/debootstrap.log" "$dir/"
say "the guest image is built: $dir"
echo "$dir"
