//! The MCP tools' answers: compact shapes (empty fields and what the nesting already
//! says left out), each sent once as the call's text content, and cut to the call's
//! limit and token budget ([`ANSWER_BUDGET`] by default) with what was cut counted.
//!
//! A result carries its JSON once, as text: a client that showed the model both the
//! text and `structuredContent` would pay for the answer twice, and these tools declare
//! no output schema, so `structuredContent` is not required (the pack's summary is the
//! one structured part: the Markdown is the answer, the summary its shape).

use mdgraph::{Bounded, Bounds, Hit, Neighborhood, Shown, Tokenizer, TreeNode, TreeReport};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::Value;

/// Most tokens of an answer when the call names no budget.
pub(super) const ANSWER_BUDGET: u32 = 10_000;

/// The bounds of a call: its limit, its budget or [`ANSWER_BUDGET`].
pub(super) fn bounds(limit: Option<u32>, budget: Option<u32>) -> Bounds {
    Bounds {
        limit: limit.map(|l| l.max(1) as usize),
        budget: Some(budget.unwrap_or(ANSWER_BUDGET).max(1)),
    }
}

/// A result whose one content is `text`.
pub(super) fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// `v` as compact JSON without empty fields ([`lean`]; keys in name order).
pub(super) fn compact(v: &impl Serialize) -> Result<String, ErrorData> {
    let mut v = serde_json::to_value(v).map_err(internal)?;
    lean(&mut v);
    Ok(v.to_string())
}

/// `v` as compact JSON, its fields in their order.
pub(super) fn plain(v: &impl Serialize) -> Result<String, ErrorData> {
    serde_json::to_string(v).map_err(internal)
}

fn internal(e: serde_json::Error) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

/// `full` cut to `bounds`, sent as the text `render` makes of it.
pub(super) fn bounded<T: Bounded>(
    full: &T,
    bounds: Bounds,
    tokenizer: Tokenizer,
    render: impl Fn(&T) -> Result<String, ErrorData>,
) -> Result<CallToolResult, ErrorData> {
    let failed = std::cell::RefCell::new(None);
    let (_, text) = mdgraph::fit_bounds(full, bounds, tokenizer, |t| {
        render(t).unwrap_or_else(|e| {
            failed.borrow_mut().get_or_insert(e);
            String::new()
        })
    });
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(text_result(text)),
    }
}

/// Without what tells a reader nothing: null fields, empty lists and objects, zero
/// counts of what was left out (`more`, `omitted`), and a state group where there is no
/// state.
fn lean(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(lean),
        Value::Object(m) => {
            m.values_mut().for_each(lean);
            m.retain(|k, x| !empty(k, x));
            if !m.contains_key("state") {
                m.remove("group");
            }
        }
        _ => {}
    }
}

fn empty(key: &str, v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Number(n) => matches!(key, "more" | "omitted" | "unblocks") && n.as_u64() == Some(0),
        _ => false,
    }
}

/// A tree as the MCP tool sends it: each node without its parent (the nesting says it),
/// its path only where it differs from its parent's, its roll-up only when it has
/// descendants, and no empty field.
#[derive(Serialize)]
pub(super) struct TreeOut<'a> {
    root: NodeOut<'a>,
    #[serde(skip_serializing_if = "is_zero")]
    more: usize,
}

#[derive(Serialize)]
struct NodeOut<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    r#type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a str>,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rollup: Option<RollOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<NodeOut<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    more: usize,
}

/// A roll-up's counts, the zero ones left out (but `total` and `done`).
#[derive(Serialize)]
struct RollOut {
    total: usize,
    done: usize,
    #[serde(skip_serializing_if = "is_zero")]
    open: usize,
    #[serde(skip_serializing_if = "is_zero")]
    in_progress: usize,
    #[serde(skip_serializing_if = "is_zero")]
    blocked: usize,
    #[serde(skip_serializing_if = "is_zero")]
    dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub(super) fn tree(r: &TreeReport) -> TreeOut<'_> {
    fn node<'a>(n: &'a TreeNode, parent_path: Option<&str>) -> NodeOut<'a> {
        let i = &n.item;
        let r = &n.rollup;
        NodeOut {
            id: &i.id,
            r#type: i.r#type.as_deref(),
            state: i.state.as_deref(),
            group: i.state.as_ref().map(|_| i.group.as_str()),
            title: &i.title,
            path: (parent_path != Some(i.path.as_str())).then_some(i.path.as_str()),
            priority: i.priority.as_deref(),
            rollup: (r.total > 0).then_some(RollOut {
                total: r.total,
                done: r.done,
                open: r.open,
                in_progress: r.in_progress,
                blocked: r.blocked,
                dropped: r.dropped,
            }),
            children: n.children.iter().map(|c| node(c, Some(&i.path))).collect(),
            more: n.more,
        }
    }
    TreeOut {
        root: node(&r.root, None),
        more: r.more,
    }
}

/// Search results as the MCP tool sends them: each with a one-line reason.
#[derive(Clone, Serialize)]
pub(super) struct SearchOut<'a> {
    pub(super) results: Vec<HitOut<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    pub(super) more: usize,
}

#[derive(Clone, Serialize)]
pub(super) struct HitOut<'a> {
    id: &'a str,
    title: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    path: &'a str,
    score: f64,
    why: String,
}

