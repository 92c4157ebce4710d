#!/usr/bin/env python3
"""Benchmark the mdgraph CLI on generated backlogs and, when present, on real corpora.

    python3 bench/bench.py [--sizes 1000,10000] [--runs 5] [--bin target/release/mdgraph]

Builds the release binary (`cargo build --release`, unless --no-build), generates each size
with bench/gen_backlog.py into a temporary folder (removed at the end), and measures per
corpus: full index (median/min over --runs, index folder deleted before each run), no-op
index, no-change check (exit code reported), incremental index after editing 1% of the files
(a different edit seed per run), peak RSS of a full index (os.wait4) and the index size on
disk. Prints a Markdown table, the machine, and notes on anything unexpected (non-zero exit
codes, crashes, timeouts, an incremental index that differs from a full rebuild).

Real corpora (skipped with a message when absent), relative to the project root:
../shared/corpora/eips and ../shared/corpora/backlog-md/backlog. They are indexed in place
(read-only: the index goes to a temporary folder) with no config file; the incremental
measurement runs on a temporary copy. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from random import Random

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
GEN = os.path.join(HERE, "gen_backlog.py")
INDEX_FILES = ("graph_nodes.jsonl", "graph_edges.jsonl", "diagnostics.jsonl", "meta.json")


# --------------------------------------------------------------------------------------
# Running commands
# --------------------------------------------------------------------------------------


class Result:
    def __init__(self, cmd, rc, secs, stdout="", stderr="", rss_kib=None, timed_out=False, error=None):
        self.cmd, self.rc, self.secs = cmd, rc, secs
        self.stdout, self.stderr = stdout, stderr
        self.rss_kib, self.timed_out, self.error = rss_kib, timed_out, error

    def status(self):
        """Short text for a non-clean outcome ('' when the exit code is 0)."""
        if self.error:
            return "failed to start"
        if self.timed_out:
            return "timeout"
        if self.rc is None or self.rc == 0:
            return ""
        if self.rc < 0:
            try:
                import signal
                return f"killed by {signal.Signals(-self.rc).name}"
            except (ValueError, AttributeError):
                return f"killed by signal {-self.rc}"
        return f"exit {self.rc}"

    def why(self):
        """Status plus the first output line, for notes."""
        line = self.first_error_line()
        return f"{self.status() or 'exit 0'}: {line}" if line else (self.status() or "exit 0")

    def first_error_line(self):
        for text in (self.stderr, self.stdout):
            for line in (text or "").splitlines():
                if line.strip():
                    return line.strip()[:200]
        return self.error or ""


def run(cmd, cwd, timeout):
    """Time one command with perf_counter around subprocess.run, output captured."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return Result(cmd, None, time.perf_counter() - t0, _dec(e.stdout), _dec(e.stderr), timed_out=True)
    except OSError as e:
        return Result(cmd, None, time.perf_counter() - t0, error=str(e))
    return Result(cmd, p.returncode, time.perf_counter() - t0, _dec(p.stdout), _dec(p.stderr))


