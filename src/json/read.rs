//! The one JSON reader (see the module docs of [`super`]).

use super::pointer::pointer_token;
use super::{Bound, JsonError, ReadLimits, Reason, TooLarge};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

type Result<T> = std::result::Result<T, JsonError>;

/// How many bytes at the start of `bytes` a JSON string holds as they are:
/// up to the first quote, backslash or control byte, or the end. Eight bytes
/// at a time while none is one (the usual SWAR zero-byte tests; the lowest
/// flagged byte is always a real one). Shared with the writer.
#[inline(always)]
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
#[inline(always)]
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

/// Four hex digits as a number; `None` when one is not a hex digit.
fn hex_value(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0, |n, &d| Some(n * 16 + (d as char).to_digit(16)?))
}

/// What a reader builds from the values it reads: a `serde_json::Value`
/// ([`ValueBuilder`]) or the checker's arena tree (`super::tree`). The
/// reader hands over every value once, children before their container.
pub(crate) trait Build<'t> {
    /// A finished value.
    type Value;
    /// An array being read.
    type Items;
    /// An object being read.
    type Entries;
    fn null(&mut self) -> Self::Value;
    fn bool(&mut self, b: bool) -> Self::Value;
    fn number(&mut self, n: Number) -> Self::Value;
    /// A string: borrowed from the text when it has no escapes.
    fn string(&mut self, s: Cow<'t, str>) -> Self::Value;
    /// A string that is not in the text (an encoder's), held where the
    /// builder keeps its strings.
    fn own(&mut self, s: &str) -> Cow<'t, str> {
        Cow::Owned(s.to_owned())
    }
    fn array(&mut self) -> Self::Items;
    fn push(&mut self, items: &mut Self::Items, v: Self::Value);
    fn end_array(&mut self, items: Self::Items) -> Self::Value;
    fn object(&mut self) -> Self::Entries;
    /// A repeated key keeps its last value (as in `serde_json::Map`).
    fn insert(&mut self, entries: &mut Self::Entries, key: Cow<'t, str>, v: Self::Value);
    fn end_object(&mut self, entries: Self::Entries) -> Self::Value;
}

/// Builds a `serde_json::Value`.
pub(crate) struct ValueBuilder;

impl<'t> Build<'t> for ValueBuilder {
    type Value = Value;
    type Items = Vec<Value>;
    type Entries = Map<String, Value>;
    fn null(&mut self) -> Value {
        Value::Null
    }
    fn bool(&mut self, b: bool) -> Value {
        Value::Bool(b)
    }
    fn number(&mut self, n: Number) -> Value {
        Value::Number(n)
    }
    fn string(&mut self, s: Cow<'t, str>) -> Value {
        Value::String(s.into_owned())
    }
    fn array(&mut self) -> Vec<Value> {
        Vec::new()
    }
    fn push(&mut self, items: &mut Vec<Value>, v: Value) {
        items.push(v)
    }
    fn end_array(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }
    fn object(&mut self) -> Map<String, Value> {
        Map::new()
    }
    fn insert(&mut self, entries: &mut Map<String, Value>, key: Cow<'t, str>, v: Value) {
        entries.insert(key.into_owned(), v);
    }
    fn end_object(&mut self, entries: Map<String, Value>) -> Value {
        Value::Object(entries)
    }
}

/// Why reading stopped (boxed: every value read returns through a
/// `Result`, which stays as small as the value).
pub(crate) struct Fail(Box<Failure>);

pub(crate) enum Failure {
    Json(JsonError),
    /// A depth or string length over its limit, with the path to it as the
    /// reader unwinds (innermost token first).
    Limit {
        bound: Bound,
        actual: usize,
        max: usize,
        path: Vec<String>,
    },
}

impl From<JsonError> for Fail {
    #[cold]
    fn from(e: JsonError) -> Fail {
        Fail(Box::new(Failure::Json(e)))
    }
}

impl Fail {
    /// The error seen from the container holding it, under `token`.
    #[cold]
    fn under(mut self, token: impl FnOnce() -> String) -> Fail {
        if let Failure::Limit { path, .. } = &mut *self.0 {
            path.push(token());
        }
        self
    }

    #[cold]
    fn limit(bound: Bound, actual: usize, max: usize) -> Fail {
        Fail(Box::new(Failure::Limit {
            bound,
            actual,
            max,
            path: Vec::new(),
        }))
    }

