//! A read-only view of a JSON value that works the same way over a
//! `serde_json::Value` and over the checker's arena tree ([`super::tree`]),
//! for walks that run over either (the limit walk, integer readers).

use super::tree::TreeValue;
use serde_json::{Number, Value};

/// What the limit walk needs to know about a JSON value, so that it runs the
/// same way over a `serde_json::Value` and over the checker's own tree.
pub(crate) enum Shape<'n, N> {
    Str(&'n str),
    Arr(&'n [N]),
    Object,
    Other,
}

pub(crate) trait Node: Sized {
    fn shape(&self) -> Shape<'_, Self>;
    /// The number, when it is one (what integer readers need, for either
    /// tree).
    fn number(&self) -> Option<&Number>;
    /// The field `key` of an object (`None` for anything else).
    fn field(&self, key: &str) -> Option<&Self>;
    /// An object's entries in key order (none for anything else).
    fn entries(&self) -> impl DoubleEndedIterator<Item = (&str, &Self)>;
}

impl Node for Value {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Value::String(s) => Shape::Str(s),
            Value::Array(a) => Shape::Arr(a),
            Value::Object(_) => Shape::Object,
            _ => Shape::Other,
        }
    }
    fn number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }
    fn entries(&self) -> impl DoubleEndedIterator<Item = (&str, &Self)> {
        self.as_object()
            .into_iter()
            .flat_map(|m| m.iter())
            .map(|(k, v)| (k.as_str(), v))
    }
}

/// The checker's tree, read through the same view.
impl Node for TreeValue<'_> {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            TreeValue::Str(s) => Shape::Str(s),
            TreeValue::Arr(a) => Shape::Arr(a),
            TreeValue::Object(_) => Shape::Object,
            _ => Shape::Other,
        }
    }
    fn number(&self) -> Option<&Number> {
        match self {
            TreeValue::Num(n) => Some(n),
            _ => None,
        }
    }
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn entries(&self) -> impl DoubleEndedIterator<Item = (&str, &Self)> {
        match self {
            TreeValue::Object(o) => Some(o.iter()),
            _ => None,
        }
        .into_iter()
        .flatten()
        .map(|(k, v)| -> (&str, &Self) { (k, v) })
    }
}
