//! The crate's results (plans, reports, traces, lifecycle replays) written
//! as JSON text straight into a `String`, or, through the same encoder, into
//! one of the reader's builders ([`Builder`]): a module handed a typed plan
//! (the checker, the simulator, the lifecycle replay) gets the tree or
//! `serde_json::Value` its text would read into, without printing it and
//! reading it back. The tests check both against the text for every output.
//!
//! Every output struct is declared once, through [`shape!`]: one line per
//! field gives its Rust name, type, JSON key, TypeScript type when it is not
//! the Rust one, and whether an absent value is left out. From that one
//! declaration come the struct itself, its [`Encode`] impl, serde attributes
//! (the `Serialize` derive the tests compare against, and which tsify reads),
//! and under wasm32 (and in tests) its `tsify` TypeScript declaration, so the
//! `.d.ts`, the encoder and the key names cannot disagree.
//!
//! Why a hand encoder and not `serde_json::to_string` over the same derive:
//! both print byte-identical text for every golden plan and check report,
//! but the serde route makes the optimised `.wasm` larger (one
//! monomorphised serializer per output type plus serde_json's writer, against
//! one small function per type here and a handful of shared leaves) and is
//! slower natively (figures in BENCH.md). The output is compact,
//! fields in declaration order, `null` for an absent value that is not left out,
//! strings escaped as serde_json escapes them.

use crate::json::read::Build;
use crate::json::tree::{Arena, TreeBuilder, TreeValue};
use serde_json::{Number, Value};
use std::borrow::Cow;

/// A value that can write itself: as compact JSON text, or as the tree or
/// `serde_json::Value` a reader would build from that text ([`Writer`]).
pub trait Encode {
    fn encode(&self, out: &mut Writer<'_>);
}

/// Where an [`Encode`] value goes: JSON text, or one of the reader's
/// builders ([`Builder`]), so that a module handed a typed result gets the
/// tree reading its text would give, without the text. One encoder per type
/// in the `.wasm`, whatever it writes into; the text, the output of every
/// call, is written without an indirect call.
pub enum Writer<'w> {
    Text(&'w mut String),
    Build(&'w mut dyn Events),
    /// Only the length of the text, counted: a result's size is known before
    /// its text is allocated ([`text_len`]).
    Count(&'w mut usize),
}

/// What a [`Writer`] is told, in the order of the text: the text writer
/// (`String`) and [`Builder`] take the same events.
pub trait Events {
    fn null(&mut self);
    fn bool(&mut self, b: bool);
    fn int(&mut self, n: i64);
    fn uint(&mut self, n: u64);
    fn str(&mut self, s: &str);
    fn number(&mut self, n: &Number);
    /// Opens an array; [`Events::item`] comes before each of its values.
    fn array(&mut self);
    fn item(&mut self, first: bool);
    fn end_array(&mut self);
    fn object(&mut self);
    /// Before each value of an object: one of the crate's own keys (camelCase,
    /// never escaped) ...
    fn field(&mut self, first: bool, key: &'static str);
    /// ... or a key that may come from the input.
    fn entry(&mut self, first: bool, key: &str);
    fn end_object(&mut self);
    /// A value shared by several places of one result ([`Writer::shared`]):
    /// true when this writer took it whole (one that keeps its own text of
    /// it, by `text`'s address); else the value's events follow.
    fn shared(&mut self, _text: &std::sync::OnceLock<String>, _value: &dyn Encode) -> bool {
        false
    }
}

/// Each event goes to the text writer inline, or to a builder.
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        impl Writer<'_> {
            $(
                // Out of line in the `.wasm` (inlined at every call they
                // made it larger, BENCH.md); natively the compiler decides.
                #[cfg_attr(target_arch = "wasm32", inline(never))]
                pub fn $name(&mut self, $($arg: $ty),*) {
                    match self {
                        Writer::Text(text) => Events::$name(*text, $($arg),*),
                        Writer::Build(build) => build.$name($($arg),*),
                        Writer::Count(len) => Events::$name(*len, $($arg),*),
                    }
                }
            )*
        }
    };
}
forward! {
    null();
    bool(b: bool);
    int(n: i64);
    uint(n: u64);
    str(s: &str);
    number(n: &Number);
    array();
    item(first: bool);
    end_array();
    object();
    field(first: bool, key: &'static str);
    entry(first: bool, key: &str);
    end_object();
}

impl Writer<'_> {
    /// A `serde_json::Value` as it is (one walk for every builder).
    pub fn value(&mut self, v: &Value) {
        if let Writer::Text(out) = self {
            return crate::json::write_value(v, out);
        }
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.str(s),
            Value::Array(items) => items.as_slice().encode(self),
            Value::Object(map) => map_entries(map.iter().map(|(k, v)| (k.as_str(), v)), self),
        }
    }

