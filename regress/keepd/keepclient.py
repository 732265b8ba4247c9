#!/usr/bin/env python3
"""A client of keep.sock for the tests, speaking the protocol of
common/keep.h over msg.h's framing (a 16-byte header: type, id, flags,
len, in host byte order, then the payload).

  keepclient.py [--hello-version N] [--no-hello] [--show-hello]
      [--seconds N] SOCKET ENVELOPE...

Sends KEEP_HELLO, then each ENVELOPE (JSON text; "@file" reads a file)
as a KEEP_REQUEST that gives the call N seconds (0, the default: the
destination's own), and prints for each answer:
  status N / content-type T / retry-after N / body-length N / body B
or for a refusal:
  refused <code> <reason>
Exit 0 when every message came, 1 when the connection ended first.

An answer's body comes as a sealed memfd passed with its message
(keep.h, version 3): recv_msg() checks its seals and size and gives the
payload with the body read from it, as it was before version 3.
"""

import argparse
import array
import fcntl
import os
import socket
import struct
import sys

VERSION = 4
HELLO, REQUEST, ANSWER, REFUSED = 1, 2, 3, 4
SEALS = (fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW |
         fcntl.F_SEAL_WRITE)
CODES = {1: "envelope", 2: "secret", 3: "gate", 4: "tls", 5: "http",
         6: "timeout", 7: "internal", 8: "protocol", 9: "peer",
         10: "refused"}


def send(s, mtype, mid, payload):
    # A refused peer may be closed before this is sent: what keepd
    # said before it closed is still there to read.
    try:
        s.sendall(struct.pack("=IIII", mtype, mid, 0, len(payload)) + payload)
    except (BrokenPipeError, ConnectionResetError):
        pass


def recv_exact(s, n, fds=None):
    """n bytes, or None at the end; a descriptor that came goes in fds."""
    buf = bytearray()
    while len(buf) < n:
        try:
            b, anc, _flags, _addr = s.recvmsg(
                min(n - len(buf), 1 << 20), socket.CMSG_SPACE(4 * 8))
        except ConnectionResetError:
            return None
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                got = array.array("i")
                got.frombytes(data[:len(data) - len(data) % 4])
                if fds is None:
                    for fd in got:
                        os.close(fd)
                else:
                    fds.extend(got)
        if not b:
            return None
        buf += b
    return bytes(buf)


def body_of(fd, n):
    """The n bytes of a sealed memfd, or SystemExit when it is not one."""
    try:
        seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        if seals & SEALS != SEALS or os.fstat(fd).st_size != n:
            raise SystemExit("keepclient: the body's memfd is not sealed "
                             "or not of its length")
        # pread(2), as common/keepbody.c: no mapping's faults.
        parts = []
        got = 0
        while got < n:
            b = os.pread(fd, n - got, got)
            if not b:
                raise SystemExit("keepclient: the body's memfd ended early")
            parts.append(b)
            got += len(b)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def recv_answer(s):
    """(type, id, payload, body): the body apart, from its memfd."""
    fds = []
    hdr = recv_exact(s, 16, fds)
    if hdr is None:
        return None
    mtype, mid, _flags, n = struct.unpack("=IIII", hdr)
    payload = recv_exact(s, n, fds) if n else b""
    if payload is None:
        return None
    body = b""
    if mtype == ANSWER and len(payload) >= 16:
        blen = struct.unpack("=IIII", payload[:16])[3]
        if blen > 0:
            if len(fds) != 1:
                raise SystemExit("keepclient: an answer of %d bytes came "
                                 "with %d descriptors" % (blen, len(fds)))
            body = body_of(fds.pop(), blen)
    for fd in fds:
        os.close(fd)
    return mtype, mid, payload, body


def recv_msg(s):
    """(type, id, payload), an answer's body after its content-type."""
    m = recv_answer(s)
    if m is None:
        return None
    return m[0], m[1], m[2] + m[3]


def show(mtype, payload, out):
    if mtype == REFUSED:
        code, n = struct.unpack("=II", payload[:8])
        reason = payload[8:8 + n].decode("latin-1")
        out.write("refused %s %s\n" % (CODES.get(code, code), reason))
    elif mtype == ANSWER:
        status, retry, clen, blen = struct.unpack("=IIII", payload[:16])
        ctype = payload[16:16 + clen].decode("latin-1")
        body = payload[16 + clen:16 + clen + blen]
        out.write("status %d\ncontent-type %s\nretry-after %d\n"
                  "body-length %d\n" % (status, ctype, retry, blen))
        if blen <= 4096:
            out.write("body %s\n" % body.decode("latin-1"))
    else:
        out.write("message %d\n" % mtype)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hello-version", type=int, default=VERSION)
    p.add_argument("--no-hello", action="store_true")
    p.add_argument("--show-hello", action="store_true")
    p.add_argument("--seconds", type=int, default=0)
    p.add_argument("socket")
    p.add_argument("envelopes", nargs="*")
    a = p.parse_intermixed_args()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(a.socket)
    except OSError as e:
        sys.stderr.write("keepclient: %s: %s\n" % (a.socket, e.strerror))
        return 1
    out = sys.stdout
    if not a.no_hello:
        send(s, HELLO, 0, struct.pack("=II", a.hello_version, 0))
        m = recv_msg(s)
        if m is None:
            out.write("closed\n")
            return 1
        if m[0] != HELLO:
            show(m[0], m[2], out)
            return 0
        if a.show_hello:
            out.write("hello %d %d\n" % struct.unpack("=II", m[2][:8]))
    for i, env in enumerate(a.envelopes, 1):
        if env.startswith("@"):
            with open(env[1:], "rb") as f:
                data = f.read()
        else:
            data = env.encode("utf-8", "surrogateescape")
        send(s, REQUEST, i, struct.pack("=I", a.seconds) + data)
        m = recv_msg(s)
        if m is None:
            out.write("closed\n")
            return 1
        if m[1] != i:
            out.write("wrong id %d for %d\n" % (m[1], i))
            return 1
        show(m[0], m[2], out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
