#!/usr/bin/env python3
"""make bench: the keep and the gate against a direct call, side by side.

  keepbench.py --keep SOCK --url URL --cafile CA --secret S --n N --big PATH

Runs, interleaved so that both see the same machine: N GETs of the
destination's ping through keep.sock (keepd, then gated, then TLS to the
test host) and N direct HTTPS GETs of the same URL with Python's own
client, a new connection each (as the keep makes one per request); then
one large body through the keep, through the gate's tunnel alone (TLS
made here) and directly, so that the cost of each hop shows.  Prints
the times and the ratios.
"""

import argparse
import os
import socket
import ssl
import statistics
import sys
import time
import urllib.parse
import http.client

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "keepd"))
import keepclient  # noqa: E402


def keep_get(s, mid, path):
    env = ('{"destination":"notes","method":"GET","path":"%s"}' % path).encode()
    keepclient.send(s, keepclient.REQUEST, mid, env)
    m = keepclient.recv_msg(s)
    if m is None or m[0] != keepclient.ANSWER:
        raise SystemExit("bench: the keep did not answer %s: %r" % (path, m))
    status, _r, clen, blen = __import__("struct").unpack("=IIII", m[2][:16])
    if status != 200:
        raise SystemExit("bench: the keep answered %d for %s" % (status, path))
    return blen


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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keep", required=True)
    p.add_argument("--gate", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--n", type=int, default=40)
    p.add_argument("--big", default="/big")
    o = p.parse_args()
    ctx = ssl.create_default_context(cafile=o.cafile)
    s = socket.socket(socket.AF_UNIX)
    s.connect(o.keep)
    keepclient.send(s, keepclient.HELLO, 0, __import__("struct").pack("=II", 2, 0))
    if keepclient.recv_msg(s) is None:
        raise SystemExit("bench: no hello from the keep")
    tk, td = [], []
    for i in range(o.n):
        t0 = time.perf_counter()
        keep_get(s, i + 1, "/ping")
        t1 = time.perf_counter()
        direct_get(o.url, ctx, o.secret, "/ping")
        t2 = time.perf_counter()
        tk.append(t1 - t0)
        td.append(t2 - t1)
    mk, md = statistics.median(tk), statistics.median(td)
    print("request, median of %d: through keepd and gated %.2f ms, direct %.2f ms, ratio %.2f"
          % (o.n, mk * 1e3, md * 1e3, mk / md))
    t0 = time.perf_counter()
    nk = keep_get(s, o.n + 1, o.big)
    t1 = time.perf_counter()
    ng = gate_get(o.gate, o.url, ctx, o.secret, o.big)
    t2 = time.perf_counter()
    nd = direct_get(o.url, ctx, o.secret, o.big)
    t3 = time.perf_counter()
    rk = nk / (t1 - t0) / 2**20
    rg = ng / (t2 - t1) / 2**20
    rd = nd / (t3 - t2) / 2**20
    print("throughput, one %d MiB body: through keepd and gated %.1f MiB/s, "
          "through gated alone %.1f MiB/s, direct %.1f MiB/s; ratio to direct "
          "%.2f and %.2f" % (nk >> 20, rk, rg, rd, rk / rd, rg / rd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
