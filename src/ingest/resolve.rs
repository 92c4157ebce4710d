//! Resolve: give every document a unique node id, turn raw references into edges between
//! node ids, find bare id mentions in section text, and report what does not resolve
//! (duplicates, dangling references, broken links, ambiguity, parent cycles).

use crate::config::Settings;
use crate::ingest::markdown::Section;
use crate::ingest::parse::{ParsedFile, file_stem, join_link};
use crate::ingest::resolved::FileEdges;
pub use crate::ingest::resolved::Resolved;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::{Edge, EdgeType, Graph, Kind, Node, Origin, RawRef, RefForm};
use crate::text::mentions::mention_candidates;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Build the graph from parsed files (any order; output is sorted).
/// The parsed files are consumed: their fields and section texts move into the nodes.
pub fn resolve(owned: Vec<ParsedFile>, s: &Settings) -> (Graph, Vec<Diagnostic>) {
    let (resolved, diags) = resolve_lean(owned, s);
    (resolved.into_graph(), diags)
}

/// [`resolve`] without making the nodes: the files under their node ids, each section's
/// chunk id and the edges between files, from which the sidecar is written.
pub fn resolve_lean(mut files: Vec<ParsedFile>, s: &Settings) -> (Resolved, Vec<Diagnostic>) {
    files.sort_by(|a, b| a.doc.path.cmp(&b.doc.path));
    let (ids, edges, diags) = link(&files.iter().collect::<Vec<_>>(), s);
    let hashed = ids_with_hash(&ids);
    let chunk_ids = files
        .iter()
        .zip(&ids)
        .map(|(f, id)| chunk_ids(id, &f.sections, &hashed))
        .collect();
    drop(hashed);
    for (f, id) in files.iter_mut().zip(ids) {
        f.doc.id = id;
    }
    (
        Resolved {
            files,
            chunk_ids,
            edges,
        },
        diags,
    )
}

/// Resolve the `changed` files among the others, given as `stubs`: documents holding
/// only what references resolve against (path, id as written, whether it is derived,
/// state, uid, line; no references, no sections). Returns the nodes and edges of the
/// changed files (sorted as `resolve` sorts them), and the diagnostics of their
/// references: what `resolve` over all files gives for them, as long as every stub is
/// what its file holds, and the stubs are all the other documents or those [`Wanted`]
/// picks. Not returned: duplicate ids and parent cycles, which depend on every file.
pub fn resolve_changed(stubs: Vec<ParsedFile>, changed: Vec<ParsedFile>, s: &Settings) -> (Graph, Vec<Diagnostic>) {
    let mut all: Vec<(bool, ParsedFile)> = stubs
        .into_iter()
        .map(|f| (false, f))
        .chain(changed.into_iter().map(|f| (true, f)))
        .collect();
    all.sort_by(|a, b| a.1.doc.path.cmp(&b.1.doc.path));
    let (ids, edges, mut diags) = link(&all.iter().map(|(_, f)| f).collect::<Vec<_>>(), s);
    diags.retain(|d| !matches!(d.code, Code::DuplicateId | Code::ParentCycle));
    let graph = build_graph(
        all.into_iter()
            .enumerate()
            .filter(|(_, (c, _))| *c)
            .map(|(i, (_, f))| (i, f)),
        &ids,
        edges,
    );
    (graph, diags)
}

/// The other documents that some changed files' references and mentions can reach (as
/// the resolver's lookup tables find them), so that [`resolve_changed`] needs stubs of
/// only these, not of every document: a document is wanted when its id, node id or file
/// stem is a key the files may look up, or its path one a link may lead to, or its node
/// id holds a `#` (a section's id must not take it). A superset: keys are compared
/// lowercase, whatever `ids.case_insensitive` says. Stubs must also hold every document
/// that shares its id with a wanted one or a changed one ([`Wanted::id_group`]), for the
/// node ids the resolver gives them.
#[derive(Debug, Default)]
pub struct Wanted {
    /// Lowercase: ids as written, node ids (`ID@…`) and their id parts, file stems.
    keys: HashSet<String>,
    /// Root-relative paths.
    paths: HashSet<String>,
}

