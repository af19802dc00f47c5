//! What the server sends for a forward: its `_tcp`/`_udp` service pair
//! (`buildForwardServiceConfigs`, control_plane.go:1742), its limiters
//! (control_plane.go:1930-2030), and the rows it stores.

use crate::address::process_server_address;
use crate::encode::shape;
use crate::model::NodeRecord;
use crate::plan::{Handler, MetaMap, MetaValue, Metadata, Plugin};
use crate::planner::state::TunnelType;

shape! {
    #[doc = " A forward's GOST service on one entry node."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForwardService {
        pub name: String => "name",
        pub addr: String => "addr",
        #[doc = " `type` tcp or udp; `chain` on a type-2 tunnel; never `retries`."]
        pub handler: Handler => "handler",
        pub listener: Plugin => "listener",
        pub forwarder: Forwarder => "forwarder",
        #[doc = " Connection limiter names, joined by commas."]
        pub climiter: Option<String> => "climiter" optional,
        #[doc = " Traffic limiter names, joined by commas."]
        pub limiter: Option<String> => "limiter" optional,
        #[doc = " `interface` of the entry node, type-1 tunnels only."]
        pub metadata: Option<Metadata> => "metadata": "Record<string, MetaValue>" optional,
    }
}

shape! {
    #[doc = " The forward's targets: the user's `remoteAddr`, split on commas."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Forwarder {
        pub nodes: Vec<ForwarderNode> => "nodes",
        pub selector: ForwarderSelector => "selector",
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForwarderNode {
        pub name: String => "name",
        pub addr: String => "addr",
    }
}

shape! {
    #[doc = " A forwarder's selector: `failTimeout` is a duration string here."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForwarderSelector {
        pub strategy: String => "strategy",
        pub max_fails: i64 => "maxFails",
        pub fail_timeout: String => "failTimeout",
    }
}

shape! {
    #[doc = " `data` of `AddLimiters` / `AddCLimiters`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct LimiterData {
        pub name: String => "name",
        pub limits: Vec<String> => "limits",
    }
}

shape! {
    #[doc = " `data` of `UpdateLimiters` / `UpdateCLimiters`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct UpdateLimiterData {
        pub limiter: String => "limiter",
        pub data: LimiterData => "data",
    }
}

shape! {
    #[doc = " The rows the server stores for a tunnel's forwards."]
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct ForwardDb {
        pub forward: Vec<ForwardRowOut> => "forward": "ForwardRow[]",
        pub forward_port: Vec<ForwardPortOut> => "forward_port": "ForwardPortRow[]",
    }
}

shape! {
    #[doc = " A `forward` row (created and updated times left out)."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForwardRowOut as ForwardRow {
        pub id: i64 => "id",
        pub user_id: i64 => "user_id",
        pub user_name: String => "user_name",
        pub name: String => "name",
        pub tunnel_id: i64 => "tunnel_id",
        pub remote_addr: String => "remote_addr",
        pub strategy: String => "strategy",
        pub in_flow: i64 => "in_flow",
        pub out_flow: i64 => "out_flow",
        pub status: i64 => "status",
        pub inx: i64 => "inx",
        pub speed_id: Option<i64> => "speed_id",
        pub max_conn: i64 => "max_conn",
        pub ip_max_conn: i64 => "ip_max_conn",
        pub ip_speed_id: Option<i64> => "ip_speed_id",
        pub proxy_protocol: i64 => "proxy_protocol",
    }
}

shape! {
    #[doc = " A `forward_port` row: one entry node's port of a forward."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForwardPortOut as ForwardPortRow {
        pub id: i64 => "id",
        pub forward_id: i64 => "forward_id",
        pub node_id: i64 => "node_id",
        pub port: i64 => "port",
        pub in_ip: Option<String> => "in_ip",
    }
}

/// What one forward's services are built from.
pub struct ServiceSpec<'a> {
    /// `<forwardId>_<userId>_<userTunnelId>`.
    pub base: &'a str,
    pub tunnel_id: i64,
    pub tunnel_kind: i64,
    pub remote_addr: &'a str,
    pub strategy: &'a str,
    pub proxy_protocol: i64,
    pub conn_limiters: &'a str,
    pub traffic_limiters: &'a str,
}

