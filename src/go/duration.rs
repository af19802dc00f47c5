//! Go's `time.ParseDuration`, which the agent applies to duration strings
//! (service selectors, metadata): used by the checker (AC002, AC003) and the
//! simulator (`failTimeout` and friends).

/// Splits `s` at the first byte that fails `keep`: (the run of bytes that
/// pass, the rest).
fn split_while(s: &[u8], keep: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let n = s.iter().position(|&b| !keep(b)).unwrap_or(s.len());
    // `n <= s.len()` always, so the fallback is never taken.
    s.split_at_checked(n).unwrap_or((s, &[]))
}

/// Why Go's `time.ParseDuration` refuses a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError {
    pub kind: DurationFault,
    /// The string refused.
    pub input: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationFault {
    /// Bad syntax or out of range.
    Invalid,
    /// A number without a unit (`"3"`).
    MissingUnit,
    /// The unit given (`"d"` in `"1d"`).
    UnknownUnit(String),
}

impl DurationError {
    /// Go's own message.
    pub fn en(&self) -> String {
        let input = quote(&self.input);
        match &self.kind {
            DurationFault::Invalid => format!("time: invalid duration {input}"),
            DurationFault::MissingUnit => format!("time: missing unit in duration {input}"),
            DurationFault::UnknownUnit(u) => {
                format!("time: unknown unit {} in duration {input}", quote(u))
            }
        }
    }

    pub fn zh(&self) -> String {
        let input = quote(&self.input);
        match &self.kind {
            DurationFault::Invalid => format!("时长 {input} 无效"),
            DurationFault::MissingUnit => format!("时长 {input} 缺少单位"),
            DurationFault::UnknownUnit(u) => format!("时长 {input} 的单位 {} 未知", quote(u)),
        }
    }
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en())
    }
}

/// The `time` package's `quote`: in double quotes, `"` and `\` escaped,
/// and every byte of a control or non-ASCII character as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str("\\x");
                crate::json::push_hex(u32::from(b), 2, &mut out);
            }
        }
    }
    out.push('"');
    out
}

/// Go's `time.ParseDuration`: nanoseconds, or Go's reason for refusing.
pub fn parse_duration(input: &str) -> Result<i64, DurationError> {
    let fail = |kind: DurationFault| DurationError {
        kind,
        input: input.to_string(),
    };
    let invalid = || fail(DurationFault::Invalid);
    let mut s = input.as_bytes();
    let mut neg = false;
    if let Some((&c, rest)) = s.split_first() {
        if c == b'-' || c == b'+' {
            neg = c == b'-';
            s = rest;
        }
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        let (v, rest) = leading_term(s).map_err(fail)?;
        s = rest;
        total = total.checked_add(v).ok_or_else(invalid)?;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return 0i64.checked_sub_unsigned(total).ok_or_else(invalid);
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// The magnitude of the largest duration, `-i64::MIN`: each term and the
/// running total must stay within it.
const LIMIT: u64 = 1 << 63;

/// One `[0-9]*(\.[0-9]*)?unit` term at the start of `s`, in nanoseconds,
/// and the rest of `s`.
fn leading_term(s: &[u8]) -> Result<(u64, &[u8]), DurationFault> {
    use DurationFault::Invalid;
    match s.first() {
        Some(&c) if c == b'.' || c.is_ascii_digit() => {}
        _ => return Err(Invalid),
    }
    // Integer part.
    let (mut v, rest) = leading_int(s).ok_or(Invalid)?;
    let pre = rest.len() != s.len();
    let mut s = rest;
    // Fraction.
    let (frac, scale, post) = match s.strip_prefix(b".") {
        Some(after_dot) => {
            let (frac, scale, rest) = leading_fraction(after_dot);
            let post = rest.len() != after_dot.len();
            s = rest;
            (frac, scale, post)
        }
        None => (0, 1.0, false),
    };
    if !pre && !post {
        return Err(Invalid);
    }
    // Unit.
    let (unit_name, rest) = split_while(s, |b| b != b'.' && !b.is_ascii_digit());
    if unit_name.is_empty() {
        return Err(DurationFault::MissingUnit);
    }
    let unit = unit_nanos(unit_name)?;
    if v > LIMIT / unit {
        return Err(Invalid);
    }
    v *= unit;
    if frac > 0 {
        let add = (frac as f64 * (unit as f64 / scale)) as u64;
        v = v.checked_add(add).ok_or(Invalid)?;
        if v > LIMIT {
            return Err(Invalid);
        }
    }
    Ok((v, rest))
}

/// Go's `leadingInt`: the leading digits of `s` as a number and the rest
/// of `s`; `None` past [`LIMIT`].
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let (digits, rest) = split_while(s, |b| b.is_ascii_digit());
    let mut v: u64 = 0;
    for &d in digits {
        if v > LIMIT / 10 {
            return None;
        }
        v = v * 10 + u64::from(d - b'0');
        if v > LIMIT {
            return None;
        }
    }
    Some((v, rest))
}

/// Go's `leadingFraction`: the leading digits of `s` as a fraction
/// `frac / scale`, and the rest of `s`. Digits past what fits are consumed
/// and dropped.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let (digits, rest) = split_while(s, |b| b.is_ascii_digit());
    let mut frac: u64 = 0;
    let mut scale: f64 = 1.0;
    let mut overflow = false;
    for &d in digits {
        if overflow {
            continue;
        }
        if frac > (i64::MAX as u64) / 10 {
            overflow = true;
        } else {
            let y = frac * 10 + u64::from(d - b'0');
            if y > LIMIT {
                overflow = true;
            } else {
                frac = y;
                scale *= 10.0;
            }
        }
    }
    (frac, scale, rest)
}

