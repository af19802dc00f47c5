//! Reading JSON text within the limits: the reader checks its own bounds
//! (bytes, depth, string length) and a builder runs the count rules on each
//! object as it is built.

use super::counts::object_counts;
use super::walk::check_value_counting;
use super::{LimitError, Limits, ReadError};
use crate::json::node::Node;
use crate::json::read::Build;
use crate::json::tree::{Arena, TreeBuilder, TreeValue};
use crate::json::JsonError;
use serde_json::Value;
use std::borrow::Cow;

/// Reads one JSON document with no limit but serde_json's recursion limit
/// (through the same reader as [`from_str_within`], so the `.wasm` carries
/// one reader for `Value`s).
pub fn from_str(text: &str) -> Result<Value, JsonError> {
    match from_str_within(text, &Limits::NONE) {
        Ok(v) => Ok(v),
        Err(ReadError::NotJson(e)) => Err(e),
        // No bound is finite: only the reader's recursion limit stops it.
        Err(ReadError::Limit(_)) => Err(JsonError::recursion_limit()),
    }
}

/// [`from_str`] into a document tree in `arena`.
pub(crate) fn read_tree<'a>(text: &'a str, arena: &'a Arena) -> Result<TreeValue<'a>, JsonError> {
    match read_tree_within(text, &Limits::NONE, arena) {
        Ok((tree, _)) => Ok(tree),
        Err(ReadError::NotJson(e)) => Err(e),
        Err(ReadError::Limit(_)) => Err(JsonError::recursion_limit()),
    }
}

/// Reads one JSON document within `limits`.
pub fn from_str_within(text: &str, limits: &Limits) -> Result<Value, ReadError> {
    read_within(text, limits, crate::json::read::ValueBuilder).map(|(v, _)| v)
}

/// Reads JSON text into the checker's tree in `arena`, within `limits`;
/// also returns how many JSON values it holds. Strings without escapes are
/// borrowed from the text.
pub(crate) fn read_tree_within<'a>(
    text: &'a str,
    limits: &Limits,
    arena: &'a Arena,
) -> Result<(TreeValue<'a>, usize), ReadError> {
    read_within(text, limits, TreeBuilder::new(arena))
}

/// The value the reader builds into `build` within `limits`, and how many
/// JSON values it holds. The reader checks its own bounds; the count rules
/// run on each object as it is built ([`Counting`]); only when one is over
/// does [`check_value_counting`] walk the value, to name the first in
/// document order.
fn read_within<'t, B>(
    text: &'t str,
    limits: &Limits,
    build: B,
) -> Result<(B::Value, usize), ReadError>
where
    B: Build<'t>,
    B::Value: Node,
{
    let mut counting = Counting {
        inner: build,
        limits,
        depth: 0,
        over: false,
    };
    let (v, values) = crate::json::read_into(text, &limits.read_limits(), &mut counting).map_err(
        |e| match e {
            crate::json::ReadError::NotJson(e) => ReadError::NotJson(e),
            crate::json::ReadError::TooLarge(e) => ReadError::Limit(e.into()),
        },
    )?;
    if counting.over {
        check_value_counting(&v, limits).map_err(ReadError::Limit)?;
    }
    Ok((v, values))
}

/// A builder that runs the count rules ([`object_counts`]) on every object
/// with a `nodes`, `tunnel` or `hops` key as it is finished, until one is
/// over (`over`, read once the reader is done).
struct Counting<'l, B> {
    inner: B,
    limits: &'l Limits,
    /// Containers open.
    depth: usize,
    over: bool,
}

impl<'t, B> Build<'t> for &mut Counting<'_, B>
where
    B: Build<'t>,
    B::Value: Node,
{
    type Value = B::Value;
    type Items = B::Items;
    /// An object's entries, and whether a key the count rules read is there.
    type Entries = (B::Entries, bool);
    fn null(&mut self) -> Self::Value {
        self.inner.null()
    }
    fn bool(&mut self, b: bool) -> Self::Value {
        self.inner.bool(b)
    }
    fn number(&mut self, n: serde_json::Number) -> Self::Value {
        self.inner.number(n)
    }
    fn string(&mut self, s: Cow<'t, str>) -> Self::Value {
        self.inner.string(s)
    }
    fn own(&mut self, s: &str) -> Cow<'t, str> {
        self.inner.own(s)
    }
    fn array(&mut self) -> Self::Items {
        self.depth += 1;
        self.inner.array()
    }
    fn push(&mut self, items: &mut Self::Items, v: Self::Value) {
        self.inner.push(items, v)
    }
    fn end_array(&mut self, items: Self::Items) -> Self::Value {
        self.depth = self.depth.saturating_sub(1);
        self.inner.end_array(items)
    }
    fn object(&mut self) -> Self::Entries {
        self.depth += 1;
        (self.inner.object(), false)
    }
    fn insert(&mut self, entries: &mut Self::Entries, key: Cow<'t, str>, v: Self::Value) {
        entries.1 |= matches!(key.as_ref(), "nodes" | "tunnel" | "hops");
        self.inner.insert(&mut entries.0, key, v)
    }
    fn end_object(&mut self, (entries, counted): Self::Entries) -> Self::Value {
        let root = self.depth == 1;
        self.depth = self.depth.saturating_sub(1);
        let v = self.inner.end_object(entries);
        if counted && !self.over {
            self.over = object_counts(&v, root, self.limits).is_err();
        }
        v
    }
}

/// Checks JSON text against every limit by reading it ([`from_str_within`]:
/// the limits are counted while reading). Text that is not JSON passes when
/// nothing before its first error is over a limit; its reader reports it.
pub fn check_text(text: &str, limits: &Limits) -> Result<(), LimitError> {
    match from_str_within(text, limits) {
        Err(ReadError::Limit(e)) => Err(e),
        _ => Ok(()),
    }
}
