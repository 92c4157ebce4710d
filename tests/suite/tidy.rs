//! The shape of `src/`, kept by one test as rust-analyzer's `tidy` tests keep theirs: every
//! source file is read with a Rust parser (`syn`, not patterns over text) and held to the
//! rules below; a failure names `file:line` and the rule, as a compiler would.
//!
//! - `file-length`: at most 700 lines of code before a file's `#[cfg(test)]` module. A line
//!   of code holds a token of Rust: blank lines, comments and doc comments do not count (a
//!   string literal counts every line it spans).
//! - `fn-length`: a function (free, in an impl or a trait, nested or a test) runs at most
//!   120 lines, from its `fn` to its closing brace.
//! - `import-circle`: the modules of one folder never import one another in a circle. A
//!   folder's `mod.rs` stands for the folder; a module imports another when it names it: a
//!   `use`, a `crate::`/`super::`/`self::` path in code, or such a path in a doc comment
//!   (an intra-doc link).
//! - `layer`: a stage imports only from the stages below it, in the order of the diagram in
//!   ARCHITECTURE.md (the one place that order is written; `a | b` never import each other,
//!   `a, b` may, one way); the library names no clap, and the binary reaches the library
//!   only through its public API.
//! - `module-doc`: every file has a `//!` line saying its one job.
//! - `debug-macro`: no `todo!`, `dbg!` or `unimplemented!` is left in.
//! - `code-map`: every folder under `src/` and every file at its root is in
//!   ARCHITECTURE.md's code map.
//!
//! What must stay long is listed in `EXCEPTIONS` with its reason; an exception that no
//! longer matches a violation fails the test too, so the list cannot rot.

use crate::common::repo;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

const MAX_CODE_LINES: usize = 700;
const MAX_FN_LINES: usize = 120;
const MAX_PUBLIC_MODULES: usize = 8;
const FORBIDDEN_MACROS: &[&str] = &["todo", "dbg", "unimplemented"];

/// A violation that stays, and why: the rule, the file the message names, and the item:
/// a function's name (`Type::method` in an impl or trait) for `fn-length`, the circle's
/// modules (sorted, joined by `, `) for `import-circle`, empty for `file-length`.
struct Exception {
    rule: &'static str,
    file: &'static str,
    item: &'static str,
    why: &'static str,
}

// The table is empty today; an exception is written `stays(rule, file, item, why)`.
#[allow(dead_code)]
const fn stays(rule: &'static str, file: &'static str, item: &'static str, why: &'static str) -> Exception {
    Exception { rule, file, item, why }
}

const EXCEPTIONS: &[Exception] = &[];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Crate {
    Lib,
    Bin,
}

/// One file under `src/` as the parser sees it.
struct Source {
    /// The path from the repository root, with `/` (`src/store/lock.rs`).
    rel: String,
    krate: Crate,
    /// The module the file holds (`["store", "lock"]`; a `mod.rs` is its folder's module).
    module: Vec<String>,
    /// The lines that hold a token of Rust other than a doc comment, in order.
    code: Vec<usize>,
    ast: syn::File,
    facts: Facts,
}

#[derive(Default)]
struct Facts {
    fns: Vec<FnSpan>,
    /// `todo!`, `dbg!` and `unimplemented!` calls, with their lines.
    macros: Vec<(String, usize)>,
    /// Paths into the file's own crate, made absolute (`crate::` dropped), with their lines.
    refs: Vec<(Vec<String>, usize)>,
    /// Paths into `mdgraph::` or `clap::`, with their lines.
    external: Vec<(Vec<String>, usize)>,
    /// The files `include!` pastes in, as written.
    includes: Vec<String>,
}

struct FnSpan {
    name: String,
    start: usize,
    end: usize,
}

struct Violation {
    file: String,
    line: usize,
    rule: &'static str,
    item: String,
    msg: String,
}

impl Violation {
    fn new(file: &str, line: usize, rule: &'static str, item: &str, msg: String) -> Self {
        let (file, item) = (file.to_string(), item.to_string());
        Violation {
            file,
            line,
            rule,
            item,
            msg,
        }
    }
}

