#!/usr/bin/env python3
"""The regress suite's connect probe: run inside the gate's network
namespace (nsenter -n), it connects to each ADDRESS:PORT given and
prints one line for each, what the kernel answered:

  192.168.1.31:443 EACCES       (a prohibit route: refused at once)
  198.20.5.10:443 connected
  10.0.0.1:443 ETIMEDOUT

With --bogons it probes the first, a middle and the last address of
each of the fourteen bogons at port 443 too (0.0.0.1 for 0.0.0.0/8,
which the kernel takes for this host).  A prohibit route answers
before any packet leaves, so the probe sends nothing to an address it
is refused.  Test equipment, never part of sandcastle.
"""

import errno
import ipaddress
import socket
import sys

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
        else:
            host, port = a.rsplit(":", 1)
            targets.append((host, int(port)))
    for host, port in targets:
        print(f"{host}:{port} {probe(host, port)}", flush=True)


if __name__ == "__main__":
    main()
