#!/usr/bin/env python3
"""Check a site `mdgraph site` wrote in headless Chromium (the Browser of site_browser.py)
and print what it measured as JSON:

- crawl: every page reached from index.html along the links the pages hold (in the
  DOM, as the browser resolves them), the pages of the site no link reaches, and every
  link to a file of the site that does not exist or to an anchor its page lacks;
- narrow: at a 400 px wide window, each page reached whose document is wider than the
  window (`scrollWidth > clientWidth`: it scrolls sideways);
- rtl: on a page, whether what follows a title stays to its right (a right-to-left
  override in the title must not reorder the rest of its line);
- board: per column the cards' priorities in order, and how many cards the owner,
  priority and parent filters leave shown.

Usage: site_checks.py SITE_DIR [--rtl PAGE SELECTOR] [--owner NAME] [--priority P]
       [--parent ID] [--max N]
Used by tests/suite/site.rs; exits 2 when Chromium cannot be driven.
"""
import argparse
import json
import sys
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_browser import Browser, run  # noqa: E402

import os  # noqa: E402


def load(b, url):
    b.events.clear()
    b.send("Page.navigate", {"url": url})
    b.wait_for("Page.loadEventFired")


LINKS = ("[...document.querySelectorAll('a[href]')]"
         ".map(a => new URL(a.getAttribute('href'), location.href).href)")


def crawl(b, root, limit):
    start = root.joinpath("index.html").as_uri()
    seen, todo, broken, anchors = {start}, [start], [], []
    order = []
    while todo and len(order) < limit:
        url = todo.pop(0)
        load(b, url)
        order.append(url)
        for href in b.eval(LINKS) or []:
            if not href.startswith("file:"):
                continue
            page, _, frag = href.partition("#")
            path = Path(urllib.parse.unquote(urllib.parse.urlparse(page).path))
            if not path.is_file():
                broken.append([url, href])
                continue
            if frag:
                anchors.append([url, page, urllib.parse.unquote(frag)])
            if page.endswith(".html") and page not in seen:
                seen.add(page)
                todo.append(page)
    # Anchors: the id must be on the page it points at.
    by_page = {}
    for src, page, frag in anchors:
        by_page.setdefault(page, []).append((src, frag))
    for page, wanted in by_page.items():
        load(b, page)
        ids = set(b.eval("[...document.querySelectorAll('[id]')].map(e => e.id)") or [])
        for src, frag in wanted:
            if frag not in ids:
                broken.append([src, page + "#" + frag])
    every = {p.resolve().as_uri() for p in root.rglob("*.html")}
    return order, sorted(every - seen), broken


def narrow(b, pages):
    b.send("Emulation.setDeviceMetricsOverride",
           {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    wide = []
    for url in pages:
        load(b, url)
        sw, cw = b.eval("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        if sw > cw:
            wide.append([url, sw, cw])
    b.send("Emulation.clearDeviceMetricsOverride")
    return wide


def rtl(b, root, page, selector):
    """The left edge of what follows the title's element, minus the title's right edge."""
    load(b, root.joinpath(page).as_uri())
    return b.eval(
        "(() => { const t = document.querySelector(%s); if (!t) return null;"
        " const next = t.nextElementSibling; if (!next) return null;"
        " const a = t.getBoundingClientRect(), n = next.getBoundingClientRect();"
        " return {gap: n.left - a.right, same_line: Math.abs(n.top - a.top) < 4,"
        " title_w: a.width}; })()" % json.dumps(selector))


def board(b, root, args):
    load(b, root.joinpath("board.html").as_uri())
    out = {"columns": b.eval(
        "[...document.querySelectorAll('.column')].map(c => ({group: c.dataset.group,"
        " count: Number(c.querySelector('.count').textContent),"
        " cards: [...c.querySelectorAll('.card')].map(x => [x.dataset.id, x.dataset.priority || '',"
        " x.dataset.owner || ''])}))")}
    for name, value in (("owner", args.owner), ("priority", args.priority), ("parent", args.parent)):
        if value is None:
            continue
        out[name] = b.eval(
            "(() => { const f = document.getElementById('board-filter'); f.reset();"
            " const s = document.getElementById(%s); s.value = %s;"
            " s.dispatchEvent(new Event('change', {bubbles: true}));"
            " const shown = [...document.querySelectorAll('.card:not(.hidden)')].map(c => c.dataset.id);"
            " f.reset(); s.dispatchEvent(new Event('change', {bubbles: true})); return shown; })()"
            % (json.dumps(name), json.dumps(value)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("site")
    p.add_argument("--rtl", nargs=2)
    p.add_argument("--owner")
    p.add_argument("--priority")
    p.add_argument("--parent")
    p.add_argument("--max", type=int, default=5000)
    args = p.parse_args()
    root = Path(args.site).resolve()
    b = Browser(os.environ.get("CHROMIUM", "chromium"))
    report = {}
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable")
        b.send("Runtime.enable")
        reached, unreached, broken = crawl(b, root, args.max)
        report.update(reached=len(reached), unreached=unreached, broken=broken)
        report["wide"] = narrow(b, reached)
        if args.rtl:
            report["rtl"] = rtl(b, root, *args.rtl)
        report["board"] = board(b, root, args)
    finally:
        b.close()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    run(main, "site_checks.py")
