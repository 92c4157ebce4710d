#!/usr/bin/env python3
"""`mdgraph check --staged` (the pre-commit hook) on a generated backlog in a git
repository, against `git status` on the same tree.

    python3 bench/staged_bench.py [--items 10000] [--runs 5] [--bin target/release/mdgraph] [--commit]

Cases, each the median of --runs runs (whole process, wall clock):
- fresh: one edit staged a few seconds ago, the local index already up to date
  (`make index`, a watcher);
- after an edit: one new edit staged, the local index not yet refreshed (the check
  refreshes it, incrementally, as any reader would);
- partial: a file staged and then edited again (its staged text is read from git);
- git status on the same tree.

With --commit the backlog is in commit mode (`commit_index = true`): each edit is indexed
and staged with the index (`mdgraph index`, `git add <file> _index`), as a commit of it
is made; "after an edit" stages the edit without its index (the check refuses it), and
"partial" stages the edit with its index and then edits the file again.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

def run(cmd, cwd, check=True):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=check)

def timed(cmd, cwd):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--commit", action="store_true", help="commit mode (commit_index = true)")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "mdgraph"))
    a = ap.parse_args()
    b = os.path.abspath(a.bin)
    here = os.path.dirname(os.path.abspath(__file__))
    d = tempfile.mkdtemp(prefix="staged-bench-")
    try:
        run([sys.executable, os.path.join(here, "gen_backlog.py"), "--items", str(a.items), os.path.join(d, "backlog")], d)
        with open(os.path.join(d, "mdgraph.toml"), "w") as f:
            f.write('root = "backlog"\nindex_dir = "_index"\n' + ("commit_index = true\n" if a.commit else ""))
        for c in (["git", "init", "-q"], ["git", "config", "user.email", "b@b"], ["git", "config", "user.name", "b"]):
            run(c, d)
        run([b, "index", "-q"], d, check=False)
        run(["git", "add", "-A"], d)
        run(["git", "commit", "-q", "-m", "base"], d)
        files = subprocess.run(["git", "ls-files", "backlog/items"], cwd=d, capture_output=True, text=True).stdout.split()
        target = files[len(files) // 2]
        path = os.path.join(d, target)
        fresh, after, partial, status = [], [], [], []
        stage = [target, "_index"] if a.commit else [target]
        for i in range(a.runs):
            if a.commit:
                # Commit the previous round's staged state, so each round is one edit.
                run(["git", "commit", "-q", "--no-verify", "-m", f"round {i}", "--allow-empty"], d)
            with open(path, "a") as f:
                f.write(f"\nEdit {i}.\n")
            run(["git", "add", target], d)
            after.append(timed([b, "check", "--staged"], d))
            # A commit a few seconds after the edit, the index kept fresh (`make index`, a
            # watcher): the stat cache vouches for every file once the edit is older than
            # its racy window.
            run([b, "index", "-q"], d, check=False)
            run(["git", "add"] + stage, d)
            time.sleep(3)
            fresh.append(timed([b, "check", "--staged"], d))
            with open(path, "a") as f:
                f.write(f"\nUnstaged {i}.\n")
            run([b, "index", "-q"], d, check=False)
            partial.append(timed([b, "check", "--staged"], d))
            run(["git", "add"] + stage, d)
            status.append(timed(["git", "status"], d))
        verdict = subprocess.run([b, "check", "--staged"], cwd=d, capture_output=True, text=True)
        print(f"last verdict (all staged): exit {verdict.returncode} {verdict.stdout.strip()[-120:]}")
        med = statistics.median
        mode = "commit mode" if a.commit else "local mode"
        print(f"items: {a.items}, runs: {a.runs}, {mode} (median ms, whole process)")
        print(f"check --staged, local index fresh:        {med(fresh):7.1f}")
        print(f"check --staged, right after a new edit:   {med(after):7.1f}")
        print(f"check --staged, file partially staged:    {med(partial):7.1f}")
        print(f"git status:                               {med(status):7.1f}")
        print(f"target max(150, 5 x git status):          {max(150, 5 * med(status)):7.1f}")
    finally:
        shutil.rmtree(d, ignore_errors=True)

if __name__ == "__main__":
    main()
