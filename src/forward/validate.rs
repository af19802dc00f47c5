//! The checks the forward paths share (mutations.go:1835-1960, 1966-2100;
//! flow_policy.go:338; security_utils.go:15; federation.go:672;
//! mutations.go:4286-4380, 4882-4960).

use super::rejection::{ForwardRejection, UserState};
use super::store::Store;
use crate::go::net::{is_domain_name, parse_addr, split_host_port, AddrError};
use crate::model::{NodeRecord, NodeTable};
use std::net::IpAddr;

const BYTES_PER_GB: i64 = 1024 * 1024 * 1024;

/// `ensureTunnelPermission`: a normal user needs an active grant.
pub fn tunnel_permission(
    store: &Store,
    user_id: i64,
    role_id: i64,
    tunnel_id: i64,
) -> Result<(), ForwardRejection> {
    if role_id == 0 || store.has_active_grant(user_id, tunnel_id) {
        Ok(())
    } else {
        Err(ForwardRejection::NoTunnelPermission)
    }
}

/// `ensureUserTunnelForwardAllowed`: the user's state, then its grant's.
pub fn user_allowed(
    store: &Store,
    user_id: i64,
    tunnel_id: i64,
    now: i64,
) -> Result<(), ForwardRejection> {
    if user_id <= 0 || tunnel_id <= 0 {
        return Ok(());
    }
    let refuse = |s| Err(ForwardRejection::UserState(s));
    let Some(user) = store.user(user_id) else {
        return refuse(UserState::UserMissing);
    };
    if user.status != 1 {
        return refuse(UserState::UserDisabled);
    }
    if user.exp_time > 0 && user.exp_time <= now {
        return refuse(UserState::UserExpired);
    }
    if user.flow.wrapping_mul(BYTES_PER_GB) < user.in_flow.wrapping_add(user.out_flow) {
        return refuse(UserState::UserFlowExceeded);
    }
    if user.num > 0 && store.active_forwards(user_id, None) >= user.num {
        return refuse(UserState::UserForwardLimit);
    }
    let grant_id = store.resolve_user_tunnel(user_id, tunnel_id).user_tunnel_id;
    let Some(grant) = store.user_tunnel(grant_id).filter(|_| grant_id > 0) else {
        return Ok(());
    };
    if grant.status != 1 {
        return refuse(UserState::GrantDisabled);
    }
    if grant.exp_time > 0 && grant.exp_time <= now {
        return refuse(UserState::GrantExpired);
    }
    if grant.in_flow.wrapping_add(grant.out_flow) >= grant.flow.wrapping_mul(BYTES_PER_GB) {
        return refuse(UserState::GrantFlowExceeded);
    }
    if grant.num > 0 && store.active_forwards(user_id, Some(tunnel_id)) >= grant.num {
        return refuse(UserState::GrantForwardLimit);
    }
    Ok(())
}

/// What `IsSafeRemoteAddr` found for one target.
#[derive(Debug, PartialEq, Eq)]
pub enum TargetCheck {
    Safe,
    /// A host name: the server resolves it, a preview cannot.
    NeedsDns(String),
}

/// `IsSafeRemoteAddr` for a normal user's targets (commas and line breaks
/// separate them): IP literals that are loopback or private are refused;
/// host names are listed, never resolved.
pub fn safe_targets(addr: &str) -> Result<Vec<TargetCheck>, ForwardRejection> {
    let parts = addr
        .split([',', '\n', '\r'])
        .map(str::trim)
        .filter(|p| !p.is_empty());
    parts.map(safe_target).collect()
}

