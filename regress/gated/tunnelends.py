#!/usr/bin/env python3
"""Tunnels that end one after another: N clients connect to gate.sock at
once and say nothing, then close one every STEP ms.  gated's log, open
on descriptor 3, is read meanwhile for a spare tunnel process made ready
after the clients came (any but --not).  Test equipment, never part of
sandcastle.

  tunnelends.py SOCKET --n N --step MS --not PID

Prints one line:
  spare: ready with K of N tunnels still open
  spare: none while the tunnels ended
"""

import argparse
import os
import re
import socket
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("socket")
    p.add_argument("--n", type=int, default=30)
    p.add_argument("--step", type=float, default=4)
    p.add_argument("--not", dest="old", default="")
    o = p.parse_args()
    log = os.fdopen(3, "r")
    log.read()
    ready = re.compile(r"spare tunnel process (\d+) ready")
    clients = []
    for _ in range(o.n):
        s = socket.socket(socket.AF_UNIX)
        s.connect(o.socket)
        clients.append(s)
    seen = None
    while clients:
        time.sleep(o.step / 1000)
        clients.pop(0).close()
        for m in ready.finditer(log.read()):
            if m.group(1) != o.old and seen is None:
                seen = len(clients)
        if seen is not None:
            break
    for s in clients:
        s.close()
    if seen is None:
        print("spare: none while the tunnels ended")
    else:
        print("spare: ready with %d of %d tunnels still open" % (seen, o.n))


if __name__ == "__main__":
    main()
