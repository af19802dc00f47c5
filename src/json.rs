//! JSON text to `serde_json::Value`, without serde_json's deserializer.
//!
//! Every entry point reads its input as a `serde_json::Value`. Going through
//! `serde_json::from_str` linked serde_json's whole deserializer into the
//! `.wasm`: its generic `Deserializer`, the `Value` visitor, the exact float
//! parser (`float_roundtrip`, with its big-number arithmetic and tables) and,
//! through serde's error messages, the standard library's float printer. This
//! reader builds the same `Value` directly and leaves all of that out.
//!
//! It gives what `serde_json::from_str::<Value>` gives, and that is tested
//! (`tests/json_reader.rs` compares the two over every document the tests
//! ship, their truncations and byte-level mutations, and number and string
//! edge cases):
//! * the same values: integers as `u64` (or `i64` when negative), every other
//!   number as the nearest `f64` (Go's `strconv.ParseFloat` rounds the same
//!   way; `-0` is the float `-0.0`), objects with their keys sorted and a
//!   repeated key keeping its last value;
//! * the same refusals, with the same message and the same line and column
//!   (`expected value at line 1 column 1`), nesting included: the 128th
//!   nested array or object is refused.
//!
//! One deliberate difference: serde_json (with the `raw_value` feature this
//! crate enables for other reasons) reads an object whose first key is
//! `$serde_json::private::RawValue` as the JSON text in its value. Here it is
//! an ordinary key, as it is for the Go server.

use serde_json::{Map, Number, Value};
use std::fmt;

/// Why a text is not JSON, and where (1-based line, 0-based byte column of
/// the line, as serde_json counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    reason: Reason,
    line: usize,
    column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
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
    LoneLeadingSurrogate,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
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
            Reason::LoneLeadingSurrogate => "lone leading surrogate in hex escape",
            Reason::TrailingComma => "trailing comma",
            Reason::TrailingCharacters => "trailing characters",
            Reason::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
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

/// Reads one JSON document (surrounding whitespace allowed).
pub fn from_str(text: &str) -> Result<Value> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        depth_left: 128,
    };
    let value = r.value()?;
    match r.skip_ws() {
        Some(_) => Err(r.err_next(Reason::TrailingCharacters)),
        None => Ok(value),
    }
}

type Result<T> = std::result::Result<T, JsonError>;

/// How many bytes at the start of `bytes` a JSON string holds as they are:
/// up to the first quote, backslash or control byte, or the end. Eight bytes
/// at a time while none is one (the usual SWAR zero-byte tests; the lowest
/// flagged byte is always a real one). Shared with the checker's reader
/// (`check::tree`).
#[inline]
pub(crate) fn plain_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let special = zero_byte(x ^ (ONES * u64::from(b'"')))
            | zero_byte(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        at += 1;
    }
    at
}