/// Go's `unitMap`: the nanoseconds of one `unit`.
fn unit_nanos(unit: &[u8]) -> Result<u64, DurationFault> {
    Ok(match unit {
        b"ns" => 1,
        b"us" => 1_000,
        b"\xc2\xb5s" => 1_000, // U+00B5 micro sign
        b"\xce\xbcs" => 1_000, // U+03BC Greek mu
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        other => {
            let unit = String::from_utf8_lossy(other).into_owned();
            return Err(DurationFault::UnknownUnit(unit));
        }
    })
}

/// Go's `time.Duration.String`: `"10m0s"`, `"1.5s"`, `"2.2ms"`, `"0s"`.
pub fn format_duration(ns: i64) -> String {
    /// `whole.frac` of `u / scale`, trailing zeros of the fraction dropped.
    fn scaled(u: u64, scale: u64, out: &mut String) {
        out.push_str(&(u / scale).to_string());
        let rem = u % scale;
        if rem > 0 {
            let width = scale.ilog10() as usize;
            let digits = format!("{rem:0width$}");
            out.push('.');
            out.push_str(digits.trim_end_matches('0'));
        }
    }
    if ns == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    if ns < 0 {
        out.push('-');
    }
    let u = ns.unsigned_abs();
    const SECOND: u64 = 1_000_000_000;
    if u < SECOND {
        let (scale, unit) = match u {
            0..=999 => (1, "ns"),
            1_000..=999_999 => (1_000, "µs"),
            _ => (1_000_000, "ms"),
        };
        scaled(u, scale, &mut out);
        out.push_str(unit);
        return out;
    }
    let (hours, minutes) = (u / (3600 * SECOND), u / (60 * SECOND) % 60);
    if hours > 0 {
        out.push_str(&format!("{hours}h"));
    }
    if hours > 0 || minutes > 0 {
        out.push_str(&format!("{minutes}m"));
    }
    scaled(u % (60 * SECOND), SECOND, &mut out);
    out.push('s');
    out
}

#[cfg(test)]
mod tests {
    use super::{format_duration, parse_duration};

    const NS: i64 = 1;
    const US: i64 = 1_000;
    const MS: i64 = 1_000_000;
    const S: i64 = 1_000_000_000;
    const M: i64 = 60 * S;
    const H: i64 = 60 * M;

