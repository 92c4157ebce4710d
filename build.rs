//! Writes `$OUT_DIR/o200k.bin`: the o200k_base vocabulary as a table the binary reads in
//! place (no load step), for `src/text/bpe.rs`. The vocabulary comes from the
//! `bpe-openai` crate (OpenAI's o200k_base.tiktoken, MIT), where token id = merge rank.
//!
//! Layout, little-endian u32s: `n`, `slots` (a power of two), `offsets[n + 1]` (token
//! `i` is `bytes[offsets[i]..offsets[i + 1]]`), `table[slots]` (0 for an empty slot, else
//! the token id plus one; open addressing, linear probing from `slot_hash(token)` masked
//! to the table), then the token bytes.
//!
//! Also writes `$OUT_DIR/o200k_pretokenizer.dfa`: the pre-tokenizer's patterns
//! (`src/text/o200k_pattern.rs`) as a minimized dense DFA (anchored, leftmost-first,
//! little-endian, ≈2 MB) that `src/text/bpe.rs` reads in place. Compiling the regex at
//! run time cost each `pack` ≈3 ms of CPU and ≈25 % of its samples (zeroing the pages
//! the compiler allocates); reading the DFA costs a check of its tables (≈0.2 ms).

use std::io::Write;

include!("src/text/o200k_hash.rs");
include!("src/text/o200k_pattern.rs");

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/text/o200k_hash.rs");
    println!("cargo::rerun-if-changed=src/text/o200k_pattern.rs");
    write_pretokenizer();
    let bpe = &bpe_openai::o200k_base().bpe;
    let n = bpe.num_tokens();
    let slots = (n * 2).next_power_of_two();
    let mut offsets: Vec<u32> = Vec::with_capacity(n + 1);
    let mut bytes: Vec<u8> = Vec::new();
    let mut table = vec![0u32; slots];
    for id in 0..n {
        offsets.push(bytes.len() as u32);
        let token = bpe.token_bytes(id as u32);
        bytes.extend_from_slice(token);
        let mut slot = (slot_hash(token) as usize) & (slots - 1);
        while table[slot] != 0 {
            slot = (slot + 1) & (slots - 1);
        }
        table[slot] = id as u32 + 1;
    }
    offsets.push(bytes.len() as u32);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo")).join("o200k.bin");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&out).expect("create o200k.bin"));
    let mut put = |v: u32| w.write_all(&v.to_le_bytes()).expect("write o200k.bin");
    put(n as u32);
    put(slots as u32);
    for o in &offsets {
        put(*o);
    }
    for t in &table {
        put(*t);
    }
    w.write_all(&bytes).expect("write o200k.bin");
    w.flush().expect("write o200k.bin");
}

/// The pre-tokenizer DFA (see the module doc).
fn write_pretokenizer() {
    use regex_automata::MatchKind;
    use regex_automata::dfa::{StartKind, dense};
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::LeftmostFirst)
                .start_kind(StartKind::Anchored)
                .minimize(true),
        )
        .build_many(&O200K_PATTERNS)
        .expect("the o200k patterns compile");
    let (bytes, pad) = dfa.to_bytes_little_endian();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    std::fs::write(out.join("o200k_pretokenizer.dfa"), &bytes[pad..]).expect("write o200k_pretokenizer.dfa");
}
