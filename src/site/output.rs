//! The site's folder: claimed only when it is empty or a site mdgraph wrote (its mark
//! file says so), every page written only when its bytes change, and a manifest of each
//! page's input digest so that an unchanged page is not even rendered. Pages a run no
//! longer makes (a deleted item) are removed; nothing else in the folder is touched.

use crate::error::Error;
use crate::store::files::{self, MARK};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The mark file: the folder is a site mdgraph writes.
pub const MARK_FILE: &str = ".mdgraph-site";
/// The manifest: one line per page, `digest<TAB>page`, after a first line
/// `#stamp<TAB>stamp` naming the index and settings the site was made from.
const MANIFEST: &str = ".manifest";
/// The folders pages go in: no page is written anywhere else, and none of them may be a
/// symbolic link (the site never writes through one, out of its folder).
pub const FOLDERS: [&str; 4] = ["assets", "graphs", "items", "lists"];
/// The site's own `.gitignore`: the site is derived, wherever it is written.
const GITIGNORE: &str = "# Written by mdgraph: the site is derived from the index (`mdgraph site`).\n*\n";

/// The site's folder during a run.
pub struct Out {
    dir: PathBuf,
    stamp: Option<String>,
    old: BTreeMap<String, String>,
    new: BTreeMap<String, String>,
    /// Pages written this run.
    pub written: Vec<String>,
    /// Pages left as they were.
    pub unchanged: usize,
}

