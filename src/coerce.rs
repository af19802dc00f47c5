//! Loose value coercion, reproducing the panel server's `asString` / `asInt`
//! helpers: the server decodes request bodies into untyped JSON (numbers are
//! float64), then reads each field through these rules.

use serde_json::{Map, Value};

/// A JSON number as the server sees it: always a float64.
fn number_as_f64(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// True when `f` survives a round trip through a 64-bit signed integer, the
/// test the server applies before printing a number as an integer.
fn is_int64_exact(f: f64) -> bool {
    f.is_finite() && f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
}

/// The server's `asString`: trimmed strings, integral numbers without a
/// fraction, other numbers in shortest plain decimal form, everything else
/// as compact JSON with surrounding quotes stripped; null and absent are "".
pub fn go_string(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => {
            let f = number_as_f64(n);
            if is_int64_exact(f) {
                format!("{}", f as i64)
            } else {
                // Rust's Display for f64 is the shortest round-trip form without an exponent.
                format!("{}", f)
            }
        }
        Some(other) => {
            let text = go_json(other);
            text.trim_matches('"').to_string()
        }
    }
}

/// The server's `asInt` / `asInt64`: `go_string`, then a strict base-10
/// parse; anything else gives `default`.
pub fn go_int(v: Option<&Value>, default: i64) -> i64 {
    let s = go_string(v);
    if s.is_empty() {
        return default;
    }
    s.parse::<i64>().unwrap_or(default)
}

/// The server's `defaultString`: `def` when `v` is blank, else `v` unchanged.
pub fn default_string(v: &str, def: &str) -> String {
    if v.trim().is_empty() {
        def.to_string()
    } else {
        v.to_string()
    }
}

/// The server's `asMapSlice`: the objects of an array, skipping non-objects.
pub fn map_slice(v: Option<&Value>) -> Vec<&Map<String, Value>> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

/// The server's `asAnySlice`: the items of an array, or nothing.
pub fn any_slice(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(items)) => items.as_slice(),
        _ => &[],
    }
}

/// Compact JSON the way Go's `encoding/json` writes an untyped value: keys
/// sorted, HTML-sensitive characters escaped, float64 number formatting.
pub fn go_json(v: &Value) -> String {
    let mut out = String::new();
    write_go_json(v, &mut out);
    out
}

fn write_go_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&go_float(number_as_f64(n))),
        Value::String(s) => write_go_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            // serde_json's map (no `preserve_order`) is a BTreeMap: its keys
            // come in byte order, the order Go's encoder sorts them into.
            for (i, (k, val)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_string(k, out);
                out.push(':');
                write_go_json(val, out);
            }
            out.push('}');
        }
    }
}

/// float64 as Go's JSON encoder prints it: plain decimal, or exponent form
/// (`1e+21`, `1e-7`) outside [1e-6, 1e21).
fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{:e}", f);
        match s.split_once('e') {
            Some((mant, exp)) => {
                let (sign, digits) = match exp.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', exp),
                };
                let digits = if sign == '+' && digits.len() < 2 { format!("0{}", digits) } else { digits.to_string() };
                format!("{}e{}{}", mant, sign, digits)
            }
            None => s,
        }
    } else {
        format!("{}", f)
    }
}

fn write_go_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `strings.EqualFold` against an ASCII lowercase word: ASCII case is
/// ignored, and the two non-ASCII letters that fold onto ASCII ones (Kelvin
/// sign for k, long s for s) count as those letters.
pub fn equal_fold_ascii(s: &str, word: &str) -> bool {
    let mut a = s.chars();
    let mut b = word.chars();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let same = x.to_ascii_lowercase() == y
                    || (x == '\u{212A}' && y == 'k')
                    || (x == '\u{17F}' && y == 's');
                if !same {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// Go's `strings.ToLower` compared with an ASCII lowercase word.
pub fn lower_equals(s: &str, word: &str) -> bool {
    s.to_lowercase() == word
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_numbers_and_others() {
        assert_eq!(go_string(Some(&json!("  a b "))), "a b");
        assert_eq!(go_string(Some(&json!(5))), "5");
        assert_eq!(go_string(Some(&json!(5.0))), "5");
        assert_eq!(go_string(Some(&json!(5.5))), "5.5");
        assert_eq!(go_string(Some(&json!(1e21))), "1000000000000000000000");
        assert_eq!(go_string(Some(&json!(true))), "true");
        assert_eq!(go_string(Some(&json!(["a"]))), "[\"a\"]");
        assert_eq!(go_string(Some(&json!("\"x\""))), "\"x\"");
        assert_eq!(go_string(None), "");
        assert_eq!(go_json(&json!({"b": "<", "a": 1e-7})), "{\"a\":1e-7,\"b\":\"\\u003c\"}");
    }

    #[test]
    fn ints() {
        assert_eq!(go_int(Some(&json!(" 42 ")), 0), 42);
        assert_eq!(go_int(Some(&json!("+7")), 0), 7);
        assert_eq!(go_int(Some(&json!("4.0")), -1), -1);
        assert_eq!(go_int(Some(&json!(4.5)), -1), -1);
        assert_eq!(go_int(Some(&json!(4.0)), -1), 4);
        assert_eq!(go_int(Some(&json!("x")), 3), 3);
        assert_eq!(go_int(Some(&json!(null)), 3), 3);
        assert_eq!(go_int(Some(&json!("99999999999999999999")), 3), 3);
    }

    #[test]
    fn folding() {
        assert!(equal_fold_ascii("KCP", "kcp"));
        assert!(equal_fold_ascii("\u{212A}cp", "kcp"));
        assert!(equal_fold_ascii("BE\u{17F}T", "best"));
        assert!(!equal_fold_ascii("kcpx", "kcp"));
        assert!(lower_equals("TLS", "tls"));
    }
}
