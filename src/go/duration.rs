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

/// Go's `time.ParseDuration`: returns nanoseconds, `None` when Go rejects it.
pub fn parse_duration(input: &str) -> Option<i64> {
    let mut s = input.as_bytes();
    let mut neg = false;
    if let Some((&c, rest)) = s.split_first() {
        if c == b'-' || c == b'+' {
            neg = c == b'-';
            s = rest;
        }
    }
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while let Some(&c) = s.first() {
        if !(c == b'.' || c.is_ascii_digit()) {
            return None;
        }
        // Integer part.
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
        let pre = !digits.is_empty();
        s = rest;
        // Fraction.
        let mut frac: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if let Some(after_dot) = s.strip_prefix(b".") {
            let (digits, rest) = split_while(after_dot, |b| b.is_ascii_digit());
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
            post = !digits.is_empty();
            s = rest;
        }
        if !pre && !post {
            return None;
        }
        // Unit.
        let (unit_name, rest) = split_while(s, |b| b != b'.' && !b.is_ascii_digit());
        if unit_name.is_empty() {
            return None;
        }
        let unit: u64 = match unit_name {
            b"ns" => 1,
            b"us" => 1_000,
            b"\xc2\xb5s" => 1_000, // U+00B5 micro sign
            b"\xce\xbcs" => 1_000, // U+03BC Greek mu
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return None,
        };
        s = rest;
        if v > LIMIT / unit {
            return None;
        }
        v *= unit;
        if frac > 0 {
            let add = (frac as f64 * (unit as f64 / scale)) as u64;
            v = v.checked_add(add)?;
            if v > LIMIT {
                return None;
            }
        }
        total = total.checked_add(v)?;
        if total > LIMIT {
            return None;
        }
    }
    if neg {
        return (total as i128)
            .checked_neg()
            .and_then(|x| i64::try_from(x).ok());
    }
    if total > LIMIT - 1 {
        return None;
    }
    i64::try_from(total).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

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
            assert_eq!(parse_duration(text), Some(want), "{text:?}");
        }
    }

    /// `parseDurationErrorTests` of the same file, less the two rows that
    /// are not UTF-8 (`"\x85\x85"`, `"\xffff"`: a `&str` cannot hold them).
    #[test]
    fn go_table_refused() {
        for text in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "\u{FFFD}",
            "\u{FFFD} hello \u{FFFD} world",
            "9223372036854775810ns",
            "9223372036854775808ns",
            "-9223372036854775809ns",
            "9223372036854776us",
            "3000000h",
            "9223372036854775.808us",
            "9223372036854ms775us808ns",
            // Not in Go's table.
            "10 m",
            " 5s",
            "600",
            "9999999999h",
        ] {
            assert_eq!(parse_duration(text), None, "{text:?}");
        }
    }
}
