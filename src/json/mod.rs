//! JSON text in and out: the crate's one reader, the one document tree,
//! and the writer.
//!
//! **One reader** ([`read`]), generic over what it builds ([`read::Build`]):
//! every document an entry point is given is read into the arena tree
//! ([`tree`]; `crate::limits` counts its limits while it reads): the
//! checker reads it as it is, and
//! the planner, simulator, lifecycle replay and panel audit read their typed
//! inputs from it through its serde `Deserializer` ([`de`]). The same
//! reader builds a `serde_json::Value` ([`from_str`]; within limits,
//! `crate::limits::from_str_within`) only for the crate's native callers (tests, benches, fuzzing); the
//! `.wasm` links the tree's builder alone. Why a reader of its own:
//! serde_json's `Deserializer` (with a `DeserializeSeed` for the tree)
//! links its generic deserializer, the `Value` visitor and, through serde's
//! error messages, the standard float printer into the `.wasm`; and
//! building the arena tree is what makes a large config quick to check
//! (README, "Layout").
//!
//! It reads what `serde_json::from_str::<Value>` reads, and that is tested
//! (`tests/json_reader.rs` compares the two over every document the tests
//! ship, their truncations and byte-level mutations, and number and string
//! edge cases):
//! * the same values: integers as `u64` (or `i64` when negative), every other
//!   number as the nearest `f64` (`lexical-core`, compact; Go's
//!   `strconv.ParseFloat` rounds the same way; `-0` is the float `-0.0`),
//!   objects with their keys sorted and a repeated key keeping its last value;
//! * the same refusals, with the same message and the same line and column
//!   (`expected value at line 1 column 1`), nesting included: the 128th
//!   nested array or object is refused.
//!
//! **Syntactic limits are counted while reading** ([`read_into`]): the
//! byte count first, then the depth and every string's length as they are
//! read; the first over its limit in text order is reported, with its JSON
//! Pointer. A limit past a syntax error is not reached: the text is reported
//! as not JSON. The reader knows nothing of tunnels: node rows and hops
//! are counted by the planner, on the types it reads an input into.
//!
//! One deliberate difference: serde_json (with the `raw_value` feature this
//! crate enables for other reasons) reads an object whose first key is
//! `$serde_json::private::RawValue` as the JSON text in its value. Here it is
//! an ordinary key, as it is for the Go server.
//!
//! **The writer** ([`to_text`], [`write_string`]) prints a `Value` byte for
//! byte as serde_json does, floats with the shortest digits (`ryu`) in
//! serde_json's notation.
//!
//! This module and its submodules import nothing else of the crate: the
//! crate's types reach the builders through `crate::encode`, which drives
//! a [`read::Build`] as the reader does (a test in `tests/layers.rs` keeps
//! it so).

mod de;
pub(crate) mod node;
mod pointer;
pub(crate) mod read;
pub(crate) mod tree;
mod write;

pub use pointer::pointer_token;
pub use read::from_str;
pub(crate) use read::RECURSION_LIMIT;

pub(crate) use write::{push_hex, shortest_digits, write_number, write_value, write_with, Leaves};
pub use write::{string_len, to_text, write_string, Text};

use serde_json::Value;
use std::fmt;

/// Why a text is not JSON, and where (1-based line, 0-based byte column of
/// the line, as serde_json counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub(crate) reason: Reason,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    EofList,
    EofObject,
    EofString,
    EofValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedIdent,
    ExpectedValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacter,
    KeyMustBeAString,
    TrailingComma,
    TrailingCharacters,
    RecursionLimit,
}

impl Reason {
    fn text(self) -> &'static str {
        match self {
            Reason::EofList => "EOF while parsing a list",
            Reason::EofObject => "EOF while parsing an object",
            Reason::EofString => "EOF while parsing a string",
            Reason::EofValue => "EOF while parsing a value",
            Reason::ExpectedColon => "expected `:`",
            Reason::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Reason::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Reason::ExpectedIdent => "expected ident",
            Reason::ExpectedValue => "expected value",
            Reason::InvalidEscape => "invalid escape",
            Reason::InvalidNumber => "invalid number",
            Reason::NumberOutOfRange => "number out of range",
            Reason::ControlCharacter => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            Reason::KeyMustBeAString => "key must be a string",
            Reason::TrailingComma => "trailing comma",
            Reason::TrailingCharacters => "trailing characters",
            Reason::RecursionLimit => "recursion limit exceeded",
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason.text())?;
        f.write_str(" at line ")?;
        f.write_str(itoa::Buffer::new().format(self.line))?;
        f.write_str(" column ")?;
        f.write_str(itoa::Buffer::new().format(self.column))
    }
}

impl std::error::Error for JsonError {}

impl JsonError {
    /// What a read with no bounds of its own reports when one was hit
    /// anyway: only the recursion limit can stop it.
    pub(crate) fn recursion_limit() -> JsonError {
        JsonError::recursion_limit_at(0)
    }

    /// The reader's refusal of the container at `column` of a one-line
    /// text, nested past the recursion limit.
    pub(crate) fn recursion_limit_at(column: usize) -> JsonError {
        JsonError {
            reason: Reason::RecursionLimit,
            line: 1,
            column,
        }
    }
}

/// The syntactic bounds of a read: text length, nesting, string length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of text.
    pub max_bytes: usize,
    /// Characters of a string or an object key.
    pub max_string_len: usize,
    /// Nested arrays and objects (`[]` is depth 1).
    pub max_depth: usize,
}

impl ReadLimits {
    /// No bound but serde_json's recursion limit.
    pub const NONE: ReadLimits = ReadLimits {
        max_bytes: usize::MAX,
        max_string_len: usize::MAX,
        max_depth: usize::MAX,
    };
}

/// Which of [`ReadLimits`] a text is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Bytes,
    StringLen,
    Depth,
}

/// A text over one of its [`ReadLimits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    pub bound: Bound,
    /// What the text has (for depth and string length: at least this much).
    pub actual: usize,
    pub max: usize,
    /// JSON Pointer to the value over the bound (`""`: the whole text).
    pub path: String,
}

/// Why a text was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The text is not JSON.
    NotJson(JsonError),
    /// The text is over a bound.
    TooLarge(TooLarge),
}

/// The value [`read::read`] builds into `build` within `limits`, and how
/// many JSON values it holds; the byte count is checked first, so a text far
/// over it costs no more than taking its length.
pub(crate) fn read_into<'t, B: read::Build<'t>>(
    text: &'t str,
    limits: &ReadLimits,
    build: B,
) -> Result<(B::Value, usize), ReadError> {
    if text.len() > limits.max_bytes {
        return Err(ReadError::TooLarge(TooLarge {
            bound: Bound::Bytes,
            actual: text.len(),
            max: limits.max_bytes,
            path: String::new(),
        }));
    }
    read::read(text, build, Some(limits)).map_err(read::Fail::into_read_error)
}

/// A JSON object of `pairs` (what `json!({...})` builds, without going
/// through serde's serializer for every value).
pub(crate) fn object<const N: usize>(mut pairs: [(&str, Value); N]) -> Value {
    object_of(&mut pairs)
}

/// [`object`] compiled once, whatever the number of pairs: the values are
/// moved out of `pairs` (`null` left behind).
#[inline(never)]
fn object_of(pairs: &mut [(&str, Value)]) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in pairs {
        map.insert(k.to_string(), std::mem::take(v));
    }
    Value::Object(map)
}
