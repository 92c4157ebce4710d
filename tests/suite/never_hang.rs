//! Nothing waits forever: the MCP server answers every request it cannot parse.

use crate::common::*;
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn mcp_answers_requests_it_cannot_parse() {
    let f = Fixture::new("backlog-fixtures");
    let mut child = Command::new(BIN)
        .args(["--root", "backlog", "--index-dir", "_index", "mcp"])
        .current_dir(f.dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let requests: Vec<Vec<u8>> = vec![
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
        // Bad UTF-8, a lone surrogate, nesting past the parser's limit, not JSON at all.
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"show\",\"arguments\":{\"id\":\"\xff\"}}}".to_vec(),
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"show","arguments":{"id":"\ud800"}}}"#.to_vec(),
        deep.into_bytes(),
        b"not json".to_vec(),
        // JSON, with an id, that is no request.
        br#"{"jsonrpc":"2.0","id":8}"#.to_vec(),
        // JSON without an id to trust: invalid request, id null.
        br#"{"jsonrpc":"2.0"}"#.to_vec(),
        br#"[]"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#.to_vec(),
        // Still serving.
        br#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#.to_vec(),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for r in &requests {
        stdin.write_all(r).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let replies: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let parse_errors = replies
        .iter()
        .filter(|r| r["error"]["code"] == -32700 && r["id"].is_null())
        .count();
    assert_eq!(parse_errors, 4, "{replies:#?}");
    let invalid = replies.iter().find(|r| r["id"] == 8).expect("a reply to id 8");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let no_id = replies
        .iter()
        .filter(|r| r["error"]["code"] == -32600 && r.get("id") == Some(&serde_json::Value::Null))
        .count();
    assert_eq!(no_id, 3, "{replies:#?}");
    assert!(
        replies.iter().any(|r| r["id"] == 9 && r["result"]["tools"].is_array()),
        "{replies:#?}"
    );
}

#[test]
fn a_fifo_as_baseline_is_an_error_not_a_hang() {
    let f = Fixture::new("backlog-fixtures");
    assert_eq!(f.run(&["index", "-q"]).code, 0);
    if tool_missing("mkfifo", &["sh", "-c", "command -v mkfifo"]) {
        return;
    }
    let fifo = f.dir.path().join("mdgraph-baseline.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // A hang would block this test forever; `check` must return.
    let out = f.run(&["check"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("mdgraph-baseline.json"), "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

/// `index --watch` loads an edited config again, and keeps seeing edits after the root
/// is deleted and created again.
#[cfg(unix)]
#[test]
fn watch_reloads_the_config_and_survives_a_recreated_root() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("b");
    std::fs::create_dir_all(&root).unwrap();
    let config = dir.path().join("mdgraph.toml");
    std::fs::write(&config, "root = \"b\"\nindex_dir = \"_index\"\n").unwrap();
    std::fs::write(root.join("T-1.md"), "---\nid: T-1\ntype: Chore\n---\n# One\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["index", "--watch"])
        .current_dir(dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let wait_for = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(200))
                && line.contains(what)
            {
                return true;
            }
        }
        false
    };
    assert!(wait_for("watching"), "never started watching");
    let nodes = || std::fs::read_to_string(dir.path().join("_index/graph_nodes.jsonl")).unwrap_or_default();
    // The config gains a work item type: the index is rebuilt with it.
    std::fs::write(
        &config,
        "root = \"b\"\nindex_dir = \"_index\"\n[kinds]\nitem_types = [\"Chore\"]\n",
    )
    .unwrap();
    assert!(wait_for("config changed"), "the edited config was not loaded");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !nodes().contains("\"kind\":\"work_item\"") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(nodes().contains("\"kind\":\"work_item\""), "{}", nodes());
    // The root deleted and created again, with a new file in it.
    std::fs::remove_dir_all(&root).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("T-2.md"), "---\nid: T-2\ntype: Chore\n---\n# Two\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !nodes().contains("\"id\":\"T-2\"") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let _ = child.wait();
    assert!(
        nodes().contains("\"id\":\"T-2\""),
        "the recreated root was not seen: {}",
        nodes()
    );
}

/// With the config at the root (the default layout), a folder created while `index
/// --watch` runs is watched too: a second edit in it is seen.
#[cfg(unix)]
#[test]
fn watch_sees_edits_in_a_new_folder_when_the_config_sits_in_the_root() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mdgraph.toml"), "index_dir = \"_index\"\n").unwrap();
    std::fs::write(dir.path().join("T-1.md"), "---\nid: T-1\n---\n# One\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["index", "--watch"])
        .current_dir(dir.path())
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if rx
            .recv_timeout(Duration::from_millis(200))
            .is_ok_and(|l| l.starts_with("watching"))
        {
            break;
        }
    }
    let nodes = || std::fs::read_to_string(dir.path().join("_index/graph_nodes.jsonl")).unwrap_or_default();
    let wait_for = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !nodes().contains(what) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        nodes().contains(what)
    };
    std::fs::create_dir_all(dir.path().join("new")).unwrap();
    std::fs::write(
        dir.path().join("new/A-1.md"),
        "---\nid: A-1\ntitle: First words\n---\n# A\n",
    )
    .unwrap();
    let first = wait_for("First words");
    std::thread::sleep(Duration::from_millis(400));
    std::fs::write(
        dir.path().join("new/A-1.md"),
        "---\nid: A-1\ntitle: Second words\n---\n# A\n",
    )
    .unwrap();
    let second = wait_for("Second words");
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let _ = child.wait();
    assert!(first && second, "first {first}, second {second}: {}", nodes());
}
