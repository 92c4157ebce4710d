//! `mdgraph site`: a static, self-contained HTML view of the index, written to a folder
//! (`<index>/site/` by default) that opens from `file://` with no network: an overview
//! (counts, epics with their roll-ups, ready work, hygiene), a board, a page per
//! document, a dependency graph per epic or feature, the decisions with their
//! supersedes chains, and a search over ids and titles.
//!
//! The backlog is untrusted input: its Markdown is sanitized by ammonia
//! (`markdown.rs`), every other text is escaped by maud's templates, and every page
//! carries a content security policy that lets only the site's own files load. An edit
//! rewrites only the pages it changes: each page's inputs are digested and a page whose
//! digest is unchanged is neither rendered nor written (`output.rs`); after a body edit
//! only the edited documents are read back from the index at all (`delta.rs`).
//!
//! `model.rs` reads the index once (documents, sections, edges by document, the backlog
//! `list`, `ready` and `tree` answer from); `shell.rs` is what every page shares;
//! `overview.rs`, `board.rs`, `item.rs`, `graphs.rs`, `decisions.rs` and `search.rs`
//! are the pages, `paged.rs` the pages of a long list's rest; `layout.rs` lays a graph
//! out in layers and `svg.rs` draws it.

mod board;
mod decisions;
mod delta;
mod graphs;
mod item;
mod layout;
mod markdown;
mod model;
mod output;
mod overview;
mod paged;
mod search;
mod shell;
mod svg;

use crate::api::Index;
use crate::error::Error;
use crate::timing::Timings;
use model::{Doc, Site};
use output::Out;
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Version of the JSON shape of `site`.
pub const SITE_SCHEMA: &str = "mdgraph.site/1";

/// Digests of the pages' inputs are salted with this: a new mdgraph renders every page.
const FORMAT: &str = concat!("mdgraph-site/1/", env!("CARGO_PKG_VERSION"));

/// The stylesheet and script every page uses.
const ASSETS: [(&str, &str); 2] = [
    ("assets/site.css", include_str!("assets/site.css")),
    ("assets/site.js", include_str!("assets/site.js")),
];

/// Pages rendered at a time before they are written.
const BATCH: usize = 256;

/// What a site run did.
#[derive(Debug, Clone, Serialize)]
pub struct SiteReport {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The folder written.
    pub dir: PathBuf,
    /// Files the site holds (pages, assets, data).
    pub pages: usize,
    /// Files written this run (their bytes changed), sorted.
    pub written: Vec<String>,
    /// Files of the last run no longer made (a deleted item), removed.
    pub removed: Vec<String>,
    /// Files left as they were.
    pub unchanged: usize,
    /// How long each step took (`-v` prints them).
    #[serde(skip)]
    pub timings: Timings,
}

/// Write the site of `index` into `out` (default: the index folder's `site/`).
pub fn build(index: &Index, out: Option<&Path>) -> Result<SiteReport, Error> {
    let mut t = Timings::default();
    let cfg = index.config();
    let dir = out.map_or_else(|| cfg.index_dir.join("site"), Path::to_path_buf);
    let mut out = Out::open(&dir)?;
    // The index and the state groups it was made from: when both are those of the last
    // run and its pages are all there, there is nothing to do.
    let stamp = {
        let mut h = blake3::Hasher::new();
        h.update(Index::digest(cfg).unwrap_or_default().as_bytes());
        h.update(format!("{:?}", cfg.states).as_bytes());
        salted(h.finalize())
    };
    if out.keep_all(&stamp) {
        t.mark("unchanged");
        return report(dir, out, &stamp, t);
    }
    // A few documents' files changed and nothing else: their pages alone.
    if delta::run(cfg, &mut out, &stamp, &mut t)? {
        return report(dir, out, &stamp, t);
    }
    delta::forget(&dir);
    let mut apart = crate::store::apart::load_apart(&cfg.index_dir).ok_or_else(|| crate::api::no_index(cfg))?;
    // The backlog hygiene `check` judges on the whole graph, beside the index's own.
    let mut hygiene = crate::query::backlog::hygiene(&apart.docs, &apart.edges, &cfg.states);
    cfg.settings.check.apply(&mut hygiene);
    apart.diagnostics.extend(hygiene);
    apart
        .diagnostics
        .sort_by(|a, b| (a.path.as_str(), a.line).cmp(&(b.path.as_str(), b.line)));
    t.mark("load");
    let site = Site::new(cfg, &apart);
    t.mark("model");
    for (page, text) in ASSETS {
        out.put(page, "-", text.as_bytes())?;
    }
    // The lists, decisions and search data show every document: rendered when any
    // document's summary, a structural edge or a diagnostic changed.
    const GLOBALS: [&str; 5] = [
        "index.html",
        "board.html",
        "decisions.html",
        "search.html",
        "assets/search-data.js",
    ];
    let key = salted(site.digest_all());
    if !(GLOBALS.iter().all(|p| out.keep(p, &key)) && out.keep_under("lists/", &key)) {
        let (overview, mut lists) = overview::render(&site);
        let (board, columns) = board::render(&site);
        lists.extend(columns);
        let globals = [
            overview,
            board,
            decisions::render(&site),
            search::render(),
            search::data(&site),
        ];
        for (page, text) in GLOBALS.iter().zip(&globals) {
            out.put(page, &key, text.as_bytes())?;
        }
        for (page, text) in &lists {
            out.put(page, &key, text.as_bytes())?;
        }
    }
    t.mark("lists");
    item_pages(&site, &mut out, &mut t)?;
    graph_pages(&site, &mut out, &mut t)?;
    delta::save(&dir, &stamp, cfg, &apart, &site)?;
    t.mark("save");
    report(dir, out, &stamp, t)
}

