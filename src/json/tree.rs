//! The one document tree: every document an entry point is given is read
//! into it by the crate's one reader ([`super::read_into`] with
//! [`TreeBuilder`]), its strings borrowed from the text, or built by an
//! encoder (a typed result or a `serde_json::Value`, as its text would
//! read). The checker reads it as it is; the planner, simulator, lifecycle
//! replay and audit read their typed inputs from it ([`super::de`]). It
//! keeps each object as a slice sorted by key. It behaves like `serde_json::Value` (same key order,
//! same numbers) but lives in one arena ([`Arena`]): building it costs a few
//! large allocations instead of one per string and one B-tree per object,
//! and dropping it is one free per arena chunk. That was most of the time of
//! checking a large GOST config.

use serde_json::Number;
use std::borrow::Cow;
use std::fmt;

/// Where a tree's arrays, objects and decoded strings live.
pub(crate) type Arena = bumpalo::Bump;

/// A JSON value (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) enum TreeValue<'a> {
    Null,
    Bool(bool),
    Num(&'a Number),
    Str(&'a str),
    Arr(&'a [TreeValue<'a>]),
    Object(TreeObject<'a>),
}

/// A JSON object, keys unique (as in `serde_json::Map`). An object of more
/// than [`SMALL`] entries is stored sorted by key; a smaller one keeps the
/// text's order: sorting every object as it was read was a large share of
/// the reader's time on big configs (BENCH.md), and the decode walk, the one
/// reader of every object, does not need the order. [`TreeObject::iter`] gives key order
/// either way.
#[derive(Default, Clone, Copy)]
pub(crate) struct TreeObject<'a>(&'a [(&'a str, TreeValue<'a>)]);

/// See [`TreeObject`]: config objects have up to about six entries. Up to this
/// size a scan is as quick as a binary search, and [`TreeObject::iter`] sorts the
/// positions in place.
const SMALL: usize = 16;

/// As the derived form would print it, entries in key order.
impl fmt::Debug for TreeObject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries: Vec<(&str, TreeValue<'_>)> = self.iter().map(|(k, v)| (k, *v)).collect();
        f.debug_tuple("TreeObject").field(&entries).finish()
    }
}

// The arena never runs destructors: nothing in a tree may own memory.
const _: () = assert!(!std::mem::needs_drop::<TreeValue<'static>>());

/// `null`, for absent fields.
pub(crate) static NULL: TreeValue<'static> = TreeValue::Null;

/// `str` order (that of `serde_json::Map`); most keys already differ in
/// their first byte, which spares a `memcmp` call.
fn key_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // Byte by byte in place: keys are short, and wasm's `memcmp` is a byte
    // loop behind a call.
    for (p, q) in x.iter().zip(y) {
        if p != q {
            return p.cmp(q);
        }
    }
    x.len().cmp(&y.len())
}

/// `a == b`, byte by byte in place (see [`key_cmp`]).
#[inline(always)]
fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(p, q)| p == q)
}

/// How a key matched a looked-up name ([`TreeObject::get_matching`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum KeyMatch {
    Exact,
    /// Equal under the caller's folding rule.
    Folded,
}

impl<'a> TreeObject<'a> {
    /// The object without entries.
    pub const EMPTY: TreeObject<'static> = TreeObject(&[]);

    /// Puts `entries` in their stored order (see [`TreeObject`]); `false` when a
    /// key repeats (see [`TreeObject::keep_last`]).
    #[inline]
    fn sort_entries(entries: &mut [(&'a str, TreeValue<'a>)]) -> bool {
        if entries.len() <= SMALL {
            // Left in the text's order: only a repeated key matters. Keys
            // of different lengths (most pairs) differ at the first test.
            return entries.iter().enumerate().all(|(i, (k, _))| {
                entries
                    .get(..i)
                    .unwrap_or_default()
                    .iter()
                    .all(|(p, _)| !same_key(p, k))
            });
        }
        entries.sort_by(|a, b| key_cmp(a.0, b.0));
        entries
            .windows(2)
            .all(|w| matches!(w, [a, b] if key_cmp(a.0, b.0).is_lt()))
    }

