//! Rendering: a pack's Markdown and items written from the candidates as the fit left
//! them, with `used` settled as the count of the whole text.

use super::cand::{Cand, block};
use super::count::{Counted, block_counts, starts_piece};
use super::relations::relations_line;
use super::{Member, Mode, Omitted, Pack, PackItem, Relation, SCHEMA};
use crate::query::search::{Hit, Why};
use crate::text::render;
use crate::text::tokens::{self, JOIN, Tokenizer};
use std::collections::BTreeMap;

/// Header (`## ID — Title`, `Type · State · path`), relations line, reason line.
pub(super) fn head_text(
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

pub(super) fn stats_line(budget: u32, used: u32, counts: [usize; 4]) -> String {
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
pub(super) fn render_pack(
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
            below_cliff: Vec::new(),
            markdown: String::new(),
        };
    }
    // Every item starts with its head (`## ID — Title`): the pack's count is the sum of
    // its blocks' (see `starts_piece`), and those are counted from their parts.
    let apart = tokenizer == Tokenizer::O200k && cands.iter().filter(|c| c.included).all(|c| starts_piece(&c.head));
    // Per included candidate: its mode, its block counted from its parts when they add
    // up, else its text.
    let mut laid: Vec<Laid> = Vec::new();
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
    let list = not_included(&left_out, tokenizer, budget, body_cost + stats_reserve);
    // The stats line names the count of the whole pack, itself included: settle it. The
    // rest of the pack is counted once, block by block, each with the newlines after it
    // (see `starts_piece`), so the settling recounts only the stats line.
    let title_and_rest = (apart && (!laid.is_empty() || list.is_some()))
        .then(|| counted_apart(tokenizer, title, &laid, list.as_deref()));
    let (stats, used) = settle(tokenizer, budget, counts, title, &laid, list.as_deref(), title_and_rest);
    let (markdown, items) = if text {
        let texts = laid.iter().map(|l| l.3.as_str());
        let md = markdown(title, &stats, texts, list.as_deref());
        // Counted from its parts, the pack has the count of its text (tests run with
        // this check on every pack they make).
        debug_assert!(
            title_and_rest.is_none() || used == count(&md),
            "{used} ≠ the count of {md:?}"
        );
        (md, items(laid, alone, tokenizer))
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
        below_cliff: Vec::new(),
        markdown,
    }
}

/// An included candidate as laid out: its mode, its block counted from its parts when
/// they add up, and its text (empty when counted from its parts and no text is wanted).
type Laid<'c, 'h> = (&'c Cand<'h>, Mode, Option<Counted>, String);

/// The list of what did not fit (`## Not included`), as far as the budget allows after
/// `cost`, the rest of the pack; None when nothing was left out or no line fits.
fn not_included(left_out: &[&Cand], tokenizer: Tokenizer, budget: u32, cost: u32) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let count = |s: &str| tokens::count_cached(tokenizer, s);
    let mut lines = vec!["## Not included".to_string()];
    let mut cost = cost + count(&lines[0]);
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
    (lines.len() > 1).then(|| lines.join("\n"))
}

/// The counts of the title (with its blank line) and of the rest of the pack after the
/// stats line, block by block, when every block starts a piece.
fn counted_apart(tokenizer: Tokenizer, title: &str, laid: &[Laid], list: Option<&str>) -> (u32, u32) {
    let count = |s: &str| tokens::count_cached(tokenizer, s);
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
    if let Some(list) = list {
        rest += count(&format!("{list}\n"));
    }
    (count(&format!("{title}\n\n")), rest)
}

/// The stats line and the count of the whole pack it names, settled: the line is written
/// with a guess of the count until the count of the pack holding it is the guess.
fn settle(
    tokenizer: Tokenizer,
    budget: u32,
    counts: [usize; 4],
    title: &str,
    laid: &[Laid],
    list: Option<&str>,
    title_and_rest: Option<(u32, u32)>,
) -> (String, u32) {
    let count = |s: &str| tokens::count_cached(tokenizer, s);
    let texts = || laid.iter().map(|l| l.3.as_str());
    let mut stats = String::new();
    let mut used = budget;
    for _ in 0..4 {
        stats = stats_line(budget, used, counts);
        // The stats line starts with a letter: it starts a piece too.
        let real = match title_and_rest {
            Some((t, r)) => t + count(&format!("{stats}\n\n")) + r,
            None => count(&markdown(title, &stats, texts(), list)),
        };
        if real == used {
            break;
        }
        used = real;
    }
    (stats, used)
}

