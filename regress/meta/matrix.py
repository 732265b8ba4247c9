#!/usr/bin/env python3
# Holds the test matrix of sandcastle-tests(7) to the ids of the threat
# model of sandcastle(7) and to the tests of regress/, by the rules the
# page writes down in TEST MATRIX (levels U, I, R and M; R's proofs are
# the cases of the reference machine's suite, in regress/reference/,
# written as atf-sh cases):
#
#   python3 matrix.py [-v] PROMISE MATRIX ROOT
#
# PROMISE is man/sandcastle.7, MATRIX man/sandcastle-tests.7 (or copies),
# ROOT the checkout.  Prints one line per thing wrong, naming the id, the
# file and the case, and exits 1 when there is one; exits 0, printing
# nothing (or, with -v, the ids and the count of their proofs), when the
# matrix and the tests agree.  Exits 2 when a page cannot be read or
# lacks its section, or the matrix has no id.

import os
import re
import sys

ID = r"[SBRANIFT][0-9]+"
LEVELS = ("U", "I", "R", "M")
# The reference machine's suite (level R) lives here alone.
REFERENCE = "regress/reference/"
CITE = re.compile(r"^((?:" + ID + r")(?: " + ID + r")*):")
SH_CASE = re.compile(r"^atf_test_case\s+([A-Za-z0-9_]+)")
SH_HEAD = re.compile(r"^([A-Za-z0-9_]+)_head\(\)")
SH_DESCR = re.compile(r'^\s*atf_set\s+"descr"\s+"(.*)')
C_CASE = re.compile(r"^ATF_TC(?:_WITHOUT_HEAD)?\(([A-Za-z0-9_]+)\);\s*$")


def cited(text):
    """The ids at the start of text, before its colon, or []."""
    m = CITE.match(text)
    return m.group(1).split() if m else []


def sections(lines):
    """The page's lines by .Sh section."""
    out, name = {}, None
    for ln in lines:
        if ln.startswith(".Sh "):
            name = ln[4:].strip().strip('"')
            out[name] = []
        elif name is not None:
            out[name].append(ln)
    return out


def read_sections(path, names):
    """The sections names of the page at path; exits 2 on one missing."""
    with open(path, encoding="utf-8") as f:
        sec = sections(f.read().split("\n"))
    for s in names:
        if s not in sec:
            print(f"{path}: no section {s}", file=sys.stderr)
            sys.exit(2)
    return sec


def parse_page(promise, path, errs):
    sec = read_sections(promise, ("THREAT MODEL",))
    sec.update(read_sections(path, ("TEST MATRIX", "THE MANUAL LIST")))
    threat = []
    for ln in sec["THREAT MODEL"]:
        m = re.match(r"^\.It Sy (" + ID + r")$", ln)
        if m:
            threat.append(m.group(1))
    steps = set()
    for ln in sec["THE MANUAL LIST"]:
        m = re.match(r"^\.It Sy (\S+)$", ln)
        if m:
            steps.add(m.group(1))
    matrix, cur = {}, None
    for n, ln in enumerate(sec["TEST MATRIX"], 1):
        m = re.match(r"^\.It Sy (" + ID + r") Pq ([UIRM](?: [UIRM])*)$", ln)
        if m:
            cur = m.group(1)
            if cur in matrix:
                errs.append(f"{cur}: twice in the matrix")
            matrix[cur] = {"levels": m.group(2).split(), "proofs": []}
            continue
        if ln.startswith(".It Sy "):
            errs.append(f"matrix: not an id item: {ln}")
            cur = None
            continue
        if not re.match(r"^\.It [UIRM] Ta ", ln):
            continue
        if cur is None:
            errs.append(f"matrix: a proof outside an id: {ln}")
            continue
        m = re.match(r"^\.It ([UIR]) Ta Pa (\S+) Ta Cm ([A-Za-z0-9_ ]+)$", ln)
        if m:
            matrix[cur]["proofs"].append(
                (m.group(1), m.group(2), m.group(3).split()))
            continue
        m = re.match(r"^\.It M Ta Sx THE MANUAL LIST Ta Cm (\S+)$", ln)
        if m:
            matrix[cur]["proofs"].append(("M", None, [m.group(1)]))
            continue
        errs.append(f"{cur}: a proof not in the matrix's form: {ln}")
    if not matrix:
        print(f"{path}: the matrix has no id", file=sys.stderr)
        sys.exit(2)
    return threat, matrix, steps


def parse_sh(path):
    """{case: [ids]} of an atf-sh test: the start of each case's descr."""
    cases, head = {}, None
    with open(path, encoding="utf-8") as f:
        for ln in f:
            m = SH_CASE.match(ln)
            if m:
                cases.setdefault(m.group(1), [])
                continue
            m = SH_HEAD.match(ln)
            if m:
                head = m.group(1)
                continue
            if ln.startswith("}"):
                head = None
                continue
            m = SH_DESCR.match(ln)
            if m and head is not None:
                cases.setdefault(head, [])
                cases[head] = cases[head] + cited(m.group(1))
                head = None
    return [], cases


def comment_text(block):
    """The first line of text of a C comment block."""
    for ln in block:
        t = ln.strip()
        t = re.sub(r"^/\*+", "", t)
        t = re.sub(r"^\*+(?!/)", "", t)
        t = re.sub(r"\*/$", "", t).strip()
        if t:
            return t
    return ""


