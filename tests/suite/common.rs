//! Shared helpers: fixture copies, running the binary with a clean environment, hashing
//! trees, and snapshot settings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_mdgraph");

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Rewrite each of `files` with CRLF line ends, as an autocrlf checkout has them.
pub fn to_crlf(files: impl IntoIterator<Item = PathBuf>) {
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, text.replace("\r\n", "\n").replace('\n', "\r\n")).unwrap();
    }
}

/// The Markdown files under `root`, sorted.
pub fn md_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The index files an incremental build must write byte for byte as a full build does.
pub const OUTPUTS: [&str; 4] = [
    "graph_nodes.jsonl",
    "graph_edges.jsonl",
    "diagnostics.jsonl",
    "meta.json",
];

/// Those of [`OUTPUTS`] whose bytes differ between two index folders.
pub fn differing_outputs(a: &Path, b: &Path) -> Vec<&'static str> {
    OUTPUTS
        .into_iter()
        .filter(|name| {
            let read = |dir: &Path| std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            read(a) != read(b)
        })
        .collect()
}

/// Copy a folder recursively.
/// The stat cache's racy window in the suite: files changed within it are re-read and
/// their folders not vouched for. 2 s outside tests; the suite shortens it in its own
/// process and, through [`RACY_ENV`], in every binary it runs, so that waiting it out
/// costs 0.4 s, not 2.1 s.
pub const RACY_MS: u64 = 300;
/// The binary's knob for [`RACY_MS`].
pub const RACY_ENV: &str = "MDGRAPH_TEST_RACY_MS";

/// Shorten the racy window in this process (idempotent).
pub fn short_racy_window() {
    mdgraph::set_racy_window_ms(RACY_MS);
}

/// Wait out the racy window.
pub fn wait_racy() {
    short_racy_window();
    std::thread::sleep(std::time::Duration::from_millis(RACY_MS + 100));
}

/// Wait out the stat cache's racy window, then index again so the cache vouches for every
/// file: the next edit can take the short cut.
pub fn settle(cfg: &mdgraph::Config) {
    wait_racy();
    mdgraph::Index::build(cfg, false, None).unwrap();
}

/// Rewrite `file` with `change` applied to its text, which it must change.
pub fn edit_file(file: &Path, change: &dyn Fn(&str) -> String) {
    let text = std::fs::read_to_string(file).unwrap();
    let changed = change(&text);
    assert_ne!(text, changed, "the edit changes {}", file.display());
    std::fs::write(file, changed).unwrap();
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

/// Whether an outside tool a test needs is missing, probed by running `probe` (program
/// and arguments; missing unless it exits 0). Off CI the caller skips, and this says so.
/// Under `CI=true` a missing tool fails the test instead: a green CI run proves that every
/// such test ran.
pub fn tool_missing(tool: &str, probe: &[&str]) -> bool {
    let (program, args) = probe.split_first().expect("a probe names a program");
    let found = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        return false;
    }
    if std::env::var_os("CI").is_some_and(|v| v == "true") {
        panic!(
            "{tool} is missing (`{}` failed), and under CI=true that fails the test",
            probe.join(" ")
        );
    }
    eprintln!("skipping: {tool} is missing (`{}` failed)", probe.join(" "));
    true
}

/// A temp dir holding a copy of a fixture folder as `backlog/`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new(src: &str) -> Fixture {
        short_racy_window();
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo().join(src), &dir.path().join("backlog"));
        Fixture { dir }
    }
    /// The same fixture in commit mode: an `mdgraph.toml` beside `backlog/` with
    /// `commit_index = true`, so the index is a committed record that can be stale.
    pub fn committed(src: &str) -> Fixture {
        let f = Fixture::new(src);
        std::fs::write(
            f.dir.path().join("mdgraph.toml"),
            "root = \"backlog\"\nindex_dir = \"_index\"\ncommit_index = true\n",
        )
        .unwrap();
        f
    }
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("backlog")
    }
    pub fn index(&self) -> PathBuf {
        self.dir.path().join("_index")
    }
    /// Run mdgraph in the temp dir with `--root backlog --index-dir _index`.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut full = vec!["--root", "backlog", "--index-dir", "_index"];
        full.extend_from_slice(args);
        run_in(self.dir.path(), &full)
    }
    /// The configuration the binary would load for `--root backlog --index-dir _index`.
    pub fn config(&self) -> mdgraph::Config {
        let ov = mdgraph::Overrides {
            root: Some("backlog".into()),
            index_dir: Some("_index".into()),
            ..Default::default()
        };
        mdgraph::Config::load(self.dir.path(), &ov).unwrap()
    }
    pub fn read_index(&self, name: &str) -> String {
        std::fs::read_to_string(self.index().join(name)).unwrap()
    }
}

#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the binary in `cwd` with a cleared environment.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    run_env(cwd, args, &[])
}

/// Run the binary in `cwd` with only the variables `env` set.
pub fn run_env(cwd: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env(RACY_ENV, RACY_MS.to_string())
        .envs(env.iter().copied())
        .output()
        .unwrap();
    out.into()
}

impl From<std::process::Output> for Output {
    fn from(out: std::process::Output) -> Output {
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// blake3 of every file under `dir`, by relative path.
pub fn tree_hashes(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, blake3::hash(&std::fs::read(&p).unwrap()).to_hex().to_string());
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// Snapshot settings: files under the top-level `snapshots/`.
#[macro_export]
macro_rules! snap {
    ($name:expr, $value:expr) => {
        insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// A command's stdout read as JSON (the panic names what it printed).
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out.stdout, out.stderr))
}

/// The ids of a `list`/`ready` answer's items.
pub fn ids(v: &serde_json::Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}
