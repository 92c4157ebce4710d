//! Running git, and what it says of its index: the staged files (`ls-files -s`), those
//! the working tree differs in (`diff-files`), blobs (`cat-file --batch`), paths as git
//! names them.

use crate::config::Config;
use crate::error::Error;
use crate::text::path::{absolute, relative_to};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Run git in `dir`; stdout on success.
pub(crate) fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Other(format!("git is needed here: {e}")))?;
    // Stdin is written from another thread while stdout is read: `cat-file --batch`
    // answers as it reads, and both pipes full would block both processes.
    let feeder = match (input, child.stdin.take()) {
        (Some(data), Some(mut stdin)) => {
            let data = data.to_vec();
            Some(std::thread::spawn(move || stdin.write_all(&data)))
        }
        _ => None,
    };
    let out = child.wait_with_output().map_err(|e| Error::io("git", e))?;
    if let Some(f) = feeder {
        f.join()
            .map_err(|_| Error::Other("git stdin: the writer panicked".into()))?
            .map_err(|e| Error::io("git stdin", e))?;
    }
    if !out.status.success() {
        return Err(Error::Other(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// The objects named by `specs` (`<commit>:<path>`, blob ids), in order, in one `git
/// cat-file --batch`: None for one git does not have.
pub(crate) fn objects(dir: &Path, specs: &[String]) -> Result<Vec<Option<Vec<u8>>>, Error> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let input: String = specs.iter().map(|s| format!("{s}\n")).collect();
    let bytes = git(dir, &["cat-file", "--batch"], Some(input.as_bytes()))?;
    let mut out = Vec::with_capacity(specs.len());
    let mut at = 0;
    while at < bytes.len() && out.len() < specs.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&bytes[at..at + nl]).into_owned();
        at += nl + 1;
        // `<id> <type> <size>`, or `<spec> missing` (no body follows).
        let size = match header.rsplit_once(' ') {
            Some((_, n)) if !header.ends_with(" missing") && !header.ends_with(" ambiguous") => n.parse::<usize>().ok(),
            _ => None,
        };
        match size {
            Some(n) => {
                let end = (at + n).min(bytes.len());
                out.push(Some(bytes[at..end].to_vec()));
                at = end + 1;
            }
            None => out.push(None),
        }
    }
    out.resize(specs.len(), None);
    Ok(out)
}

/// A path below `top` as git names it (`/` separators, no leading `./`); None outside.
pub(crate) fn in_repo(top: &Path, p: &Path) -> Option<String> {
    let rel = relative_to(top, p);
    (!rel.starts_with("..") && !Path::new(&rel).is_absolute()).then(|| if rel == "." { String::new() } else { rel })
}

/// The blob id of the empty file (what `git add -N` stages).
pub(crate) const EMPTY_BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

/// One staged file: its mode and blob id.
pub(crate) struct Staged {
    /// The mode (`100644`, `120000` for a symlink, `160000` for a submodule).
    pub(crate) mode: String,
    /// The blob id.
    pub(crate) blob: String,
    /// Marked skip-worktree or assume-unchanged (`git ls-files -v`: `S`, or a lower-case
    /// tag): git does not compare its working-tree copy, so `diff-files` never names it
    /// and its staged content is read from the blob.
    pub(crate) unwatched: bool,
}

/// `git ls-files -s -z` of the pathspecs: top-relative path → staged entry.
pub(crate) fn staged_files(top: &Path, specs: &[String]) -> Result<BTreeMap<String, Staged>, Error> {
    let mut args = vec!["ls-files", "-s", "-v", "-z", "--"];
    args.extend(specs.iter().map(String::as_str));
    let out = git(top, &args, None)?;
    let mut files = BTreeMap::new();
    for rec in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // `<tag> <mode> <blob> <stage>\t<path>`
        let rec = String::from_utf8_lossy(rec);
        let Some((head, path)) = rec.split_once('\t') else {
            continue;
        };
        let Some((tag, head)) = head.split_once(' ') else {
            continue;
        };
        let unwatched = tag == "S" || tag.chars().any(|c| c.is_ascii_lowercase());
        let mut parts = head.split(' ');
        let (Some(mode), Some(blob), Some(stage)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        // An unmerged path: the commit is refused by git itself.
        if stage != "0" {
            continue;
        }
        files.insert(
            path.to_string(),
            Staged {
                mode: mode.to_string(),
                blob: blob.to_string(),
                unwatched,
            },
        );
    }
    Ok(files)
}

/// Top-relative paths whose working-tree content may differ from the staged one: those
/// `git diff-files` names (deleted ones included), and every staged file git does not
/// compare (skip-worktree, assume-unchanged: their working-tree copy may hold anything).
pub(crate) fn differing(
    top: &Path,
    specs: &[String],
    staged: &BTreeMap<String, Staged>,
) -> Result<BTreeSet<String>, Error> {
    let mut args = vec!["diff-files", "--name-only", "-z", "--"];
    args.extend(specs.iter().map(String::as_str));
    let out = git(top, &args, None)?;
    let mut differ: BTreeSet<String> = out
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    differ.extend(staged.iter().filter(|(_, e)| e.unwatched).map(|(p, _)| p.clone()));
    Ok(differ)
}

