//! JSON text of the crate's results (plans, reports, traces, lifecycle
//! replays), written straight into a `String`.
//!
//! Each result type implements [`Encode`] next to its definition, field by
//! field in declaration order, as `#[derive(Serialize)]` with
//! `rename_all = "camelCase"` and `skip_serializing_if = "Option::is_none"`
//! would print it through `serde_json::to_string`: compact, the same key
//! names and order, `null` for an absent value that is not skipped, strings
//! escaped as serde_json escapes them. The derived serializers and serde_json's
//! writer were about 30 KB of the `.wasm`, one generic copy per result type;
//! this is one small function per type and a handful of shared leaves.

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
    #[inline(never)]
    fn key(&mut self, key: &str) {
        let out = &mut *self.out;
        out.reserve(key.len() + 4);
        if !self.first {
            out.push(',');
        }
        self.first = false;
        out.push('"');
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
        out.push('{');
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            crate::json::write_string(k, out);
            out.push(':');
            v.encode(out);
        }
        out.push('}');
    }
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
