//! The short cut of a run after a small edit: instead of reading the whole index again,
//! the site reads what the index says changed. The last full run saves, beside the
//! manifest, what every page shows of each document (its item and flags), the digest
//! of its record, its file's hash (as `meta.json` lists it) and where its lines sit in
//! the node file. The next run compares `meta.json`'s file hashes with those: when only
//! a few documents' files changed, their records (but for the file hash and token
//! count) are those saved, and the edges, diagnostics and settings are those of the
//! last run, then no other page can change. Only those documents are read again (the
//! node file's digest, a sum over lines, proves that nothing else in it changed), and
//! only their pages are rendered. Anything else takes the full path.

use super::item;
use super::model::{Site, record};
use super::output::{self, Out};
use super::salted;
use crate::config::Config;
use crate::error::Error;
use crate::model::backlog::{Group, Item};
use crate::model::{Kind, Node};
use crate::store::apart::{self, Apart, Block};
use crate::store::files::{self, DIAGNOSTICS, EDGES, LineDigest, NODES};
use crate::store::sidecar::{Meta, read_meta};
use crate::timing::Timings;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The saved documents, in the site's folder.
const CACHE: &str = ".model";
/// Its first word and version.
const MAGIC: &str = "#mdgraph-site-model 2";
/// Most documents an edit may change for the short cut to be taken.
const MOST: usize = 64;

/// What the site knows of one document between runs.
#[derive(Debug, Clone, PartialEq)]
struct View {
    item: Item,
    kind: Kind,
    line: Option<u32>,
    blocked: bool,
    waiting: bool,
    blocking: usize,
    /// Its file's content hash in `meta.json` (empty when none).
    file: String,
    /// [`record`] of its node.
    record: blake3::Hash,
    /// Where its lines were in the node file.
    block: Option<Block>,
}

/// What the saved documents were made from, the first line of the file.
#[derive(Debug, Clone, PartialEq)]
struct Head {
    /// The manifest's stamp they belong to.
    stamp: String,
    /// [`inputs`] of the run.
    inputs: String,
    /// The node file's digest.
    nodes: LineDigest,
}

/// A line of the saved documents, read as far as a run needs: id, path, file hash
/// and offset of its block (a whole [`View`] is read only for the documents an edit
/// shows).
struct Row<'t> {
    id: Cow<'t, str>,
    path: Cow<'t, str>,
    file: Cow<'t, str>,
    line: &'t str,
}

impl<'t> Row<'t> {
    fn new(line: &'t str) -> Option<Row<'t>> {
        let f: Vec<&str> = line.splitn(14, '\t').collect();
        Some(Row {
            id: field(f.first()?)?,
            path: field(f.get(2)?)?,
            file: field(f.get(12)?)?,
            line,
        })
    }
}

/// A field as written, unescaped when it needs to be.
fn field(s: &str) -> Option<Cow<'_, str>> {
    if s.contains('\\') {
        unescape(s).map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(s))
    }
}

/// What every page but the item pages depends on, besides the documents' records: the
/// site's format and assets, the state groups and check settings, the index settings,
/// edges and diagnostics (their output digests).
fn inputs(cfg: &Config, meta: &Meta) -> String {
    let mut h = blake3::Hasher::new();
    for (_, text) in super::ASSETS {
        h.update(text.as_bytes());
        h.update(&[0]);
    }
    let out = |name: &str| meta.outputs.get(name).map_or("", String::as_str);
    for s in [
        &format!("{:?}", cfg.states),
        &format!("{:?}", cfg.settings.check),
        &meta.config_digest,
        out(EDGES),
        out(DIAGNOSTICS),
    ] {
        h.update(s.as_bytes());
        h.update(&[0]);
    }
    salted(h.finalize())
}

/// Forget the saved documents: pages are about to be written that they may not
/// describe (a run cut short then leaves none, and the next run takes the full path).
pub fn forget(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(CACHE));
}

/// Save the documents of a full run made from `index` under `stamp`.
pub fn save(dir: &Path, stamp: &str, cfg: &Config, index: &Apart, site: &Site) -> Result<(), Error> {
    let Some(nodes) = index.meta.outputs.get(NODES).and_then(|h| LineDigest::parse(h)) else {
        return Ok(());
    };
    let views: Vec<View> = site
        .order
        .par_iter()
        .filter_map(|id| site.docs.get(id))
        .map(|d| View {
            item: d.item.clone(),
            kind: d.node.kind,
            line: d.node.line,
            blocked: d.blocked,
            waiting: d.waiting,
            blocking: d.blocking,
            file: index.meta.files.get(&d.node.path).cloned().unwrap_or_default(),
            record: record(d.node),
            block: index.blocks.get(&d.node.id).copied(),
        })
        .collect();
    let head = Head {
        stamp: stamp.to_string(),
        inputs: inputs(cfg, &index.meta),
        nodes,
    };
    let lines: Vec<String> = views.par_iter().map(View::to_line).collect();
    write(dir, &head, &lines)
}