fn line(span: Span) -> usize {
    span.start().line
}

#[test]
fn tidy() {
    let sources = read_sources();
    assert!(sources.len() > 30, "only {} files found under src/", sources.len());
    let stages = stages_from_architecture();
    let mut found = Vec::new();
    let fragments = included(&sources);
    for s in &sources {
        check_file(s, fragments.contains(&s.rel), &mut found);
    }
    check_circles(&sources, &mut found);
    check_layers(&sources, &stages, &mut found);
    check_code_map(&sources, &mut found);
    let failures = apply_exceptions(found);
    assert!(
        failures.is_empty(),
        "tidy found {} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- reading the sources -------------------------------------------------------------

fn read_sources() -> Vec<Source> {
    let root = repo();
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(p).unwrap();
            let fail = |e: &dyn std::fmt::Display, at: proc_macro2::LineColumn| -> ! {
                panic!("{rel}:{}:{}: syn cannot parse the file: {e}", at.line, at.column + 1)
            };
            let tokens: TokenStream = text
                .parse()
                .unwrap_or_else(|e: proc_macro2::LexError| fail(&e, e.span().start()));
            let ast: syn::File = syn::parse2(tokens.clone()).unwrap_or_else(|e| fail(&e, e.span().start()));
            let (krate, module) = module_of(&rel);
            let mut c = Collector {
                module: module.clone(),
                owner: Vec::new(),
                facts: Facts::default(),
            };
            c.visit_file(&ast);
            let code = code_lines(tokens);
            Source {
                rel,
                krate,
                module,
                ast,
                code,
                facts: c.facts,
            }
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate a file belongs to and the module it holds: `src/main.rs` and `src/cmd/` are
/// the binary, the rest the library.
fn module_of(rel: &str) -> (Crate, Vec<String>) {
    let inner = rel.strip_prefix("src/").unwrap().strip_suffix(".rs").unwrap();
    let mut module: Vec<String> = inner.split('/').map(str::to_string).collect();
    if module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    let krate = match module.first().map(String::as_str) {
        Some("main" | "cmd") => Crate::Bin,
        _ => Crate::Lib,
    };
    if module == ["main"] || module == ["lib"] {
        module.clear();
    }
    (krate, module)
}

/// Walks one file's syntax tree for what the rules need.
struct Collector {
    /// The module being walked (the file's, then any inline `mod` inside it).
    module: Vec<String>,
    /// The impl's type or the trait being walked, which names its functions.
    owner: Vec<String>,
    facts: Facts,
}

impl Collector {
    fn function(&mut self, name: String, sig: &syn::Signature, body: &syn::Block) {
        let (start, end) = (line(sig.fn_token.span), body.brace_token.span.close().end().line);
        self.facts.fns.push(FnSpan { name, start, end });
    }

    fn owned(&self, ident: &syn::Ident) -> String {
        match self.owner.last() {
            Some(owner) => format!("{owner}::{ident}"),
            None => ident.to_string(),
        }
    }

    /// Records a path found at `line`: resolved into the crate when it starts with
    /// `crate`, `super` or `self`; kept when it names `mdgraph` or `clap`.
    fn path(&mut self, segments: Vec<String>, line: usize) {
        let Some(first) = segments.first() else { return };
        let absolute = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "self" => [&self.module[..], &segments[1..]].concat(),
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let keep = self.module.len().saturating_sub(ups);
                [&self.module[..keep], &segments[ups..]].concat()
            }
            "mdgraph" | "clap" => return self.facts.external.push((segments, line)),
            _ => return,
        };
        // `pub(crate)` names the crate, no module in it.
        if !absolute.is_empty() {
            self.facts.refs.push((absolute, line));
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.owner.push(owner.unwrap_or_else(|| "impl".to_string()));
        visit::visit_item_impl(self, i);
        self.owner.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.owner.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.owner.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(f.sig.ident.to_string(), &f.sig, &f.block);
        // A function nested in a method is not the method's type's.
        let owners = std::mem::take(&mut self.owner);
        visit::visit_item_fn(self, f);
        self.owner = owners;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(self.owned(&f.sig.ident), &f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.function(self.owned(&f.sig.ident), &f.sig, body);
        }
        visit::visit_trait_item_fn(self, f);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for (segments, line) in leaves {
            self.path(segments, line);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = p.segments.first() {
            self.path(segments, line(first.ident.span()));
        }
        visit::visit_path(self, p);
    }

    /// Doc comments name modules in intra-doc links (`[`crate::store::lock`]`).
    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        if let syn::Meta::NameValue(nv) = &a.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s), ..
            }) = &nv.value
        {
            for segments in doc_paths(&s.value()) {
                self.path(segments, line(a.pound_token.span));
            }
        }
        visit::visit_attribute(self, a);
    }

    /// A macro's name, then its arguments when they read as expressions (as `format!`'s
    /// and `assert!`'s do), so paths and macros inside them are seen too.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(last) = m.path.segments.last() {
            let name = last.ident.to_string();
            if FORBIDDEN_MACROS.contains(&name.as_str()) {
                self.facts.macros.push((name, line(last.ident.span())));
            }
        }
        if m.path.is_ident("include")
            && let Ok(file) = m.parse_body::<syn::LitStr>()
        {
            self.facts.includes.push(file.value());
        }
        visit::visit_macro(self, m);
        let args = m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        for e in args.iter().flatten() {
            self.visit_expr(e);
        }
    }
}

