#!/usr/bin/env python3
"""Drive headless Chromium over the DevTools protocol (--remote-debugging-pipe; standard
library only) through a site `mdgraph site` wrote, and print what it saw as JSON:

- per page: console messages of level error or warning, uncaught exceptions, log entries
  of level error (CSP violations, failed loads) and every request that is not to a
  file: / data: / about: URL (a network request);
- the board: how many cards, and how many stay shown after filtering by a word;
- the search page: how many results a query gives;
- a graph page: the page a real mouse click on a node's box opens;
- hostile pages: whether a script of theirs ran (`window.__pwned`, the title).

Usage: site_browser.py SITE_DIR GRAPH_PAGE NODE_ID HOSTILE_PAGE [CANARY_PAGE]
A canary page (one that does log an error and make a request) shows that the watch works.
$CHROMIUM names the browser (default: chromium).
Used by tests/suite/site.rs; exits 2 when Chromium cannot be driven.
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMEOUT = 30.0


class Browser:
    def __init__(self, exe):
        self.profile = tempfile.TemporaryDirectory()
        to_chrome_r, self.to_chrome_w = os.pipe()
        self.from_chrome_r, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--remote-debugging-pipe", "--window-size=1400,1000",
             "--user-data-dir=" + self.profile.name, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome_w, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def read(self, deadline=None):
        deadline = deadline or time.time() + TIMEOUT
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer from Chromium")
            r, _, _ = select.select([self.from_chrome_r], [], [], left)
            if r:
                chunk = os.read(self.from_chrome_r, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(raw)
        if "method" in m:
            self.events.append(m)
        return m

    def wait_for(self, method, seconds=TIMEOUT):
        deadline = time.time() + seconds
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    del self.events[i]
                    return e
            self.read(deadline)

    def drain(self, seconds):
        deadline = time.time() + seconds
        try:
            while True:
                self.read(deadline)
        except TimeoutError:
            pass

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        return r.get("result", {}).get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.profile.cleanup()


def problems(events):
    """Console errors and warnings, exceptions, error log entries, network requests."""
    out = {"console": [], "exceptions": [], "log": [], "network": []}
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out["console"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            out["exceptions"].append(p.get("exceptionDetails", {}).get("text", "exception"))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out["log"].append(p["entry"].get("text", ""))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:", "about:")):
                out["network"].append(url)
    return out


def visit(b, url):
    b.events.clear()
    b.send("Page.navigate", {"url": url})
    b.wait_for("Page.loadEventFired")
    b.drain(0.4)
    return dict(problems(b.events), url=url)


def main():
    site, graph_page, node_id, hostile_page = sys.argv[1:5]
    canary = sys.argv[5] if len(sys.argv) > 5 else None
    exe = os.environ.get("CHROMIUM", "chromium")
    root = Path(site).resolve()
    url = lambda page: root.joinpath(page).as_uri()
    b = Browser(exe)
    report = {"pages": []}
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            b.send(domain + ".enable")
        for page in ["index.html", "board.html", "decisions.html", "search.html", graph_page, hostile_page]:
            report["pages"].append(visit(b, url(page)))
            if page == "board.html":
                report["cards"] = b.eval("document.querySelectorAll('.card').length")
                report["filtered"] = b.eval(
                    "(() => { const q = document.getElementById('q'); q.value = 'pdf';"
                    " q.dispatchEvent(new Event('input', {bubbles: true}));"
                    " return document.querySelectorAll('.card:not(.hidden)').length; })()")
            if page == "search.html":
                report["search"] = b.eval(
                    "(() => { const q = document.getElementById('sq'); q.value = 'pdf';"
                    " q.dispatchEvent(new Event('input', {bubbles: true}));"
                    " return document.querySelectorAll('#results li').length; })()")
            if page == hostile_page:
                report["pwned"] = b.eval("String(window.__pwned)")
                report["title"] = b.eval("document.title")
                report["hostile_dom"] = b.eval(
                    "document.querySelectorAll('main script, [onerror], [onclick], [onload], iframe, img,"
                    " a[href^=\"javascript\" i]').length")
        if canary:
            report["canary"] = visit(b, url(canary))
        # A real click on a node of the graph opens that node's page.
        report["pages"].append(visit(b, url(graph_page)))
        box = b.eval(
            "(() => { const a = [...document.querySelectorAll('svg a.node')].find(n => n.dataset.id === %s);"
            " if (!a) return null; a.scrollIntoView({block: 'center', inline: 'center'});"
            " const r = a.querySelector('rect').getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()" % json.dumps(node_id))
        if box:
            b.events.clear()
            for kind in ("mousePressed", "mouseReleased"):
                b.send("Input.dispatchMouseEvent",
                       {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
            b.wait_for("Page.loadEventFired")
            b.drain(0.3)
            report["clicked"] = {"url": b.eval("location.href"), "h1": b.eval("document.querySelector('h1').textContent")}
            report["pages"].append(dict(problems(b.events), url=report["clicked"]["url"]))
    finally:
        b.close()
    print(json.dumps(report, indent=1))


def run(entry, name):
    """Run `entry`; exit 2, saying why, when Chromium cannot be driven."""
    try:
        entry()
    except (OSError, RuntimeError, TimeoutError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    run(main, "site_browser.py")
