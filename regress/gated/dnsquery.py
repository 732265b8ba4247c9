#!/usr/bin/env python3
"""The regress suite's one DNS query, run in the gate's namespace: an A
query for NAME from UDP port PORT (0: any) to ADDRESS:53, and one line,
"answered" or "lost", after at most 3 s.  Test equipment, never part of
sandcastle.
"""

import socket
import struct
import sys


def main():
    name, port, addr = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.bind(("0.0.0.0", port))
    q = struct.pack(">HHHHHH", 0x5c5c, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.split("."))
    q += b"\0" + struct.pack(">HH", 1, 1)
    s.sendto(q, (addr, 53))
    try:
        s.recv(4096)
        print("answered")
    except socket.timeout:
        print("lost")


if __name__ == "__main__":
    main()
