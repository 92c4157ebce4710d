//! Line ends as git stores them: a CRLF pair read as LF, so a checkout with
//! `core.autocrlf` (or an `eol=crlf` attribute) and one without give the same index.

/// `bytes` with every CRLF pair as LF (a lone CR is kept, as git keeps it). Allocates
/// only when there is a CR.
pub fn lf(bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.contains(&b'\r') {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes.as_slice();
    while let Some(at) = rest.iter().position(|&b| b == b'\r') {
        out.extend_from_slice(&rest[..at]);
        if rest.get(at + 1) != Some(&b'\n') {
            out.push(b'\r');
        }
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::lf;

    #[test]
    fn crlf_pairs_become_lf_and_lone_crs_stay() {
        assert_eq!(lf(b"a\r\nb\r\n".to_vec()), b"a\nb\n");
        assert_eq!(lf(b"a\rb\r\r\nc\r".to_vec()), b"a\rb\r\nc\r");
        assert_eq!(lf(b"plain\n".to_vec()), b"plain\n");
        assert_eq!(lf(Vec::new()), b"");
    }
}
