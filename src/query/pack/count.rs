//! Block token counts: an item's block counted from its parts (head, sections,
//! excerpts), each with the newlines that follow it, where o200k's pieces allow.

use super::cand::{Cand, Part, block};
use crate::text::tokens::{self, Tokenizer};

/// An item's block counted from its parts: alone, with the blank line after it, and
/// (see [`Counted::newline`]) with one newline.
pub(super) struct Counted {
    pub(super) alone: u32,
    pub(super) blank: u32,
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
    pub(super) fn newline(&self, tokenizer: Tokenizer, c: &Cand) -> u32 {
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
pub(super) fn block_counts(tokenizer: Tokenizer, c: &Cand) -> Option<Counted> {
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
pub(super) fn last_piece_line(text: &str) -> &str {
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
pub(super) fn starts_piece(block: &str) -> bool {
    block.chars().next().is_some_and(|c| !c.is_whitespace() && c != '/')
}

#[cfg(test)]
mod tests {
    use super::super::cand::tests::{cand, hit};
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
    /// An item's block counted from its parts has the count of the text the pack prints
    /// for it: alone, with a blank line after it and with one newline, whatever its last
    /// part is (the head, a whole section, an excerpt).
    #[test]
    fn block_counts_add_up_to_the_count_of_the_item_text() {
        let o = Tokenizer::O200k;
        let h = hit("T-1");
        let head = "## T-1 — Title of T-1\nTask · Open · T-1.md\nexcerpt · why: seed: matched \"export\" in § Goal";
        let mut c = cand(
            &h,
            head,
            &[
                ("Goal", "Make the PDF export work.\n\nIt ends in a period."),
                ("", "An intro without a heading ends in a URL https://x.y/"),
                ("Notes", "- a list\n- of items, then `code`:\n\n```\nfn f() {}\n```"),
            ],
        );
        let check = |c: &Cand, text: &str| {
            let n = block_counts(o, c).expect("every part starts a piece");
            assert_eq!(n.alone, tokens::count(o, text), "{text:?}");
            assert_eq!(n.blank, tokens::count(o, &format!("{text}\n\n")), "{text:?}");
            assert_eq!(n.newline(o, c), tokens::count(o, &format!("{text}\n")), "{text:?}");
        };
        check(&c, head);
        c.chosen = vec![(0, None)];
        check(&c, &format!("{head}\n\n{}", block(&c, 0)));
        c.chosen.push((1, None));
        check(&c, &format!("{head}\n\n{}\n\n{}", block(&c, 0), block(&c, 1)));
        let excerpt = "### Notes\n\n- a list …";
        c.chosen
            .push((2, Some((excerpt.to_string(), tokens::count(o, excerpt)))));
        check(
            &c,
            &format!("{head}\n\n{}\n\n{}\n\n{excerpt}", block(&c, 0), block(&c, 1)),
        );
    }

    /// A section a newline could run into is no part of its own: the block is counted
    /// as a whole text instead.
    #[test]
    fn a_section_that_starts_no_piece_is_not_counted_apart() {
        let h = hit("T-1");
        let mut c = cand(&h, "## T-1 — x", &[("", "/usr/bin is a path"), ("Goal", "Ship.")]);
        c.chosen = vec![(1, None)];
        assert!(block_counts(Tokenizer::O200k, &c).is_some());
        c.chosen = vec![(0, None), (1, None)];
        assert!(block_counts(Tokenizer::O200k, &c).is_none());
        c.chosen = vec![(1, Some((" indented …".to_string(), 3)))];
        assert!(block_counts(Tokenizer::O200k, &c).is_none());
    }
}
