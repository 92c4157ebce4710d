//! Pack: the ranked results fitted into a token budget as a Markdown document ready to
//! paste into a prompt, saying for every item why it is there and how it relates to the
//! rest of the backlog.
//!
//! Answer first, then breadth. The best item gets generous but bounded room (up to
//! [`FIRST_SHARE`] of the budget); then every further item gets its header, its relations
//! line and its most relevant section (cut at a line boundary when the section alone is
//! larger than an item's share); then the room left deepens the items in rank order with
//! their further sections. An item whose text fits nowhere becomes a one-line reference,
//! the last resort; what does not fit at all is counted under "Not included". A
//! navigation page is only ever a reference unless the query names its id.
//!
//! Every line is counted with the index's tokenizer (o200k by default): section texts
//! and document headers from the counts stored at index time, everything made at pack
//! time (relations, reasons, the title, the stats line) as it is printed, and `used` is
//! the count of the whole emitted Markdown.

use crate::model::EdgeType;
use crate::query::search::{Engine, Hit, SectionText, Why};
use crate::text::render;
use crate::text::tokens::{self, JOIN, Tokenizer};
use serde::Serialize;
use std::cell::{Cell, OnceCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Version of the pack's JSON shape (`schema` field).
pub const SCHEMA: &str = "mdgraph.pack/2";

/// Share of the budget the best item may take.
pub const FIRST_SHARE: f64 = 0.35;
/// Share of the budget any further item may take before every item has had its turn
/// (at least [`ITEM_FLOOR`] tokens). Small shares fit more of the load-bearing
/// neighbors: on the EIPs at 4000 tokens, 6 % names 82 % of the graded documents
/// with text, 12 % 80 % (EVAL.md).
const ITEM_SHARE: f64 = 0.06;
/// Fewest tokens a further item may take in its turn: below this an excerpt is too
/// short to carry its point.
const ITEM_FLOOR: u32 = 150;
/// At most this many targets of one relation are listed; the rest are counted.
pub const MAX_TARGETS: usize = 8;

/// How much of an item is in the pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every section.
    Full,
    /// The most relevant sections (the last one possibly cut).
    Excerpt,
    /// The header and the reason only.
    Reference,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Excerpt => "excerpt",
            Mode::Reference => "reference",
        }
    }
}

/// One relation of an item, as its relations line shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Relation {
    /// The relation as read from the item (`parent`, `blocked_by`, `blocks`, `depends_on`,
    /// `required_by`, `decisions`, `decides`, `supersedes`, `superseded_by`, `children`).
    pub rel: &'static str,
    /// The other document.
    pub id: String,
    /// Its state, when it has one.
    pub state: Option<String>,
}

/// One item of a pack.
#[derive(Debug, Clone, Serialize)]
pub struct PackItem {
    /// Node id.
    pub id: String,
    /// Root-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Type or kind.
    pub r#type: Option<String>,
    /// State.
    pub state: Option<String>,
    /// How much is included.
    pub mode: Mode,
    /// Tokens of its Markdown in the pack (`text`).
    pub tokens: u32,
    /// Sections included (chunk ids), in document order.
    pub sections: Vec<String>,
    /// Its frontmatter relations with their targets' states: at most [`MAX_TARGETS`] of
    /// each relation, as the relations line names them.
    pub relations: Vec<Relation>,
    /// How many further targets each relation has beyond those listed (`"children": 92`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub relations_more: BTreeMap<&'static str, usize>,
    /// Why it is here.
    pub why: Why,
    /// The item as the Markdown pack prints it.
    pub text: String,
}

/// A relevant item that did not fit.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    /// Node id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Why it was relevant.
    pub why: Why,
}

/// A context pack.
#[derive(Debug, Clone, Serialize)]
pub struct Pack {
    /// Name and version of this JSON shape.
    pub schema: &'static str,
    /// The query.
    pub query: String,
    /// The budget in tokens.
    pub budget: u32,
    /// Tokens of the emitted Markdown, counted with `tokenizer` (never above the budget).
    pub used: u32,
    /// Counter the sizes come from.
    pub tokenizer: Tokenizer,
    /// Items in rank order.
    pub items: Vec<PackItem>,
    /// Ranked candidates that did not fit, in rank order (the Markdown's "not included").
    pub not_included: Vec<Omitted>,
    /// The pack as Markdown.
    #[serde(skip)]
    pub markdown: String,
}

/// Largest budget honoured (about a billion tokens); larger ones are clamped to it, so the
/// token arithmetic cannot overflow.
pub const MAX_BUDGET: u32 = u32::MAX / 4;

/// A candidate as the packer sees it.
#[derive(Clone)]
struct Cand<'a> {
    hit: &'a Hit,
    /// Header, relations line and reason line, and their tokens: alone, and followed by
    /// a blank line (see [`with_sep`]). What is fixed for the candidate (behind `Rc`) is
    /// shared by the copies each round of the fit allocates.
    head: Rc<str>,
    head_cost: u32,
    head_blank: u32,
    relations: Rc<[Relation]>,
    relations_more: Rc<BTreeMap<&'static str, usize>>,
    sections: Rc<Vec<SectionText>>,
    /// Counts made for the sections, shared as they are.
    counts: Rc<Counts>,
    /// Section indexes, most relevant first.
    order: Rc<[usize]>,
    /// Chosen sections: index and, when cut, the cut text and its tokens.
    chosen: Vec<(usize, Option<(String, u32)>)>,
    included: bool,
    cost: u32,
}

