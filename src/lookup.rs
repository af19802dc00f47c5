//! A hash map for keys an input chooses (node ids, service and chain names)
//! that answers lookups only.
//!
//! Why hashed, and keyed: a `BTreeMap` cannot be made slow by its keys, but
//! each lookup compares the key with a dozen others (names sharing long
//! prefixes), the largest part of checking a large config (BENCH.md, "Round:
//! keyed lookups"); an unkeyed hash such as FxHash is fast but lets an input
//! choose keys that all collide (BENCH.md, "Round: reliability under
//! amplification"). SipHash-1-3 under secret keys
//! (std's own choice for `HashMap`) is both: without the keys no input can be
//! written to collide. std's `RandomState` draws no keys on
//! `wasm32-unknown-unknown` (every instance hashes alike), so the bindings
//! name the page's random source ([`set_key_source`]) when the module
//! starts, and the keys are drawn from it when the first map is built: an
//! instance that builds none never asks (Node's Web Crypto loads on first
//! use, which would otherwise lengthen every import; a small tunnel's plan
//! builds none: `model::NodeTable`; BENCH.md). Natively the keys come from
//! std's `RandomState`.
//!
//! Why lookups only: iterating a keyed map visits its entries in an order
//! that changes with the keys, and no answer may change from one instance
//! to the next. [`LookupMap`] has no iterator, so no output can depend on
//! that order.

use siphasher::sip::SipHasher13;
use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, Hash, RandomState};
use std::sync::OnceLock;

static KEYS: OnceLock<(u64, u64)> = OnceLock::new();
static KEY_SOURCE: OnceLock<fn() -> (u64, u64)> = OnceLock::new();

/// Names where this instance's hash keys come from, before any map is
/// built. Later calls are ignored: maps built under the first keys must
/// keep them.
pub fn set_key_source(draw: fn() -> (u64, u64)) {
    let _ = KEY_SOURCE.set(draw);
}

fn keys() -> (u64, u64) {
    *KEYS.get_or_init(|| match KEY_SOURCE.get() {
        Some(draw) => draw(),
        None => {
            let std_keys = RandomState::new();
            (std_keys.hash_one(0u8), std_keys.hash_one(1u8))
        }
    })
}

/// SipHash-1-3 under this instance's keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keyed(u64, u64);

impl Default for Keyed {
    fn default() -> Keyed {
        let (k0, k1) = keys();
        Keyed(k0, k1)
    }
}

impl BuildHasher for Keyed {
    type Hasher = SipHasher13;

    fn build_hasher(&self) -> SipHasher13 {
        SipHasher13::new_with_keys(self.0, self.1)
    }
}

/// A map from keys to values that is only inserted into and looked up.
#[derive(Debug, Clone)]
pub(crate) struct LookupMap<K, V>(std::collections::HashMap<K, V, Keyed>);

impl<K, V> Default for LookupMap<K, V> {
    fn default() -> Self {
        LookupMap(std::collections::HashMap::default())
    }
}

impl<K: Hash + Eq, V> LookupMap<K, V> {
    /// Room for `n` keys without growing.
    pub fn with_capacity(n: usize) -> Self {
        LookupMap(std::collections::HashMap::with_capacity_and_hasher(
            n,
            Keyed::default(),
        ))
    }

    /// Sets the value of `key`, returning the one it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.0.insert(key, value)
    }

    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.0.get(key)
    }

    /// The value of `key`, inserted by `make` when there is none.
    pub fn or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        match self.0.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(make()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_insert_replaces_and_lookups_borrow() {
        let mut m: LookupMap<(Option<i64>, &str), usize> = LookupMap::default();
        assert_eq!(m.insert((Some(1), "a"), 0), None);
        assert_eq!(m.insert((Some(1), "a"), 3), Some(0));
        m.insert((None, "a"), 1);
        assert_eq!(m.get(&(Some(1), "a")), Some(&3));
        assert_eq!(m.get(&(None, "a")), Some(&1));
        assert_eq!(m.get(&(Some(2), "a")), None);
        let mut names: LookupMap<String, Vec<usize>> = LookupMap::with_capacity(1);
        names.or_insert_with("x".into(), Vec::new).push(1);
        names.or_insert_with("x".into(), Vec::new).push(2);
        assert_eq!(names.get("x").map(Vec::as_slice), Some(&[1, 2][..]));
        assert!(names.get("y").is_none());
    }

    /// Two builders of one instance hash alike (maps agree with each other),
    /// and the keys are not SipHash's zero keys.
    #[test]
    fn one_instance_one_set_of_keys() {
        use std::hash::Hasher;
        let (a, b) = (Keyed::default(), Keyed::default());
        assert_eq!(a.hash_one("node"), b.hash_one("node"));
        let mut unkeyed = SipHasher13::new_with_keys(0, 0);
        "node".hash(&mut unkeyed);
        assert_ne!(a.hash_one("node"), unkeyed.finish());
    }
}
