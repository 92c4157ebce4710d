#!/usr/bin/env python3
"""Latency of `mdgraph mcp` tool calls, measured by the official MCP Python client.

    python3 bench/mcp_bench.py [--items 10000] [--calls 50] [--root DIR] [--no-build]

Generates a backlog with bench/gen_backlog.py (or serves --root), starts the release
binary as `mdgraph --root R --index-dir TMP mcp` over stdio (the first start builds the
index; that time is printed apart), warms each tool once, then calls `search` and `pack`
--calls times each with the titles of randomly chosen items (seeded, 10 % exact ids, as
bench/search_bench.py does) and prints p50 / p90 / max of the round trip as the client
sees it: request written, JSON-RPC reply parsed. With --edits N it then appends a new
word to N items, one at a time, and times the first `search` for it: right after the
edit, and 1 s after (the server's watch has applied it); then the same with the word in
a new `##` section (an edit that moves the document's mirror rows, which the server's
in-memory index does not take: it reopens). Needs `pip install mcp`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from search_bench import pct, titles_and_ids  # noqa: E402

# The release binary; MDGRAPH_BIN names another (a build in another CARGO_TARGET_DIR).
BIN = os.environ.get("MDGRAPH_BIN") or os.path.join(PROJECT, "target", "release", "mdgraph")


def item_files(root: str) -> list[str]:
    out = []
    for d, _, names in os.walk(root):
        out += [os.path.join(d, n) for n in names if n.endswith(".md")]
    return sorted(out)


async def after_edits(session, root: str, edits: int, wait: float, section: bool = False) -> None:
    """Append a word no file has to an item (with `section`, in a new `##` section),
    wait `wait` seconds, then search for it: the round trip of that first call, and
    whether its first hit is the edited file."""
    files = item_files(root)
    times, found = [], 0
    for i in range(edits):
        path = files[(i * 7919) % len(files)]
        word = f"zqxedit{int(time.time() * 1000) % 100000}n{i}"
        with open(path, "a") as f:
            f.write(f"\n## Added {i}\n\nEdited: {word}.\n" if section else f"\nEdited: {word}.\n")
        await asyncio.sleep(wait)
        t = time.perf_counter()
        r = await session.call_tool("search", {"query": word, "limit": 1})
        times.append((time.perf_counter() - t) * 1000)
        text = "".join(getattr(c, "text", "") for c in r.content)
        found += os.path.relpath(path, root) in text
    what = "a new section" if section else "an edit"
    print(f"search right after {what} (edit {wait * 1000:.0f} ms before the call): {edits} edits, "
          f"p50 {pct(times, .5):.1f} ms, max {max(times):.1f} ms, edit found {found}/{edits}")


async def bench(root: str, index_dir: str, queries: list[str], edits: int = 0) -> None:
    # MDGRAPH_ARGS: extra global options, e.g. `--no-sqlite` for the in-memory engine.
    extra = os.environ.get("MDGRAPH_ARGS", "").split()
    params = StdioServerParameters(command=BIN, args=[*extra, "--root", root, "--index-dir", index_dir, "mcp"])
    t = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            print(f"start-up (index, open, initialize): {(time.perf_counter() - t) * 1000:.0f} ms")
            for tool, args in (("search", {}), ("pack", {"budget": 4000})):
                await session.call_tool(tool, {"query": queries[0], **args})  # warm up
                times = []
                for q in queries:
                    t = time.perf_counter()
                    r = await session.call_tool(tool, {"query": q, **args})
                    times.append((time.perf_counter() - t) * 1000)
                    if getattr(r, "is_error", getattr(r, "isError", False)):
                        sys.exit(f"{tool} {q!r} failed: {r.content}")
                print(f"{tool}: {len(times)} calls, p50 {pct(times, .5):.2f} ms, "
                      f"p90 {pct(times, .9):.2f} ms, max {max(times):.2f} ms")
            if edits:
                # Past the stat cache's racy window for folders the first build wrote
                # (within it an edit takes the full incremental path).
                await asyncio.sleep(2.5)
                # Right after the edit (the call applies it), and once the server's
                # watch has applied it (it looks every 250 ms).
                for section in (False, True):
                    for wait in (0.0, 1.0):
                        await after_edits(session, root, edits, wait, section)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=10000, help="generated backlog size (default 10000)")
    ap.add_argument("--calls", type=int, default=50, help="calls per tool (default 50)")
    ap.add_argument("--root", help="serve this backlog instead of generating one")
    ap.add_argument("--seed", type=int, default=7, help="query sample seed")
    ap.add_argument("--no-build", action="store_true", help="use the existing release binary")
    ap.add_argument("--edits", type=int, default=0,
                    help="then edit this many items (generated backlogs only) and time the first search after each")
    a = ap.parse_args()
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PROJECT, check=True)
    tmp = tempfile.mkdtemp(prefix="mdgraph-mcp-bench-")
    try:
        root = a.root
        if not root:
            root = os.path.join(tmp, "backlog")
            subprocess.run([sys.executable, os.path.join(HERE, "gen_backlog.py"), root, "--items", str(a.items)],
                           check=True, stdout=subprocess.DEVNULL)
        queries = titles_and_ids(root, a.calls, a.seed)
        if a.root and a.edits:
            sys.exit("--edits writes into the backlog: only with a generated one")
        asyncio.run(bench(os.path.abspath(root), os.path.join(tmp, "_index"), queries, a.edits))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
