#!/usr/bin/env python3
"""Holds sandcastle's records to what strict sources (fakesource.py
--strict) received, after a run with faults:

  python3 ledger.py DATA_DIR SOURCE:RESULTS:JOBS ...

For every job of JOBS (the JSON list the source handed out), the results
the source received for it, in order, must be any number of "released"
then exactly one "succeeded" or "failed", and nothing after it; every
result answered 200, none 409 (a result the source did not hold); and
DATA_DIR/SOURCE/ID/meta.json must say that last status, with its result
"sent", and output.json what the source got.  A record of an id the
source never handed out is an error too.

Prints one line per job that does not agree, and the counts; exits 1
when one does not.  Test equipment, never part of sandcastle.
"""

import json
import os
import sys


def load_results(path):
    out = {}
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            out.setdefault(str(e["id"]), []).append(e)
    return out


def check_job(data, source, jid, got):
    """The reasons job jid of source does not agree, or []."""
    errs = []
    seq = [(e.get("body") or {}).get("status") for e in got]
    if any(e.get("answer", 200) != 200 for e in got):
        errs.append("a result answered %s" %
                    [e.get("answer") for e in got])
    finals = [i for i, s in enumerate(seq) if s != "released"]
    if len(finals) != 1 or finals[0] != len(seq) - 1:
        errs.append("results %s: not released* then one final" % seq)
        return errs
    last = got[-1]["body"]
    try:
        with open(os.path.join(data, source, jid, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        return errs + ["no record: %s" % e]
    if meta.get("status") != last["status"] or meta.get("result") != "sent":
        errs.append("record %s/%s, source %s" %
                    (meta.get("status"), meta.get("result"), last["status"]))
    if last["status"] == "succeeded":
        try:
            with open(os.path.join(data, source, jid, "output.json")) as f:
                out = json.load(f)
        except (OSError, ValueError) as e:
            out = "unreadable: %s" % e
        if out != last.get("output"):
            errs.append("output.json differs from the output sent")
    return errs


def main():
    data = sys.argv[1]
    bad = total = released = 0
    for arg in sys.argv[2:]:
        source, results, jobs = arg.split(":")
        with open(jobs) as f:
            ids = [str(j["id"]) for j in json.load(f)]
        got = load_results(results) if os.path.exists(results) else {}
        for jid in ids:
            total += 1
            released += sum(1 for e in got.get(jid, [])
                            if (e.get("body") or {}).get("status") == "released")
            errs = check_job(data, source, jid, got.get(jid, []))
            if errs:
                bad += 1
                print("%s/%s: %s" % (source, jid, "; ".join(errs)))
        extra = set(got) - set(ids)
        folder = os.path.join(data, source)
        if os.path.isdir(folder):
            extra |= set(os.listdir(folder)) - set(ids)
        for jid in sorted(extra):
            bad += 1
            print("%s/%s: not a job the source handed out" % (source, jid))
    print("%d jobs, %d agree, %d released on the way" %
          (total, total - bad, released))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