impl Wanted {
    /// What the references and mentions of `files` may look up.
    pub fn of(files: &[ParsedFile], s: &Settings) -> Wanted {
        let aliases: Vec<(String, String)> = s
            .ids
            .prefix_aliases
            .iter()
            .map(|(k, v)| (k.to_lowercase(), v.clone()))
            .collect();
        let prefix: Vec<&str> = s.repo_prefix.split('/').filter(|c| !c.is_empty()).collect();
        let mut w = Wanted::default();
        for f in files {
            for r in f.doc.refs.as_deref().unwrap_or_default() {
                match r.form {
                    RefForm::Id => w.id(&r.target, &aliases),
                    RefForm::Path => w.paths.extend(link_paths(&r.target, &f.doc.path, &prefix).0),
                    RefForm::Wiki => {
                        // As `Lookup::resolve` tries it: an id, a path, a file stem.
                        let t = r.target.trim_start_matches("./").trim_start_matches('/');
                        w.id(t, &aliases);
                        w.paths.insert(t.to_string());
                        w.paths.insert(format!("{t}.md"));
                        let stem = t.rsplit('/').next().unwrap_or(t);
                        w.keys.insert(stem.strip_suffix(".md").unwrap_or(stem).to_lowercase());
                    }
                }
            }
            for sec in &f.sections {
                for (tok, _) in mention_candidates(&sec.text) {
                    w.id(tok, &aliases);
                }
            }
        }
        w
    }

    /// An id as the resolver looks it up: whole, by its part before `@`, and under an
    /// aliased prefix.
    fn id(&mut self, target: &str, aliases: &[(String, String)]) {
        let lower = target.to_lowercase();
        for (old, new) in aliases {
            if let Some(rest) = lower.strip_prefix(old.as_str()).and_then(|r| r.strip_prefix('-')) {
                self.exact(format!("{new}-{rest}").to_lowercase());
            }
        }
        self.exact(lower);
    }

    fn exact(&mut self, lower: String) {
        if let Some((id, _)) = lower.split_once('@') {
            self.keys.insert(id.to_string());
        }
        self.keys.insert(lower);
    }

    /// Whether the document at `path`, with the id `raw` as written and the node id
    /// `node`, may be reached.
    pub fn wants(&self, path: &str, raw: &str, node: &str) -> bool {
        node.contains('#')
            || self.paths.contains(path)
            || [raw, node, file_stem(path)]
                .into_iter()
                .any(|k| self.keys.contains(lowercase(k).as_ref()))
    }

    /// The key of the documents that share the id `raw` (as written) in the resolver's
    /// grouping of ids, or in more than it: the id, lowercase.
    pub fn id_group(raw: &str) -> std::borrow::Cow<'_, str> {
        lowercase(raw)
    }
}

/// `s` lowercase, borrowed when it already is (plain ASCII without capitals).
fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(s.to_lowercase())
    }
}