fn safe_target(part: &str) -> Result<TargetCheck, ForwardRejection> {
    let host = match split_host_port(part) {
        Ok((host, _)) => host,
        Err(AddrError::MissingPort) => part,
        Err(e) => {
            return Err(ForwardRejection::UnsafeTarget(format!(
                "invalid address format: address {part}: {}",
                e.en()
            )))
        }
    };
    let Some(ip) = parse_addr(host) else {
        // Go's resolver turns down an empty host and a host that is no
        // domain name before it asks anyone (net/lookup.go `lookupIPAddr`,
        // net/dnsclient_unix.go `isDomainName`): no DNS answer is assumed.
        if !is_domain_name(host) {
            // The server quotes the target as given; a userinfo or a secret
            // parameter in it is never echoed (README, "Limits": credential-like
            // fields never reach any output).
            let shown =
                |text: &str| crate::redact::scrub_url(text).unwrap_or_else(|| text.to_string());
            return Err(ForwardRejection::UnsafeTarget(format!(
                "could not resolve address {}: lookup {}: no such host",
                crate::go::strings::quote(&shown(part)),
                shown(host),
            )));
        }
        return Ok(TargetCheck::NeedsDns(host.to_string()));
    };
    if is_loopback_or_private(ip) {
        return Err(ForwardRejection::UnsafeTarget(format!(
            "address {} resolves to internal IP: {}",
            crate::go::strings::quote(part),
            go_ip_string(ip)
        )));
    }
    Ok(TargetCheck::Safe)
}

/// Go's `IP.IsLoopback() || IP.IsPrivate()` (an IPv4-mapped address counts as its IPv4).
fn is_loopback_or_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.is_loopback() || v4.is_private(),
            None => v6.is_loopback() || (v6.segments()[0] & 0xfe00) == 0xfc00,
        },
    }
}

/// Go's `IP.String()`: an IPv4-mapped address prints as IPv4.
fn go_ip_string(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        v4 => v4.to_string(),
    }
}

/// `validateRemoteNodePort`, `validateLocalNodePort` and
/// `validateForwardPortAvailability` for every entry node, in order.
pub fn entry_ports(
    store: &Store,
    nodes: &NodeTable,
    entries: &[i64],
    port: i64,
    forward_id: i64,
) -> Result<(), ForwardRejection> {
    for node in entries.iter().filter_map(|id| nodes.get(*id)) {
        remote_port(node, port)?;
        local_port(node, port)?;
        if store.port_taken(node.id, port, forward_id) {
            return Err(ForwardRejection::PortTaken {
                node: node.row_name.clone(),
                port,
            });
        }
    }
    Ok(())
}

fn remote_port(node: &NodeRecord, port: i64) -> Result<(), ForwardRejection> {
    if !node.is_remote || port <= 0 {
        return Ok(());
    }
    let (start, end) = node.remote_port_range();
    if start <= 0 || end <= 0 || (start..=end).contains(&port) {
        return Ok(());
    }
    Err(ForwardRejection::RemotePortOutOfRange { port, start, end })
}

fn local_port(node: &NodeRecord, port: i64) -> Result<(), ForwardRejection> {
    if node.is_remote || port <= 0 {
        return Ok(());
    }
    let (min, max) = port_range_min_max(&node.port_range);
    if min <= 0 || max <= 0 || (min..=max).contains(&port) {
        return Ok(());
    }
    Err(ForwardRejection::PortOutOfRange {
        port,
        node: node.row_name.clone(),
        min,
        max,
    })
}

/// `parsePortRangeMinMax`: the lowest and highest port of a range list,
/// skipping parts it cannot read.
fn port_range_min_max(spec: &str) -> (i64, i64) {
    let (mut min, mut max) = (0i64, 0i64);
    let mut see = |lo: i64, hi: i64| {
        if min == 0 || lo < min {
            min = lo;
        }
        if max == 0 || hi > max {
            max = hi;
        }
    };
    for part in spec
        .trim()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        if let Some((a, b)) = part.split_once('-') {
            let (Some(a), Some(b)) = (atoi(a), atoi(b)) else {
                continue;
            };
            if a > 0 && b > 0 {
                see(a.min(b), a.max(b));
            }
        } else if let Some(p) = atoi(part).filter(|p| *p > 0) {
            see(p, p);
        }
    }
    (min, max)
}

