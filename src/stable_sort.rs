//! A stable sort compiled once for the whole crate.
//!
//! The standard library's `sort_by` (and the sort inside
//! `BTreeMap::from_iter`) is compiled anew for every element type and
//! comparison (a few KB of wasm each, BENCH.md's size rounds). This
//! sort orders indices through a `dyn` comparison, so the merge sort exists
//! once and only the short permutation step is compiled per type. It is meant
//! for the small lists this crate sorts (findings, keys, addresses), not for
//! hot loops.

use std::cmp::Ordering;

/// Adds `x` to the sorted, duplicate-free `set`; false if it was there.
/// The crate's sets are sorted vectors (one binary search each; a
/// `BTreeSet` compiled a tree of its own per element type).
pub fn insert_sorted<T: Ord>(set: &mut Vec<T>, x: T) -> bool {
    match set.binary_search(&x) {
        Ok(_) => false,
        Err(at) => {
            set.insert(at, x);
            true
        }
    }
}

/// Sorts `v` stably by `cmp` (equal elements keep their order).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        sorted_indices(
            items.len(),
            &mut |a, b| match (items.get(a), items.get(b)) {
                (Some(x), Some(y)) => cmp(x, y),
                _ => Ordering::Equal,
            },
        )
    };
    permute(v, &order);
}

/// Sorts `v` stably by its natural order.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `pairs` as a map built once: sorted by key, the last value of a repeated
/// key kept (what `BTreeMap::from_iter` keeps), without a tree's code per
/// key and value type.
pub fn sorted_map<K: Ord, V>(mut pairs: Vec<(K, V)>) -> litemap::LiteMap<K, V> {
    sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
    keep_last(&mut pairs, |a, b| a.0 == b.0);
    litemap::LiteMap::from_sorted_store_unchecked(pairs)
}

/// Keeps the last of each run of consecutive elements `same` calls equal.
pub fn keep_last<T>(v: &mut Vec<T>, same: impl Fn(&T, &T) -> bool) {
    v.reverse();
    v.dedup_by(|later, earlier| same(later, earlier));
    v.reverse();
}

/// The indices `0..n` in stable sorted order: a bottom-up merge sort.
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut runs: Vec<usize> = (0..n).collect();
    let mut width = 1;
    while width < n {
        let mut next = Vec::with_capacity(n);
        for chunk in runs.chunks(2 * width) {
            let (left, right) = chunk.split_at(width.min(chunk.len()));
            let (mut l, mut r) = (
                left.iter().copied().peekable(),
                right.iter().copied().peekable(),
            );
            loop {
                match (l.peek().copied(), r.peek().copied()) {
                    // Take from the right only when strictly smaller: stable.
                    (Some(x), Some(y)) if cmp(y, x) == Ordering::Less => {
                        next.push(y);
                        r.next();
                    }
                    (Some(x), _) => {
                        next.push(x);
                        l.next();
                    }
                    (None, Some(y)) => {
                        next.push(y);
                        r.next();
                    }
                    (None, None) => break,
                }
            }
        }
        runs = next;
        width = width.saturating_mul(2);
    }
    runs
}

/// Rearranges `v` so that position `i` holds the element that was at
/// `order[i]` (`order` is a permutation of `0..v.len()`).
fn permute<T>(v: &mut [T], order: &[usize]) {
    // dest[old] = new position of the element now at `old`.
    let mut dest = vec![0usize; order.len()];
    for (new, &old) in order.iter().enumerate() {
        if let Some(d) = dest.get_mut(old) {
            *d = new;
        }
    }
    for i in 0..v.len().min(dest.len()) {
        // Send the element at `i` to its place until `i` holds its own.
        while let Some(&t) = dest.get(i) {
            if t == i || t >= v.len() {
                break;
            }
            v.swap(i, t);
            dest.swap(i, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_stable_sort() {
        // A small deterministic generator: many lengths, many duplicate keys.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 0..200usize {
            let mut v: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    ((seed % 7) as u8, i)
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_by_key(|a| a.0);
            sort_by(&mut v, |a, b| a.0.cmp(&b.0));
            assert_eq!(v, expected, "length {len}");
        }
    }

    #[test]
    fn sorted_map_keeps_the_last_value_of_a_key() {
        let pairs = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (3, 'e')];
        let reference: std::collections::BTreeMap<i32, char> = pairs.iter().copied().collect();
        let map = sorted_map(pairs);
        assert!(map.iter().eq(reference.iter()));
    }

    #[test]
    fn sorts_strings_naturally() {
        let mut v = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort(&mut v);
        assert_eq!(v, ["a", "a", "b", "c"]);
    }
}
