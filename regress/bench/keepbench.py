#!/usr/bin/env python3
"""make bench: the keep and the gate against a direct call, side by side.

  keepbench.py --keep SOCK --gate SOCK --url URL --cafile CA --secret S
               --warm DEST --cold DEST,DEST,... [--n N] [--rounds R]
               [--big PATH]
  keepbench.py --body-once --connect ADDRESS --url URL --cafile CA
               --secret S [--big PATH]
  keepbench.py --pings-once --connect ADDRESS --url URL --cafile CA
               --secret S [--n N]

Every figure is measured interleaved with its direct counterpart, so
that both see the same machine, and printed as medians with the goal
beside it:

- a cold request: a GET of the destination's ping through keep.sock
  (keepd, then gated, then TLS to the test host) to a destination the
  keep has not asked for a while, each of the --cold destinations once,
  all of them the same test host; against a direct HTTPS GET of the same
  URL with Python's own client, a new connection each; its parts, from
  the same GET through the gate's tunnel alone, interleaved too.  Each
  of the three comes after REST seconds of quiet, as such a request
  meets a machine at rest: the spares the last one used are made anew,
  and nothing of the last one runs beside it (back to back, the direct
  GET ran while keepd and gated made their spares, and paid for them);
- a warm request: the same GET to the --warm destination, asked again
  within the second, against the same direct GET;
- one large body (BIG) through the keep, through the gate's tunnel
  alone (TLS made here) and directly, R rounds.

With --body-once it gets the body once from ADDRESS and prints MiB/s;
with --pings-once it asks the ping N times from ADDRESS, a new
connection each after REST, and prints their median in ms: bench_keep.sh
runs each in the gate's network namespace, where it goes through pasta
alone, and beside it in the host's.

Not a test: it prints, and exits 1 only when it could not measure.
"""

import argparse
import os
import socket
import ssl
import statistics
import struct
import sys
import time
import urllib.parse
import http.client

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "keepd"))
import keepclient  # noqa: E402


class Keep:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.id = 0
        keepclient.send(self.s, keepclient.HELLO, 0,
                        struct.pack("=II", keepclient.VERSION, 0))
        m = keepclient.recv_msg(self.s)
        if m is None or m[0] != keepclient.HELLO:
            raise SystemExit("bench: no hello from the keep: %r" % (m,))

    def get(self, dest, path):
        self.id += 1
        env = ('{"destination":"%s","method":"GET","path":"%s"}'
               % (dest, path)).encode()
        keepclient.send(self.s, keepclient.REQUEST, self.id,
                        struct.pack("=I", 0) + env)
        m = keepclient.recv_answer(self.s)
        if m is None or m[0] != keepclient.ANSWER:
            raise SystemExit("bench: the keep did not answer %s %s: %r"
                             % (dest, path, m and m[2][8:]))
        status = struct.unpack("=IIII", m[2][:16])[0]
        if status != 200:
            raise SystemExit("bench: the keep answered %d for %s" % (status, path))
        return len(m[3])


def direct_get(url, ctx, secret, path):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPSConnection(u.hostname, u.port or 443, context=ctx,
                                    timeout=30)
    c.request("GET", u.path + path, headers={"Authorization": "Bearer " + secret})
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200:
        raise SystemExit("bench: direct GET answered %d" % r.status)
    return len(body)


def gate_get(gate, url, ctx, secret, path):
    """The same GET through gated alone: CONNECT, then TLS over the tunnel."""
    u = urllib.parse.urlsplit(url)
    s = socket.socket(socket.AF_UNIX)
    s.connect(gate)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (u.hostname.encode(), u.port or 443))
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        b = s.recv(1)
        if not b:
            raise SystemExit("bench: the gate closed the tunnel")
        head += b
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit("bench: the gate answered %r" % head)
    c = http.client.HTTPSConnection(u.hostname, u.port or 443, context=ctx,
                                    timeout=30)
    c.sock = ctx.wrap_socket(s, server_hostname=u.hostname)
    c.request("GET", u.path + path, headers={"Authorization": "Bearer " + secret})
    r = c.getresponse()
    body = r.read()
    c.close()
    return len(body)


def timed(f, *a):
    t0 = time.perf_counter()
    n = f(*a)
    return time.perf_counter() - t0, n


def verdict(ratio, goal, most):
    ok = ratio <= goal if most else ratio >= goal
    return "goal %s %.2f: %s" % ("at most" if most else "at least", goal,
                                 "met" if ok else "NOT met")


REST = 0.1


def rested(f, *a):
    time.sleep(REST)
    return timed(f, *a)[0]