fn atoi(s: &str) -> Option<i64> {
    crate::go::coerce::parse_int(s.trim())
}

/// `parsePorts` as ranges `(first, last)` in the listed order, or `None`
/// where the server gives up on the node (a malformed part). Ranges, not
/// the expanded list: a range list of a few bytes may name millions of ports.
fn parse_port_ranges(spec: &str) -> Option<Vec<(i64, i64)>> {
    let mut ranges = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.contains('-') {
            let mut bounds = part.split('-');
            let (Some(a), Some(b), None) = (bounds.next(), bounds.next(), bounds.next()) else {
                return None;
            };
            let (a, b) = (atoi(a)?, atoi(b)?);
            if a > b {
                return None;
            }
            ranges.push((a, b));
        } else {
            let p = atoi(part)?;
            ranges.push((p, p));
        }
    }
    Some(ranges)
}

/// The port ranges of a node (`1000-65535` when it has none), or `None`.
fn node_ranges(node: &NodeRecord) -> Option<Vec<(i64, i64)>> {
    match node.port_range.as_str() {
        "" => Some(vec![(1000, 65535)]),
        s => parse_port_ranges(s),
    }
}

/// One entry node's ports: its ranges in listed order, and the ports its
/// rows already use (sorted).
type NodePorts = (Vec<(i64, i64)>, Vec<i64>);

/// The first port, in the order the first range list lists them, that every
/// other list holds and no list's node uses: the first of the server's
/// `commonAvailable`.
fn first_common_free(lists: &[NodePorts]) -> Option<i64> {
    let (first, rest) = lists.split_first()?;
    let free_everywhere = |p: i64| {
        lists
            .iter()
            .all(|(_, used)| used.binary_search(&p).is_err())
            && rest
                .iter()
                .all(|(ranges, _)| ranges.iter().any(|(a, b)| (*a..=*b).contains(&p)))
    };
    for &(a, b) in &first.0 {
        // Candidates inside [a, b]: a, and each bound where membership can change.
        let mut marks: Vec<i64> = vec![a];
        for (ranges, used) in lists {
            marks.extend(ranges.iter().flat_map(|(x, y)| [*x, y.saturating_add(1)]));
            marks.extend(used.iter().map(|u| u.saturating_add(1)));
        }
        marks.retain(|m| (a..=b).contains(m));
        marks.sort_unstable();
        marks.dedup();
        for (i, &from) in marks.iter().enumerate() {
            let to = marks.get(i + 1).map_or(b, |next| next - 1);
            // Within [from, to] the ranges do not change; used ports are single points.
            let mut p = from;
            while p <= to {
                if free_everywhere(p) {
                    return Some(p);
                }
                if lists
                    .iter()
                    .all(|(_, used)| used.binary_search(&p).is_err())
                {
                    break; // not in some other list's ranges: nothing in this stretch is
                }
                p += 1;
            }
        }
    }
    None
}

/// `pickTunnelPort`: a port free on every entry node (forward and chain
/// ports), the first of them here where the server draws one at random;
/// 10000 when none is.
pub fn pick_port(store: &Store, nodes: &NodeTable, entries: &[i64]) -> i64 {
    let mut lists = Vec::new();
    for id in entries {
        let Some(ranges) = nodes.get(*id).and_then(node_ranges) else {
            continue;
        };
        lists.push((ranges, store.used_ports(*id)));
    }
    first_common_free(&lists).unwrap_or(10000)
}

