//! The part of Go's `net/url.Parse` the server's address normaliser relies
//! on: scheme, authority, host and port syntax, and percent-escape validity.

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
    use super::url_host;

    /// `TestParseErrors` of Go's `src/net/url/url_test.go` (golang/go).
    #[test]
    fn parse_errors_go_table() {
        let table = [
            ("http://[::1]", false),
            ("http://[::1]:80", false),
            ("http://[::1]:namedport", true),
            ("http://x:namedport", true),
            ("http://[::1]/", false),
            ("http://[::1]a", true),
            ("http://[::1]%23", true),
            ("http://[::1%25en0]", false),
            ("http://[::1]:", false),
            ("http://x:", false),
            ("http://[::1]:%38%30", true),
            ("http://[::1%25%41]", false),
            ("http://[%10::1]", true),
            ("http://[::1]/%48", false),
            ("http://%41:8080/", true),
            ("mysql://x@y(z:123)/foo", true),
            ("mysql://x@y(1.2.3.4:123)/foo", true),
            (" http://foo.com", true),
            ("ht tp://foo.com", true),
            ("ahttp://foo.com", false),
            ("1http://foo.com", true),
            ("http://[]%20%48%54%54%50%2f%31%2e%31%0a%4d%79%48%65%61%64%65%72%3a%20%31%32%33%0a%0a/", true),
            ("http://a b.com/", true),
            ("cache_object://foo", true),
            ("cache_object:foo", true),
            ("cache_object:foo/bar", true),
            ("cache_object/:foo/bar", false),
            // `TestRejectControlCharacters` of the same file.
            ("http://foo.com/?foo\nbar", true),
            ("http\r://foo.com/", true),
            ("http://foo\x7f.com/", true),
        ];
        for (text, want_err) in table {
            assert_eq!(url_host(text).is_err(), want_err, "{text:?}");
        }
    }

    /// Hosts of rows of `urltests` in the same file.
    #[test]
    fn hosts_go_table() {
        for (text, host) in [
            ("http://www.google.com", "www.google.com"),
            ("http://192.168.0.1:8080/", "192.168.0.1:8080"),
            ("http://[fe80::1%25en0]:8080/", "[fe80::1%en0]:8080"),
            (
                "http://[fe80::1%25%65%6e%301-._~]:8080/",
                "[fe80::1%en01-._~]:8080",
            ),
            ("http://user:password@google.com", "google.com"),
            ("http://j@ne:password@google.com", "google.com"),
            ("mailto:user@example.com", ""),
            ("/foo?query=http://bad", ""),
        ] {
            assert_eq!(url_host(text).as_deref(), Ok(host), "{text:?}");
        }
    }
}
