//! The fit: what each candidate contributes to a pack (whole sections, an excerpt cut
//! to its share, or a reference line), and the allocation target that fills the budget
//! best.

use super::cand::{Cand, Counts, Slot, Whole, block, group_small_items};
use super::count::last_piece_line;
use super::relations::relations;
use super::render::{head_text, render_pack, stats_line};
use super::{Mode, Pack};
use crate::query::search::{Engine, Hit, Why};
use crate::text::render;
use crate::text::tokens::{self, JOIN, Tokenizer};
use std::rc::Rc;

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

/// Largest budget honoured (about a billion tokens); larger ones are clamped to it, so the
/// token arithmetic cannot overflow.
pub const MAX_BUDGET: u32 = u32::MAX / 4;

/// Fit `results` into `budget` tokens (at most [`MAX_BUDGET`]). Candidates scoring
/// below `cliff` × the best candidate's score are not packed (the relevance cliff: near
/// misses cost answer quality more than the room they fill); they are named on one line
/// under the title and in [`Pack::below_cliff`]. A `cliff` of 0 packs every candidate
/// (`--fill`).
pub fn pack(engine: &dyn Engine, query: &str, results: &[Hit], budget: u32, tokenizer: Tokenizer, cliff: f64) -> Pack {
    let best = results.iter().map(|h| h.score).fold(0.0, f64::max);
    // A document the question names, and a navigation page (packed as a reference line
    // that leads to its targets), stay whatever their score.
    let stays = |h: &Hit| h.score >= cliff * best || h.nav || h.why.is_exact();
    let (kept, below): (Vec<&Hit>, Vec<&Hit>) = results.iter().partition(|h| stays(h));
    let mut p = fit(engine, query, &kept, &below, budget.min(MAX_BUDGET), tokenizer);
    p.below_cliff = below.iter().map(|h| h.id.clone()).collect();
    p
}

/// Most tokens of a requirement's or a criterion's text for it to share one block with
/// the others of its document.
const SMALL_ITEM: u32 = 200;

/// Most ids named on the pack's cliff line.
const CLIFF_IDS: usize = 3;

