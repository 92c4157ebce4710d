// The o200k pre-tokenizer as three patterns searched leftmost-first. Shared, by
// `include!`, between build.rs (which compiles them into a DFA) and src/text/bpe.rs
// (which searches with it).
//
// The first pattern is o200k's regex with its look-ahead alternative (`\s+(?!\S)`)
// written as two: `\s+$` (whitespace that ends the text), and pattern 1, `\s+\s`,
// whose match gives its last character back (the whitespace before a non-space). No
// other pattern looks ahead. Pattern 2 is o200k's last alternative, `\s+`.

/// The patterns, in priority order.
pub const O200K_PATTERNS: [&str; 3] = [
    concat!(
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "|\\p{N}{1,3}",
        "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "|\\s*[\\r\\n]+",
        "|\\s+$",
    ),
    "\\s+\\s",
    "\\s+",
];
