#!/usr/bin/env python3
"""The regress suite's busy machine: binds COUNT UDP ports, drawn at
random from the kernel's ephemeral range, writes their numbers to FILE,
one a line, and holds them until killed.

pasta forwards a datagram of the gate's namespace from a host socket
bound to the same source port; on a machine where that port is taken,
the datagram is dropped.  Holding a share of the ports is how a test
makes the machine as busy as a real one.  Test equipment, never part of
sandcastle.
"""

import random
import socket
import sys
import time


def main():
    count, path = int(sys.argv[1]), sys.argv[2]
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low, high = map(int, f.read().split())
    held, ports = [], []
    for port in random.sample(range(low, high + 1), count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            s.close()
            continue
        held.append(s)
        ports.append(port)
    with open(path + ".tmp", "w") as f:
        f.write("".join("%d\n" % p for p in ports))
    import os
    os.rename(path + ".tmp", path)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
