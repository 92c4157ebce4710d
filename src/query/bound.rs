//! Bounded answers: the most of a listing (`tree`, `list`, `ready`, `neighbors`,
//! `search`) that fits a limit on its entries and a token budget on its printed form,
//! with what was left out counted, never dropped silently.
//!
//! Each report knows how to cut itself to its `n` most useful entries ([`Bounded`]:
//! work before requirements and documents, each in the report's own order); [`fit`]
//! finds the largest `n` whose rendering, counted with the tokenizer, is within the
//! budget. The rendering is the caller's (text, JSON, a compact MCP shape), so the
//! budget holds for exactly what is printed.

use crate::text::tokens::{self, Tokenizer};

/// A report that can be cut to its most useful entries, counting the rest.
pub trait Bounded: Clone {
    /// Entries it holds now.
    fn entries(&self) -> usize;
    /// Keep at most `n` entries, the most useful first, and count the others in the
    /// report's `more` (or `omitted`) field. A report always keeps what it is about (a
    /// tree its root, a neighborhood the node asked for).
    fn keep(&mut self, n: usize);
}

/// How a listing is bounded: at most `limit` entries, at most `budget` tokens printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Most entries.
    pub limit: Option<usize>,
    /// Most tokens of the printed answer.
    pub budget: Option<u32>,
}

/// `full` cut to the most entries within `bounds`, with its rendering: the largest
/// count of entries whose `render` is within the budget (counted with `tokenizer`).
/// When not even the smallest cut fits, that cut is returned: the caller says so.
pub fn fit<T: Bounded>(full: &T, bounds: Bounds, tokenizer: Tokenizer, render: impl Fn(&T) -> String) -> (T, String) {
    let total = full.entries();
    let top = bounds.limit.map_or(total, |l| l.min(total));
    let cut = |n: usize| {
        let mut t = full.clone();
        if n < total {
            t.keep(n);
        }
        let text = render(&t);
        (t, text)
    };
    let first = cut(top);
    let Some(budget) = bounds.budget else {
        return first;
    };
    let fits = |text: &str| tokens::count(tokenizer, text) <= budget;
    if fits(&first.1) {
        return first;
    }
    // The printed size grows with the entries kept: the largest count that fits, by
    // bisection (a few renders of a cut report, each counted once).
    let (mut lo, mut hi) = (0usize, top);
    let mut best: Option<(T, String)> = None;
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        let (t, text) = cut(mid);
        if fits(&text) {
            lo = mid;
            best = Some((t, text));
        } else {
            hi = mid - 1;
        }
    }
    best.unwrap_or_else(|| cut(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct Words {
        words: Vec<String>,
        more: usize,
    }

    impl Bounded for Words {
        fn entries(&self) -> usize {
            self.words.len()
        }
        fn keep(&mut self, n: usize) {
            self.more += self.words.len().saturating_sub(n);
            self.words.truncate(n);
        }
    }

    fn render(w: &Words) -> String {
        format!("{} (+{} more)", w.words.join(" "), w.more)
    }

    #[test]
    fn the_largest_cut_within_the_budget_is_kept_and_the_rest_counted() {
        let full = Words {
            words: (0..500).map(|i| format!("word{i}")).collect(),
            more: 0,
        };
        let o = Tokenizer::O200k;
        let (all, _) = fit(&full, Bounds::default(), o, render);
        assert_eq!((all.words.len(), all.more), (500, 0));
        let (ten, _) = fit(
            &full,
            Bounds {
                limit: Some(10),
                budget: None,
            },
            o,
            render,
        );
        assert_eq!((ten.words.len(), ten.more), (10, 490));
        let bounds = Bounds {
            limit: None,
            budget: Some(100),
        };
        let (cut, text) = fit(&full, bounds, o, render);
        assert!(tokens::count(o, &text) <= 100, "{text}");
        assert_eq!(cut.words.len() + cut.more, 500);
        // One more entry would not fit.
        let mut one_more = full.clone();
        one_more.keep(cut.words.len() + 1);
        assert!(tokens::count(o, &render(&one_more)) > 100);
    }
}
