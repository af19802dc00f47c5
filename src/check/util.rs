//! Small parsers the checker needs: Go-compatible duration and host:port
//! parsing, the server's address normaliser, JSON helpers. All total: they
//! return `None`/`Err` on bad input and never panic.

use super::tree::{Obj, Val};
use crate::finding::pointer_token;
use serde_json::Value;
use std::net::Ipv6Addr;

/// Appends one reference token to a JSON Pointer.
/// One allocation in the usual case (a token without `~` or `/`): the
/// checker builds a path for every value it walks.
pub fn join(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + 1 + token.len());
    out.push_str(base);
    out.push('/');
    if token.contains(['~', '/']) {
        out.push_str(&pointer_token(token));
    } else {
        out.push_str(token);
    }
    out
}

/// A JSON Pointer that is only spelled out when a finding needs it: the
/// decode walk visits every field but reports few, so it passes these
/// (borrowed, on the stack) instead of building a string per field.
#[derive(Clone, Copy)]
pub(crate) enum Ptr<'a> {
    /// An already built pointer.
    Base(&'a str),
    Key(&'a Ptr<'a>, &'a str),
    Index(&'a Ptr<'a>, usize),
}

impl Ptr<'_> {
    pub fn render(&self) -> String {
        match self {
            Ptr::Base(b) => b.to_string(),
            Ptr::Key(parent, k) => join(&parent.render(), k),
            Ptr::Index(parent, i) => join_i(&parent.render(), *i),
        }
    }
}

/// Appends an array index to a JSON Pointer.
pub fn join_i(base: &str, index: usize) -> String {
    crate::strings::with_number(base, "/", index)
}

/// A field of a JSON object looked up the way Go's `encoding/json` matches
/// struct fields: the exact key first, else a case-insensitive one.
/// Returns the key actually used and its value.
pub(crate) fn get_ci<'o, 'a>(obj: &'o Obj<'a>, name: &str) -> Option<(&'o str, &'o Val<'a>)> {
    obj.get_ci(name)
}

/// `x == y` for slices of equal length, byte by byte in place: keys are
/// short, and wasm's `memcmp` is a byte loop behind a call. (Comparing a
/// key's head and tail as two words measured 2-3% slower on a large config.)
#[inline]
pub(crate) fn bytes_eq(x: &[u8], y: &[u8]) -> bool {
    x.iter().zip(y).all(|(p, q)| p == q)
}

/// How two keys match, when they do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Exact,
    /// Equal but for ASCII case.
    Folded,
}

/// `a` against `b` as Go matches field names, cheap on the usual outcomes
/// (different lengths or first letters, or the same spelling); one compare
/// tells an exact match, so callers need no second `==` (a `memcmp` call in
/// wasm).
#[inline]
pub(crate) fn key_match(a: &str, b: &str) -> Option<Case> {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() != y.len() || x.first().map(|c| c | 0x20) != y.first().map(|c| c | 0x20) {
        None
    } else if bytes_eq(x, y) {
        Some(Case::Exact)
    } else {
        x.eq_ignore_ascii_case(y).then_some(Case::Folded)
    }
}

/// `a.eq_ignore_ascii_case(b)`, by [`key_match`].
#[inline]
pub(crate) fn key_eq_ci(a: &str, b: &str) -> bool {
    key_match(a, b).is_some()
}

/// A string field (Go semantics: a non-string is treated as absent here; the
/// decode-type rule reports it separately).
pub(crate) fn get_str<'o>(obj: &'o Obj<'_>, name: &str) -> Option<&'o str> {
    get_ci(obj, name).and_then(|(_, v)| v.as_str())
}

pub(crate) fn get_obj<'o, 'a>(obj: &'o Obj<'a>, name: &str) -> Option<&'o Obj<'a>> {
    get_ci(obj, name).and_then(|(_, v)| v.as_object())
}

pub(crate) fn get_arr<'o, 'a>(obj: &'o Obj<'a>, name: &str) -> Option<&'o [Val<'a>]> {
    get_ci(obj, name).and_then(|(_, v)| v.as_array())
}