/// Ids, edges and diagnostics for files sorted by path.
fn link(files: &[&ParsedFile], s: &Settings) -> (Vec<String>, FileEdges, Vec<Diagnostic>) {
    let ci = s.ids.case_insensitive;
    let norm = |x: &str| if ci { x.to_lowercase() } else { x.to_string() };
    let mut diags = Vec::new();

    // 1. Unique ids.
    let mut by_raw: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        by_raw.entry(norm(raw_id(f))).or_default().push(i);
    }
    let mut ids: Vec<String> = files.iter().map(|f| raw_id(f).to_string()).collect();
    // A document claims its id when it declares it and its state does not yield.
    let yields = |f: &ParsedFile| {
        f.doc
            .state
            .as_deref()
            .is_some_and(|st| s.ids.yield_states.iter().any(|y| y.eq_ignore_ascii_case(st)))
    };
    let explicit = |f: &ParsedFile| !f.doc.id_derived && !yields(f);
    for group in by_raw.values().filter(|g| g.len() > 1) {
        // Files that declare the id claim it; files whose id only comes from their name
        // (README.md in every folder) step aside to `name@path` without complaint.
        let (claimed, derived): (Vec<usize>, Vec<usize>) = group.iter().partition(|&&i| explicit(files[i]));
        for &i in &derived {
            ids[i] = format!("{}@{}", raw_id(files[i]), files[i].doc.path);
        }
        if claimed.len() < 2 {
            continue;
        }
        let prefixes: Vec<Option<String>> = claimed
            .iter()
            .map(|&i| files[i].doc.uid.as_ref().map(|u| u.chars().take(8).collect()))
            .collect();
        let unique_uids =
            prefixes.iter().all(Option::is_some) && prefixes.iter().collect::<BTreeSet<_>>().len() == prefixes.len();
        for (n, &i) in claimed.iter().enumerate() {
            let f = files[i];
            let raw = raw_id(f);
            ids[i] = match (&prefixes[n], unique_uids) {
                (Some(p), true) => format!("{raw}@{p}"),
                _ => format!("{raw}@{}", f.doc.path),
            };
            let others: Vec<&str> = claimed
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| files[j].doc.path.as_str())
                .collect();
            diags.push(
                Diagnostic::new(
                    &f.doc.path,
                    f.doc.line.unwrap_or(1),
                    Severity::Error,
                    Code::DuplicateId,
                    format!(
                        "id `{raw}` is also declared by {}; this file is node `{}`",
                        others.join(", "),
                        ids[i]
                    ),
                )
                .about(raw),
            );
        }
    }
    // A raw id resolves to the files that claim it; name-derived ids only when unclaimed.
    for group in by_raw.values_mut() {
        if group.len() > 1 && group.iter().any(|&i| explicit(files[i])) {
            group.retain(|&i| explicit(files[i]));
        }
    }

    // Lookup tables for references.
    let mut by_node_id: HashMap<String, usize> = HashMap::new();
    let mut by_path: HashMap<&str, usize> = HashMap::new();
    let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        by_node_id.insert(norm(&ids[i]), i);
        by_path.insert(f.doc.path.as_str(), i);
        by_stem.entry(norm(file_stem(&f.doc.path))).or_default().push(i);
    }
    let lookup = Lookup {
        files,
        by_raw: &by_raw,
        by_node_id: &by_node_id,
        by_path: &by_path,
        by_stem: &by_stem,
        ci,
        repo_prefix: s.repo_prefix.split('/').filter(|c| !c.is_empty()).collect(),
        aliases: s
            .ids
            .prefix_aliases
            .iter()
            .map(|(k, v)| (k.to_lowercase(), v.clone()))
            .collect(),
    };

    // 2. Edges from references.
    let mut edges: FileEdges = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        for r in f.doc.refs.as_deref().unwrap_or_default() {
            let found = lookup.resolve(r, &f.doc.path);
            let t = match found {
                Found::One(t) => t,
                Found::Many(cands) => {
                    let names: Vec<&str> = cands.iter().map(|&c| ids[c].as_str()).collect();
                    diags.push(
                        Diagnostic::new(
                            &f.doc.path,
                            r.line,
                            Severity::Warning,
                            Code::AmbiguousReference,
                            format!(
                                "`{}` matches {} files ({}); using the first. Write `ID@` and a part of its path (or its uid) to choose",
                                r.target,
                                cands.len(),
                                names.join(", ")
                            ),
                        )
                        .about(&r.target),
                    );
                    cands[0]
                }
                Found::Outside => {
                    diags.push(
                        Diagnostic::new(
                            &f.doc.path,
                            r.line,
                            Severity::Warning,
                            Code::LinkOutsideRoot,
                            format!("link `{}` leads outside the root; ignored", r.target),
                        )
                        .about(&r.target),
                    );
                    continue;
                }
                Found::None(why) => {
                    let (sev, code) = match r.form {
                        RefForm::Id => (Severity::Error, Code::DanglingReference),
                        _ => (Severity::Warning, Code::BrokenLink),
                    };
                    let what = match &r.key {
                        Some(k) => format!("`{k}` refers to"),
                        None => "link to".to_string(),
                    };
                    diags.push(
                        Diagnostic::new(&f.doc.path, r.line, sev, code, format!("{what} `{}`, {why}", r.target))
                            .about(&r.target),
                    );
                    continue;
                }
            };
            if t == i && r.edge != EdgeType::Parent {
                continue;
            }
            let origin = if r.key.is_some() {
                Origin::Frontmatter
            } else {
                Origin::Body
            };
            edges
                .entry((i, r.edge, t))
                .or_insert((origin, r.line, f.doc.path.clone()));
        }
    }

    // 3. Mentions: known ids written in section text, unless a stronger edge exists.
    let linked: BTreeSet<(usize, usize)> = edges.keys().map(|&(a, _, b)| (a, b)).collect();
    let found: Vec<Vec<(usize, usize, u32)>> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            let mut buf = String::new();
            let mut hits = Vec::new();
            for sec in &f.sections {
                for (tok, line_off) in mention_candidates(&sec.text) {
                    if let Some(t) = lookup.mention(tok, &mut buf)
                        && t != i
                        && !linked.contains(&(i, t))
                    {
                        hits.push((i, t, sec.text_line + line_off));
                    }
                }
            }
            hits
        })
        .collect();
    let mut mentions: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for (a, b, line) in found.into_iter().flatten() {
        mentions.entry((a, b)).or_insert(line);
    }
    for ((a, b), line) in mentions {
        edges.insert(
            (a, EdgeType::Mentions, b),
            (Origin::Body, line, files[a].doc.path.clone()),
        );
    }

    // 4. Parent cycles.
    let parents: Vec<(usize, usize, u32)> = edges
        .iter()
        .filter(|((_, t, _), _)| *t == EdgeType::Parent)
        .map(|(&(a, _, b), (_, line, _))| (a, b, *line))
        .collect();
    for cycle in parent_cycles(files.len(), &parents, &ids) {
        let first = cycle[0];
        let line = parents.iter().find(|p| p.0 == first).map(|p| p.2).unwrap_or(1);
        let mut names: Vec<&str> = cycle.iter().map(|&c| ids[c].as_str()).collect();
        names.push(&ids[first]);
        diags.push(
            Diagnostic::new(
                &files[first].doc.path,
                line,
                Severity::Error,
                Code::ParentCycle,
                format!("parent cycle: {}", names.join(" → ")),
            )
            .about(names.join(" → ")),
        );
    }

    (ids, edges, diags)
}

