//! The document as the checker reads it: a JSON tree that borrows its strings
//! from the text (or from a `serde_json::Value`) and keeps each object as a
//! vector sorted by key. It behaves like `serde_json::Value` (same key order,
//! duplicate keys keep the last value, same numbers) but costs one allocation
//! per array or object instead of one per string and one B-tree per object,
//! which is most of the time of checking a large GOST config.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use crate::limits::Shape;
use serde_json::{Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A JSON value (see the module docs).
#[derive(Debug)]
pub(crate) enum Val<'a> {
    Null,
    Bool(bool),
    Num(Number),
    Str(Cow<'a, str>),
    Arr(Vec<Val<'a>>),
    Obj(Obj<'a>),
    /// A container of a `serde_json::Value` below [`DEEP`] levels, kept as
    /// it is: no rule reads that deep, and converting it would recurse.
    Deep(&'a Value),
}

/// A JSON object: entries sorted by key, keys unique (as in `serde_json::Map`).
#[derive(Debug, Default)]
pub(crate) struct Obj<'a>(Vec<(Cow<'a, str>, Val<'a>)>);

/// `null`, for absent fields.
pub(crate) static NULL: Val<'static> = Val::Null;

/// Depth below which containers of a `serde_json::Value` are not converted.
const DEEP: usize = 100;

/// `str` order (that of `serde_json::Map`); most keys already differ in
/// their first byte, which spares a `memcmp` call.
fn key_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.as_bytes().first().cmp(&b.as_bytes().first()).then_with(|| a.cmp(b))
}

impl<'a> Obj<'a> {
    /// `None` when a key repeats: the caller takes the `serde_json::Value`
    /// route then (see [`parse`]).
    fn from_entries(mut entries: Vec<(Cow<'a, str>, Val<'a>)>) -> Option<Obj<'a>> {
        let sorted = |e: &[(Cow<'a, str>, Val<'a>)]| e.windows(2).all(|w| matches!(w, [a, b] if key_cmp(&a.0, &b.0).is_lt()));
        if !sorted(&entries) {
            entries.sort_unstable_by(|a, b| key_cmp(&a.0, &b.0));
            if !sorted(&entries) {
                return None;
            }
        }
        Some(Obj(entries))
    }

    pub fn get_key_value(&self, key: &str) -> Option<(&str, &Val<'a>)> {
        let i = self.0.binary_search_by(|(k, _)| key_cmp(k, key)).ok()?;
        self.0.get(i).map(|(k, v)| (k.as_ref(), v))
    }

    pub fn get(&self, key: &str) -> Option<&Val<'a>> {
        self.get_key_value(key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get_key_value(key).is_some()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Val<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    pub fn to_value(&self) -> serde_json::Map<String, Value> {
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
    /// A view of `v`; containers deeper than [`DEEP`] stay `serde_json` values.
    pub fn from_value(v: &'a Value) -> Val<'a> {
        Self::convert(v, 0)
    }

    fn convert(v: &'a Value, depth: usize) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::Num(n.clone()),
            Value::String(s) => Val::Str(Cow::Borrowed(s)),
            Value::Array(_) | Value::Object(_) if depth >= DEEP => Val::Deep(v),
            Value::Array(a) => Val::Arr(a.iter().map(|x| Self::convert(x, depth + 1)).collect()),
            // Already sorted and unique.
            Value::Object(o) => Val::Obj(Obj(o.iter().map(|(k, x)| (Cow::Borrowed(k.as_str()), Self::convert(x, depth + 1))).collect())),
        }
    }

    /// The same value as a `serde_json::Value` (for comparisons and messages).
    pub fn to_value(&self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(n) => Value::Number(n.clone()),
            Val::Str(s) => Value::String(s.to_string()),
            Val::Arr(a) => Value::Array(a.iter().map(Val::to_value).collect()),
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

    pub fn as_str(&self) -> Option<&str> {
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
    pub fn as_array(&self) -> Option<&[Val<'a>]> {
        match self {
            Val::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// A field of an object (`None` for anything else).
    pub fn get(&self, key: &str) -> Option<&Val<'a>> {
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
        self.as_object().into_iter().flat_map(Obj::iter)
    }
}

/// Compact JSON, exactly as `serde_json::Value` prints it.
impl fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Str(s) => fmt::Display::fmt(&Value::String(s.to_string()), f),
            Val::Num(n) => fmt::Display::fmt(n, f),
            Val::Null => f.write_str("null"),
            Val::Bool(b) => write!(f, "{}", b),
            _ => fmt::Display::fmt(&self.to_value(), f),
        }
    }
}

/// Parses JSON text like `serde_json::from_str::<Value>`, borrowing strings
/// without escapes. `None` when that parse fails, when an object repeats a
/// key, or when the text uses the one key `serde_json::Value` treats
/// specially (`$serde_json::private::RawValue`): the caller then takes the
/// `serde_json::Value` route for the exact result. So a tree from `parse`
/// holds every string and container of the text.
pub(crate) fn parse(text: &str) -> Option<Val<'_>> {
    fast::parse(text).or_else(|| serde_json::from_str::<Val>(text).ok())
}

/// A single-pass reader for the common case: strings without escapes,
/// plain numbers, nesting under [`fast::MAX_DEPTH`]. It gives exactly the
/// tree the serde route gives, or `None` for anything it does not handle
/// (escapes, errors, deep nesting, repeated keys), and the serde route then
/// decides. On config-10k it saves about 6% of the instructions of a whole
/// `check_text` natively and 5-14% of `checkDocumentJson` in Node.
mod fast {
    use super::{Obj, Val, RAW_VALUE_TOKEN};
    use serde_json::Number;
    use std::borrow::Cow;

    /// Nesting deeper than this goes to the serde route (which refuses
    /// anything over 128 levels).
    pub(super) const MAX_DEPTH: usize = 100;

    pub(super) fn parse(text: &str) -> Option<Val<'_>> {
        let mut r = Reader { text, bytes: text.as_bytes(), pos: 0 };
        let v = r.value(0)?;
        r.skip_ws();
        (r.pos == r.bytes.len()).then_some(v)
    }

    struct Reader<'a> {
        text: &'a str,
        bytes: &'a [u8],
        pos: usize,
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
            match self.peek()? {
                b'"' => self.string().map(|s| Val::Str(Cow::Borrowed(s))),
                b'{' => self.object(depth + 1),
                b'[' => self.array(depth + 1),
                b't' => self.literal("true", Val::Bool(true)),
                b'f' => self.literal("false", Val::Bool(false)),
                b'n' => self.literal("null", Val::Null),
                b'-' | b'0'..=b'9' => self.number(),
                _ => None,
            }
        }

        /// A string without escapes or control characters, borrowed.
        fn string(&mut self) -> Option<&'a str> {
            self.pos += 1;
            let start = self.pos;
            // Eight bytes at a time while none is a quote, a backslash or a
            // control character (the usual SWAR zero-byte test).
            const ONES: u64 = 0x0101_0101_0101_0101;
            const HIGH: u64 = 0x8080_8080_8080_8080;
            let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
            while let Some(chunk) = self.bytes.get(self.pos..self.pos + 8) {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                let x = u64::from_le_bytes(word);
                let special = zero_byte(x ^ (ONES * u64::from(b'"')))
                    | zero_byte(x ^ (ONES * u64::from(b'\\')))
                    | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
                if special != 0 {
                    break;
                }
                self.pos += 8;
            }
            loop {
                match self.peek()? {
                    b'"' => break,
                    b'\\' => return None,
                    b if b < 0x20 => return None,
                    _ => self.pos += 1,
                }
            }
            let s = self.text.get(start..self.pos)?;
            self.pos += 1;
            Some(s)
        }

        /// Plain unsigned integers directly; any other number through
        /// serde_json itself, so its value (and its refusals) are the same.
        fn number(&mut self) -> Option<Val<'a>> {
            let start = self.pos;
            while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.peek() {
                self.pos += 1;
            }
            let token = self.text.get(start..self.pos)?;
            let plain = token.len() <= 19 && token.bytes().all(|b| b.is_ascii_digit()) && (token == "0" || !token.starts_with('0'));
            if plain {
                return token.parse::<u64>().ok().map(|n| Val::Num(n.into()));
            }
            serde_json::from_str::<Number>(token).ok().map(Val::Num)
        }

        fn array(&mut self, depth: usize) -> Option<Val<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.pos += 1;
            let mut items = Vec::new();
            self.skip_ws();
            if self.peek()? == b']' {
                self.pos += 1;
                return Some(Val::Arr(items));
            }
            loop {
                items.push(self.value(depth)?);
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        return Some(Val::Arr(items));
                    }
                    _ => return None,
                }
            }
        }

        fn object(&mut self, depth: usize) -> Option<Val<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.pos += 1;
            let mut entries: Vec<(Cow<'a, str>, Val<'a>)> = Vec::new();
            self.skip_ws();
            if self.peek()? == b'}' {
                self.pos += 1;
                return Obj::from_entries(entries).map(Val::Obj);
            }
            loop {
                self.skip_ws();
                if self.peek()? != b'"' {
                    return None;
                }
                let key = self.string()?;
                if entries.is_empty() && key == RAW_VALUE_TOKEN {
                    return None;
                }
                self.eat(b':')?;
                let v = self.value(depth)?;
                entries.push((Cow::Borrowed(key), v));
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b'}' => {
                        self.pos += 1;
                        return Obj::from_entries(entries).map(Val::Obj);
                    }
                    _ => return None,
                }
            }
        }
    }
}

