#!/usr/bin/env python3
"""A source for the regress suite: the source contract of sandcastled(8)
(GET <prefix>/ping, POST <prefix>/jobs/claim, POST <prefix>/jobs/<id>/result)
with its own state, on a test network namespace's address.

It is test equipment, never part of sandcastle.  The jobs it hands out
are a JSON list in --jobs ({"id", "capability", "input"}, each handed
out once, in order, and only for a capability the claim names, unless
it has "force": true); every
result it receives is one JSON line in --results ({"id", "auth",
"body"}); every request one line in --log.  The bearer token it takes
is --token: another gets 401.

With --strict it holds the contract as a real source would: a job it
hands out is held for the worker until its result comes; a result for a
job it does not hold (never handed out, or already answered) is answered
409; a released job goes back to the end of the queue, to be handed out
again.  Every result, 409s included, is one line in --results with the
status it was answered ("answer").

After an answer it closes the connection without a word, which a
worker finds out only when it asks on it again; with --keep-alive it
keeps it open for the next request, as a real HTTP/1.1 server does
(make bench's backlog is run so).

--mode FILE holds one word, read again for every request, for an answer
a hostile or broken source gives (no job of --jobs is used by them):
  normal     the contract, as above
  extra      a job with fields the contract does not know, and the answer too
  url        a job that names a url to fetch instead of an input
  badid      a job whose id is "../../x"
  dupkey     an answer with "jobs" twice
  deep       an input nested 40 deep
  huge       a number 1e999999 in the input
  badutf8    a string with a byte that is not UTF-8
  trailing   an answer with bytes after its value
  toomany    two jobs when the claim asked for one
  dupjobs    two jobs with the same id, 7 and "7"
  401        every call refused with 401
  409        results answered 409 (the claim works)
  hang       a claim answered after 60 seconds
  down       every call answered 503, as a source going away
and, for the contract as above but held at a moment a test chooses:
  holdclaim  a claim's answer waits while FILE.hold exists and is empty
             or holds the word claim (60 s at most)
  holdresult a result (logged as it comes) waits while FILE.hold exists
             and is empty or names its job's id, then is answered as
             the mode is then (409 if the test has set it meanwhile)
"""

import argparse
import json
import os
import select
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

from testserver import TestServer, add_host_flags, serve

LOCK = threading.Lock()
HOSTILE_ID = "h1"


