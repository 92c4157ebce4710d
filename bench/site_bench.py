#!/usr/bin/env python3
"""The cost of `mdgraph site` on a generated backlog (BENCHMARKS.md, "Site").

    python3 bench/site_bench.py [--items 10000] [--runs 3] [--bin target/release/mdgraph] [--tmp /dev/shm]

Per run, in a fresh temporary folder with a backlog from bench/gen_backlog.py:
  cold index   `mdgraph index --full` into an empty index folder;
  full site    `mdgraph site --out` into a new folder (the index is fresh: its probe included);
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
    ap.add_argument("--tmp", help="folder for the backlog, indexes and sites (e.g. /dev/shm: no disk)")
    a = ap.parse_args()
    rows = {k: [] for k in ["cold index", "full site", "no change", "one edit", "edit: index", "edit: site"]}
    written = []
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp:
        tmp = Path(tmp)
        root = tmp / "backlog"
        subprocess.run([sys.executable, str(REPO / "bench/gen_backlog.py"), str(root), "--items", str(a.items)],
                       check=True, capture_output=True)
        for run in range(a.runs):
            # A fresh index and site folder per run, nothing deleted before them: on ext4,
            # creating files right after thousands were deleted costs several times more
            # (the inode allocator skips recently freed inodes); see BENCHMARKS.md.
            base = [a.bin, "--root", str(root), "--index-dir", str(tmp / f"_index{run}"), "-q"]
            site = ["site", "--out", str(tmp / f"site{run}")]
            rows["cold index"].append(timed(base + ["index", "--full"], tmp)[0])
            time.sleep(2.1)  # past the stat cache's racy window, as a later edit would be
            subprocess.run(base + ["index"], check=True)
            rows["full site"].append(timed(base + site, tmp)[0])
            rows["no change"].append(timed(base + site, tmp)[0])
            edit_one(root, 2 * run)
            dt, out = timed(base + site + ["--format", "json"], tmp)
            rows["one edit"].append(dt)
            written.append(json.loads(out)["written"])
            time.sleep(2.1)
            subprocess.run(base + ["index"], check=True)
            edit_one(root, 2 * run + 1)
            rows["edit: index"].append(timed(base + ["index"], tmp)[0])
            rows["edit: site"].append(timed(base + site, tmp)[0])
        pages = [p for p in (tmp / "site0").rglob("*") if p.is_file()]
        # The floor of writing the site: the same number of files of the same sizes,
        # written by Python into a fresh folder.
        sizes = [p.stat().st_size for p in pages]
        t = time.perf_counter()
        for i, n in enumerate(sizes):
            d = tmp / "floor" / str(i // 4096)
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{i}.html").write_bytes(b"x" * n)
        floor = time.perf_counter() - t
    med = {k: statistics.median(v) * 1000 for k, v in rows.items()}
    print(f"{a.items} items, {len(pages)} files ({sum(sizes) / 1e6:.1f} MB), median of {a.runs} runs (ms):")
    for k, v in med.items():
        print(f"  {k:12} {v:8.0f}   (min {min(rows[k]) * 1000:.0f})")
    print(f"full site / cold index: {med['full site'] / med['cold index']:.2f}  (target ≤ 2)")
    print(f"one edit / full site:   {med['one edit'] / med['full site'] * 100:.1f} %  (target ≤ 10 %)")
    print(f"pages written by one edit: {written}")
    print(f"floor: Python writes {len(sizes)} files of those sizes in {floor * 1000:.0f} ms")


if __name__ == "__main__":
    main()
