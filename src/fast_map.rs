//! Hash maps with a cheap hasher, for the crate's own indexes: node ids in
//! the planner, chain names and ports in the checker, markers in the
//! simulator. Keys come from the caller's document and every such map is
//! bounded by the input limits (`crate::limits`), so SipHash's resistance
//! to chosen collisions buys nothing here; it cost about 2% of checking a
//! large config, and it is code the `.wasm` no longer carries.
//!
//! Nothing iterates these maps where order would show in an output.

use std::hash::BuildHasherDefault;

/// A `HashMap` hashed by [`WordHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// A `HashSet` hashed by [`WordHasher`].
pub type FastSet<T> = std::collections::HashSet<T, BuildHasherDefault<WordHasher>>;

/// Multiply-rotate hashing, a machine word at a time (the FxHash scheme).
#[derive(Default)]
pub struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        for (t, b) in tail.iter_mut().zip(chunks.remainder()) {
            *t = *b;
        }
        self.add(u64::from_le_bytes(tail));
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
