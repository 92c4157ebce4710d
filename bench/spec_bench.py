#!/usr/bin/env python3
"""Spec folders at scale (issue 33): a generated Spec Kit repository of --features feature
folders with --tasks checkbox tasks in all, indexed cold (a) as spec folders, where every
task line is an item, and (b) the same files under `plain/` instead of `specs/`, read as
plain documents, and (c) the same tasks kept as a file each under `items/` (frontmatter
`type: Task`, a state and a parent Feature file per folder, as kano or Backlog.md keep
them: the same backlog, the same number of items); then the cost of ticking one checkbox (one `index` after the edit, the file written in place as
an editor saves it).

    python3 bench/spec_bench.py [--features 50] [--tasks 3000] [--runs 5] [--bin target/release/mdgraph]

Each figure is the median of --runs whole-process runs (wall clock); a cold run deletes
the index folder first.
"""
import argparse, os, shutil, statistics, subprocess, tempfile, time

SPEC = """# Feature Specification: Feature {n}

**Status**: Draft

## User Scenarios & Testing

### User Story 1 - Core flow {n} (Priority: P1)

As a user I run the core flow of feature {n} with its settings and see the result.

### User Story 2 - Reports {n} (Priority: P2)

As an operator I read a report of feature {n}.

## Requirements

- **FR-001**: System MUST store the records of feature {n}.
- **FR-002**: System MUST export the report of feature {n}.

## Success Criteria

- **SC-001**: 95% of runs of feature {n} finish within 2 seconds.
"""

PLAN = """# Implementation Plan: Feature {n}

## Technical Context

Language: Python 3.11, storage PostgreSQL, tests pytest. Feature {n} adds a service and a CLI.

## Structure

src/feature{n}/models.py, src/feature{n}/service.py, tests/feature{n}/.
"""

def tasks_md(n, count):
    phases = ["Setup", "Foundational", "User Story 1 - Core flow (Priority: P1)",
              "User Story 2 - Reports (Priority: P2)", "Polish"]
    per = max(1, count // len(phases))
    lines = [f"# Tasks: Feature {n}", ""]
    t = 1
    for p, name in enumerate(phases, 1):
        lines += [f"## Phase {p}: {name}", ""]
        k = per if p < len(phases) else count - per * (len(phases) - 1)
        for i in range(k):
            story = " [US1]" if p == 3 else " [US2]" if p == 4 else ""
            par = " [P]" if i % 3 else ""
            box = "x" if (t + n) % 4 == 0 else " "
            lines.append(f"- [{box}] T{t:03d}{par}{story} Implement step {i} of phase {p} in src/feature{n}/module_{i}.py per FR-00{1 + t % 2}")
            t += 1
        lines.append("")
    return "\n".join(lines)

def generate(root, features, tasks, folder):
    per = tasks // features
    for n in range(1, features + 1):
        d = os.path.join(root, folder, f"{n:03d}-feature-{n}")
        os.makedirs(d, exist_ok=True)
        for name, text in [("spec.md", SPEC.format(n=n)), ("plan.md", PLAN.format(n=n)),
                           ("tasks.md", tasks_md(n, per))]:
            with open(os.path.join(d, name), "w") as f:
                f.write(text)

def generate_files(root, features, tasks):
    """The backlog of `generate`, each task a file with frontmatter instead of a line."""
    per = tasks // features
    for n in range(1, features + 1):
        d = os.path.join(root, "items", f"{n:03d}-feature-{n}")
        os.makedirs(d, exist_ok=True)
        files = {"spec.md": SPEC.format(n=n), "plan.md": PLAN.format(n=n),
                 "feature.md": f"---\nid: F{n:03d}\ntype: Feature\ntitle: \"Feature {n}\"\nstate: Ready\n---\n\n# Feature {n}\n"}
        for line in tasks_md(n, per).split("\n"):
            if not line.startswith("- ["):
                continue
            tid, title = line[6:].split(" ", 1)
            state = "Done" if line[3] == "x" else "Ready"
            files[f"{tid}.md"] = (f"---\nid: F{n:03d}-{tid}\ntype: Task\ntitle: \"{title}\"\nstate: {state}\n"
                                  f"parent: F{n:03d}\n---\n\n# {title}\n")
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)

