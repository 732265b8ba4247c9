#!/usr/bin/env python3
"""The regress suite's connect probe: run inside the gate's network
namespace (nsenter -n), it connects to each ADDRESS:PORT given and
prints one line for each, what the kernel answered:

  192.168.1.31:443 EACCES       (a prohibit route: refused at once)
  198.20.5.10:443 connected
  10.0.0.1:443 ETIMEDOUT

An argument echo:ADDRESS sends one ICMP echo instead and waits 2 s for
its reply: "ADDRESS echo reply", "ADDRESS echo none" or the errno; as
root from a raw socket, else from a ping socket (net.ipv4.ping_group_range).

With --bogons it probes the first, a middle and the last address of
each of the fourteen bogons at port 443 too (0.0.0.1 for 0.0.0.0/8,
which the kernel takes for this host).  A prohibit route answers
before any packet leaves, so the probe sends nothing to an address it
is refused.  Test equipment, never part of sandcastle.
"""

import errno
import ipaddress
import os
import socket
import struct
import sys
import time

BOGONS = """0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 169.254.0.0/16 172.16.0.0/12
192.0.0.0/24 192.0.2.0/24 192.88.99.0/24 192.168.0.0/16 198.18.0.0/15
198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4""".split()


def probe(addr, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((addr, port))
        return "connected"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e)) if e.errno else "timeout"
    finally:
        s.close()


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    n = sum(int.from_bytes(b[i:i + 2], "big") for i in range(0, len(b), 2))
    while n >> 16:
        n = (n & 0xffff) + (n >> 16)
    return ~n & 0xffff


def echo(addr):
    raw = os.geteuid() == 0
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW if raw else
                          socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
    payload = b"sandcastle regress echo"
    head = struct.pack("!BBHHH", 8, 0, 0, os.getpid() & 0xffff, 1)
    pkt = head[:2] + struct.pack("!H", checksum(head + payload)) + \
        head[4:] + payload
    try:
        s.sendto(pkt, (addr, 0))
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            s.settimeout(max(deadline - time.monotonic(), 0.01))
            b, src = s.recvfrom(2048)
            if raw:
                b = b[(b[0] & 0x0f) * 4:]
            if src[0] == addr and b and b[0] == 0:
                return "reply"
        return "none"
    except socket.timeout:
        return "none"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()


def main():
    targets = []
    for a in sys.argv[1:]:
        if a == "--bogons":
            for b in BOGONS:
                n = ipaddress.ip_network(b)
                first = n.network_address + (1 if b == "0.0.0.0/8" else 0)
                mid = n.network_address + n.num_addresses // 2
                targets += [(str(first), 443), (str(mid), 443),
                            (str(n.broadcast_address), 443)]
        elif a.startswith("echo:"):
            targets.append((a[5:], None))
        else:
            host, port = a.rsplit(":", 1)
            targets.append((host, int(port)))
    for host, port in targets:
        if port is None:
            print(f"{host} echo {echo(host)}", flush=True)
        else:
            print(f"{host}:{port} {probe(host, port)}", flush=True)


if __name__ == "__main__":
    main()