/// The `_tcp` and `_udp` services of one forward on `node`, listening on
/// `port` (or on `bind_ip`, with or without its own port).
pub fn forward_services(
    spec: &ServiceSpec<'_>,
    node: &NodeRecord,
    port: i64,
    bind_ip: &str,
) -> Vec<ForwardService> {
    let targets = split_remote_targets(spec.remote_addr);
    let strategy = match spec.strategy.trim() {
        "" => "fifo",
        s => s,
    };
    ["tcp", "udp"]
        .into_iter()
        .map(|protocol| ForwardService {
            name: [spec.base, "_", protocol].concat(),
            addr: service_addr(node, protocol, port, bind_ip),
            handler: handler(spec, protocol),
            listener: listener(protocol),
            forwarder: Forwarder {
                nodes: targets
                    .iter()
                    .enumerate()
                    .map(|(i, addr)| ForwarderNode {
                        name: crate::builders::numbered("node_", i + 1),
                        addr: addr.clone(),
                    })
                    .collect(),
                selector: ForwarderSelector {
                    strategy: strategy.to_string(),
                    max_fails: 1,
                    fail_timeout: "600s".into(),
                },
            },
            climiter: non_empty(spec.conn_limiters),
            limiter: non_empty(spec.traffic_limiters),
            metadata: interface_metadata(spec, node),
        })
        .collect()
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The listen address: the forward's own bind IP, else the node's listen
/// address for the protocol, with the port, through `processServerAddress`.
fn service_addr(node: &NodeRecord, protocol: &str, port: i64, bind_ip: &str) -> String {
    let bind_ip = bind_ip.trim();
    if bind_ip.is_empty() {
        let listen = if protocol == "udp" {
            &node.udp_listen_addr
        } else {
            &node.tcp_listen_addr
        };
        return crate::address::server_host_port(listen, port);
    }
    if crate::go::net::split_host_port(bind_ip).is_ok() {
        return process_server_address(bind_ip);
    }
    let host = bind_ip.trim_matches(|c| c == '[' || c == ']');
    process_server_address(&crate::go::net::join_host_port(host, &port.to_string()))
}

fn handler(spec: &ServiceSpec<'_>, protocol: &str) -> Handler {
    let metadata = (spec.proxy_protocol > 0).then(|| {
        let mut m = MetaMap::new();
        m.insert("proxyProtocol".into(), MetaValue::Int(spec.proxy_protocol));
        Metadata::from(m)
    });
    Handler {
        kind: protocol.to_string(),
        chain: TunnelType::of(spec.tunnel_kind)
            .relays()
            .then(|| crate::builders::numbered("chains_", spec.tunnel_id)),
        retries: None,
        metadata,
    }
}

fn listener(protocol: &str) -> Plugin {
    let metadata = (protocol == "udp").then(|| {
        let mut m = MetaMap::new();
        m.insert("keepAlive".into(), MetaValue::Bool(true));
        m.insert("ttl".into(), MetaValue::Str("30s".into()));
        Metadata::from(m)
    });
    Plugin {
        kind: crate::builders::plugin_kind(protocol),
        metadata,
    }
}

fn interface_metadata(spec: &ServiceSpec<'_>, node: &NodeRecord) -> Option<Metadata> {
    if spec.tunnel_kind != 1 || node.interface_name.trim().is_empty() {
        return None;
    }
    let mut m = MetaMap::new();
    m.insert(
        "interface".into(),
        MetaValue::Str(node.interface_name.clone()),
    );
    Some(Metadata::from(m))
}

/// `splitRemoteTargets`: the comma-separated targets, trimmed, blanks
/// dropped, each through `processServerAddress`.
pub fn split_remote_targets(remote_addr: &str) -> Vec<String> {
    remote_addr
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(process_server_address)
        .collect()
}

/// A traffic limit line: `speed` Mbit/s as MB/s with one decimal
/// (`speedToLimitLine`: Go's `%.1f` of `speed / 8.0`).
pub fn limit_line(key: &str, speed: i64) -> String {
    let rate = one_decimal_eighths(speed);
    format!("{key} {rate}MB {rate}MB")
}

/// `n / 8` with one decimal as Go's `%.1f` prints the float64 quotient:
/// n/8 is exact in binary, so the tenths are `n * 10 / 8` rounded half to
/// even, computed in integers (no float formatting code in the `.wasm`).
fn one_decimal_eighths(n: i64) -> String {
    let scaled = i128::from(n) * 5; // tenths times 4
    let (mut tenths, rest) = (scaled.div_euclid(4), scaled.rem_euclid(4));
    if rest > 2 || (rest == 2 && tenths % 2 != 0) {
        tenths += 1;
    }
    let sign = if tenths < 0 { "-" } else { "" };
    let abs = tenths.unsigned_abs();
    format!("{sign}{}.{}", abs / 10, abs % 10)
}

/// The connection limiters of a forward (`buildConnLimiterConfigs`): its own
/// when it has `max_conn`, else the user's and the per-IP one.
pub fn conn_limiters(
    forward_id: i64,
    user_id: i64,
    max_conn: i64,
    ip_max_conn: i64,
    user_max_conn: i64,
) -> Vec<LimiterData> {
    let rule = |limits| LimiterData {
        name: format!("rule_conn_limit_{forward_id}"),
        limits,
    };
    if max_conn > 0 {
        let mut limits = vec![format!("$ {max_conn}")];
        if ip_max_conn > 0 {
            limits.push(format!("$$ {ip_max_conn}"));
        }
        return vec![rule(limits)];
    }
    let mut out = Vec::new();
    if user_max_conn > 0 {
        out.push(LimiterData {
            name: format!("user_conn_limit_{user_id}"),
            limits: vec![format!("$ {user_max_conn}")],
        });
    }
    if ip_max_conn > 0 {
        out.push(rule(vec![format!("$$ {ip_max_conn}")]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_lines_round_as_go_prints_them() {
        // Go: fmt.Sprintf("%.1f", float64(n)/8.0)
        for (n, text) in [
            (8, "1.0"),
            (10, "1.2"),
            (12, "1.5"),
            (20, "2.5"),
            (1, "0.1"),
            (3, "0.4"),
            (5, "0.6"),
            (1000, "125.0"),
            (-10, "-1.2"),
            (-1, "-0.1"),
        ] {
            assert_eq!(one_decimal_eighths(n), text, "{n}");
        }
        assert_eq!(limit_line("$", 10), "$ 1.2MB 1.2MB");
    }
}
