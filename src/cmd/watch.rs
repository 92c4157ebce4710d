//! Whether anything under the backlog root may have changed since the last look, for the
//! long-lived `mcp` server. The library's freshness probe stats every indexed file (about
//! 8 ms at 10,000 items), too slow to run before every tool call; on Linux an inotify
//! watch on every folder the scan walks (the index folder left out) is read without
//! blocking instead, so an unchanged backlog costs one `read`. The kernel queues an event
//! when the write happens, so an edit made before a call is always seen by that call.
//! Elsewhere, or when the watches cannot be set up (the inotify limits), every look says
//! "maybe" and the caller runs the probe.
//!
//! [`Watch::sync`] makes a cookie file in the index folder (watched for it alone) and
//! reads events until the cookie's: every change made before it has been read then, so
//! the server can vouch for the index to queries (see [`super::vouch`]).
//!
//! Both watchers (`mcp` here, `index --watch` in `index.rs`) take from here the delay past
//! the stat cache's racy window ([`settle`]) and a config file's stamp ([`file_stamp`]).

use std::path::Path;

/// The watch on one backlog root.
pub struct Watch {
    #[cfg(target_os = "linux")]
    inotify: Option<linux::Inotify>,
}

impl Watch {
    /// Watch the folders under `root` that the scan walks, except `index_dir`.
    pub fn new(root: &Path, index_dir: &Path) -> Watch {
        #[cfg(target_os = "linux")]
        {
            Watch {
                inotify: linux::Inotify::new(root, index_dir),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (root, index_dir);
            Watch {}
        }
    }

    /// True when the watch is set up (false: every look says "maybe changed").
    pub fn active(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.inotify.is_some()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }

    /// Make the cookie file `cookie` in `index_dir` and read events until its own:
    /// `Some(true)` when something under the root may have changed since the last look,
    /// None when there is no working watch or the cookie was not seen (then nothing can
    /// be vouched for). The cookie is removed.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub fn sync(&mut self, index_dir: &Path, cookie: &str) -> Option<bool> {
        #[cfg(target_os = "linux")]
        {
            let w = self.inotify.as_mut()?;
            let seen = w.sync(index_dir, cookie);
            if seen.is_none() && w.broken {
                self.inotify = None;
            }
            seen
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (index_dir, cookie);
            None
        }
    }

    /// True when something under the root may have changed since the last call.
    pub fn changed(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        {
            let Some(w) = self.inotify.as_mut() else {
                return true;
            };
            match w.drain() {
                Some(changed) => changed,
                None => {
                    // A broken watch is dropped for good: from now on every call probes.
                    self.inotify = None;
                    true
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            true
        }
    }
}

/// How long after a build that changed something the watch runs once more: half a second
/// past the stat cache's racy window (2 s, shorter under the test suite's knob).
pub(crate) fn settle() -> std::time::Duration {
    let racy = u64::try_from(mdgraph::racy_ns() / 1_000_000).unwrap_or(2000);
    std::time::Duration::from_millis(racy + 500)
}

/// A file's identity and last change (inode, size, modification time), to tell when a
/// config file was edited or replaced; None when there is no file.
pub(crate) fn file_stamp(file: Option<&std::path::Path>) -> Option<(u64, u64, std::time::SystemTime)> {
    let md = std::fs::metadata(file?).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&md);
    #[cfg(not(unix))]
    let ino = 0;
    Some((ino, md.len(), md.modified().ok()?))
}

#[cfg(target_os = "linux")]
mod linux {
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::Errno;
    use std::collections::HashMap;
    use std::ffi::OsStr;
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    /// Events that can change what the scan sees: contents, times, names.
    fn mask() -> WatchFlags {
        WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::EXCL_UNLINK
    }

    pub struct Inotify {
        fd: OwnedFd,
        root: PathBuf,
        /// The root's own watch; None once the root was deleted or moved away (then
        /// every look says "changed" until it is back and watched again).
        root_wd: Option<i32>,
        index_dir: Option<PathBuf>,
        /// Watch descriptor → folder (looked up only, never iterated).
        dirs: HashMap<i32, PathBuf>,
        /// The index folder's watch, for cookies only (set up by the first sync).
        cookie_wd: Option<i32>,
        /// Cookie files seen since the last sync began.
        cookies: Vec<String>,
        /// The last read failed: the watch is dropped.
        pub broken: bool,
    }

    impl Inotify {
        pub fn new(root: &Path, index_dir: &Path) -> Option<Inotify> {
            let fd = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
            let mut w = Inotify {
                fd,
                root: root.canonicalize().ok()?,
                root_wd: None,
                index_dir: index_dir.canonicalize().ok(),
                dirs: HashMap::new(),
                cookie_wd: None,
                cookies: Vec::new(),
                broken: false,
            };
            w.watch_all().then_some(w)
        }

