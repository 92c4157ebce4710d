//! Pack: the ranked results fitted into a token budget as a Markdown document ready to
//! paste into a prompt, saying for every item why it is there.
//!
//! The ranking is walked once. Each item is taken in full when it fits under its cap (30 %
//! of the budget plus what earlier items left unused), else as an excerpt (its
//! best-matching sections), else as a one-line reference; an item that does not fit at
//! all goes to the "not included" list and packing goes on. Sizes come from the token
//! counts stored at index time (exact) and byte-length bounds for the few lines made at
//! pack time, so `used` is an upper bound of the real size and never exceeds the budget.

use crate::query::search::{Engine, Hit, Why};
use crate::text::render;
use crate::text::tokens::{JOIN, bound};
use serde::Serialize;

/// How much of an item is in the pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every section.
    Full,
    /// The best-matching sections.
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
    /// Tokens it takes (upper bound).
    pub tokens: u32,
    /// Sections included (chunk ids).
    pub sections: Vec<String>,
    /// Why it is here.
    pub why: Why,
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
    /// The query.
    pub query: String,
    /// The budget in tokens.
    pub budget: u32,
    /// Tokens used (an upper bound of the real count; never above the budget).
    pub used: u32,
    /// Counter the sizes come from.
    pub tokenizer: crate::text::tokens::Tokenizer,
    /// Items in rank order.
    pub items: Vec<PackItem>,
    /// Relevant items that did not fit, in rank order.
    pub not_included: Vec<Omitted>,
    /// The pack as Markdown.
    #[serde(skip)]
    pub markdown: String,
}

struct Block {
    text: String,
    cost: u32,
}

fn mode_line(mode: Mode, why: &Why) -> String {
    render::one_line(&format!("{} · why: {}", mode.as_str(), why.line()))
}

/// Largest budget honoured (about a billion tokens); larger ones are clamped to it, so the
/// token arithmetic cannot overflow.
pub const MAX_BUDGET: u32 = u32::MAX / 4;