    /// A value shared by several places of one result ([`crate::plan::Shared`]):
    /// its text is printed once and kept in `text`; a builder builds it anew.
    pub fn shared(&mut self, text: &std::sync::OnceLock<String>, value: &dyn Encode) {
        match self {
            Writer::Text(out) => out.push_str(text.get_or_init(|| to_string(value))),
            Writer::Build(build) => {
                if !build.shared(text, value) {
                    value.encode(self)
                }
            }
            // The text is made once and kept for the writing that follows.
            Writer::Count(len) => **len += text.get_or_init(|| to_string(value)).len(),
        }
    }
}

/// The length of `v`'s JSON text, counted without writing it (a value
/// shared by several places is written once, and kept for [`to_string`]).
pub fn text_len<T: Encode + ?Sized>(v: &T) -> usize {
    let mut len = 0;
    v.encode(&mut Writer::Count(&mut len));
    len
}

/// The text length of each event, as the text writer writes it.
impl Events for usize {
    fn null(&mut self) {
        *self += 4;
    }
    fn bool(&mut self, b: bool) {
        *self += if b { 4 } else { 5 };
    }
    fn int(&mut self, n: i64) {
        *self += itoa::Buffer::new().format(n).len();
    }
    fn uint(&mut self, n: u64) {
        *self += itoa::Buffer::new().format(n).len();
    }
    fn str(&mut self, s: &str) {
        *self += crate::json::string_len(s);
    }
    fn number(&mut self, n: &Number) {
        let mut text = String::new();
        crate::json::write_number(n, &mut text);
        *self += text.len();
    }
    fn array(&mut self) {
        *self += 1;
    }
    fn item(&mut self, first: bool) {
        *self += usize::from(!first);
    }
    fn end_array(&mut self) {
        *self += 1;
    }
    fn object(&mut self) {
        *self += 1;
    }
    fn field(&mut self, first: bool, key: &'static str) {
        *self += usize::from(!first) + key.len() + 3;
    }
    fn entry(&mut self, first: bool, key: &str) {
        *self += usize::from(!first) + crate::json::string_len(key) + 1;
    }
    fn end_object(&mut self) {
        *self += 1;
    }
}

/// `v` as compact JSON text.
pub fn to_string<T: Encode + ?Sized>(v: &T) -> String {
    // Large results (a plan is hundreds of KB) would otherwise grow the
    // buffer through a dozen doublings, each a copy.
    to_string_of_len(v, 64 * 1024)
}

/// [`to_string`] of a value whose text length `len` is known ([`text_len`]):
/// the text is written into one buffer of that size, never copied to grow.
pub fn to_string_of_len<T: Encode + ?Sized>(v: &T, len: usize) -> String {
    let mut out = String::with_capacity(len);
    v.encode(&mut Writer::Text(&mut out));
    out
}

