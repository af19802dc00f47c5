//! Loose value coercion, reproducing the panel server's `asString` / `asInt`
//! helpers: the server decodes request bodies into untyped JSON (numbers are
//! float64), then reads each field through these rules.

use crate::strings::trim;
use serde_json::{Map, Value};

use crate::go::coerce::{float64_to_int64_exact, json_float64, parse_int};

/// A JSON number the server reads as an integer: the float64 its untyped
/// decoder holds, where `v == float64(int64(v))`.
pub fn exact_int(n: &serde_json::Number) -> Option<i64> {
    float64_to_int64_exact(json_float64(n))
}

/// The server's `asString`: trimmed strings, integral numbers without a
/// fraction, other numbers in shortest plain decimal form, everything else
/// as compact JSON with surrounding quotes stripped; null and absent are "".
pub fn go_string(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => trim(s).to_string(),
        Some(Value::Number(n)) => {
            let f = json_float64(n);
            match float64_to_int64_exact(f) {
                Some(i) => i.to_string(),
                // The shortest round-trip digits, written without an exponent.
                None => plain_decimal(f),
            }
        }
        Some(other) => {
            let text = go_json(other);
            text.trim_matches('"').to_string()
        }
    }
}

/// The server's `asInt` / `asInt64`: `go_string`, then `strconv.ParseInt`;
/// anything else gives `default`.
pub fn go_int(v: Option<&Value>, default: i64) -> i64 {
    parse_int(&go_string(v)).unwrap_or(default)
}

/// The server's `defaultString`: `def` when `v` is blank, else `v` unchanged.
pub fn default_string<'a>(v: &'a str, def: &'a str) -> &'a str {
    if trim(v).is_empty() {
        def
    } else {
        v
    }
}

/// A typed row or payload read from a document tree's object whose every
/// field reads any JSON value the way the server reads it (the `loose`
/// readers, `GoText`, `Column`): such an object always deserializes, so
/// the default is only a guard.
pub(crate) fn from_tree<T: serde::de::DeserializeOwned + Default>(
    v: &crate::json::tree::TreeValue<'_>,
) -> T {
    T::deserialize(v).unwrap_or_default()
}

/// The objects of a tree's array (the server's `asMapSlice`), skipping
/// non-objects.
pub(crate) fn tree_rows<'a>(
    v: Option<&'a crate::json::tree::TreeValue<'a>>,
) -> Vec<&'a crate::json::tree::TreeValue<'a>> {
    let items = v.and_then(crate::json::tree::TreeValue::as_array);
    items
        .unwrap_or_default()
        .iter()
        .filter(|i| i.is_object())
        .collect()
}

/// The server's `asMapSlice`: the objects of an array, skipping non-objects.
pub fn map_slice(v: Option<&Value>) -> Vec<&Map<String, Value>> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

/// The server's `asAnySlice`: the items of an array, or nothing.
pub fn any_slice(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(items)) => items.as_slice(),
        _ => &[],
    }
}

/// Compact JSON the way Go's `encoding/json` writes an untyped value: keys
/// sorted, HTML-sensitive characters escaped, float64 number formatting.
pub fn go_json(v: &Value) -> String {
    let mut out = String::new();
    crate::json::write_with(v, &GO_LEAVES, &mut out);
    out
}

/// Go's leaves: every number as a float64, Go's string escapes.
const GO_LEAVES: crate::json::Leaves = crate::json::Leaves {
    number: |n, out| out.push_str(&go_float(json_float64(n))),
    string: write_go_string,
};

/// float64 as Go's JSON encoder prints it: plain decimal, or exponent form
/// (`1e+21`, `1e-7`) outside [1e-6, 1e21).
fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return plain_decimal(f);
    }
    let Some(d) = Digits::of(f) else {
        return plain_decimal(f);
    };
    let mut out = String::new();
    if d.negative {
        out.push('-');
    }
    let mut digits = d.digits.chars();
    if let Some(first) = digits.next() {
        out.push(first);
    }
    let rest = digits.as_str();
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    let exp = d.point - 1;
    // Go pads a positive exponent to two digits; here it is 21 or more.
    out.push_str(if exp < 0 { "e-" } else { "e+" });
    out.push_str(itoa::Buffer::new().format(exp.unsigned_abs()));
    out
}

/// The shortest decimal digits that read back as one float64, in the form
/// `0.DIGITS × 10^point` (the same digits as Go's `strconv`; see
/// [`crate::json::shortest_digits`]).
struct Digits {
    negative: bool,
    /// No leading or trailing zeros; empty for zero.
    digits: String,
    point: i64,
}

