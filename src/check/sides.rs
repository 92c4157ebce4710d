//! The three sides of a merge of `meta.json`, found in git, for the merge driver: git
//! runs the driver one file at a time, `meta.json` before the JSON-lines files, and
//! names no commit, so the outputs a merged `meta.json` must describe are found by the
//! versions of `meta.json` it was handed: a commit is a side when its `meta.json` is
//! that version's blob. The candidates are HEAD (ours), the commit `git merge` names in
//! `GITHEAD_<id>`, the commit a rebase is picking, their merge base and parents, and
//! last the newest commit holding the blob (`git log --all --find-object`). Nothing is
//! assumed: a side not found leaves the merge unproven.

use crate::check::git::{git, objects};
use crate::store::files::OUTPUTS;
use std::collections::BTreeMap;
use std::path::Path;

/// Each output's bytes, by file name, at one side.
pub(crate) type Outputs = BTreeMap<String, Vec<u8>>;

/// The outputs beside `meta_path` (its path in the repository) at the commits whose
/// `meta.json` is `versions` (base, ours, theirs); None when one is not found.
pub(crate) fn find(meta_path: &str, versions: [&[u8]; 3]) -> Option<[Outputs; 3]> {
    let dir = Path::new(".");
    let blob = |bytes: &[u8]| -> Option<String> {
        let out = git(dir, &["hash-object", "--stdin"], Some(bytes)).ok()?;
        Some(String::from_utf8_lossy(&out).trim().to_string())
    };
    let wanted: Vec<String> = versions.iter().map(|v| blob(v)).collect::<Option<_>>()?;
    let rev = |spec: &str| -> Option<String> {
        let out = git(
            dir,
            &["rev-parse", "-q", "--verify", &format!("{spec}^{{commit}}")],
            None,
        )
        .ok()?;
        Some(String::from_utf8_lossy(&out).trim().to_string())
    };
    let mut candidates: Vec<String> = rev("HEAD").into_iter().collect();
    let mut tips: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("GITHEAD_").map(str::to_string))
        .collect();
    if let Some(picking) = rebase_pick() {
        tips.push(picking);
    }
    let mut found = sides_among(dir, meta_path, &wanted, &candidates);
    for round in 0..2 {
        if found.iter().all(Option::is_some) {
            break;
        }
        if round == 1 && found[2].is_none() {
            // The newest commit holding their version (a cherry-pick names none).
            let out = git(
                dir,
                &[
                    "log",
                    "--all",
                    "-n1",
                    "--format=%H",
                    &format!("--find-object={}", wanted[2]),
                ],
                None,
            )
            .ok()?;
            tips.push(String::from_utf8_lossy(&out).trim().to_string());
        }
        for tip in tips.iter().filter(|t| !t.is_empty()) {
            candidates.push(tip.clone());
            candidates.extend(rev(&format!("{tip}^")));
            if let Ok(out) = git(dir, &["merge-base", "--all", "HEAD", tip], None) {
                let bases: Vec<String> = String::from_utf8_lossy(&out).lines().map(str::to_string).collect();
                if bases.len() == 1 {
                    candidates.extend(bases);
                }
            }
        }
        found = sides_among(dir, meta_path, &wanted, &candidates);
    }
    let commits: Vec<String> = found.into_iter().collect::<Option<_>>()?;
    let folder = meta_path
        .rsplit_once('/')
        .map(|(d, _)| format!("{d}/"))
        .unwrap_or_default();
    let specs: Vec<String> = commits
        .iter()
        .flat_map(|c| OUTPUTS.iter().map(|n| format!("{c}:{folder}{n}")).collect::<Vec<_>>())
        .collect();
    let mut got = objects(dir, &specs).ok()?.into_iter();
    let mut side = || -> Option<Outputs> {
        OUTPUTS
            .iter()
            .map(|n| Some((n.to_string(), got.next()??)))
            .collect::<Option<Outputs>>()
    };
    Some([side()?, side()?, side()?])
}

/// For each wanted blob, a candidate commit whose `meta_path` is that blob.
fn sides_among(dir: &Path, meta_path: &str, wanted: &[String], candidates: &[String]) -> Vec<Option<String>> {
    let input: String = candidates.iter().map(|c| format!("{c}:{meta_path}\n")).collect();
    let ids: Vec<Option<String>> = match git(
        dir,
        &["cat-file", "--batch-check=%(objectname)"],
        Some(input.as_bytes()),
    ) {
        Ok(out) => String::from_utf8_lossy(&out)
            .lines()
            .map(|l| (!l.ends_with(" missing")).then(|| l.to_string()))
            .collect(),
        Err(_) => Vec::new(),
    };
    wanted
        .iter()
        .map(|w| {
            candidates
                .iter()
                .zip(&ids)
                .find(|(_, id)| id.as_deref() == Some(w.as_str()))
                .map(|(c, _)| c.clone())
        })
        .collect()
}

/// The commit a rebase is picking: the last line of its `done` list.
fn rebase_pick() -> Option<String> {
    let out = git(Path::new("."), &["rev-parse", "--git-path", "rebase-merge/done"], None).ok()?;
    let text = std::fs::read_to_string(String::from_utf8_lossy(&out).trim()).ok()?;
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))?;
    last.split_whitespace().nth(1).map(str::to_string)
}
