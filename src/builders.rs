//! GOST config builders: the chain and service documents the panel (local
//! builder) and a provider panel (federated builder) send to an agent.

use crate::address::server_host_port;
use crate::coerce::default_string;
use crate::go::strings::{equal_fold, to_lower_equals};
use crate::plan::{
    ChainConfig, Handler, HopConfig, MetaMap, MetaValue, Metadata, NodeConfig, Plugin, Selector,
    ServiceConfig, Shared,
};
use crate::strings::trim;
use std::borrow::Cow;
use std::sync::OnceLock;

/// `failTimeout` of every selector the server writes: 10 minutes in nanoseconds.
pub const FAIL_TIMEOUT_NS: i64 = 600_000_000_000;

/// tls, mtls and mtcp carry mux settings (case-insensitive).
pub fn is_mux_protocol(protocol: &str) -> bool {
    let p = default_string(protocol, "tls");
    let p = trim(p);
    to_lower_equals(p, "tls") || to_lower_equals(p, "mtls") || to_lower_equals(p, "mtcp")
}

pub fn is_kcp_protocol(protocol: &str) -> bool {
    equal_fold(trim(protocol), "kcp")
}

/// The strategy the agent runs: `best` (any case) is resolved by the panel
/// and deployed as `fifo`.
pub fn runtime_strategy(strategy: &str) -> String {
    if equal_fold(trim(strategy), "best") {
        "fifo".to_string()
    } else {
        strategy.to_string()
    }
}

/// How much mux metadata a builder writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// The panel's own builder: frame and buffer sizes included.
    Local,
    /// A provider's federated builder: keepalives only (kcp: connect timeout only).
    Federated,
}

/// Connector or handler metadata for a peer speaking `protocol`. The blocks
/// are fixed per (protocol family, flavor), so each is built once and shared.
pub fn mux_metadata(protocol: &str, flavor: Flavor) -> Option<Metadata> {
    static MUX_FEDERATED: OnceLock<Metadata> = OnceLock::new();
    static MUX_LOCAL: OnceLock<Metadata> = OnceLock::new();
    static KCP_FEDERATED: OnceLock<Metadata> = OnceLock::new();
    static KCP_LOCAL: OnceLock<Metadata> = OnceLock::new();
    let kcp = if is_mux_protocol(protocol) {
        false
    } else if is_kcp_protocol(protocol) {
        true
    } else {
        return None;
    };
    let local = flavor == Flavor::Local;
    let slot = match (kcp, local) {
        (false, false) => &MUX_FEDERATED,
        (false, true) => &MUX_LOCAL,
        (true, false) => &KCP_FEDERATED,
        (true, true) => &KCP_LOCAL,
    };
    Some(slot.get_or_init(|| build_mux_metadata(kcp, local)).clone())
}

fn build_mux_metadata(kcp: bool, local: bool) -> Metadata {
    let mut m = MetaMap::new();
    if !kcp {
        insert_all(&mut m, &[("nodelay", FixedValue::Bool(true))]);
        insert_all(&mut m, KEEPALIVES);
    } else {
        insert_all(&mut m, &[("connectTimeout", FixedValue::Str("30s"))]);
        if local {
            insert_all(&mut m, KEEPALIVES);
        }
    }
    if local {
        insert_all(
            &mut m,
            &[
                ("mux.maxFrameSize", FixedValue::Int(32768)),
                ("mux.maxStreamBuffer", FixedValue::Int(2_097_152)),
            ],
        );
    }
    m.into()
}

/// A fixed metadata value, as the tables here write it.
#[derive(Clone, Copy)]
enum FixedValue {
    Bool(bool),
    Int(i64),
    Str(&'static str),
}

/// Adds a fixed table of entries to `m`: one loop for every fixed block.
#[inline(never)]
fn insert_all(m: &mut MetaMap, entries: &[(&str, FixedValue)]) {
    for &(key, value) in entries {
        let value = match value {
            FixedValue::Bool(b) => MetaValue::Bool(b),
            FixedValue::Int(i) => MetaValue::Int(i),
            FixedValue::Str(s) => MetaValue::Str(s.to_string()),
        };
        m.insert(key.to_string(), value);
    }
}

const KEEPALIVES: &[(&str, FixedValue)] = &[
    ("mux.keepaliveInterval", FixedValue::Str("15s")),
    ("mux.keepaliveTimeout", FixedValue::Str("45s")),
];

const KCP_TUNING: &[(&str, FixedValue)] = &[
    ("kcp.keepalive", FixedValue::Int(10)),
    ("kcp.tcp", FixedValue::Bool(false)),
    ("kcp.mode", FixedValue::Str("fast3")),
    ("kcp.sndwnd", FixedValue::Int(4096)),
    ("kcp.rcvwnd", FixedValue::Int(4096)),
    ("kcp.mtu", FixedValue::Int(1350)),
    ("kcp.sockbuf", FixedValue::Int(4_194_304)),
    ("kcp.smuxbuf", FixedValue::Int(4_194_304)),
    ("kcp.streambuf", FixedValue::Int(2_097_152)),
    ("kcp.datashard", FixedValue::Int(10)),
    ("kcp.parityshard", FixedValue::Int(3)),
    ("kcp.nocomp", FixedValue::Bool(true)),
    ("kcp.nc", FixedValue::Int(1)),
];

/// The KCP tuning block carried by kcp dialers and listeners (built once).
pub fn kcp_tuning() -> Metadata {
    static BLOCK: OnceLock<Metadata> = OnceLock::new();
    BLOCK
        .get_or_init(|| {
            let mut m = MetaMap::new();
            insert_all(&mut m, KCP_TUNING);
            m.into()
        })
        .clone()
}

/// The plugin types the planner writes by the thousand: the link protocols
/// the panel offers (`Protocol` in [`crate::model::PAYLOAD_SETS_TS`]) and
/// `udp`, a forward's second listener.
const PLUGIN_TYPES: [&str; 14] = [
    "tls", "mtls", "wss", "mwss", "ws", "mws", "tcp", "mtcp", "kcp", "quic", "grpc", "h2", "http2",
    "udp",
];

/// A plugin's type as written: a link protocol the panel offers or `udp`
/// shared, any other copied.
pub fn plugin_kind(name: &str) -> Cow<'static, str> {
    match PLUGIN_TYPES.iter().find(|p| **p == name) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(name.to_string()),
    }
}

