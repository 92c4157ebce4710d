//! Writes `$OUT_DIR/o200k.bin`: the o200k_base vocabulary as a table the binary reads in
//! place (no load step), for `src/text/bpe.rs`. The vocabulary comes from the
//! `bpe-openai` crate (OpenAI's o200k_base.tiktoken, MIT), where token id = merge rank.
//!
//! Layout, little-endian u32s: `n`, `slots` (a power of two), `offsets[n + 1]` (token
//! `i` is `bytes[offsets[i]..offsets[i + 1]]`), `table[slots]` (0 for an empty slot, else
//! the token id plus one; open addressing, linear probing from `slot_hash(token)` masked
//! to the table), then the token bytes.

use std::io::Write;

include!("src/text/o200k_hash.rs");

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/text/o200k_hash.rs");
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
