//! Go's `time.ParseDuration`, which the agent applies to duration strings
//! (service selectors, metadata): shared by the checker (AC003) and the
//! simulator (`failTimeout` and friends).

/// Splits `s` at the first byte that fails `keep`: (the run of bytes that
/// pass, the rest).
fn split_while(s: &[u8], keep: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let n = s.iter().position(|&b| !keep(b)).unwrap_or(s.len());
    // `n <= s.len()` always, so the fallback is never taken.
    s.split_at_checked(n).unwrap_or((s, &[]))
}

/// Go's `time.ParseDuration`: returns nanoseconds, `None` when Go rejects it.
pub fn parse_go_duration(input: &str) -> Option<i64> {
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
