#!/usr/bin/env python3
"""No-change `mdgraph check` beside `git status` on the same tree (issue 42's target: the
check costs no more than git status).

    python3 bench/gen_backlog.py /tmp/gen10k --items 10000
    python3 bench/check_bench.py [--runs 21]

The backlog is made a git repository (committed once) if it is not one. Three figures,
each the median of --runs runs after two warm-ups: `git status` in the backlog; `mdgraph
check` with the hygiene findings kept (`.findings`, as every run after the first has
them); `mdgraph check` with `.findings` removed before each run, which is what every run
did before the findings were kept. MDGRAPH_BIN, MDGRAPH_ROOT and MDGRAPH_INDEX override
the binary (default target/release/mdgraph), the backlog and the index folder.
"""
import argparse, os, statistics, subprocess, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.environ.get("MDGRAPH_BIN") or os.path.join(repo, "target", "release", "mdgraph")
root = os.environ.get("MDGRAPH_ROOT", "/tmp/gen10k")
index = os.environ.get("MDGRAPH_INDEX", root.rstrip("/") + "-idx")
ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=21)
runs = ap.parse_args().runs

env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
if not os.path.isdir(os.path.join(root, ".git")):
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "backlog"]):
        subprocess.run(["git", "-C", root] + cmd, check=True, env=env)
mdgraph = [B, "--root", root, "--index-dir", index]
subprocess.run(mdgraph + ["index", "-q"], check=True)
time.sleep(2.5)  # past the stat cache's racy window, so it vouches for every file
subprocess.run(mdgraph + ["index", "-q"], check=True)


def median_ms(cmd, before=None):
    xs = []
    for i in range(runs + 2):
        if before:
            before()
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env)
        if i >= 2:
            xs.append((time.perf_counter() - t) * 1000)
    return statistics.median(xs), min(xs)


def drop_findings():
    try:
        os.remove(os.path.join(index, ".findings"))
    except FileNotFoundError:
        pass


files = sum(len(names) for d, _, names in os.walk(root) if "/.git" not in d + "/")
print(f"{root}: {files} files, {runs} runs each, median / min ms")
for name, cmd, before in [
    ("git status", ["git", "-C", root, "status", "--porcelain"], None),
    ("mdgraph check (findings kept)", mdgraph + ["check"], None),
    ("mdgraph check (findings judged every run)", mdgraph + ["check"], drop_findings),
]:
    med, low = median_ms(cmd, before)
    print(f"| {name} | {med:.1f} | {low:.1f} |")
