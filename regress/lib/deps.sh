#!/bin/sh
# make deps: installs every Debian package the build and the regress suite
# need, and those named as arguments (make reference's), on Debian 12 or
# later.  Idempotent: it asks apt only for what is missing.  No name is
# one release's: the clang runtime is the installed clang's own
# (libclang-rt-<its major>-dev), and a package the release's archive
# lacks is named, with what needs it, before apt is asked for anything.
set -eu

PKGS="gcc make pkg-config git
libtls-dev libssl-dev libbsd-dev libmd-dev libyaml-dev libjsmn-dev libseccomp-dev
kyua atf-sh libatf-dev mandoc
clang
util-linux bsdutils procps passwd iproute2 strace gdb python3 openssl bc
passt dnsmasq-base nftables conntrack
libpng-dev libjpeg-dev libwebp-dev libtesseract-dev tesseract-ocr-eng
podman runc uidmap fuse-overlayfs catatonit
$*"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# The sanitizers' and libFuzzer's runtime, for the clang installed.
clang_rt()
{
	_v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
	[ -n "$_v" ] && echo "libclang-rt-$_v-dev"
}

missing()
{
	_m=
	for _p in "$@"; do
		installed "$_p" || _m="$_m $_p"
	done
	echo "$_m"
}

# What needs a package, when the release has none of that name.
why()
{
	case $1 in
	libclang-rt-*)	echo "make fuzz's libFuzzer and the sanitized unit tests" ;;
	kyua|atf-sh|libatf-dev) echo "make test's runner and its test programs" ;;
	passt)		echo "pasta, the boxes' and the gate's network" ;;
	nftables|conntrack) echo "t_router's home router, a NAT" ;;
	podman|runc|uidmap|fuse-overlayfs|catatonit) echo "the boxes (rootless Podman)" ;;
	lib*-dev)	echo "the build" ;;
	*)		echo "the build or the regress suite" ;;
	esac
}

install_missing()
{
	[ -n "$1" ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing:$1; run make deps as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "${DEPS_UPDATED:-}" ]; then
		apt-get update -q
		DEPS_UPDATED=1
	fi
	_lack=
	for _p in $1; do
		apt-cache show --no-all-versions "$_p" > /dev/null 2>&1 ||
		    _lack="$_lack
deps: this release ($(. /etc/os-release; echo "$PRETTY_NAME")) has no package $_p, which $(why "$_p") need"
	done
	if [ -n "$_lack" ]; then
		echo "${_lack#?}" >&2
		exit 1
	fi
	echo "deps: installing$1"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $1
}

install_missing "$(missing $PKGS)"
rt=$(clang_rt) || { echo "deps: clang -dumpversion says no version" >&2; exit 1; }
install_missing "$(missing "$rt")"
echo "deps: every package is installed"
