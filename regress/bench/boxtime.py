#!/usr/bin/env python3
"""make bench's timer of one box side against another: runs the job line
of JOBFILE in podman boxes of IMAGE_A and IMAGE_B, N runs each,
interleaved, and prints for each the mean seconds from podman run to the
box's hello (its start: podman, the loader, what the capability loads
and its filter) and from the job sent to the box's last line (its run).

  boxtime.py N JOBFILE LABEL_A IMAGE_A BUILD_A LABEL_B IMAGE_B BUILD_B

The job line names its build as @BUILD@, which each box's own replaces.
Not a test: it prints, and exits 1 only when a box did not answer.
"""

import subprocess
import sys
import time


def one(image, build, job):
    t0 = time.monotonic()
    p = subprocess.Popen(["podman", "run", "--rm", "-i", "--network=none",
                          image, "/sandcastle-box", "ocr"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    hello = p.stdout.readline()
    t1 = time.monotonic()
    p.stdin.write(job.replace(b"@BUILD@", build.encode()))
    p.stdin.flush()
    last = p.stdout.readline()
    t2 = time.monotonic()
    p.stdin.close()
    p.wait()
    if b'"hello"' not in hello or b'"result"' not in last:
        sys.exit("boxtime: %s did not answer: %r %r" % (image, hello, last))
    return t1 - t0, t2 - t1


def main():
    n = int(sys.argv[1])
    job = open(sys.argv[2], "rb").read()
    boxes = [(sys.argv[3], sys.argv[4], sys.argv[5]),
             (sys.argv[6], sys.argv[7], sys.argv[8])]
    times = {b[0]: [] for b in boxes}
    for b in boxes:
        one(b[1], b[2], job)            # podman's store warmed for each
    for _ in range(n):
        for label, image, build in boxes:
            times[label].append(one(image, build, job))
    for label, _, _ in boxes:
        t = times[label]
        start = sum(x[0] for x in t) / n
        run = sum(x[1] for x in t) / n
        print("bench:   %-22s start %.3f s, run %.3f s (mean of %d)"
              % (label, start, run, n))


main()
