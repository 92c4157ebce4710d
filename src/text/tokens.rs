//! Token counts for context packs: o200k (the tokenizer of current OpenAI models) by
//! default, or a cheap approximation (`pack.tokenizer = "approx"`: 1 token per 4 bytes,
//! rounded up).
//!
//! o200k is counted by [`super::bpe`], whose vocabulary is read in place from the binary:
//! no load step, so `pack` counts every line it prints exactly. Sections are counted at
//! index time, as the pack renders them, stored in the sidecar and reused by incremental
//! runs. Blocks are trimmed and joined with newlines, and o200k never merges a newline
//! with the text around it, so a pack's size is the sum of its parts plus one token per
//! join.

use serde::{Deserialize, Serialize};

/// Which token counter the index uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tokenizer {
    /// OpenAI's o200k_base, exact.
    #[default]
    O200k,
    /// ceil(bytes / 4): fast, approximate.
    Approx,
}

impl Tokenizer {
    /// Tokens in `text` for this counter: what a pack's `used` and its items' `tokens`
    /// measure.
    pub fn count(self, text: &str) -> u32 {
        count(self, text)
    }
}

/// Check the o200k pre-tokenizer's DFA (≈0.2 ms) and touch the vocabulary on a thread of
/// its own, for a run that will count soon; once per process (a server packs many times).
pub fn preload(t: Tokenizer) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    if t == Tokenizer::O200k {
        STARTED.call_once(|| {
            std::thread::spawn(super::bpe::warm);
        });
    }
}

/// Tokens in `text` for this counter.
pub fn count(t: Tokenizer, text: &str) -> u32 {
    match t {
        Tokenizer::O200k => super::bpe::count(text) as u32,
        Tokenizer::Approx => text.len().div_ceil(4) as u32,
    }
}

/// [`count`], remembered (o200k): for packs, which count the same blocks again in every
/// round of their binary search, and in a long-lived process (`mdgraph mcp`) the same
/// documents in many packs. Indexing counts each text once and calls [`count`].
pub fn count_cached(t: Tokenizer, text: &str) -> u32 {
    match t {
        Tokenizer::O200k => counted(text),
        Tokenizer::Approx => count(t, text),
    }
}

/// The tokens of `text` and of `text` followed by `sep` (newlines), remembered as
/// [`count_cached`] remembers them: o200k counts both in one pass (`bpe::count_with`).
pub fn count_with_cached(t: Tokenizer, text: &str, sep: &str) -> (u32, u32) {
    match t {
        Tokenizer::O200k => {
            let [a, b] = remembered([text, &format!("{text}{sep}")], || {
                let (a, b) = super::bpe::count_with(text, sep);
                [a as u32, b as u32]
            });
            (a, b)
        }
        Tokenizer::Approx => (count(t, text), count(t, &format!("{text}{sep}"))),
    }
}

/// Where each o200k piece of `text` ends, with the tokens up to there (see
/// `bpe::piece_ends`); None for the approximate counter.
pub fn piece_ends(t: Tokenizer, text: &str) -> Option<Vec<(usize, u32)>> {
    (t == Tokenizer::O200k).then(|| super::bpe::piece_ends(text))
}

/// Texts counted at most this often between two clears of the memo.
const MEMO_MAX: usize = 1 << 16;

/// Texts shorter than this cost less to count than to look up.
const MEMO_MIN: usize = 64;

/// o200k counts by the text's blake3 digest, cleared when it holds [`MEMO_MAX`] texts.
fn memo() -> &'static std::sync::Mutex<std::collections::HashMap<[u8; 32], u32>> {
    static MEMO: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<[u8; 32], u32>>> =
        std::sync::OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// o200k counts memoized (see [`memo`]).
fn counted(text: &str) -> u32 {
    let [n] = remembered([text], || [super::bpe::count(text) as u32]);
    n
}

/// The o200k counts of `texts` from the memo, or made by `count` (all at once) and
/// remembered. Texts shorter than [`MEMO_MIN`] are counted, not looked up.
fn remembered<const N: usize>(texts: [&str; N], count: impl FnOnce() -> [u32; N]) -> [u32; N] {
    if texts.iter().all(|t| t.len() < MEMO_MIN) {
        return count();
    }
    let keys = texts.map(|t| *blake3::hash(t.as_bytes()).as_bytes());
    let memo = memo();
    {
        let m = memo.lock().unwrap_or_else(|p| p.into_inner());
        let known = keys.map(|k| m.get(&k).copied());
        if known.iter().all(Option::is_some) {
            return known.map(|n| n.unwrap_or(0));
        }
    }
    let counts = count();
    let mut m = memo.lock().unwrap_or_else(|p| p.into_inner());
    if m.len() + N > MEMO_MAX {
        m.clear();
    }
    for (k, n) in keys.into_iter().zip(counts) {
        m.insert(k, n);
    }
    counts
}

/// Tokens of the newline(s) joining two trimmed blocks (`\n` and `\n\n` are one token).
pub const JOIN: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_cost_one_token_and_parts_add_up() {
        let t = Tokenizer::O200k;
        assert_eq!(count(t, "\n"), JOIN);
        assert_eq!(count(t, "\n\n"), JOIN);
        let a = "## QRY-FTR-0002 — Conflict-free checklist sync\nFeature · InProgress · items/x.md";
        let b = "### Context\n\nField edits made offline on two devices\n  - nested list";
        for sep in ["\n", "\n\n"] {
            let whole = format!("{a}{sep}{b}");
            assert_eq!(count(t, &whole), count(t, a) + JOIN + count(t, b), "{sep:?}");
        }
        assert_eq!(count(Tokenizer::Approx, "abcde"), 2);
    }
}