/// Every path a `use` tree names, with the line of its last segment (`use a::{b, c::*}`
/// names `a::b` and `a::c`).
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, usize)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => out.push((prefix.clone(), line(n.ident.span()))),
        syn::UseTree::Name(n) => out.push(([&prefix[..], &[n.ident.to_string()]].concat(), line(n.ident.span()))),
        syn::UseTree::Rename(r) => out.push(([&prefix[..], &[r.ident.to_string()]].concat(), line(r.ident.span()))),
        syn::UseTree::Glob(g) => out.push((prefix.clone(), line(g.star_token.span))),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// The `crate::…` and `super::…` paths a doc comment names.
fn doc_paths(doc: &str) -> Vec<Vec<String>> {
    let is_path = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut out = Vec::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in doc.match_indices(prefix) {
            if doc[..i].ends_with(is_path) {
                continue;
            }
            let end = doc[i..].find(|c| !is_path(c)).map_or(doc.len(), |n| i + n);
            let segments = doc[i..end].split("::").filter(|s| !s.is_empty()).map(str::to_string);
            out.push(segments.collect());
        }
    }
    out
}

// ---- the rules of one file -------------------------------------------------------------

/// The files that `include!` pastes in (from `src/` or build.rs): fragments, not modules.
fn included(sources: &[Source]) -> BTreeSet<String> {
    let build = std::fs::read_to_string(repo().join("build.rs")).unwrap();
    let mut c = Collector {
        module: Vec::new(),
        owner: Vec::new(),
        facts: Facts::default(),
    };
    c.visit_file(&syn::parse_file(&build).expect("build.rs parses"));
    let mut out: BTreeSet<String> = c.facts.includes.into_iter().collect();
    for s in sources {
        let dir = s.rel.rsplit_once('/').map_or("", |(dir, _)| dir);
        out.extend(s.facts.includes.iter().map(|f| format!("{dir}/{f}")));
    }
    out
}

