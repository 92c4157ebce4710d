#!/usr/bin/env python3
"""Validate spec2-queries*.jsonl: JSON per line, unique ids, kinds, grades, the split rule, files.

Checks, with no repositories at hand:
  - every line is an object with id, query, relevant, kind, split, corpus;
  - ids are unique and numbered per corpus (a001…, k001…, v001…, o001…);
  - grades are 1, 2 or 3, and every question has a grade-3 key;
  - the split rule: within a corpus, in file order, every third question is heldout;
  - the per-format and per-split files hold exactly the lines of spec2-queries.jsonl.
With --repos DIR (the folder scripts/fetch_eval_repos.sh filled), every key that is a path
must name a file. With --mdgraph BIN as well, every key must resolve to one node with
`BIN show KEY` in an index of DIR/<corpus> (built with `init` and `index` beforehand, as
eval/spec2-README.md says), and the node must be the one the key names (its id or its path).
Usage: validate_spec2_queries.py [--repos DIR [--mdgraph BIN]]
"""
import json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"work", "status", "implement", "ready", "decision", "lookup"}
FORMATS = {"ae-infinity": ("speckit", "a"), "moldovadirect": ("kiro", "k"),
           "voice-agent": ("bmad", "v"), "docusign": ("openspec", "o")}


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [line for line in f.read().split("\n") if line]


def main(argv):
    repos = argv[argv.index("--repos") + 1] if "--repos" in argv else None
    binary = argv[argv.index("--mdgraph") + 1] if "--mdgraph" in argv else None
    errors = []
    lines = load("spec2-queries.jsonl")
    rows = [json.loads(line) for line in lines]
    seen, position = set(), {}
    for r in rows:
        where = r.get("id", "?")
        for field in ("id", "query", "relevant", "kind", "split", "corpus"):
            if field not in r:
                errors.append(f"{where}: no {field}")
        if r["id"] in seen:
            errors.append(f"{where}: id used twice")
        seen.add(r["id"])
        fmt, prefix = FORMATS.get(r["corpus"], (None, None))
        if fmt is None:
            errors.append(f"{where}: unknown corpus {r['corpus']}")
            continue
        position[r["corpus"]] = position.get(r["corpus"], 0) + 1
        n = position[r["corpus"]]
        if r["id"] != f"{prefix}{n:03d}":
            errors.append(f"{where}: expected id {prefix}{n:03d}")
        if r["split"] != ("heldout" if n % 3 == 0 else "tune"):
            errors.append(f"{where}: split {r['split']} breaks the every-third rule")
        if r["kind"] not in KINDS:
            errors.append(f"{where}: unknown kind {r['kind']}")
        grades = r["relevant"].values()
        if any(g not in (1, 2, 3) for g in grades):
            errors.append(f"{where}: a grade outside 1-3")
        if 3 not in grades:
            errors.append(f"{where}: no grade-3 key")
    for corpus, (fmt, _) in FORMATS.items():
        mine = [line for line, r in zip(lines, rows) if r["corpus"] == corpus]
        if load(f"spec2-queries-{fmt}.jsonl") != mine:
            errors.append(f"spec2-queries-{fmt}.jsonl differs from its lines in spec2-queries.jsonl")
        for split in ("tune", "heldout"):
            part = [line for line, r in zip(lines, rows) if r["corpus"] == corpus and r["split"] == split]
            if load(f"spec2-queries-{fmt}-{split}.jsonl") != part:
                errors.append(f"spec2-queries-{fmt}-{split}.jsonl differs from the {split} lines")
    if repos:
        for r in rows:
            root = os.path.join(repos, r["corpus"])
            for key in r["relevant"]:
                if key.endswith(".md") and "@" not in key and not os.path.isfile(os.path.join(root, key)):
                    errors.append(f"{r['id']}: {key}: no such file under {root}")
                if binary:
                    errors += resolve(binary, root, r["id"], key)
    for e in errors:
        print(e)
    keys = sum(len(r["relevant"]) for r in rows)
    print(f"{len(rows)} questions, {keys} judgments: {'ok' if not errors else f'{len(errors)} errors'}")
    return 1 if errors else 0


def resolve(binary, root, qid, key):
    p = subprocess.run([binary, "-q", "--config", os.path.join(root, "mdgraph.toml"), "show", key,
                        "--no-refresh", "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        return [f"{qid}: {key}: {p.stderr.strip()[:160]}"]
    node = json.loads(p.stdout)
    node = node.get("node", node)
    if key not in (node.get("id"), node.get("path")):
        return [f"{qid}: {key}: resolves to {node.get('id')} ({node.get('path')})"]
    return []


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
