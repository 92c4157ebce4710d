//! `mdgraph site` as a team lead plans from it, in headless Chromium
//! (tests/site_checks.py): text isolated for direction, no write through a symlink,
//! every page reachable and every link alive, no sideways scroll at 400 px, and the
//! board's fields, order, filters and counts. Skipped without Chromium off CI.

use crate::common::*;

/// A to-do item at the top (so `ready` lists it on the overview) whose id and title
/// carry a right-to-left override.
const RTL: &str = "---\nid: QRY-TSK-0777\ntype: Task\ntitle: \"Spoof \u{202E}txt.exe reversed\"\nstate: To Do\n---\n\n# Goal\n\nNothing.\n";

/// The fixture backlog with `extra` files (path under the backlog, text) and its site.
fn built(extra: &[(&str, &str)]) -> Fixture {
    let f = Fixture::new("backlog-fixtures");
    for (path, text) in extra {
        std::fs::write(f.root().join(path), text).unwrap();
    }
    let out = f.run(&["site"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    f
}

/// What tests/site_checks.py measured on the site of `f`; None when Chromium or Python
/// is missing off CI.
fn checks(f: &Fixture, args: &[&str]) -> Option<serde_json::Value> {
    let dir = f.index().join("site");
    let mut all = vec![dir.to_str().unwrap()];
    all.extend_from_slice(args);
    crate::site::browser_script("tests/site_checks.py", &all)
}

#[test]
fn a_right_to_left_override_does_not_reorder_what_follows() {
    let f = built(&[("items/task/0000/QRY-TSK-0777_rtl.md", RTL)]);
    let overview = std::fs::read_to_string(f.index().join("site/index.html")).unwrap();
    assert!(
        overview.contains("<bdi class=\"title\">Spoof \u{202E}txt.exe reversed</bdi>"),
        "not isolated"
    );
    let Some(r) = checks(
        &f,
        &["--rtl", "index.html", "ol.ready li[data-id=\"QRY-TSK-0777\"] .title"],
    ) else {
        return;
    };
    let rtl = &r["rtl"];
    assert_eq!(rtl["same_line"], true, "{rtl}");
    // The state badge after the title stays to its right.
    assert!(rtl["gap"].as_f64().unwrap() >= 0.0, "{rtl}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_in_the_site_is_not_followed() {
    let f = built(&[]);
    let site = f.index().join("site");
    let outside = f.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(site.join("items")).unwrap();
    std::os::unix::fs::symlink(&outside, site.join("items")).unwrap();
    let out = f.run(&["site"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("symbolic link") && out.stderr.contains("items"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "a page was written outside the site"
    );
}

/// The ids of a `tree` answer's descendants of its root.
fn descendants(node: &serde_json::Value, out: &mut Vec<String>) {
    for c in node["children"].as_array().into_iter().flatten() {
        out.push(c["id"].as_str().unwrap().to_string());
        descendants(c, out);
    }
}

/// A priority's rank as `list --sort priority` ranks the fixtures' (P0 first, none last).
fn rank(p: &str) -> u32 {
    p.strip_prefix('P').and_then(|n| n.parse().ok()).unwrap_or(100)
}

#[test]
fn cards_show_owner_and_priority_sort_by_it_and_filter() {
    let f = built(&[]);
    let board = std::fs::read_to_string(f.index().join("site/board.html")).unwrap();
    // QRY-TSK-0013 has `priority: P1`, `owner: priya.s`, `iteration: 2026-Q1-S3`, tags.
    let card = board.split("data-id=\"QRY-TSK-0013\"").nth(1).unwrap();
    let card = &card[..card.find("</a>").unwrap()];
    for want in [
        "data-owner=\"priya.s\"",
        "data-priority=\"P1\"",
        "@<bdi>priya.s</bdi>",
        "<bdi>2026-Q1-S3</bdi>",
        "<bdi>template</bdi>",
    ] {
        assert!(card.contains(want), "{want} not on the card: {card}");
    }
    let item = std::fs::read_to_string(f.index().join("site/items/QRY-TSK-0013.html")).unwrap();
    assert!(
        item.contains("@<bdi>priya.s</bdi>") && item.contains("updated <bdi>2026-02-06</bdi>"),
        "{item}"
    );
    let tree = json(&f.run(&["tree", "QRY-EPIC-0003", "--format", "json"]));
    let mut subtree = Vec::new();
    descendants(&tree["root"], &mut subtree);
    let Some(r) = checks(
        &f,
        &["--owner", "priya.s", "--priority", "P1", "--parent", "QRY-EPIC-0003"],
    ) else {
        return;
    };
    let columns = r["board"]["columns"].as_array().unwrap();
    let cards: Vec<&serde_json::Value> = columns.iter().flat_map(|c| c["cards"].as_array().unwrap()).collect();
    // Each column by priority, then id.
    for c in columns {
        let ranks: Vec<u32> = c["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| rank(x[1].as_str().unwrap()))
            .collect();
        assert!(
            ranks.windows(2).all(|w| w[0] <= w[1]),
            "{} not by priority: {ranks:?}",
            c["group"]
        );
    }
    // The filters: exactly the cards with that owner, that priority, under that parent
    // at any depth.
    let ids = |pick: &dyn Fn(&serde_json::Value) -> bool| -> Vec<String> {
        cards
            .iter()
            .filter(|c| pick(c))
            .map(|c| c[0].as_str().unwrap().to_string())
            .collect()
    };
    let shown = |k: &str| -> Vec<String> {
        r["board"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let owned = ids(&|c| c[2].as_str().unwrap().split('\n').any(|o| o == "priya.s"));
    assert!(!owned.is_empty());
    assert_eq!(shown("owner"), owned);
    assert_eq!(shown("priority"), ids(&|c| c[1] == "P1"));
    let under = ids(&|c| subtree.iter().any(|s| s == c[0].as_str().unwrap()));
    assert!(under.len() > 2, "{under:?}");
    assert_eq!(shown("parent"), under, "the parent filter shows the subtree");
}

/// The board's cards of one column: (id, ancestors).
fn column(board: &str, group: &str) -> Vec<(String, Vec<String>)> {
    let at = board.find(&format!("data-group=\"{group}\"")).unwrap();
    let col = &board[at..];
    let col = &col[..col.find("</section>").unwrap()];
    let attr = |tag: &str, name: &str| -> String {
        let k = format!(" {name}=\"");
        tag.find(&k).map_or(String::new(), |i| {
            let v = &tag[i + k.len()..];
            v[..v.find('"').unwrap()].to_string()
        })
    };
    col.split("<a class=\"card")
        .skip(1)
        .map(|c| {
            let tag = &c[..c.find('>').unwrap()];
            let up = attr(tag, "data-up");
            (
                attr(tag, "data-id"),
                up.split('\n').filter(|s| !s.is_empty()).map(String::from).collect(),
            )
        })
        .collect()
}

/// The number in the overview's `Blocked (N)` heading.
fn overview_blocked(overview: &str) -> usize {
    let at = overview.find("<h2>Blocked (").unwrap() + "<h2>Blocked (".len();
    overview[at..at + overview[at..].find(')').unwrap()].parse().unwrap()
}

#[test]
fn blocked_means_one_thing_on_board_overview_and_tree() {
    let f = built(&[]);
    let site = f.index().join("site");
    let (board, overview) = (
        std::fs::read_to_string(site.join("board.html")).unwrap(),
        std::fs::read_to_string(site.join("index.html")).unwrap(),
    );
    let blocked = column(&board, "blocked");
    assert_eq!(overview_blocked(&overview), blocked.len());
    // QRY-USR-0007 is blocked by the open QRY-BUG-0005, whatever its own state says.
    assert!(blocked.iter().any(|(id, _)| id == "QRY-USR-0007"), "{blocked:?}");
    // Each epic's blocked cards are what `tree` counts blocked below it.
    for epic in ["QRY-EPIC-0001", "QRY-EPIC-0002", "QRY-EPIC-0003", "QRY-EPIC-0004"] {
        let tree = json(&f.run(&["tree", epic, "--format", "json"]));
        let under = blocked.iter().filter(|(_, up)| up.iter().any(|u| u == epic)).count();
        assert_eq!(
            tree["root"]["rollup"]["blocked"].as_u64().unwrap() as usize,
            under,
            "{epic}"
        );
    }
}

#[test]
fn a_task_waiting_for_its_turn_is_waiting_not_blocked() {
    let f = Fixture::new("tests/fixtures/spec-folders");
    let out = f.run(&["site"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let site = f.index().join("site");
    let (board, overview) = (
        std::fs::read_to_string(site.join("board.html")).unwrap(),
        std::fs::read_to_string(site.join("index.html")).unwrap(),
    );
    let blocked = column(&board, "blocked");
    assert_eq!(
        overview_blocked(&overview),
        blocked.len(),
        "board and overview disagree"
    );
    let waiting = board.matches("class=\"flag-waiting\"").count();
    assert!(waiting > 5, "{waiting} waiting");
    // Kiro's login tasks wait for the one before them: open, marked waiting.
    let open = column(&board, "open");
    let kiro: Vec<&String> = open
        .iter()
        .map(|(id, _)| id)
        .filter(|id| id.starts_with("login/"))
        .collect();
    assert!(!kiro.is_empty(), "{open:?}");
    assert!(blocked.iter().all(|(id, _)| !id.starts_with("login/")), "{blocked:?}");
    // Requirements and criteria have no state: counted apart, not as open.
    let counts = overview.split("<table class=\"counts\">").nth(1).unwrap();
    let req = counts
        .split("<tr data-kind=")
        .find(|r| r.contains("data-type=\"Requirement\""))
        .expect("a requirement row");
    assert!(req.contains("data-group=\"none\">"), "{req}");
    assert!(!req.contains("num g-open"), "requirements counted open: {req}");
}

#[test]
fn every_page_is_reached_every_link_resolves_and_fits_400_px() {
    // A body link to its own file and to a heading, an image that is no page.
    let own = "---\nid: QRY-TSK-0778\ntype: Task\ntitle: Links\nstate: To Do\nparent: QRY-FTR-0006\n---\n\n\
               # Context\n\nSee [myself](QRY-TSK-0778_links.md), [the goal](#goal), \
               [its goal](QRY-TSK-0778_links.md#goal) and ![a shot](../img/shot.png).\n\n# Goal\n\nNothing.\n";
    // A title of 5,000 characters with no space, and a long id: they wrap.
    let long = format!(
        "---\nid: QRY-TSK-0779-with-a-very-long-identifier-that-never-breaks\ntype: Task\ntitle: {}\n\
         state: To Do\nparent: QRY-FTR-0006\n---\n\n# Goal\n\nNothing.\n",
        "x".repeat(5000)
    );
    let f = built(&[
        ("items/task/0000/QRY-TSK-0778_links.md", own),
        ("items/task/0000/long.md", &long),
    ]);
    let page = std::fs::read_to_string(f.index().join("site/items/QRY-TSK-0778.html")).unwrap();
    for want in [
        "<h1 id=\"h-goal\">Goal</h1>",
        "href=\"#h-goal\"",
        "href=\"../items/QRY-TSK-0778.html#h-goal\"",
        "href=\"../graphs/QRY-FTR-0006.html\"",
    ] {
        assert!(page.contains(want), "{want} not in {page}");
    }
    assert!(
        !page.contains("shot.png") || !page.contains("href=\"../img"),
        "a dead link to an image: {page}"
    );
    let Some(r) = checks(&f, &[]) else { return };
    assert_eq!(r["unreached"], serde_json::json!([]), "pages no link reaches");
    assert_eq!(r["broken"], serde_json::json!([]), "links that do not resolve");
    assert!(r["reached"].as_u64().unwrap() > 70, "{}", r["reached"]);
    // At 400 px no page is wider than the window.
    assert_eq!(r["wide"], serde_json::json!([]), "pages that scroll sideways at 400 px");
}

#[test]
fn long_columns_and_lists_go_on_pages_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("python3")
        .args([
            repo().join("bench/gen_backlog.py").to_str().unwrap(),
            "backlog",
            "--items",
            "900",
        ])
        .current_dir(dir.path())
        .output();
    let Ok(made) = made else { return };
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let base = ["--root", "backlog", "--index-dir", "_index"];
    let out = run_in(dir.path(), &[&base[..], &["site"]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let site = dir.path().join("_index/site");
    let board = std::fs::read_to_string(site.join("board.html")).unwrap();
    let on_board = board.matches("<a class=\"card").count();
    assert!(on_board <= 5 * 150, "{on_board} cards on the board");
    // The rest of each column is on its pages, each card once.
    let mut listed = 0;
    for e in std::fs::read_dir(site.join("lists")).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with("board-") {
            let text = std::fs::read_to_string(&p).unwrap();
            listed += text.matches("<li>").count();
            assert!(text.len() < 1_000_000, "{}", p.display());
        }
    }
    let work = json(&run_in(
        dir.path(),
        &[&base[..], &["list", "--type", "work_item", "--format", "json"]].concat(),
    ));
    let work = work["count"].as_u64().unwrap() as usize;
    assert!(work > 5 * 150, "{work}");
    // Each column's rest is listed whole on its pages (its first cards again with it).
    assert!(
        listed + on_board >= work && listed <= work,
        "{listed} listed, {on_board} on the board, {work} items"
    );
    assert!(board.contains("href=\"lists/board-"), "no link to a column's rest");
}

/// A decision whose date is only in its body, as adr-tools and MADR write it.
const BODY_DATE: &str = "---\nid: ADR-0009\ntitle: Keep the date in the body\nstatus: Proposed\n---\n\n\
                         # Keep the date in the body\n\n**Date:** 2026-03-04\n\n## Context\n\nSome.\n";

#[test]
fn a_superseded_decision_names_its_successor_and_states_look_apart() {
    let f = built(&[("decisions/ADR-0009_keep-the-date-in-the-body.md", BODY_DATE)]);
    let site = f.index().join("site");
    let old = std::fs::read_to_string(site.join("items/ADR-0002.html")).unwrap();
    let banner = old
        .split("<div class=\"banner superseded\"")
        .nth(1)
        .expect("a superseded banner");
    let banner = &banner[..banner.find("</div>").unwrap()];
    assert!(
        banner.contains("Superseded by") && banner.contains("href=\"../items/ADR-0006.html\""),
        "{banner}"
    );
    let new = std::fs::read_to_string(site.join("items/ADR-0006.html")).unwrap();
    assert!(!new.contains("banner superseded"), "the successor is not superseded");
    let decisions = std::fs::read_to_string(site.join("decisions.html")).unwrap();
    for class in ["adr-accepted", "adr-proposed", "adr-superseded"] {
        assert!(decisions.contains(class), "no {class} badge");
    }
    let row = decisions.split("<tr data-id=\"ADR-0009\">").nth(1).unwrap();
    assert!(row[..row.find("</tr>").unwrap()].contains("2026-03-04"), "{row}");
    let page = std::fs::read_to_string(site.join("items/ADR-0009.html")).unwrap();
    assert!(page.contains("Decided <bdi>2026-03-04</bdi>"), "{page}");
}

#[test]
fn a_parent_with_nothing_counted_below_shows_its_own_state() {
    let feature = "---\nid: QRY-FTR-0099\ntype: Feature\ntitle: All dropped\nstate: Done\nparent: QRY-EPIC-0001\n---\n\n# Goal\n\nNone.\n";
    let child = "---\nid: QRY-TSK-0099\ntype: Task\ntitle: Dropped\nstate: Dropped\nparent: QRY-FTR-0099\n---\n\n# Goal\n\nNone.\n";
    let f = built(&[
        ("items/feature/0000/QRY-FTR-0099_all-dropped.md", feature),
        ("items/task/0000/QRY-TSK-0099_dropped.md", child),
    ]);
    let overview = std::fs::read_to_string(f.index().join("site/index.html")).unwrap();
    let row = overview
        .split("<tr class=\"rollup\" data-id=\"QRY-FTR-0099\">")
        .nth(1)
        .unwrap();
    let row = &row[..row.find("</tr>").unwrap()];
    // Not 100 % of nothing: its own state, Done.
    assert!(
        row.contains("data-own=\"1\"") && row.contains("own state: <bdi>Done</bdi>"),
        "{row}"
    );
    assert!(!row.contains("100 %"), "{row}");
}