/// Nodes (documents and their sections) and edges, sorted, of `files` (with their
/// numbers among all files, which `ids` and `edges` use).
pub(crate) fn build_graph(files: impl Iterator<Item = (usize, ParsedFile)>, ids: &[String], edges: FileEdges) -> Graph {
    let mut nodes = Vec::with_capacity(files.size_hint().0 * 7);
    let mut out_edges: Vec<Edge> = edges
        .into_iter()
        .map(|((a, t, b), (origin, line, path))| Edge {
            source: ids[a].clone(),
            target: ids[b].clone(),
            r#type: t,
            origin,
            path,
            line,
            weight: t.weight(),
        })
        .collect();
    let hashed = ids_with_hash(ids);
    for (i, f) in files {
        let mut doc = f.doc;
        doc.id = ids[i].clone();
        let chunks = chunk_ids(&doc.id, &f.sections, &hashed);
        for (sec, chunk_id) in f.sections.into_iter().zip(chunks) {
            out_edges.push(Edge {
                source: chunk_id.clone(),
                target: doc.id.clone(),
                r#type: EdgeType::SectionOf,
                origin: Origin::Structure,
                path: doc.path.clone(),
                line: sec.line,
                weight: EdgeType::SectionOf.weight(),
            });
            nodes.push(Node {
                id: chunk_id,
                kind: Kind::Chunk,
                path: doc.path.clone(),
                doc: Some(doc.id.clone()),
                heading: Some(sec.heading),
                level: Some(sec.level),
                line: Some(sec.line),
                text_line: Some(sec.text_line),
                tokens: Some(sec.tokens),
                text: Some(sec.text),
                ..Node::default()
            });
        }
        nodes.push(doc);
    }
    nodes.par_sort_unstable_by(|a, b| a.id.cmp(&b.id));
    out_edges.par_sort_unstable_by(|a, b| {
        (&a.source, a.r#type, &a.target, a.line).cmp(&(&b.source, b.r#type, &b.target, b.line))
    });
    Graph {
        nodes,
        edges: out_edges,
    }
}

/// Document ids that contain `#` (`id: X#goal`): a chunk id must not take one.
fn ids_with_hash(ids: &[String]) -> HashSet<&str> {
    ids.iter().filter(|id| id.contains('#')).map(String::as_str).collect()
}

/// The chunk ids of a document's sections. Section slugs are unique within the document:
/// a repeated heading gets `-2`, `-3`, … skipping any suffix another heading already took
/// ("Phase 2") and any that would make the id of another document (`hashed`). (Slugs hold
/// no `#`, so chunks of different documents never collide.)
fn chunk_ids(doc_id: &str, sections: &[Section], hashed: &HashSet<&str>) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    sections
        .iter()
        .map(|sec| {
            let base = slug(&sec.heading, sec.level);
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(name.clone()) || hashed.contains(format!("{doc_id}#{name}").as_str()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            format!("{doc_id}#{name}")
        })
        .collect()
}

fn raw_id(f: &ParsedFile) -> &str {
    f.doc.raw_id.as_deref().unwrap_or(&f.doc.id)
}

/// A chunk id slug: `Acceptance Criteria` → `acceptance-criteria`; text before the first
/// heading is `preamble`.
pub fn slug(heading: &str, level: u8) -> String {
    if level == 0 {
        return "preamble".into();
    }
    let mut out = String::new();
    for c in heading.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "section".into()
    } else {
        out.chars().take(80).collect()
    }
}

