#!/usr/bin/env python3
"""Crash-safety test: SIGKILL `mdgraph index` at random moments and check the index folder.

    python3 bench/crash_safety.py [--items 10000] [--kills 50] [--bin target/release/mdgraph]

Generates a kano-style backlog with bench/gen_backlog.py, indexes it, then repeats: edit 1 %
of the items (so the next run really writes every output), start `mdgraph index`, SIGKILL it,
and check what the index folder holds. Kill moments come from two strategies, alternated:

* random: a uniform moment between 0 and 1.2 x the duration of an uninterrupted run;
* chase:  poll the folder and kill the moment the first output file is replaced (the
          narrow window between the renames of one commit, which random moments almost
          never hit).

Right after each kill the four files (graph_nodes.jsonl, graph_edges.jsonl,
diagnostics.jsonl, meta.json) are read and classified against the snapshot taken before
the run ("previous") and the result of the run that completes it ("new"):

* previous  - all four files are the previous index;
* new       - all four files are the new index;
* finished  - a commit journal (.commit) was left, the files are partly switched, and the
              first reader (`mdgraph check`) completes the switch: afterwards they are
              exactly the new index;
* FAIL      - anything else: a mix of the two without a journal, a truncated or unknown
              file, a reader that does not complete the switch, `check` reporting a
              fresh index that is not the new one, or a next run that fails or blocks.

After every kill the next `mdgraph index` must succeed within --timeout seconds (the
killed run held the OS file lock on _index/.lock: a stale lock must not block), leave no
journal or temporary files, and `mdgraph check` must then report a fresh index. Every 10th
round the result is also compared with an `index --full` into a separate folder. Exit 1
if any round failed. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_backlog  # noqa: E402

FILES = ["graph_nodes.jsonl", "graph_edges.jsonl", "diagnostics.jsonl", "meta.json"]


def snapshot(index: Path) -> dict[str, str | None]:
    out = {}
    for name in FILES:
        try:
            out[name] = hashlib.sha256((index / name).read_bytes()).hexdigest()
        except FileNotFoundError:
            out[name] = None
    return out


def leftovers(index: Path) -> list[str]:
    return sorted(p.name for p in index.iterdir() if p.name == ".commit" or ".tmp-" in p.name)


class Runner:
    def __init__(self, binary: Path, work: Path, timeout: float):
        self.binary, self.work, self.timeout = binary, work, timeout

    def args(self, *cmd: str, index: str = "_index") -> list[str]:
        return [str(self.binary), "--root", "backlog", "--index-dir", index, *cmd]

    def run(self, *cmd: str, index: str = "_index") -> subprocess.CompletedProcess:
        return subprocess.run(self.args(*cmd, index=index), cwd=self.work, capture_output=True, text=True,
                              timeout=self.timeout)

    def check_json(self) -> tuple[int, dict]:
        r = self.run("check", "--format", "json")
        try:
            return r.returncode, json.loads(r.stdout)
        except json.JSONDecodeError:
            return r.returncode, {"error": r.stderr.strip()}


def kill_random(r: Runner, delay: float) -> bool:
    """Start an index run, SIGKILL it after `delay` seconds. True when it was killed."""
    p = subprocess.Popen(r.args("index"), cwd=r.work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
        return True


def kill_chase(r: Runner, index: Path, limit: float) -> bool:
    """Start an index run, SIGKILL it the moment the first output file is replaced."""
    def ino(name):
        try:
            return os.stat(index / name).st_ino
        except FileNotFoundError:
            return None
    before = {n: ino(n) for n in FILES}
    p = subprocess.Popen(r.args("index"), cwd=r.work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + limit
    while p.poll() is None and time.monotonic() < deadline:
        if any(ino(n) != before[n] for n in FILES):
            break
    if p.poll() is not None:
        return False
    p.send_signal(signal.SIGKILL)
    p.wait()
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=10000, help="work items to generate (default 10000)")
    ap.add_argument("--kills", type=int, default=50, help="SIGKILLs to deliver (default 50)")
    ap.add_argument("--bin", default="target/release/mdgraph", help="the mdgraph binary")
    ap.add_argument("--seed", type=int, default=1, help="random seed (kill moments, edits)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a run may take before it counts as blocked")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    a = ap.parse_args(argv)

    binary = Path(a.bin).resolve()
    if not binary.is_file():
        print(f"no binary at {binary}; run `cargo build --release` first", file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    work = Path(tempfile.mkdtemp(prefix="mdgraph-crash-"))
    index = work / "_index"
    r = Runner(binary, work, a.timeout)
    print(f"work folder {work}; binary {binary}")
    n, m, total = gen_backlog.generate(str(work / "backlog"), a.items, max(8, a.items // 100), a.seed)
    print(f"generated {n} items and {m} ADRs ({total / 1e6:.1f} MB)")
    first = r.run("index")
    assert first.returncode == 0, first.stderr
    # The duration of an uninterrupted incremental run after a 1 % edit.
    gen_backlog.edit(str(work / "backlog"), 1, 10_000 + a.seed)
    t0 = time.monotonic()
    timed = r.run("index")
    duration = time.monotonic() - t0
    assert timed.returncode == 0, timed.stderr
    print(f"an uninterrupted run after a 1 % edit takes {duration:.2f} s")

    outcomes: Counter[str] = Counter()
    by_strategy: Counter[tuple[str, str]] = Counter()
    failures: list[str] = []
    kills = 0
    rounds = 0
    while kills < a.kills:
        rounds += 1
        prev = snapshot(index)
        gen_backlog.edit(str(work / "backlog"), 1, rounds * 7919 + a.seed)
        strategy = "chase" if rounds % 3 == 0 else "random"
        if strategy == "chase":
            killed = kill_chase(r, index, a.timeout)
        else:
            killed = kill_random(r, rng.uniform(0, 1.2 * duration))
        after_kill = snapshot(index)
        journal = (index / ".commit").exists()
        lock_left = (index / ".lock").exists()

        problems = []
        # The first reader: finishes a half-done commit. The index is local (the default),
        # so `check` then brings it up to date itself: it leaves the folder as it was or
        # the new index, nothing else (checked below, once the new index is known).
        code, report = r.check_json()
        after_check = snapshot(index)
        if code == 2 or "fresh" not in report:
            problems.append(f"check failed after the kill: {report}")
        # The next run must not be blocked by the dead run's lock, and completes the index.
        try:
            nxt = r.run("index")
            if nxt.returncode != 0:
                problems.append(f"next index exited {nxt.returncode}: {nxt.stderr.strip()[-300:]}")
        except subprocess.TimeoutExpired:
            problems.append(f"next index blocked for over {a.timeout} s (stale lock?)")
        new = snapshot(index)
        left = leftovers(index)
        if left:
            problems.append(f"left in the index folder after the next run: {left}")
        code2, report2 = r.check_json()
        if report2.get("fresh") is not True:
            problems.append(f"index not fresh after the next run: {report2}")
        if report.get("fresh") is True and after_check != new:
            problems.append("check called a folder fresh that is not the new index")
        if not journal and after_check not in (after_kill, new):
            problems.append("check left the folder neither as it was nor the new index")

        if not killed:
            outcome = "finished before the kill"
            if after_kill != new:
                problems.append("a run that finished left something other than the new index")
        elif after_kill == prev:
            outcome = "previous"
        elif after_kill == new:
            outcome = "new"
        elif journal and after_check == new:
            outcome = "finished"
            mixed = [f for f in FILES if after_kill[f] == prev[f] != new[f]]
            outcome += " (was mixed)" if mixed and any(after_kill[f] == new[f] != prev[f] for f in FILES) else ""
        else:
            outcome = "FAIL"
            detail = {f: ("previous" if after_kill[f] == prev[f] else "new" if after_kill[f] == new[f]
                          else "missing" if after_kill[f] is None else "other") for f in FILES}
            problems.append(f"after the kill the folder held {detail} (journal: {journal})")
        if killed and not lock_left:
            problems.append("the killed run left no lock file (the lock test did not happen)")
        if rounds % 10 == 0:
            full = r.run("index", "--full", "--no-sqlite", index="_index_full")
            if full.returncode != 0 or snapshot(work / "_index_full") != new:
                problems.append("the index differs from a full rebuild into another folder")
        # Search works on the completed index (0: found, 1: nothing found).
        s = r.run("search", "sync retry", "--no-refresh", "--limit", "3")
        if s.returncode not in (0, 1):
            problems.append(f"search exited {s.returncode}: {s.stderr.strip()[-300:]}")

        if killed:
            kills += 1
        if problems:
            outcome = "FAIL"
            failures.append(f"round {rounds} ({strategy}): " + "; ".join(problems))
        outcomes[outcome] += 1
        by_strategy[(strategy, outcome)] += 1
        print(f"round {rounds:3} {strategy:6} {'killed' if killed else 'done  '} -> {outcome}"
              + (f"  [{problems[0][:160]}]" if problems else ""), flush=True)

    print()
    print(f"kills: {kills} in {rounds} rounds ({a.items} items, {duration:.2f} s per run)")
    for (strategy, outcome), count in sorted(by_strategy.items()):
        print(f"  {strategy:6} {outcome:28} {count}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"failures: {len(failures)}")
    for f in failures:
        print("  " + f)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
