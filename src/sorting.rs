//! Stable sorts through one compiled copy of std's sort.
//!
//! `slice::sort_by` compiles a whole copy of std's stable sort for each
//! element type and comparison it is given; in the `.wasm` those copies were
//! the largest generic code of the module. These functions sort the
//! positions `0..len` with std's `sort_by` behind one `dyn` comparison, so
//! one copy serves every caller, then move the elements into that order. The
//! result is std's stable sort's: equal elements keep their order. The
//! figures are in BENCH.md ("Round: sizes after the core's consolidation").

use litemap::LiteMap;
use std::cmp::Ordering;

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub(crate) fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = {
        let view: &[T] = items;
        positions(view.len(), &mut |a, b| match (view.get(a), view.get(b)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => Ordering::Equal,
        })
    };
    permute(items, order);
}

/// Sorts `items` stably by the key `key` gives, as `slice::sort_by_key` does.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably by their order, as `slice::sort` does; for values
/// whose equal elements are indistinguishable (integers, tuples of them,
/// text) this is also what `sort_unstable` gives.
pub(crate) fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// A map of `entries` by key, the last of a repeated key kept, as collecting
/// into a `LiteMap` (or a `BTreeMap`) keeps it.
pub(crate) fn sorted_map<K: Ord, V>(mut entries: Vec<(K, V)>) -> LiteMap<K, V> {
    sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(K, V)> = Vec::with_capacity(entries.len());
    for entry in entries {
        match kept.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => kept.push(entry),
        }
    }
    LiteMap::from_sorted_store_unchecked(kept)
}

/// The positions `0..len` sorted stably by `compare` (the one place std's
/// sort is compiled for this module's callers).
fn positions(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves the element at `order[i]` to `i` for every `i`, following each
/// cycle of the permutation once.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, at);
            if from == start || from == at {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_std_stable_sort_does() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in [0usize, 1, 2, 3, 7, 20, 33, 100, 1000] {
            let mut items: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    ((seed % 5) as u8, i)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|e| e.0);
            sort_by_key(&mut items, |e| e.0);
            assert_eq!(items, expected, "len {len}");
        }
    }

    #[test]
    fn sorts_a_reversed_and_a_sorted_list() {
        let mut down: Vec<i64> = (0..50).rev().collect();
        sort(&mut down);
        assert_eq!(down, (0..50).collect::<Vec<_>>());
        let mut up: Vec<i64> = (0..50).collect();
        sort(&mut up);
        assert_eq!(up, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn a_map_keeps_the_last_of_a_repeated_key() {
        let map = sorted_map(vec![(3, "c"), (1, "a"), (3, "C"), (2, "b"), (1, "A")]);
        let pairs: Vec<(i32, &str)> = map.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(pairs, vec![(1, "A"), (2, "b"), (3, "C")]);
        let collected: LiteMap<i32, &str> = vec![(3, "c"), (1, "a"), (3, "C"), (2, "b"), (1, "A")]
            .into_iter()
            .collect();
        assert_eq!(map, collected);
    }
}
