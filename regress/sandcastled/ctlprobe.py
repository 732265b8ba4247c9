#!/usr/bin/env python3
# A client of sandcastled's control socket that speaks the protocol
# wrongly on purpose, for t_daemon.sh.  Prints one line per answer:
# the type and, for CTL_ERROR, the reason.  Usage: ctlprobe.py MODE
import os
import socket
import struct
import sys

CTL_VERSION = 3   # common/ctl.h
CTL_HELLO, CTL_ERROR, CTL_END, CTL_SHOW_STATUS = 1, 2, 3, 4
PATH = os.environ["XDG_RUNTIME_DIR"] + "/sandcastle/control.sock"


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(PATH)
    return s


def send(s, mtype, payload=b""):
    s.sendall(struct.pack("=IIII", mtype, 0, 0, len(payload)) + payload)


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def answer(s):
    hdr = recv_exact(s, 16)
    if hdr is None:
        return "closed"
    mtype, _, _, length = struct.unpack("=IIII", hdr)
    data = recv_exact(s, length) if length else b""
    if mtype == CTL_ERROR:
        return "error: " + data.rstrip(b"\0").decode()
    if mtype == CTL_HELLO:
        return "hello %d" % struct.unpack("=I", data)[0]
    return "type %d" % mtype


def hello(version):
    s = connect()
    send(s, CTL_HELLO, struct.pack("=I", version))
    print(answer(s))


def malformed():
    s = connect()
    send(s, CTL_HELLO, struct.pack("=I", CTL_VERSION))
    print(answer(s))
    send(s, 99, b"xx")
    print(answer(s))


def many(n):
    held = [connect() for _ in range(n)]
    for s in held:
        send(s, CTL_HELLO, struct.pack("=I", CTL_VERSION))
    for s in held:
        print(answer(s))


mode = sys.argv[1]
if mode == "hello":
    hello(int(sys.argv[2]))
elif mode == "malformed":
    malformed()
elif mode == "many":
    many(int(sys.argv[2]))
