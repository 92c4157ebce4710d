//! An o200k_base token counter that needs no load step: the vocabulary is a hash table
//! written by `build.rs` and read in place from the binary, the pre-tokenizer is the
//! o200k regex compiled into a DFA by `build.rs` (read in place too), and each piece is
//! merged as tiktoken does (the adjacent pair of lowest rank first). `bpe-openai`, which produces tiktoken's tokens,
//! spends ≈45 ms deserializing its tables before the first count; a pack paid that on
//! every run. Tests compare every count with `bpe-openai` (unit tests here, the fixtures
//! and, when present, the EIP corpus).

use regex_automata::dfa::{Automaton, dense};
use regex_automata::{Anchored, Input};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

include!("o200k_hash.rs");

static DATA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bin"));

/// The vocabulary table laid out by build.rs.
struct Vocab {
    n: usize,
    mask: usize,
    offsets: &'static [u8],
    table: &'static [u8],
    bytes: &'static [u8],
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

impl Vocab {
    fn get() -> &'static Vocab {
        static V: OnceLock<Vocab> = OnceLock::new();
        V.get_or_init(|| {
            let n = u32_at(DATA, 0) as usize;
            let slots = u32_at(DATA, 1) as usize;
            let (offsets, rest) = DATA[8..].split_at(4 * (n + 1));
            let (table, bytes) = rest.split_at(4 * slots);
            Vocab {
                n,
                mask: slots - 1,
                offsets,
                table,
                bytes,
            }
        })
    }