/// Fit `results` into `budget` tokens (at most [`MAX_BUDGET`]).
pub fn pack(
    engine: &dyn Engine,
    query: &str,
    results: &[Hit],
    budget: u32,
    tokenizer: crate::text::tokens::Tokenizer,
) -> Pack {
    let budget = budget.min(MAX_BUDGET);
    let title = format!("# Context pack: {}", render::one_line(query));
    let stats = |used: u32, counts: [usize; 4]| {
        format!(
            "budget {budget} tokens · used {used} · {} items: {} full, {} excerpt, {} reference · {} not included",
            counts[0] + counts[1] + counts[2],
            counts[0],
            counts[1],
            counts[2],
            counts[3]
        )
    };
    // The stats line is written last; reserve its longest form.
    let stats_reserve = bound(&stats(budget, [999, 999, 999, 999]));
    let mut blocks: Vec<Block> = vec![Block {
        cost: bound(&title),
        text: title,
    }];
    // Title, join, stats line, and the final newline.
    let mut used = blocks[0].cost + JOIN + stats_reserve + JOIN;
    if used > budget {
        // Not even the header fits: an empty pack that says so.
        return Pack {
            query: query.to_string(),
            budget,
            used: 0,
            tokenizer,
            items: Vec::new(),
            not_included: results.iter().map(omitted).collect(),
            markdown: String::new(),
        };
    }
    let cap = budget * 3 / 10;
    // Room kept for listing what did not fit (used by items only if nothing is left out).
    let list_reserve = if results.len() > 1 { (budget / 10).min(300) } else { 0 };
    let mut carry = 0u32;
    let mut items = Vec::new();
    let mut left_out: Vec<&Hit> = Vec::new();
    // Each item's header and its cost (precounted at index time).
    let heads: Vec<Option<(String, u32)>> = results
        .iter()
        .map(|h| {
            let node = engine.node(&h.id)?;
            let header = render::doc_header(&node);
            let cost = node.tokens.unwrap_or_else(|| bound(&header));
            Some((header, cost))
        })
        .collect();
    // An item's cost without sections: header and mode line.
    let base = |head_cost: u32, mode: Mode, why: &Why| JOIN + head_cost + JOIN + bound(&mode_line(mode, why));
    // Room kept so the items after each one can at least be referenced (up to a tenth of
    // the budget): a long document in full must not crowd out the load-bearing neighbors
    // ranked after it.
    let reference_reserve = budget / 10;
    let mut later_refs: Vec<u32> = vec![0; results.len() + 1];
    for i in (0..results.len()).rev() {
        let c = heads[i]
            .as_ref()
            .map_or(0, |(_, head)| base(*head, Mode::Reference, &results[i].why));
        later_refs[i] = later_refs[i + 1] + c;
    }
    for (i, hit) in results.iter().enumerate() {
        let Some((header, head_cost)) = &heads[i] else { continue };
        let head_cost = *head_cost;
        let sections = engine.sections_of(&hit.id);
        let item_cap = cap.saturating_add(carry);
        let avail = budget.saturating_sub(used + list_reserve);
        let content_avail = avail.saturating_sub(later_refs[i + 1].min(reference_reserve));
        let limit = item_cap.min(content_avail);
        let bare = |mode: Mode| base(head_cost, mode, &hit.why);
        // Full.
        let full: u32 = bare(Mode::Full) + sections.iter().map(|s| JOIN + s.tokens).sum::<u32>();
        let (mode, chosen, cost) = if full <= limit {
            (Mode::Full, (0..sections.len()).collect::<Vec<_>>(), full)
        } else {
            // Excerpt: the best-matching section first, then the others in order of
            // usefulness, while they fit.
            let mut order: Vec<usize> = (0..sections.len()).collect();
            let best = match &hit.why {
                Why::Seed {
                    section_id: Some(id), ..
                } => sections.iter().position(|s| &s.chunk == id),
                _ => None,
            };
            order.sort_by_key(|&i| (Some(i) != best, section_rank(&sections[i].heading), i));
            let mut cost = bare(Mode::Excerpt);
            let mut picked = Vec::new();
            for i in order {
                let c = JOIN + sections[i].tokens;
                if cost + c <= limit {
                    cost += c;
                    picked.push(i);
                }
            }
            if !picked.is_empty() {
                picked.sort();
                (Mode::Excerpt, picked, cost)
            } else if bare(Mode::Reference) <= avail {
                (Mode::Reference, Vec::new(), bare(Mode::Reference))
            } else {
                left_out.push(hit);
                continue;
            }
        };
        used += cost;
        carry = item_cap.saturating_sub(cost);
        blocks.push(Block {
            text: header.clone(),
            cost: head_cost,
        });
        let ml = mode_line(mode, &hit.why);
        blocks.push(Block {
            cost: bound(&ml),
            text: ml,
        });
        for &i in &chosen {
            let s = &sections[i];
            blocks.push(Block {
                text: render::section_block(&s.heading, &s.text),
                cost: s.tokens,
            });
        }
        items.push(PackItem {
            id: hit.id.clone(),
            path: hit.path.clone(),
            title: hit.title.clone(),
            r#type: hit.r#type.clone(),
            state: hit.state.clone(),
            mode,
            tokens: cost,
            sections: chosen.iter().map(|&i| sections[i].chunk.clone()).collect(),
            why: hit.why.clone(),
        });
    }
    // The items that did not fit, as a list, as far as the budget allows.
    let mut not_included = Vec::new();
    if !left_out.is_empty() {
        let heading = "## Not included".to_string();
        let mut lines = Vec::new();
        let mut cost = JOIN + bound(&heading);
        for h in &left_out {
            let line = format!("- {} — {}", h.id, render::one_line(&h.title));
            let c = JOIN + bound(&line);
            if used + cost + c <= budget {
                cost += c;
                lines.push(line);
                not_included.push(omitted(h));
            }
        }
        if !lines.is_empty() {
            used += cost;
            blocks.push(Block {
                text: format!("{heading}\n{}", lines.join("\n")),
                cost: cost - JOIN,
            });
        }
    }
    let counts = [
        items.iter().filter(|i| i.mode == Mode::Full).count(),
        items.iter().filter(|i| i.mode == Mode::Excerpt).count(),
        items.iter().filter(|i| i.mode == Mode::Reference).count(),
        left_out.len(),
    ];
    // `used` keeps the stats line's reserve: the printed line is never longer.
    let stats_line = stats(used, counts);
    debug_assert!(bound(&stats_line) <= stats_reserve);
    blocks.insert(
        1,
        Block {
            cost: stats_reserve,
            text: stats_line,
        },
    );
    let markdown = blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n\n") + "\n";
    Pack {
        query: query.to_string(),
        budget,
        used,
        tokenizer,
        items,
        not_included,
        markdown,
    }
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
        "goal" => 1,
        "context" => 2,
        "acceptance criteria" => 3,
        "approach" => 4,
        "consequences" => 5,
        "worklog" => 9,
        _ => 6,
    }
}