    pub(crate) fn into_read_error(self) -> super::ReadError {
        match *self.0 {
            Failure::Json(e) => super::ReadError::NotJson(e),
            Failure::Limit {
                bound,
                actual,
                max,
                path,
            } => {
                let mut pointer = String::new();
                for token in path.iter().rev() {
                    pointer.push('/');
                    pointer.push_str(&pointer_token(token));
                }
                super::ReadError::TooLarge(TooLarge {
                    bound,
                    actual,
                    max,
                    path: pointer,
                })
            }
        }
    }
}

type Read<T> = std::result::Result<T, Fail>;

/// Reads one document into `build`, checking `limits` as it goes (depth and
/// string length at once); also returns how many JSON values it holds.
/// Without limits, only serde_json's recursion limit applies.
pub(crate) fn read<'t, B: Build<'t>>(
    text: &'t str,
    build: B,
    limits: Option<&ReadLimits>,
) -> Read<(B::Value, usize)> {
    let mut r = Reader {
        c: Cursor {
            text,
            bytes: text.as_bytes(),
            at: 0,
        },
        depth: 0,
        limits: limits.copied().unwrap_or(ReadLimits::NONE),
        values: 0,
        build,
    };
    let value = r.value()?;
    match r.c.skip_ws() {
        Some(_) => Err(r.c.err_next(Reason::TrailingCharacters).into()),
        None => Ok((value, r.values)),
    }
}

/// Reads one JSON document (surrounding whitespace allowed) into a
/// `serde_json::Value`, with no limit but serde_json's recursion limit.
pub fn from_str(text: &str) -> std::result::Result<Value, JsonError> {
    match read(text, ValueBuilder, None) {
        Ok((v, _)) => Ok(v),
        Err(e) => match e.into_read_error() {
            super::ReadError::NotJson(e) => Err(e),
            // No limits were given: only the recursion limit stops a read.
            super::ReadError::TooLarge(_) => Err(JsonError::recursion_limit()),
        },
    }
}

/// serde_json's recursion limit: the 128th nested container is refused.
pub(crate) const RECURSION_LIMIT: usize = 128;

/// Where the reader stands in the text, and everything it reads that does
/// not depend on the builder (kept out of [`Reader`] so that the `.wasm`
/// carries it once, not once per builder).
struct Cursor<'t> {
    text: &'t str,
    bytes: &'t [u8],
    /// The next byte to read.
    at: usize,
}

struct Reader<'t, B> {
    c: Cursor<'t>,
    /// Containers open, the one being read included.
    depth: usize,
    limits: ReadLimits,
    /// JSON values read so far.
    values: usize,
    build: B,
}

