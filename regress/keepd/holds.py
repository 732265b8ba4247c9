#!/usr/bin/env python3
"""Whether a running process holds a string, for the tests:

  holds.py [-f] PID STRING...

Reads every readable mapping of PID's memory (/proc/PID/maps and mem, as
root) and its environment, or with -f the targets of its descriptors
alone, and prints each STRING found with where: "STRING memory",
"STRING environ", "STRING fd N". Exit 0 when one was found, 1 when none
was.
"""

import os
import sys


def memory(pid):
    with open(f"/proc/{pid}/maps") as maps, \
            open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if perms[0] != "r" or line.rstrip().endswith("[vvar]"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                yield mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue


def descriptors(pid, wanted):
    for fd in os.listdir(f"/proc/{pid}/fd"):
        target = os.readlink(f"/proc/{pid}/fd/{fd}").encode()
        yield from ((w, f"fd {fd}") for w in wanted if w in target)


def contents(pid, wanted):
    for chunk in memory(pid):
        yield from ((w, "memory") for w in wanted if w in chunk)
    with open(f"/proc/{pid}/environ", "rb") as env:
        data = env.read()
        yield from ((w, "environ") for w in wanted if w in data)


def main():
    args = sys.argv[1:]
    look = contents
    if args[0] == "-f":
        look = descriptors
        args = args[1:]
    found = set(look(args[0], [a.encode() for a in args[1:]]))
    for w, where in sorted(found):
        print(w.decode(), where)
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
