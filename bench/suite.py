#!/usr/bin/env python3
"""The mdgraph benchmark suite: one table per corpus size, real corpora, and a peer.

    python3 bench/suite.py [--sizes 1000,10000,50000] [--queries 100] [--runs 3]
                           [--no-build] [--no-corpora] [--no-iwe] [--iwe-queries 10]

For each generated kano-style backlog (bench/gen_backlog.py: skewed fan-out, ADRs,
worklogs, body links) and, when present, ../shared/corpora/eips (with examples/eips.toml)
and ../shared/corpora/backlog-md/backlog (with examples/backlog-md.toml), it measures:

  - full index, JSONL only (--no-sqlite) and with the SQLite mirror (median of --runs,
    index folder removed before each run), peak RSS of the full index with the mirror;
  - no-change `check` (median of 5), incremental `index` after editing 1% of the files
    (median of --runs, a fresh edit each time; on a copy for the real corpora);
  - `search` and `pack` latency, whole process, p50/p95 over --queries queries (default
    mode: stat-only freshness probe + SQLite mirror), and p50 with --no-refresh (the query
    alone, without the probe that stats every file);
  - index size on disk (sidecar JSONL + meta + mirror).

Then the scaling from the second-largest to the largest size, and the peer: IWE (crates.io
`iwe`, a Rust Markdown knowledge-graph CLI) is installed with `cargo install iwe --locked`
into target/bench-tools (skipped with a message when that fails, e.g. offline) and its
`find` (search) and `retrieve` (graph-expanding retrieval) commands are timed on the same
corpora with the same queries: `find --lexical Q -l 10` against `mdgraph search Q`, and
`retrieve --lexical Q --limit 10 --expand-references --expand-referenced-by
--expand-included-by --max-tokens 4000` against `mdgraph pack Q` (budget 4000); the ratio
of its time to mdgraph's is printed. Standard library only; temporary folders are removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench import dir_size, edit_copy, machine_line, run, run_rss, tree_stats  # noqa: E402
from search_bench import pct, titles_and_ids  # noqa: E402

GEN = os.path.join(HERE, "gen_backlog.py")
TOOLS = os.path.join(PROJECT, "target", "bench-tools")
IWE = os.path.join(TOOLS, "bin", "iwe")


def children_cpu():
    """User + system CPU seconds of all finished child processes so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fmt_ms(secs):
    v = secs * 1000
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


class Corpus:
    def __init__(self, name, root, config=None, queries=None, copy_for_edits=False):
        self.name, self.root, self.config = name, root, config
        self.queries = queries or []
        self.copy_for_edits = copy_for_edits
        self.r = {}  # measurement → value


def mdgraph_cmd(binary, c, index_dir, root=None):
    cmd = [binary]
    if c.config:
        cmd += ["--config", c.config]
    return cmd + ["--root", root or c.root, "--index-dir", index_dir]


def must(res, what):
    if res.rc not in (0, 1):
        raise SystemExit(f"bench: {what} failed (exit {res.rc}): {res.stderr[-2000:]}")
    return res