impl Out {
    /// Claim `dir` for the site: refused when it holds anything and is no site of
    /// mdgraph's, so that `--out` never overwrites a user's folder.
    pub fn open(dir: &Path) -> Result<Out, Error> {
        let holds_something = std::fs::read_dir(dir).is_ok_and(|mut e| e.next().is_some());
        if holds_something && !dir.join(MARK_FILE).is_file() {
            return Err(Error::Other(format!(
                "{}: not a site mdgraph wrote (no {MARK_FILE} in it); give `site --out` an empty or new folder. \
                 Nothing was written",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for folder in FOLDERS {
            let p = dir.join(folder);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_dir()) {
                return Err(Error::Other(format!(
                    "{}: a symbolic link or a file where the site keeps its pages; the site never writes \
                     through a link. Remove it (or give `site --out` a new folder). Nothing was written",
                    p.display()
                )));
            }
        }
        files::write_if_changed(
            &dir.join(MARK_FILE),
            format!("{MARK}: a static site, `mdgraph site`.\n").as_bytes(),
        )?;
        files::write_if_changed(&dir.join(".gitignore"), GITIGNORE.as_bytes())?;
        let manifest = std::fs::read_to_string(dir.join(MANIFEST)).unwrap_or_default();
        let stamp = manifest
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("#stamp\t"))
            .map(str::to_string);
        let old = manifest
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .map(|(k, p)| (p.to_string(), k.to_string()))
            .collect();
        Ok(Out {
            dir: dir.to_path_buf(),
            stamp,
            old,
            new: BTreeMap::new(),
            written: Vec::new(),
            unchanged: 0,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// When the last run was made from the index and settings `stamp` and every page it
    /// wrote is still there, keep them all (nothing to render); whether it did.
    pub fn keep_all(&mut self, stamp: &str) -> bool {
        let same = self.stamp.as_deref() == Some(stamp) && self.all_there();
        if same {
            self.new = self.old.clone();
            self.unchanged = self.new.len();
        }
        same
    }

    /// The stamp the last run wrote the site under, if any.
    pub fn last_stamp(&self) -> Option<&str> {
        self.stamp.as_deref()
    }

    /// Whether the last run wrote pages and every one of them is still there.
    pub fn all_there(&self) -> bool {
        use rayon::prelude::*;
        let pages: Vec<&String> = self.old.keys().collect();
        !pages.is_empty() && pages.par_iter().all(|p| self.dir.join(p).is_file())
    }

    /// Keep every page of the last run this run has not kept or written (after
    /// [`Out::all_there`]: they are there, and their inputs did not change).
    pub fn keep_rest(&mut self) {
        for (page, key) in &self.old {
            if !self.new.contains_key(page) {
                self.new.insert(page.clone(), key.clone());
                self.unchanged += 1;
            }
        }
    }

    /// Whether `page` was written from inputs with this digest and is still there: then
    /// it is kept as it is (and counted) without being rendered.
    pub fn keep(&mut self, page: &str, key: &str) -> bool {
        let fresh = self.old.get(page).is_some_and(|k| k == key) && self.dir.join(page).is_file();
        if fresh {
            self.new.insert(page.to_string(), key.to_string());
            self.unchanged += 1;
        }
        fresh
    }

    /// [`Out::keep`] for every page of the last run under `folder` (the pages of long
    /// lists, made with the lists): whether all of them were kept.
    pub fn keep_under(&mut self, folder: &str, key: &str) -> bool {
        let pages: Vec<String> = self.old.keys().filter(|p| p.starts_with(folder)).cloned().collect();
        pages.iter().all(|p| self.keep(p, key))
    }

    /// Record a page written (or not, its bytes unchanged) by [`write_page`].
    pub fn record(&mut self, page: String, key: String, wrote: bool) {
        if wrote {
            self.written.push(page.clone());
        } else {
            self.unchanged += 1;
        }
        self.new.insert(page, key);
    }

    /// Write `page` unless it holds these bytes, and record it.
    pub fn put(&mut self, page: &str, key: &str, bytes: &[u8]) -> Result<(), Error> {
        let wrote = write_page(&self.dir, page, bytes)?;
        self.record(page.to_string(), key.to_string(), wrote);
        Ok(())
    }

    /// Remove the pages of the last run that this run did not make, write the
    /// manifest under `stamp`; the pages written and removed, and how many were kept.
    pub fn finish(mut self, stamp: &str) -> Result<(Vec<String>, Vec<String>, usize), Error> {
        let mut removed = Vec::new();
        for page in self.old.keys().filter(|p| !self.new.contains_key(*p)) {
            // Only pages the manifest names, and never a path out of the folder.
            if page.split('/').any(|s| s.is_empty() || s == "..") {
                continue;
            }
            match std::fs::remove_file(self.dir.join(page)) {
                Ok(()) => removed.push(page.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(self.dir.join(page), e)),
            }
        }
        let mut manifest = format!("#stamp\t{stamp}\n");
        for (page, key) in &self.new {
            manifest.push_str(key);
            manifest.push('\t');
            manifest.push_str(page);
            manifest.push('\n');
        }
        files::write_if_changed(&self.dir.join(MANIFEST), manifest.as_bytes())?;
        self.written.sort();
        Ok((self.written, removed, self.unchanged))
    }
}

/// Write `page` (a path under `dir`, its folder made when missing) unless it holds
/// exactly `bytes`; whether it was written. A new page is written in place (a run
/// killed half way leaves it out of the manifest, so the next run writes it again); a
/// page that exists is replaced atomically.
pub fn write_page(dir: &Path, page: &str, bytes: &[u8]) -> Result<bool, Error> {
    use std::io::Write;
    // A page goes at the top or in one of the site's folders, never further down, so
    // that the folders [`Out::open`] checked are the only ones written through.
    let folder = page.rsplit_once('/').map(|(f, _)| f);
    if folder.is_some_and(|f| !FOLDERS.contains(&f)) || page.split('/').any(|s| s.is_empty() || s == "..") {
        return Err(Error::Other(format!("{page}: no page of the site goes there")));
    }
    let path = dir.join(page);
    let create = || std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
    // The folder is made only when the page cannot be made without it: a syscall or
    // two fewer for each of thousands of pages.
    let made = match create() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            create()
        }
        other => other,
    };
    match made {
        Ok(mut f) => {
            f.write_all(bytes).map_err(|e| Error::io(&path, e))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => files::write_if_changed(&path, bytes),
        Err(e) => Err(Error::io(&path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_someone_else_is_refused_and_stale_pages_go() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
        assert!(Out::open(tmp.path()).is_err());
        assert_eq!(std::fs::read_to_string(tmp.path().join("notes.txt")).unwrap(), "mine");
        let site = tmp.path().join("site");
        let mut out = Out::open(&site).unwrap();
        out.put("items/a.html", "k1", b"a").unwrap();
        out.put("items/b.html", "k1", b"b").unwrap();
        out.finish("s1").unwrap();
        let mut out = Out::open(&site).unwrap();
        assert!(!out.keep_all("s2"));
        assert!(out.keep("items/a.html", "k1"));
        let (written, removed, unchanged) = out.finish("s2").unwrap();
        assert!(written.is_empty());
        assert_eq!(removed, ["items/b.html"]);
        assert_eq!(unchanged, 1);
        assert!(!site.join("items/b.html").exists() && site.join("items/a.html").exists());
        // Made from the same index: everything kept, nothing else asked.
        let mut out = Out::open(&site).unwrap();
        assert!(out.keep_all("s2"));
        assert_eq!(out.finish("s2").unwrap(), (Vec::new(), Vec::new(), 1));
        // A page gone: no short cut.
        std::fs::remove_file(site.join("items/a.html")).unwrap();
        assert!(!Out::open(&site).unwrap().keep_all("s2"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_in_the_site_is_never_written_through() {
        let tmp = tempfile::tempdir().unwrap();
        let (site, outside) = (tmp.path().join("site"), tmp.path().join("outside"));
        std::fs::create_dir_all(&outside).unwrap();
        Out::open(&site).unwrap().finish("s").unwrap();
        // A page that is a link to a file outside: the link is replaced, not followed.
        std::fs::write(outside.join("victim.html"), "mine").unwrap();
        std::os::unix::fs::symlink(outside.join("victim.html"), site.join("index.html")).unwrap();
        let mut out = Out::open(&site).unwrap();
        out.put("index.html", "k", b"page").unwrap();
        assert_eq!(std::fs::read_to_string(outside.join("victim.html")).unwrap(), "mine");
        assert!(!std::fs::symlink_metadata(site.join("index.html")).unwrap().is_symlink());
        // A folder that is a link out: refused before anything is written.
        std::os::unix::fs::symlink(&outside, site.join("items")).unwrap();
        let err = Out::open(&site).err().expect("refused").to_string();
        assert!(err.contains("symbolic link") && err.contains("items"), "{err}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
        // No page goes below the site's folders.
        assert!(write_page(&site, "items/a/b.html", b"x").is_err());
        assert!(write_page(&site, "../x.html", b"x").is_err());
    }
}
