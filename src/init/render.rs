//! The starter `mdgraph.toml` that `init` writes for a detected layout: the common
//! head, then each layout's keys, with the defaults shown as comments.

use super::{BACKLOG_MD_KINDS, BACKLOG_MD_PATHS, Detected, Layout};
use crate::config::{IdSettings, KindSettings};
use std::fmt::Write as _;

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn list(xs: &[String]) -> String {
    let items: Vec<String> = xs.iter().map(|x| q(x)).collect();
    format!("[{}]", items.join(", "))
}

/// The config text for a detection. `root` and `index_dir` are as written in the file
/// (relative to it, or absolute).
pub fn render(d: &Detected, root: &str, index_dir: &str, shown_root: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# mdgraph configuration, written by `mdgraph init`.");
    let _ = writeln!(s, "# Detected {}.", d.describe(shown_root));
    let _ = writeln!(
        s,
        "# Paths are relative to this file. Every key with its default: mdgraph's docs/configuration.md."
    );
    let _ = writeln!(s, "# Next: `mdgraph index`, then `mdgraph pack \"your question\"`.\n");
    let _ = writeln!(s, "root = {:<22} # the folder to index", q(root));
    let _ = writeln!(
        s,
        "index_dir = {:<17} # derived, local: ignored by git, rebuilt by whoever reads it",
        q(index_dir)
    );
    let _ = writeln!(
        s,
        "# commit_index = true         # commit the graph instead: for graph diffs in review, or tools that read the JSONL without mdgraph"
    );
    let _ = writeln!(
        s,
        "# sqlite = true               # the local search mirror (git-ignored)"
    );
    match &d.layout {
        Layout::BacklogMd { prefix, statuses } => backlog_md_keys(&mut s, prefix.as_deref(), statuses),
        Layout::Kano {
            extra_types,
            extra_states,
            extra_adr_states,
            ..
        } => kano_keys(&mut s, extra_types, extra_states, extra_adr_states),
        Layout::Eip { moved, .. } => eip_keys(&mut s, *moved),
        Layout::Adrs {
            dirs,
            name,
            extra_states,
            ..
        } => adrs_keys(&mut s, dirs, name, extra_states),
        Layout::SpecFolders(_) => spec_folder_keys(&mut s),
        Layout::Generic => generic_keys(&mut s),
    }
    let _ = writeln!(s, "\n[scan]");
    let installed = match &d.layout {
        Layout::SpecFolders(_) => method_installs(&d.root),
        _ => Vec::new(),
    };
    if installed.is_empty() {
        let _ = writeln!(s, "# exclude = [\"drafts/**\"]     # globs relative to the root");
    } else {
        // BMAD v6 installs its agents, workflows and their docs as Markdown beside the
        // project's (xvanov/locatrix: 40 broken links among them, none the project's).
        let globs: Vec<String> = installed.iter().map(|d| q(&format!("{d}/**"))).collect();
        let _ = writeln!(
            s,
            "# The BMAD method's own files, as its installer wrote them: no backlog."
        );
        let _ = writeln!(s, "exclude = [{}]", globs.join(", "));
    }
    s
}

/// The folders under `root` where the BMAD installer put the method itself (`bmad/`,
/// `_bmad/`: its `core/` beside a module such as `bmm/`).
fn method_installs(root: &std::path::Path) -> Vec<&'static str> {
    ["bmad", "_bmad"]
        .into_iter()
        .filter(|d| {
            root.join(d).join("core").is_dir()
                && (root.join(d).join("bmm").is_dir() || root.join(d).join("_cfg").is_dir())
        })
        .collect()
}

/// The keys of a Backlog.md layout: its task prefix, its folders and statuses.
fn backlog_md_keys(s: &mut String, prefix: Option<&str>, statuses: &[String]) {
    let _ = writeln!(s, "\n[ids]");
    match prefix.filter(|p| *p != "task") {
        Some(p) => {
            let _ = writeln!(
                s,
                "# Task ids are `{}-N`; older files refer to tasks as `task-N`.",
                p.to_ascii_uppercase()
            );
            let _ = writeln!(s, "prefix_aliases = {{ task = {} }}", q(p));
        }
        None => {
            let _ = writeln!(
                s,
                "# prefix_aliases = {{ task = \"back\" }}  # if the task prefix was renamed"
            );
        }
    }
    let _ = writeln!(s, "\n[kinds]");
    let _ = writeln!(
        s,
        "# Backlog.md's folders say what a file is (its tasks carry no `type`); parents"
    );
    let _ = writeln!(s, "# come from `parent_task_id`.");
    let _ = writeln!(s, "paths = {BACKLOG_MD_KINDS}");
    if statuses.is_empty() {
        let _ = writeln!(s, "# item_states = [\"To Do\", \"In Progress\", \"Done\"]");
    } else {
        let _ = writeln!(s, "# The statuses of the backlog's config.yml.");
        let _ = writeln!(s, "item_states = {}", list(statuses));
    }
    let _ = writeln!(s, "\n[states]");
    let _ = writeln!(
        s,
        "# Backlog.md moves finished tasks to completed/ and archived ones to archive/"
    );
    let _ = writeln!(s, "# without changing their status; drafts/ holds ideas, not work yet.");
    let _ = writeln!(s, "paths = {BACKLOG_MD_PATHS}");
}