impl Cand<'_> {
    fn mode(&self) -> Mode {
        if self.chosen.is_empty() {
            Mode::Reference
        } else if self.chosen.len() == self.sections.len() && self.chosen.iter().all(|(_, cut)| cut.is_none()) {
            Mode::Full
        } else {
            Mode::Excerpt
        }
    }
}

/// Fit `results` into `budget` tokens (at most [`MAX_BUDGET`]).
pub fn pack(engine: &dyn Engine, query: &str, results: &[Hit], budget: u32, tokenizer: Tokenizer) -> Pack {
    fit(engine, query, results, budget.min(MAX_BUDGET), tokenizer)
}

/// The pack that fills `budget` best.
fn fit(engine: &dyn Engine, query: &str, results: &[Hit], budget: u32, tokenizer: Tokenizer) -> Pack {
    let count = |s: &str| tokens::count_cached(tokenizer, s);
    let title = format!("# Context pack: {}", render::one_line(query));
    // Title, stats line (its longest form), the joins and the final newline.
    let stats_reserve = count(&stats_line(budget, 99_999_999, [99_999; 4]));
    let fixed = count(&title) + JOIN + stats_reserve + JOIN;
    let mut cands: Vec<Cand> = results
        .iter()
        .filter_map(|h| candidate(engine, h, query, tokenizer))
        .collect();
    if fixed > budget {
        return render_pack(query, budget, tokenizer, &title, &mut cands, true, true);
    }
    // Allocate for a target and render; the target that fills the budget best without
    // going over is searched for (as aider fits its repository map): what the allocation
    // cannot see exactly (the "Not included" list, a mode word) is settled by counting
    // the rendered pack. The real count grows about one for one with the target, so each
    // round guesses by interpolating between the closest targets below and above the
    // budget instead of halving the bracket: the same largest fitting target in fewer
    // renders (at 10k items pack p50 33.6 → 29.6 ms, identical output; stopping at the
    // first render within 0.5 % saved 2 ms more but lost Backlog.md content recall).
    // A round counts its pack without writing it; the pack kept is written at the end.
    let attempt = |target: u32| {
        let mut cands = cands.clone();
        let mut used = fixed;
        allocate(&mut cands, target, &mut used, tokenizer);
        let p = render_pack(query, budget, tokenizer, &title, &mut cands, false, false);
        (p, cands)
    };
    let write =
        |(_, mut cands): (Pack, Vec<Cand>)| render_pack(query, budget, tokenizer, &title, &mut cands, false, true);
    let first = attempt(budget);
    if first.0.not_included.is_empty() && first.0.used <= budget {
        return write(first);
    }
    // (target, used) of the closest rounds under and over the budget.
    let mut under: (u32, u32) = (fixed, fixed);
    let mut over: Option<(u32, u32)> = None;
    let mut best: Option<(Pack, Vec<Cand>)> = None;
    if first.0.used <= budget {
        under = (budget, first.0.used);
        if first.0.used >= budget - budget / 100 {
            return write(first);
        }
        best = Some(first);
    } else {
        over = Some((budget, first.0.used));
    }
    let ceiling = budget.saturating_mul(2).min(MAX_BUDGET);
    for _ in 0..8 {
        let hi = over.map_or(ceiling, |o| o.0);
        if hi <= under.0 + 1 {
            break;
        }
        let want = u64::from(budget - under.1);
        let guess = match over {
            Some((t, u)) if u > under.1 => u64::from(under.0) + want * u64::from(t - under.0) / u64::from(u - under.1),
            _ => u64::from(under.0) + want,
        };
        let mid = u32::try_from(guess).unwrap_or(hi).clamp(under.0 + 1, hi - 1);
        let p = attempt(mid);
        if p.0.used <= budget {
            under = (mid, p.0.used);
            if best.as_ref().is_none_or(|b| p.0.used > b.0.used) {
                best = Some(p);
            }
        } else {
            over = Some((mid, p.0.used));
        }
    }
    write(best.unwrap_or_else(|| attempt(fixed)))
}

