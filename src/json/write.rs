//! JSON text out: `serde_json::Value` printed as serde_json prints it.

use super::read::plain_len;
use serde_json::{Number, Value};
use std::fmt;

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
        // Negative: the sign, then the same digit writer as above.
        out.push('-');
        out.push_str(itoa::Buffer::new().format(i.unsigned_abs()));
    } else if let Some(f) = n.as_f64() {
        write_f64(f, out);
    }
}

/// A float as serde_json prints it: the shortest digits that read back
/// ([`shortest_digits`]), in plain notation with a `.0` or a
/// fraction when the decimal exponent is from -5 to 15 (`0.00001`,
/// `1500000000000000.0`, `123.456`), else as `1.5e+16` or `1e-6`.
pub(crate) fn write_f64(f: f64, out: &mut String) {
    if f.is_sign_negative() {
        out.push('-');
    }
    let Some((digits, point)) = shortest_digits(f) else {
        // Zero (JSON numbers are finite).
        out.push_str("0.0");
        return;
    };
    let digits = std::str::from_utf8(&digits).unwrap_or("0");
    let n = digits.len() as i32;
    let exp = point - 1; // of the first digit
    if (-5..=15).contains(&exp) {
        if point >= n {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (point - n) as usize));
            out.push_str(".0");
        } else if point > 0 {
            let (int, frac) = digits.split_at(point as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(digits);
        }
        return;
    }
    let (first, rest) = digits.split_at(1.min(digits.len()));
    out.push_str(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    out.push_str(if exp < 0 { "e-" } else { "e+" });
    out.push_str(itoa::Buffer::new().format(exp.unsigned_abs()));
}

/// The shortest decimal digits that read back as `f` (the digits Go's
/// `strconv` picks too), as `(digits, point)`: `f` is `0.DIGITS × 10^point`,
/// the digits without leading or trailing zeros; `None` for zero (and for
/// the non-finite values JSON has no text for). Taken from `ryu`'s text:
/// its `small` tables keep the `.wasm` smaller than serde_json's own printer
/// (`zmij`), which prints the same digits.
pub(crate) fn shortest_digits(f: f64) -> Option<(Vec<u8>, i32)> {
    if !f.is_finite() || f == 0.0 {
        return None;
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(f.abs()).as_bytes();
    // ryu writes the exponent as `e`, a sign if negative, and its digits.
    let (mantissa, exp) = match text.iter().position(|&b| b == b'e') {
        Some(e) => {
            let exp = text.get(e + 1..)?;
            let (negative, digits) = match exp.split_first() {
                Some((b'-', digits)) => (true, digits),
                Some((b'+', digits)) => (false, digits),
                _ => (false, exp),
            };
            let magnitude = digits
                .iter()
                .fold(0i32, |n, &d| n * 10 + i32::from(d.wrapping_sub(b'0')));
            (
                text.get(..e)?,
                if negative { -magnitude } else { magnitude },
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
/// (`push_str`, not `push`: `String::push` is not always inlined.)
#[allow(clippy::single_char_add_str)]
pub fn write_string(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    out.push_str("\"");
    let mut start = 0;
    loop {
        let end = start + plain_len(bytes.get(start..).unwrap_or_default());
        out.push_str(s.get(start..end).unwrap_or_default());
        // What stops a run is ASCII, so `end + 1` is a character boundary.
        let Some(&b) = bytes.get(end) else { break };
        match short_escape_of(b) {
            Some(short) => out.push_str(short),
            None => {
                out.push_str("\\u");
                push_hex(u32::from(b), 4, out);
            }
        }
        start = end + 1;
    }
    out.push_str("\"");
}

/// The length of [`write_string`]'s text for `s`, without writing it.
pub fn string_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut len = 2;
    let mut start = 0;
    loop {
        let end = start + plain_len(bytes.get(start..).unwrap_or_default());
        len += end - start;
        let Some(&b) = bytes.get(end) else { break };
        len += short_escape_of(b).map_or(6, str::len);
        start = end + 1;
    }
    len
}

/// The last `digits` hex digits of `value`, lowercase, zero-padded (what
/// `{:0N$x}` prints for a value that fits): the `\\u00XX` and `\\xXX`
/// escapes of the JSON, Go JSON and Go `time` writers.
pub(crate) fn push_hex(value: u32, digits: u32, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        let nibble = value.checked_shr(4 * i).unwrap_or(0) & 15;
        out.push(char::from(
            HEX.get(nibble as usize).copied().unwrap_or(b'0'),
        ));
    }
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

    /// `values` and the hard cases both float tests walk: every power of
    /// ten and of two and their neighbours, subnormals, short decimals and
    /// random bit patterns.
    fn with_sweeps(mut values: Vec<f64>) -> Vec<f64> {
        for k in -330..=310 {
            for m in [
                1.0,
                1.5,
                2.5,
                9.5,
                9.999999999999999,
                5.0,
                1.2345678901234567,
            ] {
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
        values
    }

    /// Floats print byte for byte as serde_json prints them: special
    /// values, every power of ten and of two, the ends of the plain range,
    /// ties, subnormals, short decimals and random bit patterns.
    #[test]
    fn floats_print_as_serde_json_prints_them() {
        let values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.2,
            0.3,
            1.5,
            123.456,
            1e15,
            1e16,
            9.999999999999999e15,
            1e-5,
            1e-6,
            9.99e-6,
            1.5e-5,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            1e-323,
            2.2250738585072009e-308,
            9007199254740993.0,
            -1149636667324797.25,
            1e21,
            1e22,
            1e23,
            4.35,
            0.3e-300,
            1.7976931348623157e308,
            2.5e-8,
        ];
        let values = with_sweeps(values);
        let mut checked = 0;
        for f in values {
            let Some(n) = Number::from_f64(f) else {
                continue;
            };
            let mut ours = String::new();
            write_f64(f, &mut ours);
            assert_eq!(ours, n.to_string(), "{f:e} ({:#x})", f.to_bits());
            checked += 1;
        }
        assert!(checked > 120_000, "{checked}");
    }

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
        let values = vec![
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
        let values = with_sweeps(values);
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
                // upper one, ryu, zmij and Go the even one.
                assert!(digits.last().is_some_and(|d| d % 2 == 0), "{f:e}");
            }
            checked += 1;
        }
        assert_eq!(shortest_digits(-0.5), Some((b"5".to_vec(), 0)));
        assert_eq!(shortest_digits(1500.0), Some((b"15".to_vec(), 4)));
        assert!(checked > 120_000, "{checked}");
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
}
