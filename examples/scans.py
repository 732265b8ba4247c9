#!/usr/bin/env python3
"""scans: a source for ocr, as a scanner inside the network would be.

It hands out the images of a folder, or one image it draws itself, as
ocr jobs, and prints the text that comes back.  source.py, beside it,
answers the three calls of the source contract (sandcastled(8), SOURCE
CONTRACT), here under /api/worker as examples/sources/scans.yaml's
address has them; both use only Python's standard library.

    python3 examples/scans.py -listen 192.168.1.21:8443 \\
        -token-file ~/.local/share/sandcastle/secrets/scans \\
        -cert scans.crt -key scans.key -dir ~/scans
"""

import base64
import os
import struct
import sys
import zlib

import source

KINDS = (".png", ".jpg", ".jpeg", ".webp")
# ocr's max_input is 16 MiB of base64 by default: 12 MiB of image.
MAX_IMAGE = 12 * 1024 * 1024

# The built-in image's text, in a 5x7 font drawn big: Tesseract reads
# large clean capitals reliably, and the demo must know what it reads.
TEXT = "HELLO WORLD"
FONT = {
    "H": (0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11),
    "E": (0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f),
    "L": (0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f),
    "O": (0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e),
    "W": (0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a),
    "R": (0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11),
    "D": (0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e),
    " ": (0, 0, 0, 0, 0, 0, 0),
}
SCALE, MARGIN = 12, 40


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + \
        struct.pack(">I", zlib.crc32(body))


def builtin_image():
    """TEXT as an 8-bit grey PNG, black on white."""
    w = MARGIN * 2 + (len(TEXT) * 6 - 1) * SCALE
    h = MARGIN * 2 + 7 * SCALE
    rows = []
    for y in range(h):
        row = bytearray(b"\xff" * w)
        gy = (y - MARGIN) // SCALE
        for i, c in enumerate(TEXT):
            for gx in range(5):
                if 0 <= gy < 7 and FONT[c][gy] & (0x10 >> gx):
                    x = MARGIN + (i * 6 + gx) * SCALE
                    row[x:x + SCALE] = b"\x00" * SCALE
        rows.append(b"\x00" + bytes(row))
    return b"\x89PNG\r\n\x1a\n" + \
        png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + \
        png_chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + \
        png_chunk(b"IEND", b"")


def folder_images(folder):
    """(name, bytes) for each image of the folder, sorted by name."""
    images = []
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        sys.exit("scans: -dir %s: %s" % (folder, e.strerror))
    for name in names:
        path = os.path.join(folder, name)
        if not name.lower().endswith(KINDS) or not os.path.isfile(path):
            continue
        if os.path.getsize(path) > MAX_IMAGE:
            source.log("scans: %s is over %d bytes, ocr's max_input: left out" %
                (path, MAX_IMAGE))
            continue
        with open(path, "rb") as f:
            images.append((name, f.read()))
    if not images:
        sys.exit("scans: -dir %s holds no .png, .jpg or .webp image" % folder)
    return images


class Scans(source.Source):
    name, capability, noun, plural = "scans", "ocr", "image", "image(s)"
    field, verb, prefix = "text", "reads", "/api/worker"


def main():
    p = source.parser("scans", "an example ocr source of sandcastle",
                      "192.168.1.21:8443", tls=True)
    p.add_argument("-dir", metavar="folder",
                   help="hand out its images, not the built-in one")
    opts = p.parse_args()
    if (opts.cert is None) != (opts.key is None):
        p.error("-cert and -key go together")
    images = folder_images(opts.dir) if opts.dir else \
        [("built-in", builtin_image())]
    source.serve(Scans([(name, {"image": base64.b64encode(data).decode()})
                        for name, data in images]), opts)


if __name__ == "__main__":
    main()
