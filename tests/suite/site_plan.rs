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
