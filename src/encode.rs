//! JSON text of the crate's results (plans, reports, traces, lifecycle
//! replays), written straight into a `String`.
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
//! but the serde route makes the optimised `.wasm` 26.8 KB larger (one
//! monomorphised serializer per output type plus serde_json's writer, against
//! one small function per type here and a handful of shared leaves) and
//! natively takes about a third longer (BENCH.md). The output is compact,
//! fields in declaration order, `null` for an absent value that is not left out,
//! strings escaped as serde_json escapes them.

use serde_json::Value;
use std::collections::BTreeMap;

/// A value that can print itself as compact JSON.
pub trait Encode {
    fn encode(&self, out: &mut String);
}

/// `v` as compact JSON text.
pub fn to_string<T: Encode + ?Sized>(v: &T) -> String {
    // Large results (a plan is hundreds of KB) would otherwise grow the
    // buffer through a dozen doublings, each a copy.
    let mut out = String::with_capacity(64 * 1024);
    v.encode(&mut out);
    out
}

/// Writes an object's fields: `{`, then each field as `"key":value` with
/// commas between, then `}` from [`Object::end`]. Keys are written as they
/// are: they are the crate's own camelCase names, which need no escaping.
pub struct Object<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Object<'a> {
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    /// A field that is always present.
    pub fn field<T: Encode + ?Sized>(&mut self, key: &str, value: &T) -> &mut Self {
        self.key(key);
        value.encode(self.out);
        self
    }

    /// The comma before every field but the first, and `"key":`. Kept out of
    /// line: inlined, it was most of every type's encoder.
    /// (`push_str`, not `push`: `String::push` is not always inlined.)
    #[inline(never)]
    #[allow(clippy::single_char_add_str)]
    fn key(&mut self, key: &str) {
        let out = &mut *self.out;
        out.reserve(key.len() + 4);
        if !self.first {
            out.push_str(",");
        }
        self.first = false;
        out.push_str("\"");
        out.push_str(key);
        out.push_str("\":");
    }

    /// A field left out when the value is `None`.
    pub fn some<T: Encode>(&mut self, key: &str, value: &Option<T>) -> &mut Self {
        if let Some(v) = value {
            self.field(key, v);
        }
        self
    }

    pub fn end(&mut self) {
        self.out.push('}');
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
            fn encode(&self, out: &mut String) {
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
    fn encode(&self, out: &mut String) {
        crate::json::write_string(self, out)
    }
}

impl Encode for String {
    fn encode(&self, out: &mut String) {
        self.as_str().encode(out)
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" })
    }
}

macro_rules! encode_integers {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, out: &mut String) {
                out.push_str(itoa::Buffer::new().format(*self))
            }
        }
    )*};
}
encode_integers!(i64, u64, u32, usize);

impl Encode for Value {
    fn encode(&self, out: &mut String) {
        crate::json::write_value(self, out)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    fn encode(&self, out: &mut String) {
        (**self).encode(out)
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut String) {
        match self {
            Some(v) => v.encode(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: Encode> Encode for [T] {
    fn encode(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.encode(out);
        }
        out.push(']');
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut String) {
        self.as_slice().encode(out)
    }
}

impl<V: Encode> Encode for BTreeMap<String, V> {
    fn encode(&self, out: &mut String) {
        map_entries(self.iter(), out)
    }
}

impl<V: Encode> Encode for litemap::LiteMap<String, V> {
    fn encode(&self, out: &mut String) {
        map_entries(self.iter(), out)
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

/// A JSON object of `entries`, in their order; keys are escaped (they may
/// come from the input).
fn map_entries<'a, V: Encode + 'a>(
    entries: impl Iterator<Item = (&'a String, &'a V)>,
    out: &mut String,
) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::json::write_string(k, out);
        out.push(':');
        v.encode(out);
    }
    out.push('}');
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
        let m: BTreeMap<String, usize> = [("b".to_string(), 2), ("a\"".to_string(), 1)]
            .into_iter()
            .collect();
        assert_eq!(to_string(&m), serde_json::to_string(&m).unwrap());
        let v = serde_json::json!({"x": [1.5, -0.0, 1e300, null, "\u{1}"], "a": {}});
        assert_eq!(to_string(&v), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn objects_skip_absent_fields_and_separate_the_rest() {
        let mut out = String::new();
        Object::new(&mut out)
            .some("a", &None::<i64>)
            .field("b", &1i64)
            .some("c", &Some("x"))
            .field("d", &None::<i64>)
            .end();
        assert_eq!(out, r#"{"b":1,"c":"x","d":null}"#);
        let mut out = String::new();
        Object::new(&mut out).some("a", &None::<i64>).end();
        assert_eq!(out, "{}");
    }
}
