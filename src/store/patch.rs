//! Patch a sorted JSON-lines output instead of writing it again from records: find lines
//! by binary search over byte positions (a few reads, not the whole file), drop some,
//! insert others in order, and copy the unchanged byte ranges between them in the kernel
//! (`std::io::copy` of file ranges is `copy_file_range` on Linux). The digest follows
//! from the old one: [`LineDigest`] is a sum over lines.

use crate::store::files::LineDigest;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// A sorted JSON-lines file opened for reading by position.
#[derive(Debug)]
pub struct Sorted {
    file: File,
    len: u64,
}

impl Sorted {
    /// Open `path`.
    pub fn open(path: &Path) -> std::io::Result<Sorted> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Sorted { file, len })
    }

    /// The line starting at `pos`, with its newline (the last line may have none).
    pub fn line(&self, pos: u64) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        let mut at = pos;
        while at < self.len {
            let n = read_at(&self.file, &mut buf, at)?;
            if n == 0 {
                break;
            }
            if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
                out.extend_from_slice(&buf[..=i]);
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
            at += n as u64;
        }
        Ok(out)
    }

    /// The first line start at or after `pos`.
    fn next_start(&self, pos: u64) -> std::io::Result<u64> {
        if pos == 0 {
            return Ok(0);
        }
        // The line holding byte `pos - 1` ends somewhere at or after it.
        let mut buf = [0u8; 4096];
        let mut at = pos - 1;
        while at < self.len {
            let n = read_at(&self.file, &mut buf, at)?;
            if n == 0 {
                break;
            }
            if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
                return Ok(at + i as u64 + 1);
            }
            at += n as u64;
        }
        Ok(self.len)
    }

    /// The start of the first line for which `ge` holds (the file's length when none
    /// does). `ge` must be false for a prefix of the lines and true for the rest, as
    /// "key ≥ x" is for a file sorted by key.
    pub fn lower_bound(&self, ge: impl Fn(&[u8]) -> bool) -> std::io::Result<u64> {
        let (mut lo, mut hi) = (0u64, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let s = self.next_start(mid)?;
            // No line starts in [mid, hi): look at the line at `lo` instead.
            let at = if s < hi { s } else { lo };
            let line = self.line(at)?;
            if line.is_empty() {
                return Ok(hi);
            }
            if ge(&line) {
                hi = at;
            } else {
                lo = at + line.len() as u64;
            }
        }
        Ok(hi)
    }

    /// The lines in `[from, to)` (both line starts), each with its start.
    pub fn lines(&self, from: u64, to: u64) -> std::io::Result<Vec<(u64, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut at = from;
        while at < to {
            let line = self.line(at)?;
            if line.is_empty() {
                break;
            }
            let next = at + line.len() as u64;
            out.push((at, line));
            at = next;
        }
        Ok(out)
    }
}

/// Changes to a sorted file: whole lines removed (by start) and lines inserted before a
/// line start (or at the end).
#[derive(Debug, Default)]
pub struct Patch {
    /// (start, line) of each removed line.
    removed: Vec<(u64, Vec<u8>)>,
    /// (position, line) of each inserted line, in insertion order at equal positions.
    inserted: Vec<(u64, Vec<u8>)>,
}

impl Patch {
    /// Remove the line `line` starting at `start`.
    pub fn remove(&mut self, start: u64, line: Vec<u8>) {
        self.removed.push((start, line));
    }

    /// Insert `line` (newline included) at `pos`, a line start.
    pub fn insert(&mut self, pos: u64, line: Vec<u8>) {
        self.inserted.push((pos, line));
    }

    /// True when nothing changes: no line removed or inserted, or the lines inserted are
    /// the lines removed (a record written again as it was, at its place: the file is
    /// sorted, so equal lines go back where they were).
    pub fn is_empty(&self) -> bool {
        if self.removed.len() != self.inserted.len() {
            return false;
        }
        let mut a: Vec<&[u8]> = self.removed.iter().map(|(_, l)| l.as_slice()).collect();
        let mut b: Vec<&[u8]> = self.inserted.iter().map(|(_, l)| l.as_slice()).collect();
        a.sort_unstable();
        b.sort_unstable();
        a == b
    }

    /// The removed lines.
    pub fn removed(&self) -> impl Iterator<Item = &[u8]> {
        self.removed.iter().map(|(_, l)| l.as_slice())
    }

