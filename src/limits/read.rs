//! Reading JSON text within the limits the reader knows: bytes, depth,
//! string length.

use super::{LimitError, Limits, ReadError};
use crate::json::read::Build;
use crate::json::tree::{Arena, TreeBuilder, TreeValue};
use crate::json::JsonError;
use serde_json::Value;

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

/// The value the reader builds into `build` within `limits` (its own
/// bounds: bytes, depth, string length), and how many JSON values it holds.
fn read_within<'t, B: Build<'t>>(
    text: &'t str,
    limits: &Limits,
    build: B,
) -> Result<(B::Value, usize), ReadError> {
    crate::json::read_into(text, &limits.read_limits(), build).map_err(|e| match e {
        crate::json::ReadError::NotJson(e) => ReadError::NotJson(e),
        crate::json::ReadError::TooLarge(e) => ReadError::Limit(e.into()),
    })
}

/// Checks JSON text against the reader's limits (bytes, depth, string
/// length) by reading it ([`from_str_within`]). Text that is not JSON passes
/// when nothing before its first error is over a limit; its reader reports
/// it. Node rows and hops are the planner's to count.
pub fn check_text(text: &str, limits: &Limits) -> Result<(), LimitError> {
    match from_str_within(text, limits) {
        Err(ReadError::Limit(e)) => Err(e),
        _ => Ok(()),
    }
}
