#!/usr/bin/env python3
"""Exercise `mdgraph mcp` with the official MCP Python client (`pip install mcp`).

    python3 tests/mcp_client.py [--bin target/debug/mdgraph] [--root DIR --index-dir DIR]

Without --root, a copy of backlog-fixtures/ in a temporary folder is served (the script
edits a file of the backlog it serves, so never point --root at a folder you care about).
It starts the server over stdio, initializes, lists the tools (search, pack, show,
neighbors, list, ready and tree, each with an object schema), calls each on the sample backlog, edits a file
and checks that the next call sees the edit, and checks that the server wrote nothing
outside the index folder. Exits non-zero, saying what failed, on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def tree(root: str, skip: str) -> dict[str, str]:
    """sha256 of every file under root (the index folder skipped), by relative path."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if os.path.realpath(os.path.join(d, x)) != os.path.realpath(skip)]
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def field(obj, name: str):
    """An attribute under its snake_case name (mcp 2.x) or its wire name (mcp 1.x)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, name)


def leaves(e: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, as anyio raises them."""
    if isinstance(e, BaseExceptionGroup):
        return [x for sub in e.exceptions for x in leaves(sub)]
    return [e]


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def nodes(node: dict) -> int:
    """The nodes of a tree the `tree` tool sent."""
    return 1 + sum(nodes(c) for c in node.get("children", []))


def data(result):
    """A tool's answer: its JSON, sent once, as its one text content."""
    check(field(result, "structuredContent") is None, "the answer is sent once, as text")
    return json.loads(text_of(result))


async def call(session: ClientSession, name: str, args: dict, ok: bool = True):
    r = await session.call_tool(name, args)
    is_error = bool(field(r, "isError"))
    check(is_error != ok, f"{name}({args}): isError={is_error}: {text_of(r)[:300]}")
    return r


