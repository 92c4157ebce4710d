//! mdgraph as a library: open the index of the backlog configured in the working
//! directory (`mdgraph.toml` here or above), search, pack, look at a node and the graph.
//!
//! `cargo run --example library -- "what is blocking the PDF export"` (from the repository
//! root: the sample backlog). The part between the README markers is quoted in README.md.

fn main() -> Result<(), mdgraph::Error> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "what is blocking the PDF export".into());
    // README:start
    use mdgraph::{Config, Index, Overrides};

    let config = Config::load(std::path::Path::new("."), &Overrides::default())?;
    let index = Index::open(config)?; // builds or refreshes the index when needed

    for hit in index.search(&question)?.results.iter().take(3) {
        println!("{:<13} {:.3}  {}  [{}]", hit.id, hit.score, hit.title, hit.why.line());
    }
    let pack = index.pack(&question, 1500)?; // Markdown for a prompt, within 1500 tokens
    println!("pack: {} items, {} of 1500 tokens", pack.items.len(), pack.used);

    if let Some(first) = pack.items.first() {
        let node = index.node(&first.id)?; // by id (any case), ID@uid or path
        let (sections, out, inc) = (node.sections.len(), node.outgoing.len(), node.incoming.len());
        println!("{}: {sections} sections, {out} edges out, {inc} in", node.node.id);
    }
    let graph = index.graph()?; // every node, edge and diagnostic
    println!("graph: {} nodes, {} edges", graph.nodes.len(), graph.edges.len());
    // README:end
    Ok(())
}
