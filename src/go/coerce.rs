//! Go's number and text conversions as the server and the agent apply them
//! to JSON values. Each function names the Go code it mirrors; where two
//! readers follow two different Go rules they use two different functions.

use serde_json::Number;

/// A JSON number as Go's untyped decoder (`json.Unmarshal` into `any`)
/// holds it: a float64.
pub fn json_float64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// Go's `int64(f)` where the server accepts it, `f == float64(int64(f))`:
/// integral and inside [-2^63, 2^63) (the only cut-off; every integral
/// float64 in that range converts exactly).
pub fn float64_to_int64_exact(f: f64) -> Option<i64> {
    let exact = f.is_finite()
        && f.fract() == 0.0
        && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f);
    // In range and integral, so `as` is exact.
    exact.then_some(f as i64)
}

/// Go's conversion `int64(f)` (and `int(f)` on 64-bit): truncation toward
/// zero. Outside the int64 range Go's result is platform-specific; this
/// saturates (NaN gives 0).
pub fn float64_to_int64(f: f64) -> i64 {
    f as i64
}

/// `encoding/json` decoding a number into an `int`/`int64` field: the
/// literal must be an integer that fits (`strconv.ParseInt` of the literal;
/// `5.0` and `1e3` are decode errors).
pub fn json_int64(n: &Number) -> Option<i64> {
    n.as_i64()
}

/// An integer-valued JSON number, wherever it came from: an integer literal
/// exactly as [`json_int64`] reads it, else a float that holds an integer
/// (a JSON `5.0`, or any number that came through JavaScript, which has only
/// floats) by [`float64_to_int64_exact`].
pub fn json_whole_number(n: &Number) -> Option<i64> {
    json_int64(n).or_else(|| n.as_f64().and_then(float64_to_int64_exact))
}

/// An integer field of a plan or config: an integer-valued number
/// ([`json_whole_number`]); `None` for anything else.
pub(crate) fn json_int<N: crate::json::node::Node>(v: &N) -> Option<i64> {
    v.number().and_then(json_whole_number)
}

/// A node id as a plan or the user names it: [`json_int`], or a numeric
/// string (trimmed, [`parse_int`]).
pub(crate) fn loose_id<N: crate::json::node::Node>(v: &N) -> Option<i64> {
    match v.shape() {
        crate::json::node::Shape::Str(s) => id_text(s),
        _ => json_int(v),
    }
}

/// A node id written as text: trimmed, then [`parse_int`].
pub(crate) fn id_text(s: &str) -> Option<i64> {
    parse_int(s.trim())
}

/// Go's `strconv.ParseInt(s, 10, 64)` (and `strconv.Atoi`): an optional
/// sign and decimal digits, no spaces or underscores, inside the int64
/// range. Rust's `i64` parser takes exactly that syntax.
pub fn parse_int(s: &str) -> Option<i64> {
    s.parse().ok()
}

/// Go's `strconv.ParseBool`.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node id from either tree: a whole number or a numeric string.
    #[test]
    fn ids() {
        use serde_json::json;
        assert_eq!(loose_id(&json!(" 12 ")), Some(12));
        assert_eq!(loose_id(&json!(12.0)), Some(12));
        assert_eq!(loose_id(&json!(12.5)), None);
        let arena = crate::json::tree::Arena::new();
        for (text, id) in [
            ("\" 12 \"", Some(12)),
            ("12.0", Some(12)),
            ("12.5", None),
            ("true", None),
        ] {
            let tree = crate::json::tree::read(text, &arena).unwrap();
            assert_eq!(loose_id(&tree), id, "{text}");
        }
    }

    /// `parseInt64Tests` of Go's `src/strconv/atoi_test.go` (golang/go);
    /// `None` stands for both ErrSyntax and ErrRange. The last row is ours.
    #[test]
    fn parse_int_go_table() {
        let table: [(&str, Option<i64>); 26] = [
            ("", None),
            ("0", Some(0)),
            ("-0", Some(0)),
            ("+0", Some(0)),
            ("1", Some(1)),
            ("-1", Some(-1)),
            ("+1", Some(1)),
            ("12345", Some(12345)),
            ("-12345", Some(-12345)),
            ("012345", Some(12345)),
            ("-012345", Some(-12345)),
            ("98765432100", Some(98_765_432_100)),
            ("-98765432100", Some(-98_765_432_100)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775807", Some(-i64::MAX)),
            ("9223372036854775808", None),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775809", None),
            ("-9223372036854775809", None),
            ("-1_2_3_4_5", None),
            ("-_12345", None),
            ("_12345", None),
            ("1__2345", None),
            ("12345_", None),
            ("123%45", None),
            (" 1", None),
        ];
        for (s, want) in table {
            assert_eq!(parse_int(s), want, "{s:?}");
        }
    }

    /// `atobtests` of Go's `src/strconv/atob_test.go` (golang/go), written
    /// from `ParseBool`'s documented behaviour (the file was not looked up);
    /// the last two rows are ours.
    #[test]
    fn parse_bool_go_table() {
        let table = [
            ("", None),
            ("asdf", None),
            ("0", Some(false)),
            ("f", Some(false)),
            ("F", Some(false)),
            ("FALSE", Some(false)),
            ("false", Some(false)),
            ("False", Some(false)),
            ("1", Some(true)),
            ("t", Some(true)),
            ("T", Some(true)),
            ("TRUE", Some(true)),
            ("true", Some(true)),
            ("True", Some(true)),
            ("tRUE", None),
            ("yes", None),
        ];
        for (s, want) in table {
            assert_eq!(parse_bool(s), want, "{s:?}");
        }
    }

    #[test]
    fn float_to_int() {
        assert_eq!(float64_to_int64_exact(4.0), Some(4));
        assert_eq!(float64_to_int64_exact(-0.0), Some(0));
        assert_eq!(float64_to_int64_exact(4.5), None);
        assert_eq!(float64_to_int64_exact(1e16), Some(10_000_000_000_000_000));
        assert_eq!(float64_to_int64_exact(-(2f64.powi(63))), Some(i64::MIN));
        assert_eq!(float64_to_int64_exact(2f64.powi(63)), None);
        assert_eq!(float64_to_int64_exact(f64::NAN), None);
        assert_eq!(float64_to_int64_exact(f64::INFINITY), None);
        assert_eq!(float64_to_int64(4.9), 4);
        assert_eq!(float64_to_int64(-4.9), -4);
        assert_eq!(float64_to_int64(f64::NAN), 0);
        assert_eq!(float64_to_int64(1e300), i64::MAX);
    }

    #[test]
    fn json_numbers() {
        let n = |t: &str| serde_json::from_str::<Number>(t).unwrap();
        assert_eq!(json_int64(&n("5")), Some(5));
        assert_eq!(json_int64(&n("5.0")), None);
        assert_eq!(json_int64(&n("1e3")), None);
        assert_eq!(json_int64(&n("9223372036854775808")), None);
        assert_eq!(json_whole_number(&n("5.0")), Some(5));
        assert_eq!(json_whole_number(&n("1e3")), Some(1000));
        assert_eq!(json_whole_number(&n("5.5")), None);
        // An integer literal stays exact past 2^53.
        assert_eq!(
            json_whole_number(&n("9007199254740993")),
            Some(9_007_199_254_740_993)
        );
        assert_eq!(json_whole_number(&n("18446744073709551615")), None);
        assert_eq!(json_whole_number(&n("1e19")), None);
        // Go's untyped decoder rounds to a float64.
        assert_eq!(
            json_float64(&n("9007199254740993")),
            9_007_199_254_740_992.0
        );
    }
}
