#!/usr/bin/env python3
"""Search and pack latency of the mdgraph CLI, whole process, warm.

    python3 bench/search_bench.py [--items 10000] [--queries 100] [--no-build]

Indexes backlog-fixtures/ and a generated backlog (bench/gen_backlog.py) into temporary
folders, then runs `mdgraph search` once per query and reports p50/p95/max wall time for:
  - default:      refresh check (stat-cache probe) + SQLite FTS5 mirror
  - --no-refresh: SQLite mirror only
  - --no-sqlite:  in-memory BM25 over the JSONL sidecar (fallback; fewer queries)
and the full index time with and without the mirror; then `list` and `ready` (30 runs each). Fixture queries are the labeled
questions in backlog-fixtures/queries.jsonl; generated-backlog queries are the titles of
randomly chosen items (seeded) plus 10% exact-id queries. Standard library only.
"""

import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
BIN = os.path.join(PROJECT, "target", "release", "mdgraph")


def run(args, cwd):
    t = time.perf_counter()
    p = subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1000
    if p.returncode not in (0, 1):
        sys.exit(f"mdgraph {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return dt, p


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def measure(label, root, index, queries, cwd, before=(), after=(), command="search"):
    """One command per query; `before` are global flags, `after` command flags."""
    cmd = lambda q: ["--root", root, "--index-dir", index, *before, command, q, *after]
    run(cmd(queries[0]), cwd)  # warm up
    times = [run(cmd(q), cwd)[0] for q in queries]
    return f"| {label} | {len(times)} | {pct(times, .5):.1f} | {pct(times, .95):.1f} | {max(times):.1f} |"


def measure_fixed(label, root, index, args, cwd, n=30):
    """The same command `n` times (list, ready: no query)."""
    cmd = ["--root", root, "--index-dir", index, *args]
    run(cmd, cwd)  # warm up
    times = [run(cmd, cwd)[0] for _ in range(n)]
    return f"| {label} | {len(times)} | {pct(times, .5):.1f} | {pct(times, .95):.1f} | {max(times):.1f} |"


def index_time(root, index, extra, cwd, runs=3):
    out = []
    for _ in range(runs):
        shutil.rmtree(index, ignore_errors=True)
        out.append(run(["--root", root, "--index-dir", index] + extra + ["index"], cwd)[0])
    return statistics.median(out)


def titles_and_ids(root, n, seed):
    paths = []
    for d, _, fs in os.walk(os.path.join(root, "items")):
        paths += [os.path.join(d, f) for f in fs if f.endswith(".md")]
    paths.sort()
    rng = random.Random(seed)
    out = []
    for p in rng.sample(paths, min(n, len(paths))):
        head = open(p, encoding="utf-8").read().split("\n---", 1)[0]
        fm = dict(l.split(": ", 1) for l in head.splitlines() if ": " in l)
        if rng.random() < 0.1:
            out.append(fm["id"].strip())
        else:
            out.append(fm["title"].strip().strip('"'))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PROJECT, check=True)
    tmp = tempfile.mkdtemp(prefix="mdgraph-search-")
    try:
        rows = []
        fixtures = os.path.join(PROJECT, "backlog-fixtures")
        fq = [json.loads(l)["query"] for l in open(os.path.join(fixtures, "queries.jsonl"))]
        gen = os.path.join(tmp, "gen")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_backlog.py"), gen, "--items", str(a.items)],
                       check=True, capture_output=True)
        gq = titles_and_ids(gen, a.queries, 7)
        time.sleep(2.5)  # let files settle so the stat cache may trust them
        for name, root, qs in (("fixtures", fixtures, fq), (f"generated {a.items}", gen, gq)):
            index = os.path.join(tmp, name.replace(" ", "-") + "-index")
            t_sql = index_time(root, index + "-t", [], tmp)
            t_json = index_time(root, index + "-t", ["--no-sqlite"], tmp)
            run(["--root", root, "--index-dir", index, "index"], tmp)
            time.sleep(2.5)
            run(["--root", root, "--index-dir", index, "index"], tmp)  # stat cache now complete
            rows.append(f"\n**{name}** ({len(qs)} queries): full index {t_json:.0f} ms JSONL only, "
                        f"{t_sql:.0f} ms with the SQLite mirror\n")
            rows.append("| mode | queries | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|")
            rows.append(measure("default (probe + SQLite)", root, index, qs, tmp))
            rows.append(measure("--no-refresh (SQLite)", root, index, qs, tmp, after=["--no-refresh"]))
            rows.append(measure("--no-sqlite (memory)", root, index, qs[:20], tmp, before=["--no-sqlite"]))
            rows.append(measure("search --no-graph", root, index, qs, tmp, after=["--no-graph"]))
            rows.append(measure("pack (budget 4000)", root, index, qs, tmp, command="pack"))
            rows.append(measure("pack --no-refresh", root, index, qs, tmp, after=["--no-refresh"], command="pack"))
            rows.append(measure_fixed("list --type Task --state InProgress", root, index,
                                      ["list", "--type", "Task", "--state", "InProgress"], tmp))
            rows.append(measure_fixed("ready", root, index, ["ready"], tmp))
        print("\n".join(rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
