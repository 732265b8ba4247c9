"""What the suite's test hosts (fakehost.py, fakeapi.py, fakesource.py)
share: a threaded HTTP server on a test network's address, with TLS when
given a certificate, the flags every host takes, the ready file a test
waits for, and a handler that numbers its connections and logs each
request.  Test equipment, never part of sandcastle."""

import json
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


class TestServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, opts, handler):
        self.opts = opts
        super().__init__((opts.bind, opts.port), handler)
        if opts.cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(opts.cert, opts.key)
            self.socket = ctx.wrap_socket(self.socket, server_side=True)

    def get_request(self):
        # A handler writes an answer's head and its body apart: on a kept
        # connection, Nagle's algorithm would hold the body back until the
        # worker's delayed acknowledgement of the head, some 40 ms, a hold
        # nginx's and Go's servers do not make.
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr

    def handle_error(self, request, client_address):
        pass


class LoggedHandler(BaseHTTPRequestHandler):
    """A handler whose connections are numbered from 1 (self.conn) and
    whose record() logs a request as one JSON line in --log."""
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        with LOCK:
            self.server.nconn = getattr(self.server, "nconn", 0) + 1
            self.conn = self.server.nconn

    def record(self, body, **extra):
        """method, path, headers, body, extra's keys, and conn last (the
        tests read it at the line's end)."""
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
        }
        entry.update(extra)
        entry["conn"] = self.conn
        with LOCK, open(self.server.opts.log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def add_host_flags(p):
    """The flags of every test host: where it listens, its certificate,
    its log of requests and its ready file."""
    p.add_argument("--bind", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--log", required=True)
    p.add_argument("--ready", help="a file made once the socket listens")


def serve(srv):
    """Says it is ready, then serves until it is killed."""
    if srv.opts.ready:
        open(srv.opts.ready, "w").close()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
