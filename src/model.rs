//! The planner's input model: panel node rows, tunnel payload items and the
//! preview's federation answers, read with the server's loose coercions.

use crate::address::{parse_ip, IpKind};
use crate::coerce::{default_string, go_int, go_string, map_slice};
use serde_json::{Map, Value};
use crate::fast_map::FastMap as HashMap;

/// One node row, as the server's node record holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRecord {
    pub id: i64,
    /// Display name: the trimmed `name`, or `node_{id}` when blank.
    pub name: String,
    pub server_ip: String,
    pub server_ipv4: String,
    pub server_ipv6: String,
    /// Port range spec, e.g. `40000-40100,50000`.
    pub port_range: String,
    /// Listen address (trimmed; empty stays empty).
    pub tcp_listen_addr: String,
    pub interface_name: String,
    pub status: i64,
    pub is_remote: bool,
    pub remote_url: String,
    /// Only ever tested for presence; never copied into any output.
    pub has_remote_token: bool,
    pub remote_config: String,
}

/// A string field that the server stores untrimmed.
fn raw_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        other => go_string(other),
    }
}

impl NodeRecord {
    pub fn from_row(row: &Map<String, Value>) -> NodeRecord {
        let id = go_int(row.get("id"), 0);
        let name = go_string(row.get("name"));
        let name = if name.is_empty() { format!("node_{}", id) } else { name };
        NodeRecord {
            id,
            name,
            server_ip: go_string(row.get("serverIp")),
            server_ipv4: go_string(row.get("serverIpV4")),
            server_ipv6: go_string(row.get("serverIpV6")),
            port_range: go_string(row.get("port")),
            tcp_listen_addr: go_string(row.get("tcpListenAddr")),
            interface_name: go_string(row.get("interfaceName")),
            status: go_int(row.get("status"), 0),
            is_remote: go_int(row.get("isRemote"), 0) == 1,
            remote_url: go_string(row.get("remoteUrl")),
            has_remote_token: !go_string(row.get("remoteToken")).is_empty(),
            remote_config: go_string(row.get("remoteConfig")),
        }
    }

    /// Whether other nodes can reach it over IPv4.
    pub fn supports_v4(&self) -> bool {
        self.supports(IpKind::V4)
    }

    /// Whether other nodes can reach it over IPv6.
    pub fn supports_v6(&self) -> bool {
        self.supports(IpKind::V6)
    }

    fn supports(&self, family: IpKind) -> bool {
        let (own, other) = match family {
            IpKind::V4 => (&self.server_ipv4, &self.server_ipv6),
            IpKind::V6 => (&self.server_ipv6, &self.server_ipv4),
        };
        if !own.is_empty() {
            return true;
        }
        if !other.is_empty() {
            return false;
        }
        let legacy = self.server_ip.trim_matches(|c| c == '[' || c == ']');
        if legacy.is_empty() {
            return false;
        }
        match parse_ip(legacy) {
            Some(kind) => kind == family,
            None => true,
        }
    }

    pub fn address_v4(&self) -> &str {
        if self.server_ipv4.is_empty() {
            &self.server_ip
        } else {
            &self.server_ipv4
        }
    }

    pub fn address_v6(&self) -> &str {
        if self.server_ipv6.is_empty() {
            &self.server_ip
        } else {
            &self.server_ipv6
        }
    }

    /// `portRangeStart`/`portRangeEnd` of a remote share, (0, 0) when unset.
    pub fn remote_port_range(&self) -> (i64, i64) {
        if !self.is_remote || self.remote_config.is_empty() {
            return (0, 0);
        }
        match crate::json::from_str(&self.remote_config) {
            Ok(Value::Object(cfg)) => (go_int(cfg.get("portRangeStart"), 0), go_int(cfg.get("portRangeEnd"), 0)),
            _ => (0, 0),
        }
    }

    /// The first port of the node's range spec (the preview's pick), if any.
    pub fn first_free_port(&self) -> Option<i64> {
        first_port_of_range(&self.port_range)
    }
}

/// Smallest valid port named by a range spec like `40000-40100,50000`
/// (reversed ranges count, invalid parts are skipped).
pub fn first_port_of_range(spec: &str) -> Option<i64> {
    let mut best: Option<i64> = None;
    for part in spec.trim().split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let candidate = if let Some((a, b)) = part.split_once('-') {
            match (a.trim().parse::<i64>(), b.trim().parse::<i64>()) {
                (Ok(s), Ok(e)) if s > 0 && e > 0 => s.min(e),
                _ => continue,
            }
        } else {
            match part.parse::<i64>() {
                Ok(p) if p > 0 => p,
                _ => continue,
            }
        };
        best = Some(best.map_or(candidate, |b| b.min(candidate)));
    }
    best
}

/// The node rows by id (the first row wins when an id repeats).
pub fn node_table(nodes: Option<&Value>) -> HashMap<i64, NodeRecord> {
    let mut table = HashMap::default();
    for row in map_slice(nodes) {
        let rec = NodeRecord::from_row(row);
        if rec.id > 0 {
            table.entry(rec.id).or_insert(rec);
        }
    }
    table
}

/// The kind of place a node holds in the tunnel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Entry,
    Middle,
    Exit,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Entry => "entry",
            Role::Middle => "middle",
            Role::Exit => "exit",
        }
    }
}

/// One tunnel item (entry, hop node or exit) after coercion.
#[derive(Debug, Clone, PartialEq)]
pub struct TunnelNode {
    pub node_id: i64,
    pub protocol: String,
    pub strategy: String,
    pub port: i64,
    pub connect_ip: String,
    pub role: Role,
    /// 1-based hop number among surviving hops for middles, 0 otherwise.
    pub hop: i64,
}

impl TunnelNode {
    pub fn from_item(item: &Map<String, Value>, role: Role) -> TunnelNode {
        TunnelNode {
            node_id: go_int(item.get("nodeId"), 0),
            protocol: default_string(&go_string(item.get("protocol")), "tls"),
            strategy: default_string(&go_string(item.get("strategy")), "round"),
            port: if role == Role::Entry { 0 } else { go_int(item.get("port"), 0) },
            connect_ip: if role == Role::Entry { String::new() } else { go_string(item.get("connectIp")) },
            role,
            hop: 0,
        }
    }
}

/// What a provider panel allocates for one federated node in a preview.
#[derive(Debug, Clone, PartialEq)]
pub struct FederationInfo {
    pub runtime_id: i64,
    /// `None` means: the requested port is granted.
    pub allocated_port: Option<i64>,
    /// The provider's own listen address for that node, as stored.
    pub tcp_listen_addr: String,
    pub interface_name: String,
}

impl FederationInfo {
    /// The preview answer for `node_id`, with the documented defaults for
    /// whatever the input leaves out.
    pub fn lookup(federation: Option<&Value>, node_id: i64) -> FederationInfo {
        let entry = federation
            .and_then(Value::as_object)
            .and_then(|m| m.get(&node_id.to_string()))
            .and_then(Value::as_object);
        let get = |k: &str| entry.and_then(|e| e.get(k));
        let runtime_id = go_int(get("runtimeId"), 0);
        let runtime_id = if runtime_id > 0 { runtime_id } else { node_id.saturating_mul(10) };
        let allocated = go_int(get("allocatedPort"), 0);
        let tcp_listen_addr = match entry {
            Some(_) => raw_string(get("tcpListenAddr")),
            None => "[::]".to_string(),
        };
        FederationInfo {
            runtime_id,
            allocated_port: if allocated > 0 { Some(allocated) } else { None },
            tcp_listen_addr,
            interface_name: go_string(get("interfaceName")),
        }
    }
}
