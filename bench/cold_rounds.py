#!/usr/bin/env python3
"""Cold index against the sum of its unavoidable parts, in rounds (BENCHMARKS.md, "Cold
index at 10k: where the time goes").

Each round first times the unavoidable parts once in a fresh process (`floors`, see
bench/floors.rs: walk, read, hash, parse, token counts, one write of each output), then a
cold `mdgraph index -v` (empty index folder) with each variant, so that every ratio
compares runs made under the same load. On a shared machine the load moves between
rounds; the per-round ratio is the figure to read, with its range.

    cargo build --release --bin mdgraph --example floors
    python3 bench/gen_backlog.py /tmp/gen-10000 --items 10000 --seed 1
    python3 bench/cold_rounds.py /tmp/gen-10000 --rounds 10 \\
        --variant after=target/release/mdgraph \\
        --variant after+fts=target/release/mdgraph:/tmp/cwd-fts \\
        --variant "jsonl only=target/release/mdgraph::--no-sqlite"

A variant is NAME=BINARY[:CWD[:ARGS]]: CWD is the working directory (a folder holding an
mdgraph.toml, e.g. with `sqlite_fts = true`; default: an empty temporary folder), ARGS
extra global options separated by spaces. The mirror whose bytes `floors` writes is the
one the `--mirror-of` variant (default: the first) built last (one is built first).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)


def phases(stderr):
    """The `-v` timings line as {phase: ms}."""
    line = stderr.split("timings:")[-1]
    return {k.strip(): float(v) for k, v in re.findall(r"([a-z][a-z ()]*?) ([\d.]+)ms", line)}


def cold(binary, root, index, cwd, extra):
    shutil.rmtree(index, ignore_errors=True)
    t = time.perf_counter()
    p = subprocess.run([binary, "--root", root, "--index-dir", index, "-v"] + extra + ["index"],
                       cwd=cwd, capture_output=True, text=True)
    wall = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        sys.exit(f"{binary} index failed: {p.stderr[-500:]}")
    return wall, phases(p.stderr)


def spread(values):
    v = sorted(values)
    return f"{v[0]:.0f} / {statistics.median(v):.0f} / {v[-1]:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="the backlog to index")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--floors", default=os.path.join(PROJECT, "target/release/examples/floors"))
    ap.add_argument("--variant", action="append", required=True, help="NAME=BINARY[:CWD[:ARGS]]")
    ap.add_argument("--mirror-of", help="the variant whose mirror `floors` writes (default: the first)")
    ap.add_argument("--json", help="write every round's figures here")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgraph-cold-")
    empty = os.path.join(tmp, "cwd")
    os.makedirs(empty)
    index = os.path.join(tmp, "_index")
    mirror = os.path.join(tmp, "mirror.sqlite")
    variants = []
    for v in args.variant:
        name, spec = v.split("=", 1)
        binary, cwd, extra = (spec.split(":", 2) + ["", ""])[:3]
        variants.append((name, os.path.abspath(binary), os.path.abspath(cwd) if cwd else empty, extra.split()))
    mirror_of = args.mirror_of or variants[0][0]
    if mirror_of not in [v[0] for v in variants]:
        sys.exit(f"--mirror-of: no variant {mirror_of}")
    rows = []
    try:
        for r in range(args.rounds):
            if r == 0:
                name, binary, cwd, extra = next(v for v in variants if v[0] == mirror_of)
                cold(binary, args.root, index, cwd, extra)
            db = os.path.join(index, "index.sqlite")
            if os.path.isfile(db):
                shutil.copyfile(db, mirror)
            load = os.getloadavg()[0]
            out = subprocess.run([args.floors, args.root, "1"] + ([mirror] if os.path.isfile(mirror) else []),
                                 capture_output=True, text=True, check=True).stdout
            parts = {m[0].strip(): float(m[1]) for m in re.findall(r"^(.+?)\s+([\d.]+) –\s+[\d.]+ ms$", out, re.M)}
            row = {"round": r, "load": load, "floor": parts["sum"], "parts": parts}
            for name, binary, cwd, extra in variants:
                wall, ph = cold(binary, args.root, index, cwd, extra)
                row[name] = {"wall": wall, "phases": ph}
                if name == mirror_of and os.path.isfile(db):
                    shutil.copyfile(db, mirror)
            rows.append(row)
            print(f"round {r}: load {load:.2f}, floor {row['floor']:.0f} ms | "
                  + " | ".join(f"{n} {row[n]['wall']:.0f} ms ({row[n]['wall'] / row['floor']:.2f}x)"
                               for n, *_ in variants), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"{len(rows)} rounds, load average {spread([r['load'] for r in rows])} (min / median / max)")
    print("unavoidable parts, fresh process, ms (min / median / max):")
    for k in rows[0]["parts"]:
        print(f"  {k:28s} {spread([r['parts'][k] for r in rows])}")
    for n, *_ in variants:
        print(f"{n}: wall {spread([r[n]['wall'] for r in rows])} ms, "
              f"x floor {' / '.join(f'{x:.2f}' for x in (lambda v: (v[0], statistics.median(v), v[-1]))(sorted(r[n]['wall'] / r['floor'] for r in rows)))}")
        print("  " + ", ".join(f"{k} {spread([r[n]['phases'].get(k, 0) for r in rows])}"
                               for k in rows[0][n]["phases"]))


if __name__ == "__main__":
    main()
