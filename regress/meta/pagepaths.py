#!/usr/bin/env python3
"""The paths of the tree a page or an example names that are not there.

pagepaths.py TOP FILE...: each word of FILE that starts with a top
folder of TOP (examples/notes.py, regress/lib/net.subr, etc/systemd/...)
must be a file or folder of TOP, of TOP/regress (make run-tests' filters
are named below it), or one a build or a run makes (an anchored line of
TOP/.gitignore).  Prints FILE:LINE: PATH for each that is none of them.
"""

import fnmatch
import glob
import os
import re
import sys


def made(top):
    try:
        lines = open(os.path.join(top, ".gitignore")).read().split("\n")
    except OSError:
        return []
    return [l for l in lines if l.startswith("/")]


def main():
    top = sys.argv[1]
    dirs = sorted(d for d in os.listdir(top)
                  if os.path.isdir(os.path.join(top, d)) and d[0] != ".")
    word = re.compile(r"(?<![\w/~.$-])(?:%s)/[\w.*/-]*[\w*]"
                      % "|".join(map(re.escape, dirs)))
    ignored = made(top)
    for f in sys.argv[2:]:
        for n, line in enumerate(open(f, errors="replace"), 1):
            for m in word.finditer(line):
                p = m.group(0)
                if glob.glob(os.path.join(top, p)) or \
                        glob.glob(os.path.join(top, "regress", p)) or \
                        any(fnmatch.fnmatch("/" + p, i) for i in ignored):
                    continue
                print("%s:%d: %s" % (f, n, p))


if __name__ == "__main__":
    main()