/// The root-relative paths a Markdown link `target` written in the file `from` may lead
/// to, in the order they are tried ([`Lookup::link`]), and whether the link read as
/// written (from the file, or from the top for `/`) stays inside the root: a missing file
/// inside the root is a broken link, one outside is outside.
fn link_paths(target: &str, from: &str, prefix: &[&str]) -> (Vec<String>, bool) {
    let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    let from_file = (!target.starts_with('/'))
        .then(|| join_link(prefix.iter().copied().chain(dir.split('/')), target))
        .flatten();
    let from_repo = join_link(std::iter::empty(), target);
    let from_root = join_link(std::iter::empty(), target);
    // Repository paths to root-relative ones (None: outside the root).
    let in_root = |p: &str| -> Option<String> {
        let mut rest = p;
        for c in prefix {
            rest = rest.strip_prefix(c)?;
            rest = match rest {
                "" => return None,
                r => r.strip_prefix('/')?,
            };
        }
        Some(rest.to_string())
    };
    let tried: Vec<String> = [
        from_file.as_deref().and_then(in_root),
        from_repo.as_deref().and_then(in_root),
        from_root.filter(|_| !prefix.is_empty()),
    ]
    .into_iter()
    .flatten()
    .filter(|p| !p.is_empty())
    .collect();
    let written = if target.starts_with('/') { from_repo } else { from_file };
    let inside = written.as_deref().and_then(in_root).is_some_and(|p| !p.is_empty());
    (tried, inside)
}

enum Found {
    One(usize),
    Many(Vec<usize>),
    None(String),
    /// A Markdown link that leads outside the root wherever it is read from.
    Outside,
}

struct Lookup<'a> {
    files: &'a [&'a ParsedFile],
    by_raw: &'a HashMap<String, Vec<usize>>,
    by_node_id: &'a HashMap<String, usize>,
    by_path: &'a HashMap<&'a str, usize>,
    by_stem: &'a HashMap<String, Vec<usize>>,
    ci: bool,
    /// The root's folders below the repository root ([`Settings::repo_prefix`]).
    repo_prefix: Vec<&'a str>,
    /// Lowercase old prefix → new prefix (without the `-`).
    aliases: Vec<(String, String)>,
}