def run_rss(cmd, cwd, timeout):
    """Run once with Popen and reap it with os.wait4 to read ru_maxrss (KiB on Linux).
    Output goes to temporary files so no pipe can fill up while we wait."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err)
        except OSError as e:
            return Result(cmd, None, 0.0, error=str(e))
        deadline = t0 + timeout
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                timed_out = True
                break
            time.sleep(0.002)
        secs = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        rss = ru.ru_maxrss
        if sys.platform == "darwin":  # bytes there
            rss //= 1024
        return Result(cmd, p.returncode, secs, _dec(out.read()), _dec(err.read()), rss_kib=rss, timed_out=timed_out)


def _dec(b):
    if b is None:
        return ""
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else b


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def tree_stats(root, skip=None):
    """(number of Markdown files, total bytes of them) under root, skipping `skip`."""
    n = size = 0
    skip = os.path.realpath(skip) if skip else None
    for dirpath, dirnames, filenames in os.walk(root):
        if skip:
            dirnames[:] = [d for d in dirnames if os.path.realpath(os.path.join(dirpath, d)) != skip]
        for fn in filenames:
            if fn.lower().endswith((".md", ".markdown")):
                n += 1
                size += os.path.getsize(os.path.join(dirpath, fn))
    return n, size


def dir_size(path):
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for fn in filenames:
            try:
                total += os.path.getsize(os.path.join(dirpath, fn))
            except OSError:
                pass
    return total


def rm_index(path):
    if os.path.isdir(path):
        shutil.rmtree(path)


def git_short_head(repo):
    """The short commit of HEAD, read from .git without running git (same answer as
    `git rev-parse --short HEAD` for a normal checkout; 7 hex digits)."""
    gitdir = os.path.join(repo, ".git")
    try:
        if os.path.isfile(gitdir):  # worktree / submodule: "gitdir: <path>"
            with open(gitdir) as f:
                line = f.read().strip()
            if line.startswith("gitdir:"):
                gitdir = os.path.join(repo, line.split(":", 1)[1].strip())
        with open(os.path.join(gitdir, "HEAD")) as f:
            head = f.read().strip()
        if not head.startswith("ref:"):
            return head[:7]
        ref = head.split(":", 1)[1].strip()
        common = gitdir
        cd = os.path.join(gitdir, "commondir")
        if os.path.isfile(cd):
            with open(cd) as f:
                common = os.path.join(gitdir, f.read().strip())
        for base in (gitdir, common):
            p = os.path.join(base, ref)
            if os.path.isfile(p):
                with open(p) as f:
                    return f.read().strip()[:7]
        packed = os.path.join(common, "packed-refs")
        if os.path.isfile(packed):
            with open(packed) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[1] == ref:
                        return parts[0][:7]
        return f"unborn ({ref})"
    except OSError:
        return "unknown"


def machine_line(binary):
    try:
        nproc = subprocess.run(["nproc"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except OSError:
        nproc = ""
    nproc = nproc or str(os.cpu_count())
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or cpu
    try:
        ver = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        ver = "?"
    return (f"Machine: nproc={nproc}, CPU: {cpu}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}; {ver or 'mdgraph'} at commit {git_short_head(PROJECT)}")


_SUMMARY = re.compile(r"\((\d+) parsed, (\d+) unchanged\)")


def ms(x):
    return f"{x * 1000:.0f}" if x * 1000 >= 10 else f"{x * 1000:.1f}"


def edit_copy(root, percent, seed, skip):
    """Append a line to `percent`% of the Markdown files under root (for corpora copies)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if os.path.join(dirpath, d) != skip)
        for fn in sorted(filenames):
            if fn.lower().endswith(".md"):
                files.append(os.path.join(dirpath, fn))
    files.sort()
    k = min(len(files), max(1, round(len(files) * percent / 100.0))) if files else 0
    for p in Random(f"bench-edit:{seed}").sample(files, k):
        with open(p, "ab") as f:
            f.write(f"\nEdited by the mdgraph benchmark (seed {seed}).\n".encode())
    return k


# --------------------------------------------------------------------------------------
# One corpus
# --------------------------------------------------------------------------------------


class Row:
    def __init__(self, name):
        self.name = name
        self.files = self.size = None
        self.full = []  # Result
        self.noop = []
        self.check = []
        self.incr = []
        self.rss = None  # Result
        self.index_bytes = None
        self.notes = []
        self.failed = False
        self.skipped = None

    def note(self, msg, failure=True):
        self.notes.append(msg)
        if failure:
            self.failed = True


def cell_times(results, expect=(0,), show_rc=False, with_min=False):
    if not results:
        return "n/a"
    ok = [r.secs for r in results if not r.timed_out and r.error is None]
    if not ok:
        return results[0].status() or "failed"
    text = ms(statistics.median(ok))
    if with_min:
        text += f" / {ms(min(ok))}"
    codes = []
    for r in results:
        s = r.status() or "exit 0"
        if s not in codes:
            codes.append(s)
    bad = [r for r in results if r.rc not in expect]
    if show_rc or bad:
        text += " (" + ", ".join(codes) + ")"
    if bad:
        text = "**" + text + "**"
    return text


