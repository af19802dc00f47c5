//! The document as the checker reads it: a JSON tree that borrows its strings
//! from the text (or from a `serde_json::Value`) and keeps each object as a
//! slice sorted by key. It behaves like `serde_json::Value` (same key order,
//! same numbers) but lives in one arena ([`Arena`]): building it costs a few
//! large allocations instead of one per string and one B-tree per object,
//! and dropping it is one free per arena chunk. That was most of the time of
//! checking a large GOST config.

use crate::limits::Shape;
use serde_json::{Number, Value};
use std::fmt;

/// Where a tree's arrays, objects and decoded strings live.
pub(crate) type Arena = bumpalo::Bump;

/// A JSON value (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Val<'a> {
    Null,
    Bool(bool),
    Num(&'a Number),
    Str(&'a str),
    Arr(&'a [Val<'a>]),
    Obj(Obj<'a>),
    /// A container of a `serde_json::Value` below [`DEEP`] levels, kept as
    /// it is: no rule reads that deep, and converting it would recurse.
    Deep(&'a Value),
}

/// A JSON object, keys unique (as in `serde_json::Map`). An object of more
/// than [`SMALL`] entries is stored sorted by key; a smaller one keeps the
/// text's order: sorting every object as it was read took 2.1 of the
/// reader's 14.3 ms on a 4.7 MB config, and the decode walk, the one reader
/// of every object, does not need the order. [`Obj::iter`] gives key order
/// either way.
#[derive(Default, Clone, Copy)]
pub(crate) struct Obj<'a>(&'a [(&'a str, Val<'a>)]);

/// See [`Obj`]: config objects have up to about six entries. Up to this
/// size a scan is as quick as a binary search, and [`Obj::iter`] sorts the
/// positions in place.
const SMALL: usize = 16;

/// As the derived form would print it, entries in key order.
impl fmt::Debug for Obj<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries: Vec<(&str, Val<'_>)> = self.iter().map(|(k, v)| (k, *v)).collect();
        f.debug_tuple("Obj").field(&entries).finish()
    }
}

// The arena never runs destructors: nothing in a tree may own memory.
const _: () = assert!(!std::mem::needs_drop::<Val<'static>>());

/// `null`, for absent fields.
pub(crate) static NULL: Val<'static> = Val::Null;

/// Depth below which containers of a `serde_json::Value` are not converted.
const DEEP: usize = 100;

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
#[inline]
fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && crate::go::strings::bytes_eq(a.as_bytes(), b.as_bytes())
}