def bench_corpus(binary, c, tmp, runs, timeout):
    log(f"[{c.name}] indexing")
    files, size = tree_stats(c.root)
    c.r["files"], c.r["mb"] = files, size / 1e6
    idx = os.path.join(tmp, c.name.replace(" ", "-").replace("/", "-") + "-index")
    base = mdgraph_cmd(binary, c, idx)
    for label, extra in (("full_jsonl", ["--no-sqlite"]), ("full_sqlite", [])):
        times, cpus = [], []
        for _ in range(runs):
            shutil.rmtree(idx, ignore_errors=True)
            before = children_cpu()
            times.append(must(run(base + extra + ["-q", "index"], tmp, timeout), label).secs)
            cpus.append(children_cpu() - before)
        c.r[label] = statistics.median(times)
        # CPU time (user + sys, all threads): the work done, less sensitive than wall
        # time to what else the machine is doing.
        c.r[label + "_cpu"] = statistics.median(cpus)
    shutil.rmtree(idx, ignore_errors=True)
    res = must(run_rss(base + ["-q", "index"], tmp, timeout), "index (rss)")
    c.r["rss_mb"] = res.rss_kib / 1024
    c.r["disk_mb"] = dir_size(idx) / 1e6
    # Let the files age past the stat cache's racy window, then complete the cache.
    time.sleep(2.2)
    must(run(base + ["-q", "index"], tmp, timeout), "index")
    c.r["check"] = statistics.median(
        must(run(base + ["-q", "check"], tmp, timeout), "check").secs for _ in range(5)
    )
    # Queries (default mode: probe + SQLite mirror).
    for cmd in ("search", "pack"):
        must(run(base + [cmd, c.queries[0]], tmp, timeout), cmd)  # warm up
        times = [must(run(base + [cmd, q], tmp, timeout), cmd).secs for q in c.queries]
        c.r[cmd + "_p50"], c.r[cmd + "_p95"] = pct(times, 0.5), pct(times, 0.95)
        # Without the freshness probe (which stats every file): the query itself.
        times = [must(run(base + [cmd, q, "--no-refresh"], tmp, timeout), cmd).secs for q in c.queries]
        c.r[cmd + "_nr_p50"] = pct(times, 0.5)
    # Incremental after editing 1% of the files: on a copy for the real corpora.
    root, iidx = c.root, idx
    if c.copy_for_edits:
        root = os.path.join(tmp, "copy-" + c.name.replace("/", "-").replace(" ", "-"))
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(c.root, root, symlinks=True)
        iidx = idx + "-copy"
        shutil.rmtree(iidx, ignore_errors=True)
    ibase = mdgraph_cmd(binary, c, iidx, root)
    must(run(ibase + ["-q", "index"], tmp, timeout), "index (copy)")
    times = []
    for i in range(runs):
        if c.copy_for_edits:
            edit_copy(root, 1, i, skip=iidx)
        else:
            subprocess.run([sys.executable, GEN, root, "--edit-percent", "1", "--seed", str(100 + i)],
                           check=True, capture_output=True)
        times.append(must(run(ibase + ["-q", "index"], tmp, timeout), "incremental index").secs)
    c.r["incremental"] = statistics.median(times)