    /// The digest after the patch, from the digest before.
    pub fn digest(&self, before: LineDigest) -> LineDigest {
        let mut added = LineDigest::default();
        for (_, l) in &self.inserted {
            added.add(l);
        }
        let mut gone = LineDigest::default();
        for (_, l) in &self.removed {
            gone.add(l);
        }
        before.merged(added, gone)
    }

    /// Net change in the number of lines.
    pub fn line_delta(&self) -> isize {
        self.inserted.len() as isize - self.removed.len() as isize
    }

    /// Write the patched file to `out`: the unchanged ranges of `src` copied, the
    /// inserted lines written, the removed ones skipped.
    pub fn write(mut self, src: &Sorted, out: &mut File) -> std::io::Result<()> {
        self.removed.sort_by_key(|(s, _)| *s);
        self.removed.dedup_by_key(|(s, _)| *s);
        // Stable: lines inserted at one position keep their order.
        self.inserted.sort_by_key(|(p, _)| *p);
        let mut reader = &src.file;
        let mut cursor = 0u64;
        let mut copy_to = |to: u64, cursor: &mut u64, out: &mut File| -> std::io::Result<()> {
            if to > *cursor {
                reader.seek(SeekFrom::Start(*cursor))?;
                let n = std::io::copy(&mut Read::by_ref(&mut reader).take(to - *cursor), out)?;
                if n != to - *cursor {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file changed while it was patched",
                    ));
                }
                *cursor = to;
            }
            Ok(())
        };
        let mut removed = self.removed.iter().peekable();
        for (pos, line) in &self.inserted {
            // Removed lines before this position go first.
            while let Some((start, old)) = removed.next_if(|(s, _)| s < pos) {
                copy_to(*start, &mut cursor, out)?;
                cursor = cursor.max(start + old.len() as u64);
            }
            copy_to(*pos, &mut cursor, out)?;
            out.write_all(line)?;
        }
        for (start, old) in removed {
            copy_to(*start, &mut cursor, out)?;
            cursor = cursor.max(start + old.len() as u64);
        }
        copy_to(src.len, &mut cursor, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(lines: &[&str]) -> (tempfile::TempDir, Sorted) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.jsonl");
        std::fs::write(&p, lines.concat()).unwrap();
        let s = Sorted::open(&p).unwrap();
        (dir, s)
    }

    fn patched(s: &Sorted, p: Patch) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut f = File::create(dir.path().join("out")).unwrap();
        p.write(s, &mut f).unwrap();
        std::fs::read_to_string(dir.path().join("out")).unwrap()
    }

    #[test]
    fn lower_bound_finds_every_position() {
        let long = format!("d{}\n", "x".repeat(10_000));
        let lines = ["a\n", "b\n", "b\n", "c\n", long.as_str(), "e\n"];
        let (_d, s) = sorted(&lines);
        let starts: Vec<u64> = lines
            .iter()
            .scan(0u64, |at, l| {
                let s = *at;
                *at += l.len() as u64;
                Some(s)
            })
            .collect();
        for (key, want) in [("a", 0), ("b", 1), ("c", 3), ("d", 4), ("e", 5), ("f", 6), ("", 0)] {
            let got = s.lower_bound(|l| l[..1] >= *key.as_bytes()).unwrap();
            let want = starts.get(want).copied().unwrap_or(s.len);
            assert_eq!(got, want, "key {key}");
        }
        let (_e, empty) = sorted(&[]);
        assert_eq!(empty.lower_bound(|_| true).unwrap(), 0);
    }

    #[test]
    fn a_patch_is_the_sorted_result_and_its_digest() {
        let lines = ["a\n", "b\n", "c\n", "d\n"];
        let (_d, s) = sorted(&lines);
        let before = LineDigest::of(lines.concat().as_bytes());
        let mut p = Patch::default();
        p.remove(2, b"b\n".to_vec());
        p.insert(2, b"b2\n".to_vec());
        p.insert(2, b"b3\n".to_vec());
        p.remove(6, b"d\n".to_vec());
        p.insert(8, b"e\n".to_vec());
        p.insert(0, b"0\n".to_vec());
        let digest = p.digest(before);
        assert_eq!(p.line_delta(), 2);
        let out = patched(&s, p);
        assert_eq!(out, "0\na\nb2\nb3\nc\ne\n");
        assert_eq!(digest, LineDigest::of(out.as_bytes()));
    }
}
