//! Errors that stop a command (exit code 2; a node that is not found exits 1). Problems
//! with individual input files are not errors but [`crate::model::diag::Diagnostic`]s.

use std::path::PathBuf;

/// A run-stopping error, naming the file or id it concerns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A bad configuration file or value.
    #[error("{path}:{line}: config error: {message}")]
    Config {
        /// The config file.
        path: String,
        /// 1-based line, 0 when unknown.
        line: u32,
        /// What is wrong, naming the key.
        message: String,
    },
    /// An I/O failure on a file mdgraph must read or write.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The root folder does not exist or is not a folder.
    #[error("{}: backlog root not found or not a folder", .0.display())]
    NoRoot(PathBuf),
    /// The SQLite mirror failed while answering (a damaged file); callers rebuild it.
    #[error("sqlite mirror: {0}")]
    Store(String),
    /// An id or path that matches no node, with the closest real ids (maybe none).
    #[error("no node matches `{query}`{}", closest(.close))]
    NotFound {
        /// The id or path as given.
        query: String,
        /// The closest real node ids, nearest first.
        close: Vec<String>,
    },
    /// A request that cannot be answered as asked (an unknown `--type` or `--state`),
    /// with what would work; the command line exits 2.
    #[error("{0}")]
    Usage(String),
    /// Anything else, with its explanation.
    #[error("{0}")]
    Other(String),
}

/// The result of a fallible mdgraph call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wrap an I/O error with its path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// `; closest: a, b` for a not-found message, or nothing.
fn closest(close: &[String]) -> String {
    if close.is_empty() {
        String::new()
    } else {
        format!("; closest: {}", close.join(", "))
    }
}