def run(cmd, cwd):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000

def cold(b, root, runs):
    out = []
    for _ in range(runs):
        shutil.rmtree(os.path.join(root, "_index"), ignore_errors=True)
        out.append(run([b, "--root", root, "index", "-q"], root))
    return statistics.median(out)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", type=int, default=50)
    ap.add_argument("--tasks", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "mdgraph"))
    a = ap.parse_args()
    b = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as tmp:
        spec, plain = os.path.join(tmp, "spec"), os.path.join(tmp, "plain")
        generate(spec, a.features, a.tasks, "specs")
        generate(plain, a.features, a.tasks, "plain")
        files = os.path.join(tmp, "files")
        generate_files(files, a.features, a.tasks)
        c_spec, c_plain, c_files = cold(b, spec, a.runs), cold(b, plain, a.runs), cold(b, files, a.runs)
        file_items = subprocess.run([b, "--root", files, "list", "--type", "Task", "--format", "json"],
                                    capture_output=True, text=True, check=True).stdout.count('"id"')
        items = subprocess.run([b, "--root", spec, "list", "--type", "Task", "--format", "json"],
                               capture_output=True, text=True, check=True).stdout.count('"id"')
        # The ticks come right after the cold run, as an edit after `make index` does
        # (the root folder, changed by making the index folder, is racy in the stat
        # cache and listed).
        tasks = os.path.join(spec, "specs", "001-feature-1", "tasks.md")

        def tick(i, by_rename):
            with open(tasks) as f:
                text = f.read()
            text = text.replace("- [ ] T", "- [x] T", 1) if i % 2 == 0 else text.replace("- [x] T", "- [ ] T", 1)
            # Written in place, or as an editor that saves atomically does (vim,
            # JetBrains, `sed -i`): a new file renamed over the old one.
            target = tasks + ".tmp" if by_rename else tasks
            with open(target, "w") as f:
                f.write(text)
            if by_rename:
                os.replace(target, tasks)
            return run([b, "--root", spec, "index", "-q"], spec)

        tick_in_place = statistics.median([tick(i, False) for i in range(a.runs)])
        tick_renamed = statistics.median([tick(i, True) for i in range(a.runs)])
        # The same file, a note added under its first task and removed again: no state,
        # title or link changes, so the mirror's `backlog` table is not made again.
        notes = []
        for i in range(a.runs):
            with open(tasks) as f:
                text = f.read()
            first = text.index("\n- [")
            end = text.index("\n", first + 1)
            text = text[:end] + "\n  - a note" + text[end:] if i % 2 == 0 else text.replace("\n  - a note", "", 1)
            with open(tasks, "w") as f:
                f.write(text)
            notes.append(run([b, "--root", spec, "index", "-q"], spec))
        note = statistics.median(notes)
        print(f"{a.features} features, {a.tasks} tasks ({items} Task items)")
        print(f"cold index, spec folders:     {c_spec:8.1f} ms")
        print(f"cold index, plain documents:  {c_plain:8.1f} ms  (spec/plain = {c_spec / c_plain:.2f})")
        print(f"cold index, a file per task:  {c_files:8.1f} ms  (spec/files = {c_spec / c_files:.2f}; {file_items} Task items)")
        print(f"tick one checkbox + index:    {tick_in_place:8.1f} ms  ({100 * tick_in_place / c_spec:.1f} % of a cold index)")
        print(f"  saved by rename:            {tick_renamed:8.1f} ms  ({100 * tick_renamed / c_spec:.1f} % of a cold index)")
        print(f"a note under a task + index:  {note:8.1f} ms  ({100 * note / c_spec:.1f} % of a cold index)")

if __name__ == "__main__":
    main()