impl Lookup<'_> {
    fn norm(&self, x: &str) -> String {
        if self.ci { x.to_lowercase() } else { x.to_string() }
    }

    /// Resolve `r`, written in the file at root-relative path `from`.
    fn resolve(&self, r: &RawRef, from: &str) -> Found {
        match r.form {
            RefForm::Id => self.by_id(&r.target),
            RefForm::Path => self.link(&r.target, from),
            RefForm::Wiki => {
                let t = r.target.trim_start_matches("./").trim_start_matches('/');
                if let Found::One(i) = self.by_id(t) {
                    return Found::One(i);
                }
                for p in [t.to_string(), format!("{t}.md")] {
                    if let Some(&i) = self.by_path.get(p.as_str()) {
                        return Found::One(i);
                    }
                }
                let stem = t.rsplit('/').next().unwrap_or(t);
                let stem = stem.strip_suffix(".md").unwrap_or(stem);
                match self.by_stem.get(&self.norm(stem)).map(Vec::as_slice) {
                    Some([i]) => Found::One(*i),
                    Some(many) if many.len() > 1 => Found::Many(many.to_vec()),
                    _ => match self.by_id(t) {
                        Found::Many(m) => Found::Many(m),
                        _ => Found::None("no file has that id, path or name".into()),
                    },
                }
            }
        }
    }

    /// A Markdown link from `from`: relative to the linking file, then to the repository
    /// root, then to the root; a target starting with `/` from the repository root, then
    /// the root. Paths are joined in the repository (so `../backlog/x.md` from the root's
    /// top folder comes back in) and must end inside the root.
    fn link(&self, target: &str, from: &str) -> Found {
        let (tried, inside) = link_paths(target, from, &self.repo_prefix);
        if let Some(&i) = tried.iter().find_map(|p| self.by_path.get(p.as_str())) {
            return Found::One(i);
        }
        if !inside {
            return Found::Outside;
        }
        let mut names: Vec<String> = Vec::new();
        for p in tried {
            if !names.contains(&p) {
                names.push(p);
            }
        }
        let names: Vec<String> = names.iter().map(|p| format!("`{p}`")).collect();
        Found::None(format!("no such file under the root (tried {})", names.join(", ")))
    }

    /// An id, a node id (`ID@uid…`, `ID@path`) or `ID@fragment` (a uid prefix or a
    /// part of the path); or the same id under an aliased prefix (`task-12` → `back-12`).
    fn by_id(&self, target: &str) -> Found {
        let found = self.by_id_exact(target);
        if !matches!(found, Found::None(_)) {
            return found;
        }
        let lower = target.to_lowercase();
        for (old, new) in &self.aliases {
            if let Some(rest) = lower.strip_prefix(old.as_str()).and_then(|r| r.strip_prefix('-')) {
                let renamed = self.by_id_exact(&format!("{new}-{rest}"));
                if !matches!(renamed, Found::None(_)) {
                    return renamed;
                }
            }
        }
        found
    }

    fn by_id_exact(&self, target: &str) -> Found {
        if let Some(&i) = self.by_node_id.get(&self.norm(target)) {
            // A unique raw id or an exact disambiguated node id.
            if self.by_raw.get(&self.norm(target)).is_none_or(|g| g.len() == 1) {
                return Found::One(i);
            }
        }
        let (id, uid) = match target.split_once('@') {
            Some((a, b)) => (a, Some(b)),
            None => (target, None),
        };
        let Some(cands) = self.by_raw.get(&self.norm(id)) else {
            return Found::None("no file has that id".into());
        };
        match uid {
            None if cands.len() == 1 => Found::One(cands[0]),
            None => Found::Many(cands.clone()),
            Some(u) => {
                let u = u.to_lowercase();
                let hits: Vec<usize> = cands
                    .iter()
                    .copied()
                    .filter(|&c| {
                        let doc = &self.files[c].doc;
                        doc.uid.as_ref().is_some_and(|x| x.to_lowercase().starts_with(&u))
                            || doc.path.to_lowercase().contains(&u)
                    })
                    .collect();
                match hits.as_slice() {
                    [one] => Found::One(*one),
                    [] => Found::None(format!(
                        "no file with id `{id}` has a uid starting with `{u}` or a path containing it"
                    )),
                    _ => Found::Many(hits),
                }
            }
        }
    }

    /// A bare mention resolves only to a unique id (never to paths or names). `buf` is
    /// scratch space so the hot loop does not allocate per token.
    fn mention(&self, tok: &str, buf: &mut String) -> Option<usize> {
        if tok.contains('@') {
            return match self.by_id(tok) {
                Found::One(i) => Some(i),
                _ => None,
            };
        }
        let key = if self.ci {
            buf.clear();
            buf.extend(tok.chars().flat_map(char::to_lowercase));
            buf.as_str()
        } else {
            tok
        };
        match self.by_raw.get(key).map(Vec::as_slice) {
            Some([one]) => Some(*one),
            Some(_) => None,
            // An aliased prefix (rare path: only tokens that are not ids).
            None if !self.aliases.is_empty() => match self.by_id(tok) {
                Found::One(i) => Some(i),
                _ => None,
            },
            None => None,
        }
    }
}