def hostile(mode):
    """The body of a claim's answer in a hostile mode, as bytes."""
    job = '{"id": "%s", "capability": "ocr", "input": {"image": "AAAA"}}' % HOSTILE_ID
    deep = "[" * 40 + "]" * 40
    bodies = {
        "extra": '{"jobs": [{"id": "%s", "capability": "ocr", "priority": 9, '
                 '"callback": "http://198.20.5.12/steal", "input": {"image": "AAAA"}}], '
                 '"next": "http://198.20.5.12/more", "admin": true}' % HOSTILE_ID,
        "url": '{"jobs": [{"id": "%s", "capability": "ocr", '
               '"url": "http://198.20.5.12/image.png"}]}' % HOSTILE_ID,
        "badid": '{"jobs": [{"id": "../../x", "capability": "ocr", "input": {}}]}',
        "dupkey": '{"jobs": [%s], "jobs": []}' % job,
        "deep": '{"jobs": [{"id": "%s", "capability": "ocr", "input": %s}]}' % (HOSTILE_ID, deep),
        "huge": '{"jobs": [{"id": "%s", "capability": "ocr", "input": {"n": 1e999999}}]}' % HOSTILE_ID,
        "trailing": '{"jobs": [%s]} {"jobs": []}' % job,
        "toomany": '{"jobs": [%s, {"id": "h2", "capability": "ocr", "input": {}}]}' % job,
        "dupjobs": '{"jobs": [{"id": 7, "capability": "ocr", "input": {}}, '
                   '{"id": "7", "capability": "ocr", "input": {}}]}',
    }
    if mode == "badutf8":
        return b'{"jobs": [{"id": "h1", "capability": "ocr", "input": {"t": "\xff\xfe"}}]}'
    return bodies[mode].encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakesource"

    def log_message(self, fmt, *args):
        pass

    def mode(self):
        try:
            with open(self.server.opts.mode) as f:
                return f.read().strip() or "normal"
        except OSError:
            return "normal"

    def record(self, body):
        entry = {"time": time.time(), "method": self.command,
                 "path": self.path,
                 "auth": self.headers.get("authorization", ""),
                 "body": body.decode("utf-8", "replace")}
        with LOCK, open(self.server.opts.log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass
        self.close_connection = not self.server.opts.keep_alive

    def send_json(self, status, value):
        self.send(status, json.dumps(value).encode())

    def handle_any(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n else b""
        self.record(body)
        mode = self.mode()
        if mode == "down":
            return self.send_json(503, {"error": "going away"})
        prefix = self.server.opts.prefix
        path = self.path.split("?", 1)[0]
        if not path.startswith(prefix + "/"):
            return self.send_json(404, {"error": "no such route"})
        path = path[len(prefix):]
        if mode == "401" or self.headers.get("authorization") != "Bearer " + self.server.opts.token:
            return self.send_json(401, {"error": "bad token"})
        if self.command == "GET" and path == "/ping":
            with LOCK:
                waiting = len(self.server.jobs)
            return self.send_json(200, {"waiting": waiting})
        if self.command == "POST" and path == "/jobs/claim":
            return self.claim(mode, body)
        parts = path.split("/")
        if self.command == "POST" and len(parts) == 4 and parts[1] == "jobs" and parts[3] == "result":
            return self.result(mode, parts[2], body)
        return self.send_json(404, {"error": "no such route"})

    def held(self, job_id):
        """Whether the hold file exists and holds job_id: it names the
        ids of the results it holds, or holds every call when empty."""
        try:
            with open(self.server.opts.mode + ".hold") as f:
                ids = f.read().split()
        except OSError:
            return False
        return not ids or job_id in ids

    def hold(self, mode, what, job_id=None):
        """While the hold file holds it, a held call waits (60 s at most).
        False when the worker hung up meanwhile: a job handed out then
        would be held for a worker that never saw it."""
        if mode != "hold" + what:
            return True
        end = time.time() + 60
        while self.held(job_id) and time.time() < end:
            time.sleep(0.05)
        # The worker sent its whole request and waits: anything to read
        # now is its end.
        ready, _, _ = select.select([self.connection], [], [], 0)
        return not ready

    def claim(self, mode, body):
        if mode == "hang":
            time.sleep(60)
            return self.send_json(200, {"jobs": []})
        if mode not in ("normal", "409", "holdclaim", "holdresult"):
            return self.send(200, hostile(mode))
        if not self.hold(mode, "claim", "claim"):
            self.close_connection = True
            return None
        try:
            asked = json.loads(body)
            caps = asked["capabilities"]
        except (ValueError, KeyError, TypeError):
            return self.send_json(400, {"error": "bad claim"})
        with LOCK:
            for i, job in enumerate(self.server.jobs):
                if job.get("capability") in caps or job.pop("force", False):
                    del self.server.jobs[i]
                    self.server.held[str(job.get("id"))] = job
                    return self.send_json(200, {"jobs": [job]})
        return self.send_json(200, {"jobs": []})

    def result(self, mode, job_id, body):
        if mode == "holdresult":
            # A held result is answered as the mode says once let go:
            # a test holds one, sets 409, then lets it go.
            self.hold(mode, "result", job_id)
            mode = self.mode()
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        answer = 409 if mode == "409" else 200
        with LOCK:
            if self.server.opts.strict and answer == 200:
                job = self.server.held.pop(job_id, None)
                if job is None:
                    answer = 409
                elif isinstance(value, dict) and value.get("status") == "released":
                    self.server.jobs.append(job)
            entry = {"id": job_id, "auth": self.headers.get("authorization", ""),
                     "body": value}
            if self.server.opts.strict:
                entry["answer"] = answer
            if answer == 200 or self.server.opts.strict:
                with open(self.server.opts.results, "a") as f:
                    f.write(json.dumps(entry) + "\n")
        if answer == 409:
            return self.send_json(409, {"error": "no longer held"})
        return self.send_json(200, {"ok": True})

    do_GET = handle_any
    do_POST = handle_any


class Server(TestServer):
    def __init__(self, opts):
        with open(opts.jobs) as f:
            self.jobs = json.load(f)
        self.held = {}
        super().__init__(opts, Handler)


def main():
    p = argparse.ArgumentParser()
    add_host_flags(p)
    p.add_argument("--prefix", default="/api/worker")
    p.add_argument("--token", required=True)
    p.add_argument("--jobs", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--mode", required=True)
    p.add_argument("--strict", action="store_true")
    p.add_argument("--keep-alive", action="store_true")
    opts = p.parse_args()
    for f in (opts.results, opts.log):
        open(f, "a").close()
    srv = Server(opts)
    return serve(srv)


if __name__ == "__main__":
    sys.exit(main())
