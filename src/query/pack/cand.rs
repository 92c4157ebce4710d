//! A candidate as the packer sees it, and what the copies each round of the fit makes
//! of it share: its sections' blocks, their counts and where excerpts may be cut.

use super::{Mode, Relation};
use crate::query::search::{Hit, SectionText};
use crate::text::render;
use std::cell::{Cell, OnceCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A candidate as the packer sees it.
#[derive(Clone)]
pub(super) struct Cand<'a> {
    pub(super) hit: &'a Hit,
    /// Header, relations line and reason line, and their tokens: alone, and followed by
    /// a blank line (see [`with_sep`]). What is fixed for the candidate (behind `Rc`) is
    /// shared by the copies each round of the fit allocates.
    pub(super) head: Rc<str>,
    pub(super) head_cost: u32,
    pub(super) head_blank: u32,
    pub(super) relations: Rc<[Relation]>,
    pub(super) relations_more: Rc<BTreeMap<&'static str, usize>>,
    pub(super) sections: Rc<Vec<SectionText>>,
    /// Counts made for the sections, shared as they are.
    pub(super) counts: Rc<Counts>,
    /// Section indexes, most relevant first.
    pub(super) order: Rc<[usize]>,
    /// Per section: a decision block kept as a unit (a why-question's; see
    /// [`super::decision`]), cut only between decisions.
    pub(super) atomic: Rc<[bool]>,
    /// Per section: the small item of the same document whose text it is, when the
    /// section is another item's packed in this one's block ([`group_small_items`]).
    pub(super) owners: Rc<[Option<&'a str>]>,
    /// A requirement or criterion written inside a file: packed with the others of its
    /// document as one block.
    pub(super) small: bool,
    /// Chosen sections: index and, when cut, the cut text and its tokens.
    pub(super) chosen: Vec<(usize, Option<(String, u32)>)>,
    pub(super) included: bool,
    pub(super) cost: u32,
}

impl Cand<'_> {
    pub(super) fn mode(&self) -> Mode {
        if self.chosen.is_empty() {
            Mode::Reference
        } else if self.chosen.len() == self.sections.len() && self.chosen.iter().all(|(_, cut)| cut.is_none()) {
            Mode::Full
        } else {
            Mode::Excerpt
        }
    }
}

/// The small items of one document (requirements, criteria: a line each, written inside
/// a spec) as one block under the best ranked of them: each further one is a section of
/// that block (its text, without a header of its own), in rank order, so ten
/// requirements cost one header, not ten.
pub(super) fn group_small_items(cands: Vec<Cand<'_>>) -> (Vec<Cand<'_>>, Vec<Slot>) {
    let mut out: Vec<Cand> = Vec::with_capacity(cands.len());
    let mut slots = Vec::with_capacity(cands.len());
    let mut leader: BTreeMap<&str, usize> = BTreeMap::new();
    for c in cands {
        let lead = c.small.then(|| leader.get(c.hit.path.as_str()).copied()).flatten();
        let Some(at) = lead else {
            if c.small {
                leader.insert(&c.hit.path, out.len());
            }
            slots.push(Slot::Item(out.len()));
            out.push(c);
            continue;
        };
        let l = &mut out[at];
        slots.push(Slot::Member(at, l.sections.len()));
        let mut sections = (*l.sections).clone();
        let mut owners = l.owners.to_vec();
        let mut atomic = l.atomic.to_vec();
        let mut order = l.order.to_vec();
        for (k, s) in c.sections.iter().enumerate() {
            order.push(sections.len());
            sections.push(s.clone());
            owners.push(Some(c.hit.id.as_str()));
            atomic.push(c.atomic[k]);
        }
        l.counts = Rc::new(Counts::new(sections.len()));
        l.sections = Rc::new(sections);
        l.owners = owners.into();
        l.atomic = atomic.into();
        l.order = order.into();
    }
    (out, slots)
}

/// A turn in the fit's breadth pass, in rank order: an item's, or a small item's packed
/// in another item's block (its leader and the section that is its text), which keeps
/// the turn its rank gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The candidate at this place.
    Item(usize),
    /// Section `.1` of candidate `.0`: a small item of its document.
    Member(usize, usize),
}

/// A candidate's section `i` as the pack prints it, made once per pack.
pub(super) fn block<'c>(c: &'c Cand, i: usize) -> &'c str {
    c.counts.blocks[i].get_or_init(|| render::section_block(&c.sections[i].heading, &c.sections[i].text))
}