impl Digits {
    fn of(f: f64) -> Option<Digits> {
        if !f.is_finite() {
            return None;
        }
        let (digits, point) = crate::json::shortest_digits(f).unwrap_or_default();
        Some(Digits {
            negative: f.is_sign_negative(),
            digits: String::from_utf8(digits).ok()?,
            point: i64::from(point),
        })
    }
}

/// `f` in plain decimal notation with the shortest round-trip digits (what
/// Rust's `Display` and Go's `FormatFloat(f, 'f', -1, 64)` print).
fn plain_decimal(f: f64) -> String {
    let Some(d) = Digits::of(f) else {
        return String::from("0");
    };
    let mut out = String::new();
    if d.negative {
        out.push('-');
    }
    if d.digits.is_empty() {
        out.push('0');
        return out;
    }
    let n = d.digits.len() as i64;
    if d.point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-d.point) as usize));
        out.push_str(&d.digits);
    } else if d.point >= n {
        out.push_str(&d.digits);
        out.extend(std::iter::repeat_n('0', (d.point - n) as usize));
    } else {
        let (a, b) = d.digits.split_at(d.point as usize);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
    out
}

fn write_go_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' => {
                out.push_str("\\u");
                crate::json::push_hex(c as u32, 4, out);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A request field as the server reads it: `asString`'s text, kept with
/// whether the field was there at all. `Option<GoText>` tells the three
/// cases the server tells apart: absent or `null` (`None`, the server's
/// `v, ok := req[k]; ok && v != nil` is false), and present text, maybe
/// blank.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoText(pub String);

impl<'de> serde::Deserialize<'de> for GoText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        loose::any(d)
    }
}

/// A nullable text column as stored: `Option<Column>` is `None` for SQL
/// NULL (or an absent key), else the string as it is (untrimmed), or any
/// other value's `asString` text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Column(pub String);

impl<'de> serde::Deserialize<'de> for Column {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        loose::any(d)
    }
}

/// A share token cell as it was given: the presence marker (`true` /
/// `false`), text as stored, or any other value as its `asString` text;
/// `Absent` for a missing key or `null`. Its `Debug` never shows the token.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum TokenCell {
    #[default]
    Absent,
    Marker(bool),
    Text(String),
    Other(String),
}

impl std::fmt::Debug for TokenCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenCell::Absent => "TokenCell::Absent",
            TokenCell::Marker(_) => "TokenCell::Marker(<redacted>)",
            TokenCell::Text(_) | TokenCell::Other(_) => "TokenCell(<redacted>)",
        })
    }
}

impl<'de> serde::Deserialize<'de> for TokenCell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        loose::any(d)
    }
}

/// Booleans and raw text kept apart from the other values, which read as
/// their `asString` text.
impl<'de> loose::AnyValue<'de> for TokenCell {
    fn other() -> Self {
        TokenCell::Absent
    }
    fn boolean(b: bool) -> Self {
        TokenCell::Marker(b)
    }
    fn text(s: &str) -> Self {
        TokenCell::Text(s.to_string())
    }
    fn number(n: serde_json::Number) -> Self {
        TokenCell::Other(<GoText as loose::AnyValue>::number(n).0)
    }
    fn list<A: serde::de::SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        <GoText as loose::AnyValue>::list(seq).map(|t| TokenCell::Other(t.0))
    }
    fn object<A: serde::de::MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        <GoText as loose::AnyValue>::object(map).map(|t| TokenCell::Other(t.0))
    }
}

impl GoText {
    /// A nullable integer column: `None` for SQL NULL, else `asInt64`
    /// (0 when it does not read as one).
    pub fn nullable_int(field: &Option<GoText>) -> Option<i64> {
        field.as_ref().map(|t| parse_int(&t.0).unwrap_or(0))
    }

    /// `asInt` / `asInt64` on this field.
    pub fn int(field: &Option<GoText>, default: i64) -> i64 {
        field
            .as_ref()
            .map_or(default, |t| parse_int(&t.0).unwrap_or(default))
    }

    /// `asString` on this field ("" when absent).
    pub fn text(field: &Option<GoText>) -> &str {
        field.as_ref().map_or("", |t| t.0.as_str())
    }

    /// `asAnyToInt64Ptr`: an integer, or `None` for blank, `null` (any case)
    /// and anything that is not one.
    pub fn int_ptr(field: &Option<GoText>) -> Option<i64> {
        let t = field.as_ref()?;
        if t.0.eq_ignore_ascii_case("null") {
            return None;
        }
        parse_int(&t.0)
    }
}

