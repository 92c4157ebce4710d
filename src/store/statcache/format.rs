//! The stat cache's file, a line at a time: its header, and its `F` (source file), `O`
//! (index output), `D` (walked folder) and `W` (watched ignore file) lines.

use super::{MAGIC, RACY, Stamp};

/// An `F` (file) or `O` (output) line of the cache file, without its newline.
pub(super) fn entry_line(kind: &str, st: &Stamp, hash: &str, path: &str) -> String {
    let mut line = format!("{kind} ");
    st.write(&mut line);
    line.push_str(&format!(" {hash} {path}"));
    line
}

/// The header of a cache file: (complete, config digest, sidecar digest).
pub(super) fn parse_header(line: &str) -> Option<(bool, &str, &str)> {
    let mut head = line.strip_prefix(MAGIC)?.split_whitespace();
    Some((head.next()? == "1", head.next()?, head.next()?))
}

/// One line of a cache file.
pub(super) enum Line<'a> {
    /// `F`: a source file, its stamp and hash.
    File(&'a str, Stamp, &'a str),
    /// `O`: an index output, its stamp and digest.
    Output(&'a str, Stamp, &'a str),
    /// `D`: a walked folder, its stamp, and whether it is racy.
    Dir(&'a str, Stamp, bool),
    /// `W`: a watched ignore file and its stamp (None: absent).
    Watch(&'a str, Option<Stamp>),
}

pub(super) fn parse_line(line: &str) -> Option<Line<'_>> {
    let (kind, rest) = line.split_once(' ')?;
    if kind == "W" {
        let (stamp, path) = rest.split_once(' ')?;
        let st = if stamp == "-" {
            None
        } else {
            Some(parse_stamp(&mut stamp.split(','))?)
        };
        return Some(Line::Watch(path, st));
    }
    let mut it = rest.splitn(6, ' ');
    let st = parse_stamp(&mut it)?;
    let hash = it.next()?;
    let path = it.next()?;
    match kind {
        "F" => Some(Line::File(path, st, hash)),
        "O" => Some(Line::Output(path, st, hash)),
        "D" => Some(Line::Dir(path, st, hash.starts_with(RACY))),
        _ => None,
    }
}

fn parse_stamp<'a>(it: &mut impl Iterator<Item = &'a str>) -> Option<Stamp> {
    Some(Stamp {
        size: it.next()?.parse().ok()?,
        mtime: it.next()?.parse().ok()?,
        ctime: it.next()?.parse().ok()?,
        ino: it.next()?.parse().ok()?,
    })
}
