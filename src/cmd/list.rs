//! `mdgraph list`: documents filtered by type, state, any frontmatter field and parent.
//! Text is one line per item; JSON is the library's `ListReport`.

use super::common::{BoundArgs, Ctx, Failure, Format, bounded, emit, json, notes, open_index};
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::{Config, ListFilter, ListItem};
use std::fmt::Write as _;
use std::io::Write;

/// List backlog items by type, state, frontmatter field or parent; filters compose.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Item type (Task, Bug, …; `adr` and `doc` name kinds); repeatable.
    #[arg(long = "type", value_name = "TYPE")]
    types: Vec<String>,
    /// State as written ("In Progress") or a group: open, in_progress, blocked, done,
    /// dropped; repeatable.
    #[arg(long = "state", value_name = "STATE")]
    states: Vec<String>,
    /// KEY=VALUE on any frontmatter field (a list matches by member); repeatable.
    #[arg(long = "where", value_name = "KEY=VALUE", value_parser = key_value)]
    fields: Vec<(String, String)>,
    /// Only items under this parent (direct children; all descendants with --deep).
    #[arg(long, value_name = "ID")]
    parent: Option<String>,
    /// With --parent: every descendant, not only the children.
    #[arg(long, requires = "parent")]
    deep: bool,
    /// Sort by id (default), priority, state, title, type or any frontmatter field.
    #[arg(long, value_name = "FIELD")]
    sort: Option<String>,
    #[command(flatten)]
    bound: BoundArgs,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("`{s}` is not KEY=VALUE")),
    }
}

/// List the matching items; exit 1 when none match.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let parent = match &args.parent {
        Some(p) => Some(index.resolve_id(p)?),
        None => None,
    };
    let filter = ListFilter {
        types: args.types.clone(),
        states: args.states.clone(),
        fields: args.fields.clone(),
        parent,
        deep: args.deep,
        sort: args.sort.clone(),
    };
    let report = index.list(&filter)?;
    notes(ctx, err, None, &index)?;
    let code = if report.items.is_empty() { EXIT_FAIL } else { EXIT_OK };
    let (_, text) = bounded(&index, &report, args.bound, |r| match args.format {
        Format::Json => json(r),
        Format::Text => Ok(lines(r.items.iter()) + &more_line(r.more, "listed")),
    })?;
    emit(out, text.as_bytes(), code)
}

/// The line that says how many items a limit or a budget left out; empty when none.
pub fn more_line(more: usize, what: &str) -> String {
    match more {
        0 => String::new(),
        n => format!("… {n} more not {what} (--limit, --budget)\n"),
    }
}

/// One line per item: id, type, state, title, padded to the widest id.
pub fn lines<'a>(items: impl Iterator<Item = &'a ListItem> + Clone) -> String {
    // Columns as wide as their widest value, at most 24: a disambiguated id
    // (`BACK-41@archive/tasks/…`) must not push every other line off the screen.
    let width = |f: &dyn Fn(&ListItem) -> usize| items.clone().map(f).max().unwrap_or(0).min(24);
    let w = width(&|i| i.id.chars().count());
    let tw = width(&|i| i.r#type.as_deref().unwrap_or("-").chars().count());
    let sw = width(&|i| i.state.as_deref().unwrap_or("-").chars().count());
    let mut s = String::new();
    for i in items {
        let _ = writeln!(
            s,
            "{:<w$}  {:<tw$}  {:<sw$}  {}",
            i.id,
            i.r#type.as_deref().unwrap_or("-"),
            i.state.as_deref().unwrap_or("-"),
            i.title.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    s
}