/// The character a one-letter escape (`\n`, `\"`, ...) stands for.
#[inline]
pub(crate) fn short_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// The character of a UTF-16 surrogate pair (`high` already known to be a
/// high surrogate); `None` when `low` is not a low one.
pub(crate) fn surrogate_pair(high: u32, low: u32) -> Option<char> {
    if !(0xDC00..=0xDFFF).contains(&low) {
        return None;
    }
    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// Containers that may still open (serde_json's recursion limit).
    depth_left: u8,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The next byte after whitespace, not consumed.
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn err_at(&self, reason: Reason, index: usize) -> JsonError {
        let before = self.bytes.get(..index).unwrap_or(self.bytes);
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = 1 + before
            .iter()
            .take(line_start)
            .filter(|&&b| b == b'\n')
            .count();
        JsonError {
            reason,
            line,
            column: index - line_start,
        }
    }

    /// An error about the byte just consumed (position: after it).
    fn err(&self, reason: Reason) -> JsonError {
        self.err_at(reason, self.at)
    }

    /// An error about the byte not yet consumed (position: after it).
    fn err_next(&self, reason: Reason) -> JsonError {
        self.err_at(reason, (self.at + 1).min(self.bytes.len()))
    }

    fn value(&mut self) -> Result<Value> {
        let Some(b) = self.skip_ws() else {
            return Err(self.err_next(Reason::EofValue));
        };
        match b {
            b'n' => self.word(b"null", Value::Null),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'-' => {
                self.at += 1;
                self.number(false)
            }
            b'0'..=b'9' => self.number(true),
            b'"' => {
                self.at += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.depth_left -= 1;
                if self.depth_left == 0 {
                    return Err(self.err_next(Reason::RecursionLimit));
                }
                self.at += 1;
                let v = if b == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth_left += 1;
                v
            }
            _ => Err(self.err_next(Reason::ExpectedValue)),
        }
    }

    /// `null`, `true` or `false`, whose first byte is known to match.
    fn word(&mut self, word: &[u8], v: Value) -> Result<Value> {
        self.at += 1;
        for &want in word.iter().skip(1) {
            let Some(got) = self.peek() else {
                return Err(self.err(Reason::EofValue));
            };
            self.at += 1;
            if got != want {
                return Err(self.err(Reason::ExpectedIdent));
            }
        }
        Ok(v)
    }

    /// After `[`; consumes through `]`.
    fn array(&mut self) -> Result<Value> {
        let mut items = Vec::new();
        loop {
            let Some(b) = self.skip_ws() else {
                return Err(self.err_next(Reason::EofList));
            };
            if b == b']' {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            if !items.is_empty() {
                if b != b',' {
                    return Err(self.err_next(Reason::ExpectedListCommaOrEnd));
                }
                self.at += 1;
                match self.skip_ws() {
                    Some(b']') => return Err(self.err_next(Reason::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.err_next(Reason::EofValue)),
                }
            }
            items.push(self.value()?);
        }
    }

    /// After `{`; consumes through `}`.
    fn object(&mut self) -> Result<Value> {
        let mut map = Map::new();
        let mut first = true;
        loop {
            let Some(b) = self.skip_ws() else {
                return Err(self.err_next(Reason::EofObject));
            };
            if b == b'}' {
                self.at += 1;
                return Ok(Value::Object(map));
            }
            if first {
                first = false;
                if b != b'"' {
                    return Err(self.err_next(Reason::KeyMustBeAString));
                }
            } else {
                if b != b',' {
                    return Err(self.err_next(Reason::ExpectedObjectCommaOrEnd));
                }
                self.at += 1;
                match self.skip_ws() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.err_next(Reason::TrailingComma)),
                    Some(_) => return Err(self.err_next(Reason::KeyMustBeAString)),
                    None => return Err(self.err_next(Reason::EofValue)),
                }
            }
            self.at += 1;
            let key = self.string()?;
            match self.skip_ws() {
                Some(b':') => self.at += 1,
                Some(_) => return Err(self.err_next(Reason::ExpectedColon)),
                None => return Err(self.err_next(Reason::EofObject)),
            }
            let v = self.value()?;
            // A repeated key keeps its last value.
            map.insert(key, v);
        }
    }

    /// After the opening quote; consumes through the closing one.
    fn string(&mut self) -> Result<String> {
        let mut out = String::new();
        let mut start = self.at;
        loop {
            self.skip_plain();
            let Some(b) = self.peek() else {
                return Err(self.err(Reason::EofString));
            };
            // Runs end before an ASCII byte, so they are whole characters.
            let run = self.text.get(start..self.at).unwrap_or_default();
            self.at += 1;
            match b {
                b'"' => {
                    out.push_str(run);
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(run);
                    self.escape(&mut out)?;
                    start = self.at;
                }
                _ => return Err(self.err(Reason::ControlCharacter)),
            }
        }
    }

    /// Moves to the next quote, backslash or control byte (or the end).
    fn skip_plain(&mut self) {
        self.at += plain_len(self.bytes.get(self.at..).unwrap_or_default());
    }

    fn next_in_string(&mut self) -> Result<u8> {
        let b = self.peek().ok_or_else(|| self.err(Reason::EofString))?;
        self.at += 1;
        Ok(b)
    }

    /// After a backslash.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let c = match self.next_in_string()? {
            b'u' => self.unicode_escape()?,
            b => short_escape(b).ok_or_else(|| self.err(Reason::InvalidEscape))?,
        };
        out.push(c);
        Ok(())
    }

    /// After `\u`: one character, from one escape or a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char> {
        let first = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&first) {
            return Err(self.err(Reason::LoneLeadingSurrogate));
        }
        if !(0xD800..=0xDBFF).contains(&first) {
            return char::from_u32(first).ok_or_else(|| self.err(Reason::InvalidEscape));
        }
        for want in [b'\\', b'u'] {
            if self.peek().ok_or_else(|| self.err(Reason::EofString))? != want {
                self.at += 1;
                return Err(self.err(Reason::UnexpectedEndOfHexEscape));
            }
            self.at += 1;
        }
        let low = self.hex4()?;
        surrogate_pair(first, low).ok_or_else(|| self.err(Reason::LoneLeadingSurrogate))
    }

    fn hex4(&mut self) -> Result<u32> {
        let Some(digits) = self.bytes.get(self.at..self.at + 4) else {
            self.at = self.bytes.len();
            return Err(self.err(Reason::EofString));
        };
        self.at += 4;
        let mut n = 0;
        for &d in digits {
            let v = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.err(Reason::InvalidEscape))?;
            n = n * 16 + v;
        }
        Ok(n)
    }

    /// A number (after its `-`, if any). The grammar is checked byte by
    /// byte, with serde_json's error positions; an integer that fits stays
    /// an integer, anything else is the correctly rounded `f64` of the whole
    /// decimal text (std's `f64::from_str`: what serde_json's
    /// `float_roundtrip` parser and Go's `ParseFloat` both give).
    fn number(&mut self, positive: bool) -> Result<Value> {
        let start = if positive { self.at } else { self.at - 1 };
        let Some(first) = self.peek() else {
            return Err(self.err(Reason::EofValue));
        };
        self.at += 1;
        let mut significand: u64 = 0;
        let mut fits = true;
        match first {
            b'0' => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.err_next(Reason::InvalidNumber));
                }
            }
            b'1'..=b'9' => {
                significand = u64::from(first - b'0');
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    self.at += 1;
                    let next = significand
                        .checked_mul(10)
                        .and_then(|s| s.checked_add(u64::from(d - b'0')));
                    match next {
                        Some(s) if fits => significand = s,
                        _ => fits = false,
                    }
                }
            }
            _ => return Err(self.err(Reason::InvalidNumber)),
        }
        let mut float = !fits;
        if self.peek() == Some(b'.') {
            float = true;
            self.at += 1;
            let digits_from = self.at;
            while let Some(b'0'..=b'9') = self.peek() {
                self.at += 1;
            }
            if self.at == digits_from {
                return Err(self.err_next(if self.peek().is_some() {
                    Reason::InvalidNumber
                } else {
                    Reason::EofValue
                }));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            let Some(d) = self.peek() else {
                return Err(self.err(Reason::EofValue));
            };
            self.at += 1;
            if !d.is_ascii_digit() {
                return Err(self.err(Reason::InvalidNumber));
            }
            // serde_json keeps the exponent in an i32 and refuses, at the
            // digit that overflows it, a non-zero number with a huge
            // positive exponent (a huge negative one is simply 0).
            let mut exp: i32 = i32::from(d - b'0');
            while let Some(d @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                match exp
                    .checked_mul(10)
                    .and_then(|e| e.checked_add(i32::from(d - b'0')))
                {
                    Some(e) => exp = e,
                    None => {
                        let token = self.bytes.get(start..self.at).unwrap_or_default();
                        let exp_at = token
                            .iter()
                            .rposition(|&b| b == b'e' || b == b'E')
                            .unwrap_or(0);
                        let negative_exp = token.get(exp_at + 1) == Some(&b'-');
                        let zero = token
                            .iter()
                            .take(exp_at)
                            .all(|&b| !b.is_ascii_digit() || b == b'0');
                        if !zero && !negative_exp {
                            return Err(self.err(Reason::NumberOutOfRange));
                        }
                        while let Some(b'0'..=b'9') = self.peek() {
                            self.at += 1;
                        }
                        let f = if positive { 0.0 } else { -0.0 };
                        return Ok(Value::Number(
                            Number::from_f64(f).unwrap_or_else(|| Number::from(0u8)),
                        ));
                    }
                }
            }
        }
        if !float {
            if positive {
                return Ok(Value::Number(Number::from(significand)));
            }
            // `-0` and anything below i64::MIN are floats, as in serde_json.
            let negated = (significand as i64).wrapping_neg();
            if negated < 0 {
                return Ok(Value::Number(Number::from(negated)));
            }
        }
        let token = self.text.get(start..self.at).unwrap_or_default();
        // Already checked against the JSON grammar, which std's parser
        // accepts; it rounds correctly, as serde_json and Go's `ParseFloat` do.
        match token.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(self.err(Reason::NumberOutOfRange)),
        }
    }
}