/// The TypeScript of what the loose readers ([`loose`]) accept: any JSON
/// value, a loose scalar, a share token, a stored row. Declarations only:
/// the readers take these from the document tree, never as these types.
#[cfg(any(test, target_arch = "wasm32"))]
pub mod accepted {
    #![allow(dead_code)]
    use std::collections::BTreeMap;
    use tsify_next::Tsify;

    /// Any JSON value.
    #[derive(Tsify)]
    #[serde(untagged)]
    pub enum JsonValue {
        Null(()),
        Bool(bool),
        Number(#[tsify(type = "number")] serde_json::Number),
        String(String),
        Array(Vec<JsonValue>),
        Object(#[tsify(type = "{ [key: string]: JsonValue }")] BTreeMap<String, JsonValue>),
    }

    /// A share token, or the presence marker `true` (`false` or `null`: none).
    #[derive(Tsify)]
    #[serde(untagged)]
    pub enum Token {
        Marker(bool),
        Value(Loose),
    }

    /// A loosely typed panel value: the server coerces numbers given as
    /// strings and trims strings; null means empty.
    #[derive(Tsify)]
    #[serde(untagged)]
    pub enum Loose {
        Number(#[tsify(type = "number")] serde_json::Number),
        String(String),
        Null(()),
    }

    /// A row of a table as the panel's database stores it: column names of
    /// model.go, SQL NULL as `null`. Columns the server does not read are allowed.
    #[derive(Tsify)]
    #[serde(transparent)]
    pub struct DbRow(
        #[tsify(type = "{ [column: string]: JsonValue }")] pub BTreeMap<String, JsonValue>,
    );
}

/// `deserialize_with` readers for typed inputs, one per rule of the
/// server's: a field read through `asString` / `asInt` accepts any JSON
/// value, as the server's untyped decoder does. They read scalars straight
/// from the deserializer (no `serde_json::Value` is built for a scalar).
pub mod loose {
    use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};
    use std::fmt;

    /// `asString` of any value: trimmed text, numbers in Go's form, a
    /// list or object as its JSON text; `null` is "".
    impl<'de> AnyValue<'de> for super::GoText {
        fn other() -> Self {
            super::GoText(String::new())
        }
        fn boolean(b: bool) -> Self {
            super::GoText(if b { "true" } else { "false" }.into())
        }
        fn number(n: Number) -> Self {
            super::GoText(super::go_string(Some(&Value::Number(n))))
        }
        fn text(s: &str) -> Self {
            super::GoText(crate::strings::trim(s).to_string())
        }
        fn list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
            let Any(v) = Any::list(seq)?;
            Ok(super::GoText(super::go_string(Some(&v))))
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            let Any(v) = Any::object(map)?;
            Ok(super::GoText(super::go_string(Some(&v))))
        }
    }

    /// A text column: the string as stored (untrimmed), any other value as
    /// its `asString` text.
    impl<'de> AnyValue<'de> for super::Column {
        fn other() -> Self {
            super::Column(String::new())
        }
        fn boolean(b: bool) -> Self {
            super::Column(super::GoText::boolean(b).0)
        }
        fn number(n: Number) -> Self {
            super::Column(super::GoText::number(n).0)
        }
        fn text(s: &str) -> Self {
            super::Column(s.to_string())
        }
        fn list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
            super::GoText::list(seq).map(|t| super::Column(t.0))
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            super::GoText::object(map).map(|t| super::Column(t.0))
        }
    }

    /// A whole value, for the rare list or object in a text field (its
    /// `asString` is its JSON text).
    struct Any(Value);