/// A dialer or listener of type `protocol` (kept as written).
pub fn transport(protocol: &str) -> Plugin {
    Plugin {
        kind: plugin_kind(protocol),
        metadata: if is_kcp_protocol(protocol) {
            Some(kcp_tuning())
        } else {
            None
        },
    }
}

/// One chain target: where to dial and what it speaks (the same record a
/// federated apply lists in `targets`).
pub use crate::plan::Target as ChainTarget;

/// `prefix` and `n`: the names of chains, hops, chain nodes and services
/// (`chains_7`, `node_2`, ...).
pub fn numbered(prefix: &str, n: impl itoa::Integer) -> String {
    crate::strings::with_number(prefix, "", n)
}

/// The nodes of a one-hop chain toward `targets`, named `node_1`, `node_2`, ...
pub fn chain_nodes(targets: &[ChainTarget], flavor: Flavor) -> Shared<Vec<NodeConfig>> {
    let nodes = targets
        .iter()
        .enumerate()
        .map(|(i, t)| NodeConfig {
            name: numbered("node_", i + 1),
            addr: server_host_port(&t.host, t.port),
            connector: Plugin {
                kind: Cow::Borrowed("relay"),
                metadata: mux_metadata(&t.protocol, flavor),
            },
            dialer: transport(&t.protocol),
        })
        .collect();
    Shared::new(nodes)
}

/// A one-hop chain over nodes built by [`chain_nodes`] (possibly shared).
pub fn chain_with_nodes(
    chain_name: String,
    hop_name: String,
    strategy: String,
    nodes: Shared<Vec<NodeConfig>>,
    interface: &str,
) -> ChainConfig {
    ChainConfig {
        name: chain_name,
        hops: vec![HopConfig {
            name: hop_name,
            interface: if trim(interface).is_empty() {
                None
            } else {
                Some(interface.to_string())
            },
            selector: Selector {
                strategy,
                max_fails: 1,
                fail_timeout: FAIL_TIMEOUT_NS,
            },
            nodes,
        }],
    }
}

/// What a relay service needs to know about its place in the tunnel.
pub struct ServiceSpec<'a> {
    pub name: String,
    pub addr: String,
    pub protocol: &'a str,
    /// `Some(chain name)` for middles.
    pub chain: Option<String>,
    /// Next-hop candidates: more than one sets `retries = n - 1`.
    pub candidates: usize,
    /// Exit egress interface (`metadata.interface`).
    pub interface: Option<&'a str>,
    pub flavor: Flavor,
}

pub fn service(spec: ServiceSpec<'_>) -> ServiceConfig {
    let retries = if spec.chain.is_some() && spec.candidates > 1 {
        Some(spec.candidates as i64 - 1)
    } else {
        None
    };
    let metadata = spec.interface.filter(|i| !trim(i).is_empty()).map(|i| {
        let mut m = MetaMap::new();
        m.insert("interface".into(), MetaValue::Str(i.to_string()));
        Metadata::from(m)
    });
    ServiceConfig {
        name: spec.name,
        addr: spec.addr,
        handler: Handler {
            kind: "relay".into(),
            chain: spec.chain,
            retries,
            metadata: mux_metadata(spec.protocol, spec.flavor),
        },
        listener: transport(spec.protocol),
        metadata,
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    #[test]
    fn the_shared_plugin_types_are_the_protocols_the_panel_offers_and_udp() {
        let ts = crate::model::PAYLOAD_SETS_TS;
        let offered = ts
            .lines()
            .find(|l| l.starts_with("export type Protocol"))
            .unwrap();
        let quoted: Vec<&str> = offered.split('\'').skip(1).step_by(2).collect();
        let shared: Vec<&str> = super::PLUGIN_TYPES
            .into_iter()
            .filter(|t| *t != "udp")
            .collect();
        assert_eq!(quoted, shared);
        assert!(matches!(super::plugin_kind("tls"), Cow::Borrowed("tls")));
        assert!(matches!(super::plugin_kind("TLS"), Cow::Owned(t) if t == "TLS"));
    }
}
