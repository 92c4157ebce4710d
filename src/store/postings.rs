//! BM25 over sections, the way SQLite FTS5's `bm25()` computes it, over postings that
//! both search engines share.
//!
//! Each searchable row (a section) has three columns: its document's title, its heading
//! and its text. A query term's frequency in a row is Σ column weight × occurrences; the
//! row length is its token count over all columns; IDF is
//! `ln((N − n + 0.5) / (n + 0.5))`, floored at 1e-6; k1 = 1.2, b = 0.75. Contributions
//! are summed in query-term order, so scores are bit-identical to FTS5's (a test checks
//! this against the FTS5 table in the SQLite mirror).
//!
//! Scoring from postings in Rust costs a few nanoseconds per matching row, where FTS5's
//! `bm25()` costs about a microsecond; that is what keeps a broad query on 10,000 items
//! within milliseconds.

use crate::model::Node;
use crate::model::section::{self, SectionRow, section_name};
use crate::text::tokenize;
use rayon::prelude::*;
use std::collections::HashMap;

/// One row containing a term: its row number (0-based) and the term's count in the
/// title, heading and body columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// Row number, 0-based (the FTS5 rowid minus one).
    pub row: u32,
    /// Occurrences in title, heading, body.
    pub tf: [u32; 3],
}

/// Per-row statistics and the names needed to turn row numbers into results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Corpus {
    /// Tokens in each row, all columns.
    pub row_len: Vec<u32>,
    /// Document ordinal of each row (index into `docs`).
    pub row_doc: Vec<u32>,
    /// Section-name ordinal of each row (index into `names`).
    pub row_name: Vec<u32>,
    /// Normalized section names (`acceptance criteria`).
    pub names: Vec<String>,
    /// Document ids.
    pub docs: Strings,
    /// The place of each row in a rebuild's order (the order of chunk ids), which breaks
    /// ties between equal scores; empty when it is the row number (every rebuilt mirror).
    /// An edit that changes a document's sections leaves its old rows empty (a hole:
    /// length 0, document [`HOLE`]) and appends the new ones; their places follow the
    /// order a rebuild would give them, so ties break as in a rebuild.
    pub row_rank: Vec<u32>,
    /// Rows that are holes.
    pub holes: usize,
}

/// The document ordinal of a row that is a hole (see `Corpus::row_rank`).
pub const HOLE: u32 = u32::MAX;

/// Strings stored end to end in one buffer: a corpus's ten thousand document ids are one
/// allocation, and one copy out of the mirror (not ten thousand of each).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Strings {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<u32>,
}

impl Strings {
    /// Add `s` at the end.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    /// The `i`-th string; None past the end (or in damaged data).
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)? as usize,
        };
        self.text.get(start..*self.ends.get(i)? as usize)
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No strings.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The strings in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map_while(|i| self.get(i))
    }

    /// Stored form: the count, the ends, then the text (little-endian u32s).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = u32s_to_bytes(&[self.ends.len() as u32]);
        out.extend(u32s_to_bytes(&self.ends));
        out.extend_from_slice(self.text.as_bytes());
        out
    }

    /// The inverse of [`Strings::to_bytes`]; None when the bytes are not such a list
    /// (short, ends out of order or past the text, text not UTF-8).
    pub fn from_bytes(b: &[u8]) -> Option<Strings> {
        let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let ends = bytes_to_u32s(b.get(4..4 + n.checked_mul(4)?)?)?;
        let text = String::from_utf8(b[4 + 4 * n..].to_vec()).ok()?;
        let ordered = ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e as usize == text.len());
        ordered.then_some(Strings { text, ends })
    }
}

impl Corpus {
    /// Number of rows (FTS5's N): holes are not rows.
    pub fn rows(&self) -> usize {
        self.row_len.len() - self.holes
    }

    /// Row numbers run below this (holes included).
    pub fn slots(&self) -> usize {
        self.row_len.len()
    }

    /// Average row length (FTS5's avgdl).
    pub fn avgdl(&self) -> f64 {
        let total: u64 = self.row_len.iter().map(|&l| l as u64).sum();
        if self.rows() == 0 {
            1.0
        } else {
            total as f64 / self.rows() as f64
        }
    }