/// What a candidate's copies share, each made when first needed: per section, its block,
/// the block's counts with the newlines after it and what excerpts are cut by; and the
/// candidate's line in the "Not included" list.
pub(super) struct Counts {
    blocks: Vec<OnceCell<String>>,
    pub(super) parts: Vec<Cell<Option<Part>>>,
    pub(super) wholes: Vec<OnceCell<Whole>>,
    pub(super) line: OnceCell<(String, u32)>,
}

impl Counts {
    /// Nothing made yet, for `n` sections.
    pub(super) fn new(n: usize) -> Counts {
        Counts {
            blocks: (0..n).map(|_| OnceCell::new()).collect(),
            parts: vec![Cell::new(None); n],
            wholes: (0..n).map(|_| OnceCell::new()).collect(),
            line: OnceCell::new(),
        }
    }
}

/// A section's block as excerpts are cut from it: where its text starts, the ends of
/// its words, and the ends of its o200k pieces with the tokens up to each.
pub(super) struct Whole {
    pub(super) start: usize,
    pub(super) cuts: Vec<usize>,
    pub(super) ends: Vec<(usize, u32)>,
}

/// A section's block counted with a blank line after it and with a newline, and
/// whether it starts a piece.
#[derive(Clone, Copy)]
pub(super) struct Part {
    pub(super) blank: u32,
    pub(super) newline: u32,
    pub(super) starts: bool,
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::Kind;
    use crate::query::search::Why;
    use crate::text::tokens::{self, Tokenizer};

    /// A hit on `id`: a seed that matched in its first section, `Goal`.
    pub(in crate::query::pack) fn hit(id: &str) -> Hit {
        Hit {
            id: id.to_string(),
            path: format!("{id}.md"),
            title: format!("Title of {id}"),
            kind: Kind::default(),
            r#type: Some("Task".to_string()),
            state: Some("Open".to_string()),
            score: 1.0,
            nav: false,
            why: Why::Seed {
                exact_id: false,
                matched: vec!["export".to_string()],
                section: "Goal".to_string(),
                section_id: Some(format!("{id}#s0")),
                section_score: 1.0,
                sections_matched: 1,
                also_reached: 0,
            },
        }
    }

    /// A candidate for `hit` with `head` and `sections` (heading, text) in document
    /// order, counted with o200k as the index and the fit count them; nothing chosen.
    pub(in crate::query::pack) fn cand<'a>(hit: &'a Hit, head: &str, sections: &[(&str, &str)]) -> Cand<'a> {
        let o = Tokenizer::O200k;
        let sections: Vec<SectionText> = sections
            .iter()
            .enumerate()
            .map(|(i, (heading, text))| SectionText {
                chunk: format!("{}#s{i}", hit.id),
                heading: heading.to_string(),
                text: text.to_string(),
                tokens: tokens::count(o, &render::section_block(heading, text)),
            })
            .collect();
        Cand {
            hit,
            head: head.into(),
            head_cost: tokens::count(o, head),
            head_blank: tokens::count(o, &format!("{head}\n\n")),
            relations: Rc::from(Vec::new()),
            relations_more: Rc::default(),
            counts: Rc::new(Counts::new(sections.len())),
            order: (0..sections.len()).collect(),
            atomic: vec![false; sections.len()].into(),
            owners: vec![None; sections.len()].into(),
            small: false,
            sections: Rc::new(sections),
            chosen: Vec::new(),
            included: false,
            cost: 0,
        }
    }

    #[test]
    fn the_mode_follows_what_is_chosen() {
        let h = hit("T-1");
        let mut c = cand(&h, "## T-1", &[("Goal", "Ship it."), ("Notes", "Later.")]);
        assert_eq!(c.mode(), Mode::Reference);
        c.chosen = vec![(0, None)];
        assert_eq!(c.mode(), Mode::Excerpt);
        c.chosen.push((1, None));
        assert_eq!(c.mode(), Mode::Full);
        // Every section, one of them cut: an excerpt.
        c.chosen[1].1 = Some(("### Notes …".to_string(), 3));
        assert_eq!(c.mode(), Mode::Excerpt);
    }

    #[test]
    fn a_block_is_made_once_and_shared_by_the_copies() {
        let h = hit("T-1");
        let c = cand(&h, "## T-1", &[("Goal", "  Ship\nit.  "), ("", "Intro.")]);
        assert_eq!(block(&c, 0), "### Goal\n\nShip\nit.");
        assert_eq!(block(&c, 1), "Intro.");
        let copy = c.clone();
        assert!(std::ptr::eq(block(&c, 0), block(&copy, 0)));
    }
}