/// An integer field's value (`None` when absent) as the agent decodes it:
/// `Ok(None)` when absent or null, `Err(())` when present with a type Go's
/// decoder rejects.
pub(crate) fn go_int(v: Option<&Val<'_>>) -> Result<Option<i64>, ()> {
    match v {
        None | Some(Val::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or(()),
    }
}

/// Loose integer the way the panel coerces ids: JSON integers or numeric strings.
pub(crate) fn loose_int(v: &Val<'_>) -> Option<i64> {
    match v {
        Val::Num(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Val::Str(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// A JSON value's type as messages name it: (English, Chinese).
fn json_type_names(v: &Val<'_>) -> (&'static str, &'static str) {
    match v {
        Val::Null => ("null", "null"),
        Val::Bool(_) => ("boolean", "布尔值"),
        Val::Num(n) if n.is_f64() => ("non-integer number", "非整数数字"),
        Val::Num(_) => ("integer", "整数"),
        Val::Str(_) => ("string", "字符串"),
        // A deep value is always a container (see `tree::Val::Deep`).
        Val::Arr(_) | Val::Deep(Value::Array(_)) => ("array", "数组"),
        Val::Obj(_) | Val::Deep(_) => ("object", "对象"),
    }
}

/// Short name of a JSON value's type, for messages.
pub(crate) fn json_type(v: &Val<'_>) -> &'static str {
    json_type_names(v).0
}

/// Chinese name of a JSON value's type, for messages.
pub(crate) fn json_type_zh(v: &Val<'_>) -> &'static str {
    json_type_names(v).1
}

pub use crate::duration::parse_go_duration;

/// Go's `net.SplitHostPort`: `(host, port)` or the reason it fails.
///
/// One pass notes where the colons and brackets are; Go's checks then run
/// on those positions, in Go's order. (The checker validates every listen
/// and dial address of a config; this was most of that cost.)
pub fn split_host_port(hostport: &str) -> Result<(&str, &str), &'static str> {
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
        return Err("missing port in address");
    };
    // `stray_close`: a ']' after the host's own (Go looks from just past it).
    let (host, stray_close) = if b.first() == Some(&b'[') {
        let Some(end) = first_close else {
            return Err("missing ']' in address");
        };
        if end + 1 == b.len() {
            return Err("missing port in address");
        }
        if end + 1 != colon {
            // The port must follow the ']' directly, after the last ':'.
            return Err(if b.get(end + 1) == Some(&b':') {
                "too many colons in address"
            } else {
                "missing port in address"
            });
        }
        (hostport.get(1..end), closes > 1)
    } else {
        if colons > 1 {
            return Err("too many colons in address");
        }
        (hostport.get(..colon), closes > 0)
    };
    if inner_open {
        return Err("unexpected '[' in address");
    }
    if stray_close {
        return Err("unexpected ']' in address");
    }
    // Both cut next to an ASCII byte, so they are always on a char boundary.
    match (host, hostport.get(colon + 1..)) {
        (Some(host), Some(port)) => Ok((host, port)),
        _ => Err("missing port in address"),
    }
}

/// Go's `isDomainName` (the pure-Go resolver refuses anything else).
pub fn is_domain_name(s: &str) -> bool {
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

/// An IP literal as Go's parser accepts it (IPv6 may carry a `%zone` when `zone_ok`).
pub fn is_ip_literal(s: &str, zone_ok: bool) -> bool {
    // Only the parser that can succeed runs: IPv4 text is digits and dots,
    // and IPv6 text (without its zone) always has a ':'.
    if !s.contains(':') {
        return is_ipv4(s.as_bytes());
    }
    let core = match s.split_once('%') {
        Some((a, z)) if zone_ok && !z.is_empty() => a,
        Some(_) => return false,
        None => s,
    };
    // The unspecified address (a listen address's host) without the parser.
    core == "::" || core.parse::<Ipv6Addr>().is_ok()
}

/// Dotted-quad IPv4 as `Ipv4Addr`'s parser (and Go's) accepts it.
fn is_ipv4(s: &[u8]) -> bool {
    dotted_quad(s) == Some(s.len())
}

/// The length of the dotted quad `s` starts with: four decimal parts of 1-3
/// digits, each at most 255, no leading zero. One pass, no parser.
fn dotted_quad(s: &[u8]) -> Option<usize> {
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

fn port_number(port: &str) -> Result<u32, String> {
    match port_value(port.as_bytes()) {
        Some(n) => Ok(n),
        None if port.is_empty() => Err("no port".into()),
        None if !port.bytes().all(|c| c.is_ascii_digit()) => {
            Err(format!("port {:?} is not a number", port))
        }
        None => Err(format!("port {} is out of range 0-65535", port)),
    }
}

/// The port `port` spells: decimal digits only (leading zeros allowed), at
/// most 65535. One pass; [`port_number`] says why when it is `None`.
fn port_value(port: &[u8]) -> Option<u32> {
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
    (n <= 65_535).then_some(n)
}

/// Chinese rendering of the address problems reported by [`listen_addr_problem`]
/// and [`dial_addr_problem`].
pub fn reason_zh(en: &str) -> String {
    let fixed = [
        ("missing port in address", "地址缺少端口"),
        ("missing ']' in address", "地址缺少 ']'"),
        (
            "too many colons in address",
            "地址中冒号过多（IPv6 地址需加方括号）",
        ),
        ("unexpected '[' in address", "地址中出现多余的 '['"),
        ("unexpected ']' in address", "地址中出现多余的 ']'"),
        ("no port", "没有端口"),
        ("no host", "没有主机"),
        ("empty address", "地址为空"),
        (
            "empty address: no port to listen on",
            "地址为空：没有可监听的端口",
        ),
        ("port 0 cannot be dialed", "不能拨号到端口 0"),
    ];
    if let Some((_, zh)) = fixed.iter().find(|(e, _)| *e == en) {
        return zh.to_string();
    }
    if let Some(rest) = en.strip_prefix("port ") {
        if let Some(p) = rest.strip_suffix(" is not a number") {
            return format!("端口 {} 不是数字", p);
        }
        if let Some(p) = rest.strip_suffix(" is out of range 0-65535") {
            return format!("端口 {} 超出范围 0-65535", p);
        }
    }
    if let Some(rest) = en.strip_prefix("host ") {
        if let Some(h) = rest.strip_suffix(" is neither an IP address nor a resolvable name") {
            return format!("主机 {} 既不是 IP 地址也不是可解析的域名", h);
        }
    }
    en.to_string()
}

/// True for the two forms nearly every address of a plan or config takes,
/// `a.b.c.d:port` and `[::]:port` with a port from 1 to 65535: both listen
/// and dial problems are `None` for them, found without the general checks
/// below. `false` leaves the address to those checks (which then decide,
/// whatever it is).
fn is_common_address(addr: &str) -> bool {
    let port = match addr.strip_prefix("[::]:") {
        Some(port) => port,
        None => match dotted_quad(addr.as_bytes()) {
            Some(n) if addr.as_bytes().get(n) == Some(&b':') => {
                addr.get(n + 1..).unwrap_or_default()
            }
            _ => return false,
        },
    };
    matches!(port_value(port.as_bytes()), Some(1..))
}

/// Why Go could not listen on `addr` (`None` when it can).
pub fn listen_addr_problem(addr: &str) -> Option<String> {
    if is_common_address(addr) {
        None
    } else {
        listen_addr_checked(addr)
    }
}

/// [`listen_addr_problem`] by Go's checks one by one, without the shortcut.
fn listen_addr_checked(addr: &str) -> Option<String> {
    if addr.is_empty() {
        return Some("empty address: no port to listen on".into());
    }
    let (host, port) = match split_host_port(addr) {
        Ok(hp) => hp,
        Err(e) => return Some(e.to_string()),
    };
    if let Err(e) = port_number(port) {
        return Some(e);
    }
    if !host.is_empty() && !is_ip_literal(host, true) && !is_domain_name(host) {
        return Some(format!(
            "host {:?} is neither an IP address nor a resolvable name",
            host
        ));
    }
    None
}

/// Why `addr` is not a dialable `host:port` (`None` when it is).
pub fn dial_addr_problem(addr: &str) -> Option<String> {
    if is_common_address(addr) {
        None
    } else {
        dial_addr_checked(addr)
    }
}

/// [`dial_addr_problem`] by Go's checks one by one, without the shortcut.
fn dial_addr_checked(addr: &str) -> Option<String> {
    if addr.is_empty() {
        return Some("empty address".into());
    }
    let (host, port) = match split_host_port(addr) {
        Ok(hp) => hp,
        Err(e) => return Some(e.to_string()),
    };
    if host.is_empty() {
        return Some("no host".into());
    }
    match port_number(port) {
        Err(e) => return Some(e),
        Ok(0) => return Some("port 0 cannot be dialed".into()),
        Ok(_) => {}
    }
    if !is_ip_literal(host, true) && !is_domain_name(host) {
        return Some(format!(
            "host {:?} is neither an IP address nor a resolvable name",
            host
        ));
    }
    None
}

/// The port of a `host:port` address, when it is a number.
pub fn addr_port(addr: &str) -> Option<i64> {
    let (_, port) = split_host_port(addr).ok()?;
    port_number(port).ok().map(i64::from)
}

/// The port after the last `:` of an address, even one Go cannot parse
/// (`:::44014`): the port a service was meant to listen on.
pub fn loose_port(addr: &str) -> Option<i64> {
    let (_, p) = addr.rsplit_once(':')?;
    let p = p.trim();
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    p.parse().ok()
}

/// The host of a `host:port` address (brackets removed, lowercased).
pub fn addr_host(addr: &str) -> Option<String> {
    split_host_port(addr).ok().map(|(h, _)| canon_host(h))
}

/// A host in the form used to compare addresses: trimmed, unbracketed, lowercase.
pub fn canon_host(h: &str) -> String {
    let t = h.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .unwrap_or(t);
    t.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass address reader says what the former code (a scan per
    /// check, as Go's source reads) says, and the common-form shortcut what
    /// the checks it skips say, on every string of up to six characters
    /// over the bytes that matter, on random longer ones and on real
    /// addresses.
    #[test]
    fn address_reader_matches_the_former_code() {
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
        for real in [
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
        ] {
            texts.push(real.to_string());
        }
        // Longer ones at random (dotted quads need seven characters or more).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = 7 + (seed % 10) as usize;
            let t: String = (0..len)
                .map(|i| {
                    ['0', '1', '2', '5', '9', '.', '.', ':'][((seed >> (3 * i + 8)) & 7) as usize]
                })
                .collect();
            texts.push(t.clone());
            texts.push(format!("{}:{}", t.replace(':', "."), seed % 70_000));
        }
        for port in [
            "0", "1", "01", "80", "65535", "65536", "99999", "100000", "８０", "",
        ] {
            for host in [
                "[::]",
                "[::1]",
                "[::0]",
                "1.2.3.4",
                "0.0.0.0",
                "255.255.255.255",
                "256.1.1.1",
                "1.2.3",
                "01.2.3.4",
                "1.2.3.4.5",
                "a.b.c.d",
                "",
            ] {
                texts.push(format!("{host}:{port}"));
            }
        }
        let (mut agree, mut ips, mut common) = (0, 0, 0);
        for t in &texts {
            assert_eq!(split_host_port(t), split_host_port_by_scans(t), "{t:?}");
            assert_eq!(port_number(t), port_number_by_trim(t), "{t:?}");
            for zone_ok in [true, false] {
                assert_eq!(
                    is_ip_literal(t, zone_ok),
                    is_ip_literal_by_parsing(t, zone_ok),
                    "{t:?}"
                );
            }
            // The shortcut never changes an answer of the checks it skips.
            assert_eq!(listen_addr_problem(t), listen_addr_checked(t), "{t:?}");
            assert_eq!(dial_addr_problem(t), dial_addr_checked(t), "{t:?}");
            common += usize::from(is_common_address(t));
            agree += usize::from(split_host_port(t).is_ok());
            ips += usize::from(is_ip_literal(t, true));
        }
        assert!(
            texts.len() > 690_000 && agree > 1000 && ips > 1000 && common > 1000,
            "{} {agree} {ips} {common}",
            texts.len()
        );
    }

    /// The former `split_host_port`: one scan per Go check, as Go's code reads.
    fn split_host_port_by_scans(hostport: &str) -> Result<(&str, &str), &'static str> {
        if !hostport.contains(':') {
            return Err("missing port in address");
        }
        // `after_open`: the text after a leading '[' (the whole text without one);
        // `after_close`: the text after the first ']' of a bracketed host.
        let (host, port, after_open, after_close);
        if let Some(rest) = hostport.strip_prefix('[') {
            let Some((inside, after)) = rest.split_once(']') else {
                return Err("missing ']' in address");
            };
            if after.is_empty() {
                return Err("missing port in address");
            }
            // The port must follow the ']' directly, after the last ':'.
            match after.strip_prefix(':') {
                Some(p) if !p.contains(':') => port = p,
                Some(_) => return Err("too many colons in address"),
                None => return Err("missing port in address"),
            }
            host = inside;
            after_open = rest;
            after_close = after;
        } else {
            let Some((h, p)) = hostport.rsplit_once(':') else {
                return Err("missing port in address");
            };
            if h.contains(':') {
                return Err("too many colons in address");
            }
            host = h;
            port = p;
            after_open = hostport;
            after_close = hostport;
        }
        if after_open.contains('[') {
            return Err("unexpected '[' in address");
        }
        if after_close.contains(']') {
            return Err("unexpected ']' in address");
        }
        Ok((host, port))
    }

    fn port_number_by_trim(port: &str) -> Result<u32, String> {
        if port.is_empty() {
            return Err("no port".into());
        }
        if !port.bytes().all(|c| c.is_ascii_digit()) {
            return Err(format!("port {:?} is not a number", port));
        }
        let trimmed = port.trim_start_matches('0');
        if trimmed.len() > 5 {
            return Err(format!("port {} is out of range 0-65535", port));
        }
        let n: u32 = if trimmed.is_empty() {
            0
        } else {
            trimmed
                .parse()
                .map_err(|_| format!("port {:?} is not a number", port))?
        };
        if n > 65535 {
            return Err(format!("port {} is out of range 0-65535", port));
        }
        Ok(n)
    }

    /// The former `is_ip_literal`: both parsers, always.
    fn is_ip_literal_by_parsing(s: &str, zone_ok: bool) -> bool {
        if s.parse::<std::net::Ipv4Addr>().is_ok() {
            return true;
        }
        let core = match s.split_once('%') {
            Some((a, z)) if zone_ok && !z.is_empty() => a,
            Some(_) => return false,
            None => s,
        };
        core.parse::<Ipv6Addr>().is_ok()
    }

    #[test]
    fn join_i_spells_the_index() {
        for n in [
            0usize,
            1,
            9,
            10,
            99,
            100,
            12345,
            u32::MAX as usize,
            usize::MAX,
        ] {
            assert_eq!(join_i("/services", n), format!("/services/{n}"));
        }
        assert_eq!(join_i("", 7), "/7");
    }

    /// Small objects keep the text's order; lookups must not depend on it:
    /// the exact key, else the first case-insensitive one in key order, as
    /// on the sorted tree of the `serde_json::Value` route.
    #[test]
    fn get_ci_does_not_depend_on_the_text_order() {
        let keys = ["NAME", "Name", "name", "nAmE", "other", "NAMEs", "retries"];
        let arena = super::super::tree::Arena::new();
        for n in 1..=keys.len() {
            for start in 0..keys.len() {
                // Every rotation of the first n keys, forwards and backwards.
                let mut chosen: Vec<&str> =
                    (0..n).map(|i| keys[(start + i) % keys.len()]).collect();
                for _ in 0..2 {
                    let text = format!(
                        "{{{}}}",
                        chosen
                            .iter()
                            .enumerate()
                            .map(|(i, k)| format!("\"{k}\":{i}"))
                            .collect::<Vec<_>>()
                            .join(",")
                    );
                    let parsed = super::super::tree::read(&text, &arena).unwrap();
                    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                    let sorted = Val::from_value(&value, &arena);
                    let (p, s) = (parsed.as_object().unwrap(), sorted.as_object().unwrap());
                    assert_eq!(
                        p.keys().collect::<Vec<_>>(),
                        s.keys().collect::<Vec<_>>(),
                        "{text}"
                    );
                    for name in [
                        "name", "NAME", "Name", "names", "other", "OTHER", "retries", "x",
                    ] {
                        let got = get_ci(p, name).map(|(k, v)| (k, v.as_i64()));
                        assert_eq!(
                            got,
                            get_ci(s, name).map(|(k, v)| (k, v.as_i64())),
                            "{text} {name}"
                        );
                        assert_eq!(
                            p.get(name).and_then(Val::as_i64),
                            s.get(name).and_then(Val::as_i64),
                            "{text} {name}"
                        );
                    }
                    chosen.reverse();
                }
            }
        }
    }

    #[test]
    fn key_eq_ci_is_eq_ignore_ascii_case() {
        let words = [
            "",
            "a",
            "A",
            "name",
            "NAME",
            "nAmE",
            "nam",
            "names",
            "retries",
            "Retries",
            "retrieS",
            "retriez",
            "mux.keepaliveInterval",
            "MUX.KEEPALIVEINTERVAL",
            "mux.keepaliveIntervaL",
            "mux\x0ekeepaliveInterval",
            "failTimeout",
            "FAILTIMEOUT",
            "failtimeout_",
            "é",
            "É",
            "ü12345678",
            "Ü12345678",
            "12345678",
            "1234567\x18",
            "@",
            "`",
            "[x]",
            "{x}",
            "chainGroup",
            "CHAINGROUP",
            "chain\x00roup",
        ];
        for a in words {
            for b in words {
                assert_eq!(key_eq_ci(a, b), a.eq_ignore_ascii_case(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn durations_follow_go() {
        assert_eq!(parse_go_duration("600s"), Some(600_000_000_000));
        assert_eq!(parse_go_duration("1m30s"), Some(90_000_000_000));
        assert_eq!(parse_go_duration("1.5h"), Some(5_400_000_000_000));
        assert_eq!(parse_go_duration("0"), Some(0));
        assert_eq!(parse_go_duration("-2ms"), Some(-2_000_000));
        assert_eq!(parse_go_duration("10µs"), Some(10_000));
        assert_eq!(parse_go_duration("600"), None);
        assert_eq!(parse_go_duration(""), None);
        assert_eq!(parse_go_duration("10 m"), None);
        assert_eq!(parse_go_duration("1d"), None);
        assert_eq!(parse_go_duration(".s"), None);
        assert_eq!(parse_go_duration("9999999999h"), None);
    }

    #[test]
    fn split_host_port_follows_go() {
        assert_eq!(split_host_port("[::]:44014"), Ok(("::", "44014")));
        assert_eq!(split_host_port(":44014"), Ok(("", "44014")));
        assert!(split_host_port(":::44014").is_err());
        assert!(split_host_port("1.2.3.4").is_err());
        assert!(split_host_port("[::1]").is_err());
        assert!(split_host_port("2001:db8::9:44010").is_err());
    }

    #[test]
    fn listen_and_dial_addresses() {
        assert!(listen_addr_problem("[::]:44014").is_none());
        assert!(listen_addr_problem(":44014").is_none());
        assert!(listen_addr_problem("0.0.0.0:0").is_none());
        assert!(listen_addr_problem(":::44014").is_some());
        assert!(listen_addr_problem("0.0.0.0").is_some());
        assert!(listen_addr_problem("0.0.0.0:70000").is_some());
        assert!(listen_addr_problem(" 0.0.0.0 :443").is_some());
        assert!(dial_addr_problem("203.0.113.3:45001").is_none());
        assert!(dial_addr_problem("[2001:db8::1]:45001").is_none());
        assert!(dial_addr_problem("cdn.example.com:443").is_none());
        assert!(dial_addr_problem("203.0.113.3").is_some());
        assert!(dial_addr_problem(":443").is_some());
        assert!(dial_addr_problem("2001:db8::1:443").is_some());
    }

    #[test]
    fn reasons_have_chinese() {
        for addr in [
            ":::1", "1.2.3.4", ":x", ":70000", "[::1", "a]:1", "", " a :1",
        ] {
            if let Some(en) = listen_addr_problem(addr) {
                assert_ne!(reason_zh(&en), en, "{}", addr);
            }
        }
        for addr in [":1", "h:0"] {
            let en = dial_addr_problem(addr).unwrap_or_default();
            assert_ne!(reason_zh(&en), en, "{}", addr);
        }
    }
}
