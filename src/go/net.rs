//! Go's `net` rules for addresses as the agent applies them: `SplitHostPort`,
//! IP literals (`ParseIP`, and the zone-carrying form a dial or listen host
//! may take), `isDomainName`, plus the host form this crate compares hosts in.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why Go's `net.SplitHostPort` refuses an address (its `AddrError.Err`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrError {
    MissingPort,
    MissingCloseBracket,
    TooManyColons,
    UnexpectedOpenBracket,
    UnexpectedCloseBracket,
}

impl AddrError {
    /// Go's own message.
    pub fn en(self) -> &'static str {
        match self {
            AddrError::MissingPort => "missing port in address",
            AddrError::MissingCloseBracket => "missing ']' in address",
            AddrError::TooManyColons => "too many colons in address",
            AddrError::UnexpectedOpenBracket => "unexpected '[' in address",
            AddrError::UnexpectedCloseBracket => "unexpected ']' in address",
        }
    }

    pub fn zh(self) -> &'static str {
        match self {
            AddrError::MissingPort => "地址缺少端口",
            AddrError::MissingCloseBracket => "地址缺少 ']'",
            AddrError::TooManyColons => "地址中冒号过多（IPv6 地址需加方括号）",
            AddrError::UnexpectedOpenBracket => "地址中出现多余的 '['",
            AddrError::UnexpectedCloseBracket => "地址中出现多余的 ']'",
        }
    }
}

impl fmt::Display for AddrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.en())
    }
}

/// Go's `net.JoinHostPort`: `host:port`, the host bracketed when it holds
/// a colon.
pub fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Go's `net.SplitHostPort`: `(host, port)` (brackets removed from the
/// host), or Go's reason for refusing.
///
/// The checker reads every listen and dial address of a config, so one
/// pass notes where the colons and brackets are; Go's checks then run on
/// those positions, in Go's order.
pub fn split_host_port(hostport: &str) -> Result<(&str, &str), AddrError> {
    let b = hostport.as_bytes();
    let (mut last_colon, mut colons) = (None, 0usize);
    let (mut first_close, mut closes) = (None, 0usize);
    // A '[' anywhere but at the start.
    let mut inner_open = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b':' => {
                last_colon = Some(i);
                colons += 1;
            }
            b']' => {
                first_close = first_close.or(Some(i));
                closes += 1;
            }
            b'[' => inner_open |= i > 0,
            _ => {}
        }
    }
    let Some(colon) = last_colon else {
        return Err(AddrError::MissingPort);
    };
    // `stray_close`: a ']' after the host's own (Go looks from just past it).
    let (host, stray_close) = if b.first() == Some(&b'[') {
        let Some(end) = first_close else {
            return Err(AddrError::MissingCloseBracket);
        };
        if end + 1 == b.len() {
            return Err(AddrError::MissingPort);
        }
        if end + 1 != colon {
            // The port must follow the ']' directly, after the last ':'.
            return Err(if b.get(end + 1) == Some(&b':') {
                AddrError::TooManyColons
            } else {
                AddrError::MissingPort
            });
        }
        (hostport.get(1..end), closes > 1)
    } else {
        if colons > 1 {
            return Err(AddrError::TooManyColons);
        }
        (hostport.get(..colon), closes > 0)
    };
    if inner_open {
        return Err(AddrError::UnexpectedOpenBracket);
    }
    if stray_close {
        return Err(AddrError::UnexpectedCloseBracket);
    }
    // Both cut next to an ASCII byte, so they are always on a char boundary.
    match (host, hostport.get(colon + 1..)) {
        (Some(host), Some(port)) => Ok((host, port)),
        _ => Err(AddrError::MissingPort),
    }
}

/// Why a port is not one this crate dials or listens on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortError {
    Empty,
    NotANumber(String),
    OutOfRange(String),
}

impl PortError {
    pub fn en(&self) -> String {
        match self {
            PortError::Empty => "no port".into(),
            PortError::NotANumber(p) => format!("port {:?} is not a number", p),
            PortError::OutOfRange(p) => format!("port {} is out of range 0-65535", p),
        }
    }

    pub fn zh(&self) -> String {
        match self {
            PortError::Empty => "没有端口".into(),
            PortError::NotANumber(p) => format!("端口 {:?} 不是数字", p),
            PortError::OutOfRange(p) => format!("端口 {} 超出范围 0-65535", p),
        }
    }
}

