#!/usr/bin/env python3
"""p50 of list, ready and tree for several binaries, each on its own index, run
alternately (A, B, A, B, ...) so that a noisy machine weighs on all of them alike.

    python3 bench/backlog_ab.py 30 /tmp/mdgraph-old:/tmp/idx-old target/release/mdgraph:/tmp/idx-new

ROOT picks the backlog (default /tmp/gen10k); PROBE=1 drops --no-refresh (the stat
probe runs first, as on a plain command line).
"""
import os, subprocess, sys, time

rounds = int(sys.argv[1])
runs = [a.split(":") for a in sys.argv[2:]]
root = os.environ.get("ROOT", "/tmp/gen10k")
refresh = [] if os.environ.get("PROBE") else ["--no-refresh"]
cmds = [
    ("list --type Task --state InProgress", ["list", "--type", "Task", "--state", "InProgress"]),
    ("ready", ["ready"]),
    ("tree GEN-EPIC-0001", ["tree", "GEN-EPIC-0001"]),
]
times = {}
for _ in range(rounds):
    for name, args in cmds:
        for i, (binary, index) in enumerate(runs):
            start = time.perf_counter()
            subprocess.run([binary, "--root", root, "--index-dir", index] + args + refresh, capture_output=True)
            times.setdefault((name, i), []).append((time.perf_counter() - start) * 1000)
for name, _ in cmds:
    for i, (binary, _) in enumerate(runs):
        xs = sorted(times[(name, i)])
        print(f"| {name} | {binary} | {xs[len(xs) // 2]:.1f} ms | {xs[int(len(xs) * 0.9)]:.1f} ms |")
