//! Human-readable rendering of command results. JSON output is the serde form of the
//! same report types.

use super::term::Paint;
use mdgraph::model::diag::Diagnostic;
use mdgraph::{BuildReport, CheckReport, Shown};
use std::fmt::Write;

/// Diagnostics, one compiler-style line each (`path:line:col` bold, the severity red or
/// yellow when painting).
pub fn diagnostics(diags: &[Diagnostic], paint: Paint) -> String {
    let mut s = String::new();
    for d in diags {
        // The same text as Diagnostic's Display; painting off leaves it unchanged.
        let what = match d.severity {
            mdgraph::model::diag::Severity::Error => paint.error(&d.label()),
            mdgraph::model::diag::Severity::Warning => paint.warning(&d.label()),
        };
        let _ = writeln!(s, "{}: {what}: {}", paint.bold(&d.location()), d.message);
    }
    s
}

/// The one-line summary of an index run.
pub fn build_summary(r: &BuildReport) -> String {
    let c = &r.meta.counts;
    let tail = format!("{} errors, {} warnings", c.errors, c.warnings);
    if r.up_to_date {
        return format!(
            "index is up to date: {} files, {} documents, {} edges; {tail}",
            c.files, c.documents, c.edges
        );
    }
    let wrote = if r.written.is_empty() {
        "nothing changed".to_string()
    } else {
        format!("wrote {}", r.written.join(", "))
    };
    format!(
        "indexed {} files ({} parsed, {} unchanged): {} documents, {} sections, {} edges; {tail}; {wrote}",
        c.files, r.parsed, r.reused, c.documents, c.chunks, c.edges
    )
}

/// The summary line of a check.
pub fn check_summary(r: &CheckReport, paint: Paint) -> String {
    let state = if r.fresh { "index is fresh" } else { "index is STALE" };
    let verdict = if r.ok {
        paint.ok("check ok")
    } else {
        paint.error("check FAILED")
    };
    format!("{verdict}: {state}; {} errors, {} warnings", r.errors, r.warnings)
}

/// A node with its sections and edges.
pub fn shown(v: &Shown, paint: Paint) -> String {
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

/// A ranked table of search results: rank, id, type, state, title, matched section.
pub fn search_results(r: &mdgraph::SearchResults, paint: Paint) -> String {
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

fn type_label(h: &mdgraph::Hit) -> String {
    h.r#type.clone().unwrap_or_else(|| h.kind.as_str().to_string())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}
