#!/usr/bin/env python3
"""The cost of `mdgraph site` on a generated backlog (BENCHMARKS.md, "Site").

    python3 bench/site_bench.py [--items 10000] [--runs 3] [--bin target/release/mdgraph]

Per run, in a fresh temporary folder with a backlog from bench/gen_backlog.py:
  cold index   `mdgraph index --full` into an empty index folder;
  full site    `mdgraph site` into an empty site folder (the index is fresh: its probe included);
  no change    `mdgraph site` again;
  one edit     one item's body edited, then `mdgraph site` (which takes the edit into the
               index first, as every query does) — and the same split: `mdgraph index`
               for the edit, then `mdgraph site` alone.
Prints the medians and the ratios the issue asks for (full site ≤ 2× cold index, one
edit ≤ 10 % of the full site). Standard library only; wall times of whole processes.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(cmd, cwd):
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed: {out.stderr}")
    return dt, out.stdout


def edit_one(root, n):
    """Append a sentence to the body of one item file (the n-th task)."""
    files = sorted((root / "items").rglob("*.md"))
    f = files[(n * 7919) % len(files)]
    f.write_text(f.read_text() + f"\nOne more note, edit {n}.\n")
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default=str(REPO / "target/release/mdgraph"))
    a = ap.parse_args()
    rows = {k: [] for k in ["cold index", "full site", "no change", "one edit", "edit: index", "edit: site"]}
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root = tmp / "backlog"
        subprocess.run([sys.executable, str(REPO / "bench/gen_backlog.py"), str(root), "--items", str(a.items)],
                       check=True, capture_output=True)
        base = [a.bin, "--root", str(root), "--index-dir", str(tmp / "_index"), "-q"]
        for run in range(a.runs):
            subprocess.run(["rm", "-rf", str(tmp / "_index")], check=True)
            rows["cold index"].append(timed(base + ["index", "--full"], tmp)[0])
            time.sleep(2.1)  # past the stat cache's racy window, as a later edit would be
            subprocess.run(base + ["index"], check=True)
            rows["full site"].append(timed(base + ["site"], tmp)[0])
            rows["no change"].append(timed(base + ["site"], tmp)[0])
            edit_one(root, 2 * run)
            dt, out = timed(base + ["site", "--format", "json"], tmp)
            rows["one edit"].append(dt)
            written.append(json.loads(out)["written"])
            time.sleep(2.1)
            subprocess.run(base + ["index"], check=True)
            edit_one(root, 2 * run + 1)
            rows["edit: index"].append(timed(base + ["index"], tmp)[0])
            rows["edit: site"].append(timed(base + ["site"], tmp)[0])
        pages = sum(1 for _ in (tmp / "_index/site").rglob("*.html"))
    med = {k: statistics.median(v) * 1000 for k, v in rows.items()}
    print(f"{a.items} items, {pages} pages, median of {a.runs} runs (ms):")
    for k, v in med.items():
        print(f"  {k:12} {v:8.0f}   (min {min(rows[k]) * 1000:.0f})")
    print(f"full site / cold index: {med['full site'] / med['cold index']:.2f}  (target ≤ 2)")
    print(f"one edit / full site:   {med['one edit'] / med['full site'] * 100:.1f} %  (target ≤ 10 %)")
    print(f"pages written by one edit: {written}")


if __name__ == "__main__":
    main()
