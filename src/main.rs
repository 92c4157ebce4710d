//! The `mdgraph` binary: process concerns only. Arguments, dispatch and output are in
//! [`cmd`]; the work is the library's.

mod cmd;

use std::process::ExitCode;

// mimalloc: indexing allocates many small strings on every core, and a query many short
// vectors. Measured on 10k items against the system allocator (BENCHMARKS.md): a search
// 15.6 → 14.9 ms, the indexing step in "What made it fast" 0.42 → 0.36 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The test suite's knob: a shorter stat-cache racy window, so its edits need not wait
    // 2 s to be trusted by their stamps. Tests only; see `statcache::set_racy_window_ms`.
    if let Some(ms) = std::env::var("MDGRAPH_TEST_RACY_MS").ok().and_then(|v| v.parse().ok()) {
        mdgraph::set_racy_window_ms(ms);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    // A reader that goes away (`| head`) is not an error: `cmd` maps a broken pipe on
    // stdout to the command's own exit code (0 ok, 1 check failed / nothing found,
    // 2 usage or runtime error).
    let code = cmd::run_with_terminal(
        std::env::args_os().collect(),
        &cwd,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
        &cmd::term::Terminal::from_env(),
    );
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}
