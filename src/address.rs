//! Addresses the way the server treats them: its address normaliser
//! (including the part of Go's URL parser it relies on). Go's own address
//! rules are in [`crate::go::net`].

use crate::go::net::{parse_ip, IpKind};

/// Go's test for an IPv6-looking address: two or more colons.
pub fn looks_like_ipv6(s: &str) -> bool {
    s.matches(':').count() >= 2
}

/// `host:port` (the planner builds one per chain node).
pub fn host_port(host: &str, port: impl itoa::Integer) -> String {
    crate::strings::with_number(host, ":", port)
}

/// The server's `processServerAddress`: reduces a user-entered address
/// (possibly a URL) to `host:port`, bracketing IPv6 hosts.
pub fn process_server_address(raw: &str) -> String {
    let s = normalize_server_address_input(raw);
    if s.is_empty() || s.starts_with('[') {
        return s;
    }
    if looks_like_ipv6(&s) && parse_ip(&s) == Some(IpKind::V6) {
        return format!("[{}]", s);
    }
    let Some(idx) = s.rfind(':') else {
        return s;
    };
    let host = s[..idx].trim();
    let port = s[idx + 1..].trim();
    if host.is_empty() || port.is_empty() {
        return s;
    }
    if looks_like_ipv6(host) {
        return format!("[{}]:{}", host, port);
    }
    s
}

fn normalize_server_address_input(raw: &str) -> String {
    let mut s = raw.trim();
    if s.is_empty() {
        return String::new();
    }
    if let Some(idx) = s.find("://") {
        if idx > 0 {
            if let Ok(host) = url_host(s) {
                let host = host.trim();
                if !host.is_empty() {
                    return host.to_string();
                }
            }
            s = &s[idx + 3..];
        }
    }
    if let Some(idx) = s.find(['/', '?', '#']) {
        s = &s[..idx];
    }
    s.trim().to_string()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    Host,
    Zone,
    Other,
}

/// Go's URL parser refused the text (which error it was does not matter here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlError;

/// The host part of a URL as Go's `net/url.Parse` yields it, or `Err` where
/// that parser reports an error. Only what the normaliser needs is modelled:
/// scheme, authority, host and port syntax, and percent-escape validity.
pub fn url_host(raw: &str) -> Result<String, UrlError> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(UrlError);
    }
    let (u, frag) = match raw.find('#') {
        Some(i) => (&raw[..i], Some(&raw[i + 1..])),
        None => (raw, None),
    };
    let (scheme, mut rest) = split_scheme(u)?;
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some(i) = rest.find('?') {
        rest = &rest[..i];
    }
    let mut host = String::new();
    if !rest.starts_with('/') {
        if !scheme.is_empty() {
            // Opaque URL: no host.
            if let Some(f) = frag {
                unescape(f, Escape::Other)?;
            }
            return Ok(host);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err(UrlError);
        }
    }
    if (!scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        host = parse_authority(authority)?;
        rest = path;
    }
    unescape(rest, Escape::Other)?;
    if let Some(f) = frag {
        unescape(f, Escape::Other)?;
    }
    Ok(host)
}

fn split_scheme(u: &str) -> Result<(&str, &str), UrlError> {
    for (i, c) in u.char_indices() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || c == '+' || c == '-' || c == '.' {
            if i == 0 {
                return Ok(("", u));
            }
            continue;
        }
        if c == ':' {
            if i == 0 {
                return Err(UrlError);
            }
            return Ok((&u[..i], &u[i + 1..]));
        }
        return Ok(("", u));
    }
    Ok(("", u))
}

fn parse_authority(authority: &str) -> Result<String, UrlError> {
    match authority.rfind('@') {
        None => parse_host(authority),
        Some(i) => {
            let host = parse_host(&authority[i + 1..])?;
            let userinfo = &authority[..i];
            let valid = userinfo
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
            if !valid {
                return Err(UrlError);
            }
            unescape(userinfo, Escape::Other)?;
            Ok(host)
        }
    }
}

fn valid_optional_port(port: &str) -> bool {
    if port.is_empty() {
        return true;
    }
    match port.strip_prefix(':') {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

fn parse_host(host: &str) -> Result<String, UrlError> {
    if host.starts_with('[') {
        let i = host.rfind(']').ok_or(UrlError)?;
        if !valid_optional_port(&host[i + 1..]) {
            return Err(UrlError);
        }
        if let Some(zone) = host[..i].find("%25") {
            let a = unescape(&host[..zone], Escape::Host)?;
            let b = unescape(&host[zone..i], Escape::Zone)?;
            let c = unescape(&host[i..], Escape::Host)?;
            return Ok(a + &b + &c);
        }
    } else if let Some(i) = host.rfind(':') {
        if !valid_optional_port(&host[i..]) {
            return Err(UrlError);
        }
    }
    unescape(host, Escape::Host)
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Characters Go's URL parser refuses unescaped in a host.
fn host_char_needs_escape(c: u8) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    !matches!(
        c,
        b'!' | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'['
            | b']'
            | b'<'
            | b'>'
            | b'"'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
    )
}

fn unescape(s: &str, mode: Escape) -> Result<String, UrlError> {
    let bytes = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let (Some(&h1), Some(&h2)) = (bytes.get(i + 1), bytes.get(i + 2)) else {
                return Err(UrlError);
            };
            let (Some(v1), Some(v2)) = (hex_val(h1), hex_val(h2)) else {
                return Err(UrlError);
            };
            let is_pct25 = bytes.get(i..i + 3) == Some(b"%25".as_slice());
            if mode == Escape::Host && v1 < 8 && !is_pct25 {
                return Err(UrlError);
            }
            if mode == Escape::Zone {
                let v = v1 * 16 + v2;
                if !is_pct25 && v != b' ' && host_char_needs_escape(v) {
                    return Err(UrlError);
                }
            }
            out.push(v1 * 16 + v2);
            i += 3;
        } else {
            if (mode == Escape::Host || mode == Escape::Zone)
                && b < 0x80
                && host_char_needs_escape(b)
            {
                return Err(UrlError);
            }
            out.push(b);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_like_the_server() {
        assert_eq!(process_server_address("1.2.3.4:80"), "1.2.3.4:80");
        assert_eq!(
            process_server_address("2001:db8::1:443"),
            "[2001:db8::1:443]"
        );
        assert_eq!(process_server_address("2001:db8::1"), "[2001:db8::1]");
        assert_eq!(
            process_server_address("fe80::1%eth0:443"),
            "[fe80::1%eth0]:443"
        );
        assert_eq!(
            process_server_address("tls://1.2.3.4:443:45001"),
            "1.2.3.4:443:45001"
        );
        assert_eq!(
            process_server_address("relay://edge.example.org:45001"),
            "edge.example.org:45001"
        );
        assert_eq!(
            process_server_address("h%zz://1.2.3.4:45001"),
            "1.2.3.4:45001"
        );
        assert_eq!(process_server_address("1.2.3.4/path:45001"), "1.2.3.4");
        assert_eq!(process_server_address("[::1]:80:45001"), "[::1]:80:45001");
        assert_eq!(process_server_address(":::44014"), "[::]:44014");
        assert_eq!(process_server_address(" 0.0.0.0 :45001"), "0.0.0.0 :45001");
        assert_eq!(process_server_address(":45001"), ":45001");
        assert_eq!(process_server_address("[::]:44014"), "[::]:44014");
        assert_eq!(
            process_server_address("2001:db8::9:44010"),
            "[2001:db8::9]:44010"
        );
        assert_eq!(
            process_server_address("https://a.example.com:8443/x"),
            "a.example.com:8443"
        );
    }
}
