//! Small helpers shared by the simulator and the lifecycle replay: address
//! splitting, Go duration parsing, GOST's loose metadata getters, CRC-32 and a
//! deterministic PRNG. None of them panics on any input.

use serde_json::Value;

/// Splits `host:port` (`[v6]:port` too) into a lower-cased host without
/// brackets and the port. `None` when there is no numeric port.
pub fn split_host_port(addr: &str) -> Option<(String, i64)> {
    let addr = addr.trim();
    let (host, port) = addr.rsplit_once(':')?;
    let port: i64 = port.parse().ok()?;
    if !(0..=65535).contains(&port) {
        return None;
    }
    let bracketed = host.starts_with('[') && host.ends_with(']');
    if !bracketed && host.contains(':') {
        // Go's SplitHostPort: "too many colons".
        return None;
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Some((host.to_ascii_lowercase(), port))
}

/// Normalises a host for comparisons: trimmed, brackets removed, lower case.
pub fn norm_host(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// A duration string (surrounding spaces ignored) in nanoseconds, by Go's
/// `time.ParseDuration`; `None` where Go rejects it.
pub fn parse_go_duration(s: &str) -> Option<i128> {
    crate::duration::parse_go_duration(s.trim()).map(i128::from)
}

/// GOST `mdutil.GetInt` over a JSON metadata map (keys compared case-insensitively).
pub fn md_get<'a>(md: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    let obj = md?.as_object()?;
    let key = key.to_ascii_lowercase();
    obj.iter()
        .find(|(k, _)| k.to_ascii_lowercase() == key)
        .map(|(_, v)| v)
}

/// `mdutil.GetInt`: bool true -> 1, number truncated, numeric string, else 0.
pub fn md_int(v: &Value) -> i64 {
    match v {
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .unwrap_or(0),
        Value::String(s) => s.parse().unwrap_or(0),
        _ => 0,
    }
}

/// `mdutil.GetBool`: JSON numbers decode as floats, which GOST does not read as bools.
pub fn md_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.as_str(), "1" | "t" | "T" | "TRUE" | "true" | "True"),
        _ => false,
    }
}

/// `mdutil.GetDuration` in nanoseconds: numbers are seconds, strings are Go
/// durations or else whole seconds.
pub fn md_duration_ns(v: &Value) -> i128 {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map(|f| (f as i64 as i128) * 1_000_000_000)
            .unwrap_or(0),
        Value::String(s) => match parse_go_duration(s) {
            Some(d) if d != 0 => d,
            _ => s
                .parse::<i64>()
                .map(|n| n as i128 * 1_000_000_000)
                .unwrap_or(0),
        },
        _ => 0,
    }
}

/// Integer value of a JSON field the way Go's decoder would fill an `int`
/// (a non-integral number or another type is a decode error: `None`).
pub fn json_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18)
                .map(|f| f as i64)
        }),
        _ => None,
    }
}

/// Node id from a loose value: a JSON integer or a numeric string.
pub fn loose_id(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        other => json_int(other),
    }
}

/// CRC-32 (IEEE), as Go's `crc32.ChecksumIEEE`.
pub fn crc32_ieee(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// A small deterministic PRNG (SplitMix64) standing in for GOST's time-seeded `math/rand`.
#[derive(Debug, Clone)]
pub struct Prng(u64);

impl Prng {
    pub fn new(seed: u64) -> Self {
        Prng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; returns 0 otherwise).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_go_duration("600s"), Some(600_000_000_000));
        assert_eq!(parse_go_duration("1m30s"), Some(90_000_000_000));
        assert_eq!(parse_go_duration("1.5h"), Some(5_400_000_000_000));
        assert_eq!(parse_go_duration("10"), None);
        assert_eq!(parse_go_duration("x"), None);
        assert_eq!(parse_go_duration(""), None);
    }

    #[test]
    fn crc() {
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn host_port() {
        assert_eq!(
            split_host_port("[2001:DB8::1]:443"),
            Some(("2001:db8::1".into(), 443))
        );
        assert_eq!(split_host_port("1.2.3.4:80"), Some(("1.2.3.4".into(), 80)));
        assert_eq!(split_host_port("1.2.3.4"), None);
        assert_eq!(split_host_port(":99999"), None);
        assert_eq!(split_host_port("1.2.3.4:443:45003"), None);
        assert_eq!(split_host_port("::1:80"), None);
    }
}