/// A numeric port: decimal digits only (leading zeros allowed), at most
/// 65535. Stricter than Go's `parsePort`, which also takes a sign (`+80`)
/// and reads an empty port as 0 (a service name it would look up): the
/// checker reports those as mistakes, and the simulator treats them as
/// ports it cannot match.
pub fn port_number(port: &str) -> Result<u16, PortError> {
    match port_value(port.as_bytes()) {
        Some(n) => Ok(n),
        None if port.is_empty() => Err(PortError::Empty),
        None if !port.bytes().all(|c| c.is_ascii_digit()) => {
            Err(PortError::NotANumber(port.to_string()))
        }
        None => Err(PortError::OutOfRange(port.to_string())),
    }
}

/// [`port_number`] without the reason. One pass.
pub(crate) fn port_value(port: &[u8]) -> Option<u16> {
    if port.is_empty() {
        return None;
    }
    let mut n = 0u32;
    for &c in port {
        if !c.is_ascii_digit() {
            return None;
        }
        // Saturates just past the range, however many digits follow.
        n = (n * 10 + u32::from(c - b'0')).min(65_536);
    }
    u16::try_from(n).ok()
}

/// What an IP literal is, by Go's `net.ParseIP` rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpKind {
    /// IPv4, or IPv6 that maps an IPv4 address (`::ffff:a.b.c.d`).
    V4,
    V6,
}

/// Go's `net.ParseIP`: dotted IPv4 without leading zeros, or IPv6 (no
/// zone). `None` for anything else, hostnames included.
pub fn parse_ip(s: &str) -> Option<IpKind> {
    // Only the parser that can succeed runs: IPv4 text is digits and dots,
    // and IPv6 text always has a ':'.
    if !s.contains(':') {
        return (dotted_quad_len(s.as_bytes()) == Some(s.len())).then_some(IpKind::V4);
    }
    // The unspecified address (a listen address's host) without the parser.
    if s == "::" {
        return Some(IpKind::V6);
    }
    let ip: Ipv6Addr = s.parse().ok()?;
    Some(if ip.to_ipv4_mapped().is_some() {
        IpKind::V4
    } else {
        IpKind::V6
    })
}