/// The text writer: compact JSON, escaped as serde_json escapes it.
/// (`push_str`, not `push`: `String::push` is not always inlined.)
#[allow(clippy::single_char_add_str)]
impl Events for String {
    #[inline(always)]
    fn null(&mut self) {
        self.push_str("null")
    }
    #[inline(always)]
    fn bool(&mut self, b: bool) {
        self.push_str(if b { "true" } else { "false" })
    }
    #[inline(always)]
    fn int(&mut self, n: i64) {
        self.push_str(itoa::Buffer::new().format(n))
    }
    #[inline(always)]
    fn uint(&mut self, n: u64) {
        self.push_str(itoa::Buffer::new().format(n))
    }
    #[inline(always)]
    fn str(&mut self, s: &str) {
        crate::json::write_string(s, self)
    }
    #[inline(always)]
    fn number(&mut self, n: &Number) {
        crate::json::write_number(n, self)
    }
    #[inline(always)]
    fn array(&mut self) {
        self.push_str("[")
    }
    #[inline(always)]
    fn item(&mut self, first: bool) {
        if !first {
            self.push_str(",");
        }
    }
    #[inline(always)]
    fn end_array(&mut self) {
        self.push_str("]")
    }
    #[inline(always)]
    fn object(&mut self) {
        self.push_str("{")
    }
    #[inline(always)]
    fn field(&mut self, first: bool, key: &'static str) {
        self.reserve(key.len() + 4);
        if !first {
            self.push_str(",");
        }
        self.push_str("\"");
        self.push_str(key);
        self.push_str("\":");
    }
    #[inline(always)]
    fn entry(&mut self, first: bool, key: &str) {
        if !first {
            self.push_str(",");
        }
        crate::json::write_string(key, self);
        self.push_str(":");
    }
    #[inline(always)]
    fn end_object(&mut self) {
        self.push_str("}")
    }
}

/// A writer that hands each value to a reader's builder
/// ([`crate::json::read::Build`]), children before their container, as the
/// reader does: what it builds is what reading the value's text would build.
pub(crate) struct Builder<'t, B: Build<'t>> {
    build: B,
    open: Vec<Open<'t, B>>,
    done: Option<B::Value>,
    /// Each shared value built so far, by the address of its text's cell
    /// ([`Writer::shared`]): built once, then put again where it recurs
    /// (a tree's value is a few words pointing into the arena).
    shared: Vec<(usize, B::Value)>,
}

/// A container being built, with the key of the value that comes next.
enum Open<'t, B: Build<'t>> {
    Items(B::Items),
    Entries(B::Entries, Cow<'t, str>),
}

impl<'t, B: Build<'t>> Builder<'t, B>
where
    B::Value: Clone,
{
    /// What `v` builds into.
    pub(crate) fn run(v: &dyn Encode, build: B) -> Option<B::Value> {
        let mut writer = Builder {
            build,
            open: Vec::new(),
            done: None,
            shared: Vec::new(),
        };
        v.encode(&mut Writer::Build(&mut writer));
        writer.done
    }

    fn put(&mut self, v: B::Value) {
        match self.open.last_mut() {
            Some(Open::Items(items)) => self.build.push(items, v),
            Some(Open::Entries(entries, key)) => {
                let key = std::mem::take(key);
                self.build.insert(entries, key, v)
            }
            None => self.done = Some(v),
        }
    }

    fn key(&mut self, key: Cow<'t, str>) {
        if let Some(Open::Entries(_, next)) = self.open.last_mut() {
            *next = key;
        }
    }
}

impl<'t, B: Build<'t>> Events for Builder<'t, B>
where
    B::Value: Clone,
{
    fn null(&mut self) {
        let v = self.build.null();
        self.put(v)
    }
    fn bool(&mut self, b: bool) {
        let v = self.build.bool(b);
        self.put(v)
    }
    fn int(&mut self, n: i64) {
        let v = self.build.number(n.into());
        self.put(v)
    }
    fn uint(&mut self, n: u64) {
        let v = self.build.number(n.into());
        self.put(v)
    }
    fn str(&mut self, s: &str) {
        let s = self.build.own(s);
        let v = self.build.string(s);
        self.put(v)
    }
    fn number(&mut self, n: &Number) {
        let v = self.build.number(n.clone());
        self.put(v)
    }
    fn array(&mut self) {
        let items = self.build.array();
        self.open.push(Open::Items(items))
    }
    fn item(&mut self, _: bool) {}
    fn end_array(&mut self) {
        if let Some(Open::Items(items)) = self.open.pop() {
            let v = self.build.end_array(items);
            self.put(v)
        }
    }
    fn object(&mut self) {
        let entries = self.build.object();
        self.open.push(Open::Entries(entries, Cow::Borrowed("")))
    }
    fn field(&mut self, _: bool, key: &'static str) {
        self.key(Cow::Borrowed(key))
    }
    fn entry(&mut self, _: bool, key: &str) {
        let key = self.build.own(key);
        self.key(key)
    }
    fn end_object(&mut self) {
        if let Some(Open::Entries(entries, _)) = self.open.pop() {
            let v = self.build.end_object(entries);
            self.put(v)
        }
    }
    fn shared(&mut self, text: &std::sync::OnceLock<String>, value: &dyn Encode) -> bool {
        let at = text as *const std::sync::OnceLock<String> as usize;
        if let Some((_, v)) = self.shared.iter().find(|(a, _)| *a == at) {
            let v = v.clone();
            self.put(v);
            return true;
        }
        // Built on its own, then put where it stands.
        let open = std::mem::take(&mut self.open);
        let done = self.done.take();
        value.encode(&mut Writer::Build(self));
        let built = std::mem::replace(&mut self.done, done);
        self.open = open;
        if let Some(v) = built {
            self.shared.push((at, v.clone()));
            self.put(v);
        }
        true
    }
}

/// Writes an object's fields: `{`, then each field as `"key":value` with
/// commas between, then `}` from [`Object::end`].
pub struct Object<'a, 'w> {
    out: &'a mut Writer<'w>,
    first: bool,
}

impl<'a, 'w> Object<'a, 'w> {
    pub fn new(out: &'a mut Writer<'w>) -> Self {
        out.object();
        Object { out, first: true }
    }

