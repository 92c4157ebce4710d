//! Config loading from TOML text: any text gives a configuration or a config error naming
//! the file, never a panic; a configuration that loads can index a document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mdgraph::{Config, Overrides};
use mdgraph::Error;
use std::path::Path;

const DOC: &str = "---\nid: T-1\ntype: Task\nstate: Done\nparent: F-1\nlinks:\n  relates: [T-2]\nrequires: 7, 8\n---\n# Goal\nSee [[F-1]] and [x](../F-1.md).\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = Path::new("/cfg/mdgraph.toml");
    match Config::from_text(Path::new("/work"), Some((file, text)), &Overrides::default()) {
        Ok(cfg) => {
            let _ = cfg.settings.digest();
            let p = mdgraph::internal::parse::parse_file("items/T-1_x.md", "h", DOC, &cfg.settings);
            let (graph, _) = mdgraph::internal::resolve::resolve(vec![p], &cfg.settings);
            assert!(!graph.nodes.is_empty());
        }
        Err(Error::Config { path, line, message }) => {
            assert_eq!(path, "/cfg/mdgraph.toml");
            assert!(line as usize <= text.split('\n').count(), "line {line}: {message}");
            assert!(!message.is_empty());
        }
        Err(e) => panic!("not a config error: {e}"),
    }
});
