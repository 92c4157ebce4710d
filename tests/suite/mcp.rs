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
        .env(RACY_ENV, RACY_MS.to_string())
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

/// A running server answers a server-side `show` call with the item's state.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl Session {
    fn start(dir: &std::path::Path) -> Session {
        let mut child = Command::new(BIN)
            .args(["--root", "backlog", "--index-dir", "_index", "mcp"])
            .current_dir(dir)
            .env_clear()
            .env(RACY_ENV, RACY_MS.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
        let mut s = Session {
            child,
            stdin,
            lines,
            next: 1,
        };
        s.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}),
        );
        writeln!(s.stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
        s
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next;
        self.next += 1;
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        for line in self.lines.by_ref() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["id"] == id {
                return v;
            }
        }
        panic!("the server closed stdout before answering {method}");
    }

    /// The state `show` gives for `id`.
    fn state(&mut self, id: &str) -> String {
        let r = self.request(
            "tools/call",
            serde_json::json!({"name": "show", "arguments": {"id": id}}),
        );
        // The answer is its JSON, sent once as the text content.
        let text = r["result"]["content"][0]["text"].as_str().unwrap_or_default();
        let node: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("no JSON for {id}: {r}"));
        node["state"]
            .as_str()
            .unwrap_or_else(|| panic!("no state for {id}: {r}"))
            .to_string()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One watcher serves the running server, and it watches every folder the scan reads:
/// an edit in any layout (Kiro's hidden `.kiro/` among them) is in the next answer,
/// however soon it is asked. The server's watch once skipped hidden folders, and for
/// seconds after a tick in `.kiro/specs/login/tasks.md` said the task was still open.
#[test]
fn a_running_server_sees_an_edit_in_every_layout() {
    let tick = |s: &str, line: &str| s.replacen(&format!("- [ ] {line}"), &format!("- [x] {line}"), 1);
    type Edit = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        Box<dyn Fn(&str) -> String>,
    );
    let layouts: [(&str, Vec<Edit>); 3] = [
        (
            "tests/fixtures/spec-folders",
            vec![
                (
                    "Kiro",
                    "login/3",
                    ".kiro/specs/login/tasks.md",
                    "done",
                    Box::new(move |s| tick(s, "3. Implement sign out")),
                ),
                (
                    "Spec Kit",
                    "002-export/T001",
                    "specs/002-export/tasks.md",
                    "done",
                    Box::new(move |s| tick(s, "T001")),
                ),
                (
                    "BMAD",
                    "1.2/2",
                    "docs/stories/1.2.story.md",
                    "done",
                    Box::new(move |s| tick(s, "Enforce the size limit")),
                ),
            ],
        ),
        (
            "tests/fixtures/backlog-md",
            vec![(
                "Backlog.md",
                "task-11.1",
                "tasks/task-11.1 - Streaming-lexer.md",
                "Done",
                Box::new(|s| s.replacen("status: In Progress", "status: Done", 1)),
            )],
        ),
        (
            "backlog-fixtures",
            vec![(
                "kano",
                "QRY-TSK-0014",
                "items/task/0000/QRY-TSK-0014_add-report-job-api-with-status-polling.md",
                "Done",
                Box::new(|s| s.replacen("state: Review", "state: Done", 1)),
            )],
        ),
    ];
    for (fixture, edits) in layouts {
        let f = Fixture::new(fixture);
        assert_eq!(f.run(&["index", "--quiet"]).code, 0, "{fixture}");
        let mut server = Session::start(f.dir.path());
        for (layout, id, file, after, edit) in edits {
            let before = server.state(id);
            assert_ne!(before, after, "{layout}: {id} starts {before}");
            edit_file(&f.root().join(file), &*edit);
            assert_eq!(server.state(id), after, "{layout}: the answer after editing {file}");
            // The CLI beside the running server, which vouches for the index, agrees.
            let out = f.run(&["show", id, "--format", "json"]);
            assert!(
                out.stdout.contains(&format!("\"state\": \"{after}\"")),
                "{layout}: {}",
                out.stdout
            );
        }
    }
}