/// Choose what each candidate contributes, in the passes the module doc describes.
fn allocate(cands: &mut [Cand], budget: u32, used: &mut u32, tokenizer: Tokenizer) {
    let share = |f: f64| (budget as f64 * f) as u32;
    // Room kept for the "Not included" list, used only if something is left out.
    let list_reserve = if cands.len() > 1 { (budget / 20).min(200) } else { 0 };
    let room = |used: u32| budget.saturating_sub(used + list_reserve);
    // 1. The answer: header, then its sections in order of relevance, up to its share.
    // 2. Breadth: every further item with its most relevant section, cut to fit its share.
    for (i, c) in cands.iter_mut().enumerate() {
        let cap = if i == 0 {
            share(FIRST_SHARE)
        } else {
            share(ITEM_SHARE).max(ITEM_FLOOR)
        };
        if c.head_cost + JOIN > room(*used) {
            continue;
        }
        let mut cost = JOIN + c.head_cost;
        let wanted = if i == 0 { c.order.len() } else { 1 };
        for k in 0..c.order.len().min(wanted) {
            let s = c.order[k];
            let limit = cap.min(room(*used)).saturating_sub(cost);
            let full = JOIN + c.sections[s].tokens;
            if full <= limit {
                c.chosen.push((s, None));
                cost += full;
            } else if k == 0 || i == 0 {
                if let Some((text, t)) = cut(c, s, limit.saturating_sub(JOIN), tokenizer) {
                    c.chosen.push((s, Some((text, t))));
                    cost += JOIN + t;
                }
                if i == 0 {
                    break;
                }
            }
        }
        c.included = true;
        c.cost = cost;
        *used += cost;
    }
    // 3. Depth: the room left goes to further sections, in rank order, whole sections
    //    first, then one cut section to use the rest.
    for pass in 0..2 {
        for c in cands.iter_mut().filter(|c| c.included) {
            for k in 0..c.order.len() {
                let s = c.order[k];
                if let Some(pos) = c.chosen.iter().position(|(x, _)| *x == s) {
                    if c.chosen[pos].1.is_none() {
                        continue;
                    }
                    // A cut section may grow to the whole section.
                    let old = c.chosen[pos].1.as_ref().map_or(0, |(_, t)| *t);
                    let full = c.sections[s].tokens;
                    if full - old.min(full) <= room(*used) {
                        c.chosen[pos].1 = None;
                        *used += full - old.min(full);
                        c.cost += full - old.min(full);
                    }
                    continue;
                }
                let full = JOIN + c.sections[s].tokens;
                if full <= room(*used) {
                    c.chosen.push((s, None));
                    *used += full;
                    c.cost += full;
                } else if pass == 1
                    && room(*used) > JOIN + 16
                    && let Some((text, t)) = cut(c, s, room(*used) - JOIN, tokenizer)
                {
                    c.chosen.push((s, Some((text, t))));
                    *used += JOIN + t;
                    c.cost += JOIN + t;
                }
            }
        }
    }
    // The list reserve was not needed when nothing is left out.
    if cands.iter().all(|c| c.included) {
        return;
    }
    for c in cands.iter_mut().filter(|c| !c.included) {
        if JOIN + c.head_cost <= budget.saturating_sub(*used + list_reserve) {
            c.included = true;
            c.cost = JOIN + c.head_cost;
            *used += c.cost;
        }
    }
}

/// The candidate for one hit: its header with the relations and reason lines, and its
/// sections ranked by relevance.
fn candidate<'a>(engine: &dyn Engine, hit: &'a Hit, query: &str, tokenizer: Tokenizer) -> Option<Cand<'a>> {
    let node = engine.node(&hit.id)?;
    let header = render::doc_header(&node);
    let (relations, relations_more) = relations(engine, &hit.id);
    // A navigation page is a reference line (what it points to is packed on its own),
    // unless the query names it (its id or its path).
    let named = matches!(hit.why, Why::Seed { exact_id: true, .. })
        || (!hit.path.is_empty() && query.contains(hit.path.as_str()));
    let sections = if hit.nav && !named {
        Vec::new()
    } else {
        engine.sections_of(&hit.id)
    };
    let mut order: Vec<usize> = (0..sections.len()).collect();
    let best = match &hit.why {
        Why::Seed {
            section_id: Some(id), ..
        } => sections.iter().position(|s| &s.chunk == id),
        _ => None,
    };
    order.sort_by_key(|&i| (Some(i) != best, section_rank(&sections[i].heading), i));
    // The mode is not known yet; every mode word costs the same one token.
    let head = head_text(&header, &relations, &relations_more, Mode::Excerpt, &hit.why);
    // The reason line starts a piece: the lines above it (the same in every pack that
    // has this document) and it are counted apart, and only it again with the newlines
    // that may follow. (Were no line to start a piece, `why` would be the whole head and
    // `above` empty.)
    let why = last_piece_line(&head);
    let above = &head[..head.len() - why.len()];
    let (head_cost, head_blank) = if tokenizer == Tokenizer::O200k {
        let (why_alone, why_blank) = tokens::count_with_cached(tokenizer, why, "\n\n");
        let above = tokens::count_cached(tokenizer, above);
        (above + why_alone, above + why_blank)
    } else {
        (tokens::count_cached(tokenizer, &head), 0)
    };
    let counts = Rc::new(Counts {
        blocks: (0..sections.len()).map(|_| OnceCell::new()).collect(),
        parts: vec![Cell::new(None); sections.len()],
        wholes: (0..sections.len()).map(|_| OnceCell::new()).collect(),
        line: OnceCell::new(),
    });
    Some(Cand {
        hit,
        head: head.into(),
        head_cost,
        head_blank,
        relations: relations.into(),
        relations_more: relations_more.into(),
        sections: Rc::new(sections),
        counts,
        order: order.into(),
        chosen: Vec::new(),
        included: false,
        cost: 0,
    })
}

