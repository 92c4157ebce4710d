#!/usr/bin/env python3
"""Every id mdgraph prints names its item over MCP too (`pip install mcp`).

    python3 tests/mcp_ids.py --bin BIN --root DIR --index-dir DIR IDS.json

IDS.json is a list of ids (as `list` and `ready` print them). For each, over one MCP
session: `pack` and `search` of "implement <id>" put that item first, and `show` and
`neighbors` name it. Prints "mcp_ids: ok N" or the ids that failed, and exits
non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def data(result) -> dict:
    """A tool's answer other than pack's: its JSON, sent once, as its text content."""
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    try:
        return json.loads(text)
    except ValueError:
        return {}


def field(obj, name: str):
    """An attribute under its snake_case name (mcp 2.x) or its wire name (mcp 1.x)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, name)


async def check_ids(bin_path: str, root: str, index_dir: str, ids: list[str]) -> list[str]:
    params = StdioServerParameters(command=bin_path, args=["--root", root, "--index-dir", index_dir, "mcp"])
    failed: list[str] = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for id_ in ids:
                query = f"implement {id_}"
                pack = field(await session.call_tool("pack", {"query": query, "budget": 2000}), "structuredContent")
                first = (pack or {}).get("items", [{}])[0].get("id") if (pack or {}).get("items") else None
                if first != id_:
                    failed.append(f"pack {query!r}: first {first!r}")
                found = data(await session.call_tool("search", {"query": query, "limit": 3}))
                top = (found or {}).get("results") or [{}]
                if top[0].get("id") != id_:
                    failed.append(f"search {query!r}: first {top[0].get('id')!r}")
                for tool in ("show", "neighbors"):
                    r = await session.call_tool(tool, {"id": id_})
                    if field(r, "isError"):
                        failed.append(f"{tool} {id_!r}: an error")
                        continue
                    sc = data(r)
                    named = {
                        "show": lambda: sc.get("id"),
                        "neighbors": lambda: sc.get("root"),
                    }[tool]()
                    if named != id_:
                        failed.append(f"{tool} {id_!r}: names {named!r}")
    return failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("ids")
    a = ap.parse_args()
    with open(a.ids, encoding="utf-8") as fh:
        ids = json.load(fh)
    failed = asyncio.run(check_ids(a.bin, a.root, a.index_dir, ids))
    if failed:
        for f in failed[:40]:
            print(f"mcp_ids: FAILED: {f}", file=sys.stderr)
        print(f"mcp_ids: {len(failed)} failures over {len(ids)} ids", file=sys.stderr)
        return 1
    print(f"mcp_ids: ok {len(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
