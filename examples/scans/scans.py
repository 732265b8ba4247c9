#!/usr/bin/env python3
"""scans: a source for ocr, as a scanner inside the network would be.

It hands out the images of a folder, or one image it draws itself, as
ocr jobs, and prints the text that comes back.  It answers the three
calls of the source contract (sandcastled(8), SOURCE CONTRACT) under
/api/worker, as examples/sources/scans.yaml's address has them, and uses
only Python's standard library.

    python3 examples/scans/scans.py -listen 192.168.1.21:8443 \\
        -token-file ~/.local/share/sandcastle/secrets/scans \\
        -cert scans.crt -key scans.key -dir ~/scans
"""

import argparse
import base64
import hmac
import json
import os
import ssl
import struct
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, HTTPServer

PREFIX = "/api/worker"
KINDS = (".png", ".jpg", ".jpeg", ".webp")
# ocr's max_input is 16 MiB of base64 by default: 12 MiB of image.
MAX_IMAGE = 12 * 1024 * 1024
MAX_BODY = 2 * 1024 * 1024

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


def log(line):
    print(time.strftime("%Y/%m/%d %H:%M:%S"), line, flush=True)


def printable(text):
    """The text on one line with every control character escaped: an
    output is untrusted, and a terminal obeys what it is sent."""
    return "".join(c if c.isprintable() else
                   "\\n" if c == "\n" else "\\u%04x" % ord(c) for c in text)


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
            log("scans: %s is over %d bytes, ocr's max_input: left out" %
                (path, MAX_IMAGE))
            continue
        with open(path, "rb") as f:
            images.append((name, f.read()))
    if not images:
        sys.exit("scans: -dir %s holds no .png, .jpg or .webp image" % folder)
    return images


class Jobs:
    """Each image is a job: waiting, held by the worker, or done."""

    def __init__(self, images):
        self.names = [name for name, _ in images]
        self.inputs = [{"image": base64.b64encode(data).decode()}
                       for _, data in images]
        self.state = {i: "waiting" for i in range(1, len(images) + 1)}

    def waiting(self):
        return sum(1 for s in self.state.values() if s == "waiting")

    def claim(self, capabilities, limit):
        if "ocr" not in capabilities:
            return []
        jobs = []
        for i, s in self.state.items():
            if s != "waiting" or len(jobs) == limit:
                continue
            self.state[i] = "held"
            jobs.append({"id": i, "capability": "ocr",
                         "input": self.inputs[i - 1]})
        return jobs

    def result(self, i, body):
        """The status to answer; prints what came back."""
        if self.state.get(i) != "held":
            return 409
        status, output = body.get("status"), body.get("output")
        what = "image %d (%s)" % (i, self.names[i - 1])
        if status == "succeeded" and isinstance(output, dict) and \
                isinstance(output.get("text"), str):
            log('%s reads "%s"' % (what, printable(output["text"])))
            self.state[i] = "done"
        elif status == "failed" and isinstance(body.get("error"), str):
            log("%s failed: %s" % (what, printable(body["error"])))
            self.state[i] = "done"
        elif status == "released":
            log("%s released: it waits again" % what)
            self.state[i] = "waiting"
        else:
            return 400
        return 200


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, fmt, *args):
        # One line per call on stderr; never a header, so never the token.
        sys.stderr.write("scans: %s\n" % (fmt % args))

    def answer(self, status, value):
        data = json.dumps(value).encode() + b"\n"
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def authorized(self):
        got = self.headers.get("Authorization", "").encode()
        return hmac.compare_digest(got, b"Bearer " + self.server.token)

    def read_json(self):
        """The body as a JSON object, or None once an error is answered."""
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.answer(411, {"error": "a body needs a Content-Length"})
            return None
        if n < 0 or n > MAX_BODY:
            self.answer(413, {"error": "the body is over %d bytes" % MAX_BODY})
            return None
        try:
            value = json.loads(self.rfile.read(n))
        except ValueError as e:
            self.answer(400, {"error": "the body is not JSON: %s" % e})
            return None
        if not isinstance(value, dict):
            self.answer(400, {"error": "the body is not a JSON object"})
            return None
        return value

    def do_GET(self):
        if not self.authorized():
            self.answer(401, {"error": "wrong or missing token"})
        elif self.path == PREFIX + "/ping":
            self.answer(200, {"waiting": self.server.jobs.waiting()})
        else:
            self.answer(404, {"error": "no such call: GET " + self.path})

    def do_POST(self):
        if not self.authorized():
            self.answer(401, {"error": "wrong or missing token"})
            return
        call = self.path[len(PREFIX):] \
            if self.path.startswith(PREFIX + "/") else ""
        parts = call.split("/")
        if call == "/jobs/claim":
            self.claim()
        elif len(parts) == 4 and parts[:2] == ["", "jobs"] and \
                parts[3] == "result" and parts[2].isdigit():
            self.result(int(parts[2]))
        else:
            self.answer(404, {"error": "no such call: POST " + self.path})

    def claim(self):
        body = self.read_json()
        if body is None:
            return
        caps, limit = body.get("capabilities"), body.get("limit")
        if not isinstance(caps, list) or type(limit) is not int or limit < 0:
            self.answer(400, {"error": "a claim needs capabilities, a list, "
                                       "and limit, a number"})
            return
        self.answer(200, {"jobs": self.server.jobs.claim(caps, limit)})

    def result(self, i):
        body = self.read_json()
        if body is None:
            return
        status = self.server.jobs.result(i, body)
        if status == 409:
            self.answer(409, {"error": "image %d is not held for you" % i})
        elif status == 400:
            self.answer(400, {"error": "a result is succeeded with an "
                              "output {\"text\": ...}, failed with an "
                              "error, or released"})
        else:
            self.answer(200, {})