impl<'a> SearchOut<'a> {
    pub(super) fn new(hits: &'a [Hit]) -> SearchOut<'a> {
        let results = hits
            .iter()
            .map(|h| HitOut {
                id: &h.id,
                title: &h.title,
                r#type: h.r#type.as_deref().unwrap_or(h.kind.as_str()),
                state: h.state.as_deref(),
                path: &h.path,
                score: (h.score * 1000.0).round() / 1000.0,
                why: h.why.line(),
            })
            .collect();
        SearchOut { results, more: 0 }
    }
}

/// The best results are kept.
impl Bounded for SearchOut<'_> {
    fn entries(&self) -> usize {
        self.results.len()
    }

    fn keep(&mut self, n: usize) {
        self.more += self.results.len().saturating_sub(n);
        self.results.truncate(n);
    }
}

/// A neighborhood as the MCP tool sends it: edges as `[source, type, target]`.
#[derive(Serialize)]
pub(super) struct HoodOut<'a> {
    root: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    nodes: Vec<HoodNode<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    edges: Vec<[&'a str; 3]>,
    #[serde(skip_serializing_if = "is_zero")]
    omitted: usize,
}

#[derive(Serialize)]
struct HoodNode<'a> {
    id: &'a str,
    title: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    hop: usize,
}

pub(super) fn hood(h: &Neighborhood) -> HoodOut<'_> {
    HoodOut {
        root: &h.root,
        nodes: h
            .nodes
            .iter()
            .map(|n| HoodNode {
                id: &n.id,
                title: &n.title,
                r#type: n.r#type.as_deref().unwrap_or(n.kind.as_str()),
                state: n.state.as_deref(),
                hop: n.hop,
            })
            .collect(),
        edges: h
            .edges
            .iter()
            .map(|e| [e.source.as_str(), e.r#type.as_str(), e.target.as_str()])
            .collect(),
        omitted: h.omitted,
    }
}

/// One document as the MCP tool sends it. A cut keeps relations (outgoing first) in
/// at most half of the entries and the text's first lines in the rest, and says what it
/// left out.
#[derive(Clone, Serialize)]
pub(super) struct ShowOut<'a> {
    id: &'a str,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    title: &'a str,
    path: &'a str,
    /// The document a section belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<&'a serde_json::value::RawValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sections: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    out: Vec<Rel<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    r#in: Vec<Rel<'a>>,
    /// Relations left out.
    #[serde(skip_serializing_if = "is_zero")]
    more: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// Lines of the text left out.
    #[serde(skip_serializing_if = "is_zero")]
    text_more_lines: usize,
    #[serde(skip)]
    lines: Vec<&'a str>,
}

#[derive(Clone, Serialize)]
struct Rel<'a> {
    r#type: &'a str,
    id: &'a str,
    title: &'a str,
}

impl<'a> ShowOut<'a> {
    pub(super) fn new(v: &'a Shown) -> ShowOut<'a> {
        let n = &v.node;
        macro_rules! rels {
            ($list:expr) => {
                $list
                    .iter()
                    .map(|e| Rel {
                        r#type: e.r#type.as_str(),
                        id: &e.id,
                        title: &e.title,
                    })
                    .collect()
            };
        }
        let lines: Vec<&str> = n.text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
        ShowOut {
            id: &n.id,
            r#type: n.r#type.as_deref().unwrap_or(n.kind.as_str()),
            state: n.state.as_deref(),
            title: n.label(),
            path: &n.path,
            doc: n.doc.as_deref(),
            fields: n.fields.as_deref(),
            sections: v.sections.iter().map(|s| s.heading.as_str()).collect(),
            out: rels!(v.outgoing),
            r#in: rels!(v.incoming),
            more: 0,
            text: n.text.clone(),
            text_more_lines: 0,
            lines,
        }
    }
}

impl Bounded for ShowOut<'_> {
    fn entries(&self) -> usize {
        self.out.len() + self.r#in.len() + self.lines.len()
    }

    fn keep(&mut self, n: usize) {
        let rels = self.out.len() + self.r#in.len();
        let lines = self.lines.len();
        // Half for each, and what one does not use for the other.
        let for_rels = rels.min((n / 2).max(n.saturating_sub(lines)));
        let for_lines = lines.min(n - for_rels);
        let keep_out = self.out.len().min(for_rels);
        self.out.truncate(keep_out);
        self.r#in.truncate(for_rels - keep_out);
        self.more += rels - for_rels;
        if for_lines < lines {
            self.text_more_lines += lines - for_lines;
            self.lines.truncate(for_lines);
            self.text = (!self.lines.is_empty()).then(|| self.lines.join("\n") + "\n…");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lean_json_leaves_out_empty_fields_and_zero_counts() {
        let mut v = serde_json::json!({
            "id": "T1", "state": null, "group": "open", "children": [], "more": 0,
            "items": [{"id": "T2", "state": "Done", "group": "done", "unblocks": 0, "more": 3}],
        });
        lean(&mut v);
        assert_eq!(
            v.to_string(),
            r#"{"id":"T1","items":[{"group":"done","id":"T2","more":3,"state":"Done"}]}"#
        );
    }
}