/// Cycles among `parent` edges, each listed once starting at its smallest node id.
fn parent_cycles(n: usize, parents: &[(usize, usize, u32)], ids: &[String]) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b, _) in parents {
        adj[a].push(b);
    }
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut cycles: BTreeMap<Vec<usize>, ()> = BTreeMap::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        // Iterative DFS keeping the current path.
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        state[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if *next < adj[v].len() {
                let w = adj[v][*next];
                *next += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                        path.push(w);
                    }
                    1 => {
                        let pos = path.iter().position(|&x| x == w).unwrap_or(0);
                        let mut cyc = path[pos..].to_vec();
                        let min = (0..cyc.len())
                            .min_by(|&a, &b| ids[cyc[a]].cmp(&ids[cyc[b]]))
                            .unwrap_or(0);
                        cyc.rotate_left(min);
                        cycles.insert(cyc, ());
                    }
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
                path.pop();
            }
        }
    }
    cycles.into_keys().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates() {
        let got: Vec<(&str, u32)> =
            mention_candidates("See QRY-TSK-0011. And (ADR-0004's)\n```\nX-1\n```\nv2 and 2026-01-05 and a@b\n");
        assert_eq!(got, vec![("QRY-TSK-0011", 0), ("ADR-0004", 0), ("v2", 4)]);
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Acceptance Criteria", 1), "acceptance-criteria");
        assert_eq!(slug("Risks / Dependencies", 1), "risks-dependencies");
        assert_eq!(slug("", 0), "preamble");
        assert_eq!(slug("!!!", 2), "section");
    }

    #[test]
    fn repeated_headings_get_unique_chunk_ids() {
        // Regression: "Phase 2", "Phase", "Phase" gave `#phase-2` twice.
        let s = crate::config::Settings::default();
        let p = crate::ingest::parse::parse_file(
            "t.md",
            "h",
            "---\nid: T-1\n---\n## Phase 2\na\n## Phase\nb\n## Phase\nc\n## Phase\nd\n",
            &s,
        );
        let (g, _) = resolve(vec![p], &s);
        let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["T-1", "T-1#phase", "T-1#phase-2", "T-1#phase-3", "T-1#phase-4"]);
    }

    #[test]
    fn chunk_ids_never_take_a_document_id() {
        // Regression (fuzz): a document with `id: deep#approach` and a document `deep`
        // with an "Approach" section made two nodes `deep#approach`.
        let s = crate::config::Settings::default();
        let a = crate::ingest::parse::parse_file("x.md", "h", "---\nid: deep#approach\n---\ntext\n", &s);
        let b = crate::ingest::parse::parse_file("deep.md", "h", "# Approach\na\n", &s);
        let (g, _) = resolve(vec![a, b], &s);
        let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            ["deep", "deep#approach", "deep#approach#preamble", "deep#approach-2"]
        );
        let chunk = g.nodes.iter().find(|n| n.id == "deep#approach-2").unwrap();
        assert_eq!(chunk.doc.as_deref(), Some("deep"));
    }

    #[test]
    fn prefix_aliases_find_renamed_ids() {
        let mut s = crate::config::Settings::default();
        s.ids.prefix_aliases.insert("task".into(), "back".into());
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p("back-12 - A.md", "---\nid: BACK-12\n---\n# A\n"),
            p(
                "back-13 - B.md",
                "---\nid: BACK-13\ndependencies: [task-12, task-99]\n---\nSee TASK-12.\n",
            ),
        ];
        let (g, d) = resolve(files, &s);
        assert!(
            g.edges
                .iter()
                .any(|e| e.source == "BACK-13" && e.target == "BACK-12" && e.r#type == EdgeType::DependsOn)
        );
        // The body mention of TASK-12 is the same document, already linked: no extra edge.
        assert_eq!(
            g.edges
                .iter()
                .filter(|e| e.source == "BACK-13" && e.target == "BACK-12")
                .count(),
            1
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("task-99"));
    }

    #[test]
    fn yielding_states_step_aside() {
        let mut s = crate::config::Settings::default();
        s.ids.yield_states.push("Moved".into());
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p("EIPS/eip-20.md", "---\nid: 20\nstatus: Moved\n---\nMoved.\n"),
            p("ERCS/erc-20.md", "---\nid: 20\nstatus: Final\n---\n# Token\n"),
            p("ERCS/erc-777.md", "---\nid: 777\nrequires: 20\n---\n# X\n"),
        ];
        let (g, d) = resolve(files, &s);
        assert!(d.is_empty(), "{d:?}");
        let dep = g
            .edges
            .iter()
            .find(|e| e.source == "777" && e.r#type == EdgeType::DependsOn)
            .unwrap();
        assert_eq!(dep.target, "20");
        let node = g.nodes.iter().find(|n| n.id == "20").unwrap();
        assert_eq!(node.path, "ERCS/erc-20.md");
    }

    #[test]
    fn links_resolve_from_the_file_then_the_repository_root() {
        // The root is `backlog/` in the repository: links may be written from the file,
        // from the repository root (with or without `/`), or climb out and back in.
        let s = crate::config::Settings {
            repo_prefix: "backlog".into(),
            ..Default::default()
        };
        let p = |path: &str, text: &str| crate::ingest::parse::parse_file(path, "h", text, &s);
        let files = vec![
            p(
                "docs/a/b.md",
                "[1](docs/c.md)\n[2](/backlog/docs/c.md)\n[3](backlog/docs/c.md)\n\
                 [4](../../../backlog/docs/c.md)\n[5](c2.md)\n[6](/docs/c.md)\n[7](../../../README.md)\n[8](nowhere.md)\n",
            ),
            p("docs/c.md", "# C\n"),
            p("docs/a/c2.md", "# C2\n"),
        ];
        let (g, d) = resolve(files, &s);
        let targets: Vec<(&str, u32)> = g
            .edges
            .iter()
            .filter(|e| e.source == "b")
            .map(|e| (e.target.as_str(), e.line))
            .collect();
        // Lines 1–4 and 6 are the same file: one edge, at the first line.
        assert_eq!(targets, [("c", 1), ("c2", 5)]);
        let got: Vec<(u32, Code)> = d.iter().map(|x| (x.line, x.code)).collect();
        assert_eq!(got, [(7, Code::LinkOutsideRoot), (8, Code::BrokenLink)], "{d:?}");
        assert!(d[1].message.contains("`docs/a/nowhere.md`"), "{}", d[1].message);
    }

    #[test]
    fn cycle_found_once() {
        let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let c = parent_cycles(3, &[(0, 1, 1), (1, 2, 1), (2, 0, 1)], &ids);
        assert_eq!(c, vec![vec![0, 1, 2]]);
        let self_loop = parent_cycles(3, &[(1, 1, 1)], &ids);
        assert_eq!(self_loop, vec![vec![1]]);
    }
}
