//! Navigation pages (an index README, a Dataview `*.index.md`, a dashboard of queries):
//! marked at index time, followed but never ranked or packed as content.

use crate::common::*;
use serde_json::Value;

fn json(f: &Fixture, args: &[&str]) -> Value {
    let out = f.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn indexed() -> Fixture {
    let f = Fixture::new("tests/fixtures/nav");
    let out = f.run(&["index"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    f
}

fn ids(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn navigation_pages_are_marked() {
    let f = indexed();
    let nav: Vec<String> = f
        .read_index("graph_nodes.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|n| n["kind"] != "chunk" && n["nav"] == true)
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect();
    // The links-only README, the Dataview index (by its name) and the dashboard of
    // queries; not the glossary (prose) nor the work items.
    let mut nav = nav;
    nav.sort();
    assert_eq!(nav, ["README.md", "docs/Open work.index.md", "docs/dashboard.md"]);
}

#[test]
fn navigation_page_is_no_seed_and_no_packed_text() {
    let f = indexed();
    // The README lists every title, so it matches every word of this question best.
    let q = "offline sync resumable photo upload branded pdf report";
    let s = json(&f, &["search", "--format", "json", q]);
    let found = ids(&s, "results");
    let first = &found[..3];
    for want in ["SYN-1", "SYN-2", "SYN-3"] {
        assert!(first.contains(&want.to_string()), "{found:?}");
    }
    let readme = s["results"].as_array().unwrap().iter().find(|h| h["id"] == "IDX-1");
    // Still listed (it matched), marked, below what it links to.
    let r = readme.expect("the README is listed");
    assert_eq!(r["nav"], true);
    let pos = found.iter().position(|x| x == "IDX-1").unwrap();
    assert!(pos > found.iter().position(|x| x == "SYN-3").unwrap(), "{found:?}");
    let p = json(&f, &["pack", "--format", "json", q, "--budget", "4000"]);
    for item in p["items"].as_array().unwrap() {
        let nav = ["IDX-1", "dashboard", "Open work.index"].contains(&item["id"].as_str().unwrap());
        if nav {
            assert_eq!(item["mode"], "reference", "{item}");
            assert!(!item["text"].as_str().unwrap().contains("(items/SYN-1"), "{item}");
        } else {
            assert_ne!(item["mode"], "reference", "{item}");
        }
    }
    assert!(ids(&p, "items").contains(&"SYN-1".to_string()));
}

#[test]
fn navigation_page_links_are_followed() {
    let f = indexed();
    // Only the README matches ("Backlog index"): what it lists is found through it.
    let s = json(&f, &["search", "--format", "json", "backlog index"]);
    let results = s["results"].as_array().unwrap();
    let syn4 = results.iter().find(|h| h["id"] == "SYN-4").expect("a README target");
    assert_eq!(syn4["why"]["kind"], "neighbor");
    assert_eq!(syn4["why"]["path"][0]["from"], "IDX-1");
    assert_eq!(syn4["why"]["path"][0]["edge"], "links_to");
    // The README itself ranks below what it points to.
    let pos = |id: &str| results.iter().position(|h| h["id"] == id);
    assert!(pos("IDX-1").unwrap() > pos("SYN-4").unwrap(), "{results:?}");
    // In the pack, the targets carry text and the README is a reference line.
    let p = json(&f, &["pack", "--format", "json", "backlog index", "--budget", "3000"]);
    let items = p["items"].as_array().unwrap();
    let mode = |id: &str| items.iter().find(|i| i["id"] == id).map(|i| i["mode"].clone());
    assert_eq!(mode("IDX-1"), Some(Value::from("reference")));
    assert!(matches!(
        mode("SYN-4").and_then(|m| m.as_str().map(String::from)).as_deref(),
        Some("full" | "excerpt")
    ));
}

#[test]
fn navigation_page_named_by_id_or_path_is_packed_with_text() {
    let f = indexed();
    for q in ["IDX-1", "what does README.md list"] {
        let p = json(&f, &["pack", "--format", "json", q, "--budget", "2000"]);
        let item = p["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == "IDX-1")
            .cloned();
        let item = item.unwrap_or_else(|| panic!("{q}: {p}"));
        assert_ne!(item["mode"], "reference", "{q}: {item}");
        assert!(item["text"].as_str().unwrap().contains("Tenant isolation"), "{item}");
    }
    // `show` prints it whole.
    let out = f.run(&["show", "IDX-1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Company SSO login"), "{}", out.stdout);
}
