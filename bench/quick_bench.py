#!/usr/bin/env python3
"""p50/p90 of search, pack, list, ready and tree on an indexed generated backlog.

    python3 bench/gen_backlog.py /tmp/gen10k --items 10000
    target/release/mdgraph --root /tmp/gen10k --index-dir /tmp/gen10k-idx index -q
    python3 bench/quick_bench.py
"""
import subprocess, time, statistics, sys
import os
# MDGRAPH_BIN, MDGRAPH_ROOT and MDGRAPH_INDEX override the binary and the backlog.
B=os.environ.get("MDGRAPH_BIN") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target", "release", "mdgraph")
A=["--root",os.environ.get("MDGRAPH_ROOT","/tmp/gen10k"),"--index-dir",os.environ.get("MDGRAPH_INDEX","/tmp/gen10k-idx")]
def t(args, n=20):
    xs=[]
    for _ in range(n):
        s=time.perf_counter(); subprocess.run([B]+A+args, capture_output=True); xs.append((time.perf_counter()-s)*1000)
    xs.sort(); return f"p50 {xs[len(xs)//2]:.1f} ms, p90 {xs[int(len(xs)*0.9)]:.1f} ms"
for name,args in [("search --no-refresh",["search","cache worker for observer","--no-refresh"]),
                  ("pack --no-refresh (4000)",["pack","cache worker for observer","--no-refresh"]),
                  ("pack --no-refresh --budget 1000",["pack","cache worker for observer","--no-refresh","--budget","1000"]),
                  ("list --type Task --state InProgress --no-refresh",["list","--type","Task","--state","InProgress","--no-refresh"]),
                  ("ready --no-refresh",["ready","--no-refresh"]),
                  ("tree (an epic) --no-refresh",["tree","GEN-EPIC-0001","--no-refresh"])]:
    print(f"| {name} | {t(args)} |")