/// The contents of blobs, by id, in one `git cat-file --batch`.
pub(crate) fn blobs(top: &Path, ids: &BTreeSet<&str>) -> Result<BTreeMap<String, Vec<u8>>, Error> {
    let mut out = BTreeMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let bytes = git(top, &["cat-file", "--batch"], Some(input.as_bytes()))?;
    let mut at = 0;
    while at < bytes.len() {
        let Some(nl) = bytes[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&bytes[at..at + nl]).into_owned();
        at += nl + 1;
        let mut h = header.split(' ');
        let (Some(id), Some(kind)) = (h.next(), h.next()) else {
            break;
        };
        // `<id> missing` (or `ambiguous`): no body follows.
        let Some(size) = h.next() else {
            continue;
        };
        let Ok(size) = size.parse::<usize>() else { break };
        let end = (at + size).min(bytes.len());
        if kind == "blob" {
            out.insert(id.to_string(), bytes[at..end].to_vec());
        }
        // The content is followed by a newline.
        at = end + 1;
    }
    Ok(out)
}

/// Text as the scan reads it: UTF-8 without a byte-order mark, CRLF as LF; None otherwise.
pub(crate) fn text_of(bytes: Vec<u8>) -> Option<String> {
    let mut s = String::from_utf8(crate::text::eol::lf(bytes)).ok()?;
    if s.starts_with('\u{feff}') {
        s.drain(..3);
    }
    Some(s)
}

/// The text of one blob (None when it is missing or not text).
pub(crate) fn blob_text(top: &Path, id: &str) -> Result<Option<String>, Error> {
    Ok(blobs(top, &BTreeSet::from([id]))?.remove(id).and_then(text_of))
}

/// The top of the git working tree holding `cfg.cwd`.
pub(crate) fn toplevel(cfg: &Config) -> Result<PathBuf, Error> {
    let top = String::from_utf8_lossy(&git(&cfg.cwd, &["rev-parse", "--show-toplevel"], None)?)
        .trim_end()
        .to_string();
    Ok(absolute(Path::new(&top)))
}

/// The error for a folder or file of the config that is not in the working tree `top`.
pub(crate) fn outside(cfg: &Config, top: &Path, what: &str, p: &Path) -> Error {
    Error::Other(format!(
        "check --staged: the {what} {} is outside the git working tree {}",
        cfg.display(p),
        top.display()
    ))
}

/// What the commit changes under the root, root-relative (against HEAD; everything in a
/// first commit).
pub(crate) fn committed(top: &Path, root: &str, prefix: &str, staged: &BTreeMap<String, Staged>) -> BTreeSet<String> {
    match git(
        top,
        &[
            "diff-index",
            "--cached",
            "--name-only",
            "-z",
            "--no-renames",
            "HEAD",
            "--",
            &pathspec(root),
        ],
        None,
    ) {
        Ok(out) => out
            .split(|&b| b == 0)
            .filter(|r| !r.is_empty())
            .filter_map(|r| String::from_utf8_lossy(r).strip_prefix(prefix).map(str::to_string))
            .collect(),
        Err(_) => staged
            .keys()
            .filter_map(|p| p.strip_prefix(prefix).map(str::to_string))
            .collect(),
    }
}

/// Whether a root-relative path is a file the scan would take by its name: a Markdown
/// extension, the include globs and not the exclude globs.
pub(crate) fn candidates(scan: &crate::config::ScanSettings) -> impl Fn(&str) -> bool + use<> {
    let set = |globs: &[String]| {
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        b.build().unwrap_or_else(|_| globset::GlobSet::empty())
    };
    let (include, exclude) = (set(&scan.include), set(&scan.exclude));
    let any = scan.include.is_empty();
    move |rel: &str| {
        let lower = rel.to_ascii_lowercase();
        (lower.ends_with(".md") || lower.ends_with(".markdown"))
            && (any || include.is_match(rel))
            && !exclude.is_match(rel)
    }
}

/// A pathspec for everything under a folder given relative to the top ("" = all).
pub(crate) fn pathspec(rel: &str) -> String {
    if rel.is_empty() {
        ":(glob)**".into()
    } else {
        format!(":(literal){rel}")
    }
}

/// Where a staged symlink at top-relative `link` leads as git stores it (its blob is the
/// target's path): the top-relative path of the target, resolved by its components as
/// every checkout resolves it; None for an absolute target or one above the top.
pub(crate) fn link_target(link: &str, target: &[u8]) -> Option<String> {
    let target = String::from_utf8_lossy(target);
    if target.starts_with('/') || target.contains('\\') || target.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The staged symlinks among `staged` that `takes` keeps, with the top-relative path each
/// leads to as git stores it (None: absolute, or above the top). One `cat-file` when
/// there are any; none is the common case.
pub(crate) fn staged_links(
    top: &Path,
    staged: &BTreeMap<String, Staged>,
    takes: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, Option<String>>, Error> {
    let links: Vec<(&String, &Staged)> = staged.iter().filter(|(p, e)| e.mode == "120000" && takes(p)).collect();
    let ids: BTreeSet<&str> = links.iter().map(|(_, e)| e.blob.as_str()).collect();
    let contents = blobs(top, &ids)?;
    Ok(links
        .into_iter()
        .map(|(p, e)| {
            let to = contents.get(&e.blob).and_then(|t| link_target(p, t));
            (p.clone(), to)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::link_target;

    #[test]
    fn a_symlink_leads_where_its_stored_path_says() {
        assert_eq!(link_target("b/l.md", b"n.md").as_deref(), Some("b/n.md"));
        assert_eq!(link_target("b/c/l.md", b"../n.md").as_deref(), Some("b/n.md"));
        assert_eq!(link_target("b/l.md", b"./x/../n.md").as_deref(), Some("b/n.md"));
        assert_eq!(link_target("l.md", b"../n.md"), None);
        assert_eq!(link_target("b/l.md", b"/tmp/repo/b/n.md"), None);
    }
}
