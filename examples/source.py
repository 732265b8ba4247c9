"""source: the source contract (sandcastled(8), SOURCE CONTRACT) once,
for the example sources beside it, notes.py and scans.py.

A source is its jobs, each waiting, held by the worker, or done, and
what it prints of a result; serve() answers the three calls for it with
Python's standard library alone.
"""

import argparse
import hmac
import json
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

# A result is at most max_output (1 MiB by default) inside its envelope.
MAX_BODY = 2 * 1024 * 1024


def log(line):
    print(time.strftime("%Y/%m/%d %H:%M:%S"), line, flush=True)


def printable(text):
    """The text on one line with every control character escaped: an
    output is untrusted, and a terminal obeys what it is sent."""
    return "".join(c if c.isprintable() else
                   "\\n" if c == "\n" else "\\u%04x" % ord(c) for c in text)


class Source:
    """A subclass names the source (name, under prefix), its jobs'
    capability, what a job is (noun, plural), and the string field of an
    output it prints after verb; items are (label or None, input)."""

    name = capability = noun = plural = field = verb = None
    prefix = ""

    def __init__(self, items):
        self.items = items
        self.state = {i: "waiting" for i in range(1, len(items) + 1)}

    def what(self, i):
        label = self.items[i - 1][0]
        return "%s %d" % (self.noun, i) + (" (%s)" % label if label else "")

    def waiting(self):
        return sum(1 for s in self.state.values() if s == "waiting")

    def claim(self, capabilities, limit):
        if self.capability not in capabilities:
            return []
        jobs = []
        for i, s in self.state.items():
            if s != "waiting" or len(jobs) == limit:
                continue
            self.state[i] = "held"
            jobs.append({"id": i, "capability": self.capability,
                         "input": self.items[i - 1][1]})
        return jobs

    def result(self, i, body):
        """The status to answer; prints what came back."""
        if self.state.get(i) != "held":
            return 409
        status, output = body.get("status"), body.get("output")
        if status == "succeeded" and isinstance(output, dict) and \
                isinstance(output.get(self.field), str):
            log('%s %s "%s"' % (self.what(i), self.verb,
                                printable(output[self.field])))
            self.state[i] = "done"
        elif status == "failed" and isinstance(body.get("error"), str):
            log("%s failed: %s" % (self.what(i), printable(body["error"])))
            self.state[i] = "done"
        elif status == "released":
            log("%s released: it waits again" % self.what(i))
            self.state[i] = "waiting"
        else:
            return 400
        return 200


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, fmt, *args):
        # One line per call on stderr; never a header, so never the token.
        sys.stderr.write("%s: %s\n" % (self.server.source.name, fmt % args))

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
        src = self.server.source
        if not self.authorized():
            self.answer(401, {"error": "wrong or missing token"})
        elif self.path == src.prefix + "/ping":
            self.answer(200, {"waiting": src.waiting()})
        else:
            self.answer(404, {"error": "no such call: GET " + self.path})

    def do_POST(self):
        if not self.authorized():
            self.answer(401, {"error": "wrong or missing token"})
            return
        prefix = self.server.source.prefix
        call = self.path[len(prefix):] \
            if self.path.startswith(prefix + "/") else ""
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
        self.answer(200, {"jobs": self.server.source.claim(caps, limit)})

    def result(self, i):
        src = self.server.source
        body = self.read_json()
        if body is None:
            return
        status = src.result(i, body)
        if status == 409:
            self.answer(409, {"error": "%s %d is not held for you" %
                              (src.noun, i)})
        elif status == 400:
            self.answer(400, {"error": "a result is succeeded with an "
                              "output {\"%s\": ...}, failed with an "
                              "error, or released" % src.field})
        else:
            self.answer(200, {})


class Server(HTTPServer):
    def handle_error(self, request, client_address):
        # A line, not a traceback: a client that hangs up is not a bug.
        sys.stderr.write("%s: %s: %s\n" % (self.source.name,
                         client_address[0], sys.exc_info()[1]))


def read_token(name, path):
    try:
        with open(path, "rb") as f:
            token = f.read()
    except OSError as e:
        sys.exit("%s: -token-file %s: %s" % (name, path, e.strerror))
    # As sandcastlectl secret set, one final line break is not the token's.
    token = token[:-1] if token.endswith(b"\n") else token
    if not token or b"\n" in token:
        sys.exit("%s: -token-file %s: the file must hold the token on one "
                 "line; set it with sandcastlectl secret set %s" %
                 (name, path, name))
    return token


def parser(name, description, example, tls=False):
    """The options every source takes; -cert and -key where tls."""
    def listen(value):
        host, sep, port = value.rpartition(":")
        if not sep or not host or not port.isdigit() or int(port) > 65535:
            raise argparse.ArgumentTypeError(
                "%r is not ip:port, as %s" % (value, example))
        return host, int(port)

    p = argparse.ArgumentParser(prog=name, description=description)
    # Required: sandcastle never opens loopback, so no default would do.
    p.add_argument("-listen", required=True, type=listen,
                   metavar="ip:port", help="the address in internal:")
    p.add_argument("-token-file", required=True, metavar="file",
                   help="the file that holds the worker token")
    if tls:
        p.add_argument("-cert", metavar="file", help="serve https: the chain")
        p.add_argument("-key", metavar="file", help="and its private key")
    return p


def serve_tls(server, name, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as e:
        sys.exit("%s: -cert %s -key %s: %s" % (name, cert, key, e))
    # The handshake in the handler, under its timeout: in accept, one
    # silent client would hold the server for good.
    server.socket = ctx.wrap_socket(server.socket, server_side=True,
                                    do_handshake_on_connect=False)


def serve(src, opts):
    """Listens on -listen (https with -cert), then answers until ^C."""
    try:
        server = Server(opts.listen, Handler)
    except OSError as e:
        sys.exit("%s: cannot listen on %s:%d: %s" %
                 (src.name, opts.listen[0], opts.listen[1], e.strerror))
    server.source = src
    scheme = "http"
    if getattr(opts, "cert", None):
        serve_tls(server, src.name, opts.cert, opts.key)
        scheme = "https"
    server.token = read_token(src.name, opts.token_file)
    # The address bound, so that port 0 (any free port) says which.
    host, port = server.server_address[:2]
    log("%s: %d %s waiting at %s://%s:%d%s" % (src.name, src.waiting(),
        src.plural, scheme, host, port, src.prefix))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