const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'de> Deserialize<'de> for Val<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Val<'de>, E> {
        Ok(Val::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Val<'de>, E> {
        Ok(Val::Num(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Val<'de>, E> {
        Ok(Val::Num(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Val<'de>, E> {
        Ok(Number::from_f64(n).map_or(Val::Null, Val::Num))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(s)))
    }
    fn visit_none<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_unit<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Val<'de>, D::Error> {
        Deserialize::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Val::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Val<'de>)> = Vec::new();
        while let Some(Key(k)) = map.next_key()? {
            if entries.is_empty() && k == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("raw value token"));
            }
            let v = map.next_value()?;
            entries.push((k, v));
        }
        Obj::from_entries(entries).map(Val::Obj).ok_or_else(|| de::Error::custom("duplicate key"))
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let v: Value = serde_json::from_str(text).unwrap();
        let t = parse(text).unwrap();
        assert_eq!(t.to_value(), v, "{}", text);
        assert_eq!(t.to_string(), v.to_string(), "{}", text);
        assert_eq!(Val::from_value(&v).to_value(), v, "{}", text);
    }

    #[test]
    fn behaves_like_serde_json_value() {
        same(r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0.1e-5,"x\u00e9\n",null,true,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#);
        assert!(parse(r#"[{"k":1,"k":2,"j":{"k":3},"k":4}]"#).is_none(), "repeated keys");
        same(r#""plain""#);
        same("18446744073709551615");
        assert!(parse(r#"{"$serde_json::private::RawValue":"[1]"}"#).is_none());
        assert!(parse("[1,]").is_none());
        let v: Value = serde_json::from_str(r#"{"b":1,"c":2,"a":3}"#).unwrap();
        let t = parse(r#"{"b":1,"c":2,"a":3}"#).unwrap();
        let o = t.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), v.as_object().unwrap().keys().collect::<Vec<_>>());
        assert_eq!(o.get("a").and_then(Val::as_i64), Some(3));
    }

    /// The single-pass reader gives exactly the serde route's tree, or
    /// leaves the text to it.
    #[test]
    fn fast_reader_matches_the_serde_route() {
        let serde_route = |t: &str| serde_json::from_str::<Val>(t).ok().map(|v| format!("{v:?}"));
        let mut texts: Vec<String> = vec![
            r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0,0.1e-5,"x",null,true,false,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#.into(),
            " [ 1 , 2 ]\n".into(), "[]".into(), "{}".into(), "0".into(), "-0".into(), "18446744073709551615".into(),
            "18446744073709551616".into(), "1234567890123456789".into(), "-9223372036854775808".into(), "1e400".into(),
            "01".into(), "1.".into(), ".5".into(), "-".into(), "1e".into(), "[1,]".into(), "{\"a\":1,}".into(), "[1 2]".into(),
            "{\"a\" 1}".into(), "{1:2}".into(), "tru".into(), "nul".into(), "[true,false,null]".into(), "\"a\\nb\"".into(),
            "\"tab\there\"".into(), "{\"k\":1,\"k\":2}".into(), r#"{"$serde_json::private::RawValue":"[1]"}"#.into(),
            "[1] x".into(), "\u{feff}[1]".into(), "".into(), "  ".into(), "[1e5, 2E-3, -1.5e+2, 1.0]".into(),
        ];
        for depth in [99, 100, 101, 127, 128, 129, 200] {
            texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            texts.push(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
        }
        for dir in ["tests/data", "tests/data/check", "tests/data/hostile", "tests/data/sim", "fuzz/corpus/seed-check", "fuzz/corpus/seed-plan", "fuzz/corpus/seed-simulate", "fuzz/corpus/seed-lifecycle"] {
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
        let mut fast_hits = 0;
        for t in &texts {
            let expected = serde_route(t);
            if let Some(v) = fast::parse(t) {
                fast_hits += 1;
                assert_eq!(Some(format!("{v:?}")), expected, "{}", t.get(..200).unwrap_or(t));
            }
            assert_eq!(parse(t).map(|v| format!("{v:?}")), expected, "{}", t.get(..200).unwrap_or(t));
        }
        assert!(fast_hits > 1000, "{fast_hits}");
    }

    #[test]
    fn deep_values_are_not_converted() {
        let mut v = Value::Null;
        for _ in 0..(DEEP + 50) {
            v = Value::Array(vec![v]);
        }
        let t = Val::from_value(&v);
        assert_eq!(t.to_value(), v);
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.pop().unwrap_or(Value::Null);
        }
    }
}