/// The small items packed in `c`'s block, with the tokens of their text there.
fn members(c: &Cand, tokenizer: Tokenizer) -> Vec<Member> {
    c.chosen
        .iter()
        .filter_map(|(i, cut)| {
            let id = c.owners[*i]?;
            let tokens = match cut {
                Some((_, t)) => *t,
                None => tokens::count_cached(tokenizer, block(c, *i)),
            };
            Some(Member {
                id: id.to_string(),
                tokens: tokens + JOIN,
            })
        })
        .collect()
}

/// The pack's items, with each one's count alone.
fn items(laid: Vec<Laid>, alone: Vec<u32>, tokenizer: Tokenizer) -> Vec<PackItem> {
    laid.into_iter()
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
            members: members(c, tokenizer),
            text,
        })
        .collect()
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

fn omitted(h: &Hit) -> Omitted {
    Omitted {
        id: h.id.clone(),
        title: h.title.clone(),
        why: h.why.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::cand::tests::{cand, hit};
    use super::*;

    /// A candidate's head is counted once, with the word `excerpt`: the pack relies on
    /// every mode word costing the same.
    #[test]
    fn every_mode_word_costs_the_same() {
        let line = |m: Mode| tokens::count(Tokenizer::O200k, &format!("{} · why: matched", m.as_str()));
        assert_eq!(line(Mode::Full), line(Mode::Excerpt));
        assert_eq!(line(Mode::Reference), line(Mode::Excerpt));
    }
    /// A candidate's head as the fit makes it (with the mode word `excerpt`).
    fn head(h: &Hit) -> String {
        let header = format!("## {} — {}\nTask · Open · {}", h.id, h.title, h.path);
        head_text(&header, &[], &BTreeMap::new(), Mode::Excerpt, &h.why)
    }

    #[test]
    fn a_written_pack_is_counted_as_its_markdown() {
        let (a, b) = (hit("T-1"), hit("T-2"));
        let mut cands = vec![
            cand(&a, &head(&a), &[("Goal", "Make the PDF export work.")]),
            cand(&b, &head(&b), &[("Goal", "Something else.")]),
        ];
        cands[0].included = true;
        cands[0].chosen = vec![(0, None)];
        let title = "# Context pack: pdf export";
        for tokenizer in [Tokenizer::O200k, Tokenizer::Approx] {
            let p = render_pack("pdf export", 1000, tokenizer, title, &mut cands, false, true);
            assert_eq!(p.used, tokens::count(tokenizer, &p.markdown), "{tokenizer:?}");
            let md = p.markdown.replace(&format!("used {} ·", p.used), "used N ·");
            assert_eq!(
                md,
                "# Context pack: pdf export\n\n\
                 budget 1000 tokens · used N · 1 items: 1 full, 0 excerpt, 0 reference · 1 not included\n\n\
                 ## T-1 — Title of T-1\nTask · Open · T-1.md\nfull · why: seed: matched \"export\" in § Goal\n\n\
                 ### Goal\n\nMake the PDF export work.\n\n\
                 ## Not included\n- T-2 — Title of T-2\n"
            );
            let item = &p.items[0];
            assert_eq!(
                (item.mode, item.sections.as_slice()),
                (Mode::Full, ["T-1#s0".to_string()].as_slice())
            );
            assert_eq!(item.tokens, tokens::count(tokenizer, &item.text));
            let left: Vec<&str> = p.not_included.iter().map(|o| o.id.as_str()).collect();
            assert_eq!(left, ["T-2"]);
            // A round of the fit counts the same pack without writing it.
            let round = render_pack("pdf export", 1000, tokenizer, title, &mut cands, false, false);
            assert_eq!(
                (round.used, round.items.len(), round.not_included.len()),
                (p.used, 0, 1)
            );
        }
    }

    #[test]
    fn the_not_included_list_stops_within_the_budget() {
        let hits: Vec<Hit> = (1..=40).map(|i| hit(&format!("T-{i}"))).collect();
        let mut cands: Vec<Cand> = hits.iter().map(|h| cand(h, &head(h), &[])).collect();
        cands[0].included = true;
        let title = "# Context pack: q";
        let p = render_pack("q", 150, Tokenizer::O200k, title, &mut cands, false, true);
        assert!(p.used <= 150, "{}", p.used);
        assert_eq!(p.used, tokens::count(Tokenizer::O200k, &p.markdown));
        assert!(p.markdown.contains("\n- … and "), "{}", p.markdown);
        assert_eq!(p.not_included.len(), 39);
    }
}