/// A JSON object of `pairs` (what `json!({...})` builds, without going
/// through serde's serializer for every value).
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in pairs {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
}

/// `v` as compact JSON text, byte for byte what serde_json prints for it
/// (`v.to_string()`): keys in map order, no spaces, `"` `\\` and control
/// characters escaped (`\\n` and its kin where JSON has a short form,
/// `\\u00XX` otherwise), everything else as is, numbers as `Number` prints
/// them. Written here so that the `.wasm` carries one serializer of `Value`
/// (serde's, for values inside derived output), not also the two that
/// `Display` instantiates.
pub fn to_text(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

/// `v` as [`to_text`] gives it, for `format!` arguments.
pub struct Text<'a>(pub &'a Value);

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_text(self.0))
    }
}

/// How [`write_with`] prints the leaves of a value.
pub(crate) struct Leaves {
    pub number: fn(&Number, &mut String),
    pub string: fn(&str, &mut String),
}

/// serde_json's leaves: numbers as `Number` prints them, its string escapes.
const SERDE_LEAVES: Leaves = Leaves {
    number: write_number,
    string: write_string,
};

/// A number as serde_json's `Number` prints it: integers as they are,
/// floats through [`write_f64`].
pub(crate) fn write_number(n: &Number, out: &mut String) {
    if let Some(u) = n.as_u64() {
        out.push_str(itoa::Buffer::new().format(u));
    } else if let Some(i) = n.as_i64() {
        out.push_str(itoa::Buffer::new().format(i));
    } else if let Some(f) = n.as_f64() {
        write_f64(f, out);
    }
}

