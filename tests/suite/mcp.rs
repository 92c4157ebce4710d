//! `mdgraph mcp`: the MCP server over stdio, spoken to by the official Python client
//! (`tests/mcp_client.py`, skipped when `pip install mcp` has not been run, failing then
//! under `CI=true`) and, for the
//! tool list, by hand.

use crate::common::*;
use crate::snap;
use std::io::Write;
use std::process::{Command, Stdio};

/// The official MCP Python client runs every tool against the sample backlog, sees an
/// edit without a restart, and finds nothing written outside the index folder.
#[test]
fn official_python_client() {
    if tool_missing(
        "the MCP Python client (python3 -m pip install mcp)",
        &["python3", "-c", "import mcp"],
    ) {
        return;
    }
    let f = Fixture::new("backlog-fixtures");
    let out = Command::new("python3")
        .arg(repo().join("tests").join("mcp_client.py"))
        .arg("--bin")
        .arg(BIN)
        .arg("--root")
        .arg(f.root())
        .arg("--index-dir")
        .arg(f.index())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("mcp_client: ok"), "{stdout}");
}

/// The tool list, as a client sends it to the model with every conversation: reviewed
/// here, and kept small.
#[test]
fn tool_list_is_lean() {
    let f = Fixture::new("backlog-fixtures");
    let mut child = Command::new(BIN)
        .args(["--root", "backlog", "--index-dir", "_index", "mcp"])
        .current_dir(f.dir.path())
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Every line on stdout is a protocol message.
    let replies: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let list = replies.iter().find(|r| r["id"] == 2).expect("a reply to tools/list");
    let mut tools = list["result"]["tools"].as_array().unwrap().clone();
    tools.sort_by_key(|t| t["name"].as_str().unwrap_or_default().to_string());
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["list", "neighbors", "pack", "ready", "search", "show", "tree"]);
    let compact = serde_json::to_string(&tools).unwrap();
    assert!(compact.len() < 3300, "tool list grew to {} bytes", compact.len());
    snap!("mcp_tools", serde_json::to_string_pretty(&tools).unwrap());
}
