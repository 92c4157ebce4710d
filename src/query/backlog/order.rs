//! The orders items are listed in: by priority (P0/critical first) and by id with
//! numbers compared by value, and `ready`'s order.

use super::states::fold;
use std::cmp::Reverse;

/// Where an item stands in `ready`'s answer: by priority, then by how much other work it
/// unblocks (most first), then by id (numbers by value; ids alike that way in byte
/// order). The mirror's `ready` column numbers items in this order, and an edit's part
/// of the table is numbered among the others' by it (`table.rs`).
pub(super) fn ready_key(priority: Option<&str>, unblocks: usize, id: &str) -> ReadyKey {
    (priority_rank(priority), Reverse(unblocks), natural(id), id.to_string())
}

/// What [`ready_key`] compares.
pub(super) type ReadyKey = (u32, Reverse<usize>, Vec<(String, u64)>, String);

/// Rank of a priority value: P0/critical/highest first; none last.
pub fn priority_rank(p: Option<&str>) -> u32 {
    let Some(p) = p else { return 100 };
    let f = fold(p);
    if let Some(n) = f.strip_prefix('p').and_then(|d| d.parse::<u32>().ok()) {
        return n;
    }
    if let Ok(n) = f.parse::<u32>() {
        return n;
    }
    match f.as_str() {
        "critical" | "blocker" | "urgent" | "highest" => 0,
        "high" => 1,
        "medium" | "normal" => 2,
        "low" => 3,
        "lowest" | "trivial" => 4,
        _ => 50,
    }
}

/// Sort key that orders numbers in ids by value (`BACK-9` before `BACK-10`).
pub fn natural(id: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num: Option<u64> = None;
    for c in id.chars() {
        if let Some(d) = c.to_digit(10) {
            num = Some(num.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(d)));
        } else {
            if let Some(n) = num.take() {
                out.push((std::mem::take(&mut text), n));
            }
            text.extend(c.to_lowercase());
        }
    }
    out.push((text, num.unwrap_or(0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_and_natural_order() {
        assert!(priority_rank(Some("P0")) < priority_rank(Some("P2")));
        assert!(priority_rank(Some("high")) < priority_rank(Some("low")));
        assert!(priority_rank(Some("low")) < priority_rank(None));
        assert!(natural("BACK-9") < natural("BACK-10"));
    }
}