def bench_corpus(row, root, index_dir, cwd, args, mdgraph, incremental):
    """Run the measurements. `incremental(run_no)` edits files and returns a description, or
    None when no incremental measurement is possible."""
    base = [mdgraph, "--root", root, "--index-dir", index_dir]
    t = args.timeout

    def record(kind, res, expect=(0,)):
        if res.rc not in expect:
            row.note(f"{kind}: {res.why()}")

    # Full index.
    for _ in range(args.runs):
        rm_index(index_dir)
        res = run(base + ["index", "--full"], cwd, t)
        row.full.append(res)
        record("full index", res)
    # Peak RSS: one more full index, reaped with wait4.
    rm_index(index_dir)
    row.rss = run_rss(base + ["index", "--full"], cwd, t)
    record("full index (RSS run)", row.rss)
    if os.path.isdir(index_dir):
        row.index_bytes = dir_size(index_dir)
        missing = [f for f in INDEX_FILES if not os.path.isfile(os.path.join(index_dir, f))]
        if missing:
            row.note(f"index folder lacks {', '.join(missing)}")
    else:
        row.note("full index left no index folder")
    # No-op index.
    for _ in range(args.runs):
        res = run(base + ["index"], cwd, t)
        row.noop.append(res)
        record("no-op index", res)
        if res.rc == 0 and "up to date" not in res.stderr:
            row.note("no-op index did not report 'up to date': " + res.first_error_line(), failure=False)
    # No-change check.
    for _ in range(args.runs):
        res = run(base + ["check"], cwd, t)
        row.check.append(res)
        record("check", res, expect=(0, 1))
    # Incremental.
    parsed = []
    for i in range(args.runs):
        what = incremental(i)
        if what is None:
            break
        res = run(base + ["index"], cwd, t)
        row.incr.append(res)
        record(f"incremental index ({what})", res)
        m = _SUMMARY.search(res.stderr)
        if m:
            parsed.append(int(m.group(1)))
    if row.incr:
        if parsed:
            row.notes.append(f"incremental runs re-parsed {min(parsed)}–{max(parsed)} files each")
        res = run(base + ["check"], cwd, t)
        expected = row.check[-1].rc if row.check else 0
        if res.rc != expected:
            row.note(f"check after incremental index: {res.why()} "
                     f"(the no-change check gave {row.check[-1].status() or 'exit 0'})")
        # The incremental result must equal a full rebuild (index.rs promises byte-identity).
        verify = index_dir + "-full-verify"
        rm_index(verify)
        res = run([mdgraph, "--root", root, "--index-dir", verify, "index", "--full"], cwd, t)
        if res.rc != 0:
            row.note(f"verification full index: {res.why()}")
        else:
            differ = []
            for f in INDEX_FILES:
                a, b = os.path.join(index_dir, f), os.path.join(verify, f)
                if not (os.path.isfile(a) and os.path.isfile(b)) or not same_bytes(a, b):
                    differ.append(f)
            if differ:
                row.note("incremental index differs from a full rebuild in " + ", ".join(differ)
                         + describe_diag_diff(os.path.join(index_dir, "diagnostics.jsonl"),
                                              os.path.join(verify, "diagnostics.jsonl")))
        rm_index(verify)


