// The slot hash of the o200k lookup table. Shared, by `include!`, between build.rs (which
// writes the table) and src/text/bpe.rs (which reads it): FNV-1a, 64 bits.

/// FNV-1a over `bytes`.
#[inline]
pub fn slot_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
