//! Small helpers shared by the simulator and the lifecycle replay: fields
//! of plans and configs, integer fields, CRC-32 and a deterministic PRNG, built on Go's rules in [`crate::go`]. None of them
//! panics on any input.

use crate::json::node::{Node, Shape};

/// Adds a note to a trace's notes. Out of line: one compiled push for the
/// notes of every call site.
#[inline(never)]
pub fn note(notes: &mut Vec<String>, text: std::fmt::Arguments<'_>) {
    notes.push(std::fmt::format(text));
}

/// `text` as an owned string: out of line, one compiled copy for the many
/// names, addresses and reasons the simulator keeps.
#[inline(never)]
pub fn owned(text: &str) -> String {
    text.to_string()
}

/// The array under `key` of a JSON object (either tree); empty when there
/// is none.
pub fn list_at<'a, N: Node>(v: &'a N, key: &str) -> &'a [N] {
    match v.field(key).map(Node::shape) {
        Some(Shape::Arr(items)) => items,
        _ => &[],
    }
}

/// The string under `key` of a JSON object (either tree); `""` when there
/// is none.
pub fn str_at<'a, N: Node>(v: &'a N, key: &str) -> &'a str {
    match v.field(key).map(Node::shape) {
        Some(Shape::Str(s)) => s,
        _ => "",
    }
}

/// CRC-32 (IEEE), as Go's `crc32.ChecksumIEEE`.
pub fn crc32_ieee(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// A small deterministic PRNG (SplitMix64) standing in for GOST's time-seeded `math/rand`.
#[derive(Debug, Clone)]
pub struct Prng(u64);

impl Prng {
    pub fn new(seed: u64) -> Self {
        Prng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; returns 0 otherwise).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc() {
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }
}
