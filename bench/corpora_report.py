#!/usr/bin/env python3
"""Diagnostic counts per code for every real corpus, with and without its example config.

    python3 bench/corpora_report.py [--bin target/release/mdgraph] [--corpora ../shared/corpora]

Indexes each corpus into a temporary folder (`index --format json --no-sqlite`), fails if a
run exits non-zero or prints a panic, and prints a Markdown table of diagnostic counts per
code (the figures in RELIABILITY.md). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# (label, root below the corpora folder, example config or None)
RUNS = [
    ("eips", "eips", None),
    ("eips + examples/eips.toml", "eips", "eips.toml"),
    ("backlog-md", "backlog-md/backlog", None),
    ("backlog-md + examples/backlog-md.toml", "backlog-md/backlog", "backlog-md.toml"),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=str(REPO / "target/release/mdgraph"))
    ap.add_argument("--corpora", default=str(REPO / "../shared/corpora"))
    a = ap.parse_args(argv)
    corpora = Path(a.corpora).resolve()
    results: dict[str, tuple[Counter, dict]] = {}
    failed = False
    for label, rel, config in RUNS:
        root = corpora / rel
        if not root.is_dir():
            print(f"skipping {label}: {root} not found", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [a.bin, "--root", str(root), "--index-dir", str(Path(tmp) / "_index"), "--no-sqlite"]
            if config:
                cmd += ["--config", str(REPO / "examples" / config)]
            r = subprocess.run(cmd + ["index", "--format", "json"], capture_output=True, text=True, cwd=tmp)
            if r.returncode != 0 or "panicked" in r.stderr:
                print(f"{label}: exit {r.returncode}\n{r.stderr}", file=sys.stderr)
                failed = True
                continue
            report = json.loads(r.stdout)
            counts = Counter(f"{d['severity']}[{d['code']}]" for d in report["diagnostics"])
            results[label] = (counts, report["counts"])
    codes = sorted({c for counts, _ in results.values() for c in counts}, key=lambda c: (not c.startswith("error"), c))
    labels = list(results)
    print("| diagnostic | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for code in codes:
        print(f"| `{code}` | " + " | ".join(str(results[lab][0].get(code, 0)) for lab in labels) + " |")
    for key in ["files", "documents", "chunks", "edges", "errors", "warnings"]:
        print(f"| *{key}* | " + " | ".join(str(results[lab][1][key]) for lab in labels) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
