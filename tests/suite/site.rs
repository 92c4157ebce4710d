//! `mdgraph site`: the pages agree with `list`, `tree` and `ready`, hostile Markdown
//! never runs, an edit rewrites only the pages it changes, a user's folder is never
//! taken, and in headless Chromium every page type loads from `file://` with no console
//! error and no network request (skipped without Chromium off CI; under `CI=true` that
//! fails).

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A work item whose every field and body tries to run a script or load something.
const HOSTILE: &str = r#"---
id: QRY-TSK-0666
type: Task
title: "Evil <script>window.__pwned='title'</script> <img src=x onerror=window.__pwned='title-img'>"
state: In Progress
parent: QRY-FTR-0006
links:
  blocked_by: [QRY-BUG-0005]
---

# Context

<script>window.__pwned = 'script'; document.title = 'PWNED';</script>

<img src="https://evil.example/pixel.png" onerror="window.__pwned = 'img'">

<a href="javascript:window.__pwned='link'" onclick="window.__pwned='click'">click me</a>
[md link](javascript:window.__pwned='md') and [spaced](  JaVaScRiPt:alert(1) )

![tracking](https://evil.example/track.png)

<iframe src="https://evil.example/frame"></iframe>
<svg><script>window.__pwned='svg'</script><image href="https://evil.example/i.png"/></svg>
<div style="background:url(https://evil.example/bg.png)">styled</div>
<form action="https://evil.example/post"><input name=x></form>
<object data="https://evil.example/o.swf"></object><embed src="https://evil.example/e.swf">
<link rel=stylesheet href="https://evil.example/s.css"><meta http-equiv="refresh" content="0;url=https://evil.example">
<base href="https://evil.example/">

```html
<script>this stays code</script>
```
"#;

/// A work item whose id is a path out of the site and markup.
const HOSTILE_ID: &str = "---\nid: \"../../x/<img src=x onerror=window.__pwned=1>\"\ntype: Task\ntitle: Evil id\n\
                          state: To Do\nparent: QRY-FTR-0006\n---\n\n# Goal\n\nNothing.\n";

/// The fixture backlog with the hostile items, indexed, and its site written.
fn built() -> Fixture {
    let f = Fixture::new("backlog-fixtures");
    std::fs::write(f.root().join("items/task/0000/QRY-TSK-0666_evil.md"), HOSTILE).unwrap();
    std::fs::write(f.root().join("items/task/0000/evil-id.md"), HOSTILE_ID).unwrap();
    let out = f.run(&["site"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    f
}

fn site(f: &Fixture) -> std::path::PathBuf {
    f.index().join("site")
}

fn read(f: &Fixture, page: &str) -> String {
    std::fs::read_to_string(site(f).join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// The values of `attr` on the elements of `html` that carry `marker` (one per line of
/// output: maud writes each element's attributes together).
fn attrs<'h>(html: &'h str, marker: &str, attr: &str) -> Vec<&'h str> {
    html.split(marker)
        .skip(1)
        .filter_map(|rest| {
            let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
            let at = tag.find(&format!(" {attr}=\""))? + attr.len() + 3;
            Some(&tag[at..at + tag[at..].find('"')?])
        })
        .collect()
}

#[test]
fn pages_agree_with_list_tree_and_ready() {
    let f = built();
    // One card per work item, as `list` counts them.
    let items = json(&f.run(&["list", "--type", "work_item", "--format", "json"]));
    let board = read(&f, "board.html");
    let cards = attrs(&board, "class=\"card", "data-id");
    let listed: Vec<&str> = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    let unescape = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    };
    let mut sorted: Vec<String> = cards.iter().map(|c| unescape(c)).collect();
    sorted.sort();
    let mut want = listed.clone();
    want.sort();
    assert_eq!(sorted, want);
    // Counts by type, as `list --type` gives them.
    let overview = read(&f, "index.html");
    // What `check` reports, hygiene included: the fixtures' one warning.
    let check = f.run(&["check"]);
    assert!(check.stdout.contains("done-with-open-children"), "{}", check.stdout);
    assert!(
        overview.contains("done-with-open-children") && overview.contains("QRY-BUG-0004 (Ready)"),
        "the overview lacks check's warning"
    );
    for (ty, n) in
        attrs(&overview, "<tr data-kind", "data-type")
            .into_iter()
            .zip(attrs(&overview, "<tr data-kind", "data-count"))
    {
        let listed = json(&f.run(&["list", "--type", ty, "--format", "json"]));
        assert_eq!(listed["count"].to_string(), n, "type {ty}");
    }
    // Each epic's progress is the roll-up of `tree`.
    let ids = attrs(&overview, "<tr class=\"rollup\"", "data-id");
    assert_eq!(ids.len(), 14, "4 epics and 10 features");
    let done = attrs(&overview, "class=\"progress\"", "data-done");
    let total = attrs(&overview, "class=\"progress\"", "data-total");
    for ((id, d), t) in ids.iter().zip(done).zip(total) {
        let tree = json(&f.run(&["tree", id, "--format", "json"]));
        assert_eq!(tree["root"]["rollup"]["done"].to_string(), d, "{id}");
        assert_eq!(tree["root"]["rollup"]["total"].to_string(), t, "{id}");
        assert!(site(&f).join(format!("graphs/{id}.html")).is_file(), "{id}");
    }
    // Ready work in `ready`'s order.
    let ready = json(&f.run(&["ready", "--format", "json"]));
    let want: Vec<&str> = ready["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(attrs(&overview, "<li data-id", "data-id").len(), 0);
    let shown: Vec<String> = overview
        .split("<ol class=\"ready\">")
        .nth(1)
        .unwrap()
        .split("</ol>")
        .next()
        .unwrap()
        .split("<li data-id=\"")
        .skip(1)
        .map(|s| unescape(&s[..s.find('"').unwrap()]))
        .collect();
    assert_eq!(shown, want);
    // What is blocked, and by what.
    let blocked = overview
        .split("<ul class=\"blocked\">")
        .nth(1)
        .unwrap()
        .split("</ul>")
        .next()
        .unwrap();
    let usr7 = blocked
        .split("<li data-id=\"QRY-USR-0007\">")
        .nth(1)
        .unwrap()
        .split("</li>")
        .next()
        .unwrap();
    assert!(usr7.contains("href=\"items/QRY-BUG-0005.html\""), "{usr7}");
    // An item page: its relations with file and line, its graph.
    let page = read(&f, "items/QRY-TSK-0013.html");
    assert!(
        page.contains("items/task/0000/QRY-TSK-0013_build-report-template-with-photo-grid-and-signature-block.md:18"),
        "{page}"
    );
    assert!(page.contains("href=\"../items/QRY-BUG-0005.html\""));
    assert!(page.contains("<svg class=\"graph\""));
    // Decisions: all eight, the supersedes chain drawn.
    let decisions = read(&f, "decisions.html");
    assert_eq!(decisions.matches("<tr data-id=\"ADR-").count(), 8);
    assert!(decisions.contains("Supersedes chains (1)"), "{decisions}");
}

#[test]
fn hostile_markdown_is_inert() {
    let f = built();
    let page = read(&f, "items/QRY-TSK-0666.html");
    let main = page.split("<main>").nth(1).unwrap();
    // Live markup only: the title's text, escaped, may say `onerror=` as words.
    let lower = main.to_lowercase();
    for bad in [
        "<script",
        " onerror=\"",
        " onclick=\"",
        " onload=\"",
        "href=\"javascript",
        "<iframe",
        "<img",
        " style=\"",
        "<form",
        "<input",
        "<object",
        "<embed",
        "<link",
        "http-equiv",
        "<base",
        "<image",
        "evil.example/pixel",
    ] {
        assert!(!lower.contains(bad), "{bad} survived:\n{main}");
    }
    // The code block keeps its text as text; the image is a link now.
    assert!(main.contains("&lt;script&gt;this stays code"), "{main}");
    assert!(main.contains("href=\"https://evil.example/track.png\""), "{main}");
    // Its title is text wherever it is shown.
    for p in [
        "board.html",
        "index.html",
        "items/QRY-BUG-0005.html",
        "graphs/QRY-FTR-0006.html",
    ] {
        let html = read(&f, p);
        assert!(!html.contains("<script>window"), "{p}");
        assert!(!html.contains("<img src=x"), "{p}");
    }
    assert!(read(&f, "assets/search-data.js").contains("\\u003cscript>window.__pwned"));
    // An id that is a path and markup: its page stays in the site, its id is text.
    let pages = tree_hashes(&site(&f));
    let evil: Vec<&String> = pages.keys().filter(|p| p.contains("onerror")).collect();
    assert_eq!(evil.len(), 1, "{evil:?}");
    assert!(evil[0].starts_with("items/") && !evil[0][6..].contains('/'), "{evil:?}");
    assert!(!f.dir.path().join("x").exists() && !f.index().join("x").exists());
    let board = read(&f, "board.html");
    assert!(
        board.contains("../../x/&lt;img src=x onerror=window.__pwned=1&gt;"),
        "the id is text"
    );
    assert!(!board.contains("<img"));
}

#[test]
fn an_edit_rewrites_only_the_pages_it_changes() {
    let f = built();
    let again = json(&f.run(&["site", "--format", "json"]));
    assert_eq!(again["written"], serde_json::json!([]), "{again}");
    let file = f
        .root()
        .join("items/task/0000/QRY-TSK-0013_build-report-template-with-photo-grid-and-signature-block.md");
    // A body edit: only the item's own page.
    edit_file(&file, &|t| {
        t.replace("produces a complete, branded", "produces a complete, well branded")
    });
    let one = json(&f.run(&["site", "--format", "json"]));
    assert_eq!(one["written"], serde_json::json!(["items/QRY-TSK-0013.html"]), "{one}");
    // A state edit: its page, its neighbours' pages, the lists and the graphs it is in.
    edit_file(&file, &|t| t.replace("state: Blocked", "state: Done"));
    let state = json(&f.run(&["site", "--format", "json"]));
    let written: Vec<&str> = state["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for p in [
        "items/QRY-TSK-0013.html",
        "items/QRY-USR-0007.html",
        "board.html",
        "index.html",
        "graphs/QRY-EPIC-0003.html",
    ] {
        assert!(written.contains(&p), "{p} not rewritten: {written:?}");
    }
    assert!(!written.contains(&"items/QRY-TSK-0001.html"), "{written:?}");
    assert!(written.len() < 30, "{written:?}");
    // A deleted item's page goes.
    std::fs::remove_file(&file).unwrap();
    let gone = json(&f.run(&["site", "--format", "json"]));
    assert_eq!(
        gone["removed"],
        serde_json::json!(["items/QRY-TSK-0013.html"]),
        "{gone}"
    );
    assert!(!site(&f).join("items/QRY-TSK-0013.html").exists());
    // The index folder stays an index folder with the site in it.
    let full = f.run(&["index", "--full"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
}

/// Every file under `dir`, by its path from there, with its bytes.
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The site `f` holds equals, file for file (manifest and saved documents included),
/// the one a first run writes into a new folder `name`.
fn same_as_full(f: &Fixture, name: &str) {
    let full = f.run(&["site", "--out", name]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    let (ours, theirs) = (files_of(&site(f)), files_of(&f.index().with_file_name(name)));
    assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>());
    for (page, bytes) in &ours {
        assert!(bytes == &theirs[page], "{page} differs from a full build");
    }
}

#[test]
fn an_edit_taken_the_short_way_equals_a_full_build() {
    let f = built();
    // Ids written in the prose link to their pages (the worklog of QRY-TSK-0005).
    let page = read(&f, "items/QRY-TSK-0005.html");
    let body = page.split("<section class=\"body\">").nth(1).unwrap();
    let body = &body[..body.find("</section>").unwrap()];
    for id in ["ADR-0006", "QRY-TSK-0006"] {
        let link = format!("<a href=\"../items/{id}.html\" rel=\"noopener noreferrer nofollow\">{id}</a>.");
        assert!(body.contains(&link), "{link} not in {body}");
    }
    let a = f
        .root()
        .join("items/task/0000/QRY-TSK-0001_create-sqlite-schema-and-migrations-in-wal-mode.md");
    let b = f
        .root()
        .join("items/task/0000/QRY-TSK-0013_build-report-template-with-photo-grid-and-signature-block.md");
    // Two bodies edited in place (one grows, one shrinks, no line moves): the short
    // way, which reads those two documents and their edges and nothing else.
    edit_file(&a, &|t| {
        t.replace(
            "replaces the AsyncStorage prototype",
            "replaces the old, slow AsyncStorage prototype",
        )
    });
    edit_file(&b, &|t| t.replace("produces a complete, branded", "produces a branded"));
    let out = f.run(&["-v", "site", "--format", "json"]);
    assert!(out.stderr.contains("edit: pages"), "{}", out.stderr);
    assert_eq!(
        json(&out)["written"],
        serde_json::json!(["items/QRY-TSK-0001.html", "items/QRY-TSK-0013.html"])
    );
    same_as_full(&f, "full1");
    // Again, from what the short way saved.
    edit_file(&b, &|t| t.replace("produces a branded", "produces a nicely branded"));
    let out = f.run(&["-v", "site", "--format", "json"]);
    assert!(out.stderr.contains("edit: pages"), "{}", out.stderr);
    assert_eq!(json(&out)["written"], serde_json::json!(["items/QRY-TSK-0013.html"]));
    same_as_full(&f, "full2");
    // A line added above its links moves their edges: the full path, the same site.
    edit_file(&b, &|t| t.replacen("# Context\n", "# Context\n\nOne more line.\n", 1));
    let out = f.run(&["-v", "site", "--format", "json"]);
    assert!(!out.stderr.contains("edit: pages"), "{}", out.stderr);
    assert!(json(&out)["written"].as_array().unwrap().len() > 1, "{}", out.stdout);
    same_as_full(&f, "full3");
    // A state edit takes the full path too.
    edit_file(&a, &|t| t.replace("state: Done", "state: In Progress"));
    let out = f.run(&["-v", "site", "--format", "json"]);
    assert!(!out.stderr.contains("edit: pages"), "{}", out.stderr);
    same_as_full(&f, "full4");
}

#[test]
fn a_folder_that_is_no_site_is_never_written() {
    let f = Fixture::new("backlog-fixtures");
    let mine = f.dir.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.md"), "mine").unwrap();
    let out = f.run(&["site", "--out", "mine"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not a site mdgraph wrote"), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
    let elsewhere = f.run(&["site", "--out", "public/site"]);
    assert_eq!(elsewhere.code, 0, "{}", elsewhere.stderr);
    assert!(f.dir.path().join("public/site/board.html").is_file());
    assert!(elsewhere.stdout.contains("public/site"), "{}", elsewhere.stdout);
}

/// Run tests/site_browser.py over the site of `f`; None when Chromium or Python is
/// missing off CI.
fn browse(f: &Fixture, graph: &str, node: &str, hostile: &str, canary: Option<&str>) -> Option<serde_json::Value> {
    let dir = site(f);
    let mut args = vec![dir.to_str().unwrap(), graph, node, hostile];
    args.extend(canary);
    browser_script("tests/site_browser.py", &args)
}

/// The JSON a browser script of tests/ prints given `args`; None when Chromium or
/// Python is missing off CI.
pub fn browser_script(script: &str, args: &[&str]) -> Option<serde_json::Value> {
    if tool_missing("python3", &["python3", "--version"]) || tool_missing("chromium", &["chromium", "--version"]) {
        return None;
    }
    let script = repo().join(script);
    let out: Output = std::process::Command::new("python3")
        .arg(&script)
        .args(args)
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 0, "{}", out.stderr);
    Some(serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout)))
}

#[test]
fn every_page_type_loads_in_chromium_without_errors_or_requests() {
    let f = built();
    // A page that does log an error and ask the network: the watch sees both.
    let canary = "<!doctype html><title>canary</title><script>console.error('canary')</script>\
                  <img src=\"http://127.0.0.1:9/canary.png\">";
    std::fs::write(site(&f).join("canary.html"), canary).unwrap();
    let Some(report) = browse(
        &f,
        "graphs/QRY-EPIC-0003.html",
        "QRY-USR-0007",
        "items/QRY-TSK-0666.html",
        Some("canary.html"),
    ) else {
        return;
    };
    let c = &report["canary"];
    assert!(
        !c["console"].as_array().unwrap().is_empty() && !c["network"].as_array().unwrap().is_empty(),
        "{c}"
    );
    let pages = report["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 8, "{report}");
    for p in pages {
        for what in ["console", "exceptions", "log", "network"] {
            assert_eq!(p[what], serde_json::json!([]), "{what} on {}", p["url"]);
        }
    }
    let work_items = json(&f.run(&["list", "--type", "work_item", "--format", "json"]))["count"].clone();
    assert_eq!(report["cards"], work_items, "one card per work item");
    assert!(report["filtered"].as_u64().unwrap() > 0 && report["filtered"].as_u64() < work_items.as_u64());
    assert!(report["search"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["pwned"], "undefined");
    assert_eq!(report["title"], "QRY-TSK-0666 · mdgraph");
    assert_eq!(report["hostile_dom"], 0);
    let clicked = &report["clicked"];
    assert!(
        clicked["url"].as_str().unwrap().ends_with("/items/QRY-USR-0007.html"),
        "{clicked}"
    );
    assert!(clicked["h1"].as_str().unwrap().starts_with("QRY-USR-0007"), "{clicked}");
}

/// What a site says of a real corpus: cards, counts per type and the roll-ups, beside
/// `list` and `tree`.
fn corpus_agrees(dir: &Path, base: &[&str]) {
    let run = |args: &[&str]| {
        let mut full: Vec<&str> = base.to_vec();
        full.extend_from_slice(args);
        run_in(dir, &full)
    };
    let out = run(&["site", "--out", "site", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let overview = std::fs::read_to_string(dir.join("site/index.html")).unwrap();
    // The board, and the pages of its long columns' rest (`lists/board-*.html`).
    let mut board = std::fs::read_to_string(dir.join("site/board.html")).unwrap();
    let columns: usize = board
        .split("<span class=\"count\">")
        .skip(1)
        .map(|s| s[..s.find('<').unwrap()].parse::<usize>().unwrap())
        .sum();
    for e in std::fs::read_dir(dir.join("site/lists")).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("board-") {
            board.push_str(&std::fs::read_to_string(&p).unwrap());
        }
    }
    let all = json(&run(&["list", "--format", "json"]));
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut work = 0;
    for i in all["items"].as_array().unwrap() {
        let kind_or_type = i["type"].as_str().map(str::to_string);
        *by_type.entry(kind_or_type.unwrap_or_default()).or_default() += 1;
        let id = i["id"].as_str().unwrap();
        // On the board a card's `data-id`, on a column's page the link's text.
        let text = id.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        work += usize::from(
            board.contains(&format!("data-id=\"{}\"", text.replace('"', "&quot;")))
                || board.contains(&format!("<bdi>{text}</bdi></a>")),
        );
    }
    let cards = columns;
    // One card per work item; without any (EIPs), per document with a state.
    let mut work_items = json(&run(&["list", "--type", "work_item", "--format", "json"]))["count"]
        .as_u64()
        .unwrap();
    if work_items == 0 {
        let docs = json(&run(&["list", "--type", "doc", "--format", "json"]));
        work_items = docs["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| !i["state"].is_null())
            .count() as u64;
    }
    assert_eq!(cards as u64, work_items);
    assert!(work as u64 >= work_items);
    let total: usize = attrs(&overview, "<tr data-kind", "data-count")
        .iter()
        .map(|n| n.parse::<usize>().unwrap())
        .sum();
    assert_eq!(total as u64, all["count"].as_u64().unwrap());
    let ids = attrs(&overview, "<tr class=\"rollup\"", "data-id");
    let done = attrs(&overview, "class=\"progress\"", "data-done");
    let totals = attrs(&overview, "class=\"progress\"", "data-total");
    for ((id, d), t) in ids.iter().zip(done).zip(totals).take(40) {
        let tree = json(&run(&["tree", id, "--format", "json"]));
        assert_eq!(tree["root"]["rollup"]["done"].to_string(), d, "{id}");
        assert_eq!(tree["root"]["rollup"]["total"].to_string(), t, "{id}");
    }
    eprintln!(
        "{}: {cards} cards, {} documents, {} roll-ups checked",
        base.join(" "),
        all["count"],
        ids.len().min(40)
    );
}

#[test]
#[ignore = "slow: `.ci/run` runs it (cargo test -- --ignored)"]
fn real_corpora_sites_agree_with_list_and_tree() {
    let corpora = repo().join("../shared/corpora");
    for (corpus, config) in [
        ("eips", Some("eips.toml")),
        ("backlog-md/backlog", Some("backlog-md.toml")),
        ("ariadne/backlog", None),
    ] {
        let root = corpora.join(corpus);
        if !root.is_dir() {
            eprintln!("skipping {corpus}: {} not found", root.display());
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let cfg = match config {
            Some(c) => repo().join("examples").join(c),
            None => {
                // The config `mdgraph init` writes for it.
                let root_s = root.to_str().unwrap();
                let init = run_in(
                    dir.path(),
                    &[
                        "--config",
                        "mdgraph.toml",
                        "--root",
                        root_s,
                        "--index-dir",
                        "_index",
                        "init",
                    ],
                );
                assert_eq!(init.code, 0, "{}", init.stderr);
                dir.path().join("mdgraph.toml")
            }
        };
        let (cfg, root) = (cfg.to_str().unwrap().to_string(), root.to_str().unwrap().to_string());
        corpus_agrees(
            dir.path(),
            &["--config", &cfg, "--root", &root, "--index-dir", "_index"],
        );
    }
}