/// Finish the run: stale pages removed, the manifest written; what it did.
fn report(dir: PathBuf, out: Out, stamp: &str, mut t: Timings) -> Result<SiteReport, Error> {
    let (written, removed, unchanged) = out.finish(stamp)?;
    t.mark("finish");
    Ok(SiteReport {
        schema: SITE_SCHEMA,
        pages: written.len() + unchanged,
        dir,
        written,
        removed,
        unchanged,
        timings: t,
    })
}

/// A page's digest salted with [`FORMAT`], as hex.
fn salted(h: blake3::Hash) -> String {
    let mut s = blake3::Hasher::new();
    s.update(FORMAT.as_bytes());
    s.update(h.as_bytes());
    s.finalize().to_hex().to_string()
}

/// Render, on every core, the pages whose digest changed, and write them one after
/// another (files made side by side in one folder contend for it), a batch at a time.
fn write_all<'s, 'a, T: Send + Sync>(
    out: &mut Out,
    jobs: Vec<(&'s Doc<'a>, String, String, T)>,
    render: impl Fn(&'s Doc<'a>, &T) -> String + Sync,
) -> Result<(), Error> {
    let mut todo: Vec<_> = jobs
        .into_iter()
        .filter(|(_, page, key, _)| !out.keep(page, key))
        .collect();
    let dir = out.dir().to_path_buf();
    while !todo.is_empty() {
        let rest = todo.split_off(todo.len().min(BATCH));
        let batch = std::mem::replace(&mut todo, rest);
        let rendered: Vec<(String, String, String)> = batch
            .into_par_iter()
            .map(|(d, page, key, extra)| (page, key, render(d, &extra)))
            .collect();
        for (page, key, html) in rendered {
            let wrote = output::write_page(&dir, &page, html.as_bytes())?;
            out.record(page, key, wrote);
        }
    }
    Ok(())
}

fn item_pages(site: &Site, out: &mut Out, t: &mut Timings) -> Result<(), Error> {
    let docs: Vec<&Doc> = site.order.iter().filter_map(|id| site.docs.get(id)).collect();
    let jobs: Vec<_> = docs
        .par_iter()
        .map(|d| (*d, d.href.clone(), salted(item::key(site, d)), ()))
        .collect();
    t.mark("item digests");
    write_all(out, jobs, |d, _| item::render(site, d))?;
    t.mark("item pages");
    Ok(())
}

fn graph_pages(site: &Site, out: &mut Out, t: &mut Timings) -> Result<(), Error> {
    let jobs: Vec<_> = site
        .containers()
        .into_par_iter()
        .map(|d| (d, graphs::href(d), salted(graphs::key(site, d)), ()))
        .collect();
    t.mark("graph digests");
    write_all(out, jobs, |d, _| match site.backlog.tree(&d.node.id) {
        Some(tree) => graphs::render(d, &tree, &graphs::graph(site, &tree)),
        None => String::new(),
    })?;
    t.mark("graph pages");
    Ok(())
}
