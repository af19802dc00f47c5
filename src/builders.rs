//! GOST config builders: the chain and service documents the panel (local
//! builder) and a provider panel (federated builder) send to an agent.

use crate::address::process_server_address;
use crate::coerce::default_string;
use crate::go::strings::{equal_fold, to_lower_equals};
use crate::plan::{
    ChainConfig, Handler, HopConfig, MetaMap, MetaValue, Metadata, NodeConfig, Plugin, Selector,
    ServiceConfig, Shared,
};
use std::sync::OnceLock;

/// `failTimeout` of every selector the server writes: 10 minutes in nanoseconds.
pub const FAIL_TIMEOUT_NS: i64 = 600_000_000_000;

/// tls, mtls and mtcp carry mux settings (case-insensitive).
pub fn is_mux_protocol(protocol: &str) -> bool {
    let p = default_string(protocol, "tls");
    let p = p.trim();
    to_lower_equals(p, "tls") || to_lower_equals(p, "mtls") || to_lower_equals(p, "mtcp")
}

pub fn is_kcp_protocol(protocol: &str) -> bool {
    equal_fold(protocol.trim(), "kcp")
}

/// The strategy the agent runs: `best` (any case) is resolved by the panel
/// and deployed as `fifo`.
pub fn runtime_strategy(strategy: &str) -> String {
    if equal_fold(strategy.trim(), "best") {
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
        m.insert("nodelay".into(), MetaValue::Bool(true));
        insert_keepalives(&mut m);
    } else {
        m.insert("connectTimeout".into(), MetaValue::Str("30s".into()));
        if local {
            insert_keepalives(&mut m);
        }
    }
    if local {
        m.insert("mux.maxFrameSize".into(), MetaValue::Int(32768));
        m.insert("mux.maxStreamBuffer".into(), MetaValue::Int(2_097_152));
    }
    m.into()
}

fn insert_keepalives(m: &mut MetaMap) {
    m.insert("mux.keepaliveInterval".into(), MetaValue::Str("15s".into()));
    m.insert("mux.keepaliveTimeout".into(), MetaValue::Str("45s".into()));
}

/// The KCP tuning block carried by kcp dialers and listeners (built once).
pub fn kcp_tuning() -> Metadata {
    static BLOCK: OnceLock<Metadata> = OnceLock::new();
    BLOCK
        .get_or_init(|| {
            let mut m = MetaMap::new();
            m.insert("kcp.keepalive".into(), MetaValue::Int(10));
            m.insert("kcp.tcp".into(), MetaValue::Bool(false));
            m.insert("kcp.mode".into(), MetaValue::Str("fast3".into()));
            m.insert("kcp.sndwnd".into(), MetaValue::Int(4096));
            m.insert("kcp.rcvwnd".into(), MetaValue::Int(4096));
            m.insert("kcp.mtu".into(), MetaValue::Int(1350));
            m.insert("kcp.sockbuf".into(), MetaValue::Int(4_194_304));
            m.insert("kcp.smuxbuf".into(), MetaValue::Int(4_194_304));
            m.insert("kcp.streambuf".into(), MetaValue::Int(2_097_152));
            m.insert("kcp.datashard".into(), MetaValue::Int(10));
            m.insert("kcp.parityshard".into(), MetaValue::Int(3));
            m.insert("kcp.nocomp".into(), MetaValue::Bool(true));
            m.insert("kcp.nc".into(), MetaValue::Int(1));
            m.into()
        })
        .clone()
}

/// A dialer or listener of type `protocol` (kept as written).
pub fn transport(protocol: &str) -> Plugin {
    Plugin {
        kind: protocol.to_string(),
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

/// A one-hop chain: one node per target, named `node_1`, `node_2`, ...
pub fn chain(
    chain_name: String,
    hop_name: String,
    strategy: String,
    targets: &[ChainTarget],
    interface: &str,
    flavor: Flavor,
) -> ChainConfig {
    chain_with_nodes(
        chain_name,
        hop_name,
        strategy,
        chain_nodes(targets, flavor),
        interface,
    )
}

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
            addr: process_server_address(&crate::address::host_port(&t.host, t.port)),
            connector: Plugin {
                kind: "relay".into(),
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
            interface: if interface.trim().is_empty() {
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
    let metadata = spec.interface.filter(|i| !i.trim().is_empty()).map(|i| {
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