def same_bytes(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def describe_diag_diff(a, b):
    try:
        with open(a, "rb") as f:
            la = f.read().splitlines()
        with open(b, "rb") as f:
            lb = f.read().splitlines()
    except OSError:
        return ""
    if la == lb:
        return ""
    codes = {}
    for line in set(lb) - set(la):
        m = re.search(rb'"code":"([^"]+)"', line)
        k = m.group(1).decode() if m else "?"
        codes[k] = codes.get(k, 0) + 1
    extra = len(set(la) - set(lb))
    what = ", ".join(f"{v}× {k}" for k, v in sorted(codes.items()))
    return (f" (diagnostics: full rebuild has {len(lb)}, incremental has {len(la)}; "
            f"missing from incremental: {what or 'none'}; only in incremental: {extra})")


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated item counts (default 1000,10000)")
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    ap.add_argument("--bin", default="target/release/mdgraph", help="mdgraph binary (relative to the project root)")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build --release first")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--corpora", default=os.path.join("..", "shared", "corpora"),
                    help="folder of the real corpora (relative to the project root)")
    ap.add_argument("--no-corpora", action="store_true", help="skip the real corpora")
    ap.add_argument("--timeout", type=float, default=600, help="timeout per command in seconds (default 600)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = ap.parse_args(argv)

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        ap.error("--sizes must be comma-separated integers")
    if any(s < 1 for s in sizes) or args.runs < 1:
        ap.error("sizes and --runs must be positive")

    mdgraph = args.bin if os.path.isabs(args.bin) else os.path.join(PROJECT, args.bin)
    if not args.no_build:
        print("building: cargo build --release", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            p = subprocess.run(["cargo", "build", "--release"], cwd=PROJECT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        except OSError as e:
            print(f"bench: cannot run cargo: {e}", file=sys.stderr)
            return 2
        if p.returncode != 0:
            print(p.stdout[-4000:], file=sys.stderr)
            print(f"bench: cargo build --release failed (exit {p.returncode})", file=sys.stderr)
            return 2
        print(f"built in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if not (os.path.isfile(mdgraph) and os.access(mdgraph, os.X_OK)):
        print(f"bench: binary not found or not executable: {mdgraph}", file=sys.stderr)
        return 2

    tmp = tempfile.mkdtemp(prefix="mdgraph-bench-")
    cwd = os.path.join(tmp, "cwd")  # empty working directory: no mdgraph.toml is picked up
    os.makedirs(cwd)
    rows, gen_lines = [], []
    try:
        for n in sizes:
            name = f"generated {n}"
            row = Row(name)
            rows.append(row)
            root = os.path.join(tmp, f"gen-{n}")
            print(f"[{name}] generating", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            g = subprocess.run([sys.executable, GEN, root, "--items", str(n), "--seed", str(args.seed)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            dt = time.perf_counter() - t0
            if g.returncode != 0:
                row.skipped = f"generator failed (exit {g.returncode})"
                row.note(f"gen_backlog.py: {g.stderr.strip()[:300]}")
                continue
            gen_lines.append(f"{n} items: {dt:.2f} s wall ({g.stdout.strip()})")
            index_dir = os.path.join(root, "_index")
            row.files, row.size = tree_stats(root, skip=index_dir)

            def incremental(i, root=root):
                seed = 1000 + i
                e = subprocess.run([sys.executable, GEN, root, "--edit-percent", "1", "--seed", str(seed)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if e.returncode != 0:
                    row.note(f"gen_backlog.py --edit-percent failed: {e.stderr.strip()[:200]}")
                    return None
                return f"edit seed {seed}"

            print(f"[{name}] measuring", file=sys.stderr, flush=True)
            bench_corpus(row, root, index_dir, cwd, args, mdgraph, incremental)
            shutil.rmtree(root, ignore_errors=True)

        corpora_base = args.corpora if os.path.isabs(args.corpora) else os.path.normpath(
            os.path.join(PROJECT, args.corpora))
        for name, rel in (("eips", "eips"), ("backlog-md", os.path.join("backlog-md", "backlog"))):
            if args.no_corpora:
                break
            src = os.path.join(corpora_base, rel)
            row = Row(name)
            if not os.path.isdir(src):
                print(f"[{name}] skipped: {src} not found", file=sys.stderr)
                row.skipped = f"absent ({src})"
                rows.append(row)
                continue
            rows.append(row)
            print(f"[{name}] measuring", file=sys.stderr, flush=True)
            row.files, row.size = tree_stats(src)
            copy = os.path.join(tmp, f"copy-{name}")
            copy_index = os.path.join(tmp, f"index-{name}-copy")
            state = {"ready": False}

            def incremental(i, src=src, copy=copy, copy_index=copy_index, state=state, row=row):
                # Incremental runs on a private copy (the shared corpus is never written),
                # starting from a fresh index of the unedited copy.
                if not state["ready"]:
                    shutil.copytree(src, copy, symlinks=True)
                    r = run([mdgraph, "--root", copy, "--index-dir", copy_index, "index"], cwd, args.timeout)
                    if r.rc != 0:
                        row.note(f"index of the corpus copy: {r.why()}")
                        return None
                    state["ready"] = True
                k = edit_copy(copy, 1, 1000 + i, skip=None)
                return f"{k} files appended to"

            # Full/no-op/check on the corpus itself; incremental on the copy.
            index_dir = os.path.join(tmp, f"index-{name}")
            bench_corpus_split(row, src, index_dir, copy, copy_index, cwd, args, mdgraph, incremental)
            shutil.rmtree(copy, ignore_errors=True)
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    # Report.
    print()
    print("| corpus | files | size MB | full index ms (median / min) | no-op index ms | check ms (exit) "
          "| incremental 1% ms | peak RSS MB | index size MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r.skipped:
            print(f"| {r.name} | – | – | {r.skipped} | | | | | |")
            continue
        rss = "n/a"
        if r.rss is not None and r.rss.rss_kib is not None:
            rss = f"{r.rss.rss_kib / 1024:.0f}"
            if r.rss.status():
                rss += f" ({r.rss.status()})"
        print("| " + " | ".join([
            r.name,
            str(r.files),
            f"{r.size / 1e6:.1f}",
            cell_times(r.full, with_min=True),
            cell_times(r.noop),
            cell_times(r.check, expect=(0, 1), show_rc=True),
            cell_times(r.incr),
            rss,
            f"{r.index_bytes / 1e6:.1f}" if r.index_bytes is not None else "n/a",
        ]) + " |")
    print()
    print(machine_line(mdgraph))
    print(f"Runs per measurement: {args.runs}. Times are wall clock (perf_counter around subprocess.run).")
    if gen_lines:
        print("Generation: " + "; ".join(gen_lines))
    notes = []  # (corpus, note, count), repeated notes collapsed, first-seen order
    for r in rows:
        for n in r.notes:
            for i, (name, text, count) in enumerate(notes):
                if name == r.name and text == n:
                    notes[i] = (name, text, count + 1)
                    break
            else:
                notes.append((r.name, n, 1))
    if notes:
        print()
        print("Notes:")
        for name, n, count in notes:
            print(f"- {name}: {n}" + (f" (×{count})" if count > 1 else ""))
    return 1 if any(r.failed for r in rows) else 0


def bench_corpus_split(row, src, index_dir, copy, copy_index, cwd, args, mdgraph, incremental):
    """bench_corpus for a read-only corpus: everything on `src` except the incremental runs,
    which run on `copy` with its own index."""
    incr_row = Row(row.name)

    def no_incremental(i):
        return None

    bench_corpus(row, src, index_dir, cwd, args, mdgraph, no_incremental)
    # Incremental measurement on the copy (first call makes the copy and indexes it).
    for i in range(args.runs):
        what = incremental(i)
        if what is None:
            break
        res = run([mdgraph, "--root", copy, "--index-dir", copy_index, "index"], cwd, args.timeout)
        incr_row.incr.append(res)
        if res.rc != 0:
            row.note(f"incremental index ({what}): {res.why()}")
        m = _SUMMARY.search(res.stderr)
        if m and i == 0:
            row.notes.append(f"incremental runs on a copy; first run re-parsed {m.group(1)} files")
    row.incr = incr_row.incr
    if row.incr:
        verify = copy_index + "-full-verify"
        res = run([mdgraph, "--root", copy, "--index-dir", verify, "index", "--full"], cwd, args.timeout)
        if res.rc == 0:
            differ = [f for f in INDEX_FILES
                      if not (os.path.isfile(os.path.join(copy_index, f)) and os.path.isfile(os.path.join(verify, f))
                              and same_bytes(os.path.join(copy_index, f), os.path.join(verify, f)))]
            if differ:
                row.note("incremental index differs from a full rebuild in " + ", ".join(differ)
                         + describe_diag_diff(os.path.join(copy_index, "diagnostics.jsonl"),
                                              os.path.join(verify, "diagnostics.jsonl")))
        else:
            row.note(f"verification full index: {res.why()}")
        rm_index(verify)


if __name__ == "__main__":
    sys.exit(main())