/// The rules each file keeps by itself. A fragment that `include!` pastes in cannot hold
/// a `//!` line (an inner attribute must open a module), so its first `//` line says its
/// job instead.
fn check_file(s: &Source, fragment: bool, out: &mut Vec<Violation>) {
    let has_module_doc = s
        .ast
        .attrs
        .iter()
        .any(|a| matches!(a.style, syn::AttrStyle::Inner(_)) && a.path().is_ident("doc"));
    if !has_module_doc && !fragment {
        let msg = "no `//!` line saying what the file is for".to_string();
        out.push(Violation::new(&s.rel, 1, "module-doc", "", msg));
    }
    let test_module = s.ast.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) => m
            .attrs
            .iter()
            .find(|a| is_cfg_test(a))
            .map(|a| line(a.pound_token.span)),
        _ => None,
    });
    let lines = s.code.partition_point(|l| *l < test_module.unwrap_or(usize::MAX));
    if lines > MAX_CODE_LINES {
        let place = if test_module.is_some() {
            "before its test module"
        } else {
            ""
        };
        let msg = format!("{lines} lines of code {place} (at most {MAX_CODE_LINES}): a file does one job");
        out.push(Violation::new(&s.rel, 1, "file-length", "", msg.replace("  ", " ")));
    }
    for f in &s.facts.fns {
        let lines = f.end - f.start + 1;
        if lines > MAX_FN_LINES {
            let msg = format!(
                "fn `{}` runs {lines} lines (at most {MAX_FN_LINES}): name its steps",
                f.name
            );
            out.push(Violation::new(&s.rel, f.start, "fn-length", &f.name, msg));
        }
    }
    for (name, at) in &s.facts.macros {
        let msg = format!("`{name}!` left in");
        out.push(Violation::new(&s.rel, *at, "debug-macro", name, msg));
    }
}

fn is_cfg_test(a: &syn::Attribute) -> bool {
    match &a.meta {
        syn::Meta::List(l) => l.path.is_ident("cfg") && l.tokens.to_string() == "test",
        _ => false,
    }
}

