//! Option objects (plan and check options, size limits, a simulation
//! scenario, the panel options) are serde types; this module holds the
//! readers their fields use ([`field`]) and [`read`], which names a wrong
//! field by its JSON Pointer.
//!
//! The rules: a missing field keeps its default, unknown keys are ignored,
//! `null` clears a field that is optional (and keeps the defaults of a
//! group such as `limits`), and a value of the wrong type or out of range
//! is an error naming the field.

use crate::finding::pointer_token;
use crate::json::tree::TreeValue;
use serde::Deserialize;
use serde_json::Value;

/// Why an option could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// What is wrong, naming the field.
    pub message: String,
    /// JSON Pointer to the field, from the root of the options.
    pub path: String,
}

/// Starts a field reader's message that [`read`] completes with the
/// field's path (`` `/limits/maxNodes` must be ... ``).
const FIELD: &str = "\u{1}";

/// Reads options `T` from a value (an object), through its document tree.
pub fn read_value<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, OptionError> {
    let arena = crate::json::tree::Arena::new();
    read(&crate::encode::to_tree(value, &arena))
}

/// Reads options `T` from `value` (an object).
pub(crate) fn read<'a, T: Deserialize<'a>>(value: &'a TreeValue<'a>) -> Result<T, OptionError> {
    if !value.is_object() {
        return Err(OptionError {
            message: format!(
                "{} must be an object, but it is {}",
                shown_path(""),
                shown(&crate::encode::to_value(value))
            ),
            path: String::new(),
        });
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path: String = e.path().iter().map(segment_pointer).collect();
        let inner = e.into_inner().to_string();
        let message = match inner.strip_prefix(FIELD) {
            Some(rest) => format!("{} {rest}", shown_path(&path)),
            None => inner,
        };
        OptionError { message, path }
    })
}

/// One step of a field's path as a JSON Pointer step.
fn segment_pointer(segment: &serde_path_to_error::Segment) -> String {
    use serde_path_to_error::Segment;
    match segment {
        Segment::Seq { index } => format!("/{index}"),
        Segment::Map { key } => format!("/{}", pointer_token(key)),
        Segment::Enum { variant } => format!("/{}", pointer_token(variant)),
        Segment::Unknown => String::new(),
    }
}

/// `deserialize_with` readers of option fields, each with the message
/// [`read`] completes with the field's path.
pub mod field {
    use super::{shown, FIELD};
    use serde::de::{self, Deserializer, MapAccess, Visitor};
    use serde::Deserialize;
    use serde_json::Value;
    use std::fmt;

    /// The error for a field holding `found` where `expected` belongs.
    pub(crate) fn wrong<E: de::Error>(expected: &str, found: &Value) -> E {
        E::custom(format_args!(
            "{FIELD}must be {expected}, but it is {}",
            shown(found)
        ))
    }

    /// The field's value, `None` for `null`.
    pub fn given<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
        Ok(Some(crate::coerce::loose::value(d)?).filter(|v| !v.is_null()))
    }

    /// `v` as a whole number from 0 to `T`'s largest value, `max`.
    fn whole<T: TryFrom<u64>, E: de::Error>(v: &Value, max: u64) -> Result<T, E> {
        v.as_u64()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| wrong(&format!("a whole number from 0 to {max}"), v))
    }

    /// A whole number from 0 to `u32::MAX`; `null` is `None`.
    pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        given(d)?.map(|v| whole(&v, u32::MAX.into())).transpose()
    }

    /// A whole number from 0 to `u64::MAX`; `null` is `None`.
    pub fn unsigned<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        given(d)?.map(|v| whole(&v, u64::MAX)).transpose()
    }

    /// A size limit: a whole number from 0 up, never `null`.
    pub fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        let v = crate::coerce::loose::value(d)?;
        whole(&v, usize::MAX as u64).map(Some)
    }

    /// A whole number that fits in 64 signed bits; `null` is `None`.
    pub fn signed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        let Some(v) = given(d)? else {
            return Ok(None);
        };
        v.as_i64()
            .map(Some)
            .ok_or_else(|| wrong("a whole number (64-bit)", &v))
    }

    /// A string; `null` is `None`.
    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match given(d)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong("a string", &other)),
        }
    }

    /// A list (of any values); `null` is not a list.
    pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
        match crate::coerce::loose::value(d)? {
            Value::Array(items) => Ok(items),
            other => Err(wrong("a list", &other)),
        }
    }

    /// A group of fields read as `T`; `null` keeps `T`'s defaults. Read in
    /// place (not through a copied value), so that a wrong field inside
    /// it is named by its whole path.
    pub fn group<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
        d: D,
    ) -> Result<T, D::Error> {
        d.deserialize_any(GroupVisitor(std::marker::PhantomData))
    }

    struct GroupVisitor<T>(std::marker::PhantomData<T>);

    impl<T> GroupVisitor<T> {
        fn not_a_group<E: de::Error>(found: Value) -> Result<T, E> {
            Err(wrong("an object", &found))
        }
    }

    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for GroupVisitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map))
        }
        fn visit_unit<E: de::Error>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_none<E: de::Error>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<T, E> {
            Self::not_a_group(Value::Bool(b))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<T, E> {
            Self::not_a_group(Value::from(n))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<T, E> {
            Self::not_a_group(Value::from(n))
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<T, E> {
            Self::not_a_group(Value::from(n))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            Self::not_a_group(Value::from(s))
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
            Self::not_a_group(Value::Array(Vec::new()))
        }
    }
}

fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "the options".to_string()
    } else {
        format!("`{}`", path)
    }
}