    fn token(&self, id: usize) -> &'static [u8] {
        &self.bytes[u32_at(self.offsets, id) as usize..u32_at(self.offsets, id + 1) as usize]
    }

    /// The rank (token id) of `piece`, if it is a token.
    fn rank(&self, piece: &[u8]) -> Option<u32> {
        let mut slot = (slot_hash(piece) as usize) & self.mask;
        loop {
            let v = u32_at(self.table, slot);
            if v == 0 {
                return None;
            }
            let id = (v - 1) as usize;
            if id < self.n && self.token(id) == piece {
                return Some(v - 1);
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Tokens of one pre-tokenized piece: tiktoken's byte-pair merge (the adjacent pair
    /// whose bytes have the lowest rank merges first, the leftmost on a tie), with a heap
    /// and a linked list of parts, so a long piece costs n·log n, not n².
    fn count_piece(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        if n <= 1 || self.rank(piece).is_some() {
            return usize::from(n > 0);
        }
        if n <= SMALL {
            return self.count_small(piece);
        }
        // Parts start at the alive positions; next[i] is where the part at i ends.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut heap: BinaryHeap<Reverse<(u32, usize, usize)>> = BinaryHeap::new();
        let push = |heap: &mut BinaryHeap<_>, a: usize, b: usize| {
            if let Some(r) = self.rank(&piece[a..b]) {
                heap.push(Reverse((r, a, b)));
            }
        };
        for i in 0..n - 1 {
            push(&mut heap, i, i + 2);
        }
        let mut parts = n;
        while let Some(Reverse((_, i, end))) = heap.pop() {
            // Stale unless the parts at i and after it still span exactly i..end.
            let j = next[i];
            if !alive[i] || j >= n || next[j] != end {
                continue;
            }
            alive[j] = false;
            next[i] = end;
            if end < n {
                prev[end] = Some(i);
                push(&mut heap, i, next[end]);
            }
            if let Some(p) = prev[i] {
                push(&mut heap, p, end);
            }
            parts -= 1;
        }
        parts
    }

    /// [`Self::count_piece`] for a piece of at most [`SMALL`] bytes, as tiktoken merges
    /// one: parts and pair ranks in arrays on the stack, the lowest rank found by a
    /// scan. Most pieces that are not one token are short, and for them the heap's three
    /// allocations cost more than the merges.
    fn count_small(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // starts[..=m]: where the m parts start, then n; ranks[i]: the rank of parts i
        // and i + 1 merged (u32::MAX when that is no token).
        let mut starts = [0u8; SMALL + 1];
        let mut ranks = [u32::MAX; SMALL];
        for (i, s) in starts.iter_mut().enumerate().take(n + 1) {
            *s = i as u8;
        }
        let pair = |starts: &[u8; SMALL + 1], i: usize| {
            self.rank(&piece[starts[i] as usize..starts[i + 2] as usize])
                .unwrap_or(u32::MAX)
        };
        for (i, r) in ranks.iter_mut().enumerate().take(n - 1) {
            *r = pair(&starts, i);
        }
        let mut m = n;
        while m > 1 {
            let mut best = 0;
            for i in 1..m - 1 {
                if ranks[i] < ranks[best] {
                    best = i;
                }
            }
            if ranks[best] == u32::MAX {
                break;
            }
            // Part best + 1 joins part best.
            starts.copy_within(best + 2..=m, best + 1);
            ranks.copy_within(best + 1..m - 1, best);
            m -= 1;
            if best + 1 < m {
                ranks[best] = pair(&starts, best);
            }
            if best > 0 {
                ranks[best - 1] = pair(&starts, best - 1);
            }
        }
        m
    }
}

/// Pieces up to this many bytes are merged by [`Vocab::count_small`].
const SMALL: usize = 32;

/// The o200k pre-tokenizer: tiktoken's pattern, with its look-ahead `\s+(?!\S)` written
/// as `\s+\s` whose last character is given back (as bpe-openai does), compiled by
/// build.rs into a DFA (the patterns are in `o200k_pattern.rs`) that is read in place.
fn pretokenizer() -> &'static dense::DFA<&'static [u32]> {
    /// The DFA's bytes, aligned as its tables of u32s need.
    #[repr(C, align(4))]
    struct Aligned<B: ?Sized>(B);
    static BYTES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/o200k_pretokenizer.dfa")));
    static DFA: OnceLock<dense::DFA<&'static [u32]>> = OnceLock::new();
    DFA.get_or_init(|| {
        dense::DFA::from_bytes(&BYTES.0)
            .expect("build.rs wrote the pre-tokenizer DFA")
            .0
    })
}

/// Check the pre-tokenizer's tables and touch the vocabulary now (for a thread started
/// early).
pub fn warm() {
    let _ = pretokenizer();
    let _ = Vocab::get();
}

/// o200k_base tokens in `text`.
pub fn count(text: &str) -> usize {
    let mut total = 0;
    pieces(text, |_, n| total += n);
    total
}

/// o200k_base tokens in `text` and in `text` followed by `sep` (newlines), in one pass:
/// only the last piece is counted again, with `sep`. The pieces before it are the same
/// with or without the newlines after them: a piece that ends before the text does
/// either was stopped by a character of the text (no pattern consumes a newline
/// after what it has matched, except the punctuation run's tail, which would have
/// taken the text up to its end), or was a letter run waiting for a contraction that a
/// newline cannot complete; and no pattern looks back. Text that ends in whitespace
/// (where the look-ahead pattern would decide otherwise) is counted twice.
pub fn count_with(text: &str, sep: &str) -> (usize, usize) {
    if text.is_empty() || text.ends_with(char::is_whitespace) {
        return (count(text), count(&format!("{text}{sep}")));
    }
    let (mut total, mut last_start, mut last_end, mut last_n) = (0, 0, 0, 0);
    pieces(text, |end, n| {
        total += n;
        last_start = last_end;
        last_end = end;
        last_n = n;
    });
    (total, total - last_n + count(&format!("{}{sep}", &text[last_start..])))
}

/// Where each pre-tokenized piece of `text` ends, with the tokens up to there. A prefix
/// of `text` that ends at a piece end and does not end in whitespace has exactly those
/// tokens: the pre-tokenizer matches the same pieces in it (the one pattern that looks
/// ahead only matches whitespace).
pub fn piece_ends(text: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let mut total = 0;
    pieces(text, |end, n| {
        total += n;
        out.push((end, total as u32));
    });
    out
}

/// Call `f` with the end and the token count of each piece of `text`, in order.
fn pieces(text: &str, mut f: impl FnMut(usize, usize)) {
    let re = pretokenizer();
    let vocab = Vocab::get();
    let mut last = 0;
    while last < text.len() {
        let input = Input::new(&text[last..]).anchored(Anchored::Yes);
        let Ok(Some(m)) = re.try_search_fwd(&input) else {
            // Every character matches one of the patterns; should one not, count the
            // rest byte by byte rather than stop.
            f(text.len(), text.len() - last);
            return;
        };
        let mut end = last + m.offset();
        if m.pattern().as_usize() == 1 {
            // The look-ahead pattern: give its last character back.
            let back = text[last..end].chars().next_back().map_or(0, char::len_utf8);
            if end - back > last {
                end -= back;
            }
        }
        if end == last {
            // An empty match cannot advance; take one character.
            end = last + text[last..].chars().next().map_or(1, char::len_utf8);
        }
        f(end, vocab.count_piece(&text.as_bytes()[last..end]));
        last = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(text: &str) -> usize {
        bpe_openai::o200k_base().count(text)
    }

    #[test]
    fn vocabulary_table_is_complete() {
        let v = Vocab::get();
        assert!(v.n > 199_000, "{}", v.n);
        for id in (0..v.n).step_by(97) {
            assert_eq!(v.rank(v.token(id)), Some(id as u32));
        }
        assert_eq!(v.rank(b"definitely-not-a-single-token-xyzzy"), None);
    }

    #[test]
    fn counts_equal_bpe_openai_on_tricky_text() {
        let cases = [
            "",
            " ",
            "\n",
            "\n\n",
            "   \n  indented\n\ttab",
            "hello world",
            "Hello World's THE best'LL",
            "## QRY-FTR-0002 — Conflict-free checklist sync\nFeature · InProgress · items/x.md",
            "price: $1,234.56 (≈ €1 100) 100% 12345678",
            "emoji 👩‍👩‍👧 and 日本語のテキスト and العربية and combining é e\u{301}",
            "```rust\nfn main() { println!(\"hi\"); }\n```",
            "a  b   c    d\u{a0}e\u{2003}f",
            "trailing spaces   ",
            "x\r\ny\r\n\r\n",
            "0x01ffc9a7 0xffffffff `interfaceID`",
            "https://github.com/ethereum/EIPs/issues/1761 ./eip-165.md",
            "ÄÖÜäöüß ΑΒΓαβγ Привет",
            "\u{301}\u{302} lone marks",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ];
        for c in cases {
            assert_eq!(count(c), reference(c), "{c:?}");
        }
    }

    /// Compare every file below `root`, whole and line by line; the number of files.
    fn compare_files(root: &std::path::Path) -> usize {
        let mut files = 0;
        for entry in ignore::Walk::new(root).flatten() {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            assert_eq!(count(&text), reference(&text), "{}", entry.path().display());
            for line in text.lines() {
                assert_eq!(count(line), reference(line), "{}: {line:?}", entry.path().display());
                let with = format!("{line}\n\n");
                assert_eq!(
                    count_with(line, "\n\n"),
                    (reference(line), reference(&with)),
                    "{}: {line:?}",
                    entry.path().display()
                );
            }
            files += 1;
        }
        files
    }

    #[test]
    fn counts_equal_bpe_openai_on_the_fixtures() {
        let files = compare_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("backlog-fixtures"));
        assert!(files > 50, "{files}");
    }

    #[test]
    #[ignore = "slow: every file of ../shared/corpora, whole and line by line"]
    fn counts_equal_bpe_openai_on_the_real_corpora() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
        if !root.is_dir() {
            eprintln!("skipping: {} is absent", root.display());
            return;
        }
        let files = compare_files(&root);
        assert!(files > 1000, "{files}");
    }

    proptest::proptest! {
        #[test]
        fn counts_equal_bpe_openai_on_any_text(s in "\\PC{0,80}") {
            proptest::prop_assert_eq!(count(&s), reference(&s));
        }

        #[test]
        fn counts_equal_bpe_openai_on_markdownish_text(s in "[ a-zA-Z0-9\\n\\t#*_`.,:;'()\\[\\]/-]{0,120}") {
            proptest::prop_assert_eq!(count(&s), reference(&s));
        }

        #[test]
        fn count_with_equals_both_counts(s in "([ a-zA-Zé0-9\n\t#*`.,:;'’()\\[\\]/!?-]|\\PC){0,100}", blank in proptest::bool::ANY) {
            let sep = if blank { "\n\n" } else { "\n" };
            let with = format!("{s}{sep}");
            proptest::prop_assert_eq!(count_with(&s, sep), (reference(&s), reference(&with)), "{:?}", s);
        }

        /// A pack cuts a section after a word and adds ` …`: where the cut falls on a
        /// piece end, the tokens up to there are the prefix's.
        #[test]
        fn prefixes_at_piece_ends_count_as_the_whole_says(s in "([ a-zA-Zé0-9\\n#*`.,:'/-]|\\PC){0,120}") {
            for (end, before) in piece_ends(&s) {
                let prefix = &s[..end];
                if prefix.ends_with(char::is_whitespace) {
                    continue;
                }
                proptest::prop_assert_eq!(count(prefix), before as usize, "{:?}", prefix);
                proptest::prop_assert_eq!(count(&format!("{prefix} …")), before as usize + count(" …"));
            }
        }
    }
}