    /// The place of `row` in a rebuild's order, for breaking ties.
    pub fn rank(&self, row: u32) -> u32 {
        self.row_rank.get(row as usize).copied().unwrap_or(row)
    }

    /// Move a document's rows (its sections changed; both engines and the mirror do it
    /// this way): its `old` rows, one block of places in a rebuild's order, become holes,
    /// and a row is appended for each of `headings` (the new sections' headings, in id
    /// order), with length 0 (the caller indexes it), the document's ordinal, and the
    /// places of the old block, the later places moved by the difference. Returns the
    /// first new row; None, having changed nothing, when `old` is empty or not rows.
    pub fn move_rows(&mut self, old: &[u32], headings: &[&str]) -> Option<u32> {
        let &first = old.first()?;
        let ordinal = *self.row_doc.get(first as usize)?;
        let fits = ordinal != HOLE && old.iter().all(|&r| (r as usize) < self.slots());
        if !fits || self.slots() + headings.len() >= HOLE as usize {
            return None;
        }
        if self.row_rank.is_empty() {
            self.row_rank = (0..self.slots() as u32).collect();
        }
        let start = self.rank(first);
        for &r in old {
            let r = r as usize;
            (self.row_len[r], self.row_doc[r], self.row_name[r], self.row_rank[r]) = (0, HOLE, 0, u32::MAX);
            self.holes += 1;
        }
        let (was, now) = (old.len() as u32, headings.len() as u32);
        for r in self
            .row_rank
            .iter_mut()
            .filter(|r| **r != u32::MAX && **r >= start + was)
        {
            *r = *r - was + now;
        }
        let base = self.slots() as u32;
        for (i, heading) in headings.iter().enumerate() {
            let name = crate::model::section::section_name(heading);
            let n = match self.names.iter().position(|x| *x == name) {
                Some(n) => n,
                None => {
                    self.names.push(name);
                    self.names.len() - 1
                }
            };
            self.row_len.push(0);
            self.row_doc.push(ordinal);
            self.row_name.push(n as u32);
            self.row_rank.push(start + i as u32);
        }
        Some(base)
    }
}

/// A row's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowInfo {
    /// Chunk id (or the document id for a document without sections).
    pub chunk: String,
    /// Heading.
    pub heading: String,
}

/// Everything searchable, built from the nodes of an index.
#[derive(Debug, Default)]
pub struct Index {
    /// Row statistics.
    pub corpus: Corpus,
    /// Term → postings, rows ascending.
    pub postings: HashMap<String, Vec<Posting>>,
    /// Row identities.
    pub rows: Vec<RowInfo>,
}

/// The text of each document's title column, by document id.
fn titles(nodes: &[Node]) -> HashMap<&str, String> {
    nodes
        .iter()
        .filter(|n| !n.is_chunk())
        .map(|n| (n.id.as_str(), section::title_text(n)))
        .collect()
}

/// The title column's text of a document, by id ("" for an unknown one).
pub trait Titles: Sync {
    /// The title text of document `doc`.
    fn title(&self, doc: &str) -> &str;
}

impl Titles for HashMap<&str, String> {
    fn title(&self, doc: &str) -> &str {
        self.get(doc).map_or("", String::as_str)
    }
}

impl Titles for HashMap<String, String> {
    fn title(&self, doc: &str) -> &str {
        self.get(doc).map_or("", String::as_str)
    }
}