/// A value for a message: its JSON type, and its text when short.
fn shown(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(n) if n.is_i64() && n.as_i64().is_some_and(|i| i < 0) => "a negative number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => return "a list".to_string(),
        Value::Object(_) => return "an object".to_string(),
    };
    let text = crate::json::to_text(v);
    if text.chars().count() <= 40 {
        format!("{kind} ({text})")
    } else {
        kind.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every kind of field, under `/opts`.
    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Opts {
        #[serde(deserialize_with = "field::group")]
        opts: Fields,
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Fields {
        #[serde(deserialize_with = "field::count")]
        n: Option<u32>,
        #[serde(deserialize_with = "field::unsigned")]
        big: Option<u64>,
        #[serde(deserialize_with = "field::signed")]
        neg: Option<i64>,
        #[serde(deserialize_with = "field::string")]
        s: Option<String>,
        #[serde(deserialize_with = "field::list")]
        l: Vec<Value>,
        #[serde(deserialize_with = "field::size")]
        size: Option<usize>,
    }

    fn opts(fields: Value) -> Result<Fields, OptionError> {
        read_value::<Opts>(&json!({ "opts": fields })).map(|o| o.opts)
    }

    fn message(fields: Value) -> String {
        opts(fields).unwrap_err().message
    }

    #[test]
    fn reads_each_field_type_and_names_the_field_when_wrong() {
        let f = opts(json!({"n": 5, "big": 5_000_000_000u64, "neg": -3, "s": "x", "l": [1, "a"], "size": 7, "other": true})).unwrap();
        assert_eq!(
            (f.n, f.big, f.neg, f.s.as_deref(), f.size),
            (Some(5), Some(5_000_000_000), Some(-3), Some("x"), Some(7))
        );
        assert_eq!(f.l, [json!(1), json!("a")]);
        let cleared = opts(json!({"n": null, "big": null, "neg": null, "s": null})).unwrap();
        assert_eq!(
            (cleared.n, cleared.big, cleared.neg, cleared.s),
            (None, None, None, None)
        );
        let e = opts(json!({"n": 5_000_000_000u64})).unwrap_err();
        assert_eq!(e.path, "/opts/n");
        assert_eq!(e.message, "`/opts/n` must be a whole number from 0 to 4294967295, but it is a number (5000000000)");
        assert!(message(json!({"big": -3})).contains("a negative number (-3)"));
        assert!(message(json!({"big": 1.5})).contains("a fractional number (1.5)"));
        assert!(message(json!({"neg": 1.5})).contains("a whole number (64-bit)"));
        assert!(message(json!({"neg": "x"})).contains("a string (\"x\")"));
        assert!(message(json!({"s": 5})).contains("must be a string"));
        assert!(message(json!({"l": null})).contains("must be a list, but it is null"));
        assert!(message(json!({"size": null})).contains("`/opts/size` must be a whole number"));
        assert!(message(json!({"size": -1})).contains("a negative number"));
    }

    #[test]
    fn a_non_object_is_refused_with_its_path() {
        let e = read_value::<Opts>(&json!([1])).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.path.as_str()),
            ("the options must be an object, but it is a list", "")
        );
        let e = read_value::<Opts>(&json!({"opts": "y".repeat(60)})).unwrap_err();
        assert_eq!(e.message, "`/opts` must be an object, but it is a string");
        assert_eq!(e.path, "/opts");
        // `null` keeps the group's defaults.
        assert_eq!(
            read_value::<Opts>(&json!({"opts": null})).unwrap().opts.n,
            None
        );
    }
}
