//! LK rules on what the services of one node share: a listen port (LK004)
//! and the limiters they name (LK005). The agent holds one registry of
//! listeners and one of limiters per node, whichever tunnel or forward put
//! them there.

use super::model::{Document, LimiterKind, Service};
use super::rules::Sink;
use super::util::{join, node_label};
use crate::lookup::LookupMap;

/// The LK rules on what a node's services share; gives back the listeners
/// it compared, for the panel-wide port rule ([`port_holds`]).
pub(crate) fn check<'d>(doc: &'d Document<'_>, sink: &mut Sink) -> Vec<Listener<'d>> {
    let listeners = port_clashes(doc, sink);
    if doc.limiters_known {
        unsent_limiters(doc, sink);
    }
    listeners
}

/// The socket family a listener binds: two listeners clash only within one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Network {
    Tcp,
    Udp,
}

impl Network {
    /// As the messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Network::Tcp => "TCP",
            Network::Udp => "UDP",
        }
    }

    /// GOST's listener types that bind a UDP socket; every other binds TCP.
    pub fn of_listener(kind: &str) -> Network {
        const UDP: [&str; 8] = ["udp", "rudp", "kcp", "quic", "dtls", "h3", "http3", "wt"];
        if UDP.iter().any(|u| kind.eq_ignore_ascii_case(u)) {
            Network::Udp
        } else {
            Network::Tcp
        }
    }
}

/// One listening service, as the port rule compares them.
pub(crate) struct Listener<'s> {
    pub node_id: Option<i64>,
    pub network: Network,
    /// Normalised host; empty, `0.0.0.0` and `::` bind every address.
    pub host: String,
    pub port: i64,
    pub name: &'s str,
    pub path: String,
    /// 0: the panel's own commands; i + 1: what provider i sends.
    pub group: usize,
}

impl Listener<'_> {
    fn wildcard(&self) -> bool {
        matches!(self.host.as_str(), "" | "0.0.0.0" | "::")
    }
}

/// For each listener that cannot bind because an earlier one of the same
/// node holds its port: (its index, the earlier one's index). Linear in
/// the listeners: each asks its port's first wildcard, its first listener
/// and its first on the same host.
pub(crate) fn clashes(listeners: &[Listener<'_>]) -> Vec<(usize, usize)> {
    #[derive(Default)]
    struct Port {
        first: Option<usize>,
        first_wildcard: Option<usize>,
    }
    let mut ports: LookupMap<(Option<i64>, Network, i64), Port> =
        LookupMap::with_capacity(listeners.len());
    let mut first_on_host: LookupMap<(Option<i64>, Network, i64, &str), usize> =
        LookupMap::with_capacity(listeners.len());
    let mut out = Vec::new();
    for (i, l) in listeners.iter().enumerate() {
        let port = ports.or_insert_with((l.node_id, l.network, l.port), Port::default);
        let on_host = first_on_host.or_insert_with((l.node_id, l.network, l.port, &l.host), || i);
        let holder = if l.wildcard() {
            port.first
        } else {
            port.first_wildcard
                .or_else(|| Some(*on_host).filter(|at| *at != i))
        };
        if let Some(held) = holder {
            out.push((i, held));
        }
        port.first.get_or_insert(i);
        if l.wildcard() {
            port.first_wildcard.get_or_insert(i);
        }
    }
    out
}

/// The listeners of a document's services; a name given twice on one node
/// is the same service replaced (an update, or the add after a refused
/// update), so only its last config listens.
fn listeners<'d>(doc: &'d Document<'_>) -> Vec<Listener<'d>> {
    let mut last: LookupMap<(Option<i64>, &str), usize> =
        LookupMap::with_capacity(doc.services.len());
    for (i, svc) in doc.services.iter().enumerate() {
        if let Some(name) = svc.config.name() {
            last.insert((svc.node_id, name), i);
        }
    }
    let mut out = Vec::new();
    for (i, svc) in doc.services.iter().enumerate() {
        let name = svc.config.name().unwrap_or("");
        if last.get(&(svc.node_id, name)).is_some_and(|at| *at != i) {
            continue;
        }
        let Some((host, port)) = svc.config.addr().str().and_then(crate::gost::host_and_port)
        else {
            continue;
        };
        let kind = svc.config.listener_type().str().unwrap_or("tcp");
        out.push(Listener {
            node_id: svc.node_id,
            network: Network::of_listener(kind),
            host,
            port,
            name,
            path: svc.path(),
            group: svc.group,
        });
    }
    out
}

/// A service of one tunnel's plan that listens on a node of this panel,
/// kept for the panel-wide port rule ([`panel_port_clashes`]).
#[derive(Debug, Clone)]
pub struct PortHold {
    node_id: i64,
    network: Network,
    host: String,
    port: i64,
    name: String,
    path: String,
}

/// The `listeners` (a document's, as [`check`] gave them) on this panel's
/// nodes. A provider's services are left out: each tunnel's audit assumes a
/// fresh provider, whose ports say nothing about another tunnel's.
pub(crate) fn port_holds(listeners: Vec<Listener<'_>>) -> Vec<PortHold> {
    let own = listeners.into_iter().filter(|l| l.group == 0);
    own.filter_map(|l| {
        Some(PortHold {
            node_id: l.node_id?,
            network: l.network,
            host: l.host,
            port: l.port,
            name: l.name.to_string(),
            path: l.path,
        })
    })
    .collect()
}

/// One tunnel of a panel as the panel-wide port rule names it.
pub struct PanelTunnel<'t> {
    pub id: i64,
    pub name: &'t str,
    pub holds: &'t [PortHold],
}

