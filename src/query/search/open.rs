//! Choosing an engine: the SQLite mirror when the configuration enables it and it can be
//! read, else the in-memory engine over the sidecar.

use super::Engine;
use super::memory::memory_engine;
use super::sqlite::SqliteEngine;
use crate::error::Error;

/// The engine a configuration asks for: the SQLite mirror when enabled and readable,
/// else the in-memory fallback. The caller keeps the mirror in sync (see
/// [`crate::store::mirror::sync`]); when it cannot be used the fallback answers and the reason is
/// returned as a warning.
pub fn open_engine(cfg: &crate::config::Config) -> Result<(Box<dyn Engine + Send>, Option<String>), Error> {
    if cfg.sqlite {
        match SqliteEngine::open(&cfg.index_dir) {
            Ok(e) => return Ok((Box::new(e), None)),
            Err(err) => {
                let e = memory_engine(&cfg.index_dir)?;
                return Ok((
                    Box::new(e),
                    Some(format!("SQLite mirror unusable ({err}); searched the JSONL sidecar")),
                ));
            }
        }
    }
    Ok((Box::new(memory_engine(&cfg.index_dir)?), None))
}
