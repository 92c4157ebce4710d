//! `mdgraph show`: one node with its sections and edges. Text output is rendered here;
//! JSON is the library's `Shown`.

use super::EXIT_OK;
use super::common::{Ctx, Failure, Format, emit, json, notes, open_index};
use super::term::Paint;
use mdgraph::{Config, Shown};
use std::fmt::Write as _;
use std::io::Write;

/// Print one node (by id, `ID@uid`, or path) with its sections and edges.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Node id, raw id (any case) or root-relative path; several words are one id as
    /// typed (`show task 88`).
    #[arg(required = true, num_args = 1..)]
    id: Vec<String>,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Print the node; an unknown id is an error (exit 1).
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    let view = index.node(&args.id.join(" "))?;
    notes(ctx, err, None, &index)?;
    match args.format {
        Format::Json => emit(out, json(&view)?.as_bytes(), EXIT_OK),
        Format::Text => emit(out, render(&view, ctx.out_paint).as_bytes(), EXIT_OK),
    }
}

/// A node with its sections and edges.
fn render(v: &Shown, paint: Paint) -> String {
    let n = &v.node;
    let mut s = String::new();
    let ty = n.r#type.as_deref().unwrap_or("");
    let state = n.state.as_deref().unwrap_or("");
    let _ = writeln!(s, "{}  {}", paint.bold(&n.id), n.label());
    let _ = writeln!(
        s,
        "  kind:   {}{}",
        n.kind.as_str(),
        if ty.is_empty() {
            String::new()
        } else {
            format!(" ({ty})")
        }
    );
    if !state.is_empty() {
        let _ = writeln!(s, "  state:  {state}");
    }
    let _ = writeln!(s, "  path:   {}", n.path);
    if let Some(u) = &n.uid {
        let _ = writeln!(s, "  uid:    {u}");
    }
    if let Some(doc) = &n.doc {
        let _ = writeln!(s, "  in:     {doc} (section, line {})", n.line.unwrap_or(0));
    }
    if !v.sections.is_empty() {
        let _ = writeln!(s, "\n{}", paint.bold("sections:"));
        for sec in &v.sections {
            let name = if sec.heading.is_empty() {
                "(before first heading)"
            } else {
                &sec.heading
            };
            let _ = writeln!(
                s,
                "  {:<4} {}{}",
                sec.line,
                "  ".repeat(sec.level.saturating_sub(1) as usize),
                name
            );
        }
    }
    for (title, edges, arrow) in [("outgoing", &v.outgoing, "→"), ("incoming", &v.incoming, "←")] {
        let _ = writeln!(s, "\n{} ({}):", paint.bold(title), edges.len());
        let w = edges.iter().map(|e| e.id.len()).max().unwrap_or(0);
        for e in edges {
            let origin = e.origin.as_str();
            let _ = writeln!(
                s,
                "  {:<13} {arrow} {:<w$}  {}  ({origin}, line {})",
                e.r#type.as_str(),
                e.id,
                e.title,
                e.line,
                w = w
            );
        }
    }
    if let Some(text) = &n.text {
        let _ = writeln!(s, "\n{text}");
    }
    s
}