/// Header (`## ID — Title`, `Type · State · path`), relations line, reason line.
fn head_text(
    header: &str,
    relations: &[Relation],
    more: &BTreeMap<&'static str, usize>,
    mode: Mode,
    why: &Why,
) -> String {
    let mut s = header.to_string();
    let rel = relations_line(relations, more);
    if !rel.is_empty() {
        s.push('\n');
        s.push_str(&rel);
    }
    s.push('\n');
    s.push_str(&render::one_line(&format!("{} · why: {}", mode.as_str(), why.line())));
    s
}

/// `blocked_by QRY-TSK-0004 (InProgress), QRY-BUG-0005 (InProgress) · parent …`, with
/// `+N more` where a relation has more targets than listed (`more`).
pub fn relations_line(relations: &[Relation], more: &BTreeMap<&'static str, usize>) -> String {
    let mut groups: Vec<(&str, Vec<&Relation>)> = Vec::new();
    for r in relations {
        match groups.iter_mut().find(|(k, _)| *k == r.rel) {
            Some((_, v)) => v.push(r),
            None => groups.push((r.rel, vec![r])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(rel, v)| {
            let mut shown: Vec<String> = v
                .iter()
                .map(|r| match &r.state {
                    Some(s) => format!("{} ({})", r.id, render::one_line(s)),
                    None => r.id.clone(),
                })
                .collect();
            if let Some(n) = more.get(rel).filter(|n| **n > 0) {
                shown.push(format!("+{n} more"));
            }
            format!("{rel} {}", shown.join(", "))
        })
        .collect();
    parts.join(" · ")
}

/// The relation of an edge as read from `id`'s side, for the relations line; None for
/// body links, mentions and `relates` (which never block and rarely matter to a reader).
fn relation_name(t: EdgeType, forward: bool) -> Option<(&'static str, u8)> {
    use EdgeType::*;
    Some(match (t, forward) {
        (Parent, true) => ("parent", 0),
        (BlockedBy, true) | (Blocks, false) => ("blocked_by", 1),
        (DependsOn, true) => ("depends_on", 2),
        (Blocks, true) | (BlockedBy, false) => ("blocks", 3),
        (DependsOn, false) => ("required_by", 4),
        (DecisionRef, true) => ("decisions", 5),
        (Supersedes, true) | (SupersededBy, false) => ("supersedes", 6),
        (SupersededBy, true) | (Supersedes, false) => ("superseded_by", 7),
        (Parent, false) => ("children", 8),
        (DecisionRef, false) => ("decides", 9),
        _ => return None,
    })
}

/// A document's relations with their targets' states, grouped in a fixed order, targets
/// by id: at most [`MAX_TARGETS`] of each relation, and how many more each has.
pub fn relations(engine: &dyn Engine, id: &str) -> (Vec<Relation>, BTreeMap<&'static str, usize>) {
    let edges = engine.edges(id);
    let mut seen: BTreeMap<(u8, &str), &'static str> = BTreeMap::new();
    for e in edges.iter() {
        if let Some((rel, order)) = relation_name(e.r#type, e.forward) {
            seen.entry((order, e.other.as_str())).or_insert(rel);
        }
    }
    // States only for the targets the line shows: an epic with a thousand children
    // would otherwise cost a thousand lookups per pack item.
    let mut shown: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut more: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut list = Vec::new();
    for ((_, other), rel) in seen {
        let n = shown.entry(rel).or_default();
        *n += 1;
        if *n > MAX_TARGETS {
            *more.entry(rel).or_default() += 1;
            continue;
        }
        list.push(Relation {
            rel,
            state: engine.state(other),
            id: other.to_string(),
        });
    }
    (list, more)
}

/// The longest head of a section within `max` tokens, cut at the end of a line or a
/// sentence when one is near, else between words, with `…` saying it was cut. None when
/// not even a few words of text fit.
fn cut(c: &Cand, s: usize, max: u32, tokenizer: Tokenizer) -> Option<(String, u32)> {
    if max < 12 {
        return None;
    }
    let whole = block(c, s);
    let Whole { start, cuts, ends } = c.counts.wholes[s].get_or_init(|| {
        // Text starts after the heading line (if any): a heading alone is no excerpt.
        let start = if c.sections[s].heading.is_empty() {
            0
        } else {
            whole.find('\n').unwrap_or(whole.len())
        };
        let cuts = whole
            .char_indices()
            .filter(|&(i, c)| i > start && c.is_whitespace())
            .map(|(i, _)| i)
            .collect();
        // A prefix that ends where a piece of the whole section ends has the tokens up
        // to there (and ` …` is a piece of its own): the section is counted once, not
        // once per step of the search (nor per round of the fit).
        let ends = tokens::piece_ends(tokenizer, whole).unwrap_or_default();
        Whole { start, cuts, ends }
    });
    let start = *start;
    let text_at = |i: usize| format!("{} …", whole[..cuts[i]].trim_end());
    // Other prefixes (one ending in `.` before a newline, which the whole section counts
    // as one piece) are counted as they are.
    let ellipsis = tokens::count(tokenizer, " …");
    let tokens_at = |i: usize| {
        let q = whole[..cuts[i]].trim_end().len();
        match ends.binary_search_by_key(&q, |e| e.0) {
            Ok(k) if q > 0 => ends[k].1 + ellipsis,
            _ => tokens::count_cached(tokenizer, &text_at(i)),
        }
    };
    // The longest prefix that fits (binary search over word ends).
    let (mut lo, mut hi) = (0usize, cuts.len());
    let mut best: Option<usize> = None;
    while lo < hi {
        let mid = (lo + hi) / 2;
        if tokens_at(mid) <= max {
            best = Some(mid);
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let best = best?;
    // Prefer the last line or sentence end within the last quarter of the prefix.
    let end = cuts[best];
    let floor = start + (end - start) * 3 / 4;
    let nicer = (0..=best).rev().take_while(|&i| cuts[i] >= floor).find(|&i| {
        let before = whole[..cuts[i]].trim_end();
        whole.as_bytes()[cuts[i]] == b'\n' || before.ends_with(['.', '!', '?', ':'])
    });
    let i = nicer.unwrap_or(best);
    let text = text_at(i);
    let words = whole[start..cuts[i]].split_whitespace().count();
    (words >= 8).then(|| (text, tokens_at(i)))
}

fn stats_line(budget: u32, used: u32, counts: [usize; 4]) -> String {
    format!(
        "budget {budget} tokens · used {used} · {} items: {} full, {} excerpt, {} reference · {} not included",
        counts[0] + counts[1] + counts[2],
        counts[0],
        counts[1],
        counts[2],
        counts[3]
    )
}

/// The pack of the candidates as `allocate` left them. `text`: write the items and the
/// Markdown; without it (a round of the fit) only what is counted is made: `used` and
/// what is not included come out the same, and `items` is empty.
fn render_pack(
    query: &str,
    budget: u32,
    tokenizer: Tokenizer,
    title: &str,
    cands: &mut [Cand],
    nothing_fits: bool,
    text: bool,
) -> Pack {
    let count = |s: &str| tokens::count_cached(tokenizer, s);
    if nothing_fits {
        return Pack {
            schema: SCHEMA,
            query: query.to_string(),
            budget,
            used: 0,
            tokenizer,
            items: Vec::new(),
            not_included: cands.iter().map(|c| omitted(c.hit)).collect(),
            markdown: String::new(),
        };
    }
    // Every item starts with its head (`## ID — Title`): the pack's count is the sum of
    // its blocks' (see `starts_piece`), and those are counted from their parts.
    let apart = tokenizer == Tokenizer::O200k && cands.iter().filter(|c| c.included).all(|c| starts_piece(&c.head));
    // Per included candidate: its mode, its block counted from its parts when they add
    // up, else its text.
    let mut laid: Vec<(&Cand, Mode, Option<Counted>, String)> = Vec::new();
    let mut left_out = Vec::new();
    for c in cands.iter_mut() {
        c.chosen.sort_by_key(|(i, _)| *i);
    }
    for c in cands.iter() {
        if !c.included {
            left_out.push(c);
            continue;
        }
        let mode = c.mode();
        let parts = if apart { block_counts(tokenizer, c) } else { None };
        let item_text = if text || parts.is_none() {
            item_text(c, mode)
        } else {
            String::new()
        };
        laid.push((c, mode, parts, item_text));
    }
    let alone: Vec<u32> = laid
        .iter()
        .map(|(_, _, parts, text)| parts.as_ref().map_or_else(|| count(text), |p| p.alone))
        .collect();
    let in_mode = |m: Mode| laid.iter().filter(|l| l.1 == m).count();
    let counts = [
        in_mode(Mode::Full),
        in_mode(Mode::Excerpt),
        in_mode(Mode::Reference),
        left_out.len(),
    ];
    // Each block alone and a join (the title, the stats line to come, the items): at most
    // one token over (a block ending in punctuation may share a token with the blank line
    // after it), so the list below never runs over.
    let body_cost: u32 = count(title) + JOIN + JOIN + alone.iter().map(|t| t + JOIN).sum::<u32>();
    let stats_reserve = count(&stats_line(budget, 99_999_999, [99_999; 4]));
    // The list of what did not fit, as far as the budget allows.
    let mut list = None;
    if !left_out.is_empty() {
        let mut lines = vec!["## Not included".to_string()];
        let mut cost = body_cost + stats_reserve + count(&lines[0]);
        for (n, c) in left_out.iter().enumerate() {
            let (line, line_cost) = c.counts.line.get_or_init(|| {
                let line = format!("- {} — {}", c.hit.id, render::one_line(&c.hit.title));
                let n = count(&line);
                (line, n)
            });
            let more = format!("- … and {} more", left_out.len() - n);
            let tail = JOIN + count(&format!("- … and {} more", left_out.len()));
            if cost + JOIN + line_cost + if n + 1 < left_out.len() { tail } else { 0 } <= budget {
                cost += JOIN + line_cost;
                lines.push(line.clone());
            } else {
                if cost + JOIN + count(&more) <= budget {
                    lines.push(more);
                }
                break;
            }
        }
        if lines.len() > 1 {
            list = Some(lines.join("\n"));
        }
    }
    // The stats line names the count of the whole pack, itself included: settle it. The
    // rest of the pack is counted once, block by block, each with the newlines after it
    // (see `starts_piece`), so the settling recounts only the stats line.
    let title_and_rest = (apart && (!laid.is_empty() || list.is_some())).then(|| {
        let last = laid.len().wrapping_sub(usize::from(list.is_none()));
        let mut rest: u32 = laid
            .iter()
            .enumerate()
            .map(|(i, (c, _, parts, text))| match parts {
                Some(p) if i == last => p.newline(tokenizer, c),
                Some(p) => p.blank,
                None if i == last => count(&format!("{text}\n")),
                None => count(&format!("{text}\n\n")),
            })
            .sum();
        if let Some(list) = &list {
            rest += count(&format!("{list}\n"));
        }
        (count(&format!("{title}\n\n")), rest)
    });
    let texts = || laid.iter().map(|l| l.3.as_str());
    let mut stats = String::new();
    let mut used = budget;
    for _ in 0..4 {
        stats = stats_line(budget, used, counts);
        // The stats line starts with a letter: it starts a piece too.
        let real = match title_and_rest {
            Some((t, r)) => t + count(&format!("{stats}\n\n")) + r,
            None => count(&markdown(title, &stats, texts(), list.as_deref())),
        };
        if real == used {
            break;
        }
        used = real;
    }
    let (markdown, items) = if text {
        let md = markdown(title, &stats, texts(), list.as_deref());
        // Counted from its parts, the pack has the count of its text (tests run with
        // this check on every pack they make).
        debug_assert!(
            title_and_rest.is_none() || used == count(&md),
            "{used} ≠ the count of {md:?}"
        );
        let items = laid
            .into_iter()
            .zip(alone)
            .map(|((c, mode, _, text), tokens)| PackItem {
                id: c.hit.id.clone(),
                path: c.hit.path.clone(),
                title: c.hit.title.clone(),
                r#type: c.hit.r#type.clone(),
                state: c.hit.state.clone(),
                mode,
                tokens,
                sections: c.chosen.iter().map(|(i, _)| c.sections[*i].chunk.clone()).collect(),
                relations: c.relations.to_vec(),
                relations_more: (*c.relations_more).clone(),
                why: c.hit.why.clone(),
                text,
            })
            .collect();
        (md, items)
    } else {
        (String::new(), Vec::new())
    };
    Pack {
        schema: SCHEMA,
        query: query.to_string(),
        budget,
        used,
        tokenizer,
        items,
        not_included: left_out.into_iter().map(|c| omitted(c.hit)).collect(),
        markdown,
    }
}

/// The pack's Markdown: its blocks joined by blank lines, and a final newline.
fn markdown<'t>(title: &str, stats: &str, items: impl Iterator<Item = &'t str>, list: Option<&str>) -> String {
    let mut out = format!("{title}\n\n{stats}");
    for block in items {
        out.push_str("\n\n");
        out.push_str(block);
    }
    if let Some(list) = list {
        out.push_str("\n\n");
        out.push_str(list);
    }
    out.push('\n');
    out
}

/// An item as the pack prints it: its head with the mode, then its chosen sections.
fn item_text(c: &Cand, mode: Mode) -> String {
    let header = c.head.lines().take(2).collect::<Vec<_>>().join("\n");
    let mut text = head_text(&header, &c.relations, &c.relations_more, mode, &c.hit.why);
    for (i, cut) in &c.chosen {
        text.push_str("\n\n");
        match cut {
            Some((t, _)) => text.push_str(t),
            None => text.push_str(block(c, *i)),
        }
    }
    text
}

/// A candidate's section `i` as the pack prints it, made once per pack.
fn block<'c>(c: &'c Cand, i: usize) -> &'c str {
    c.counts.blocks[i].get_or_init(|| render::section_block(&c.sections[i].heading, &c.sections[i].text))
}

/// What a candidate's copies share, each made when first needed: per section, its block,
/// the block's counts with the newlines after it and what excerpts are cut by; and the
/// candidate's line in the "Not included" list.
struct Counts {
    blocks: Vec<OnceCell<String>>,
    parts: Vec<Cell<Option<Part>>>,
    wholes: Vec<OnceCell<Whole>>,
    line: OnceCell<(String, u32)>,
}

/// A section's block as excerpts are cut from it: where its text starts, the ends of
/// its words, and the ends of its o200k pieces with the tokens up to each.
struct Whole {
    start: usize,
    cuts: Vec<usize>,
    ends: Vec<(usize, u32)>,
}

/// A section's block counted with a blank line after it and with a newline, and
/// whether it starts a piece.
#[derive(Clone, Copy)]
struct Part {
    blank: u32,
    newline: u32,
    starts: bool,
}

/// An item's block counted from its parts: alone, with the blank line after it, and
/// (see [`Counted::newline`]) with one newline.
struct Counted {
    alone: u32,
    blank: u32,
    /// The parts before the last, each with its blank line.
    before: u32,
    last: Last,
}

/// An item's last part.
enum Last {
    Head,
    Section(usize),
    /// The excerpt at this position of `chosen`.
    Cut(usize),
}

impl Counted {
    fn newline(&self, tokenizer: Tokenizer, c: &Cand) -> u32 {
        self.before
            + match self.last {
                Last::Head => with_sep(tokenizer, c.head_cost, last_piece_line(&c.head), "\n"),
                Last::Section(i) => part(tokenizer, c, i).newline,
                Last::Cut(k) => match &c.chosen[k].1 {
                    Some((t, n)) => with_sep(tokenizer, *n, last_piece_line(t), "\n"),
                    None => 0,
                },
            }
    }
}

/// The counts of a candidate's section `i`, made once per pack.
fn part(tokenizer: Tokenizer, c: &Cand, i: usize) -> Part {
    let cell = &c.counts.parts[i];
    if let Some(p) = cell.get() {
        return p;
    }
    let (tokens, block) = (c.sections[i].tokens, block(c, i));
    let tail = last_piece_line(block);
    let p = Part {
        blank: with_sep(tokenizer, tokens, tail, "\n\n"),
        newline: with_sep(tokenizer, tokens, tail, "\n"),
        starts: starts_piece(block),
    };
    cell.set(Some(p));
    p
}

/// The tokens of an item's block from its parts: the head (counted with the candidate;
/// every mode word is one token) and each chosen section (counted at index time) or
/// excerpt (counted when cut). Each part after the head starts an o200k piece, so the
/// parts add up as blocks do (see [`starts_piece`]), each counted with the blank line
/// after it; a part's count with newlines after it differs from its count alone only
/// in its last line ([`with_sep`]). None when a section does not start a piece.
fn block_counts(tokenizer: Tokenizer, c: &Cand) -> Option<Counted> {
    let mut before = 0;
    let (mut alone, mut blank, mut last) = (c.head_cost, c.head_blank, Last::Head);
    for (k, (i, cut)) in c.chosen.iter().enumerate() {
        before += blank;
        (alone, blank, last) = match cut {
            Some((t, n)) => {
                if !starts_piece(t) {
                    return None;
                }
                (*n, with_sep(tokenizer, *n, last_piece_line(t), "\n\n"), Last::Cut(k))
            }
            None => {
                let p = part(tokenizer, c, *i);
                if !p.starts {
                    return None;
                }
                (c.sections[*i].tokens, p.blank, Last::Section(*i))
            }
        };
    }
    Some(Counted {
        alone: before + alone,
        blank: before + blank,
        before,
        last,
    })
}

/// The tokens of a text followed by `sep` (newlines), from its count alone (`alone`)
/// and its last line that starts a piece (`tail`, see [`last_piece_line`]): the pieces
/// before that line are the same with or without what follows (see [`starts_piece`]).
fn with_sep(tokenizer: Tokenizer, alone: u32, tail: &str, sep: &str) -> u32 {
    let (tail_alone, tail_with) = tokens::count_with_cached(tokenizer, tail, sep);
    let n = i64::from(alone) - i64::from(tail_alone) + i64::from(tail_with);
    u32::try_from(n).unwrap_or(0)
}

/// The last line of `text` that starts an o200k piece (it follows a newline and starts
/// as [`starts_piece`] says), or all of `text`.
fn last_piece_line(text: &str) -> &str {
    let mut end = text.len();
    while let Some(i) = text[..end].rfind('\n') {
        if starts_piece(&text[i + 1..]) {
            return &text[i + 1..];
        }
        end = i;
    }
    text
}

/// Does an o200k piece start at the start of `block` when a newline comes before it?
///
/// o200k's pre-tokenizer cuts the text into pieces and counts each piece apart. No piece
/// runs from a newline into a following character that is not whitespace or `/` (the
/// letter pattern's optional first character excludes newlines, and the only patterns
/// that take a newline end with newlines, or `/`), and none of its patterns looks back.
/// So when every block after the first starts with such a character, the joined text's
/// pieces are each block's pieces with the newlines after it, and the counts add up:
/// the pack is counted block by block, and each item's block part by part.
fn starts_piece(block: &str) -> bool {
    block.chars().next().is_some_and(|c| !c.is_whitespace() && c != '/')
}

fn omitted(h: &Hit) -> Omitted {
    Omitted {
        id: h.id.clone(),
        title: h.title.clone(),
        why: h.why.clone(),
    }
}

/// Which sections an excerpt prefers after the best match: decisions and goals first,
/// worklogs last.
fn section_rank(heading: &str) -> u8 {
    match crate::model::section::section_name(heading).as_str() {
        "decision" => 0,
        "goal" | "description" | "summary" | "abstract" => 1,
        "context" | "motivation" => 2,
        "acceptance criteria" => 3,
        "approach" | "specification" | "implementation plan" => 4,
        "consequences" => 5,
        "worklog" => 9,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The joined text counted at once.
    fn joined(blocks: &[String]) -> u32 {
        tokens::count(Tokenizer::O200k, &(blocks.join("\n\n") + "\n"))
    }

    /// The blocks counted as `render_pack` counts them: each with the newlines after it,
    /// when every block after the first starts a piece.
    fn blocks_count(tokenizer: Tokenizer, blocks: &[String], last: bool) -> Option<u32> {
        if tokenizer != Tokenizer::O200k || !blocks.iter().skip(1).all(|b| starts_piece(b)) {
            return None;
        }
        let mut total = 0;
        for (i, b) in blocks.iter().enumerate() {
            let sep = if last && i + 1 == blocks.len() { "\n" } else { "\n\n" };
            total += tokens::count(tokenizer, &format!("{b}{sep}"));
        }
        Some(total)
    }

    #[test]
    fn blocks_count_adds_up_where_blocks_start_pieces() {
        let cases: [&[&str]; 5] = [
            &[
                "# Context pack: why?",
                "budget 4000 tokens",
                "## A — done.",
                "## B\ntext…",
            ],
            &[
                "# t",
                "## ends in punctuation.",
                "## ends in a URL https://x.y/",
                "## ü ß 漢字。",
            ],
            &[
                "# t",
                "budget",
                "## code\n```\nfn f() {}\n```",
                "## Not included\n- X — y",
            ],
            &["# …", "b", "## 12345", "## 'quoted'", "## ----"],
            &["# t", "letters after a blank line", "## x"],
        ];
        for case in cases {
            let blocks: Vec<String> = case.iter().map(|s| s.to_string()).collect();
            assert_eq!(
                blocks_count(Tokenizer::O200k, &blocks, true),
                Some(joined(&blocks)),
                "{case:?}"
            );
        }
        // A block that a newline could run into is not counted apart.
        let slash = ["# t".to_string(), "/path".to_string()];
        assert_eq!(blocks_count(Tokenizer::O200k, &slash, true), None);
        assert_eq!(blocks_count(Tokenizer::Approx, &slash[..1], true), None);
    }

    proptest::proptest! {
        /// Any text in each block, as long as every block after the first starts with
        /// `#` or a letter (as a pack's blocks do).
        #[test]
        fn blocks_count_equals_the_joined_count(
            first in "\\PC{0,40}",
            rest in proptest::collection::vec(("[#a-zA-Zé]", "\\PC{0,40}"), 0..5),
        ) {
            let mut blocks = vec![first.trim().to_string()];
            blocks.extend(rest.iter().map(|(c, t)| format!("{c}{}", t.trim_end())));
            proptest::prop_assert_eq!(blocks_count(Tokenizer::O200k, &blocks, true), Some(joined(&blocks)));
        }

        /// A part's count with newlines after it, from its count alone and its last line
        /// that starts a piece.
        #[test]
        fn with_sep_equals_the_count_with_the_newlines(
            lines in proptest::collection::vec("([ a-zA-Zé0-9#*`.,:;'()/-]|\\PC){0,30}", 1..5),
            blank in proptest::bool::ANY,
        ) {
            let text = lines.join("\n");
            let text = text.trim();
            let o = Tokenizer::O200k;
            let sep = if blank { "\n\n" } else { "\n" };
            let alone = tokens::count(o, text);
            proptest::prop_assert_eq!(
                with_sep(o, alone, last_piece_line(text), sep),
                tokens::count(o, &format!("{text}{sep}")),
                "{:?}", text
            );
        }
    }

    /// A candidate's head is counted once, with the word `excerpt`: the pack relies on
    /// every mode word costing the same.
    #[test]
    fn every_mode_word_costs_the_same() {
        let line = |m: Mode| tokens::count(Tokenizer::O200k, &format!("{} · why: matched", m.as_str()));
        assert_eq!(line(Mode::Full), line(Mode::Excerpt));
        assert_eq!(line(Mode::Reference), line(Mode::Excerpt));
    }

    #[test]
    fn relations_line_names_states_and_counts_the_rest() {
        let r = |rel, id: &str, state: Option<&str>| Relation {
            rel,
            id: id.to_string(),
            state: state.map(str::to_string),
        };
        let list = [
            r("blocked_by", "T-4", Some("InProgress")),
            r("blocked_by", "B-5", Some("In progress")),
            r("children", "S-1", None),
        ];
        let more = BTreeMap::from([("children", 92)]);
        assert_eq!(
            relations_line(&list, &more),
            "blocked_by T-4 (InProgress), B-5 (In progress) · children S-1, +92 more"
        );
        assert_eq!(
            relations_line(&list[..1], &BTreeMap::new()),
            "blocked_by T-4 (InProgress)"
        );
    }
}