fn write(dir: &Path, head: &Head, lines: &[String]) -> Result<(), Error> {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 256);
    text.push_str(&format!(
        "{MAGIC}\t{}\t{}\t{}\n",
        head.stamp,
        head.inputs,
        head.nodes.hex()
    ));
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    files::write_if_changed(&dir.join(CACHE), text.as_bytes())?;
    Ok(())
}

/// The saved documents' head and the text of their lines.
fn read(dir: &Path) -> Option<(Head, String)> {
    let text = std::fs::read_to_string(dir.join(CACHE)).ok()?;
    let (first, _) = text.split_once('\n')?;
    let [MAGIC, stamp, inputs, nodes] = first.split('\t').collect::<Vec<_>>()[..] else {
        return None;
    };
    let head = Head {
        stamp: stamp.to_string(),
        inputs: inputs.to_string(),
        nodes: LineDigest::parse(nodes)?,
    };
    let body = text[first.len() + 1..].to_string();
    Some((head, body))
}

impl View {
    fn to_line(&self) -> String {
        let i = &self.item;
        let opt = |s: &Option<String>| s.as_deref().map_or_else(|| "\\N".to_string(), escape);
        let block = self.block.map_or_else(
            || "-\t-\t-".to_string(),
            |b| format!("{}\t{}\t{}", b.at, b.len, b.digest.hex()),
        );
        [
            escape(&i.id),
            self.kind.as_str().to_string(),
            escape(&i.path),
            self.line.map_or_else(|| "-".to_string(), |l| l.to_string()),
            escape(&i.title),
            opt(&i.r#type),
            opt(&i.state),
            i.group.as_str().to_string(),
            opt(&i.parent),
            opt(&i.priority),
            // 1: blocked, 2: waiting for its turn.
            (u8::from(self.blocked) + 2 * u8::from(self.waiting)).to_string(),
            self.blocking.to_string(),
            escape(&self.file),
            self.record.to_hex().to_string(),
            block,
        ]
        .join("\t")
    }

    fn from_line(line: &str) -> Option<View> {
        let f: Vec<&str> = line.split('\t').collect();
        let [
            id,
            kind,
            path,
            at_line,
            title,
            ty,
            state,
            group,
            parent,
            priority,
            blocked,
            blocking,
            file,
            rec,
            at,
            len,
            digest,
        ] = f[..]
        else {
            return None;
        };
        let opt = |s: &str| if s == "\\N" { Some(None) } else { unescape(s).map(Some) };
        let block = match (at, len, digest) {
            ("-", "-", "-") => None,
            _ => Some(Block {
                at: at.parse().ok()?,
                len: len.parse().ok()?,
                digest: LineDigest::parse(digest)?,
            }),
        };
        Some(View {
            item: Item {
                id: unescape(id)?,
                path: unescape(path)?,
                title: unescape(title)?,
                r#type: opt(ty)?,
                state: opt(state)?,
                group: Group::ALL.into_iter().find(|g| g.as_str() == group)?,
                parent: opt(parent)?,
                priority: opt(priority)?,
            },
            kind: serde_json::from_value(serde_json::Value::String(kind.to_string())).ok()?,
            line: if at_line == "-" {
                None
            } else {
                Some(at_line.parse().ok()?)
            },
            blocked: blocked == "1",
            waiting: blocked == "2",
            blocking: blocking.parse().ok()?,
            file: unescape(file)?,
            record: blake3::Hash::from_hex(rec).ok()?,
            block,
        })
    }
}

/// A field of the cache: backslash, tab and line ends escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// Take the edit the short way when it can be (see the module doc); whether it was.
/// When it was not, the saved documents may be gone and nothing else was written.
pub fn run(cfg: &Config, out: &mut Out, stamp: &str, t: &mut Timings) -> Result<bool, Error> {
    let Some((head, body)) = read(out.dir()) else {
        return Ok(false);
    };
    if out.last_stamp() != Some(head.stamp.as_str()) {
        return Ok(false);
    }
    let Some(meta) = read_meta(&cfg.index_dir) else {
        return Ok(false);
    };
    if inputs(cfg, &meta) != head.inputs {
        return Ok(false);
    }
    let lines: Vec<&str> = body.lines().collect();
    let Some(rows) = lines.par_iter().map(|l| Row::new(l)).collect::<Option<Vec<_>>>() else {
        return Ok(false);
    };
    t.mark("edit: saved documents");
    let changed: Vec<View> = rows
        .iter()
        .filter(|r| meta.files.get(r.path.as_ref()).map(String::as_str) != Some(r.file.as_ref()))
        .filter_map(|r| View::from_line(r.line))
        .collect();
    // A decision's body may hold its date (`**Date:**`), which the decisions page shows.
    if changed.is_empty() || changed.len() > MOST || changed.iter().any(|v| v.kind == Kind::Adr) || !out.all_there() {
        return Ok(false);
    }
    let Some(mut wanted) = changed
        .iter()
        .map(|v| Some((v.item.id.as_str(), v.block?)))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(false);
    };
    wanted.sort_by_key(|(_, b)| b.at);
    t.mark("edit: pages there");
    forget(out.dir());
    let Some(mut part) = apart::load_delta(&cfg.index_dir, meta, head.nodes, &wanted) else {
        return Ok(false);
    };
    t.mark("edit: read");
    let by_id: HashMap<&str, &str> = rows.iter().map(|r| (r.id.as_ref(), r.line)).collect();
    let mut views: HashMap<String, View> = changed.iter().cloned().map(|v| (v.item.id.clone(), v)).collect();
    if part
        .docs
        .iter()
        .any(|d| views.get(&d.id).map(|v| v.record) != Some(record(d)))
    {
        return Ok(false);
    }
    for v in neighbours(&part, &by_id, &views) {
        part.docs.push(Node {
            id: v.item.id.clone(),
            kind: v.kind,
            path: v.item.path.clone(),
            line: v.line,
            ..Node::default()
        });
        views.insert(v.item.id.clone(), v);
    }
    part.docs.sort_by(|a, b| a.id.cmp(&b.id));
    let site = Site::partial(cfg, &part, |id| {
        views
            .get(id)
            .map(|v| (v.item.clone(), v.blocked, v.waiting, v.blocking))
    });
    let dir = out.dir().to_path_buf();
    for (id, _) in &wanted {
        let Some(d) = site.docs.get(id) else {
            continue;
        };
        let key = salted(item::key(&site, d));
        if !out.keep(&d.href, &key) {
            let wrote = output::write_page(&dir, &d.href, item::render(&site, d).as_bytes())?;
            out.record(d.href.clone(), key, wrote);
        }
    }
    out.keep_rest();
    t.mark("edit: pages");
    let Some(nodes) = part.meta.outputs.get(NODES).and_then(|h| LineDigest::parse(h)) else {
        return Ok(true);
    };
    let head = Head {
        stamp: stamp.to_string(),
        nodes,
        ..head
    };
    write(&dir, &head, &moved(&rows, &wanted, &part, &views))?;
    t.mark("edit: save");
    Ok(true)
}