        /// Watch every folder the scan walks (its ignore rules, no symlinks followed,
        /// the index folder skipped). Watching a folder again keeps its descriptor.
        fn watch_all(&mut self) -> bool {
            let index = self.index_dir.clone();
            let walker = mdgraph::walk::builder(&self.root, index).build();
            for entry in walker.flatten() {
                if !entry.file_type().is_some_and(|t| t.is_dir()) {
                    continue;
                }
                match inotify::add_watch(&self.fd, entry.path(), mask()) {
                    Ok(wd) => {
                        if entry.depth() == 0 {
                            self.root_wd = Some(wd);
                        }
                        self.dirs.insert(wd, entry.path().to_path_buf());
                    }
                    // Gone since the walk saw it: its parent's event says so.
                    Err(Errno::NOENT | Errno::NOTDIR) => {}
                    // Out of watches (ENOSPC) or anything else: no watch at all.
                    Err(_) => return false,
                }
            }
            true
        }

        /// Make the cookie `name` in `index_dir` and read events until its own (see
        /// `Watch::sync`). The kernel queues an event before the call that caused it
        /// returns, so the cookie's is normally there at the first read; a few more reads
        /// are allowed for 50 ms.
        pub fn sync(&mut self, index_dir: &Path, name: &str) -> Option<bool> {
            if self.cookie_wd.is_none() {
                let flags = WatchFlags::CREATE | WatchFlags::ONLYDIR | WatchFlags::DONT_FOLLOW;
                self.cookie_wd = Some(inotify::add_watch(&self.fd, index_dir, flags).ok()?);
            }
            self.cookies.clear();
            let cookie = index_dir.join(name);
            std::fs::File::create(&cookie).ok()?;
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(50);
            let mut changed = false;
            let seen = loop {
                match self.drain() {
                    Some(c) => changed |= c,
                    None => {
                        self.broken = true;
                        break false;
                    }
                }
                if self.cookies.iter().any(|c| c == name) {
                    break true;
                }
                if std::time::Instant::now() >= deadline {
                    break false;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            };
            let _ = std::fs::remove_file(&cookie);
            seen.then_some(changed)
        }

        /// Read every queued event: `Some(true)` when one concerns the backlog, `None`
        /// when the watch broke.
        pub fn drain(&mut self) -> Option<bool> {
            // The root is gone, or was recreated: no event of the new folder can reach
            // a watch of the old one. Watch it again once it is back.
            if self.root_wd.is_none() {
                if self.root.is_dir() && !self.watch_all() {
                    return None;
                }
                return Some(true);
            }
            let mut changed = false;
            let mut rewatch = false;
            let mut buf = [MaybeUninit::<u8>::uninit(); 16 * 1024];
            let mut reader = inotify::Reader::new(&self.fd, &mut buf);
            loop {
                let ev = match reader.next() {
                    Ok(ev) => ev,
                    Err(Errno::WOULDBLOCK) => break,
                    Err(Errno::INTR) => continue,
                    Err(_) => return None,
                };
                let flags = ev.events();
                if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                    changed = true;
                    rewatch = true;
                    continue;
                }
                if self.cookie_wd.is_some() && self.cookie_wd == Some(ev.wd()) {
                    if flags.contains(ReadFlags::IGNORED) {
                        self.cookie_wd = None;
                    } else if let Some(n) = ev.file_name().and_then(|n| n.to_str().ok())
                        && n.starts_with(super::super::vouch::COOKIE_PREFIX)
                    {
                        self.cookies.push(n.to_string());
                    }
                    continue;
                }
                if flags.contains(ReadFlags::IGNORED) {
                    self.dirs.remove(&ev.wd());
                    if self.root_wd == Some(ev.wd()) {
                        self.root_wd = None;
                        changed = true;
                    }
                    continue;
                }
                // The root moved away (or was deleted): its watch would follow the old
                // folder; drop it and watch the root's path again once it is back.
                if self.root_wd == Some(ev.wd())
                    && (flags.contains(ReadFlags::MOVE_SELF) || flags.contains(ReadFlags::DELETE_SELF))
                {
                    let _ = inotify::remove_watch(&self.fd, ev.wd());
                    self.dirs.remove(&ev.wd());
                    self.root_wd = None;
                    changed = true;
                    continue;
                }
                let Some(dir) = self.dirs.get(&ev.wd()) else {
                    changed = true;
                    continue;
                };
                let name = ev.file_name().map(|n| OsStr::from_bytes(n.to_bytes()));
                let path = match name {
                    Some(n) if !n.is_empty() => dir.join(n),
                    _ => dir.clone(),
                };
                if self.index_dir.as_deref().is_some_and(|ix| path.starts_with(ix)) {
                    continue;
                }
                changed = true;
                // A new folder needs its own watch; a changed ignore file can bring
                // folders in.
                let ignore_file = name.is_some_and(|n| n == ".gitignore" || n == ".ignore");
                if flags.contains(ReadFlags::ISDIR) || ignore_file {
                    rewatch = true;
                }
            }
            if rewatch && !self.watch_all() {
                return None;
            }
            Some(changed)
        }
    }
}