/// The line under a pack's title that names what the cliff left out.
fn cliff_line(below: &[&Hit]) -> String {
    let ids: Vec<&str> = below.iter().take(CLIFF_IDS).map(|h| h.id.as_str()).collect();
    let more = below.len().saturating_sub(CLIFF_IDS);
    format!(
        "{} more far below the best match, not packed (`--fill` packs them): {}{}",
        below.len(),
        ids.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The pack that fills `budget` best.
fn fit(engine: &dyn Engine, query: &str, results: &[&Hit], below: &[&Hit], budget: u32, tokenizer: Tokenizer) -> Pack {
    let count = |s: &str| tokens::count_cached(tokenizer, s);
    let mut title = format!("# Context pack: {}", render::one_line(query));
    if !below.is_empty() {
        title.push_str("\n\n");
        title.push_str(&cliff_line(below));
    }
    // Title, stats line (its longest form), the joins and the final newline.
    let stats_reserve = count(&stats_line(budget, 99_999_999, [99_999; 4]));
    let fixed = count(&title) + JOIN + stats_reserve + JOIN;
    let why = crate::query::intent::Intent::parse(query).asks(crate::query::intent::Ask::Decision);
    let cands: Vec<Cand> = results
        .iter()
        .filter_map(|&h| candidate(engine, h, query, tokenizer, why))
        .collect();
    let (mut cands, slots) = group_small_items(cands);
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
        allocate(&mut cands, &slots, target, &mut used, tokenizer);
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
fn allocate(cands: &mut [Cand], slots: &[Slot], budget: u32, used: &mut u32, tokenizer: Tokenizer) {
    let share = |f: f64| (budget as f64 * f) as u32;
    // Room kept for the "Not included" list, used only if something is left out.
    let list_reserve = if cands.len() > 1 { (budget / 20).min(200) } else { 0 };
    let room = |used: u32| budget.saturating_sub(used + list_reserve);
    // 1. The answer: header, then its sections in order of relevance, up to its share.
    // 2. Breadth: every further item with its most relevant section, cut to fit its share;
    //    a small item packed in another's block, its text, in its own turn.
    for &slot in slots {
        let i = match slot {
            Slot::Item(i) => i,
            Slot::Member(i, s) => {
                add_member(&mut cands[i], s, room(*used), used);
                continue;
            }
        };
        let c = &mut cands[i];
        let cap = if i == 0 {
            share(FIRST_SHARE)
        } else {
            share(ITEM_SHARE).max(ITEM_FLOOR)
        };
        if c.head_cost + JOIN > room(*used) {
            continue;
        }
        let mut cost = JOIN + c.head_cost;
        // The small items packed in this block (after its own sections in `order`) have
        // turns of their own.
        let own = c.owners.iter().filter(|o| o.is_none()).count();
        let wanted = if i == 0 { own } else { 1 };
        for k in 0..c.order.len().min(wanted) {
            let s = c.order[k];
            let limit = cap.min(room(*used)).saturating_sub(cost);
            let full = JOIN + c.sections[s].tokens;
            // A decision block is a unit: past the item's share when the room holds it
            // (the answer's share at most, for the items after the first).
            let unit =
                c.atomic[s] && full <= room(*used).saturating_sub(cost) && (i == 0 || full <= share(FIRST_SHARE));
            if full <= limit || unit {
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

/// A small item's text (section `s`) into its leader's block, when the leader is in and
/// the room holds it.
fn add_member(c: &mut Cand, s: usize, room: u32, used: &mut u32) {
    let full = JOIN + c.sections[s].tokens;
    if c.included && full <= room && !c.chosen.iter().any(|(x, _)| *x == s) {
        c.chosen.push((s, None));
        c.cost += full;
        *used += full;
    }
}

/// The candidate for one hit: its header with the relations and reason lines, and its
/// sections ranked by relevance.
fn candidate<'a>(
    engine: &dyn Engine,
    hit: &'a Hit,
    query: &str,
    tokenizer: Tokenizer,
    asks_why: bool,
) -> Option<Cand<'a>> {
    let node = engine.node(&hit.id)?;
    let header = render::doc_header(&node);
    let (relations, relations_more) = relations(engine, &hit.id);
    // A navigation page is a reference line (what it points to is packed on its own),
    // unless the query names it (its id or its path).
    let named = hit.why.is_exact() || (!hit.path.is_empty() && query.contains(hit.path.as_str()));
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
    // The answering section first; a section that is mostly a long fenced block (a
    // diagram, a log, a listing) last, so it is the first left out.
    order.sort_by_key(|&i| {
        let rank = match mostly_fenced(&sections[i].text) {
            true => LAST_RANK,
            false => section_rank(&sections[i].heading),
        };
        (Some(i) != best, rank, i)
    });
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
    let counts = Rc::new(Counts::new(sections.len()));
    // A requirement or criterion of a spec (one short section, written inside its
    // document) goes into one block with the others of its document.
    let small = node.inline
        && matches!(node.r#type.as_deref(), Some("Requirement" | "Criterion"))
        && sections.len() == 1
        && sections[0].tokens <= SMALL_ITEM;
    // A why-question's decision blocks are units.
    let atomic: Vec<bool> = sections
        .iter()
        .map(|s| asks_why && !super::decision::blocks(&s.text).is_empty())
        .collect();
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
        owners: vec![None; atomic.len()].into(),
        atomic: atomic.into(),
        small,
        chosen: Vec::new(),
        included: false,
        cost: 0,
    })
}

/// The longest head of a section within `max` tokens, cut at the end of a line or a
/// sentence when one is near, else between words, with `…` saying it was cut. None when
/// not even a few words of text fit. A decision block is cut only between decisions
/// ([`cut_between_decisions`]).
fn cut(c: &Cand, s: usize, max: u32, tokenizer: Tokenizer) -> Option<(String, u32)> {
    if max < 12 {
        return None;
    }
    if c.atomic[s] {
        return cut_between_decisions(c, s, max, tokenizer);
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

/// The longest head of a decision block within `max` tokens that ends where a decision
/// starts: whole decisions, each with its reasons and alternatives, and `…` for the
/// rest. None when not even the first decision fits.
fn cut_between_decisions(c: &Cand, s: usize, max: u32, tokenizer: Tokenizer) -> Option<(String, u32)> {
    let whole = block(c, s);
    // The block's text starts after its heading line; decisions start in the text.
    let text = &c.sections[s].text;
    let offset = whole.find(text.trim()).unwrap_or(0);
    let trimmed = text.len() - text.trim_start().len();
    // Never before the first decision: the text above it is no answer to "why". The
    // latest decision start whose head fits.
    let starts: Vec<usize> = super::decision::blocks(text)
        .into_iter()
        .skip(1)
        .filter_map(|at| at.checked_sub(trimmed).map(|x| x + offset))
        .filter(|&at| at > offset)
        .collect();
    starts.into_iter().rev().find_map(|at| {
        let head = format!("{} …", whole[..at].trim_end());
        let t = tokens::count_cached(tokenizer, &head);
        (t <= max).then_some((head, t))
    })
}

/// Which sections an excerpt prefers after the best match: decisions and goals first,
/// worklogs last.
/// The rank of a section that is mostly a long fenced block: after every named kind.
const LAST_RANK: u8 = 10;

/// Fewest lines inside fences that make a section "mostly a long fenced block".
const LONG_BLOCK_LINES: usize = 12;

/// Whether `text` is mostly fenced code: at least [`LONG_BLOCK_LINES`] lines inside
/// backtick or tilde fences, and at least half of its lines.
fn mostly_fenced(text: &str) -> bool {
    let (mut inside, mut fenced, mut total) = (false, 0usize, 0usize);
    for line in text.lines() {
        total += 1;
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            inside = !inside;
            fenced += 1;
        } else if inside {
            fenced += 1;
        }
    }
    fenced >= LONG_BLOCK_LINES && fenced * 2 >= total
}

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

    #[test]
    fn a_long_fenced_block_is_told_from_prose() {
        let diagram = format!("Overview:\n```\n{}```\n", "| box | -> | box |\n".repeat(14));
        assert!(mostly_fenced(&diagram));
        let prose = format!("{}```\nshort\n```\n", "A sentence.\n".repeat(20));
        assert!(!mostly_fenced(&prose));
        assert!(!mostly_fenced("```\na\nb\n```\n"));
    }
}
