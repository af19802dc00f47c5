//! Option objects (check options, size limits, a simulation scenario), read
//! field by field from a JSON value.
//!
//! The rules are those the derived deserializers applied before: a missing
//! field keeps its default, unknown keys are ignored, `null` clears a field
//! that is optional, and a value of the wrong type or out of range is an
//! error, which now names the field by its JSON Pointer. One difference: a
//! `null` for a whole group with defaults (the check options' `limits`)
//! keeps the defaults instead of being refused. Reading by hand keeps
//! serde_json's `Value` deserializer and the derived visitors out of the
//! `.wasm` (BENCH.md).

use crate::finding::pointer_token;
use serde_json::{Map, Value};

/// Why an option could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// What is wrong, naming the field.
    pub message: String,
    /// JSON Pointer to the field, from the root of the options.
    pub path: String,
}

/// The fields of one options object, located at `path` (a JSON Pointer).
pub(crate) struct Fields<'a> {
    obj: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Fields<'a> {
    /// `value` as an options object, or an error when it is not an object.
    pub fn of(value: &'a Value, path: &'a str) -> Result<Self, OptionError> {
        match value {
            Value::Object(obj) => Ok(Fields { obj, path }),
            other => Err(OptionError {
                message: format!(
                    "{} must be an object, but it is {}",
                    shown_path(path),
                    shown(other)
                ),
                path: path.to_string(),
            }),
        }
    }

    /// The JSON Pointer of field `key`.
    pub fn path_of(&self, key: &str) -> String {
        format!("{}/{}", self.path, pointer_token(key))
    }

    #[cold]
    #[inline(never)]
    fn wrong(&self, key: &str, expected: &str, found: &Value) -> OptionError {
        let path = self.path_of(key);
        OptionError {
            message: format!(
                "{} must be {}, but it is {}",
                shown_path(&path),
                expected,
                shown(found)
            ),
            path,
        }
    }

    /// The value of `key`, when present and not `null`.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    /// `v` (the value of `key`) as a whole number from 0 to `max`, which is
    /// `T`'s largest value.
    fn whole<T: TryFrom<u64>>(&self, key: &str, v: &Value, max: u64) -> Result<T, OptionError> {
        v.as_u64()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| self.wrong(key, &format!("a whole number from 0 to {max}"), v))
    }

    /// A whole number from 0 to `T`'s maximum; absent or `null` is `None`.
    pub fn unsigned<T: TryFrom<u64> + Into<u64> + Bounded>(
        &self,
        key: &str,
    ) -> Result<Option<T>, OptionError> {
        self.get(key)
            .map(|v| self.whole(key, v, T::MAX.into()))
            .transpose()
    }

    /// A whole number from 0 up that must not be `null` when present
    /// (a size limit). Absent is `None`.
    pub fn size(&self, key: &str) -> Result<Option<usize>, OptionError> {
        self.obj
            .get(key)
            .map(|v| self.whole(key, v, usize::MAX as u64))
            .transpose()
    }

    /// A whole number that fits in 64 signed bits; absent or `null` is `None`.
    pub fn signed(&self, key: &str) -> Result<Option<i64>, OptionError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        v.as_i64()
            .map(Some)
            .ok_or_else(|| self.wrong(key, "a whole number (64-bit)", v))
    }

    /// A string; absent or `null` is `None`.
    pub fn string(&self, key: &str) -> Result<Option<String>, OptionError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        v.as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| self.wrong(key, "a string", v))
    }

    /// A list; absent is `None`, and `null` is an error (as it always was).
    pub fn list(&self, key: &str) -> Result<Option<Vec<Value>>, OptionError> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items.clone())),
            Some(other) => Err(self.wrong(key, "a list", other)),
        }
    }
}

/// The largest value of an unsigned field type, for messages.
pub(crate) trait Bounded {
    const MAX: Self;
}

impl Bounded for u32 {
    const MAX: Self = u32::MAX;
}

impl Bounded for u64 {
    const MAX: Self = u64::MAX;
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

    #[test]
    fn reads_each_field_type_and_names_the_field_when_wrong() {
        let v = json!({"n": 5, "neg": -3, "big": 5_000_000_000u64, "frac": 1.5, "s": "x", "nul": null, "l": [1, "a"]});
        let f = Fields::of(&v, "/opts").unwrap();
        assert_eq!(f.unsigned::<u32>("n").unwrap(), Some(5));
        assert_eq!(f.unsigned::<u32>("absent").unwrap(), None);
        assert_eq!(f.unsigned::<u32>("nul").unwrap(), None);
        let e = f.unsigned::<u32>("big").unwrap_err();
        assert_eq!(e.path, "/opts/big");
        assert_eq!(e.message, "`/opts/big` must be a whole number from 0 to 4294967295, but it is a number (5000000000)");
        assert_eq!(f.unsigned::<u64>("big").unwrap(), Some(5_000_000_000));
        assert!(f
            .unsigned::<u64>("neg")
            .unwrap_err()
            .message
            .contains("a negative number (-3)"));
        assert!(f
            .unsigned::<u64>("frac")
            .unwrap_err()
            .message
            .contains("a fractional number (1.5)"));
        assert_eq!(f.signed("neg").unwrap(), Some(-3));
        assert!(f.signed("frac").is_err());
        assert!(f
            .signed("s")
            .unwrap_err()
            .message
            .contains("a string (\"x\")"));
        assert_eq!(f.string("s").unwrap().as_deref(), Some("x"));
        assert!(f.string("n").is_err());
        assert_eq!(f.list("l").unwrap(), Some(vec![json!(1), json!("a")]));
        assert!(f.list("nul").is_err(), "null is not a list");
        assert_eq!(f.size("n").unwrap(), Some(5));
        assert!(f.size("nul").is_err(), "a size limit cannot be null");
        assert!(f.size("neg").is_err());
    }

    #[test]
    fn a_non_object_is_refused_with_its_path() {
        let e = Fields::of(&json!([1]), "").err().unwrap();
        assert_eq!(
            (e.message.as_str(), e.path.as_str()),
            ("the options must be an object, but it is a list", "")
        );
        let long = json!("y".repeat(60));
        let e = Fields::of(&long, "/limits").err().unwrap();
        assert_eq!(e.message, "`/limits` must be an object, but it is a string");
    }
}