    /// A field that is always present.
    pub fn field<T: Encode + ?Sized>(&mut self, key: &'static str, value: &T) -> &mut Self {
        self.key(key);
        value.encode(self.out);
        self
    }

    /// The field's key. Kept out of line: inlined, it was most of every
    /// type's encoder.
    #[inline(never)]
    fn key(&mut self, key: &'static str) {
        self.out.field(self.first, key);
        self.first = false;
    }

    /// A field left out when the value is `None`.
    pub fn some<T: Encode>(&mut self, key: &'static str, value: &Option<T>) -> &mut Self {
        if let Some(v) = value {
            self.field(key, v);
        }
        self
    }

    pub fn end(&mut self) {
        self.out.end_object()
    }
}

/// Declares an output struct and its [`Encode`] impl from one field list.
///
/// ```text
/// shape! {
///     /// A server rejection.
///     #[derive(Debug, Clone, PartialEq)]
///     pub struct PlanError {
///         pub code: String => "code": "PlanErrorCode",
///         /// Where the server's check looked.
///         pub path: Option<String> => "path" optional,
///     }
/// }
/// ```
///
/// `=> "key"` is the JSON key (also the TypeScript one); `: "T"` overrides
/// the TypeScript type (a closed set, or a type whose Rust form is shared or
/// untyped); `optional` (on an `Option` field) leaves the key out when the
/// value is `None` and makes it optional in TypeScript. `struct Name as
/// TsName` declares a type whose TypeScript name differs from its Rust one.
///
/// Docs inside the macro are written `#[doc = " ..."]`: a `///` comment
/// passed through `macro_rules!` becomes a raw string literal, which tsify
/// copies into the `.d.ts` verbatim (`r" ...`).
macro_rules! shape {
    // Attributes are matched as token trees, not `meta`: tsify reads doc
    // comments only as plain `doc = "..."` tokens.
    (@field $object:ident, $key:literal, $value:expr) => {
        $object.field($key, $value);
    };
    (@field $object:ident, $key:literal, $value:expr, optional) => {
        $object.some($key, $value);
    };
    (
        @declare [$(#[$($meta:tt)*])*] $vis:vis $name:ident {
            $(
                $(#[$($field_meta:tt)*])*
                $field_vis:vis $field:ident : $ty:ty => $key:literal
                    $(: $ts:literal)? $($optional:ident)?
            ),* $(,)?
        }
    ) => {
        #[derive(serde::Serialize)]
        #[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
        $(#[$($meta)*])*
        $vis struct $name {
            $(
                $(#[$($field_meta)*])*
                #[serde(rename = $key)]
                $(#[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = $ts))])?
                $(
                    #[cfg_attr(any(test, target_arch = "wasm32"), tsify($optional))]
                    #[serde(skip_serializing_if = "Option::is_none")]
                )?
                $field_vis $field: $ty,
            )*
        }

        impl $crate::encode::Encode for $name {
            fn encode(&self, out: &mut $crate::encode::Writer<'_>) {
                let mut object = $crate::encode::Object::new(out);
                $($crate::encode::shape!(@field object, $key, &self.$field $(, $optional)?);)*
                object.end()
            }
        }
    };
    // `struct RustName as TsName`: tsify names an interface after the Rust
    // identifier, so the struct takes the TypeScript name and the Rust one
    // is an alias of it.
    ($(#[$($meta:tt)*])* $vis:vis struct $name:ident as $ts_name:ident { $($body:tt)* }) => {
        $crate::encode::shape!(@declare [$(#[$($meta)*])*] $vis $ts_name { $($body)* });
        #[doc = concat!("[`", stringify!($ts_name), "`], as the Rust code calls it.")]
        $vis type $name = $ts_name;
    };
    ($(#[$($meta:tt)*])* $vis:vis struct $name:ident { $($body:tt)* }) => {
        $crate::encode::shape!(@declare [$(#[$($meta)*])*] $vis $name { $($body)* });
    };
}
pub(crate) use shape;

impl Encode for str {
    fn encode(&self, out: &mut Writer<'_>) {
        out.str(self)
    }
}

impl Encode for std::borrow::Cow<'_, str> {
    fn encode(&self, out: &mut Writer<'_>) {
        out.str(self)
    }
}

impl Encode for String {
    fn encode(&self, out: &mut Writer<'_>) {
        out.str(self)
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut Writer<'_>) {
        out.bool(*self)
    }
}

impl Encode for i64 {
    fn encode(&self, out: &mut Writer<'_>) {
        out.int(*self)
    }
}

macro_rules! encode_unsigned {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, out: &mut Writer<'_>) {
                out.uint(*self as u64)
            }
        }
    )*};
}
encode_unsigned!(u64, u32, usize);

impl Encode for Value {
    fn encode(&self, out: &mut Writer<'_>) {
        out.value(self)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    fn encode(&self, out: &mut Writer<'_>) {
        (**self).encode(out)
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Writer<'_>) {
        match self {
            Some(v) => v.encode(out),
            None => out.null(),
        }
    }
}

impl<T: Encode> Encode for [T] {
    fn encode(&self, out: &mut Writer<'_>) {
        out.array();
        for (i, item) in self.iter().enumerate() {
            out.item(i == 0);
            item.encode(out);
        }
        out.end_array()
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Writer<'_>) {
        self.as_slice().encode(out)
    }
}

/// The `serde_json::Value` reading `v`'s JSON text would give, built from
/// `v` itself ([`Builder`]).
pub fn to_value(v: &dyn Encode) -> Value {
    Builder::run(v, crate::json::read::ValueBuilder).unwrap_or(Value::Null)
}

/// The checker's tree reading `v`'s JSON text would give, built from `v`
/// itself ([`Builder`]): how the checker reads a plan it was handed typed.
pub(crate) fn to_tree<'a>(v: &dyn Encode, arena: &'a Arena) -> TreeValue<'a> {
    Builder::run(v, TreeBuilder::new(arena)).unwrap_or(TreeValue::Null)
}

/// A tree writes itself as the text it was read from would be written
/// (keys in order): as text for messages, or as a `serde_json::Value`
/// ([`to_value`]) where a rule compares it with one.
impl Encode for TreeValue<'_> {
    fn encode(&self, out: &mut Writer<'_>) {
        match self {
            TreeValue::Null => out.null(),
            TreeValue::Bool(b) => out.bool(*b),
            TreeValue::Num(n) => out.number(n),
            TreeValue::Str(s) => out.str(s),
            TreeValue::Arr(items) => items.encode(out),
            TreeValue::Object(o) => map_entries(o.iter(), out),
        }
    }
}

/// Compact JSON, exactly as `serde_json::Value` prints it.
impl std::fmt::Display for TreeValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        self.encode(&mut Writer::Text(&mut out));
        f.write_str(&out)
    }
}

impl<V: Encode> Encode for litemap::LiteMap<String, V> {
    fn encode(&self, out: &mut Writer<'_>) {
        map_entries(self.iter().map(|(k, v)| (k.as_str(), v)), out)
    }
}

/// serde's view of a small sorted map (what tsify declares and the tests
/// compare the encoder with): always a map.
pub fn serialize_map<V: serde::Serialize, S: serde::Serializer>(
    map: &litemap::LiteMap<String, V>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(map.iter())
}

/// A JSON object of `entries`, in their order; keys may come from the input.
pub(crate) fn map_entries<'a, V: Encode + 'a>(
    entries: impl Iterator<Item = (&'a str, &'a V)>,
    out: &mut Writer<'_>,
) {
    out.object();
    for (i, (k, v)) in entries.enumerate() {
        out.entry(i == 0, k);
        v.encode(out);
    }
    out.end_object()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_print_as_serde_json_prints_them() {
        for s in [
            "",
            "a",
            "é\u{2028}",
            "\"\\/\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}",
            "日本",
        ] {
            assert_eq!(to_string(s), serde_json::to_string(s).unwrap());
        }
        for n in [0i64, -1, i64::MIN, i64::MAX] {
            assert_eq!(to_string(&n), serde_json::to_string(&n).unwrap());
        }
        assert_eq!(to_string(&u64::MAX), u64::MAX.to_string());
        assert_eq!(to_string(&Some(true)), "true");
        assert_eq!(to_string(&None::<bool>), "null");
        assert_eq!(to_string(&Vec::<i64>::new()), "[]");
        assert_eq!(to_string(&vec![1i64, 2]), "[1,2]");
        let m: litemap::LiteMap<String, usize> = [("b".to_string(), 2), ("a\"".to_string(), 1)]
            .into_iter()
            .collect();
        let reference: std::collections::BTreeMap<&String, &usize> = m.iter().collect();
        assert_eq!(to_string(&m), serde_json::to_string(&reference).unwrap());
        let v = serde_json::json!({"x": [1.5, -0.0, 1e300, null, "\u{1}"], "a": {}});
        assert_eq!(to_string(&v), serde_json::to_string(&v).unwrap());
    }

    /// A value shared by several places is built into a tree once and put
    /// again where it recurs; the tree reads as the text does, and the
    /// `serde_json::Value` builder gives the same value.
    #[test]
    fn a_shared_value_is_built_once_into_a_tree() {
        let list = crate::plan::Shared::new(vec![1i64, 2]);
        let other = crate::plan::Shared::new(vec![1i64, 2]);
        let doc = vec![list.clone(), other, list];
        let arena = Arena::new();
        let tree = to_tree(&doc, &arena);
        let items: Vec<&[TreeValue<'_>]> = tree
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(TreeValue::as_array)
            .collect();
        assert_eq!(items.len(), 3);
        let at = |i: usize| items.get(i).map(|a| a.as_ptr());
        assert_eq!(at(0), at(2));
        assert_ne!(at(0), at(1));
        assert_eq!(tree.to_string(), "[[1,2],[1,2],[1,2]]");
        assert_eq!(to_value(&doc), serde_json::json!([[1, 2], [1, 2], [1, 2]]));
    }

    #[test]
    fn objects_skip_absent_fields_and_separate_the_rest() {
        let mut out = String::new();
        Object::new(&mut Writer::Text(&mut out))
            .some("a", &None::<i64>)
            .field("b", &1i64)
            .some("c", &Some("x"))
            .field("d", &None::<i64>)
            .end();
        assert_eq!(out, r#"{"b":1,"c":"x","d":null}"#);
        let mut out = String::new();
        Object::new(&mut Writer::Text(&mut out))
            .some("a", &None::<i64>)
            .end();
        assert_eq!(out, "{}");
    }
}
