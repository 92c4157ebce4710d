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
    if tool_missing("python3", &["python3", "--version"]) || tool_missing("chromium", &["chromium", "--version"]) {
        return None;
    }
    let script = repo().join("tests/site_checks.py");
    let dir = f.index().join("site");
    let mut all = vec![script.to_str().unwrap(), dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out: Output = std::process::Command::new("python3")
        .args(&all)
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 0, "{}", out.stderr);
    Some(serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout)))
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
