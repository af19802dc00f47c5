//! Small helpers the checker needs: JSON Pointers, field lookups, integer
//! fields, and why an address cannot be listened on or dialed (Go's rules
//! themselves are in [`crate::go`]). All total: they return `None`/`Err` on
//! bad input and never panic.

use super::tree::{TreeObject, TreeValue};
use crate::finding::pointer_token;
use crate::go::coerce::json_int64;
use crate::go::net::{
    dotted_quad_len, is_domain_name, parse_addr, port_number, port_value, split_host_port,
    AddrError, PortError,
};

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
pub(crate) enum Pointer<'a> {
    /// An already built pointer.
    Base(&'a str),
    Key(&'a Pointer<'a>, &'a str),
    Index(&'a Pointer<'a>, usize),
}

impl Pointer<'_> {
    pub fn render(&self) -> String {
        match self {
            Pointer::Base(b) => b.to_string(),
            Pointer::Key(parent, k) => join(&parent.render(), k),
            Pointer::Index(parent, i) => join_i(&parent.render(), *i),
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
pub(crate) fn get_ci<'o, 'a>(
    obj: &'o TreeObject<'a>,
    name: &str,
) -> Option<(&'o str, &'o TreeValue<'a>)> {
    obj.get_ci(name)
}

/// A string field (Go semantics: a non-string is treated as absent here; the
/// decode-type rule reports it separately).
pub(crate) fn get_str<'o>(obj: &'o TreeObject<'_>, name: &str) -> Option<&'o str> {
    get_ci(obj, name).and_then(|(_, v)| v.as_str())
}

pub(crate) fn get_obj<'o, 'a>(obj: &'o TreeObject<'a>, name: &str) -> Option<&'o TreeObject<'a>> {
    get_ci(obj, name).and_then(|(_, v)| v.as_object())
}

pub(crate) fn get_arr<'o, 'a>(obj: &'o TreeObject<'a>, name: &str) -> Option<&'o [TreeValue<'a>]> {
    get_ci(obj, name).and_then(|(_, v)| v.as_array())
}

/// An integer field's value as the agent decodes it ([`json_int64`]):
/// `Ok(None)` when absent or null, `Err(())` when present with a type or a
/// number Go's decoder rejects.
pub(crate) fn go_int(v: Option<&TreeValue<'_>>) -> Result<Option<i64>, ()> {
    match v {
        None | Some(TreeValue::Null) => Ok(None),
        Some(TreeValue::Num(n)) => json_int64(n).map(Some).ok_or(()),
        Some(_) => Err(()),
    }
}

/// A JSON value's type as messages name it: (English, Chinese).
fn json_type_names(v: &TreeValue<'_>) -> (&'static str, &'static str) {
    match v {
        TreeValue::Null => ("null", "null"),
        TreeValue::Bool(_) => ("boolean", "布尔值"),
        TreeValue::Num(n) if n.is_f64() => ("non-integer number", "非整数数字"),
        TreeValue::Num(_) => ("integer", "整数"),
        TreeValue::Str(_) => ("string", "字符串"),
        TreeValue::Arr(_) => ("array", "数组"),
        TreeValue::Object(_) => ("object", "对象"),
    }
}

/// Short name of a JSON value's type, for messages.
pub(crate) fn json_type(v: &TreeValue<'_>) -> &'static str {
    json_type_names(v).0
}

/// Chinese name of a JSON value's type, for messages.
pub(crate) fn json_type_zh(v: &TreeValue<'_>) -> &'static str {
    json_type_names(v).1
}

/// Why an address cannot be listened on or dialed: Go's own refusals, and
/// the checker's (an empty address, a port or host the agent cannot use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddrProblem {
    /// `net.SplitHostPort` refused it.
    Split(AddrError),
    Port(PortError),
    Empty,
    /// An empty listen address (Go would pick a random port).
    EmptyListen,
    NoHost,
    PortZero,
    /// Neither an IP literal nor a name Go's resolver would look up.
    BadHost(String),
}

impl AddrProblem {
    pub fn en(&self) -> String {
        match self {
            AddrProblem::Split(e) => e.en().to_string(),
            AddrProblem::Port(e) => e.en(),
            AddrProblem::Empty => "empty address".into(),
            AddrProblem::EmptyListen => "empty address: no port to listen on".into(),
            AddrProblem::NoHost => "no host".into(),
            AddrProblem::PortZero => "port 0 cannot be dialed".into(),
            AddrProblem::BadHost(h) => {
                format!(
                    "host {:?} is neither an IP address nor a resolvable name",
                    h
                )
            }
        }
    }

    pub fn zh(&self) -> String {
        match self {
            AddrProblem::Split(e) => e.zh().to_string(),
            AddrProblem::Port(e) => e.zh(),
            AddrProblem::Empty => "地址为空".into(),
            AddrProblem::EmptyListen => "地址为空：没有可监听的端口".into(),
            AddrProblem::NoHost => "没有主机".into(),
            AddrProblem::PortZero => "不能拨号到端口 0".into(),
            AddrProblem::BadHost(h) => format!("主机 {:?} 既不是 IP 地址也不是可解析的域名", h),
        }
    }
}

/// A host Go can listen on or dial: an IP literal (IPv6 may carry a zone)
/// or a domain name.
fn is_usable_host(host: &str) -> bool {
    parse_addr(host).is_some() || is_domain_name(host)
}

/// True for the two forms nearly every address of a plan or config takes,
/// `a.b.c.d:port` and `[::]:port` with a port from 1 to 65535: both listen
/// and dial problems are `None` for them, found without the general checks
/// below. `false` leaves the address to those checks (which then decide,
/// whatever it is).
fn is_common_address(addr: &str) -> bool {
    let port = match addr.strip_prefix("[::]:") {
        Some(port) => port,
        None => match dotted_quad_len(addr.as_bytes()) {
            Some(n) if addr.as_bytes().get(n) == Some(&b':') => {
                addr.get(n + 1..).unwrap_or_default()
            }
            _ => return false,
        },
    };
    matches!(port_value(port.as_bytes()), Some(1..))
}

/// Why Go could not listen on `addr` (`None` when it can).
pub fn listen_addr_problem(addr: &str) -> Option<AddrProblem> {
    if is_common_address(addr) {
        None
    } else {
        listen_addr_checked(addr)
    }
}

/// [`listen_addr_problem`] by Go's checks one by one, without the shortcut.
fn listen_addr_checked(addr: &str) -> Option<AddrProblem> {
    if addr.is_empty() {
        return Some(AddrProblem::EmptyListen);
    }
    let (host, port) = match split_host_port(addr) {
        Ok(hp) => hp,
        Err(e) => return Some(AddrProblem::Split(e)),
    };
    if let Err(e) = port_number(port) {
        return Some(AddrProblem::Port(e));
    }
    if !host.is_empty() && !is_usable_host(host) {
        return Some(AddrProblem::BadHost(host.to_string()));
    }
    None
}

/// Why `addr` is not a dialable `host:port` (`None` when it is).
pub fn dial_addr_problem(addr: &str) -> Option<AddrProblem> {
    if is_common_address(addr) {
        None
    } else {
        dial_addr_checked(addr)
    }
}

/// [`dial_addr_problem`] by Go's checks one by one, without the shortcut.
fn dial_addr_checked(addr: &str) -> Option<AddrProblem> {
    if addr.is_empty() {
        return Some(AddrProblem::Empty);
    }
    let (host, port) = match split_host_port(addr) {
        Ok(hp) => hp,
        Err(e) => return Some(AddrProblem::Split(e)),
    };
    if host.is_empty() {
        return Some(AddrProblem::NoHost);
    }
    match port_number(port) {
        Err(e) => return Some(AddrProblem::Port(e)),
        Ok(0) => return Some(AddrProblem::PortZero),
        Ok(_) => {}
    }
    if !is_usable_host(host) {
        return Some(AddrProblem::BadHost(host.to_string()));
    }
    None
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

/// "node 3" / "节点 3", or "this node" when the document does not say which.
pub fn node_label(node_id: Option<i64>) -> (String, String) {
    match node_id {
        Some(n) => (format!("node {n}"), format!("节点 {n}")),
        None => ("this node".to_string(), "该节点".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass address reader says what a scan per check (as Go's
    /// source reads) says, and the common-form shortcut what the checks it
    /// skips say, on every string of up to six characters over the bytes
    /// that matter, on random longer ones and on real addresses.
    #[test]
    fn address_reader_matches_the_former_code() {
        let mut texts = crate::go::net::address_samples();
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
            assert_eq!(
                port_number(t).map(u32::from).map_err(|e| e.en()),
                port_number_by_trim(t),
                "{t:?}"
            );
            assert_eq!(
                parse_addr(t).is_some(),
                is_ip_literal_by_parsing(t, true),
                "{t:?}"
            );
            assert_eq!(
                crate::go::net::parse_ip(t).is_some(),
                is_ip_literal_by_parsing(t, false),
                "{t:?}"
            );
            // The shortcut never changes an answer of the checks it skips.
            assert_eq!(listen_addr_problem(t), listen_addr_checked(t), "{t:?}");
            assert_eq!(dial_addr_problem(t), dial_addr_checked(t), "{t:?}");
            common += usize::from(is_common_address(t));
            agree += usize::from(split_host_port(t).is_ok());
            ips += usize::from(parse_addr(t).is_some());
        }
        assert!(
            texts.len() > 690_000 && agree > 1000 && ips > 1000 && common > 1000,
            "{} {agree} {ips} {common}",
            texts.len()
        );
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

    /// An IP literal by both of std's parsers: what [`parse_addr`] must answer.
    fn is_ip_literal_by_parsing(s: &str, zone_ok: bool) -> bool {
        if s.parse::<std::net::Ipv4Addr>().is_ok() {
            return true;
        }
        let core = match s.split_once('%') {
            Some((a, z)) if zone_ok && !z.is_empty() => a,
            Some(_) => return false,
            None => s,
        };
        core.parse::<std::net::Ipv6Addr>().is_ok()
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
                    let sorted = crate::encode::to_tree(&value, &arena);
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
                            p.get(name).and_then(TreeValue::as_i64),
                            s.get(name).and_then(TreeValue::as_i64),
                            "{text} {name}"
                        );
                    }
                    chosen.reverse();
                }
            }
        }
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
            if let Some(why) = listen_addr_problem(addr) {
                assert_ne!(why.zh(), why.en(), "{}", addr);
            }
        }
        for addr in [":1", "h:0"] {
            let why = dial_addr_problem(addr).unwrap();
            assert_ne!(why.zh(), why.en(), "{}", addr);
        }
        let why = listen_addr_problem(":::1").unwrap();
        assert_eq!(why.en(), "too many colons in address");
        assert_eq!(why.zh(), "地址中冒号过多（IPv6 地址需加方括号）");
        let why = dial_addr_problem(" a :1").unwrap();
        assert_eq!(
            why.en(),
            "host \" a \" is neither an IP address nor a resolvable name"
        );
        assert_eq!(why.zh(), "主机 \" a \" 既不是 IP 地址也不是可解析的域名");
        assert_eq!(
            listen_addr_problem(":x").unwrap().zh(),
            "端口 \"x\" 不是数字"
        );
    }
}