def parse_c(path):
    """([ids of the file], {case: [ids]}) of an atf-c test: the start of
    the comment that opens the file, and of the comment right above each
    ATF_TC or ATF_TC_WITHOUT_HEAD line."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    whole = []
    if lines and lines[0].lstrip().startswith("/*"):
        block = []
        for ln in lines:
            block.append(ln)
            if "*/" in ln:
                break
        whole = cited(comment_text(block))
    cases = {}
    for i, ln in enumerate(lines):
        m = C_CASE.match(ln)
        if not m:
            continue
        ids, j = [], i - 1
        if j >= 0 and lines[j].rstrip().endswith("*/"):
            k = j
            while k >= 0 and "/*" not in lines[k]:
                k -= 1
            if k > 0:
                ids = cited(comment_text(lines[k:j + 1]))
        cases[m.group(1)] = ids
    cases.update(table_cases(lines))
    return whole, cases


C_TABLE = re.compile(r"^static const struct account_case\s+\w+\[\] = \{")
C_ROW = re.compile(r'\{\s*"([A-Za-z0-9_]+)",.*?,\s*([A-Za-z0-9_]+)\s*\}', re.S)


def table_cases(lines):
    """{case: [ids]} of the rows of an account_case table (account.h's
    account_add()): the ids of the comment above the row's body function."""
    cases = {}
    for i, ln in enumerate(lines):
        if not C_TABLE.match(ln):
            continue
        end = i
        while end < len(lines) and lines[end] != "};":
            end += 1
        for name, fn in C_ROW.findall("\n".join(lines[i + 1:end])):
            ids = []
            for k, d in enumerate(lines):
                if d.startswith(fn + "(") and k >= 2 and \
                        lines[k - 2].rstrip().endswith("*/"):
                    j = k - 2
                    while j >= 0 and "/*" not in lines[j]:
                        j -= 1
                    ids = cited(comment_text(lines[j:k - 1]))
                    break
            cases[name] = ids
    return cases


def tests(root):
    """{relative path: (file ids, {case: ids})} of every test under regress/."""
    out = {}
    base = os.path.join(root, "regress")
    for d, subs, files in os.walk(base):
        subs[:] = sorted(s for s in subs if s not in ("fuzz", "corpus"))
        for fn in sorted(files):
            if not fn.startswith("t_"):
                continue
            p = os.path.join(d, fn)
            rel = os.path.relpath(p, root)
            if fn.endswith(".sh"):
                out[rel] = parse_sh(p)
            elif fn.endswith(".c"):
                out[rel] = parse_c(p)
    return out


def check(promise, page, root):
    errs = []
    threat, matrix, steps = parse_page(promise, page, errs)
    found = tests(root)

    for i in threat:
        if i not in matrix:
            errs.append(f"{i}: in the threat model, not in the matrix")
    for i in matrix:
        if i not in threat:
            errs.append(f"{i}: in the matrix, not in the threat model")

    # Every id a test cites is in the matrix, and the matrix names it.
    for rel, (whole, cases) in sorted(found.items()):
        for i in whole:
            if i not in matrix:
                errs.append(f"{i}: cited by {rel}, not in the matrix")
            elif not any(p[1] == rel for p in matrix[i]["proofs"]):
                errs.append(f"{i}: cited by {rel}, which its proofs "
                            "do not name")
        for c, ids in sorted(cases.items()):
            for i in ids:
                if i not in matrix:
                    errs.append(f"{i}: cited by {rel} {c}, not in the "
                                "matrix")
                elif not any(p[1] == rel and c in p[2]
                             for p in matrix[i]["proofs"]):
                    errs.append(f"{i}: cited by {rel} {c}, which its "
                                "proofs do not name")

    # Every id has a proof at each of its levels, and each proof holds.
    for i, e in matrix.items():
        for lv in e["levels"]:
            if not any(p[0] == lv for p in e["proofs"]):
                errs.append(f"{i}: no proof at level {lv}")
        for lv, rel, names in e["proofs"]:
            if lv not in e["levels"]:
                errs.append(f"{i}: a proof at level {lv}, which its "
                            f"levels ({' '.join(e['levels'])}) do not have")
            if lv == "M":
                if names[0] not in steps:
                    errs.append(f"{i}: the manual list has no step "
                                f"{names[0]}")
                continue
            ref = rel.startswith(REFERENCE)
            if ref and lv != "R":
                errs.append(f"{i}: {rel} runs on the reference machine, "
                            f"level R, not {lv}")
            elif not ref and lv == "R":
                errs.append(f"{i}: {rel} is not the reference machine's "
                            f"suite ({REFERENCE}), not level R")
            elif not ref and rel.endswith(".sh") and lv != "I":
                errs.append(f"{i}: {rel} is an atf-sh test, level I, "
                            f"not {lv}")
            if not os.path.isfile(os.path.join(root, rel)):
                errs.append(f"{i}: {rel} is missing")
                continue
            if rel not in found:
                errs.append(f"{i}: {rel} is not a test (regress/**/t_*)")
                continue
            whole, cases = found[rel]
            for c in names:
                if c not in cases:
                    errs.append(f"{i}: {rel} has no test case {c}")
                elif i not in whole and i not in cases[c]:
                    errs.append(f"{i}: {rel} {c} does not cite it")
    return errs, matrix


def main(argv):
    verbose = len(argv) > 1 and argv[1] == "-v"
    if verbose:
        argv = argv[1:]
    if len(argv) != 4:
        print("usage: matrix.py [-v] promise matrix root", file=sys.stderr)
        return 2
    try:
        errs, matrix = check(argv[1], argv[2], argv[3])
    except OSError as e:
        print(f"{e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    for e in errs:
        print(e)
    if verbose and not errs:
        for i, e in matrix.items():
            print(f"{i} {' '.join(e['levels'])}: {len(e['proofs'])} proofs")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