async def exercise(bin_path: str, root: str, index_dir: str) -> None:
    params = StdioServerParameters(command=bin_path, args=["--root", root, "--index-dir", index_dir, "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(field(init, "serverInfo").name == "mdgraph", f"server name: {field(init, 'serverInfo')}")

            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ("search", "pack", "show", "neighbors", "list", "ready", "tree"):
                check(name in tools, f"tool {name} missing: {sorted(tools)}")
                schema = field(tools[name], "inputSchema")
                check(schema.get("type") == "object", f"{name} schema: {schema}")
            check(field(tools["search"], "inputSchema").get("required") == ["query"], "search requires query")
            check(field(tools["show"], "inputSchema").get("required") == ["id"], "show requires id")
            listing = json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools.values()])
            print(f"tools/list: {len(tools)} tools, {len(listing)} bytes of JSON")

            # search: structured results, best first.
            r = await call(session, "search", {"query": "why did we stop using last-write-wins for checklist sync"})
            hits = data(r)["results"]
            check(hits and hits[0]["id"] == "ADR-0006", f"search top hit: {hits[:1]}")
            check({"id", "title", "type", "path", "score", "why"} <= set(hits[0]), f"hit fields: {hits[0]}")
            r = await call(session, "search", {"query": "photo upload", "limit": 2})
            check(len(data(r)["results"]) == 2, "search limit 2")

            # pack: Markdown text, used within budget.
            r = await call(session, "pack", {"query": "what is blocking the PDF export", "budget": 2000})
            md = text_of(r)
            check(md.startswith("# Context pack: what is blocking the PDF export"), f"pack text: {md[:200]}")
            check("QRY-TSK-0013" in md, "pack names the blocker QRY-TSK-0013")
            sc = field(r, "structuredContent")
            check("text" not in sc and sc["budget"] == 2000 and 0 < sc["used"] <= 2000, f"pack used/budget: {sc['used']}/{sc['budget']}")
            check([i["id"] for i in sc["items"]] == [l[3:].split(" — ")[0] for l in md.splitlines() if l.startswith("## ") and " — " in l],
                  f"pack items are the Markdown's, in order: {sc['items']}")
            check(all(i["mode"] in ("full", "excerpt", "reference") and i["tokens"] > 0 for i in sc["items"]), "pack item modes and tokens")
            await call(session, "pack", {"query": "what is blocking the PDF export", "budget": 5}, ok=False)

            # show: one document, any case.
            r = await call(session, "show", {"id": "qry-tsk-0013"})
            node = data(r)
            check(node["id"] == "QRY-TSK-0013" and node["title"], f"show: {node}")
            check(any(e["id"] == "QRY-FTR-0006" for e in node.get("out", []) + node.get("in", [])), f"show relations: {node}")
            r = await call(session, "show", {"id": "NOPE-9999"}, ok=False)
            check("NOPE-9999" in text_of(r), f"unknown id message: {text_of(r)}")

            # neighbors: parent edges of a feature.
            r = await call(session, "neighbors", {"id": "QRY-FTR-0004", "edges": ["parent"]})
            hood = data(r)
            ids = [n["id"] for n in hood["nodes"]]
            check(ids == ["QRY-FTR-0004", "QRY-EPIC-0002", "QRY-TSK-0008", "QRY-USR-0004"], f"neighbors: {ids}")
            check(all(len(e) == 3 and e[1] == "parent" for e in hood["edges"]), "neighbor edges")
            r = await call(session, "neighbors", {"id": "QRY-FTR-0004", "edges": ["parent"], "limit": 2})
            hood = data(r)
            check([n["id"] for n in hood["nodes"]] == ids[:2] and hood["omitted"] == 2, f"neighbors limit 2: {hood}")
            await call(session, "neighbors", {"id": "QRY-FTR-0004", "edges": ["sideways"]}, ok=False)

            # list, ready, tree: the structured questions.
            r = await call(session, "list", {"types": ["Task"], "states": ["InProgress"]})
            listed = [i["id"] for i in data(r)["items"]]
            check("QRY-TSK-0004" in listed and all(i.startswith("QRY-TSK") for i in listed), f"list: {listed}")
            r = await call(session, "list", {"types": ["Task"], "limit": 3})
            cut = data(r)
            check(len(cut["items"]) == 3 and cut["more"] == cut["count"] - 3, f"list limit 3: {cut}")
            r = await call(session, "ready", {"limit": 5})
            answer = data(r)
            ready = answer["items"]
            check(0 < len(ready) <= 5 and all(i["group"] in ("open", "in_progress") for i in ready), f"ready: {ready}")
            check(answer.get("more", 0) == answer["count"] - len(ready), f"ready more: {answer}")
            r = await call(session, "ready", {"explain": "QRY-TSK-0013"})
            check(data(r)["ready"] is False, "QRY-TSK-0013 is blocked")
            r = await call(session, "tree", {"id": "QRY-FTR-0006"})
            check(data(r)["root"]["rollup"]["total"] == 7, "tree roll-up of QRY-FTR-0006")
            r = await call(session, "tree", {"id": "QRY-FTR-0006", "limit": 3})
            cut = data(r)
            shown = nodes(cut["root"]) - 1
            check(shown == 2 and cut["more"] == 7 - 2 and cut["root"]["rollup"]["total"] == 7, f"tree limit 3: {cut}")

            # An edit is seen by the next call, without restarting the server.
            word = "zanzibarquokka"
            r = await call(session, "search", {"query": word})
            before = data(r).get("results", [])
            check(before == [], f"{word} before the edit: {before}")
            path = os.path.join(root, node["path"])
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n\nThe {word} constraint applies here.\n")
            r = await call(session, "search", {"query": word})
            hits = data(r)["results"]
            check(hits and hits[0]["id"] == "QRY-TSK-0013", f"{word} after the edit: {hits}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(PROJECT, "target", "debug", "mdgraph"))
    ap.add_argument("--root", help="backlog to serve (default: a copy of backlog-fixtures)")
    ap.add_argument("--index-dir", help="index folder (default: a temporary one)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mdgraph-mcp-")
    try:
        root = a.root or os.path.join(tmp, "backlog")
        if not a.root:
            shutil.copytree(os.path.join(PROJECT, "backlog-fixtures"), root)
        index_dir = a.index_dir or os.path.join(tmp, "_index")
        before = tree(root, index_dir)
        asyncio.run(exercise(os.path.abspath(a.bin), root, index_dir))
        after = tree(root, index_dir)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        check(len(changed) == 1, f"the server wrote outside the index folder: {changed}")
    except Exception as e:  # noqa: BLE001 - anyio wraps failures in exception groups
        for x in leaves(e):
            print(f"mcp_client: FAILED: {type(x).__name__}: {x}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("mcp_client: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