/// The lines that hold a token of Rust other than a doc comment, in order.
fn code_lines(stream: TokenStream) -> Vec<usize> {
    fn walk(stream: TokenStream, lines: &mut Vec<usize>) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let Some(skip) = doc_attribute(&tokens[i..]) {
                i += skip;
                continue;
            }
            match &tokens[i] {
                TokenTree::Group(g) => {
                    lines.push(line(g.span_open()));
                    walk(g.stream(), lines);
                    lines.push(line(g.span_close()));
                }
                t => lines.extend(line(t.span())..=t.span().end().line),
            }
            i += 1;
        }
    }
    let mut lines = Vec::new();
    walk(stream, &mut lines);
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// How many tokens a doc comment at the start of `tokens` takes (`#`, maybe `!`, then
/// `[doc = "…"]`), if one is there.
fn doc_attribute(tokens: &[TokenTree]) -> Option<usize> {
    let TokenTree::Punct(pound) = tokens.first()? else {
        return None;
    };
    if pound.as_char() != '#' {
        return None;
    }
    let bang = matches!(tokens.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
    let TokenTree::Group(g) = tokens.get(1 + usize::from(bang))? else {
        return None;
    };
    let first = g.stream().into_iter().next();
    let is_doc = g.delimiter() == Delimiter::Bracket && matches!(first, Some(TokenTree::Ident(i)) if i == "doc");
    is_doc.then_some(2 + usize::from(bang))
}

// ---- import circles --------------------------------------------------------------------

/// A module as the rules name it: the crate it is in and its path.
type Module = (Crate, Vec<String>);

/// Where a module first names a sibling: file and line.
type Edges = BTreeMap<(Module, Module), (String, usize)>;

/// The imports between sibling modules: for each reference, the two modules of one
/// folder that hold its two ends (`store::lock` naming `store::mirror::write` is
/// `store::lock` → `store::mirror`; a child naming its parent or the reverse is none).
fn sibling_edges(sources: &[Source]) -> Edges {
    let modules: BTreeSet<Module> = sources.iter().map(|s| (s.krate, s.module.clone())).collect();
    let mut edges = Edges::new();
    for s in sources {
        for (target, at) in &s.facts.refs {
            let common = s.module.iter().zip(target).take_while(|(a, b)| a == b).count();
            if common >= s.module.len() || common >= target.len() {
                continue;
            }
            let from = (s.krate, s.module[..=common].to_vec());
            let to = (s.krate, target[..=common].to_vec());
            if modules.contains(&to) {
                edges.entry((from, to)).or_insert_with(|| (s.rel.clone(), *at));
            }
        }
    }
    edges
}

fn name(m: &Module) -> String {
    m.1.join("::")
}

fn check_circles(sources: &[Source], out: &mut Vec<Violation>) {
    let edges = sibling_edges(sources);
    let mut next: BTreeMap<&Module, Vec<&Module>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(m) = stack.pop() {
            for n in next.get(m).into_iter().flatten() {
                if seen.insert(*n) {
                    stack.push(n);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&Module, BTreeSet<&Module>> = next.keys().map(|m| (*m, reach(m))).collect();
    let mut reported = BTreeSet::new();
    for (m, seen) in &reaches {
        // The modules `m` reaches that reach it back: its circle.
        let circle: BTreeSet<&Module> = seen
            .iter()
            .filter(|n| reaches.get(*n).is_some_and(|r| r.contains(m)))
            .copied()
            .collect();
        if circle.len() < 2 || !reported.insert(circle.clone()) {
            continue;
        }
        let inside: Vec<_> = edges
            .iter()
            .filter(|((a, b), _)| circle.contains(a) && circle.contains(b))
            .collect();
        let members: Vec<String> = circle.iter().map(|m| format!("`{}`", name(m))).collect();
        let (file, at) = inside[0].1;
        let how: Vec<String> = inside
            .iter()
            .map(|((a, b), (f, l))| format!("`{}` names `{}` at {f}:{l}", name(a), name(b)))
            .collect();
        let msg = match members.as_slice() {
            [a, b] => format!("{a} and {b} import each other: {}", how.join("; ")),
            [rest @ .., last] => format!(
                "{} and {last} import one another in a circle: {}",
                rest.join(", "),
                how.join("; ")
            ),
            [] => unreachable!("a circle has members"),
        };
        let item: Vec<String> = circle.iter().map(|m| name(m)).collect();
        out.push(Violation::new(file, *at, "import-circle", &item.join(", "), msg));
    }
}

// ---- layers ----------------------------------------------------------------------------

/// One stage of ARCHITECTURE.md's diagram: its modules, and whether they are kept apart
/// (`ingest | query`) or may import one another one way (`model, text`).
struct Stage {
    modules: Vec<String>,
    apart: bool,
}

/// The layer diagram of ARCHITECTURE.md: the line with arrows in its `text` block.
fn stages_from_architecture() -> Vec<Stage> {
    let doc = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let block = doc
        .split("```text")
        .nth(1)
        .expect("ARCHITECTURE.md has a ```text block");
    let diagram = block.lines().find(|l| l.contains('→')).expect("a layer diagram with →");
    diagram
        .split('→')
        .map(|stage| {
            let apart = stage.contains('|');
            let modules = stage.split([',', '|']).map(|m| m.trim().to_string()).collect();
            Stage { modules, apart }
        })
        .collect()
}

fn check_layers(sources: &[Source], stages: &[Stage], out: &mut Vec<Violation>) {
    let stage_of: BTreeMap<&str, usize> = stages
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.modules.iter().map(move |m| (m.as_str(), i)))
        .collect();
    check_placed(sources, &stage_of, out);
    // The first place each file names each other top-level module.
    let mut uses: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    let lib = sources.iter().filter(|s| s.krate == Crate::Lib && !s.module.is_empty());
    for s in lib {
        for (target, at) in &s.facts.refs {
            let to = target.first().map_or("", String::as_str);
            if to != s.module[0] {
                uses.entry((&s.rel, &s.module[0], to)).or_insert(*at);
            }
        }
    }
    let diagram = "the order of ARCHITECTURE.md's diagram";
    for ((file, from, to), at) in uses {
        let (Some(&a), Some(&b)) = (stage_of.get(from), stage_of.get(to)) else {
            let msg = format!("`{from}` names `crate::{to}`, which is no module with a stage in {diagram}");
            out.push(Violation::new(file, at, "layer", to, msg));
            continue;
        };
        if b > a {
            let msg = format!("`{from}` imports `{to}`, a stage above it ({diagram})");
            out.push(Violation::new(file, at, "layer", to, msg));
        } else if a == b && stages[a].apart {
            let msg = format!("`{from}` imports `{to}`: the two never import each other ({diagram})");
            out.push(Violation::new(file, at, "layer", to, msg));
        }
    }
    for s in sources {
        for (path, at) in &s.facts.external {
            let (first, second) = (path[0].as_str(), path.get(1).map(String::as_str));
            if s.krate == Crate::Lib && first == "clap" {
                let msg = "the library names clap: the command line lives in the binary".to_string();
                out.push(Violation::new(&s.rel, *at, "layer", "clap", msg));
            }
            if s.krate == Crate::Bin && first == "mdgraph" && second == Some("internal") {
                let msg = "the binary uses `mdgraph::internal`: it has the public API only".to_string();
                out.push(Violation::new(&s.rel, *at, "layer", "internal", msg));
            }
        }
    }
}

/// Every module `src/lib.rs` declares has a stage in the diagram and every stage names
/// modules that exist (the binary aside); the public ones are few.
fn check_placed(sources: &[Source], stage_of: &BTreeMap<&str, usize>, out: &mut Vec<Violation>) {
    let lib = sources.iter().find(|s| s.rel == "src/lib.rs").expect("src/lib.rs");
    let mut declared = BTreeSet::new();
    let mut public = 0;
    for item in &lib.ast.items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        public += usize::from(matches!(m.vis, syn::Visibility::Public(_)));
        if !stage_of.contains_key(name.as_str()) {
            let msg = format!("module `{name}` has no stage in ARCHITECTURE.md's layer diagram");
            out.push(Violation::new(&lib.rel, line(m.ident.span()), "layer", &name, msg));
        }
        declared.insert(name);
    }
    for m in stage_of.keys().filter(|m| **m != "binary" && !declared.contains(**m)) {
        let msg = format!("the layer diagram names `{m}`, which src/lib.rs does not declare");
        out.push(Violation::new("ARCHITECTURE.md", 1, "layer", m, msg));
    }
    if public > MAX_PUBLIC_MODULES {
        let msg = format!("{public} public modules (at most {MAX_PUBLIC_MODULES}): every `pub` is a promise");
        out.push(Violation::new(&lib.rel, 1, "layer", "pub mod", msg));
    }
}

/// Every folder under `src/` is in ARCHITECTURE.md's code map (written as `` `name/` ``),
/// and so is every file at the root of `src/` (`` `name.rs` ``): a new folder cannot
/// land without a line saying what it owns.
fn check_code_map(sources: &[Source], out: &mut Vec<Violation>) {
    let doc = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let mut wanted = BTreeSet::new();
    for s in sources {
        let Some(rel) = s.rel.strip_prefix("src/") else {
            continue;
        };
        let parts: Vec<&str> = rel.split('/').collect();
        if parts.len() == 1 {
            wanted.insert(format!("`{rel}`"));
        }
        for dir in &parts[..parts.len() - 1] {
            wanted.insert(format!("`{dir}/`"));
        }
    }
    for w in wanted.into_iter().filter(|w| !doc.contains(w.as_str())) {
        let msg = format!("{w} is in src/ but not in ARCHITECTURE.md's code map");
        out.push(Violation::new("ARCHITECTURE.md", 1, "code-map", &w, msg));
    }
}

// ---- exceptions ------------------------------------------------------------------------

/// The violations no exception covers, and the exceptions no violation needs, as
/// compiler-style lines.
fn apply_exceptions(found: Vec<Violation>) -> Vec<String> {
    let mut used = vec![false; EXCEPTIONS.len()];
    let mut failures = Vec::new();
    for v in found {
        let listed = EXCEPTIONS
            .iter()
            .position(|e| e.rule == v.rule && e.file == v.file && e.item == v.item);
        match listed {
            Some(i) => used[i] = true,
            None => failures.push(format!("{}:{}: error[{}]: {}", v.file, v.line, v.rule, v.msg)),
        }
    }
    for (e, used) in EXCEPTIONS.iter().zip(used) {
        if !used {
            let what = if e.item.is_empty() {
                String::new()
            } else {
                format!(" `{}`", e.item)
            };
            failures.push(format!(
                "tests/suite/tidy.rs: error[stale-exception]: {} no longer breaks {}{what}; \
                 remove its exception ({})",
                e.file, e.rule, e.why
            ));
        }
    }
    failures.sort();
    failures
}
