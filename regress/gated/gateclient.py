#!/usr/bin/env python3
"""The regress suite's client of gate.sock: what keepd does, in a few
lines.  It asks the gate for a tunnel with CONNECT, prints the gate's
answer, and through an open tunnel sends a plain HTTP GET and prints
the test host's answer.  Test equipment, never part of sandcastle.

Output, one item a line:
  status: <the gate's status line>
  refusal: <Sandcastle-Refusal>     (when the gate sent one)
  error: <Sandcastle-Error>         (when the gate sent one)
  answer: <the test host's status line>
  body: <the test host's body>
  closed                            (the gate closed without answering)
"""

import argparse
import socket
import sys
import time


def read_head(s, limit):
    buf = b""
    s.settimeout(limit)
    try:
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    except socket.timeout:
        print("timeout")
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def print_head(head):
    lines = head.split("\r\n")
    if not lines or not lines[0]:
        print("closed")
        return ""
    print("status: " + lines[0])
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "sandcastle-refusal":
            print("refusal: " + value.strip())
        elif name.lower() == "sandcastle-error":
            print("error: " + value.strip())
    return lines[0]


def through(s, rest, host, path, send=True):
    if send:
        s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n"
                   "Connection: close\r\n\r\n" % (path, host)).encode())
    data = rest
    s.settimeout(10)
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    print("answer: " + head.decode("latin-1").split("\r\n")[0])
    print("body: " + body.decode("latin-1"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sock")
    p.add_argument("target", help="name:port for CONNECT")
    p.add_argument("--path", default="/")
    p.add_argument("--raw", help="send this instead (\\r and \\n escaped)")
    p.add_argument("--early", action="store_true",
                   help="send the GET with the CONNECT, before any answer")
    p.add_argument("--silent", type=float, default=0,
                   help="send nothing for this many seconds first")
    opts = p.parse_args()
    host = opts.target.rsplit(":", 1)[0]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(opts.sock)
    except OSError as e:
        print("connect: " + e.strerror)
        return 1
    if opts.silent:
        time.sleep(opts.silent)
    if opts.raw is not None:
        req = opts.raw.replace("\\r", "\r").replace("\\n", "\n").encode()
    else:
        req = ("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
               % (opts.target, opts.target)).encode()
    if opts.early:
        req += ("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                % (opts.path, host)).encode()
    try:
        s.sendall(req)
    except OSError as e:
        print("send: " + e.strerror)
    head, rest = read_head(s, 15)
    status = print_head(head)
    if (status + " ").split(" ")[1:2] == ["200"]:
        through(s, rest, host, opts.path, send=not opts.early)
    return 0


if __name__ == "__main__":
    sys.exit(main())
