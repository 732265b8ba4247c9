#!/bin/sh
# make deps: installs every Debian package the build and the regress suite
# need, and those named as arguments (make reference's).  Idempotent: it
# asks apt only for what is missing.
set -eu

PKGS="gcc make pkg-config git
libtls-dev libbsd-dev libmd-dev libyaml-dev libjsmn-dev libseccomp-dev
kyua atf-sh libatf-dev mandoc
clang libclang-rt-14-dev
util-linux bsdutils procps passwd iproute2 strace gdb python3 openssl bc
passt dnsmasq-base
libpng-dev libjpeg-dev libwebp-dev libtesseract-dev tesseract-ocr-eng
podman runc uidmap fuse-overlayfs catatonit
$*"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: every package is installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing:$missing; run make deps as root" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
