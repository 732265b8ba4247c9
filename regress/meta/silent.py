#!/usr/bin/env python3
"""Each sentence of FILE... that says the Messages API is silent until
its reply is whole, which it is not since the box asks for the reply
streamed (message_start at once, pings while it is made).  mdoc's
macros and a comment's stars are joined into the text first, so that a
sentence across lines is read whole.  Prints FILE: SENTENCE."""

import re
import sys

SILENT = re.compile(r"\b(silent|nothing|quiet)\b[^.;:]*\buntil\b[^.;:]*"
                    r"\b(reply|answer|response)\b[^.;:]*\bwhole\b", re.I)

for f in sys.argv[1:]:
    t = re.sub(r"\n\.[A-Z][a-z] ", " ", "\n" + open(f, errors="replace").read())
    t = re.sub(r"\s*\n\s*(?:\*\s)?|\s+", " ", t)
    for m in SILENT.finditer(t):
        print("%s: %s" % (f, m.group(0)))
