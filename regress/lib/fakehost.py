#!/usr/bin/env python3
"""A test host for the regress suite: an HTTP(S) server on a test
network namespace's address, whose answers a test writes in a scenario
file, and which records every request it gets.

It is test equipment, never part of sandcastle: it lets a test play a
source, the Claude API or a hostile destination, answer well or badly
(redirects, floods, bad chunks, slow answers) and then read back exactly
what reached it (the path, the headers, the body).

The scenario is JSON, read again for every request:
  {"routes": {"/api/worker/ping": {"status": 200, "json": {"waiting": 3}}},
   "default": {"status": 404, "body": "no such route"}}
A route's answer may have: status, headers (an object), body (text),
json (a value, sent as application/json), size (a body of that many
bytes), chunks (a list of texts, sent chunked), raw (the exact bytes of
the whole answer), delay (seconds before answering), trickle (seconds
between bytes of raw), close (close without an answer), close_reused
(the same, for a request that is not its connection's first), after (a
list of texts sent after the answer, each in a write, so a TLS record,
of its own: bytes no request asked for).

After an answer the connection is closed, without a word, unless the
scenario has "keep_alive": true: then it stays open for the next
request, whatever the answer's headers say, until the client closes it
or asks for it to close.  Each request is logged with "conn", the
number of its connection (1 for the host's first), so that a test sees
which requests shared one.
"""

import argparse
import json
import sys
import time

from testserver import LoggedHandler, TestServer, add_host_flags, serve

class Handler(LoggedHandler):
    server_version = "fakehost"

    def setup(self):
        super().setup()
        self.nreq = 0

    def answer_for(self):
        """The scenario and the route's answer."""
        try:
            with open(self.server.opts.scenario) as f:
                sc = json.load(f)
        except (OSError, ValueError):
            sc = {}
        routes = sc.get("routes", {})
        path = self.path.split("?", 1)[0]
        return sc, routes.get(path, sc.get("default", {"status": 404, "body": "no route\n"}))

    def handle_any(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n else b""
        self.record(body)
        self.nreq += 1
        sc, a = self.answer_for()
        time.sleep(a.get("delay", 0))
        if a.get("close") or (a.get("close_reused") and self.nreq > 1):
            self.close_connection = True
            return
        if "raw" in a:
            raw = a["raw"].encode("latin-1")
            step = a.get("trickle", 0)
            try:
                if step:
                    for i in range(len(raw)):
                        self.wfile.write(raw[i:i + 1])
                        self.wfile.flush()
                        time.sleep(step)
                else:
                    self.wfile.write(raw)
            except OSError:
                pass
            self.close_connection = True
            return
        self.send_response(a.get("status", 200))
        hdrs = dict(a.get("headers", {}))
        if "json" in a:
            payload = json.dumps(a["json"]).encode()
            hdrs.setdefault("Content-Type", "application/json")
        elif "size" in a:
            payload = None
        else:
            payload = a.get("body", "").encode()
        for k, v in hdrs.items():
            self.send_header(k, v)
        try:
            if "chunks" in a:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for c in a["chunks"]:
                    b = c.encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
                self.wfile.write(b"0\r\n\r\n")
            elif payload is None:
                size = a["size"]
                self.send_header("Content-Length", str(size))
                self.end_headers()
                block = b"a" * 65536
                while size > 0:
                    self.wfile.write(block[:min(size, len(block))])
                    size -= len(block)
            else:
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            for t in a.get("after", []):
                self.wfile.write(t.encode())
        except OSError:
            pass
        asked = self.headers.get("connection", "").lower() == "close"
        self.close_connection = asked or not sc.get("keep_alive")

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any


def main():
    p = argparse.ArgumentParser()
    add_host_flags(p)
    p.add_argument("--scenario", required=True)
    opts = p.parse_args()
    srv = TestServer(opts, Handler)
    return serve(srv)


if __name__ == "__main__":
    sys.exit(main())
