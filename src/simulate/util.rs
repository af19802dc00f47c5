//! Small helpers shared by the simulator and the lifecycle replay: dialed
//! addresses, GOST's loose metadata getters, integer fields, CRC-32 and a
//! deterministic PRNG, built on Go's rules in [`crate::go`]. None of them
//! panics on any input.

use crate::go::coerce::{
    float64_to_int64, json_float64, json_int64, json_whole_number, parse_bool, parse_int,
};
use crate::go::duration::parse_duration;
use crate::go::net::{normalize_host, port_number, split_host_port};
use serde_json::Value;

/// A dialed address as the simulator matches it: Go's `SplitHostPort` of
/// the trimmed text, the host normalised ([`normalize_host`]) and a numeric
/// port ([`port_number`]). `None` when it has no such port.
pub fn host_and_port(addr: &str) -> Option<(String, i64)> {
    let (host, port) = split_host_port(addr.trim()).ok()?;
    let port = port_number(port).ok()?;
    Some((normalize_host(host), i64::from(port)))
}

/// The array under `key` of a JSON object; empty when there is none.
pub fn list_at<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string under `key` of a JSON object; `""` when there is none.
pub fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A value of a JSON metadata map as GOST's metadata finds it: keys
/// compared without ASCII case.
pub fn md_get<'a>(md: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    let obj = md?.as_object()?;
    obj.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
}

/// `mdutil.GetInt`: bool true -> 1, a number converted as Go's `int(v)`
/// (an integer literal exactly), a string by `strconv.Atoi`, else 0.
pub fn md_int(v: &Value) -> i64 {
    match v {
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => json_int64(n).unwrap_or_else(|| float64_to_int64(json_float64(n))),
        Value::String(s) => parse_int(s).unwrap_or(0),
        _ => 0,
    }
}

/// `mdutil.GetBool`: a bool, or a string `strconv.ParseBool` reads as true.
/// JSON numbers decode as floats, which GOST does not read as bools.
pub fn md_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => parse_bool(s) == Some(true),
        _ => false,
    }
}

/// `mdutil.GetDuration` in nanoseconds: numbers are whole seconds (Go's
/// `int(v)`), strings are Go durations (surrounding spaces ignored) or else
/// whole seconds by `strconv.Atoi`.
pub fn md_duration_ns(v: &Value) -> i128 {
    match v {
        Value::Number(n) => i128::from(float64_to_int64(json_float64(n))) * 1_000_000_000,
        Value::String(s) => match parse_duration(s.trim()) {
            Ok(d) if d != 0 => i128::from(d),
            _ => parse_int(s)
                .map(|n| i128::from(n) * 1_000_000_000)
                .unwrap_or(0),
        },
        _ => 0,
    }
}

/// An integer field of a plan or config: an integer-valued number
/// ([`json_whole_number`]); `None` for anything else.
pub fn json_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => json_whole_number(n),
        _ => None,
    }
}

/// A node id as a plan or the user names it: [`json_int`], or a numeric
/// string (trimmed, `strconv.ParseInt`).
pub fn loose_id(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => parse_int(s.trim()),
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
    fn crc() {
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn host_port() {
        assert_eq!(
            host_and_port("[2001:DB8::1]:443"),
            Some(("2001:db8::1".into(), 443))
        );
        assert_eq!(host_and_port(" 1.2.3.4:80 "), Some(("1.2.3.4".into(), 80)));
        assert_eq!(host_and_port("1.2.3.4"), None);
        assert_eq!(host_and_port(":99999"), None);
        assert_eq!(host_and_port("1.2.3.4:443:45003"), None);
        assert_eq!(host_and_port("::1:80"), None);
    }

    #[test]
    fn metadata_getters() {
        use serde_json::json;
        assert_eq!(md_int(&json!(true)), 1);
        assert_eq!(md_int(&json!(3.9)), 3);
        assert_eq!(md_int(&json!("7")), 7);
        assert_eq!(md_int(&json!(" 7")), 0);
        assert!(md_bool(&json!("T")));
        assert!(!md_bool(&json!(1)));
        assert_eq!(md_duration_ns(&json!(2.5)), 2_000_000_000);
        assert_eq!(md_duration_ns(&json!(" 1m ")), 60_000_000_000);
        assert_eq!(md_duration_ns(&json!("5")), 5_000_000_000);
        assert_eq!(md_duration_ns(&json!("x")), 0);
        assert_eq!(loose_id(&json!(" 12 ")), Some(12));
        assert_eq!(loose_id(&json!(12.0)), Some(12));
        assert_eq!(loose_id(&json!(12.5)), None);
    }
}
