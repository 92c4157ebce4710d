#!/usr/bin/env python3
"""Validate eval/backlog-md-queries.jsonl: JSON per line, unique ids, allowed kinds/grades, every path exists."""
import json, os, sys
from collections import Counter

here = os.path.dirname(os.path.abspath(__file__))
qfile = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "backlog-md-queries.jsonl")
root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "shared", "corpora", "backlog-md", "backlog")
KINDS = {"blocking", "decision", "epic", "discussion", "replacement", "status", "lookup"}
errors, ids, kinds = [], set(), Counter()
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
        if not isinstance(o.get("query"), str) or not o["query"].strip():
            errors.append(f"{qid}: empty query")
        if o.get("kind") not in KINDS:
            errors.append(f"{qid}: bad kind {o.get('kind')!r}")
        kinds[o.get("kind")] += 1
        rel = o.get("relevant")
        if not isinstance(rel, dict) or not rel:
            errors.append(f"{qid}: empty relevant"); continue
        if 3 not in rel.values():
            errors.append(f"{qid}: no grade-3 document")
        for path, g in rel.items():
            if g not in (1, 2, 3):
                errors.append(f"{qid}: bad grade {g!r} for {path}")
            if not os.path.isfile(os.path.join(root, path)):
                errors.append(f"{qid}: missing file {path}")
print(f"{len(ids)} queries; kinds: {dict(sorted(kinds.items()))}")
if errors:
    print("\n".join(errors)); sys.exit(1)
print("OK: all lines parse, ids unique, all paths exist under", os.path.normpath(root))