/// A string or key longer than `maxStringLen` characters (it has at most
/// as many characters as bytes: counted only when it may be over).
#[inline(always)]
fn string_within(s: &str, limits: &ReadLimits) -> Read<()> {
    if s.len() > limits.max_string_len {
        return count_string(s, limits.max_string_len);
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn count_string(s: &str, max: usize) -> Read<()> {
    let n = s.chars().count();
    if n > max {
        return Err(Fail::limit(Bound::StringLen, n, max));
    }
    Ok(())
}

impl<'t, B: Build<'t>> Reader<'t, B> {
    fn value(&mut self) -> Read<B::Value> {
        let Some(b) = self.c.skip_ws() else {
            return Err(self.c.fail_next(Reason::EofValue));
        };
        self.values += 1;
        match b {
            b'n' => {
                self.c.word(b"null")?;
                Ok(self.build.null())
            }
            b't' => {
                self.c.word(b"true")?;
                Ok(self.build.bool(true))
            }
            b'f' => {
                self.c.word(b"false")?;
                Ok(self.build.bool(false))
            }
            b'-' => {
                self.c.at += 1;
                let n = self.c.number(false)?;
                Ok(self.build.number(n))
            }
            b'0'..=b'9' => {
                let n = self.c.number(true)?;
                Ok(self.build.number(n))
            }
            b'"' => {
                self.c.at += 1;
                let s = self.c.string()?;
                string_within(&s, &self.limits)?;
                Ok(self.build.string(s))
            }
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > self.limits.max_depth {
                    return Err(Fail::limit(Bound::Depth, self.depth, self.limits.max_depth));
                }
                if self.depth >= RECURSION_LIMIT {
                    return Err(self.c.fail_next(Reason::RecursionLimit));
                }
                self.c.at += 1;
                let v = if b == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth -= 1;
                v
            }
            _ => Err(self.c.fail_next(Reason::ExpectedValue)),
        }
    }

    /// After `[`; consumes through `]`.
    fn array(&mut self) -> Read<B::Value> {
        let mut items = self.build.array();
        let mut index = 0usize;
        loop {
            let Some(b) = self.c.skip_ws() else {
                return Err(self.c.fail_next(Reason::EofList));
            };
            if b == b']' {
                self.c.at += 1;
                return Ok(self.build.end_array(items));
            }
            if index > 0 {
                if b != b',' {
                    return Err(self.c.fail_next(Reason::ExpectedListCommaOrEnd));
                }
                self.c.at += 1;
                match self.c.skip_ws() {
                    Some(b']') => return Err(self.c.fail_next(Reason::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.c.fail_next(Reason::EofValue)),
                }
            }
            let v = self
                .value()
                .map_err(|e| e.under(|| itoa::Buffer::new().format(index).to_string()))?;
            self.build.push(&mut items, v);
            index += 1;
        }
    }

    /// After `{`; consumes through `}`.
    fn object(&mut self) -> Read<B::Value> {
        let mut entries = self.build.object();
        let mut first = true;
        loop {
            let Some(b) = self.c.skip_ws() else {
                return Err(self.c.fail_next(Reason::EofObject));
            };
            if b == b'}' {
                self.c.at += 1;
                return Ok(self.build.end_object(entries));
            }
            if first {
                first = false;
                if b != b'"' {
                    return Err(self.c.fail_next(Reason::KeyMustBeAString));
                }
            } else {
                if b != b',' {
                    return Err(self.c.fail_next(Reason::ExpectedObjectCommaOrEnd));
                }
                self.c.at += 1;
                match self.c.skip_ws() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.c.fail_next(Reason::TrailingComma)),
                    Some(_) => return Err(self.c.fail_next(Reason::KeyMustBeAString)),
                    None => return Err(self.c.fail_next(Reason::EofValue)),
                }
            }
            self.c.at += 1;
            let key = self.c.string()?;
            // An over-long key: the path is that of the object holding it.
            string_within(&key, &self.limits)?;
            match self.c.skip_ws() {
                Some(b':') => self.c.at += 1,
                Some(_) => return Err(self.c.fail_next(Reason::ExpectedColon)),
                None => return Err(self.c.fail_next(Reason::EofObject)),
            }
            let v = self.value().map_err(|e| e.under(|| key.to_string()))?;
            self.build.insert(&mut entries, key, v);
        }
    }
}

