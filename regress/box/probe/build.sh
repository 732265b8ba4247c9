#!/bin/sh
# build.sh PROBE SUM [IMAGE]: builds the image IMAGE, by default
# sandcastle-probe:<first 12 of SUM>, labelled sandcastle.probe=SUM (the
# SHA-256 of its sources), out of the static probe, the way sandcastlectl
# install builds a box image: FROM scratch, offline, the program as
# /sandcastle-box, nobody's passwd and group, an empty /tmp.  Run as the
# account that runs the boxes.
set -eu

probe=$1
sum=$2
image=${3:-sandcastle-probe:$(echo "$sum" | cut -c1-12)}
ctx=$(mktemp -d "${TMPDIR:-/tmp}/sc-probe.XXXXXXXX")
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/etc" "$ctx/tmp" "$ctx/sandcastle"
cp "$probe" "$ctx/sandcastle-box"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/sandcastle-box' > "$ctx/etc/passwd"
echo 'nogroup:x:65534:' > "$ctx/etc/group"
echo test > "$ctx/sandcastle/build"
cat > "$ctx/Containerfile" <<CF
FROM scratch
COPY sandcastle-box /sandcastle-box
COPY etc /etc
COPY sandcastle /sandcastle
COPY tmp /tmp
USER 65534:65534
LABEL sandcastle.probe=$sum
CMD ["/sandcastle-box"]
CF
# Named after its source by default: runs of other checkouts, with
# another probe, build their own image beside it and never take this
# one's name.
podman build --pull=never --network=none -q -t "$image" \
    -f "$ctx/Containerfile" "$ctx" >/dev/null
