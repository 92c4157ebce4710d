//! Decision blocks: the part of a research note, a design or an ADR that says what was
//! decided and why (Decision, Rationale, Alternatives considered, Trade-offs, and their
//! translations). For a question that asks why, such a block is packed as a unit: whole
//! when it fits, else cut only between two decisions, never after its first bullet, so
//! the pack never holds a decision without the reasons and the rejected alternatives
//! that answer the question.

/// What a labelled line of a decision block says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// What was decided: a block starts here.
    Decision,
    /// Why, what else was weighed, what it costs.
    Reason,
}

/// Labels that start a decision, as Spec Kit, Kiro and ADR templates write them and
/// their translations (lowercase, without the trailing colon).
const DECISION: &[&str] = &[
    "decision",
    "decisions",
    "decided",
    "entscheidung",
    "décision",
    "decisión",
    "decisão",
    "decisione",
    "beslissing",
    "decyzja",
    "rozhodnutí",
    "karar",
    "решение",
    "рішення",
    "决定",
    "决策",
    "決定",
    "결정",
];

/// Labels of a decision's reasons, alternatives and trade-offs.
const REASON: &[&str] = &[
    "rationale",
    "reason",
    "reasons",
    "reasoning",
    "why",
    "justification",
    "alternatives",
    "alternatives considered",
    "alternative",
    "options considered",
    "rejected",
    "trade-off",
    "trade-offs",
    "tradeoff",
    "tradeoffs",
    "consequences",
    "begründung",
    "alternativen",
    "abwägung",
    "konsequenzen",
    "justificación",
    "justificativa",
    "alternativas",
    "alternativas consideradas",
    "consecuencias",
    "consequências",
    "compensaciones",
    "compromissos",
    "justification",
    "alternatives envisagées",
    "compromis",
    "conséquences",
    "motivazione",
    "alternative considerate",
    "compromessi",
    "conseguenze",
    "обоснование",
    "альтернативы",
    "последствия",
    "理由",
    "原因",
    "备选方案",
    "替代方案",
    "权衡",
    "后果",
    "根拠",
    "代替案",
    "トレードオフ",
    "結果",
    "근거",
    "대안",
    "트레이드오프",
];

/// The label a line opens with (`**Decision**:`, `- **Rationale**:`, `Decision: …`,
/// `### Alternatives considered`, `1. **Decision**`), if it is one of a decision block's.
fn label(line: &str) -> Option<Label> {
    let t = line
        .trim_start()
        .trim_start_matches(['#', '>', '-', '*', '+', ' ', '\t'])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', ' ', '*', '_'])
        .trim_start();
    // The label ends at a colon (also full-width), a closing `**`, or the line's end.
    let end = t
        .find([':', '：'])
        .into_iter()
        .chain(t.find("**"))
        .chain(t.find("__"))
        .min()
        .unwrap_or(t.len());
    let name = t[..end].trim().trim_end_matches(['*', '_']).trim().to_lowercase();
    // A label is short: "Decision" opens a block, "Decision makers met on Monday" does not.
    if name.is_empty() || name.split_whitespace().count() > 3 || (end == t.len() && !line.trim_start().starts_with('#'))
    {
        return None;
    }
    let is = |names: &[&str]| names.iter().any(|n| name == *n || name.starts_with(&format!("{n} ")));
    if is(DECISION) {
        Some(Label::Decision)
    } else if is(REASON) {
        Some(Label::Reason)
    } else {
        None
    }
}

/// Where the decision blocks of a section's `text` start (byte offsets of their first
/// lines), when the text is one or more decision blocks: a decision label and a label of
/// its reasons, alternatives or trade-offs. Empty for any other text.
pub(super) fn blocks(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut reasons = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        match label(line) {
            Some(Label::Decision) => starts.push(at),
            Some(Label::Reason) => reasons = true,
            None => {}
        }
        at += line.len();
    }
    if starts.is_empty() || !reasons {
        return Vec::new();
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_research_decision_is_one_block_and_a_plain_list_is_none() {
        let research = "**Decision**: Move the sign-in to a BFF.\n\n**Rationale**:\n- tokens stay on the server\n- one origin\n\n**Alternatives considered**:\n- Let the old API accept the tokens: Rejected because it cannot validate them.\n";
        assert_eq!(blocks(research), [0]);
        let two = format!("{research}\n- **Decision**: Keep Postgres.\n- **Rationale**: the team knows it.\n");
        assert_eq!(blocks(&two).len(), 2);
        assert!(blocks("- tokens stay on the server\n- one origin\n").is_empty());
        // A decision with nothing that says why is no block to keep whole.
        assert!(blocks("Decision: use Redis.\n").is_empty());
        assert!(blocks("## Entscheidung\nWir nehmen Redis.\n\n## Begründung\nSchnell.\n").len() == 1);
        assert!(blocks("Decision makers met on Monday.\nRationale is below.\n").is_empty());
    }
}