/// The documents at the other end of the edges of `part` that `have` does not hold, as
/// their pages and graphs show them.
fn neighbours(part: &Apart, by_id: &HashMap<&str, &str>, have: &HashMap<String, View>) -> Vec<View> {
    let mut ends: BTreeMap<&str, &str> = BTreeMap::new();
    for e in &part.edges {
        for end in [e.source.as_str(), e.target.as_str()] {
            let found = by_id
                .get_key_value(end)
                .or_else(|| end.rsplit_once('#').and_then(|(d, _)| by_id.get_key_value(d)));
            if let Some((id, line)) = found
                && !have.contains_key(*id)
            {
                ends.insert(id, line);
            }
        }
    }
    ends.into_values().filter_map(View::from_line).collect()
}

/// The saved lines after the edit: the changed documents' views with their new file
/// hashes and blocks, every other block moved by how much the changed blocks before it
/// grew.
fn moved(rows: &[Row], wanted: &[(&str, Block)], part: &Apart, views: &HashMap<String, View>) -> Vec<String> {
    let growth: Vec<(u64, i64)> = wanted
        .iter()
        .filter_map(|(id, old)| Some((old.at, part.blocks.get(*id)?.len as i64 - old.len as i64)))
        .collect();
    rows.par_iter()
        .map(|r| {
            if let (Some(new), Some(v)) = (part.blocks.get(r.id.as_ref()), views.get(r.id.as_ref())) {
                let mut v = v.clone();
                v.block = Some(*new);
                v.file = part.meta.files.get(&v.item.path).cloned().unwrap_or_default();
                return v.to_line();
            }
            let mut f: Vec<&str> = r.line.split('\t').collect();
            let Some(at) = f.get(14).and_then(|a| a.parse::<u64>().ok()) else {
                return r.line.to_string();
            };
            let by: i64 = growth.iter().filter(|(from, _)| *from < at).map(|(_, g)| g).sum();
            if by == 0 {
                return r.line.to_string();
            }
            let at = ((at as i64) + by).to_string();
            f[14] = &at;
            f.join("\t")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_read_back_as_written() {
        let v = View {
            item: Item {
                id: "A\\1".into(),
                path: "x/a\tb.md".into(),
                title: "T\nU \\N".into(),
                r#type: None,
                state: Some("\\N".into()),
                group: Group::InProgress,
                parent: Some("P".into()),
                priority: None,
            },
            kind: Kind::WorkItem,
            line: Some(3),
            blocked: true,
            waiting: false,
            blocking: 2,
            file: "ab".into(),
            record: blake3::hash(b"r"),
            block: Some(Block {
                at: 10,
                len: 20,
                digest: LineDigest::of(b"x\n"),
            }),
        };
        assert_eq!(View::from_line(&v.to_line()), Some(v.clone()));
        let bare = View {
            block: None,
            line: None,
            ..v
        };
        assert_eq!(View::from_line(&bare.to_line()), Some(bare));
        assert_eq!(View::from_line("a\tb"), None);
        assert_eq!(unescape("a\\"), None);
    }
}