    impl<'de> AnyValue<'de> for Any {
        fn other() -> Self {
            Any(Value::Null)
        }
        fn boolean(b: bool) -> Self {
            Any(Value::Bool(b))
        }
        fn number(n: Number) -> Self {
            Any(Value::Number(n))
        }
        fn text(s: &str) -> Self {
            Any(Value::String(s.to_string()))
        }
        fn list<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
            let mut items = Vec::new();
            while let Some(Any(v)) = seq.next_element()? {
                items.push(v);
            }
            Ok(Any(Value::Array(items)))
        }
        fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
            let mut out = Map::new();
            while let Some((k, Any(v))) = map.next_entry::<String, Any>()? {
                out.insert(k, v);
            }
            Ok(Any(Value::Object(out)))
        }
    }

    impl<'de> de::Deserialize<'de> for Any {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            any(d)
        }
    }

    /// The whole value as a `serde_json::Value`, built by [`AnyValue`]
    /// (serde_json's own `Value` visitor would bring its text parser into
    /// the `.wasm`: `raw_value` checks a map's first key).
    pub fn value<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        any(d).map(|Any(v)| v)
    }

    /// `asString`: trimmed text; numbers in Go's form; null is "".
    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        any(d).map(|t: super::GoText| t.0)
    }

    /// A text column: the string as stored (untrimmed); `null` is "", any
    /// other value its `asString` text.
    pub fn column<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        any(d).map(|c: super::Column| c.0)
    }

    /// A field whose presence the server tests apart from its value
    /// (`v, ok := req[k]`): `None` when absent, `Some(None)` when `null`.
    pub fn keyed<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<super::GoText>>, D::Error> {
        any(d).map(|Keyed(text)| Some(text))
    }

    /// A value's `asString` text, `None` for `null`.
    struct Keyed(Option<super::GoText>);

    impl<'de> AnyValue<'de> for Keyed {
        fn other() -> Self {
            Keyed(Some(super::GoText::other()))
        }
        fn null() -> Self {
            Keyed(None)
        }
        fn boolean(b: bool) -> Self {
            Keyed(Some(super::GoText::boolean(b)))
        }
        fn number(n: Number) -> Self {
            Keyed(Some(super::GoText::number(n)))
        }
        fn text(s: &str) -> Self {
            Keyed(Some(<super::GoText as AnyValue>::text(s)))
        }
        fn list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
            super::GoText::list(seq).map(|t| Keyed(Some(t)))
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            super::GoText::object(map).map(|t| Keyed(Some(t)))
        }
    }

    /// `asInt` / `asInt64` with default 0.
    pub fn int<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        Ok(super::parse_int(&string(d)?).unwrap_or(0))
    }

    /// A nullable integer column (`sql.NullInt64`): `null` or anything
    /// `asInt64` cannot read is `None`.
    pub fn nullable_int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Ok(super::parse_int(&string(d)?))
    }

    /// A list of integers, each read by `asInt64` (unreadable ones dropped).
    pub fn ints<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
        let texts: Vec<super::GoText> = list(d)?;
        Ok(texts
            .iter()
            .filter_map(|t| super::parse_int(&t.0))
            .collect())
    }

    /// A list of names, each read by `asString` (the server's
    /// `asAnySlice`: anything but a list is no names).
    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let texts: Vec<super::GoText> = list(d)?;
        Ok(texts.into_iter().map(|t| t.0).collect())
    }

    /// A node id as a plan or the user names it
    /// ([`crate::go::coerce::loose_id`]): a whole number or a numeric
    /// string; `None` for anything else.
    pub fn id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        any(d).map(|LooseId(id)| id)
    }

    /// A list of node ids, each read by [`id`] (the others dropped); not a
    /// list: none.
    pub fn ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
        let items: Vec<LooseId> = list(d)?;
        Ok(items.into_iter().filter_map(|LooseId(id)| id).collect())
    }

    /// A type read from any JSON value: the kinds of value it takes, and
    /// what every other value reads as ([`AnyValue::other`]). Each kind
    /// not overridden reads as `other()` (a list or object is skipped).
    pub trait AnyValue<'de>: Sized {
        fn other() -> Self;
        fn null() -> Self {
            Self::other()
        }
        fn boolean(_: bool) -> Self {
            Self::other()
        }
        fn number(_: Number) -> Self {
            Self::other()
        }
        fn text(_: &str) -> Self {
            Self::other()
        }
        fn list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
            de::IgnoredAny.visit_seq(seq).map(|_| Self::other())
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            de::IgnoredAny.visit_map(map).map(|_| Self::other())
        }
    }

    /// Reads a `T` from whatever value the deserializer holds.
    pub fn any<'de, D: Deserializer<'de>, T: AnyValue<'de>>(d: D) -> Result<T, D::Error> {
        d.deserialize_any(AnyValueVisitor(std::marker::PhantomData))
    }

    struct AnyValueVisitor<T>(std::marker::PhantomData<T>);

    impl<'de, T: AnyValue<'de>> Visitor<'de> for AnyValueVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_unit<E: de::Error>(self) -> Result<T, E> {
            Ok(T::null())
        }
        fn visit_none<E: de::Error>(self) -> Result<T, E> {
            Ok(T::null())
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<T, E> {
            Ok(T::boolean(b))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
            Ok(T::number(n.into()))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
            Ok(T::number(n.into()))
        }
        fn visit_f64<E: de::Error>(self, f: f64) -> Result<T, E> {
            Ok(Number::from_f64(f).map_or_else(T::other, T::number))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            Ok(T::text(s))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
            T::list(seq)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::object(map)
        }
    }

    /// A list of `T`s when the value is an array; any other value: none.
    pub fn list<'de, D: Deserializer<'de>, T: de::Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        any(d).map(|List(items)| items)
    }

    struct List<T>(Vec<T>);

    impl<'de, T: de::Deserialize<'de>> AnyValue<'de> for List<T> {
        fn other() -> Self {
            List(Vec::new())
        }
        fn list<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
            let mut out = Vec::new();
            while let Some(x) = seq.next_element::<T>()? {
                out.push(x);
            }
            Ok(List(out))
        }
    }

    /// Text only when the value is a string (`Value::as_str`): anything
    /// else reads as absent.
    pub fn str_only<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        any(d).map(|StrOnly(s)| s)
    }

    struct StrOnly(Option<String>);

    impl<'de> AnyValue<'de> for StrOnly {
        fn other() -> Self {
            StrOnly(None)
        }
        fn text(s: &str) -> Self {
            StrOnly(Some(s.to_string()))
        }
    }

    /// A request body as the server's `decodeJSON` reads it into a map
    /// (mutations.go:1836-1840): an object; `null`, a nil map, every field
    /// absent (`T::default()`); any other value does not decode (the
    /// server's `请求参数错误`).
    pub fn request_body<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: de::Deserialize<'de> + Default,
    {
        match any(d)? {
            Body::Object(body) => Ok(Some(body)),
            Body::Null => Ok(Some(T::default())),
            Body::Other => Err(de::Error::custom("a request body must be a JSON object")),
        }
    }

    enum Body<T> {
        Object(T),
        Null,
        Other,
    }

    impl<'de, T: de::Deserialize<'de>> AnyValue<'de> for Body<T> {
        fn other() -> Self {
            Body::Other
        }
        fn null() -> Self {
            Body::Null
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Body::Object)
        }
    }

    /// A value read as `T` when it is an object; anything else reads as
    /// `None` (the server's `asMap` on a value).
    pub struct ObjectOnly<T>(pub Option<T>);

    impl<T> Default for ObjectOnly<T> {
        fn default() -> Self {
            ObjectOnly(None)
        }
    }

    impl<'de, T: de::Deserialize<'de>> AnyValue<'de> for ObjectOnly<T> {
        fn other() -> Self {
            ObjectOnly(None)
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| ObjectOnly(Some(t)))
        }
    }

    impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for ObjectOnly<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            any(d)
        }
    }

    /// The entries of an object whose values are objects, each read as
    /// `T`, in key order; any other value: none.
    pub fn object_entries<'de, D: Deserializer<'de>, T: de::Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<(String, T)>, D::Error> {
        any(d).map(|Entries(entries)| entries)
    }

    struct Entries<T>(Vec<(String, T)>);

    impl<'de, T: de::Deserialize<'de>> AnyValue<'de> for Entries<T> {
        fn other() -> Self {
            Entries(Vec::new())
        }
        fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
            let mut out = Vec::new();
            while let Some((k, ObjectOnly(v))) = map.next_entry::<String, ObjectOnly<T>>()? {
                out.extend(v.map(|v| (k, v)));
            }
            Ok(Entries(out))
        }
    }

    /// The rows of a stored table: one row object, or the objects of a list
    /// (other items skipped, as `asMapSlice` skips them); anything else:
    /// none.
    pub fn rows<'de, D: Deserializer<'de>, T: de::Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        any(d).map(|Rows(rows)| rows)
    }

    struct Rows<T>(Vec<T>);

    impl<'de, T: de::Deserialize<'de>> AnyValue<'de> for Rows<T> {
        fn other() -> Self {
            Rows(Vec::new())
        }
        fn list<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
            let List(items) = List::<ObjectOnly<T>>::list(seq)?;
            Ok(Rows(items.into_iter().filter_map(|row| row.0).collect()))
        }
        fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
            let ObjectOnly(row) = ObjectOnly::object(map)?;
            Ok(Rows(row.into_iter().collect()))
        }
    }

    /// A node id read by [`id`].
    pub(crate) struct LooseId(pub Option<i64>);

    impl<'de> AnyValue<'de> for LooseId {
        fn other() -> Self {
            LooseId(None)
        }
        fn text(s: &str) -> Self {
            LooseId(crate::go::coerce::id_text(s))
        }
        fn number(n: Number) -> Self {
            LooseId(crate::go::coerce::json_whole_number(&n))
        }
    }

    impl<'de> de::Deserialize<'de> for LooseId {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            any(d)
        }
    }
}

