#!/usr/bin/env python3
"""Validate spec-queries.jsonl: JSON per line, unique ids, kinds, grades, split rule, and every key resolves.

Keys are either a file path relative to the corpus root, or a planned item id that this script
resolves by reading the Markdown itself (no mdgraph, no ranking):
  Spec Kit  <feature>            specs/<feature>/ exists
            <feature>/T012       a line in specs/<feature>/tasks.md carrying T012 as a task id
                                 (`- [x] T012 …` or `1.  **T012**: …`)
            <feature>/US1        a "User Story 1" heading in specs/<feature>/spec.md
            <feature>/FR-007     a bold **FR-007** in spec.md; same for SC-002
            <feature>/CHK003     a checkbox line with CHK003 under specs/<feature>/checklists/
  BMAD      2.1                  docs/stories/2.1.story.md exists
            2.1/N, 2.1/N.k       Nth top-level checkbox under "## Tasks / Subtasks", kth direct child
            2.1/ACn              nth numbered item under "## Acceptance Criteria"
Usage: validate_spec_queries.py [queries.jsonl] [--list]   (--list prints what each key resolved to)
"""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOTS = {
    "speckit-toastmasters": "../shared/corpora/speckit-toastmasters",
    "bmad-security-design-assistant": "../shared/corpora/bmad-security-design-assistant",
}
KINDS = {"implement", "ready", "status", "decision", "trace", "structure", "lookup"}


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read().split("\n")


def speckit_item(root, key):
    parts = key.split("/")
    feat = parts[0]
    fdir = os.path.join(root, "specs", feat)
    if not os.path.isdir(fdir):
        return None
    if len(parts) == 1:
        return f"folder specs/{feat}/"
    if len(parts) != 2:
        return None
    it = parts[1]
    if re.fullmatch(r"T\d{3}", it):
        p = os.path.join(fdir, "tasks.md")
        if not os.path.isfile(p):
            return None
        for n, l in enumerate(read(p), 1):
            if re.match(r"^\s*- \[[ xX-]\] " + it + r"\b", l) or re.match(r"^\s*\d+\.\s+\*\*" + it + r"\*\*", l):
                return f"tasks.md:{n} {l.strip()[:90]}"
        return None
    m = re.fullmatch(r"US(\d+)", it)
    if m:
        for n, l in enumerate(read(os.path.join(fdir, "spec.md")), 1):
            if re.match(r"^#+ User Story " + m.group(1) + r"\b", l):
                return f"spec.md:{n} {l.strip()[:90]}"
        return None
    if re.fullmatch(r"(FR|SC)-\d{3}", it):
        for n, l in enumerate(read(os.path.join(fdir, "spec.md")), 1):
            if re.match(r"^\s*-\s+\*\*" + it + r"(\*\*|:)", l):
                return f"spec.md:{n} {l.strip()[:90]}"
        return None
    if re.fullmatch(r"CHK\d{3}", it):
        cdir = os.path.join(fdir, "checklists")
        for fn in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
            for n, l in enumerate(read(os.path.join(cdir, fn)), 1):
                if re.match(r"^\s*- \[[ xX]\] " + it + r"\b", l):
                    return f"checklists/{fn}:{n}"
        return None
    return None


def bmad_story(root, sid):
    p = os.path.join(root, "docs", "stories", sid + ".story.md")
    return p if os.path.isfile(p) else None


def bmad_item(root, key):
    if "/" not in key:
        p = bmad_story(root, key)
        return f"story {os.path.relpath(p, root)}" if p else None
    sid, it = key.split("/", 1)
    p = bmad_story(root, sid)
    if not p:
        return None
    lines = read(p)
    sec = None
    m = re.fullmatch(r"AC(\d+)", it)
    if m:
        for n, l in enumerate(lines, 1):
            if l.startswith("## "):
                sec = l[3:].strip().lower()
            elif sec and sec.startswith("acceptance") and re.match(r"^" + m.group(1) + r"\.\s", l):
                return f"{sid}.story.md:{n} {l.strip()[:90]}"
        return None
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?", it)
    if not m:
        return None
    want_t, want_s = int(m.group(1)), (int(m.group(2)) if m.group(2) else None)
    t = s = 0
    for n, l in enumerate(lines, 1):
        if l.startswith("## "):
            sec = l[3:].strip().lower()
            continue
        if not (sec and sec.startswith("tasks")):
            continue
        if re.match(r"^- \[[ xX-]\] ", l):
            t += 1; s = 0
            if t == want_t and want_s is None:
                return f"{sid}.story.md:{n} {l.strip()[:90]}"
        elif re.match(r"^  - \[[ xX-]\] ", l):  # direct children only (two-space indent)
            s += 1
            if t == want_t and s == want_s:
                return f"{sid}.story.md:{n} {l.strip()[:90]}"
    return None


def resolve(corpus, key):
    root = ROOTS[corpus]
    if os.path.isfile(os.path.join(root, key)):
        return "file"
    if corpus == "speckit-toastmasters":
        return speckit_item(root, key)
    return bmad_item(root, key)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv
    qfile = args[0] if args else os.path.join(HERE, "spec-queries.jsonl")
    errors, ids, kinds, splits = [], set(), Counter(), Counter()
    per_corpus_n = Counter()
    grades = Counter()
    with open(qfile, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append(f"line {n}: blank line"); continue
            try:
                o = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: bad JSON: {e}"); continue
            qid = o.get("id")
            if not qid or qid in ids:
                errors.append(f"line {n}: missing or duplicate id {qid!r}")
            ids.add(qid)
            corpus = o.get("corpus")
            if corpus not in ROOTS:
                errors.append(f"{qid}: unknown corpus {corpus!r}"); continue
            per_corpus_n[corpus] += 1
            # split rule: every third question of each corpus, in file order, is heldout
            want = "heldout" if per_corpus_n[corpus] % 3 == 0 else "tune"
            if o.get("split") != want:
                errors.append(f"{qid}: split {o.get('split')!r}, rule says {want}")
            splits[(corpus, o.get("split"))] += 1
            if not isinstance(o.get("query"), str) or not o["query"].strip():
                errors.append(f"{qid}: empty query")
            if o.get("kind") not in KINDS:
                errors.append(f"{qid}: bad kind {o.get('kind')!r}")
            kinds[(corpus, o.get("kind"))] += 1
            rel = o.get("relevant")
            if not isinstance(rel, dict) or not rel:
                errors.append(f"{qid}: empty relevant"); continue
            if 3 not in rel.values():
                errors.append(f"{qid}: no grade-3 key")
            for key, g in rel.items():
                grades[g] += 1
                if g not in (1, 2, 3):
                    errors.append(f"{qid}: bad grade {g!r} for {key}")
                r = resolve(corpus, key)
                if not r:
                    errors.append(f"{qid}: key does not resolve: {key}")
                elif listing:
                    print(f"{qid} {g} {key:55} -> {r}")
    print(f"{len(ids)} queries")
    for c in ROOTS:
        ks = {k: v for (cc, k), v in sorted(kinds.items()) if cc == c}
        print(f"  {c}: {per_corpus_n[c]} (tune {splits[(c,'tune')]}, heldout {splits[(c,'heldout')]}); kinds {ks}")
    print(f"  grades: 3 x {grades[3]}, 2 x {grades[2]}, 1 x {grades[1]}")
    if errors:
        print("\n".join(errors)); sys.exit(1)
    print("OK: all lines parse, ids unique, split rule holds, every key resolves")


if __name__ == "__main__":
    main()
