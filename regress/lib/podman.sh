#!/bin/sh
# make test's podman setup, as root: the packages rootless Podman needs
# here, and each test account's own containers.conf (the accounts
# accounts.sh made, or those named).  Idempotent.
#
# This machine has cgroup v1 (hybrid) and no systemd as PID 1: crun
# refuses hybrid mode, so the account uses runc, the cgroupfs manager
# and the file events logger.  Boxes have --network none: no slirp4netns
# or pasta is needed for them.  The kernel's own overlay works rootless
# (5.13 and later); fuse-overlayfs is installed for older kernels, where
# podman picks it by itself.
set -eu

PKGS="podman runc uidmap fuse-overlayfs catatonit"

[ "$(id -u)" -eq 0 ] || { echo "podman: run as root" >&2; exit 1; }

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "podman: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

want='# Written by sandcastle regress/lib/podman.sh: cgroup v1, no systemd.
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[containers]
log_driver = "k8s-file"'
want_storage='# Written by sandcastle regress/lib/podman.sh.
[storage]
driver = "overlay"'

# account NAME: its containers.conf, storage.conf and runtime folder.
account()
{
	USER_NAME=$1
	id -u "$USER_NAME" >/dev/null 2>&1 ||
	    { echo "podman: no account $USER_NAME: run accounts.sh first" >&2; exit 1; }
	grep -q "^$USER_NAME:" /etc/subuid && grep -q "^$USER_NAME:" /etc/subgid ||
	    { echo "podman: $USER_NAME has no range in /etc/subuid or /etc/subgid" >&2; exit 1; }

	home=$(getent passwd "$USER_NAME" | cut -d: -f6)
	uid=$(id -u "$USER_NAME")
	gid=$(id -g "$USER_NAME")
	conf=$home/.config/containers/containers.conf
	install -d -o "$USER_NAME" -g "$gid" -m 0700 "$home/.config" \
	    "$home/.config/containers"
	if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
		printf '%s\n' "$want" > "$conf"
		chown "$USER_NAME:$gid" "$conf"
		chmod 0600 "$conf"
		echo "podman: wrote $conf"
	fi

	# podman 4.3 picks vfs for a new rootless store here (a full copy of
	# the image per box); the kernel's overlay works rootless, so name it.
	storage=$home/.config/containers/storage.conf
	if [ ! -f "$storage" ] || [ "$(cat "$storage")" != "$want_storage" ]; then
		if [ -d "$home/.local/share/containers/storage/vfs" ]; then
			# A vfs store cannot be read as overlay: start it anew.
			rm -rf "$home/.local/share/containers/storage"
		fi
		printf '%s\n' "$want_storage" > "$storage"
		chown "$USER_NAME:$gid" "$storage"
		chmod 0600 "$storage"
		echo "podman: wrote $storage"
	fi

	# The runtime folder podman keeps its state in for the account: fixed,
	# since podman refuses a store whose runtime folder moved.
	run=/run/user/$uid
	install -d -m 0755 /run/user
	install -d -o "$USER_NAME" -g "$gid" -m 0700 "$run"
	echo "podman: ready for $USER_NAME (HOME=$home XDG_RUNTIME_DIR=$run)"
}

for a in ${*:-sctest $(seq -f 'sctest%g' 1 "${SC_POOL:-8}")}; do
	account "$a"
done