#[cfg(test)]
// Exact ties and boundary values, written with every digit on purpose.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_numbers_and_others() {
        assert_eq!(go_string(Some(&json!("  a b "))), "a b");
        assert_eq!(go_string(Some(&json!(5))), "5");
        assert_eq!(go_string(Some(&json!(5.0))), "5");
        assert_eq!(go_string(Some(&json!(5.5))), "5.5");
        assert_eq!(go_string(Some(&json!(1e21))), "1000000000000000000000");
        assert_eq!(go_string(Some(&json!(true))), "true");
        assert_eq!(go_string(Some(&json!(["a"]))), "[\"a\"]");
        assert_eq!(go_string(Some(&json!("\"x\""))), "\"x\"");
        assert_eq!(go_string(None), "");
        assert_eq!(
            go_json(&json!({"b": "<", "a": 1e-7})),
            "{\"a\":1e-7,\"b\":\"\\u003c\"}"
        );
    }

    #[test]
    fn ints() {
        assert_eq!(go_int(Some(&json!(" 42 ")), 0), 42);
        assert_eq!(go_int(Some(&json!("+7")), 0), 7);
        assert_eq!(go_int(Some(&json!("4.0")), -1), -1);
        assert_eq!(go_int(Some(&json!(4.5)), -1), -1);
        assert_eq!(go_int(Some(&json!(4.0)), -1), 4);
        assert_eq!(go_int(Some(&json!("x")), 3), 3);
        assert_eq!(go_int(Some(&json!(null)), 3), 3);
        assert_eq!(go_int(Some(&json!("99999999999999999999")), 3), 3);
    }

    /// The float layouts give the shortest round-trip digits. They agree with
    /// Rust's own formatting except on exact ties between two shortest
    /// candidates, where Rust rounds up and Go's `strconv` (like JavaScript)
    /// takes the even digit: there they must take the even one.
    #[test]
    fn floats_shortest_round_trip_ties_to_even() {
        // JavaScript prints this exact tie (…797.25) as …797.2, as Go does.
        assert_eq!(plain_decimal(-1149636667324797.25), "-1149636667324797.2");
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            0.3,
            1e-6,
            9.99e-7,
            1e21,
            1e20,
            123456.789,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            2.5e-8,
            -3.75e22,
        ];
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let f = f64::from_bits(seed);
            if f.is_finite() {
                values.push(f);
            }
            // Also short decimals.
            values.push((seed % 100_000) as f64 / 1000.0 * 10f64.powi((seed % 40) as i32 - 20));
        }
        let digits_of = |t: &str| -> String {
            let m = t.split(['e', 'E']).next().unwrap();
            m.chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
                .trim_matches('0')
                .to_string()
        };
        let mut ties = 0;
        for f in values {
            let ours = plain_decimal(f);
            let rust = format!("{}", f);
            assert_eq!(
                ours.parse::<f64>().unwrap().to_bits(),
                f.to_bits(),
                "round trip {f:e}: {ours}"
            );
            if ours != rust {
                // A tie: same length, both read back, ours ends in an even digit.
                let (a, b) = (digits_of(&ours), digits_of(&rust));
                assert_eq!(a.len(), b.len(), "{f:e}: {ours} vs {rust}");
                let last = a.chars().last().unwrap().to_digit(10).unwrap();
                assert_eq!(last % 2, 0, "{f:e}: {ours} vs {rust}");
                ties += 1;
            }
            let json = go_float(f);
            assert_eq!(
                json.parse::<f64>().unwrap().to_bits(),
                f.to_bits(),
                "json round trip {f:e}: {json}"
            );
            if f != 0.0 && !(1e-6..1e21).contains(&f.abs()) {
                let (m, e) = json.split_once('e').unwrap();
                assert_eq!(digits_of(m), digits_of(&ours), "{f:e}");
                assert!(
                    e.starts_with('-') || (e.starts_with('+') && e.len() >= 3),
                    "{json}"
                );
            } else {
                assert_eq!(json, ours);
            }
        }
        assert!(ties < 200, "{ties} ties");
    }
}