def iwe_install():
    if os.path.isfile(IWE):
        return None
    log("installing IWE: cargo install iwe --locked --root target/bench-tools")
    p = subprocess.run(["cargo", "install", "iwe", "--locked", "--root", TOOLS],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or not os.path.isfile(IWE):
        tail = p.stdout.strip().splitlines()[-3:]
        return f"IWE skipped: `cargo install iwe --locked` failed ({' / '.join(tail)})"
    return None


def iwe_version():
    p = subprocess.run([IWE, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.stdout.strip()


def bench_iwe(c, tmp, n, timeout):
    """Time IWE's `find --lexical` and `retrieve --lexical` on a copy of the corpus (IWE keeps
    its config in the workspace: `.iwe/`). Returns {find_p50, retrieve_p50, n} or a reason."""
    ws = os.path.join(tmp, "iwe-" + c.name.replace("/", "-").replace(" ", "-"))
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(c.root, ws, symlinks=True, ignore=shutil.ignore_patterns("_index"))
    p = subprocess.run([IWE, "init"], cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return f"iwe init failed: {p.stdout.strip()[:200]}"
    out = {}
    queries = c.queries[:n]
    # Comparable operations: BM25 search for the top 10, and retrieval of the top 10 seeds
    # expanded one level along references (both directions) and parents under 4000 tokens.
    ops = {
        "find": lambda q: [IWE, "find", "--lexical", q, "-l", "10"],
        "retrieve": lambda q: [IWE, "retrieve", "--lexical", q, "--limit", "10", "--expand-references",
                               "--expand-referenced-by", "--expand-included-by", "--max-tokens", "4000"],
    }
    for op, cmd in ops.items():
        times = []
        for q in queries:
            r = run(cmd(q), ws, timeout)
            if r.rc != 0:
                return f"iwe {op} failed (exit {r.rc}): {r.stderr.strip()[:200]}"
            times.append(r.secs)
        out[op + "_p50"] = pct(times, 0.5)
    out["n"] = len(queries)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--queries", type=int, default=100, help="queries per corpus for p50/p95 (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="runs per index measurement (default 3)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-corpora", action="store_true")
    ap.add_argument("--no-iwe", action="store_true")
    ap.add_argument("--iwe-queries", type=int, default=10, help="queries per corpus for IWE (default 10)")
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",") if s.strip()]
    binary = os.path.join(PROJECT, "target", "release", "mdgraph")
    if not a.no_build:
        log("building: cargo build --release")
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PROJECT, check=True)
    notes = []
    iwe_ok = False
    if not a.no_iwe:
        why = iwe_install()
        if why:
            notes.append(why)
        else:
            iwe_ok = True
            notes.append(f"Peer: {iwe_version()}")
    tmp = tempfile.mkdtemp(prefix="mdgraph-suite-")
    corpora = []
    try:
        for n in sizes:
            root = os.path.join(tmp, f"gen-{n}")
            log(f"[generated {n}] generating")
            subprocess.run([sys.executable, GEN, root, "--items", str(n)], check=True, capture_output=True)
            corpora.append(Corpus(f"generated {n}", root, queries=titles_and_ids(root, a.queries, 7)))
        if not a.no_corpora:
            shared = os.path.join(PROJECT, "..", "shared")
            eips = os.path.join(shared, "corpora", "eips")
            eq = os.path.join(shared, "eval", "eips-queries.jsonl")
            if os.path.isdir(eips) and os.path.isfile(eq):
                qs = [json.loads(line)["query"] for line in open(eq, encoding="utf-8")][: a.queries]
                corpora.append(Corpus("eips", eips, os.path.join(PROJECT, "examples", "eips.toml"), qs, True))
            else:
                notes.append("eips skipped: ../shared/corpora/eips or ../shared/eval/eips-queries.jsonl absent")
            bmd = os.path.join(shared, "corpora", "backlog-md", "backlog")
            if os.path.isdir(bmd):
                qs = []
                for d, _, fs in sorted(os.walk(bmd)):
                    for f in sorted(fs):
                        if f.endswith(".md"):
                            qs.append(f[:-3].split(" - ", 1)[-1].replace("-", " "))
                qs = qs[:: max(1, len(qs) // a.queries)][: a.queries]
                corpora.append(Corpus("backlog-md", bmd, os.path.join(PROJECT, "examples", "backlog-md.toml"),
                                      qs, True))
            else:
                notes.append("backlog-md skipped: ../shared/corpora/backlog-md/backlog absent")
        time.sleep(2.2)  # generated files leave the stat cache's racy window
        for c in corpora:
            bench_corpus(binary, c, tmp, a.runs, a.timeout)
            if iwe_ok:
                log(f"[{c.name}] IWE")
                c.iwe = bench_iwe(c, tmp, a.iwe_queries, a.timeout)
        print(machine_line(binary))
        print()
        print("| corpus | files | MB | full index JSONL | full index +SQLite | peak RSS | no-change check "
              "| incremental 1% | search p50 / p95 | pack p50 / p95 | search / pack p50 --no-refresh | index on disk |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in corpora:
            r = c.r
            print(f"| {c.name} | {r['files']} | {r['mb']:.1f} | {fmt_ms(r['full_jsonl'])} ms "
                  f"| {fmt_ms(r['full_sqlite'])} ms | {r['rss_mb']:.0f} MB | {fmt_ms(r['check'])} ms "
                  f"| {fmt_ms(r['incremental'])} ms | {fmt_ms(r['search_p50'])} / {fmt_ms(r['search_p95'])} ms "
                  f"| {fmt_ms(r['pack_p50'])} / {fmt_ms(r['pack_p95'])} ms "
                  f"| {fmt_ms(r['search_nr_p50'])} / {fmt_ms(r['pack_nr_p50'])} ms | {r['disk_mb']:.1f} MB |")
        gen = [c for c in corpora if c.name.startswith("generated")]
        if len(gen) >= 2:
            x, y = gen[-2], gen[-1]
            f = y.r["files"] / x.r["files"]
            print()
            print(f"Scaling {x.name} → {y.name} ({f:.1f}× the files):")
            for k, label in (("full_jsonl", "full index JSONL"), ("full_jsonl_cpu", "full index JSONL, CPU time"),
                             ("full_sqlite", "full index +SQLite"), ("full_sqlite_cpu", "full index +SQLite, CPU time"),
                             ("check", "no-change check"), ("incremental", "incremental 1%"),
                             ("search_p50", "search p50"), ("pack_p50", "pack p50"),
                             ("search_nr_p50", "search p50 --no-refresh"), ("pack_nr_p50", "pack p50 --no-refresh")):
                ratio = y.r[k] / x.r[k]
                print(f"- {label}: {ratio:.1f}× ({ratio / f:.2f} of linear)")
        if iwe_ok:
            print()
            print("| corpus | IWE find p50 | mdgraph search p50 | ratio | IWE retrieve p50 | mdgraph pack p50 | ratio |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for c in corpora:
                w = getattr(c, "iwe", None)
                if isinstance(w, str):
                    print(f"| {c.name} | {w} | | | | | |")
                    continue
                print(f"| {c.name} | {fmt_ms(w['find_p50'])} ms | {fmt_ms(c.r['search_p50'])} ms "
                      f"| {w['find_p50'] / c.r['search_p50']:.0f}× | {fmt_ms(w['retrieve_p50'])} ms "
                      f"| {fmt_ms(c.r['pack_p50'])} ms | {w['retrieve_p50'] / c.r['pack_p50']:.0f}× |")
        for n in notes:
            print(f"\n{n}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