/// Go's `netip.ParseAddr`, which the dialer and listener try on a host
/// before resolving it: IPv4 as [`parse_ip`] takes it, or IPv6 with an
/// optional non-empty `%zone` (dropped here). Unlike `ParseIP` it keeps an
/// IPv4-mapped IPv6 address as IPv6.
pub fn parse_addr(s: &str) -> Option<IpAddr> {
    if let Some((ip, zone)) = s.split_once('%') {
        if zone.is_empty() {
            return None;
        }
        return ip.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    if s.contains(':') {
        // The unspecified address (a listen address's host) without the parser.
        if s == "::" {
            return Some(IpAddr::V6(Ipv6Addr::UNSPECIFIED));
        }
        return s.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    if dotted_quad_len(s.as_bytes()) != Some(s.len()) {
        return None;
    }
    s.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

/// The length of the dotted quad `s` starts with: four decimal parts of 1-3
/// digits, each at most 255, no leading zero (Go 1.17 and later refuse
/// those). One pass, no parser.
pub(crate) fn dotted_quad_len(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    for part in 0..4 {
        if part > 0 {
            if s.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
        let (start, mut n) = (i, 0u32);
        while let Some(c) = s.get(i).filter(|c| c.is_ascii_digit() && i - start < 3) {
            n = n * 10 + u32::from(c - b'0');
            i += 1;
        }
        let len = i - start;
        if len == 0 || n > 255 || (len > 1 && s.get(start) == Some(&b'0')) {
            return None;
        }
    }
    Some(i)
}

/// Go's `isDomainName` (the pure-Go resolver refuses anything else).
pub fn is_domain_name(s: &str) -> bool {
    // The root domain is a name (Go 1.17 on, golang.org/issue/45715).
    if s == "." {
        return true;
    }
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 254 || (b.len() == 254 && b.get(253) != Some(&b'.')) {
        return false;
    }
    let mut last = b'.';
    let mut non_numeric = false;
    let mut part_len = 0;
    for &c in b {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                non_numeric = true;
                part_len += 1;
            }
            b'0'..=b'9' => part_len += 1,
            b'-' => {
                if last == b'.' {
                    return false;
                }
                part_len += 1;
                non_numeric = true;
            }
            b'.' => {
                if last == b'.' || last == b'-' {
                    return false;
                }
                if part_len > 63 || part_len == 0 {
                    return false;
                }
                part_len = 0;
            }
            _ => return false,
        }
        last = c;
    }
    if last == b'-' || part_len > 63 {
        return false;
    }
    non_numeric
}

/// A host in the form this crate compares hosts in (not a Go rule: DNS
/// names and IPv6 hex digits are case-insensitive, and an address list may
/// bracket an IPv6 host that `SplitHostPort` returns bare): trimmed, one
/// enclosing pair of brackets removed, ASCII lowercase.
pub fn normalize_host(host: &str) -> String {
    let t = host.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .unwrap_or(t);
    t.to_ascii_lowercase()
}

/// Address-like texts for the tests that compare readers with plain
/// versions (here and in `check::util`): every string of up to six
/// characters over the bytes that matter, real addresses, and random longer
/// ones with and without a port.
#[cfg(test)]
pub(crate) fn address_samples() -> Vec<String> {
    let mut texts = short_texts();
    texts.extend(REAL_ADDRESSES.iter().map(|real| real.to_string()));
    texts.extend(random_texts());
    texts
}

/// Every string of up to six characters over the bytes that matter to an
/// address reader, shortest first.
#[cfg(test)]
fn short_texts() -> Vec<String> {
    let alphabet = [":", "[", "]", "1", "0", "a", ".", "%"];
    let mut texts: Vec<String> = vec![String::new()];
    let mut level = vec![String::new()];
    for _ in 0..6 {
        level = level
            .iter()
            .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
            .collect();
        texts.extend(level.iter().cloned());
    }
    texts
}

/// Real addresses and near misses: brackets, zones, ports and dotted quads
/// a reader must take or refuse.
#[cfg(test)]
const REAL_ADDRESSES: &[&str] = &[
    "[::]:20000",
    ":8080",
    "1.2.3.4:5",
    "example.com:443",
    "[2001:db8::1]:443",
    "[fe80::1%eth0]:22",
    "[::1]",
    "[::1]:",
    "1.2.3.4",
    "2001:db8::9:44010",
    "[::1]]:1",
    "[[::1]:1",
    "a[b:1",
    "a]b:1",
    "[::1]x:1",
    "[::1]:1:2",
    "host:00000080",
    "host:000065535",
    "host:65536",
    "host:0",
    "host:-1",
    "host:1e3",
    "host: 80",
    "01.2.3.4:5",
    "1.2.3:4",
    "256.1.1.1:1",
    "1.2.3.4.5:6",
    "::ffff:1.2.3.4",
    "255.255.255.255",
    "255.255.255.256",
    "0.0.0.0",
    "00.0.0.0",
    "1.2.3.04",
    "1.2.3.4.",
    ".1.2.3",
    "1..2.3",
    "1234.1.1.1",
    "199.249.250.251",
    "100.200.300.1",
    "1.2.3.4 ",
    "::",
    ":::",
    "::%eth0",
    "::%",
    ":: ",
    "[::ffff:1.2.3.4]:7",
    "ünï:1",
    "[ü]:1",
    "h:١٢",
    "1.2.3.4%eth0",
    "fe80::1%",
    "%:1",
];

/// Longer texts at random (dotted quads need seven characters or more),
/// each bare and with a port.
#[cfg(test)]
fn random_texts() -> Vec<String> {
    let mut texts = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = 7 + (seed % 10) as usize;
        let t: String = (0..len)
            .map(|i| ['0', '1', '2', '5', '9', '.', '.', ':'][((seed >> (3 * i + 8)) & 7) as usize])
            .collect();
        texts.push(t.clone());
        texts.push(format!("{}:{}", t.replace(':', "."), seed % 70_000));
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `splitJoinTests` and `splitFailureTests` of Go's `src/net/ip_test.go`
    /// (golang/go). `localhost%lo0:80` splits, as Go's `SplitHostPort`
    /// does; older copies of the table refuse it ("missing brackets in
    /// address").
    #[test]
    fn split_host_port_go_tables() {
        let ok = [
            ("www.google.com", "80", "www.google.com:80"),
            ("127.0.0.1", "1234", "127.0.0.1:1234"),
            ("::1", "80", "[::1]:80"),
            ("fe80::1%lo0", "80", "[fe80::1%lo0]:80"),
            ("localhost%lo0", "80", "[localhost%lo0]:80"),
            ("", "0", ":0"),
            ("google.com", "https%foo", "google.com:https%foo"),
            ("127.0.0.1", "", "127.0.0.1:"),
            ("www.google.com", "", "www.google.com:"),
            ("localhost%lo0", "80", "localhost%lo0:80"),
        ];
        for (host, port, join) in ok {
            assert_eq!(split_host_port(join), Ok((host, port)), "{join:?}");
        }
        use AddrError::*;
        let failures = [
            ("www.google.com", MissingPort),
            ("127.0.0.1", MissingPort),
            ("[::1]", MissingPort),
            ("[fe80::1%lo0]", MissingPort),
            ("[localhost%lo0]", MissingPort),
            ("localhost%lo0", MissingPort),
            ("::1", TooManyColons),
            ("fe80::1%lo0", TooManyColons),
            ("fe80::1%lo0:80", TooManyColons),
            ("[foo:bar]", MissingPort),
            ("[foo:bar]baz", MissingPort),
            ("[foo]bar:baz", MissingPort),
            ("[foo]:[bar]:baz", TooManyColons),
            ("[foo]:[bar]baz", UnexpectedOpenBracket),
            ("foo[bar]:baz", UnexpectedOpenBracket),
            ("foo]bar:baz", UnexpectedCloseBracket),
            // Not in Go's table: the one error it does not exercise.
            ("[::1:80", MissingCloseBracket),
        ];
        for (addr, err) in failures {
            assert_eq!(split_host_port(addr), Err(err), "{addr:?}");
        }
        assert_eq!(TooManyColons.to_string(), "too many colons in address");
    }

    /// `parseIPTests` of Go's `src/net/ip_test.go` (golang/go), with the
    /// rows Go 1.17 changed: IPv4 parts with leading zeros are refused.
    #[test]
    fn parse_ip_go_table() {
        use IpKind::*;
        let table: [(&str, Option<IpKind>); 28] = [
            ("127.0.1.2", Some(V4)),
            ("127.0.0.1", Some(V4)),
            ("::ffff:127.1.2.3", Some(V4)),
            ("::ffff:7f01:0203", Some(V4)),
            ("0:0:0:0:0000:ffff:127.1.2.3", Some(V4)),
            ("0:0:0:0::ffff:127.1.2.3", Some(V4)),
            ("2001:4860:0:2001::68", Some(V6)),
            ("2001:4860:0000:2001:0000:0000:0000:0068", Some(V6)),
            ("-0.0.0.0", None),
            ("0.-1.0.0", None),
            ("0.0.-2.0", None),
            ("0.0.0.-3", None),
            ("127.0.0.256", None),
            ("abc", None),
            ("123:", None),
            ("fe80::1%lo0", None),
            ("fe80::1%911", None),
            ("", None),
            ("a1:a2:a3:a4::b1:b2:b3:b4", None),
            ("127.001.002.003", None),
            ("::ffff:127.001.002.003", None),
            ("123.000.000.000", None),
            ("1.2..4", None),
            ("0123.0.0.1", None),
            ("0:0:0:0:000000:ffff:127.1.2.3", None),
            ("::", Some(V6)),
            ("::1", Some(V6)),
            ("255.255.255.255", Some(V4)),
        ];
        for (s, kind) in table {
            assert_eq!(parse_ip(s), kind, "{s:?}");
        }
    }

    /// `netip.ParseAddr`, as its documentation describes it: a non-empty
    /// zone on IPv6 only; IPv4-mapped addresses stay IPv6.
    #[test]
    fn parse_addr_zones() {
        let v6 = |s: &str| Some(IpAddr::V6(s.parse().unwrap()));
        assert_eq!(parse_addr("fe80::1%lo0"), v6("fe80::1"));
        assert_eq!(parse_addr("fe80::1%911"), v6("fe80::1"));
        assert_eq!(parse_addr("::%eth0"), v6("::"));
        assert_eq!(parse_addr("::ffff:1.2.3.4"), v6("::ffff:1.2.3.4"));
        assert_eq!(parse_addr("::"), v6("::"));
        assert_eq!(parse_addr("fe80::1%"), None);
        assert_eq!(parse_addr("1.2.3.4%eth0"), None);
        assert_eq!(parse_addr("1.2.3.04"), None);
        assert_eq!(
            parse_addr("1.2.3.4"),
            Some(IpAddr::V4(Ipv4Addr::new(1, 2, 3, 4)))
        );
    }

    /// The one-pass readers say what the plain versions (a scan per Go
    /// check, as Go's source reads; std's parsers) say, on every string of
    /// up to six characters over the bytes that matter, on random longer
    /// ones and on real addresses.
    #[test]
    fn one_pass_readers_match_plain_versions() {
        let texts = address_samples();
        let (mut split, mut ips) = (0, 0);
        for t in &texts {
            assert_eq!(split_host_port(t), split_host_port_by_scans(t), "{t:?}");
            assert_eq!(parse_ip(t), parse_ip_by_std(t), "{t:?}");
            assert_eq!(parse_addr(t), addr_by_std(t), "{t:?}");
            split += usize::from(split_host_port(t).is_ok());
            ips += usize::from(parse_ip(t).is_some());
        }
        assert!(split > 1000 && ips > 1000, "{split} {ips}");
    }

    /// `SplitHostPort` with one scan per Go check, as Go's code reads.
    fn split_host_port_by_scans(hostport: &str) -> Result<(&str, &str), AddrError> {
        use AddrError::*;
        if !hostport.contains(':') {
            return Err(MissingPort);
        }
        let (host, port, after_open, after_close);
        if let Some(rest) = hostport.strip_prefix('[') {
            let Some((inside, after)) = rest.split_once(']') else {
                return Err(MissingCloseBracket);
            };
            if after.is_empty() {
                return Err(MissingPort);
            }
            match after.strip_prefix(':') {
                Some(p) if !p.contains(':') => port = p,
                Some(_) => return Err(TooManyColons),
                None => return Err(MissingPort),
            }
            host = inside;
            after_open = rest;
            after_close = after;
        } else {
            let Some((h, p)) = hostport.rsplit_once(':') else {
                return Err(MissingPort);
            };
            if h.contains(':') {
                return Err(TooManyColons);
            }
            host = h;
            port = p;
            after_open = hostport;
            after_close = hostport;
        }
        if after_open.contains('[') {
            return Err(UnexpectedOpenBracket);
        }
        if after_close.contains(']') {
            return Err(UnexpectedCloseBracket);
        }
        Ok((host, port))
    }

    fn parse_ip_by_std(s: &str) -> Option<IpKind> {
        if let Ok(ip) = s.parse::<std::net::IpAddr>() {
            return Some(match ip {
                std::net::IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => IpKind::V6,
                _ => IpKind::V4,
            });
        }
        None
    }

    fn addr_by_std(s: &str) -> Option<IpAddr> {
        if let Ok(ip) = s.parse::<Ipv4Addr>() {
            return Some(IpAddr::V4(ip));
        }
        let core = match s.split_once('%') {
            Some((a, z)) if !z.is_empty() => a,
            Some(_) => return None,
            None => s,
        };
        core.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
    }

    #[test]
    fn ports() {
        assert_eq!(port_number("80"), Ok(80));
        assert_eq!(port_number("00000080"), Ok(80));
        assert_eq!(port_number("65535"), Ok(65535));
        assert_eq!(port_number("0"), Ok(0));
        assert_eq!(port_number(""), Err(PortError::Empty));
        assert_eq!(port_number("+80"), Err(PortError::NotANumber("+80".into())));
        assert_eq!(
            port_number("８０"),
            Err(PortError::NotANumber("８０".into()))
        );
        assert_eq!(
            port_number("65536"),
            Err(PortError::OutOfRange("65536".into()))
        );
        assert_eq!(
            port_number("99999999999999999999"),
            Err(PortError::OutOfRange("99999999999999999999".into()))
        );
        assert_eq!(
            port_number("x").unwrap_err().en(),
            "port \"x\" is not a number"
        );
        assert_eq!(port_number("x").unwrap_err().zh(), "端口 \"x\" 不是数字");
    }

    #[test]
    fn domain_names() {
        for good in [
            "example.com",
            "a",
            "a-b.c",
            "_srv.example.org",
            "x.y.",
            "1a",
            ".",
        ] {
            assert!(is_domain_name(good), "{good}");
        }
        for bad in [
            "", "1.2.3", "-a.b", "a-.b", "a..b", ".a", "a b", "ü.de", "123",
        ] {
            assert!(!is_domain_name(bad), "{bad}");
        }
        assert!(is_domain_name(&"a".repeat(63)));
        assert!(!is_domain_name(&"a".repeat(64)));
    }

    #[test]
    fn hosts_normalise() {
        assert_eq!(normalize_host(" [2001:DB8::1] "), "2001:db8::1");
        assert_eq!(normalize_host("Edge.Example.ORG"), "edge.example.org");
        assert_eq!(normalize_host("[::1"), "[::1");
        assert_eq!(normalize_host("[[x]]"), "[x]");
    }
}
