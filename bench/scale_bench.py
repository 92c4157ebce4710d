#!/usr/bin/env python3
"""Whole-process figures for one generated backlog at scale (issue 25's table):
cold index, index after one edited item, check, search, pack, list, ready (with the
freshness probe and with --no-refresh), peak memory and size on disk.

    python3 bench/scale_bench.py --items 100000 [--runs 3] [--bin target/release/mdgraph] [--keep DIR]

Each figure is the median of --runs runs (cold index: one run) of the whole process,
wall clock and peak RSS from /usr/bin/time; the corpus comes from bench/gen_backlog.py.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_backlog import bench_board  # noqa: E402

def timed(cmd, cwd):
    import time
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = (time.perf_counter() - t) * 1000
    rss = r.stderr.strip().splitlines()[-1].split()[-1]
    return wall, int(rss) / 1024

def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total / 1e6

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "mdgraph"))
    ap.add_argument("--keep", help="generate into (or reuse) this folder and keep it")
    a = ap.parse_args()
    b = os.path.abspath(a.bin)
    d = a.keep or tempfile.mkdtemp(prefix="scale-bench-")
    os.makedirs(d, exist_ok=True)
    root = os.path.join(d, "backlog")
    try:
        bench_board(d, a.items)
        shutil.rmtree(os.path.join(d, "_index"), ignore_errors=True)
        rows = []
        t, m = timed([b, "index", "-q"], d)
        rows.append(("cold index", t, m))
        md = du(root)
        idx = du(os.path.join(d, "_index"))
        files = sorted(os.listdir(os.path.join(root, "items", "task")))
        folder = os.path.join(root, "items", "task", files[0])
        item = os.path.join(folder, sorted(os.listdir(folder))[0])
        med = lambda xs: statistics.median(xs)
        edits = []
        for i in range(a.runs):
            with open(item, "a") as f:
                f.write(f"\nEdited line {i}.\n")
            edits.append(timed([b, "index", "-q"], d))
        rows.append(("index after one edited item", med([e[0] for e in edits]), max(e[1] for e in edits)))
        # The queries in a steady state: an edit younger than the stat cache's racy
        # window (a file changed in the same second as its stamp) is re-read by every
        # probe until it ages.
        import time
        time.sleep(3)
        subprocess.run([b, "index", "-q"], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        q = "why does the sync service retry uploads"
        cases = [
            ("check", [b, "check"]),
            ("search (freshness probe)", [b, "search", q]),
            ("search --no-refresh", [b, "search", q, "--no-refresh"]),
            ("pack (freshness probe)", [b, "pack", q]),
            ("pack --no-refresh", [b, "pack", q, "--no-refresh"]),
            ("list --type Task --state open", [b, "list", "--type", "Task", "--state", "open"]),
            ("ready", [b, "ready"]),
        ]
        for name, cmd in cases:
            runs = [timed(cmd, d) for _ in range(a.runs)]
            rows.append((name, med([r[0] for r in runs]), max(r[1] for r in runs)))
        print(f"items: {a.items} ({md:.1f} MB of Markdown); index folder {idx:.1f} MB after the cold index")
        print(f"{'case':<34} {'ms':>9} {'peak MB':>9}")
        for name, t, m in rows:
            print(f"{name:<34} {t:9.0f} {m:9.0f}")
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)

if __name__ == "__main__":
    main()