/// LK004 across a whole panel: services of different tunnels on one port
/// of one node, in the panel's tunnel order. Each side gets a finding in
/// its own tunnel (by position in `tunnels`), naming the other.
pub fn panel_port_clashes(tunnels: &[PanelTunnel<'_>]) -> Vec<(usize, crate::finding::Finding)> {
    let mut owner = Vec::new();
    let mut listeners = Vec::new();
    for (k, t) in tunnels.iter().enumerate() {
        for h in t.holds {
            owner.push(k);
            listeners.push(Listener {
                node_id: Some(h.node_id),
                network: h.network,
                host: h.host.clone(),
                port: h.port,
                name: &h.name,
                path: h.path.clone(),
                group: 0,
            });
        }
    }
    let mut out = Vec::new();
    for (at, held) in clashes(&listeners) {
        let (Some(&k), Some(&j)) = (owner.get(at), owner.get(held)) else {
            continue;
        };
        let (Some(l), Some(h), Some(tk), Some(tj)) = (
            listeners.get(at),
            listeners.get(held),
            tunnels.get(k),
            tunnels.get(j),
        ) else {
            continue;
        };
        if k != j {
            let mut sink = Sink::default();
            shared_port(&mut sink, l, h, tj);
            shared_port(&mut sink, h, l, tk);
            let mut findings = sink.findings.into_iter();
            out.extend(findings.next().map(|f| (k, f)));
            out.extend(findings.next().map(|f| (j, f)));
        }
    }
    out
}

/// LK004 for `mine`, whose port `other`, a service of another tunnel,
/// also listens on.
fn shared_port(
    sink: &mut Sink,
    mine: &Listener<'_>,
    other: &Listener<'_>,
    tunnel: &PanelTunnel<'_>,
) {
    Msg::PortShared {
        mine,
        other,
        tunnel,
    }
    .say(sink, mine.node_id, &join(&mine.path, "addr"));
}

/// LK004 within one document; gives back its listeners.
fn port_clashes<'d>(doc: &'d Document<'_>, sink: &mut Sink) -> Vec<Listener<'d>> {
    let listeners = listeners(doc);
    for (at, held) in clashes(&listeners) {
        if let (Some(l), Some(h)) = (listeners.get(at), listeners.get(held)) {
            Msg::PortHeld { at: l, held: h }.say(sink, l.node_id, &join(&l.path, "addr"));
        }
    }
    listeners
}

/// LK005: a service naming a limiter its node is not sent. The agent
/// splits the field on commas and looks each name up (go-gost
/// `x/config/parsing/service/composite_limiter.go:17-85`): a missing
/// connection limiter is dropped; a missing traffic limiter whose name is a
/// number becomes a limit of that many bytes per second.
fn unsent_limiters(doc: &Document<'_>, sink: &mut Sink) {
    let held: std::collections::BTreeSet<(LimiterKind, Option<i64>, &str)> = doc
        .limiters
        .iter()
        .map(|l| (l.kind, l.node_id, l.name))
        .collect();
    for svc in &doc.services {
        for kind in [LimiterKind::Traffic, LimiterKind::Connections] {
            let field = crate::gost::Text::of(Some(svc.config.obj), kind.field());
            let names = field.str().unwrap_or("").split(',').map(str::trim);
            for name in names.filter(|n| !n.is_empty()) {
                if !held.contains(&(kind, svc.node_id, name)) {
                    unsent_limiter(sink, svc, kind, name);
                }
            }
        }
    }
}

/// LK005 for the limiter `name` of `svc`; a traffic limiter's name that
/// is a positive number is read as that many bytes per second.
fn unsent_limiter(sink: &mut Sink, svc: &Service<'_>, kind: LimiterKind, name: &str) {
    let bytes = name.parse::<i64>().ok().filter(|n| *n > 0);
    Msg::UnsentLimiter {
        svc,
        kind,
        name,
        bytes,
    }
    .say(sink, svc.node_id, &join(&svc.path(), kind.field()));
}

/// An LK004 or LK005 finding, with what its message names.
enum Msg<'m> {
    /// LK004 within one document: `held` already holds the port of `at`.
    PortHeld {
        at: &'m Listener<'m>,
        held: &'m Listener<'m>,
    },
    /// LK004 across a panel: `other`, of `tunnel`, listens on the port of `mine`.
    PortShared {
        mine: &'m Listener<'m>,
        other: &'m Listener<'m>,
        tunnel: &'m PanelTunnel<'m>,
    },
    /// LK005: `bytes` is the limit a traffic limiter's name is read as.
    UnsentLimiter {
        svc: &'m Service<'m>,
        kind: LimiterKind,
        name: &'m str,
        bytes: Option<i64>,
    },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        match *self {
            Msg::PortHeld { at: l, held } => {
                let net = l.network.name();
                let (node, node_zh) = node_label(l.node_id);
                sink.say(
                    "LK004",
                    node_id,
                    path,
                    format_args!(
                        "service {:?} listens on {net} port {} of {node}, which service {:?} ({}) already holds: the agent cannot bind it (address already in use) and that service does not run",
                        l.name, l.port, held.name, held.path
                    ),
                    format_args!(
                        "服务 {:?} 监听{node_zh}的 {net} 端口 {}，该端口已被服务 {:?}（{}）占用：节点无法绑定（地址已被占用），该服务不会运行",
                        l.name, l.port, held.name, held.path
                    ),
                )
            }
            Msg::PortShared {
                mine,
                other,
                tunnel,
            } => {
                let net = mine.network.name();
                let (node, node_zh) = node_label(mine.node_id);
                sink.say(
                    "LK004",
                    node_id,
                    path,
                    format_args!(
                        "service {:?} listens on {net} port {} of {node}, as service {:?} of tunnel {:?} (#{}) does: the agent binds whichever it starts first, and the other does not run (address already in use)",
                        mine.name, mine.port, other.name, tunnel.name, tunnel.id
                    ),
                    format_args!(
                        "服务 {:?} 监听{node_zh}的 {net} 端口 {}，隧道 {:?}（#{}）的服务 {:?} 也监听该端口：节点只能绑定先启动的那个，另一个不会运行（地址已被占用）",
                        mine.name, mine.port, tunnel.name, tunnel.id, other.name
                    ),
                )
            }
            Msg::UnsentLimiter {
                svc,
                kind,
                name,
                bytes,
            } => {
                let (outcome, outcome_zh) = limiter_outcome(kind, bytes);
                let (node, node_zh) = node_label(svc.node_id);
                let service = super::failover::svc_name(svc);
                sink.say(
                    "LK005",
                    node_id,
                    path,
                    format_args!(
                        "service {service} names {} {name:?}, which {node} is never sent (or refused): {outcome}",
                        kind.field()
                    ),
                    format_args!(
                        "服务 {service} 引用的 {} {name:?} 从未下发到{node_zh}（或被拒绝）：{outcome_zh}",
                        kind.field()
                    ),
                )
            }
        }
    }
}

/// What the agent does without the limiter, in English and Chinese.
fn limiter_outcome(kind: LimiterKind, bytes: Option<i64>) -> (String, String) {
    match (kind, bytes) {
        (LimiterKind::Traffic, Some(n)) => (
            format!("the agent reads the name as a limit of {n} bytes per second, so the service barely moves traffic"),
            format!("节点会把该名称当作每秒 {n} 字节的限速，服务几乎无法传输流量"),
        ),
        (LimiterKind::Traffic, None) => (
            "the agent runs the service without it, so its speed limit silently does not apply".to_string(),
            "节点在没有它的情况下运行该服务，限速静默失效".to_string(),
        ),
        (LimiterKind::Connections, _) => (
            "the agent runs the service without it, so its connection limit silently does not apply".to_string(),
            "节点在没有它的情况下运行该服务，连接数限制静默失效".to_string(),
        ),
    }
}