/// The keys of a kano layout: the defaults fit, with the types and states found beyond them.
fn kano_keys(s: &mut String, extra_types: &[String], extra_states: &[String], extra_adr_states: &[String]) {
    let kinds = KindSettings::default();
    let _ = writeln!(
        s,
        "\n# The defaults fit this layout: `id:` ids, work items under items/, ADRs under"
    );
    let _ = writeln!(
        s,
        "# decisions/, edges from parent, links.relates/blocks/blocked_by, decisions,"
    );
    let _ = writeln!(s, "# related_items, supersedes and superseded_by.");
    let _ = writeln!(s, "\n[kinds]");
    let merged = |known: &[String], extra: &[String]| -> Vec<String> { known.iter().chain(extra).cloned().collect() };
    for (key, known, extra) in [
        ("item_types", &kinds.item_types, extra_types),
        ("item_states", &kinds.item_states, extra_states),
        ("adr_states", &kinds.adr_states, extra_adr_states),
    ] {
        if extra.is_empty() {
            let _ = writeln!(s, "# {key} = {}", list(known));
        } else {
            let _ = writeln!(s, "# The defaults and the values found in this backlog.");
            let _ = writeln!(s, "{key} = {}", list(&merged(known, extra)));
        }
    }
}

/// The keys of the EIPs' layout: `eip:` ids, and the stubs moved documents leave.
fn eip_keys(s: &mut String, moved: usize) {
    let _ = writeln!(s, "\n[ids]");
    let _ = writeln!(
        s,
        "keys = [\"eip\"]             # `eip: 1559` is the id; `requires:` makes depends_on edges"
    );
    if moved > 0 {
        let _ = writeln!(
            s,
            "# `status: Moved` stubs left behind by moved documents give their id to the real one."
        );
        let _ = writeln!(s, "yield_states = [\"Moved\"]");
    } else {
        let _ = writeln!(
            s,
            "# yield_states = [\"Moved\"]  # stubs that give their id to the real document"
        );
    }
    let _ = writeln!(s, "\n[fields]");
    let _ = writeln!(s, "state = [\"status\"]");
}

/// The keys of a decision log: its folder, and the statuses it writes beyond the defaults.
fn adrs_keys(s: &mut String, dirs: &[String], name: &str, extra_states: &[String]) {
    let kinds = KindSettings::default();
    let _ = writeln!(s, "\n[kinds]");
    let _ = writeln!(
        s,
        "# Numbered files in {} are ADRs, with or without frontmatter: a `## Status`",
        dirs.join(", ")
    );
    let _ = writeln!(
        s,
        "# section or a `Status: X` line gives the state, and its \"Superseded by\" and"
    );
    let _ = writeln!(s, "# \"Supersedes\" links become edges.");
    let _ = writeln!(s, "decisions_dir = {}", q(name));
    if extra_states.is_empty() {
        let _ = writeln!(s, "# adr_states = {}", list(&kinds.adr_states));
    } else {
        let _ = writeln!(s, "# The defaults and the statuses this log writes.");
        let all: Vec<String> = kinds.adr_states.iter().chain(extra_states).cloned().collect();
        let _ = writeln!(s, "adr_states = {}", list(&all));
    }
}

/// Spec folders need no keys; the config says why.
fn spec_folder_keys(s: &mut String) {
    let _ = writeln!(
        s,
        "\n# Spec folders need no keys: each task line is an item, ids are scoped by"
    );
    let _ = writeln!(
        s,
        "# their feature (`003-chat/T012`), and each format's order decides `ready`"
    );
    let _ = writeln!(s, "# (mdgraph's docs/spec-folders.md).");
}

/// The keys of a layout mdgraph does not know: the defaults, commented out.
fn generic_keys(s: &mut String) {
    let defaults = IdSettings::default();
    let kinds = KindSettings::default();
    let _ = writeln!(s, "\n[ids]");
    let _ = writeln!(
        s,
        "# keys = {}          # frontmatter keys holding the id, first present wins",
        list(&defaults.keys)
    );
    let _ = writeln!(s, "\n[kinds]");
    let _ = writeln!(s, "# item_types = {}", list(&kinds.item_types));
    let _ = writeln!(
        s,
        "# items_dir = {}              # folder of work items",
        q(&kinds.items_dir)
    );
    let _ = writeln!(s, "# decisions_dir = {}      # folder of ADRs", q(&kinds.decisions_dir));
}
