//! The `mdgraph` binary: parse arguments, run, map the result to an exit code.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let code = mdgraph::run_with_terminal(
        std::env::args_os().collect(),
        &cwd,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
        &mdgraph::term::Terminal::from_env(),
    );
    std::process::exit(code);
}
