#!/usr/bin/env python3
"""Cold index and an added file: wall time and peak memory of one or more binaries, run
in turn on one generated backlog (BENCHMARKS.md, "Stop 24").

    python3 bench/memory_bench.py --items 100000 --runs 3 --keep /tmp/g100k \\
        --bin old=/path/to/old/mdgraph --bin new=target/release/mdgraph

Each round runs every binary once per case, in turn, so a noisy machine slows them
alike. Cases:
- cold index: the index folder removed, then `mdgraph index`;
- added file: one item copied under a new id, then `mdgraph index` (the file is removed
  and the index brought back afterwards, untimed).
Wall time and peak RSS come from /usr/bin/time; the corpus from bench/gen_backlog.py.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_backlog import bench_board  # noqa: E402


def timed(cmd, cwd):
    """(wall seconds, peak MB) of one run."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True)
    wall, kb = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", action="append", metavar="NAME=PATH",
                    help="a binary to measure (repeat); default: new=target/release/mdgraph")
    ap.add_argument("--keep", help="generate into (or reuse) this folder and keep it")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    bins = [(n, os.path.abspath(p)) for n, p in (b.split("=", 1) for b in (a.bin or [f"new={os.path.join(here, '..', 'target', 'release', 'mdgraph')}"]))]
    d = a.keep or tempfile.mkdtemp(prefix="memory-bench-")
    os.makedirs(d, exist_ok=True)
    root = os.path.join(d, "backlog")
    try:
        bench_board(d, a.items)
        folder = os.path.join(root, "items", "task")
        first = os.path.join(folder, sorted(os.listdir(folder))[0])
        item = os.path.join(first, sorted(os.listdir(first))[0]) if os.path.isdir(first) else first
        text = open(item, encoding="utf-8").read()
        results = {(name, case): [] for name, _ in bins for case in ("cold index", "added file")}
        for r in range(a.runs):
            for name, b in bins:
                shutil.rmtree(os.path.join(d, "_index"), ignore_errors=True)
                results[(name, "cold index")].append(timed([b, "index", "-q"], d))
                # Aged, so the stat cache vouches for the files before the add.
                time.sleep(2.5)
                subprocess.run([b, "index", "-q"], cwd=d, check=True, stdout=subprocess.DEVNULL)
                added = os.path.join(os.path.dirname(item), f"zz-added-{r}.md")
                with open(added, "w", encoding="utf-8") as f:
                    f.write(re.sub(r"(?m)^id: .*$", f"id: ZZ-ADDED-{r}", text, count=1))
                try:
                    results[(name, "added file")].append(timed([b, "index", "-q"], d))
                finally:
                    os.remove(added)
                subprocess.run([b, "index", "-q"], cwd=d, check=True, stdout=subprocess.DEVNULL)
        print(f"items: {a.items}; {a.runs} rounds, binaries in turn")
        print(f"{'binary':<8} {'case':<12} {'wall s (min–max)':>18} {'peak MB (min–max)':>20}")
        for (name, case), rs in results.items():
            ws, ms = [x[0] for x in rs], [x[1] for x in rs]
            print(f"{name:<8} {case:<12} {min(ws):>8.2f} – {max(ws):<7.2f} {min(ms):>9.0f} – {max(ms):<8.0f}")
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
