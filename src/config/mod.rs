//! Configuration: `mdgraph.toml` (found in the working directory or its ancestors),
//! validated into a typed [`Config`] before any work starts.
//!
//! Unknown keys and bad values are errors naming the file, line and key. Everything that
//! changes what the index contains lives in [`Settings`], whose digest is stored in
//! `meta.json` so a config change makes the index stale.
//!
//! One file per job, used one way (`load` uses the other three, `settings` uses `check`):
//!
//! ```text
//! check.rs       [check]: severities and ignored paths of diagnostics
//! retrieval.rs   query-time settings: [retrieval] and [states]
//! settings.rs    index settings: [scan] [ids] [fields] [kinds] [edges] → Settings
//! load.rs        find, parse and validate the file into a Config; command-line overrides
//! walk.rs        the one walk: which folders under the root hold the backlog
//! ```

mod check;
mod load;
mod retrieval;
mod settings;
pub mod walk;

pub use check::{BASELINE_FILE, CheckSettings, Level};
pub(crate) use load::repo_prefix;
pub use load::{CONFIG_FILE, Config, Overrides};
/// The query side checks that its intents carry these names.
#[cfg(test)]
pub use retrieval::INTENTS;
pub use retrieval::{FieldWeights, GraphSettings, Retrieval, StateGroups, Weights};
pub use settings::{FieldSettings, IdSettings, KindSettings, PathKind, PathKinds, ScanSettings, Settings};