impl<'a> Obj<'a> {
    /// Puts `entries` in their stored order (see [`Obj`]); `false` when a
    /// key repeats (the caller then takes the `serde_json::Value` route, see
    /// [`parse`]).
    fn sort_entries(entries: &mut [(&'a str, Val<'a>)]) -> bool {
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
        // The crate's one merge sort, not another copy of the standard one.
        crate::stable_sort::sort_by(entries, |a, b| key_cmp(a.0, b.0));
        entries
            .windows(2)
            .all(|w| matches!(w, [a, b] if key_cmp(a.0, b.0).is_lt()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get_key_value(&self, key: &str) -> Option<(&'a str, &'a Val<'a>)> {
        let entries: &'a [(&'a str, Val<'a>)] = self.0;
        if entries.len() <= SMALL {
            return self.iter_any().find(|(k, _)| same_key(k, key));
        }
        let i = entries.binary_search_by(|(k, _)| key_cmp(k, key)).ok()?;
        entries.get(i).map(|(k, v)| (*k, v))
    }

    /// A field looked up the way Go's `encoding/json` matches struct
    /// fields: the exact key, else the first case-insensitive one in key
    /// order. Returns the key actually used and its value.
    pub fn get_ci(&self, name: &str) -> Option<(&'a str, &'a Val<'a>)> {
        use crate::go::strings::{key_eq_ci, key_match, Case};
        if self.len() > SMALL {
            // Stored sorted: a binary search, then the first folded match.
            return self
                .get_key_value(name)
                .or_else(|| self.iter().find(|(k, _)| key_eq_ci(k, name)));
        }
        // One pass: the exact key, or else the smallest folded one (a small
        // object keeps the text's order).
        let mut folded: Option<(&'a str, &'a Val<'a>)> = None;
        for (k, v) in self.iter_any() {
            match key_match(k, name) {
                Some(Case::Exact) => return Some((k, v)),
                Some(Case::Folded) if folded.is_none_or(|(f, _)| key_cmp(k, f).is_lt()) => {
                    folded = Some((k, v))
                }
                _ => {}
            }
        }
        folded
    }

    pub fn get(&self, key: &str) -> Option<&'a Val<'a>> {
        self.get_key_value(key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get_key_value(key).is_some()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&'a str, &'a Val<'a>)> {
        let entries: &'a [(&'a str, Val<'a>)] = self.0;
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

    /// Entries in the stored order (see [`Obj`]), for walks whose result
    /// does not depend on it.
    pub fn iter_any(&self) -> impl Iterator<Item = (&'a str, &'a Val<'a>)> {
        let entries: &'a [(&'a str, Val<'a>)] = self.0;
        entries.iter().map(|(k, v)| (*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &'a str> {
        self.iter().map(|(k, _)| k)
    }

    pub fn to_value(self) -> serde_json::Map<String, Value> {
        // Inserted one by one: collecting into a map compiles one more sort
        // (see crate::stable_sort).
        let mut out = serde_json::Map::new();
        for (k, v) in self.iter() {
            out.insert(k.to_string(), v.to_value());
        }
        out
    }
}

impl<'a> Val<'a> {
    /// A view of `v` (its arrays and objects in `arena`); containers deeper
    /// than [`DEEP`] stay `serde_json` values.
    pub fn from_value(v: &'a Value, arena: &'a Arena) -> Val<'a> {
        Self::convert(v, arena, 0)
    }

    fn convert(v: &'a Value, arena: &'a Arena, depth: usize) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::Num(n),
            Value::String(s) => Val::Str(s),
            Value::Array(_) | Value::Object(_) if depth >= DEEP => Val::Deep(v),
            Value::Array(a) => Val::Arr(
                arena.alloc_slice_fill_iter(a.iter().map(|x| Self::convert(x, arena, depth + 1))),
            ),
            // Already sorted and unique.
            Value::Object(o) => {
                Val::Obj(Obj(arena
                    .alloc_slice_fill_iter(o.iter().map(|(k, x)| {
                        (k.as_str(), Self::convert(x, arena, depth + 1))
                    }))))
            }
        }
    }

    /// The same value as a `serde_json::Value` (for comparisons and messages).
    pub fn to_value(self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(b),
            Val::Num(n) => Value::Number((*n).clone()),
            Val::Str(s) => Value::String(s.to_string()),
            Val::Arr(a) => Value::Array(a.iter().map(|x| x.to_value()).collect()),
            Val::Obj(o) => Value::Object(o.to_value()),
            Val::Deep(v) => (*v).clone(),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Val::Str(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Val::Obj(_) | Val::Deep(Value::Object(_)))
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Num(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The object's entries; `None` for anything else (and for a [`Val::Deep`] object).
    pub fn as_object(&self) -> Option<&Obj<'a>> {
        match self {
            Val::Obj(o) => Some(o),
            _ => None,
        }
    }

    /// The array's items; `None` for anything else (and for a [`Val::Deep`] array).
    pub fn as_array(&self) -> Option<&'a [Val<'a>]> {
        match self {
            Val::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// A field of an object (`None` for anything else).
    pub fn get(&self, key: &str) -> Option<&'a Val<'a>> {
        self.as_object()?.get(key)
    }
}

/// The limit walk over a parsed tree (which holds no [`Val::Deep`]: only
/// [`Val::from_value`] makes those, and a `serde_json::Value` is walked itself).
impl crate::limits::Node for Val<'_> {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Val::Str(s) => Shape::Str(s),
            Val::Arr(a) => Shape::Arr(a),
            Val::Obj(_) => Shape::Obj,
            _ => Shape::Other,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn entries(&self) -> impl DoubleEndedIterator<Item = (&str, &Self)> {
        match self {
            Val::Obj(o) => Some(o.iter()),
            _ => None,
        }
        .into_iter()
        .flatten()
        .map(|(k, v)| -> (&str, &Self) { (k, v) })
    }
}

/// Compact JSON, exactly as `serde_json::Value` prints it.
impl fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Str(s) => {
                let mut out = String::new();
                crate::json::write_string(s, &mut out);
                f.write_str(&out)
            }
            Val::Num(n) => {
                let mut out = String::new();
                crate::json::write_number(n, &mut out);
                f.write_str(&out)
            }
            Val::Null => f.write_str("null"),
            Val::Bool(b) => write!(f, "{}", b),
            _ => f.write_str(&crate::json::to_text(&self.to_value())),
        }
    }
}

/// Parses JSON text like [`crate::json::from_str`], into `arena`.
/// `None` when that parse fails, when an object repeats a key or when
/// nesting goes deeper than [`MAX_DEPTH`]: the caller then takes the
/// `serde_json::Value` route for the exact result. So a tree from `parse`
/// holds every string and container of the text.
///
/// One pass, no recursion into serde: strings without escapes are borrowed
/// from the text (found eight bytes at a time), strings with escapes are
/// decoded into the arena, plain integers are read directly and every other
/// number goes through [`crate::json`], so its value (and its refusals) are
/// the same. The children of the open containers wait on two stacks
/// and move into the arena, in one slice, when their container closes.
pub(crate) fn parse<'a>(text: &'a str, arena: &'a Arena) -> Option<(Val<'a>, Stats)> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        arena,
        items: Vec::new(),
        entries: Vec::new(),
        stats: Stats::default(),
    };
    let v = r.value(0)?;
    r.skip_ws();
    (r.pos == r.bytes.len()).then_some((v, r.stats))
}

