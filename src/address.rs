//! Addresses the way the server treats them: its address normaliser. Go's
//! own rules it relies on are in [`crate::go::net`] and [`crate::go::url`].

use crate::go::net::{parse_ip, IpKind};
use crate::go::url::url_host;
use crate::strings::trim;
use std::borrow::Cow;

/// Go's test for an IPv6-looking address: two or more colons.
pub fn looks_like_ipv6(s: &str) -> bool {
    s.bytes().filter(|&b| b == b':').count() >= 2
}

/// `host:port` (the planner builds one per chain node).
pub fn host_port(host: &str, port: impl itoa::Integer) -> String {
    crate::strings::with_number(host, ":", port)
}

/// The server's `processServerAddress` of `host:port`, as it runs on every
/// address the panel builds from a host and a port.
pub fn server_host_port(host: &str, port: impl itoa::Integer) -> String {
    let joined = host_port(host, port);
    match server_address(&joined) {
        // Nearly always the address as joined: its text is kept, not copied.
        Cow::Borrowed(same) if same.len() == joined.len() => joined,
        other => other.into_owned(),
    }
}

/// The server's `processServerAddress`: reduces a user-entered address
/// (possibly a URL) to `host:port`, bracketing IPv6 hosts.
pub fn process_server_address(raw: &str) -> String {
    server_address(raw).into_owned()
}

/// [`process_server_address`], borrowing what it keeps of `raw`.
fn server_address(raw: &str) -> Cow<'_, str> {
    let s = normalize_server_address_input(raw);
    if s.is_empty() || s.starts_with('[') {
        return s;
    }
    if looks_like_ipv6(&s) && parse_ip(&s) == Some(IpKind::V6) {
        return Cow::Owned(["[", &s, "]"].concat());
    }
    let Some(idx) = s.rfind(':') else {
        return s;
    };
    let host = trim(&s[..idx]);
    let port = trim(&s[idx + 1..]);
    if host.is_empty() || port.is_empty() {
        return s;
    }
    if looks_like_ipv6(host) {
        return Cow::Owned(["[", host, "]:", port].concat());
    }
    s
}

fn normalize_server_address_input(raw: &str) -> Cow<'_, str> {
    let mut s = trim(raw);
    if s.is_empty() {
        return Cow::Borrowed("");
    }
    // A byte search: std's substring searcher sets up its tables on every call.
    if let Some(idx) = s.as_bytes().windows(3).position(|w| w == b"://") {
        if idx > 0 {
            if let Ok(host) = url_host(s) {
                let host = trim(&host);
                if !host.is_empty() {
                    return Cow::Owned(host.to_string());
                }
            }
            s = &s[idx + 3..];
        }
    }
    if let Some(idx) = s.bytes().position(|b| matches!(b, b'/' | b'?' | b'#')) {
        s = &s[..idx];
    }
    Cow::Borrowed(trim(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_address_is_normalised_as_its_text_is() {
        for (host, port, want) in [
            ("1.2.3.4", 80, "1.2.3.4:80"),
            (" edge.example.org ", 45001, "edge.example.org :45001"),
            ("2001:db8::9", 44010, "[2001:db8::9]:44010"),
            ("tls://1.2.3.4", 443, "1.2.3.4:443"),
            ("1.2.3.4/path", 45001, "1.2.3.4"),
            ("", 1, ":1"),
        ] {
            let joined = host_port(host, port);
            assert_eq!(server_host_port(host, port), want, "{host:?} {port}");
            assert_eq!(process_server_address(&joined), want, "{joined:?}");
        }
    }

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