    /// Drops every entry of `entries[base..]` (put in their stored order by
    /// [`TreeObject::sort_entries`]) whose key comes again later: a repeated key
    /// keeps its last value, as in `serde_json::Map`. A small object keeps
    /// the text's order (a scan per entry); a larger one is sorted stably,
    /// so a key's last entry ends its run.
    #[cold]
    fn keep_last(entries: &mut Vec<(&'a str, TreeValue<'a>)>, base: usize) {
        let tail: Vec<(&'a str, TreeValue<'a>)> = entries.drain(base..).collect();
        let small = tail.len() <= SMALL;
        for (i, entry) in tail.iter().enumerate() {
            let later = tail.get(i + 1..).unwrap_or_default();
            let repeated = if small {
                later.iter().any(|(k, _)| same_key(k, entry.0))
            } else {
                later.first().is_some_and(|(k, _)| same_key(k, entry.0))
            };
            if !repeated {
                entries.push(*entry);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get_key_value(&self, key: &str) -> Option<(&'a str, &'a TreeValue<'a>)> {
        let entries: &'a [(&'a str, TreeValue<'a>)] = self.0;
        if entries.len() <= SMALL {
            return self.iter_any().find(|(k, _)| same_key(k, key));
        }
        let i = entries.binary_search_by(|(k, _)| key_cmp(k, key)).ok()?;
        entries.get(i).map(|(k, v)| (*k, v))
    }

    /// The entry whose key `key_match` says matches `name` exactly, else
    /// the first in key order it says matches folded; with how it matched
    /// (known from the lookup: no second compare).
    pub fn get_matching(
        &self,
        name: &str,
        key_match: impl Fn(&str, &str) -> Option<KeyMatch>,
    ) -> Option<(&'a str, &'a TreeValue<'a>, KeyMatch)> {
        if self.len() > SMALL {
            // Stored sorted: a binary search, then the first folded match.
            return match self.get_key_value(name) {
                Some((k, v)) => Some((k, v, KeyMatch::Exact)),
                None => self
                    .iter()
                    .find(|(k, _)| key_match(k, name).is_some())
                    .map(|(k, v)| (k, v, KeyMatch::Folded)),
            };
        }
        // One pass: the exact key, or else the smallest folded one (a small
        // object keeps the text's order).
        let mut folded: Option<(&'a str, &'a TreeValue<'a>)> = None;
        for (k, v) in self.iter_any() {
            match key_match(k, name) {
                Some(KeyMatch::Exact) => return Some((k, v, KeyMatch::Exact)),
                Some(KeyMatch::Folded) if folded.is_none_or(|(f, _)| key_cmp(k, f).is_lt()) => {
                    folded = Some((k, v))
                }
                _ => {}
            }
        }
        folded.map(|(k, v)| (k, v, KeyMatch::Folded))
    }

    pub fn get(&self, key: &str) -> Option<&'a TreeValue<'a>> {
        self.get_key_value(key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get_key_value(key).is_some()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&'a str, &'a TreeValue<'a>)> {
        let entries: &'a [(&'a str, TreeValue<'a>)] = self.0;
        // Positions in key order: a small object is sorted here (insertion,
        // on positions), a larger one is stored sorted.
        let small = entries.len() <= SMALL;
        let mut order = [0u8; SMALL];
        if small {
            for i in 1..entries.len() {
                let Some(held) = entries.get(i) else { break };
                let mut j = i;
                while let Some(&prev) = j.checked_sub(1).and_then(|k| order.get(k)) {
                    match entries.get(usize::from(prev)) {
                        Some(p) if key_cmp(p.0, held.0).is_gt() => {
                            if let Some(slot) = order.get_mut(j) {
                                *slot = prev;
                            }
                            j -= 1;
                        }
                        _ => break,
                    }
                }
                if let Some(slot) = order.get_mut(j) {
                    *slot = i as u8;
                }
            }
        }
        (0..entries.len())
            .filter_map(move |i| {
                entries.get(if small {
                    usize::from(*order.get(i)?)
                } else {
                    i
                })
            })
            .map(|(k, v)| (*k, v))
    }

    /// Entries in the stored order (see [`TreeObject`]), for walks whose result
    /// does not depend on it.
    pub fn iter_any(&self) -> impl Iterator<Item = (&'a str, &'a TreeValue<'a>)> {
        let entries: &'a [(&'a str, TreeValue<'a>)] = self.0;
        entries.iter().map(|(k, v)| (*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &'a str> {
        self.iter().map(|(k, _)| k)
    }
}

impl<'a> TreeValue<'a> {
    pub fn is_null(&self) -> bool {
        matches!(self, TreeValue::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, TreeValue::Str(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, TreeValue::Object(_))
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            TreeValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            TreeValue::Num(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The object's entries; `None` for anything else.
    pub fn as_object(&self) -> Option<&TreeObject<'a>> {
        match self {
            TreeValue::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array's items; `None` for anything else.
    pub fn as_array(&self) -> Option<&'a [TreeValue<'a>]> {
        match self {
            TreeValue::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// A field of an object (`None` for anything else).
    pub fn get(&self, key: &str) -> Option<&'a TreeValue<'a>> {
        self.as_object()?.get(key)
    }
}

/// Reads JSON text with no limit but serde_json's recursion limit.
#[cfg(test)]
pub(crate) fn read<'a>(text: &'a str, arena: &'a Arena) -> Result<TreeValue<'a>, super::JsonError> {
    match super::read::read(text, TreeBuilder::new(arena), None) {
        Ok((v, _)) => Ok(v),
        Err(e) => match e.into_read_error() {
            super::ReadError::NotJson(e) => Err(e),
            // No limits were given: only the recursion limit stops a read.
            super::ReadError::TooLarge(_) => Err(super::JsonError::recursion_limit()),
        },
    }
}

/// Builds a tree in an arena. The children of the open containers wait on
/// two stacks and move into the arena, in one slice, when their container
/// closes.
pub(crate) struct TreeBuilder<'a> {
    arena: &'a Arena,
    /// Items of the arrays being read, innermost last.
    items: Vec<TreeValue<'a>>,
    /// Entries of the objects being read, innermost last.
    entries: Vec<(&'a str, TreeValue<'a>)>,
}

impl<'a> TreeBuilder<'a> {
    pub(crate) fn new(arena: &'a Arena) -> Self {
        TreeBuilder {
            arena,
            items: Vec::new(),
            entries: Vec::new(),
        }
    }

    fn text(&self, s: Cow<'a, str>) -> &'a str {
        match s {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => self.arena.alloc_str(&s),
        }
    }
}

impl<'a> super::read::Build<'a> for TreeBuilder<'a> {
    type Value = TreeValue<'a>;
    /// Where the array's items start on the stack.
    type Items = usize;
    type Entries = usize;
    fn null(&mut self) -> TreeValue<'a> {
        TreeValue::Null
    }
    fn bool(&mut self, b: bool) -> TreeValue<'a> {
        TreeValue::Bool(b)
    }
    fn number(&mut self, n: Number) -> TreeValue<'a> {
        TreeValue::Num(self.arena.alloc(n))
    }
    fn string(&mut self, s: Cow<'a, str>) -> TreeValue<'a> {
        TreeValue::Str(self.text(s))
    }
    fn own(&mut self, s: &str) -> Cow<'a, str> {
        Cow::Borrowed(self.arena.alloc_str(s))
    }
    fn array(&mut self) -> usize {
        self.items.len()
    }
    fn push(&mut self, _: &mut usize, v: TreeValue<'a>) {
        self.items.push(v)
    }
    fn end_array(&mut self, base: usize) -> TreeValue<'a> {
        let items = self
            .arena
            .alloc_slice_copy(self.items.get(base..).unwrap_or_default());
        self.items.truncate(base);
        TreeValue::Arr(items)
    }
    fn object(&mut self) -> usize {
        self.entries.len()
    }
    // Inline hints: the reader's loop is where these run hot; without them,
    // a second caller (`encode::Builder`) keeps them out of line natively.
    #[inline]
    fn insert(&mut self, _: &mut usize, key: Cow<'a, str>, v: TreeValue<'a>) {
        let key = self.text(key);
        self.entries.push((key, v))
    }
    #[inline]
    fn end_object(&mut self, base: usize) -> TreeValue<'a> {
        let unique = TreeObject::sort_entries(self.entries.get_mut(base..).unwrap_or_default());
        if !unique {
            TreeObject::keep_last(&mut self.entries, base);
        }
        let entries = self
            .arena
            .alloc_slice_copy(self.entries.get(base..).unwrap_or_default());
        self.entries.truncate(base);
        TreeValue::Object(TreeObject(entries))
    }
}