impl<'t> Cursor<'t> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    #[cold]
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

    /// [`Cursor::err_next`] as the reader's failure: one out-of-line call
    /// at each of the reader's many error sites.
    #[cold]
    #[inline(never)]
    fn fail_next(&self, reason: Reason) -> Fail {
        self.err_next(reason).into()
    }

    /// `null`, `true` or `false`, whose first byte is known to match.
    fn word(&mut self, word: &[u8]) -> Result<()> {
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
        Ok(())
    }

    /// After the opening quote; consumes through the closing one. Borrowed
    /// from the text when there is no escape. Inlined: most of what a
    /// config holds is strings.
    #[inline(always)]
    fn string(&mut self) -> Result<Cow<'t, str>> {
        let start = self.at;
        self.skip_plain();
        match self.peek() {
            Some(b'"') => {
                // Runs end before an ASCII byte, so they are whole characters.
                let s = self.text.get(start..self.at).unwrap_or_default();
                self.at += 1;
                Ok(Cow::Borrowed(s))
            }
            _ => self.escaped(start).map(Cow::Owned),
        }
    }

    /// The rest of a string that has escapes (or is broken), decoded.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, mut start: usize) -> Result<String> {
        let mut out = String::new();
        loop {
            self.skip_plain();
            let Some(b) = self.peek() else {
                return Err(self.err(Reason::EofString));
            };
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

    /// After `\u`: one character, from one escape or a surrogate pair. A
    /// surrogate that is not half of a pair reads as U+FFFD, as Go's decoder
    /// reads it (encoding/json decode.go `unquoteBytes`), and what follows it
    /// is read on its own: `JSON.stringify` writes a truncated emoji that way.
    fn unicode_escape(&mut self) -> Result<char> {
        let first = self.hex4()?;
        if !(0xD800..=0xDFFF).contains(&first) {
            return char::from_u32(first).ok_or_else(|| self.err(Reason::InvalidEscape));
        }
        let low = match self.bytes.get(self.at..self.at + 6) {
            Some([b'\\', b'u', digits @ ..]) if first <= 0xDBFF => hex_value(digits),
            _ => None,
        };
        match low.and_then(|low| surrogate_pair(first, low)) {
            Some(pair) => {
                self.at += 6;
                Ok(pair)
            }
            None => Ok(char::REPLACEMENT_CHARACTER),
        }
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
    /// decimal text (`lexical-core`'s parser in its `compact` build: what
    /// std's `f64::from_str`, serde_json's `float_roundtrip` parser and Go's
    /// `ParseFloat` all give, without std's power-of-five table).
    fn number(&mut self, positive: bool) -> Result<Number> {
        let start = if positive { self.at } else { self.at - 1 };
        let (significand, fits) = self.integer_part()?;
        let mut float = !fits | self.fraction()?;
        if let Some(b'e' | b'E') = self.peek() {
            float = true;
            if let Some(zero) = self.exponent(start, positive)? {
                return Ok(zero);
            }
        }
        if !float {
            if positive {
                return Ok(Number::from(significand));
            }
            // `-0` and anything below i64::MIN are floats, as in serde_json.
            let negated = (significand as i64).wrapping_neg();
            if negated < 0 {
                return Ok(Number::from(negated));
            }
        }
        self.float_of(start)
    }

    /// The integer digits: their value and whether it fits a `u64`.
    #[inline(always)]
    fn integer_part(&mut self) -> Result<(u64, bool)> {
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
        Ok((significand, fits))
    }

    /// A `.` and its digits, if there; whether there was one.
    #[inline(always)]
    fn fraction(&mut self) -> Result<bool> {
        if self.peek() != Some(b'.') {
            return Ok(false);
        }
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
        Ok(true)
    }

    /// The exponent after `e`/`E`. serde_json keeps it in an i32: an
    /// exponent that overflows it ends the number ([`Cursor::huge_exponent`]),
    /// whose value is then returned.
    fn exponent(&mut self, start: usize, positive: bool) -> Result<Option<Number>> {
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
        let mut exp: i32 = i32::from(d - b'0');
        while let Some(d @ b'0'..=b'9') = self.peek() {
            self.at += 1;
            match exp
                .checked_mul(10)
                .and_then(|e| e.checked_add(i32::from(d - b'0')))
            {
                Some(e) => exp = e,
                None => return self.huge_exponent(start, positive).map(Some),
            }
        }
        Ok(None)
    }

    /// An exponent past i32: serde_json refuses, at the digit that
    /// overflows, a non-zero number with a huge positive exponent; with a
    /// huge negative one (or a zero significand) the number is 0.
    #[cold]
    fn huge_exponent(&mut self, start: usize, positive: bool) -> Result<Number> {
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
        Ok(Number::from_f64(f).unwrap_or_else(|| Number::from(0u8)))
    }

    /// The number's text from `start` as the nearest `f64`. Already checked
    /// against the JSON grammar, which lexical accepts; it rounds
    /// correctly, as serde_json and Go's `ParseFloat` do.
    fn float_of(&self, start: usize) -> Result<Number> {
        let token = self.text.get(start..self.at).unwrap_or_default();
        match lexical_core::parse::<f64>(token.as_bytes())
            .ok()
            .and_then(Number::from_f64)
        {
            Some(n) => Ok(n),
            None => Err(self.err(Reason::NumberOutOfRange)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A surrogate outside a pair is U+FFFD and what follows it is read on
    /// its own, as Go's decoder reads it (serde_json refuses these).
    #[test]
    fn lone_surrogates_read_as_go_reads_them() {
        for (text, want) in [
            (r#""\ud83d""#, "\u{fffd}"),
            (r#""a\ud83dx""#, "a\u{fffd}x"),
            (r#""\ud83d\n""#, "\u{fffd}\n"),
            (r#""\ude00""#, "\u{fffd}"),
            (r#""\ude00\ud83d""#, "\u{fffd}\u{fffd}"),
            (r#""\ud83d\u0041""#, "\u{fffd}A"),
            (r#""\ud83d\ud83d\ude00""#, "\u{fffd}\u{1f600}"),
            (r#""\ud83d\u12""#, ""),
        ] {
            match from_str(text) {
                Ok(v) => assert_eq!(v, Value::String(want.into()), "{text}"),
                Err(e) => assert!(want.is_empty(), "{text}: {e}"),
            }
        }
    }

    #[test]
    fn strings_read_as_serde_json_reads_them() {
        for t in [
            r#""""#,
            r#""abc""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u4e2d\ud83d\ude00""#,
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