class Server(HTTPServer):
    def handle_error(self, request, client_address):
        # A line, not a traceback: a client that hangs up is not a bug.
        sys.stderr.write("scans: %s: %s\n" %
                         (client_address[0], sys.exc_info()[1]))


def read_token(path):
    try:
        with open(path, "rb") as f:
            token = f.read()
    except OSError as e:
        sys.exit("scans: -token-file %s: %s" % (path, e.strerror))
    # As sandcastlectl secret set, one final line break is not the token's.
    token = token[:-1] if token.endswith(b"\n") else token
    if not token or b"\n" in token:
        sys.exit("scans: -token-file %s: the file must hold the token on "
                 "one line; set it with sandcastlectl secret set scans" % path)
    return token


def parse_listen(value):
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            "%r is not ip:port, as 192.168.1.21:8443" % value)
    return host, int(port)


def serve_tls(server, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as e:
        sys.exit("scans: -cert %s -key %s: %s" % (cert, key, e))
    # The handshake in the handler, under its timeout: in accept, one
    # silent client would hold the server for good.
    server.socket = ctx.wrap_socket(server.socket, server_side=True,
                                    do_handshake_on_connect=False)


def main():
    p = argparse.ArgumentParser(
        prog="scans", description="an example ocr source of sandcastle")
    # Required: sandcastle never opens loopback, so no default would do.
    p.add_argument("-listen", required=True, type=parse_listen,
                   metavar="ip:port", help="the address in internal:")
    p.add_argument("-token-file", required=True, metavar="file",
                   help="the file that holds the worker token")
    p.add_argument("-dir", metavar="folder",
                   help="hand out its images, not the built-in one")
    p.add_argument("-cert", metavar="file", help="serve https: the chain")
    p.add_argument("-key", metavar="file", help="and its private key")
    opts = p.parse_args()
    if (opts.cert is None) != (opts.key is None):
        p.error("-cert and -key go together")
    images = folder_images(opts.dir) if opts.dir else \
        [("built-in", builtin_image())]
    try:
        server = Server(opts.listen, Handler)
    except OSError as e:
        sys.exit("scans: cannot listen on %s:%d: %s" %
                 (opts.listen[0], opts.listen[1], e.strerror))
    scheme = "http"
    if opts.cert:
        serve_tls(server, opts.cert, opts.key)
        scheme = "https"
    server.token = read_token(opts.token_file)
    server.jobs = Jobs(images)
    # The address bound, so that port 0 (any free port) says which.
    host, port = server.server_address[:2]
    log("scans: %d image(s) waiting at %s://%s:%d%s" %
        (server.jobs.waiting(), scheme, host, port, PREFIX))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