/// A float as serde_json prints it: serde_json's own printer (`zmij`),
/// shortest digits that read back, plain from 1e-5 to 1e16 (`0.00001`,
/// `1500000000000000.0`, `123.456`), else `1.5e+16` or `1e-6`.
pub(crate) fn write_f64(f: f64, out: &mut String) {
    out.push_str(zmij::Buffer::new().format_finite(f));
}

/// The shortest decimal digits that read back as `f` (the digits Go's
/// `strconv` picks too), as `(digits, point)`: `f` is `0.DIGITS × 10^point`,
/// the digits without leading or trailing zeros; `None` for zero (and for
/// the non-finite values JSON has no text for). Taken from `zmij`'s text.
pub(crate) fn shortest_digits(f: f64) -> Option<(Vec<u8>, i32)> {
    if !f.is_finite() || f == 0.0 {
        return None;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(f.abs()).as_bytes();
    let (mantissa, exp) = match text.iter().position(|&b| b == b'e') {
        Some(e) => {
            let exp = std::str::from_utf8(text.get(e + 1..)?).ok()?;
            (
                text.get(..e)?,
                exp.trim_start_matches('+').parse::<i32>().ok()?,
            )
        }
        None => (text, 0),
    };
    let int_len = mantissa
        .iter()
        .position(|&b| b == b'.')
        .unwrap_or(mantissa.len());
    let mut point = int_len as i32 + exp;
    let mut digits: Vec<u8> = mantissa
        .iter()
        .copied()
        .filter(u8::is_ascii_digit)
        .collect();
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..leading);
    point -= leading as i32;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    Some((digits, point))
}

