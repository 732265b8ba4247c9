#!/bin/sh
# image.sh BOX CAP: builds the image sandcastle-CAP:<build> of a test
# build of sandcastle-box (BOX: box/sandcastle-box-test and the like)
# and prints <build>, the first 12 hex digits of BOX's SHA-256: a box of
# another binary is another image, and the launcher asks for it by
# passing that build to job_init().  The image is made as sandcastlectl
# install makes one: FROM scratch, offline, the binary as /sandcastle-box
# with the libraries ldd names and the loader, the build file, nobody's
# passwd and group, an empty /tmp and, for ocr, eng's traineddata and
# the file that names it.  An image of that build already there is
# kept.  Run as the account that runs the boxes.
set -eu

box=$1
cap=$2
build=$(sha256sum < "$box" | cut -c1-12)
tag=sandcastle-$cap:$build
if podman image exists "$tag"; then
	echo "$build"
	exit 0
fi
ctx=$(mktemp -d "${TMPDIR:-/tmp}/sc-testbox.XXXXXXXX")
trap 'rm -rf "$ctx"' EXIT
root=$ctx/root
mkdir -p "$root/etc" "$root/tmp" "$root/sandcastle"
cp "$box" "$root/sandcastle-box"
ldd "$box" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
    while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
echo "$build" > "$root/sandcastle/build"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/sandcastle-box' > "$root/etc/passwd"
echo 'nogroup:x:65534:' > "$root/etc/group"
if [ "$cap" = ocr ]; then
	mkdir -p "$root/sandcastle/tessdata"
	cp /usr/share/tesseract-ocr/5/tessdata/eng.traineddata "$root/sandcastle/tessdata/"
	echo eng > "$root/sandcastle/languages"
fi
printf 'FROM scratch\nCOPY root/ /\nUSER 65534:65534\nCMD ["/sandcastle-box"]\n' \
    > "$ctx/Containerfile"
podman build --pull=never --network=none -q -t "$tag" -f "$ctx/Containerfile" \
    "$ctx" >/dev/null
echo "$build"
