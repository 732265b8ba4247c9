#!/usr/bin/env python3
"""notes: the smallest source that works, the one of the tutorials.

It holds three notes in memory and hands each out as a claude job that
asks for one tag, then prints the tag that comes back.  It answers the
three calls of the source contract (sandcastled(8), SOURCE CONTRACT)
and uses only Python's standard library.

    python3 examples/notes/notes.py -listen 192.168.1.20:8080 \\
        -token-file ~/.local/share/sandcastle/secrets/notes
"""

import argparse
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

NOTES = [
    "Soak the beans overnight, then simmer them with garlic and two bay "
    "leaves for about two hours.",
    "Renew the car insurance before the 15th; last year's quote is in "
    "the blue folder.",
    "The fern by the window wants water twice a week and no direct sun.",
]

# The reply must be one object with one string: the box checks it
# against this schema before the result comes back.
SCHEMA = {
    "type": "object",
    "properties": {"tag": {"type": "string"}},
    "required": ["tag"],
    "additionalProperties": False,
}

# A result is at most max_output (1 MiB by default) inside its envelope.
MAX_BODY = 2 * 1024 * 1024


def log(line):
    print(time.strftime("%Y/%m/%d %H:%M:%S"), line, flush=True)


def printable(text):
    """The text with every control character escaped: an output is
    untrusted, and a terminal obeys what it is sent."""
    return "".join(c if c.isprintable() else "\\u%04x" % ord(c)
                   for c in text)


class Jobs:
    """Each note is a job: waiting, held by the worker, or done."""

    def __init__(self, notes):
        self.notes = notes
        self.state = {i: "waiting" for i in range(1, len(notes) + 1)}

    def waiting(self):
        return sum(1 for s in self.state.values() if s == "waiting")

    def claim(self, capabilities, limit):
        if "claude" not in capabilities:
            return []
        jobs = []
        for i, s in self.state.items():
            if s != "waiting" or len(jobs) == limit:
                continue
            self.state[i] = "held"
            jobs.append({"id": i, "capability": "claude", "input": {
                "prompt": "Give this note one tag, a single lowercase "
                          "word that says what it is about.\n\n"
                          + self.notes[i - 1],
                "schema": SCHEMA}})
        return jobs

    def result(self, i, body):
        """The status to answer; prints what came back."""
        if self.state.get(i) != "held":
            return 409
        status = body.get("status")
        output = body.get("output")
        if status == "succeeded" and isinstance(output, dict) and \
                isinstance(output.get("tag"), str):
            log('note %d tagged "%s"' % (i, printable(output["tag"])))
            self.state[i] = "done"
        elif status == "failed" and isinstance(body.get("error"), str):
            log("note %d failed: %s" % (i, printable(body["error"])))
            self.state[i] = "done"
        elif status == "released":
            log("note %d released: it waits again" % i)
            self.state[i] = "waiting"
        else:
            return 400
        return 200


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, fmt, *args):
        # One line per call on stderr; never a header, so never the token.
        sys.stderr.write("notes: %s\n" % (fmt % args))

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
        """The body as JSON, or None once an error has been answered."""
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
        elif self.path == "/ping":
            self.answer(200, {"waiting": self.server.jobs.waiting()})
        else:
            self.answer(404, {"error": "no such call: GET " + self.path})

    def do_POST(self):
        if not self.authorized():
            self.answer(401, {"error": "wrong or missing token"})
            return
        parts = self.path.split("/")
        if self.path == "/jobs/claim":
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
            self.answer(409, {"error": "note %d is not held for you" % i})
        elif status == 400:
            self.answer(400, {"error": "a result is succeeded with an "
                              "output {\"tag\": ...}, failed with an "
                              "error, or released"})
        else:
            self.answer(200, {})


class Server(HTTPServer):
    def handle_error(self, request, client_address):
        # A line, not a traceback: a client that hangs up is not a bug.
        sys.stderr.write("notes: %s: %s\n" %
                         (client_address[0], sys.exc_info()[1]))


def read_token(path):
    try:
        with open(path, "rb") as f:
            token = f.read()
    except OSError as e:
        sys.exit("notes: -token-file %s: %s" % (path, e.strerror))
    # As sandcastlectl secret set, one final line break is not the token's.
    token = token[:-1] if token.endswith(b"\n") else token
    if not token or b"\n" in token:
        sys.exit("notes: -token-file %s: the file must hold the token on "
                 "one line; set it with sandcastlectl secret set notes" % path)
    return token


def parse_listen(value):
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(
            "%r is not ip:port, as 192.168.1.20:8080" % value)
    return host, int(port)


def main():
    p = argparse.ArgumentParser(
        prog="notes", description="the example source of sandcastle")
    # Required: sandcastle never opens loopback, so no default would do.
    p.add_argument("-listen", required=True, type=parse_listen,
                   metavar="ip:port", help="the address in internal:")
    p.add_argument("-token-file", required=True, metavar="file",
                   help="the file that holds the worker token")
    opts = p.parse_args()
    try:
        server = Server(opts.listen, Handler)
    except OSError as e:
        sys.exit("notes: cannot listen on %s:%d: %s" %
                 (opts.listen[0], opts.listen[1], e.strerror))
    server.token = read_token(opts.token_file)
    server.jobs = Jobs(NOTES)
    # The address bound, so that port 0 (any free port) says which.
    log("notes: %d notes waiting at http://%s:%d" %
        ((server.jobs.waiting(),) + server.server_address[:2]))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
