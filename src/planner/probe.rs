//! The tunnel's probe target (`probeTargetHost` / `probeTargetPort`): the
//! server validates it on create and, when either field is present, on edit.

use super::rejection::{Rejection, Result};
use crate::go::net::parse_addr;
use crate::model::{ProbeCell, TunnelPayload};
use std::net::IpAddr;

const HOST: &str = "/tunnel/probeTargetHost";
const PORT: &str = "/tunnel/probeTargetPort";

fn refuse(message: &'static str, english: &'static str, field: &'static str) -> Rejection {
    Rejection::ProbeTarget {
        message,
        english,
        field,
    }
}

fn bad_format() -> Rejection {
    refuse(
        "测试目标 Host 格式无效",
        "the probe target host is not an IP address or a host name",
        HOST,
    )
}

fn has_scheme_or_path() -> Rejection {
    refuse(
        "测试目标 Host 不能包含协议或路径",
        "the probe target host must be a bare host: no scheme, path, padding or white space",
        HOST,
    )
}

/// Validates the probe target when the payload has either field (even null);
/// a payload with neither keeps the default target.
pub fn validate(tunnel: &TunnelPayload) -> Result<()> {
    let (host, port) = (&tunnel.probe_target_host, &tunnel.probe_target_port);
    if host.is_none() && port.is_none() {
        return Ok(());
    }
    let host = match host {
        None | Some(ProbeCell::Null) => "",
        Some(ProbeCell::Str(s)) if s.trim() != s => return Err(has_scheme_or_path()),
        Some(ProbeCell::Str(s)) => s.as_str(),
        Some(_) => return Err(bad_format()),
    };
    let port = read_port(port)?;
    let host = host.trim();
    if host.is_empty() && port == 0 {
        return Ok(());
    }
    if host.is_empty() {
        return Err(refuse(
            "测试目标 Host 不能为空",
            "the probe target has a port but no host",
            HOST,
        ));
    }
    if !(1..=65535).contains(&port) {
        return Err(refuse(
            "测试目标端口必须是 1-65535",
            "the probe target port must be 1-65535",
            PORT,
        ));
    }
    if host.contains("://")
        || host.contains(['/', '?', '#', ' ', '\t', '\r', '\n'])
        || scheme_like(host)
    {
        return Err(has_scheme_or_path());
    }
    if !host_is_valid(host) {
        return Err(bad_format());
    }
    Ok(())
}

fn read_port(v: &Option<ProbeCell>) -> Result<i64> {
    let not_integer = || {
        refuse(
            "测试目标端口必须是整数",
            "the probe target port must be an integer",
            PORT,
        )
    };
    match v {
        None | Some(ProbeCell::Null) => Ok(0),
        Some(ProbeCell::Num(n)) => match crate::coerce::exact_int(n) {
            Some(i) => Ok(i),
            None => Err(not_integer()),
        },
        Some(ProbeCell::Str(s)) if s.is_empty() => Ok(0),
        Some(ProbeCell::Str(s)) if s.trim() != s => Err(not_integer()),
        Some(ProbeCell::Str(s)) => crate::go::coerce::parse_int(s).ok_or_else(not_integer),
        Some(ProbeCell::Other) => Err(not_integer()),
    }
}

/// `letter (letter | digit | + - .)* :` before anything else, and not an IP literal.
fn scheme_like(host: &str) -> bool {
    if parse_addr(host).is_some() {
        return false;
    }
    let Some(colon) = host.find(':') else {
        return false;
    };
    let scheme = &host[..colon];
    let mut chars = scheme.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn host_is_valid(host: &str) -> bool {
    if host.starts_with('[') || host.ends_with(']') {
        let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) else {
            return false;
        };
        return matches!(parse_addr(inner), Some(IpAddr::V6(_)));
    }
    if parse_addr(host).is_some() {
        return true;
    }
    let ipv4_like = host.contains('.') && host.chars().all(|c| c.is_ascii_digit() || c == '.');
    if host.contains(':') || ipv4_like || host.len() > 253 {
        return false;
    }
    host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn check(v: Value) -> std::result::Result<(), &'static str> {
        let arena = crate::json::tree::Arena::new();
        let payload: TunnelPayload = crate::coerce::from_tree(&crate::encode::to_tree(&v, &arena));
        validate(&payload).map_err(|e| match e {
            Rejection::ProbeTarget { message, .. } => message,
            _ => "other",
        })
    }

    #[test]
    fn accepts_what_the_server_accepts() {
        assert_eq!(check(json!({})), Ok(()));
        assert_eq!(check(json!({"probeTargetHost": null})), Ok(()));
        assert_eq!(
            check(json!({"probeTargetHost": "", "probeTargetPort": ""})),
            Ok(())
        );
        assert_eq!(
            check(json!({"probeTargetHost": "www.example.com", "probeTargetPort": 443})),
            Ok(())
        );
        assert_eq!(
            check(json!({"probeTargetHost": "1.1.1.1", "probeTargetPort": "53"})),
            Ok(())
        );
        assert_eq!(
            check(json!({"probeTargetHost": "[2001:db8::1]", "probeTargetPort": 80.0})),
            Ok(())
        );
        assert_eq!(
            check(json!({"probeTargetHost": "fe80::1%eth0", "probeTargetPort": 80})),
            Ok(())
        );
    }

    #[test]
    fn refuses_a_non_string_or_padded_host() {
        assert_eq!(
            check(json!({"probeTargetHost": 5})),
            Err("测试目标 Host 格式无效")
        );
        assert_eq!(
            check(json!({"probeTargetHost": " a.com"})),
            Err("测试目标 Host 不能包含协议或路径")
        );
    }

    #[test]
    fn refuses_a_port_that_is_not_an_integer() {
        assert_eq!(
            check(json!({"probeTargetHost": "a.com", "probeTargetPort": 1.5})),
            Err("测试目标端口必须是整数")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "a.com", "probeTargetPort": " 1"})),
            Err("测试目标端口必须是整数")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "a.com", "probeTargetPort": true})),
            Err("测试目标端口必须是整数")
        );
    }

    #[test]
    fn needs_a_host_and_a_port_in_range() {
        assert_eq!(
            check(json!({"probeTargetPort": 443})),
            Err("测试目标 Host 不能为空")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "a.com"})),
            Err("测试目标端口必须是 1-65535")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "a.com", "probeTargetPort": 70000})),
            Err("测试目标端口必须是 1-65535")
        );
    }

    #[test]
    fn refuses_a_scheme_or_a_path() {
        assert_eq!(
            check(json!({"probeTargetHost": "http://a.com", "probeTargetPort": 1})),
            Err("测试目标 Host 不能包含协议或路径")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "a.com/x", "probeTargetPort": 1})),
            Err("测试目标 Host 不能包含协议或路径")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "localhost:80", "probeTargetPort": 1})),
            Err("测试目标 Host 不能包含协议或路径")
        );
    }

    #[test]
    fn refuses_a_malformed_host() {
        assert_eq!(
            check(json!({"probeTargetHost": "1.2.3", "probeTargetPort": 1})),
            Err("测试目标 Host 格式无效")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "01.2.3.4", "probeTargetPort": 1})),
            Err("测试目标 Host 格式无效")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "-a.com", "probeTargetPort": 1})),
            Err("测试目标 Host 格式无效")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "[1.2.3.4]", "probeTargetPort": 1})),
            Err("测试目标 Host 格式无效")
        );
        assert_eq!(
            check(json!({"probeTargetHost": "例子.com", "probeTargetPort": 1})),
            Err("测试目标 Host 格式无效")
        );
    }
}
