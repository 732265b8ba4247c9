#!/usr/bin/env python3
"""The regress suite's load on the gate's resolver: COUNT CONNECTs for
NAME:PORT through gate.sock, CONCURRENCY at a time, each one a lookup
of its own in a tunnel's child, and one line of what came back:

  lookups 2000 opened 2000 unresolved 0 other 0 seconds 41.2 busy 3

unresolved counts the gate's refusals "the name does not resolve": a
lookup lost.  A 503 (the gate's 32 tunnels all open, their children not
yet reaped, or closed before the request was written) is no lookup: it
is asked again after 20 ms, and counted in busy.  other counts every other answer (a 502, a connection closed),
each printed before the summary.  Test equipment, never part of
sandcastle.
"""

import socket
import sys
import threading
import time


def one(path, target):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(path)
        try:
            s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                      (target.encode(), target.encode()))
        except (BrokenPipeError, ConnectionResetError):
            # The gate answered 503 and closed before the request.
            return "busy"
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    except OSError as e:
        return "error " + str(e)
    finally:
        s.close()
    head = buf.decode("latin-1")
    if head.startswith("HTTP/1.1 200"):
        return "opened"
    if "the name does not resolve" in head:
        return "unresolved"
    if head.startswith("HTTP/1.1 503"):
        return "busy"
    return head.split("\r\n")[0] or "closed"


def main():
    path, target = sys.argv[1], sys.argv[2]
    count, conc = int(sys.argv[3]), int(sys.argv[4])
    lock = threading.Lock()
    tally = {"opened": 0, "unresolved": 0, "other": 0}
    busy = [0]
    left = [count]

    def worker():
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            r = one(path, target)
            while r == "busy":
                with lock:
                    busy[0] += 1
                time.sleep(0.02)
                r = one(path, target)
            with lock:
                if r in tally:
                    tally[r] += 1
                else:
                    tally["other"] += 1
                    print("other:", r, flush=True)

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(conc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("lookups %d opened %d unresolved %d other %d seconds %.1f busy %d"
          % (count, tally["opened"], tally["unresolved"], tally["other"],
             time.monotonic() - start, busy[0]), flush=True)


if __name__ == "__main__":
    main()