def requests(o, keep, ctx):
    cold, warm, dc, dw, gc = [], [], [], [], []
    dests = o.cold.split(",")
    # Each destination once: none has a warm child when it is asked.
    for d in dests[:o.n]:
        cold.append(rested(keep.get, d, "/ping"))
        dc.append(rested(direct_get, o.url, ctx, o.secret, "/ping"))
        gc.append(rested(gate_get, o.gate, o.url, ctx, o.secret, "/ping"))
    keep.get(o.warm, "/ping")
    for _ in range(o.n):
        warm.append(timed(keep.get, o.warm, "/ping")[0])
        dw.append(timed(direct_get, o.url, ctx, o.secret, "/ping")[0])
    mc, md = statistics.median(cold), statistics.median(dc)
    print("bench: a request through keepd and gated, to a destination not "
          "asked for a while (median of %d, each after %d ms at rest): "
          "%.2f ms; direct, a new connection each: %.2f ms; ratio %.2f, %s"
          % (len(cold), REST * 1e3, mc * 1e3, md * 1e3, mc / md,
             verdict(mc / md, 1.10, True)))
    mg = statistics.median(gc)
    print("bench: its parts: through gated alone, a new tunnel and TLS "
          "connection each, %.2f ms: the gate's part %.2f ms, keepd's "
          "(keep.sock, the request's child and its tunnel asked) %.2f ms"
          % (mg * 1e3, (mg - md) * 1e3, (mc - mg) * 1e3))
    mw, md = statistics.median(warm), statistics.median(dw)
    print("bench: a second request to the same destination within the "
          "second (median of %d): %.2f ms; direct, a new connection each: "
          "%.2f ms; ratio %.2f, %s"
          % (len(warm), mw * 1e3, md * 1e3, mw / md, verdict(mw / md, 1.0, True)))


def throughput(o, keep, ctx):
    rk, rg, rd = [], [], []
    for _ in range(o.rounds):
        t, n = timed(keep.get, o.warm, o.big)
        rk.append(n / t / 2**20)
        t, n = timed(gate_get, o.gate, o.url, ctx, o.secret, o.big)
        rg.append(n / t / 2**20)
        t, n = timed(direct_get, o.url, ctx, o.secret, o.big)
        rd.append(n / t / 2**20)
    mk, mg, md = (statistics.median(x) for x in (rk, rg, rd))
    print("bench: one %d MiB body (median of %d rounds): through keepd and "
          "gated %.1f MiB/s, through gated alone %.1f MiB/s, direct %.1f "
          "MiB/s; ratio to direct %.2f, %s (gated alone %.2f)"
          % (n >> 20, o.rounds, mk, mg, md, mk / md, verdict(mk / md, 0.9, False),
             mg / md))


def get_at(o, ctx, path):
    """A GET of path, a new connection to --connect, SNI from the URL: its
    body's length."""
    u = urllib.parse.urlsplit(o.url)
    s = socket.create_connection((o.connect, u.port or 443), timeout=30)
    c = http.client.HTTPSConnection(u.hostname, u.port or 443, context=ctx,
                                    timeout=30)
    c.sock = ctx.wrap_socket(s, server_hostname=u.hostname)
    c.request("GET", u.path + path,
              headers={"Authorization": "Bearer " + o.secret})
    r = c.getresponse()
    n = len(r.read())
    c.close()
    if r.status != 200:
        raise SystemExit("bench: %s answered %d" % (path, r.status))
    return n


def pings_once(o, ctx):
    """--n pings to --connect, each after REST, their median in ms: run in
    the gate's namespace, a request through pasta alone."""
    t = [rested(get_at, o, ctx, "/ping") for _ in range(o.n)]
    print("%.3f" % (statistics.median(t) * 1e3))


def body_once(o, ctx):
    """One large body from --connect: run in the gate's namespace, the
    body through pasta alone."""
    t, n = timed(get_at, o, ctx, o.big)
    print("%.1f" % (n / t / 2**20))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keep")
    p.add_argument("--gate")
    p.add_argument("--url", required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--warm")
    p.add_argument("--cold")
    p.add_argument("--n", type=int, default=40)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--big", default="/big")
    p.add_argument("--connect", help="with --body-once or --pings-once: "
                   "the address")
    p.add_argument("--body-once", action="store_true")
    p.add_argument("--pings-once", action="store_true")
    o = p.parse_args()
    ctx = ssl.create_default_context(cafile=o.cafile)
    if o.body_once:
        body_once(o, ctx)
        return 0
    if o.pings_once:
        pings_once(o, ctx)
        return 0
    keep = Keep(o.keep)
    requests(o, keep, ctx)
    throughput(o, keep, ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