/// The index terms of each searchable row's title, heading and body (on all cores), as
/// SQLite's full-text table is given them.
pub fn row_terms(titles: &impl Titles, rows: &[SectionRow<'_>]) -> Vec<[Vec<String>; 3]> {
    rows.par_iter()
        .map(|r| {
            [
                tokenize::terms(titles.title(r.doc)),
                tokenize::terms(r.heading),
                tokenize::terms(r.chunk.text.as_deref().unwrap_or("")),
            ]
        })
        .collect()
}

/// The postings of one row's terms (title, heading, body), in first-seen term order.
pub fn row_postings(row: u32, terms: &[Vec<String>; 3]) -> Vec<(&str, Posting)> {
    let mut out: Vec<(&str, Posting)> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::new();
    for (col, list) in terms.iter().enumerate() {
        for t in list {
            let i = *slot.entry(t).or_insert_with(|| {
                out.push((t, Posting { row, tf: [0; 3] }));
                out.len() - 1
            });
            out[i].1.tf[col] += 1;
        }
    }
    out
}

/// Tokenize every section and build postings.
pub fn build(nodes: &[Node]) -> Index {
    index(nodes, &section::sections(nodes))
}

/// The postings and statistics of the searchable rows of `nodes` (as
/// [`section::sections`] gives them), tokenized on all cores.
pub fn index(nodes: &[Node], rows: &[SectionRow<'_>]) -> Index {
    index_rows(rows, &titles(nodes), PART_ROWS)
}

/// Rows tokenized by one task. A backlog's vocabulary is small next to its word count
/// (5,365 terms in 2.4 million words at 10k generated items), so joining the parts costs
/// little and many parts keep both cores busy to the end.
const PART_ROWS: usize = 1024;

/// Postings and statistics of `rows`: contiguous parts of `part_rows` rows are tokenized
/// and indexed on all cores, each under its own term numbering, and their posting lists
/// appended in row order, so the result is that of one pass over the rows.
fn index_rows(rows: &[SectionRow<'_>], titles: &impl Titles, part_rows: usize) -> Index {
    let mut postings: HashMap<String, Vec<Posting>> = HashMap::new();
    let mut table = RowTable::default();
    for part in parts(0, rows, titles, part_rows) {
        table.corpus.row_len.extend(part.row_len);
        for (term, list) in part.terms.into_iter().zip(part.lists) {
            match postings.entry(term) {
                std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().extend(list),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(list);
                }
            }
        }
    }
    table.add(rows);
    let infos = rows
        .iter()
        .map(|r| RowInfo {
            chunk: r.chunk.id.clone(),
            heading: r.heading.to_string(),
        })
        .collect();
    Index {
        corpus: table.corpus,
        postings,
        rows: infos,
    }
}

/// `rows` (the first numbered `first`) tokenized and indexed in parts of `part_rows`
/// rows on all cores, in row order.
fn parts(first: usize, rows: &[SectionRow<'_>], titles: &impl Titles, part_rows: usize) -> Vec<Part> {
    let part_rows = part_rows.max(1);
    rows.par_chunks(part_rows)
        .enumerate()
        .map(|(k, chunk)| Part::of(first + k * part_rows, chunk, titles))
        .collect()
}

/// The row statistics besides lengths: each row's document and section name, numbered in
/// order of first appearance.
#[derive(Default)]
struct RowTable {
    corpus: Corpus,
    doc_ord: HashMap<String, u32>,
    name_ord: HashMap<String, u32>,
}

impl RowTable {
    /// Number the next `rows`.
    fn add(&mut self, rows: &[SectionRow<'_>]) {
        let corpus = &mut self.corpus;
        for r in rows {
            let d = match self.doc_ord.get(r.doc) {
                Some(&d) => d,
                None => {
                    corpus.docs.push(r.doc);
                    let d = corpus.docs.len() as u32 - 1;
                    self.doc_ord.insert(r.doc.to_string(), d);
                    d
                }
            };
            let name = section_name(r.heading);
            let nlen = self.name_ord.len() as u32;
            let n = *self.name_ord.entry(name.clone()).or_insert_with(|| {
                corpus.names.push(name);
                nlen
            });
            corpus.row_doc.push(d);
            corpus.row_name.push(n);
        }
    }
}

/// The postings and row statistics of searchable rows given batch by batch in row order
/// (a rebuild of the mirror streaming the sidecar): posting lists are kept encoded as
/// [`encode`] writes them, a few bytes per posting, so the whole index is never held as
/// [`Posting`]s.
#[derive(Default)]
pub struct Gather {
    /// Term → (its last row, 0 before the first; the list so far, encoded).
    lists: HashMap<String, (u32, Vec<u8>)>,
    table: RowTable,
}

impl Gather {
    /// Index the next `rows` (numbered on from the rows given before).
    pub fn add(&mut self, rows: &[SectionRow<'_>], titles: &impl Titles) {
        let first = self.table.corpus.rows();
        for part in parts(first, rows, titles, PART_ROWS) {
            self.table.corpus.row_len.extend(part.row_len);
            for (term, list) in part.terms.into_iter().zip(part.lists) {
                // `encode`'s deltas run on from the list's last row (0 before the first).
                let (prev, out) = self.lists.entry(term).or_default();
                for p in &list {
                    for v in [p.row - *prev, p.tf[0], p.tf[1], p.tf[2]] {
                        put_varint(out, v);
                    }
                    *prev = p.row;
                }
            }
        }
        self.table.add(rows);
    }

    /// The encoded posting lists sorted by term, and the row statistics.
    pub fn finish(self) -> (Vec<(String, Vec<u8>)>, Corpus) {
        let mut lists: Vec<(String, Vec<u8>)> = self.lists.into_iter().map(|(t, (_, b))| (t, b)).collect();
        lists.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        (lists, self.table.corpus)
    }
}

/// A fast hasher for the words of one's own backlog (FxHash's mixing step: no defence
/// against chosen collisions, which only the backlog's author could choose). Looking
/// words up is most of the work of indexing them.
#[derive(Default, Clone, Copy)]
struct WordHash(u64);

impl std::hash::Hasher for WordHash {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0 ^ v).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.0 = (self.0 ^ u64::from_le_bytes(tail) ^ bytes.len() as u64).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        // The table takes its control bits from the top: fold the well-mixed middle in.
        self.0.rotate_left(26)
    }
}

type WordMap = HashMap<String, u32, std::hash::BuildHasherDefault<WordHash>>;

/// The postings of a contiguous run of rows, under the part's own term numbering.
#[derive(Default)]
struct Part {
    /// Word → term id: each distinct word is stemmed and allocated once per part.
    words: WordMap,
    /// Term → term id.
    ids: WordMap,
    /// Term id → term.
    terms: Vec<String>,
    /// Term id → postings, rows ascending.
    lists: Vec<Vec<Posting>>,
    /// Term id → the row (+1) it was last counted in and its slot in `row_tf`.
    seen: Vec<(u32, u32)>,
    /// The current row's terms and counts per column.
    row_tf: Vec<(u32, [u32; 3])>,
    /// Tokens of the current row.
    len: u32,
    /// Tokens of each row of the part.
    row_len: Vec<u32>,
}

impl Part {
    fn of(first: usize, rows: &[SectionRow<'_>], titles: &impl Titles) -> Part {
        let mut p = Part::default();
        // A document's rows are consecutive and share its title: tokenized once.
        let mut title_of: Option<&str> = None;
        let mut title_ids: Vec<u32> = Vec::new();
        for (k, r) in rows.iter().enumerate() {
            let row = (first + k) as u32;
            if title_of != Some(r.doc) {
                title_ids.clear();
                tokenize::each_word(titles.title(r.doc), |w| title_ids.push(p.term(w)));
                title_of = Some(r.doc);
            }
            for &id in &title_ids {
                p.count(row, id, 0);
            }
            tokenize::each_word(r.heading, |w| {
                let id = p.term(w);
                p.count(row, id, 1);
            });
            tokenize::each_word(r.chunk.text.as_deref().unwrap_or(""), |w| {
                let id = p.term(w);
                p.count(row, id, 2);
            });
            p.end_row(row);
        }
        p
    }

    /// The term id of a word (its stem's).
    fn term(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.words.get(word) {
            return id;
        }
        let stem = tokenize::stem(word);
        let id = match self.ids.get(&stem) {
            Some(&id) => id,
            None => {
                let id = self.terms.len() as u32;
                self.ids.insert(stem.clone(), id);
                self.terms.push(stem);
                self.lists.push(Vec::new());
                self.seen.push((0, 0));
                id
            }
        };
        self.words.insert(word.to_string(), id);
        id
    }

    /// One occurrence of term `id` in column `col` of `row`.
    fn count(&mut self, row: u32, id: u32, col: usize) {
        self.len += 1;
        let (last, slot) = &mut self.seen[id as usize];
        if *last == row + 1 {
            self.row_tf[*slot as usize].1[col] += 1;
        } else {
            *last = row + 1;
            *slot = self.row_tf.len() as u32;
            let mut tf = [0; 3];
            tf[col] = 1;
            self.row_tf.push((id, tf));
        }
    }

    fn end_row(&mut self, row: u32) {
        for &(id, tf) in &self.row_tf {
            self.lists[id as usize].push(Posting { row, tf });
        }
        self.row_tf.clear();
        self.row_len.push(std::mem::take(&mut self.len));
    }
}

/// Postings as bytes: per posting, LEB128 varints of the row delta and the three counts.
pub fn encode(postings: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 5);
    let mut prev = 0u32;
    for p in postings {
        for v in [p.row - prev, p.tf[0], p.tf[1], p.tf[2]] {
            put_varint(&mut out, v);
        }
        prev = p.row;
    }
    out
}

/// The inverse of `encode`; None on malformed bytes.
pub fn decode(mut b: &[u8]) -> Option<Vec<Posting>> {
    // A posting takes 4 to 20 bytes, most 4 or 5: sized once, not grown (each growth of a
    // long list is a copy into fresh pages the kernel must zero).
    let mut out = Vec::with_capacity(b.len() / 4);
    let mut row = 0u32;
    while !b.is_empty() {
        let delta = get_varint(&mut b)?;
        row = row.checked_add(delta)?;
        let tf = [get_varint(&mut b)?, get_varint(&mut b)?, get_varint(&mut b)?];
        out.push(Posting { row, tf });
    }
    Some(out)
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &mut &[u8]) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= ((byte & 0x7f) as u32).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// u32s as little-endian bytes.
pub fn u32s_to_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of `u32s_to_bytes`; None when the length is not a multiple of 4.
pub fn bytes_to_u32s(b: &[u8]) -> Option<Vec<u32>> {
    b.len().is_multiple_of(4).then(|| {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_rows_leave_holes_and_take_the_old_places() {
        // Five rows of documents 0..3; document 1 holds rows 1 and 2 and now brings three
        // sections.
        let mut c = Corpus {
            row_len: vec![5; 5],
            row_doc: vec![0, 1, 1, 2, 3],
            row_name: vec![0; 5],
            names: vec!["goal".into()],
            ..Corpus::default()
        };
        assert_eq!(c.move_rows(&[1, 2], &["Goal", "New  Part", "Notes"]), Some(5));
        assert_eq!((c.rows(), c.slots(), c.holes), (6, 8, 2));
        assert_eq!(c.row_doc, [0, HOLE, HOLE, 2, 3, 1, 1, 1]);
        assert_eq!(c.row_len, [5, 0, 0, 5, 5, 0, 0, 0]);
        assert_eq!(c.row_name[5..], [0, 1, 2]);
        assert_eq!(c.names, ["goal", "new part", "notes"]);
        // In a rebuild's order: row 0, the three new rows, then rows 3 and 4.
        let live: Vec<u32> = (0..8).filter(|&r| c.row_doc[r as usize] != HOLE).collect();
        let mut by_place = live.clone();
        by_place.sort_by_key(|&r| c.rank(r));
        assert_eq!(by_place, [0, 5, 6, 7, 3, 4]);
        assert_eq!(live.iter().map(|&r| c.rank(r)).max(), Some(5), "places stay 0..rows");
        // Then down to one row: the places close up.
        assert_eq!(c.move_rows(&[5, 6, 7], &[""]), Some(8));
        let mut by_place: Vec<u32> = (0..9).filter(|&r| c.row_doc[r as usize] != HOLE).collect();
        by_place.sort_by_key(|&r| c.rank(r));
        assert_eq!(by_place, [0, 8, 3, 4]);
        assert_eq!(c.rank(4), 3);
        assert_eq!(c.move_rows(&[1], &["x"]), None, "a hole is no document's row");
        assert_eq!(c.move_rows(&[], &["x"]), None);
    }

    #[test]
    fn strings_round_trip_and_refuse_damage() {
        let mut s = Strings::default();
        for id in ["A", "", "ü-2", "X@y/z"] {
            s.push(id);
        }
        let back = Strings::from_bytes(&s.to_bytes()).expect("round trip");
        assert_eq!(back.iter().collect::<Vec<_>>(), ["A", "", "ü-2", "X@y/z"]);
        assert_eq!(back.get(4), None);
        let b = s.to_bytes();
        // Truncated, a count past the end, ends out of order, a cut inside a character.
        assert_eq!(Strings::from_bytes(&b[..b.len() - 1]), None);
        assert_eq!(Strings::from_bytes(&[255, 255, 255, 255]), None);
        let mut unordered = b.clone();
        unordered[4..8].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(Strings::from_bytes(&unordered), None);
        // An end inside `ü` is no string (and no panic).
        let mut inside = b.clone();
        inside[8..12].copy_from_slice(&2u32.to_le_bytes());
        let cut = Strings::from_bytes(&inside).expect("ends in order");
        assert_eq!((cut.get(0), cut.get(1), cut.get(2)), (Some("A"), None, None));
    }

    #[test]
    fn postings_roundtrip() {
        let p = vec![
            Posting { row: 0, tf: [1, 0, 3] },
            Posting {
                row: 7,
                tf: [0, 200, 1],
            },
            Posting {
                row: 70_000,
                tf: [5, 5, 100_000],
            },
        ];
        assert_eq!(decode(&encode(&p)).unwrap(), p);
        assert_eq!(decode(&[0x80]), None, "truncated varint");
        assert_eq!(
            bytes_to_u32s(&u32s_to_bytes(&[1, 2, u32::MAX])).unwrap(),
            [1, 2, u32::MAX]
        );
    }

    /// Rows indexed in parts on all cores give what one pass of [`tokenize::terms`] over
    /// the rows gives, whatever the part size.
    #[test]
    fn parts_index_like_one_pass() {
        use crate::model::Kind;
        let doc = |id: &str, title: &str| Node {
            id: id.into(),
            kind: Kind::Doc,
            title: Some(title.into()),
            ..Node::default()
        };
        let chunk = |doc: &str, n: usize, heading: &str, text: &str| Node {
            id: format!("{doc}#{n}"),
            kind: Kind::Chunk,
            doc: Some(doc.into()),
            heading: Some(heading.into()),
            text: Some(text.into()),
            ..Node::default()
        };
        let mut nodes = vec![
            doc("A", "Resumable uploads of photos"),
            doc("B", "Offline sync"),
            doc("C", ""),
        ];
        for i in 0..7 {
            let body = format!("Uploads resumed after {i} retries; the upload RESUMES [see](x.md) café naïve {i}42");
            nodes.push(chunk("A", i, if i % 2 == 0 { "Context" } else { "Worklog" }, &body));
        }
        nodes.push(chunk("B", 0, "", "Sync sync SYNC syncing offline-first"));
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let rows = section::sections(&nodes);
        // The reference: every row's terms, counted one by one.
        let mut want: HashMap<String, Vec<Posting>> = HashMap::new();
        let mut row_len = Vec::new();
        for (i, cols) in row_terms(&titles(&nodes), &rows).iter().enumerate() {
            let mut tf: Vec<(&str, [u32; 3])> = Vec::new();
            for (c, col) in cols.iter().enumerate() {
                for t in col {
                    match tf.iter_mut().find(|(x, _)| x == t) {
                        Some((_, f)) => f[c] += 1,
                        None => {
                            let mut f = [0; 3];
                            f[c] = 1;
                            tf.push((t, f));
                        }
                    }
                }
            }
            for (t, f) in tf {
                want.entry(t.to_string())
                    .or_default()
                    .push(Posting { row: i as u32, tf: f });
            }
            row_len.push(cols.iter().map(|c| c.len() as u32).sum::<u32>());
        }
        assert!(want.contains_key("upload") && want.contains_key("sync"));
        for part_rows in [1, 2, 3, 5, 1024] {
            let got = index_rows(&rows, &titles(&nodes), part_rows);
            assert_eq!(got.postings, want, "parts of {part_rows} rows");
            assert_eq!(got.corpus.row_len, row_len);
            assert_eq!(got.corpus.docs.iter().collect::<Vec<_>>(), ["A", "B", "C"]);
            assert_eq!(got.rows.len(), rows.len());
        }
        // Gathered in batches of any size, encoded: the same lists and statistics.
        for batch in [1, 2, 4, 100] {
            let mut g = Gather::default();
            for b in rows.chunks(batch) {
                g.add(b, &titles(&nodes));
            }
            let (lists, corpus) = g.finish();
            let got: HashMap<String, Vec<Posting>> =
                lists.iter().map(|(t, b)| (t.clone(), decode(b).unwrap())).collect();
            assert_eq!(got, want, "batches of {batch} rows");
            assert!(lists.windows(2).all(|w| w[0].0 < w[1].0));
            assert_eq!(corpus, index_rows(&rows, &titles(&nodes), 1024).corpus);
        }
    }
}
