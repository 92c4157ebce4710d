//! The index with some files' content replaced or removed, computed in memory from the
//! local index (which must be fresh): what `check --staged` judges when the staged
//! backlog differs from the working tree. Only the replaced files are parsed; resolution
//! runs over all of them.

use crate::config::Config;
use crate::error::Error;
use crate::ingest::build::BuildReport;
use crate::ingest::edit;
use crate::ingest::parse::{ParsedFile, parse_file};
use crate::ingest::previous::previous_parses;
use crate::ingest::resolve::resolve;
use crate::model::diag::Diagnostic;
use crate::store::sidecar;
use std::collections::BTreeMap;

/// The diagnostics of the graph the root gives with some files' text replaced (`Some`)
/// or removed (`None`), every other file as the index in `cfg.index_dir` holds it (it
/// must be fresh): what `check --staged` judges when the staged backlog differs from the
/// working tree. Only the replaced files are parsed; resolution runs over all of them.
/// Scan-stage findings (a file too large, unreadable) are the index's.
pub fn diagnostics_with(cfg: &Config, overlay: &BTreeMap<String, Option<String>>) -> Result<Vec<Diagnostic>, Error> {
    if let Some(diagnostics) = edit::diagnostics_with(cfg, overlay) {
        return Ok(diagnostics);
    }
    resolved_with(cfg, overlay)
}

/// [`diagnostics_with`] by resolving every file.
pub(crate) fn resolved_with(
    cfg: &Config,
    overlay: &BTreeMap<String, Option<String>>,
) -> Result<Vec<Diagnostic>, Error> {
    let (mut prev, all) = sidecar::read_meta(&cfg.index_dir)
        .and_then(|meta| previous_parses(&cfg.index_dir, &meta))
        .ok_or_else(|| Error::Other(format!("{}: the index cannot be read", cfg.display(&cfg.index_dir))))?;
    let mut diagnostics: Vec<Diagnostic> = all
        .iter()
        .filter(|d| {
            use crate::model::diag::Code;
            matches!(
                d.code,
                Code::FileTooLarge | Code::SymlinkOutsideRoot | Code::WalkError | Code::ReadError | Code::NotUtf8
            ) && !overlay.contains_key(&d.path)
        })
        .cloned()
        .collect();
    let mut parsed: Vec<ParsedFile> = Vec::with_capacity(prev.len() + overlay.len());
    for (path, text) in overlay {
        prev.remove(path.as_str());
        if let Some(text) = text {
            let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
            parsed.push(parse_file(path, &hash, text, &cfg.settings));
        }
    }
    parsed.extend(prev.into_values());
    parsed.sort_by(|a, b| a.doc.path.cmp(&b.doc.path));
    for p in &mut parsed {
        diagnostics.append(&mut p.diagnostics);
    }
    let (_, resolve_diags) = resolve(parsed, &cfg.settings);
    diagnostics.extend(resolve_diags);
    cfg.settings.check.apply(&mut diagnostics);
    diagnostics.sort();
    diagnostics.dedup();
    Ok(diagnostics)
}

/// What the local index in `cfg.index_dir` (fresh, written here) would be with some
/// files' bytes replaced (`Some`) or removed (`None`), by root-relative path: computed in
/// memory, never written; the report's `bytes` hold each file's blake3, for a byte for
/// byte comparison with a staged committed index. Only the replaced files are parsed.
pub(crate) fn expected_with(cfg: &Config, overlay: &BTreeMap<String, Option<Vec<u8>>>) -> Result<BuildReport, Error> {
    use crate::ingest::scan::{Scan, SourceFile, from_bytes};
    use crate::model::diag::Code;
    let unreadable = || Error::Other(format!("{}: the index cannot be read", cfg.display(&cfg.index_dir)));
    let meta = sidecar::read_meta(&cfg.index_dir).ok_or_else(unreadable)?;
    let (prev, all) = previous_parses(&cfg.index_dir, &meta).ok_or_else(unreadable)?;
    // The scan's own findings (a file skipped), for the files that stay.
    let diagnostics = all
        .into_iter()
        .filter(|d| {
            matches!(
                d.code,
                Code::FileTooLarge | Code::SymlinkOutsideRoot | Code::WalkError | Code::ReadError | Code::NotUtf8
            ) && !overlay.contains_key(&d.path)
        })
        .collect();
    let mut scan = Scan {
        files: Vec::new(),
        diagnostics,
        dirs: Vec::new(),
    };
    let stamp = crate::store::statcache::Stamp {
        size: 0,
        mtime: 0,
        ctime: 0,
        ino: 0,
    };
    for (rel, hash) in meta.files.iter().filter(|(rel, _)| !overlay.contains_key(*rel)) {
        scan.files.push(SourceFile {
            rel: rel.clone(),
            abs: cfg.root.join(rel),
            hash: hash.clone(),
            text: None,
            // A file the index holds no document of was skipped by the scan.
            stamp: prev.contains_key(rel).then_some(stamp),
        });
    }
    for (rel, bytes) in overlay {
        if let Some(bytes) = bytes {
            let (file, skipped) = from_bytes(
                rel.clone(),
                cfg.root.join(rel),
                bytes.clone(),
                cfg.settings.scan.max_file_size,
            );
            scan.diagnostics.extend(skipped);
            scan.files.push(file);
        }
    }
    scan.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    crate::ingest::build::compute(cfg, scan, prev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::build::{BuildOptions, build};
    use crate::store::mirror;

    /// Staged text judged by the edit short cut gives what resolving every file gives.
    #[test]
    fn staged_text_is_judged_as_a_full_resolution_judges_it() {
        let tmp = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("backlog-fixtures");
        let ov = crate::config::Overrides {
            root: Some(src.clone()),
            index_dir: Some(tmp.path().join("_index")),
            ..crate::config::Overrides::default()
        };
        let cfg = Config::load(tmp.path(), &ov).unwrap();
        build(
            &cfg,
            BuildOptions {
                full: true,
                write: true,
            },
        )
        .unwrap();
        let table = crate::store::doctable::DocTable::load(&cfg.index_dir, &sidecar_of(&cfg)).unwrap();
        let mut short = 0;
        for (i, row) in table.rows.iter().enumerate().step_by(3) {
            let text = std::fs::read_to_string(src.join(&row.path)).unwrap();
            let other = &table.rows[(i + 5) % table.rows.len()].raw;
            let edits = [
                format!("{text}\nStaged: see {other} and [gone](nowhere.md).\n"),
                text.replacen("\n#", "\nAn early line.\n\n#", 1),
                text.replacen("---\n", "---\nowner: @x\n", 1),
            ];
            for staged in edits {
                let overlay = BTreeMap::from([(row.path.clone(), Some(staged))]);
                let full = resolved_with(&cfg, &overlay).unwrap();
                if let Some(fast) = edit::diagnostics_with(&cfg, &overlay) {
                    assert_eq!(fast, full, "{}", row.path);
                    short += 1;
                }
            }
        }
        assert!(short > 10, "the short cut was taken {short} times");
    }

    fn sidecar_of(cfg: &Config) -> String {
        mirror::sidecar_digest(&sidecar::read_meta_head(&cfg.index_dir).unwrap().outputs)
    }
}