    /// `parseDurationTests` of Go's `src/time/time_test.go` (golang/go).
    #[test]
    fn go_table_accepted() {
        let table = [
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600 * MS),
            ("5.s", 5 * S),
            (".5s", 500 * MS),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4 * MS),
            ("1.0040s", S + 4 * MS),
            ("100.00100s", 100 * S + MS),
            ("10ns", 10 * NS),
            ("11us", 11 * US),
            ("12\u{b5}s", 12 * US),
            ("12\u{3bc}s", 12 * US),
            ("13ms", 13 * MS),
            ("14s", 14 * S),
            ("15m", 15 * M),
            ("16h", 16 * H),
            ("3h30m", 3 * H + 30 * M),
            ("10.5s4m", 4 * M + 10 * S + 500 * MS),
            ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
            (
                "1h2m3s4ms5us6ns",
                H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS,
            ),
            ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
            ("52763797000ns", 52_763_797_000 * NS),
            ("0.3333333333333333333h", 20 * M),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 6 * M),
            (
                "0.830103483285477580700h",
                49 * M + 48 * S + 372_539_827 * NS,
            ),
        ];
        for (text, want) in table {
            assert_eq!(parse_duration(text), Ok(want), "{text:?}");
        }
    }

    /// `parseDurationErrorTests` of the same file: Go checks that the
    /// message holds the quoted input. The two rows that are not UTF-8
    /// (`"\\x85\\x85"`, `"\\xffff"`) are left out: a `&str` cannot hold them.
    #[test]
    fn go_table_refused() {
        let table = [
            ("", r#""""#),
            ("3", r#""3""#),
            ("-", r#""-""#),
            ("s", r#""s""#),
            (".", r#"".""#),
            ("-.", r#""-.""#),
            (".s", r#"".s""#),
            ("+.s", r#""+.s""#),
            ("1d", r#""1d""#),
            ("\u{FFFD}", r#""\xef\xbf\xbd""#),
            (
                "\u{FFFD} hello \u{FFFD} world",
                r#""\xef\xbf\xbd hello \xef\xbf\xbd world""#,
            ),
            ("9223372036854775810ns", r#""9223372036854775810ns""#),
            ("9223372036854775808ns", r#""9223372036854775808ns""#),
            ("-9223372036854775809ns", r#""-9223372036854775809ns""#),
            ("9223372036854776us", r#""9223372036854776us""#),
            ("3000000h", r#""3000000h""#),
            ("9223372036854775.808us", r#""9223372036854775.808us""#),
            (
                "9223372036854ms775us808ns",
                r#""9223372036854ms775us808ns""#,
            ),
        ];
        for (text, expect) in table {
            let err = parse_duration(text).unwrap_err();
            assert!(err.en().contains(expect), "{text:?}: {}", err.en());
            assert!(err.zh().contains(expect), "{text:?}: {}", err.zh());
        }
        // Not in Go's table.
        for text in ["10 m", " 5s", "9999999999h"] {
            assert!(parse_duration(text).is_err(), "{text:?}");
        }
    }

    /// Go's three messages, word for word (`src/time/format.go`).
    #[test]
    fn messages() {
        let en = |t: &str| parse_duration(t).unwrap_err().en();
        assert_eq!(en("3"), r#"time: missing unit in duration "3""#);
        assert_eq!(en("1d"), r#"time: unknown unit "d" in duration "1d""#);
        assert_eq!(en("x"), r#"time: invalid duration "x""#);
        assert_eq!(
            en("1µ"),
            r#"time: unknown unit "\xc2\xb5" in duration "1\xc2\xb5""#
        );
        assert_eq!(en("\"1s"), r#"time: invalid duration "\"1s""#);
        assert_eq!(
            parse_duration("1d").unwrap_err().zh(),
            r#"时长 "1d" 的单位 "d" 未知"#
        );
    }

    /// `durationTests` of Go's `src/time/time_test.go` (TestDurationString).
    #[test]
    fn formats_as_go_prints_a_duration() {
        const S: i64 = 1_000_000_000;
        const M: i64 = 60 * S;
        const H: i64 = 60 * M;
        for (text, ns) in [
            ("0s", 0),
            ("1ns", 1),
            ("1.1µs", 1100),
            ("2.2ms", 2_200_000),
            ("3.3s", 3_300_000_000),
            ("4m5s", 4 * M + 5 * S),
            ("4m5.001s", 4 * M + 5001 * 1_000_000),
            ("5h6m7.001s", 5 * H + 6 * M + 7001 * 1_000_000),
            ("8m0.000000001s", 8 * M + 1),
            ("2562047h47m16.854775807s", i64::MAX),
            ("-2562047h47m16.854775808s", i64::MIN),
        ] {
            assert_eq!(format_duration(ns), text, "{ns}");
            if ns != i64::MIN {
                assert_eq!(parse_duration(text), Ok(ns), "{text}");
            }
        }
        assert_eq!(format_duration(600 * S), "10m0s");
    }
}
