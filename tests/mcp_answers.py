#!/usr/bin/env python3
"""Call `mdgraph mcp` tools with the official MCP Python client and print each answer.

    python3 tests/mcp_answers.py --bin BIN --root DIR --index-dir DIR CALLS.json

CALLS.json is a list of [tool, arguments] pairs. For each call one JSON line is printed:
{"tool", "args", "is_error", "text" (every text content, joined), "structured" (the
structuredContent, or null)}, so a caller can measure what a client receives. The
tools/list reply comes first, as {"tool": "tools/list", "text": <its JSON>}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, name: str):
    """An attribute under its snake_case name (mcp 2.x) or its wire name (mcp 1.x)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, name)


async def run(bin_path: str, root: str, index_dir: str, calls: list) -> None:
    params = StdioServerParameters(command=bin_path, args=["--root", root, "--index-dir", index_dir, "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            listing = json.dumps(
                [t.model_dump(by_alias=True, exclude_none=True) for t in tools], separators=(",", ":")
            )
            print(json.dumps({"tool": "tools/list", "args": {}, "is_error": False, "text": listing, "structured": None}))
            for name, args in calls:
                r = await session.call_tool(name, args)
                text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                line = {
                    "tool": name,
                    "args": args,
                    "is_error": bool(field(r, "isError")),
                    "text": text,
                    "structured": field(r, "structuredContent"),
                }
                print(json.dumps(line), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("calls")
    a = ap.parse_args()
    with open(a.calls, encoding="utf-8") as fh:
        calls = json.load(fh)
    asyncio.run(run(a.bin, a.root, a.index_dir, calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