/// What [`parse`] saw of the things the size limits look at, so that a
/// document plainly within them needs no limit walk (`crate::limits`).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Stats {
    /// JSON values (objects, arrays, scalars), as the limit walk counts them.
    pub values: usize,
    /// Deepest nesting of arrays and objects (the root container is 1).
    pub depth: usize,
    /// Longest string or key, in bytes (after decoding escapes).
    pub longest_string: usize,
    /// Longest array any count limit may look at: the value of any key
    /// `nodes`, `hops`, `chainNodes`, `inNodeId` or `outNodeId`, and the
    /// arrays inside a `chainNodes`.
    pub longest_counted: usize,
}

impl Stats {
    /// True when no limit other than the byte count can be exceeded: a
    /// string has no more characters than bytes, and every array a count
    /// limit reads is within the smallest of them. When false, the exact
    /// limit walk decides (and names the first value over a limit).
    pub fn within(&self, limits: &crate::limits::Limits) -> bool {
        self.depth <= limits.max_depth
            && self.longest_string <= limits.max_string_len
            && self.longest_counted
                <= limits
                    .max_nodes
                    .min(limits.max_hops)
                    .min(limits.max_nodes_per_hop)
    }

    fn counted(&mut self, key: &str, v: &Val<'_>) {
        if let Val::Arr(items) = v {
            match key {
                "nodes" | "hops" | "inNodeId" | "outNodeId" => {
                    self.longest_counted = self.longest_counted.max(items.len())
                }
                "chainNodes" => {
                    self.longest_counted = self.longest_counted.max(items.len());
                    for item in items.iter() {
                        if let Val::Arr(members) = item {
                            self.longest_counted = self.longest_counted.max(members.len());
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Nesting deeper than this goes to the serde route (which refuses
/// anything over 128 levels).
pub(crate) const MAX_DEPTH: usize = 100;

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    arena: &'a Arena,
    /// Items of the arrays being read, innermost last (copied into the
    /// arena, in one slice, when their array closes).
    items: Vec<Val<'a>>,
    /// Entries of the objects being read, innermost last.
    entries: Vec<(&'a str, Val<'a>)>,
    stats: Stats,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    fn literal(&mut self, word: &str, v: Val<'a>) -> Option<Val<'a>> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word.as_bytes()).then(|| {
            self.pos = end;
            v
        })
    }

    fn value(&mut self, depth: usize) -> Option<Val<'a>> {
        self.skip_ws();
        self.stats.values += 1;
        match self.peek()? {
            b'"' => self.string().map(Val::Str),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.literal("true", Val::Bool(true)),
            b'f' => self.literal("false", Val::Bool(false)),
            b'n' => self.literal("null", Val::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A member of a container: a string without the trip through
    /// [`Self::value`] (most members of a config are strings).
    #[inline]
    fn item(&mut self, depth: usize) -> Option<Val<'a>> {
        if self.peek() == Some(b'"') {
            self.stats.values += 1;
            return self.string().map(Val::Str);
        }
        self.value(depth)
    }

    /// A string (the reader stands on its opening quote).
    fn string(&mut self) -> Option<&'a str> {
        self.pos += 1;
        let start = self.pos;
        self.pos += crate::json::plain_len(self.bytes.get(self.pos..)?);
        match self.peek()? {
            b'"' => {}
            b'\\' => return self.escaped(start),
            _ => return None,
        }
        let s = self.text.get(start..self.pos)?;
        self.pos += 1;
        self.stats.longest_string = self.stats.longest_string.max(s.len());
        Some(s)
    }

    /// The rest of a string that has escapes, decoded into the arena. Only
    /// what serde_json accepts is decoded (a lone surrogate is `None`).
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> Option<&'a str> {
        let mut out = String::from(self.text.get(start..self.pos)?);
        loop {
            let run = self.pos;
            self.pos += crate::json::plain_len(self.bytes.get(self.pos..)?);
            out.push_str(self.text.get(run..self.pos)?);
            match self.peek()? {
                b'"' => break,
                b'\\' => {}
                _ => return None,
            }
            self.pos += 1;
            let c = match self.peek()? {
                b'u' => {
                    let first = self.hex4()?;
                    match first {
                        0xD800..=0xDBFF => {
                            // A high surrogate needs its low half right after.
                            if self.bytes.get(self.pos + 1..self.pos + 3)? != b"\\u" {
                                return None;
                            }
                            self.pos += 2;
                            let low = self.hex4()?;
                            crate::json::surrogate_pair(first, low)?
                        }
                        c => char::from_u32(c)?, // a lone low surrogate is None here
                    }
                }
                b => crate::json::short_escape(b)?,
            };
            out.push(c);
            self.pos += 1;
        }
        self.pos += 1;
        self.stats.longest_string = self.stats.longest_string.max(out.len());
        Some(self.arena.alloc_str(&out))
    }

    /// The four hex digits after `\u` (the reader stands on the `u` and
    /// ends on the last digit).
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.pos + 1..self.pos + 5)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.pos += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// Plain unsigned integers directly; any other number through the
    /// crate's JSON reader, so its value (and its refusals) are the same.
    #[inline(never)]
    fn number(&mut self) -> Option<Val<'a>> {
        let start = self.pos;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.peek() {
            self.pos += 1;
        }
        let token = self.text.get(start..self.pos)?;
        let plain = token.len() <= 19
            && token.bytes().all(|b| b.is_ascii_digit())
            && (token == "0" || !token.starts_with('0'));
        if plain {
            let n: u64 = token.parse().ok()?;
            return Some(Val::Num(self.arena.alloc(n.into())));
        }
        // Through the `Value` reader the crate already carries.
        match crate::json::from_str(token).ok()? {
            Value::Number(n) => Some(Val::Num(self.arena.alloc(n))),
            _ => None,
        }
    }

    /// Enters an array or object at `depth` (the reader stands on its
    /// opening bracket): `Some(true)` when it is empty and already closed
    /// by `close`, `None` when it nests too deep.
    #[inline]
    fn open(&mut self, depth: usize, close: u8) -> Option<bool> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.stats.depth = self.stats.depth.max(depth);
        self.pos += 1;
        self.skip_ws();
        let empty = self.peek()? == close;
        if empty {
            self.pos += 1;
        }
        Some(empty)
    }

    fn array(&mut self, depth: usize) -> Option<Val<'a>> {
        if self.open(depth, b']')? {
            return Some(Val::Arr(&[]));
        }
        let base = self.items.len();
        loop {
            let v = self.item(depth)?;
            self.items.push(v);
            self.skip_ws();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    let items = self.arena.alloc_slice_copy(self.items.get(base..)?);
                    self.items.truncate(base);
                    return Some(Val::Arr(items));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Val<'a>> {
        if self.open(depth, b'}')? {
            return Some(Val::Obj(Obj(&[])));
        }
        let base = self.entries.len();
        loop {
            // Compact text (what `JSON.stringify` and the panel write) has no
            // whitespace around keys: one compare instead of the loop.
            if self.peek()? != b'"' {
                self.skip_ws();
                if self.peek()? != b'"' {
                    return None;
                }
            }
            let key = self.string()?;
            if self.peek() == Some(b':') {
                self.pos += 1;
            } else {
                self.eat(b':')?;
            }
            let v = self.item(depth)?;
            self.stats.counted(key, &v);
            self.entries.push((key, v));
            self.skip_ws();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    if !Obj::sort_entries(self.entries.get_mut(base..)?) {
                        return None;
                    }
                    let entries = self.arena.alloc_slice_copy(self.entries.get(base..)?);
                    self.entries.truncate(base);
                    return Some(Val::Obj(Obj(entries)));
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the `serde_json::Value` route makes of `text`, as a tree.
    fn value_route(text: &str) -> Option<String> {
        let v: Value = crate::json::from_str(text).ok()?;
        let arena = Arena::new();
        let t = Val::from_value(&v, &arena);
        Some(format!("{t:?}"))
    }

    fn same(text: &str) {
        let v: Value = serde_json::from_str(text).unwrap();
        let arena = Arena::new();
        let t = parse(text, &arena).unwrap().0;
        assert_eq!(t.to_value(), v, "{}", text);
        assert_eq!(t.to_string(), v.to_string(), "{}", text);
        assert_eq!(Some(format!("{t:?}")), value_route(text), "{}", text);
    }

    #[test]
    fn behaves_like_serde_json_value() {
        same(
            r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0.1e-5,"x\u00e9\n",null,true,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#,
        );
        let arena = Arena::new();
        assert!(
            parse(r#"[{"k":1,"k":2,"j":{"k":3},"k":4}]"#, &arena).is_none(),
            "repeated keys"
        );
        let wide: Vec<String> = (0..40).rev().map(|i| format!("\"k{i}\":{i}")).collect();
        assert!(
            parse(&format!("{{{},\"k7\":1}}", wide.join(",")), &arena).is_none(),
            "repeated key in a large object"
        );
        assert!(parse(&format!("{{{}}}", wide.join(",")), &arena).is_some());
        same(r#""plain""#);
        same("18446744073709551615");
        // An ordinary key, as for the Go server (serde_json alone reads it as raw JSON text).
        let raw = parse(r#"{"$serde_json::private::RawValue":"[1]"}"#, &arena)
            .unwrap()
            .0;
        assert_eq!(
            raw.get("$serde_json::private::RawValue")
                .and_then(Val::as_str),
            Some("[1]")
        );
        assert!(parse("[1,]", &arena).is_none());
        let v: Value = serde_json::from_str(r#"{"b":1,"c":2,"a":3}"#).unwrap();
        let t = parse(r#"{"b":1,"c":2,"a":3}"#, &arena).unwrap().0;
        let o = t.as_object().unwrap();
        assert_eq!(
            o.keys().collect::<Vec<_>>(),
            v.as_object().unwrap().keys().collect::<Vec<_>>()
        );
        assert_eq!(o.get("a").and_then(Val::as_i64), Some(3));
    }

    #[test]
    fn escapes_decode_as_serde_json_does() {
        for text in [
            r#""a\nb\t\"q\" \\ \/ \b\f\r""#,
            r#""\u00e9\u4e2d\uD83D\uDE00 end""#,
            r#"{"k\u0042":"v","kA":1,"\u006b":[]}"#,
            r#"["\u0000", "x\u001f"]"#,
            r#""ünïcödé \u00fc mixed 12345678901234567890""#,
        ] {
            same(text);
        }
        let arena = Arena::new();
        for bad in [
            r#""\uD83D""#,
            r#""\uD83Dx""#,
            r#""\uDE00""#,
            r#""\uD83D\u0041""#,
            r#""\x""#,
            r#""\u12G4""#,
            "\"a\u{1}b\"",
            r#""\"#,
            r#""abc"#,
        ] {
            assert!(parse(bad, &arena).is_none(), "{bad}");
        }
        // A key repeated only after decoding is still a repeat.
        assert!(parse(r#"{"a":1,"\u0061":2}"#, &arena).is_none());
    }

    /// The reader gives exactly the `serde_json::Value` route's tree, or
    /// leaves the text to it.
    #[test]
    fn reader_matches_the_value_route() {
        let mut texts: Vec<String> = vec![
            r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0,0.1e-5,"x",null,true,false,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#.into(),
            " [ 1 , 2 ]\n".into(), "[]".into(), "{}".into(), "0".into(), "-0".into(), "18446744073709551615".into(),
            "18446744073709551616".into(), "1234567890123456789".into(), "-9223372036854775808".into(), "1e400".into(),
            "01".into(), "1.".into(), ".5".into(), "-".into(), "1e".into(), "[1,]".into(), "{\"a\":1,}".into(), "[1 2]".into(),
            "{\"a\" 1}".into(), "{1:2}".into(), "tru".into(), "nul".into(), "[true,false,null]".into(), "\"a\\nb\"".into(),
            "\"tab\there\"".into(), "{\"k\":1,\"k\":2}".into(), r#"{"$serde_json::private::RawValue":"[1]"}"#.into(),
            "[1] x".into(), "\u{feff}[1]".into(), "".into(), "  ".into(), "[1e5, 2E-3, -1.5e+2, 1.0]".into(),
            r#"["\u00e9", "\ud83d\ude00", "a\\b", "\ud83d", "\udc00"]"#.into(),
            "\"1234567\\\"\"".into(), "\"12345678\\n\"".into(), "\"123456789abcdef\u{7f}\u{80}\"".into(),
            // Whitespace where the compact-text shortcuts look for a quote or a colon.
            r#"{ "a" : "x" , "b" :[ "y" ,"z" ] ,"c": "w"}"#.into(), "{\n\t\"a\"\r\n:\n\"b\"\n}".into(), r#"{"a" 1}"#.into(),
            r#"{"a":"x" "b":1}"#.into(), r#"[ "x" , "y" ]"#.into(), r#"["x" "y"]"#.into(), r#"{"a": }"#.into(), r#"{ }"#.into(),
        ];
        // Small and large objects, sorted, reversed and with a repeated key.
        for n in [2usize, 3, 16, 17, 40] {
            let keys: Vec<String> = (0..n).map(|i| format!("\"k{i:03}\":{i}")).collect();
            texts.push(format!("{{{}}}", keys.join(",")));
            texts.push(format!(
                "{{{}}}",
                keys.iter().rev().cloned().collect::<Vec<_>>().join(",")
            ));
            texts.push(format!("{{{},\"k001\":0}}", keys.join(",")));
            texts.push(format!(
                "{{\"k001\":0,{}}}",
                keys.iter().rev().cloned().collect::<Vec<_>>().join(",")
            ));
        }
        for depth in [99, 100, 101, 127, 128, 129, 200] {
            texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            texts.push(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
        }
        for dir in [
            "tests/data",
            "tests/data/check",
            "tests/data/hostile",
            "tests/data/sim",
            "fuzz/corpus/seed-check",
            "fuzz/corpus/seed-plan",
            "fuzz/corpus/seed-simulate",
            "fuzz/corpus/seed-lifecycle",
        ] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if let Ok(t) = std::fs::read_to_string(entry.path()) {
                    // The golden vectors: each line, and its input and expected plan.
                    for line in t.lines().filter(|l| l.starts_with('{')) {
                        if let Ok(v) = serde_json::from_str::<Value>(line) {
                            texts.push(v["input"].to_string());
                            texts.push(serde_json::to_string_pretty(&v["expected"]).unwrap());
                        }
                    }
                    texts.push(t);
                }
            }
        }
        let (mut hits, mut with_escapes) = (0, 0);
        for t in &texts {
            let arena = Arena::new();
            if let Some((v, stats)) = parse(t, &arena) {
                hits += 1;
                stats_agree_with_the_walk(&v, &stats, t);
                with_escapes += usize::from(t.contains('\\'));
                assert_eq!(
                    Some(format!("{v:?}")),
                    value_route(t),
                    "{}",
                    t.get(..200).unwrap_or(t)
                );
            }
        }
        assert!(hits > 1000 && with_escapes > 10, "{hits} {with_escapes}");
    }

    /// When the reader says a document is within the limits, the limit walk
    /// agrees and counts the same values, for the defaults and for limits
    /// set at the document's own sizes (and one below each).
    fn stats_agree_with_the_walk(v: &Val<'_>, stats: &Stats, text: &str) {
        use crate::limits::{check_value_counting, Limits};
        let what = text.get(..120).unwrap_or(text);
        let mut tries = vec![Limits::default()];
        for less in [0, 1] {
            let at = |n: usize| n.saturating_sub(less);
            let mut l = Limits {
                max_depth: at(stats.depth),
                max_string_len: at(stats.longest_string),
                ..Limits::default()
            };
            tries.push(l);
            l = Limits {
                max_nodes: at(stats.longest_counted),
                max_hops: at(stats.longest_counted),
                max_nodes_per_hop: at(stats.longest_counted),
                ..l
            };
            tries.push(l);
            tries.push(Limits {
                max_nodes: at(stats.longest_counted),
                ..Limits::default()
            });
            tries.push(Limits {
                max_hops: at(stats.longest_counted),
                ..Limits::default()
            });
            tries.push(Limits {
                max_nodes_per_hop: at(stats.longest_counted),
                ..Limits::default()
            });
        }
        for limits in tries {
            let walk = check_value_counting(v, &limits);
            if stats.within(&limits) {
                assert_eq!(walk.as_ref().ok(), Some(&stats.values), "{limits:?} {what}");
            }
            if let Ok(n) = walk {
                assert_eq!(n, stats.values, "{what}");
            }
        }
    }

    #[test]
    fn deep_values_are_not_converted() {
        let mut v = Value::Null;
        for _ in 0..(DEEP + 50) {
            v = Value::Array(vec![v]);
        }
        let arena = Arena::new();
        let t = Val::from_value(&v, &arena);
        assert_eq!(t.to_value(), v);
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.pop().unwrap_or(Value::Null);
        }
    }
}