/// `resolvePortForNewEntryNode`: the forward's reference port where the new
/// entry node allows it and it is free there, else the node's first free
/// port (the server draws one at random), else the reference port.
pub fn port_for_new_entry(
    store: &Store,
    nodes: &NodeTable,
    node_id: i64,
    reference: i64,
    forward_id: i64,
) -> i64 {
    let Some(node) = nodes.get(node_id) else {
        return reference;
    };
    let fits = local_port(node, reference).is_ok() && remote_port(node, reference).is_ok();
    if fits && !store.port_taken(node_id, reference, forward_id) {
        return reference;
    }
    node_ranges(node)
        .and_then(|ranges| first_common_free(&[(ranges, store.used_ports(node_id))]))
        .filter(|p| *p > 0)
        .unwrap_or(reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's way: expand each list, drop its node's used ports,
    /// intersect in the first list's order.
    fn expanded(lists: &[NodePorts]) -> Option<i64> {
        let mut common: Option<Vec<i64>> = None;
        for (ranges, used) in lists {
            let free: Vec<i64> = ranges
                .iter()
                .flat_map(|(a, b)| *a..=*b)
                .filter(|p| !used.contains(p))
                .collect();
            common = Some(match common {
                None => free,
                Some(c) => c.into_iter().filter(|p| free.contains(p)).collect(),
            });
        }
        common.and_then(|c| c.first().copied())
    }

    /// `IsSafeRemoteAddr` (security_utils.go:44-65) on targets that need no
    /// DNS answer to judge: IP literals, and hosts Go's resolver refuses
    /// before any query (empty, or no domain name); a domain name is left to
    /// DNS.
    #[test]
    fn targets_the_resolver_refuses_without_a_query_are_unsafe() {
        let refused = |addr: &str| match safe_targets(addr) {
            Err(ForwardRejection::UnsafeTarget(text)) => text,
            other => panic!("{addr}: {other:?}"),
        };
        assert_eq!(
            refused(":8080"),
            r#"could not resolve address ":8080": lookup : no such host"#
        );
        assert_eq!(
            refused("[]:80"),
            r#"could not resolve address "[]:80": lookup : no such host"#
        );
        assert_eq!(
            refused("[::1]"),
            r#"could not resolve address "[::1]": lookup [::1]: no such host"#
        );
        // Quoted without the credentials a URL-like target may carry.
        assert_eq!(
            refused("1.1.1.1:80, user@10.0.0.1:80"),
            r#"could not resolve address "[redacted]@10.0.0.1:80": lookup [redacted]@10.0.0.1: no such host"#
        );
        assert_eq!(
            refused("example.com/x?token=abc123"),
            r#"could not resolve address "example.com/x?token=[redacted]": lookup example.com/x?token=[redacted]: no such host"#
        );
        assert_eq!(
            refused("10.1.2.3:22"),
            r#"address "10.1.2.3:22" resolves to internal IP: 10.1.2.3"#
        );
        assert_eq!(
            safe_targets("example.com:443, 8.8.8.8:53, .:1").ok(),
            Some(vec![
                TargetCheck::NeedsDns("example.com".into()),
                TargetCheck::Safe,
                TargetCheck::NeedsDns(".".into()),
            ])
        );
    }

    #[test]
    fn the_first_common_free_port_is_the_one_the_expanded_lists_give() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as i64
        };
        for _ in 0..3000 {
            let lists: Vec<NodePorts> = (0..1 + next(3))
                .map(|_| {
                    let ranges = (0..1 + next(3))
                        .map(|_| {
                            let a = next(40);
                            (a, a + next(15))
                        })
                        .collect();
                    let mut used: Vec<i64> = (0..next(8)).map(|_| next(60)).collect();
                    used.sort_unstable();
                    used.dedup();
                    (ranges, used)
                })
                .collect();
            assert_eq!(first_common_free(&lists), expanded(&lists), "{lists:?}");
        }
    }

    #[test]
    fn a_range_of_millions_of_ports_is_not_expanded() {
        let lists = vec![
            (vec![(1, 4_000_000_000)], vec![1, 2, 3]),
            (vec![(2, 9_000_000_000)], vec![]),
        ];
        assert_eq!(first_common_free(&lists), Some(4));
    }
}