pub(crate) fn write_value(v: &Value, out: &mut String) {
    write_with(v, &SERDE_LEAVES, out)
}

/// `v` as compact JSON, keys in map order (serde_json's map is sorted by
/// key bytes, which is also the order Go's encoder sorts keys into), with
/// numbers and strings printed by `leaves`. Shared by [`to_text`] and the
/// Go-style writer `coerce::go_json`.
pub(crate) fn write_with(v: &Value, leaves: &Leaves, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => (leaves.number)(n, out),
        Value::String(s) => (leaves.string)(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_with(item, leaves, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                (leaves.string)(k, out);
                out.push(':');
                write_with(item, leaves, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal, escaped as serde_json escapes it. Runs of bytes
/// that need no escape are found eight at a time ([`plain_len`]) and copied
/// whole.
pub fn write_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.push('"');
    let mut start = 0;
    loop {
        let end = start + plain_len(bytes.get(start..).unwrap_or_default());
        out.push_str(s.get(start..end).unwrap_or_default());
        // What stops a run is ASCII, so `end + 1` is a character boundary.
        let Some(&b) = bytes.get(end) else { break };
        match short_escape_of(b) {
            Some(short) => out.push_str(short),
            None => {
                out.push_str("\\u00");
                out.push(char::from(
                    HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
                ));
                out.push(char::from(
                    HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
                ));
            }
        }
        start = end + 1;
    }
    out.push('"');
}

/// The two-character escape serde_json writes for `b`, if it has one.
fn short_escape_of(b: u8) -> Option<&'static str> {
    Some(match b {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x08 => "\\b",
        0x0c => "\\f",
        _ => return None,
    })
}

#[cfg(test)]
// Exact ties and boundary values, written with every digit on purpose.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    /// Known answers for the printer: the ends of the plain range, both
    /// exponent forms, negative zero.
    #[test]
    fn floats_print_in_serde_json_form() {
        for (f, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1e-5, "0.00001"),
            (1.5e15, "1500000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e-6, "1e-6"),
            (-2.5e-8, "-2.5e-8"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (9007199254740993.0, "9007199254740992.0"),
        ] {
            let mut out = String::new();
            write_f64(f, &mut out);
            assert_eq!(out, text, "{f:e}");
        }
    }

    /// The digits and point taken from the printer's text are the shortest
    /// round-trip digits as Rust's own `{:e}` (a different algorithm) gives
    /// them: every power of ten and of two and their neighbours, subnormals,
    /// short decimals and random bit patterns.
    #[test]
    fn shortest_digits_are_the_shortest_round_trip_digits() {
        let mut values = vec![
            1.0,
            0.1,
            0.3,
            123.456,
            1e21,
            1e22,
            1e23,
            4.35,
            5e-324,
            f64::MAX,
        ];
        for k in -330..=310 {
            for m in [1.0, 1.5, 2.5, 9.5, 9.999999999999999, 1.2345678901234567] {
                values.push(m * 10f64.powi(k));
                values.push(format!("{m}e{k}").parse().unwrap_or(0.0));
            }
        }
        for e in -1074..=1023 {
            values.push(2f64.powi(e));
            values.push(f64::from_bits(2f64.powi(e).to_bits().wrapping_sub(1)));
            values.push(f64::from_bits(2f64.powi(e).to_bits() + 1));
        }
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..40_000u64 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            values.push(f64::from_bits(seed));
            values.push((seed % 1_000_000) as f64 / 10f64.powi((i % 12) as i32));
            values.push(f64::from_bits(seed >> 12)); // subnormal
        }
        let mut checked = 0;
        for f in values {
            if !f.is_finite() || f == 0.0 {
                assert_eq!(shortest_digits(f), None);
                continue;
            }
            // `{:e}` prints `d.ddde-n` with the shortest round-trip digits.
            let rust = format!("{:e}", f.abs());
            let (mantissa, exp) = rust.split_once('e').unwrap();
            let want: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
            let point = exp.parse::<i32>().unwrap() + 1;
            let (digits, at) = shortest_digits(f).unwrap();
            let back = format!("0.{}e{at}", std::str::from_utf8(&digits).unwrap());
            assert_eq!(back.parse::<f64>(), Ok(f.abs()), "{f:e} reads back");
            assert_eq!((digits.len(), at), (want.len(), point), "{f:e} is shortest");
            if digits != want {
                // A tie between two shortest candidates: Rust takes the
                // upper one, zmij (and Go) the even one.
                assert!(digits.last().is_some_and(|d| d % 2 == 0), "{f:e}");
            }
            checked += 1;
        }
        assert_eq!(shortest_digits(-0.5), Some((b"5".to_vec(), 0)));
        assert_eq!(shortest_digits(1500.0), Some((b"15".to_vec(), 4)));
        assert!(checked > 120_000, "{checked}");
    }

    fn same(text: &str) {
        let ours = from_str(text)
            .map(|v| (v.to_string(), v))
            .map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Value>(text)
            .map(|v| (v.to_string(), v))
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?}");
    }

    #[test]
    fn text_is_what_serde_json_prints() {
        let mut s = String::new();
        for b in 0u8..128 {
            s.push(char::from(b));
        }
        s.push_str("é中😀\u{2028}");
        let v = serde_json::json!({"b": [1, -2, 1.5, -0.0, 1e300, u64::MAX, null, true, false, s.clone(), {}], "a": {"x": [], s.clone(): 5}, "": ""});
        assert_eq!(to_text(&v), v.to_string());
        assert_eq!(format!("{}", Text(&v)), v.to_string());
        assert_eq!(
            to_text(&Value::String(s.clone())),
            serde_json::to_string(&s).unwrap()
        );
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them() {
        for t in [
            "0", "-0", "-0.0", "1", "-1", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
            "1.5", "1e2", "1E+2", "1e-2", "0.1", "0.30000000000000004", "123456789012345678901234567890", "1e308", "1e309", "-1e309",
            "2.2250738585072011e-308", "4.9e-324", "2e-324", "1e-400", "0e99999999999", "1e99999999999", "1e-99999999999", "-1e99999999999",
            "01", "-", "-a", "1.", "1.e5", ".5", "1e", "1e+", "1ex", "+1", "1.5x", "[1.]", "[1e]", "9007199254740993", "0.000000000000000000000000000001e30",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999",
        ] {
            same(t);
        }
    }

    #[test]
    fn strings_read_as_serde_json_reads_them() {
        for t in [
            r#""""#,
            r#""abc""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u4e2d\ud83d\ude00""#,
            r#""\ud83d""#,
            r#""\ud83dx""#,
            r#""\ud83d\n""#,
            r#""\ude00""#,
            r#""\ud83d\u0041""#,
            r#""\u12""#,
            r#""\u12g4""#,
            r#""\x""#,
            "\"a\nb\"",
            "\"abc",
            "\"abc\\",
            r#""é中😀 long enough to use the fast scan""#,
        ] {
            same(t);
        }
    }

    #[test]
    fn structure_reads_as_serde_json_reads_it() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for t in [
            "",
            " ",
            "null",
            "nul",
            "nulx",
            "true",
            "tru",
            "false",
            "[]",
            "[1,2]",
            "[1,]",
            "[1 2]",
            "[1",
            "[",
            "{}",
            "{\"a\":1}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{1:2}",
            "{\"a\":1,2:3}",
            "{\"a\"",
            "{\"a\":",
            "{",
            "{\"b\":1,\"a\":2,\"b\":3}",
            "[1] x",
            "\n\n  [1,\n  x]",
            "x",
            "{\"$serde_json::private::RawValue\":1,\"a\":2}",
        ] {
            if t.contains("RawValue") {
                assert_eq!(
                    from_str(t).unwrap(),
                    serde_json::json!({"$serde_json::private::RawValue": 1, "a": 2})
                );
            } else {
                same(t);
            }
        }
        same(&deep(127));
        same(&deep(128));
        same(&format!("{}1{}", "[{\"a\":".repeat(64), "}]".repeat(64)));
    }
}
