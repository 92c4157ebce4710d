//! Id mentions: the id-like tokens of Markdown text, which indexing resolves into
//! `mentions` edges and search matches against known ids.

/// Id-like tokens in Markdown text with their 0-based line offset: runs of letters,
/// digits and `-_.@` containing both a letter and a digit. Fenced code is skipped.
pub fn mention_candidates(text: &str) -> Vec<(&str, u32)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") {
            fence = Some("```");
            continue;
        }
        if t.starts_with("~~~") {
            fence = Some("~~~");
            continue;
        }
        // Byte scan: token bytes are ASCII, so every cut is a char boundary.
        let is_tok = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'@');
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !is_tok(b[i]) {
                i += 1;
                continue;
            }
            let start = i;
            let (mut digit, mut alpha) = (false, false);
            while i < b.len() && is_tok(b[i]) {
                digit |= b[i].is_ascii_digit();
                alpha |= b[i].is_ascii_alphabetic();
                i += 1;
            }
            if !(digit && alpha) {
                continue;
            }
            let tok = line[start..i].trim_matches(|c: char| matches!(c, '-' | '_' | '.' | '@'));
            if tok.len() >= 2 && tok.len() <= 128 {
                let tb = tok.as_bytes();
                if tb.iter().any(u8::is_ascii_digit) && tb.iter().any(u8::is_ascii_alphabetic) {
                    out.push((tok, n as u32));
                }
            }
        }
    }
    out
}
