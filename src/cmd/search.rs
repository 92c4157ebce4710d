//! `mdgraph search`: ranked documents with the reason each matched. Text output is a
//! ranked table; JSON is the library's `SearchResults`.

use super::common::{Ctx, Failure, Format, emit, json, notes, open_index};
use super::term::Paint;
use super::{EXIT_FAIL, EXIT_OK};
use mdgraph::{Config, Hit, SearchOptions, SearchResults, Timings};
use std::fmt::Write as _;
use std::io::Write;

/// Full-text search: ranked documents with the reason each matched.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The question or keywords (plain text; no query syntax).
    query: String,
    /// Most results to print (at least 1).
    #[arg(long, default_value_t = 10, value_parser = at_least_one)]
    limit: usize,
    /// Plain full-text ranking: no graph expansion or re-rank.
    #[arg(long)]
    no_graph: bool,
    /// Do not refresh a stale index first.
    #[arg(long)]
    no_refresh: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Search the (refreshed) index; exit 1 when nothing is found.
pub fn run(ctx: &Ctx, args: &Args, cfg: Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let mut t = Timings::default();
    let index = open_index(ctx, cfg, err, args.no_refresh)?;
    t.mark("refresh");
    let opts = SearchOptions {
        limit: args.limit,
        graph: !args.no_graph,
    };
    let results = index.search_with(&args.query, opts)?;
    t.mark("search");
    notes(ctx, err, Some(&t), &index)?;
    let code = if results.results.is_empty() { EXIT_FAIL } else { EXIT_OK };
    match args.format {
        Format::Json => emit(out, json(&results)?.as_bytes(), code),
        Format::Text => emit(out, table(&results, ctx.out_paint).as_bytes(), code),
    }
}

/// A ranked table of search results: rank, id, type, state, title, matched section.
fn table(r: &SearchResults, paint: Paint) -> String {
    let mut s = String::new();
    if r.results.is_empty() {
        let _ = writeln!(s, "no results for {:?}", r.query);
        return s;
    }
    let idw = r.results.iter().map(|h| h.id.len()).max().unwrap_or(2);
    let tyw = r.results.iter().map(|h| type_label(h).len()).max().unwrap_or(4);
    let stw = r
        .results
        .iter()
        .map(|h| h.state.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(1);
    for (i, h) in r.results.iter().enumerate() {
        // Padding is computed on the plain id, so colour does not shift the columns.
        let pad = " ".repeat(idw.saturating_sub(h.id.chars().count()));
        let _ = writeln!(
            s,
            "{:>2}. {}{pad}  {:<tyw$}  {:<stw$}  {:<7.3}  {}  {}",
            i + 1,
            paint.bold(&h.id),
            type_label(h),
            h.state.as_deref().unwrap_or("-"),
            h.score,
            truncate(&h.title, 60),
            paint.dim(&format!("[{}]", h.why.line())),
        );
    }
    s
}

fn type_label(h: &Hit) -> String {
    h.r#type.clone().unwrap_or_else(|| h.kind.as_str().to_string())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// `--limit`: a count of at least 1 (`0` would print nothing and look like no match).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}
