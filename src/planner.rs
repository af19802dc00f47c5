//! The planner: reproduces what the panel server does for a tunnel mutation,
//! in its order, and records every command it would send, to its own nodes
//! and through each provider panel, instead of sending it.
//!
//! Order (server-contract.md): prepare the tunnel state (sections 1), apply
//! federated nodes (section 3: remote exits, then hops from last to first),
//! then the local apply (section 2: entry chains, hop chains and services,
//! exit services). The first error stops everything.

use crate::builders::{self, ChainTarget, Flavor, ServiceSpec};
use crate::coerce::{any_slice, default_string, go_int, go_string, map_slice};
use crate::model::{node_table, FederationInfo, NodeRecord, Role, TunnelNode};
use crate::plan::{Apply, Command, CommandData, FederationStep, Plan, PlanError, PlanNode, Reserve};
use crate::limits::Limits;
use serde_json::Value;
use crate::plan::{NodeConfig, Shared};
use crate::fast_map::{FastMap as HashMap, FastSet as HashSet};

/// A server rejection before it is turned into a [`PlanError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    InvalidInput(String),
    NoEntries,
    NoExits,
    PortsExhausted,
    DuplicateNode,
    NodeNotFound,
    NodeOffline,
    RemotePortOutOfRange { port: i64, start: i64, end: i64 },
    RemoteShareMissing { name: String },
    LinkIncompatible { from: String, from_v4: bool, from_v6: bool, to: String, to_v4: bool, to_v6: bool },
    PortMissing,
}

impl Rejection {
    /// Stable code, the server's exact text, and an English rendering.
    pub fn to_plan_error(&self) -> PlanError {
        let (code, message, message_en) = match self {
            Rejection::InvalidInput(why) => ("INVALID_INPUT", "请求参数错误".to_string(), format!("invalid input: {}", why)),
            Rejection::NoEntries => ("NO_ENTRIES", "入口不能为空".into(), "the tunnel has no entry node".into()),
            Rejection::NoExits => ("NO_EXITS", "出口不能为空".into(), "the tunnel has no exit node".into()),
            Rejection::PortsExhausted => (
                "PORTS_EXHAUSTED",
                "节点端口已满，无可用端口".into(),
                "the node has no free port in its port range".into(),
            ),
            Rejection::DuplicateNode => ("DUPLICATE_NODE", "节点重复".into(), "a node appears more than once in the tunnel".into()),
            Rejection::NodeNotFound => ("NODE_NOT_FOUND", "节点不存在".into(), "a node of the tunnel does not exist".into()),
            Rejection::NodeOffline => ("NODE_OFFLINE", "部分节点不在线".into(), "some local nodes are offline".into()),
            Rejection::RemotePortOutOfRange { port, start, end } => (
                "REMOTE_PORT_OUT_OF_RANGE",
                format!("远程节点端口 {} 超出允许范围 {}-{}", port, start, end),
                format!("remote node port {} is outside the shared range {}-{}", port, start, end),
            ),
            Rejection::RemoteShareMissing { name } => (
                "REMOTE_SHARE_MISSING",
                format!("远程节点 {} 缺少共享配置", name),
                format!("remote node {} has no share URL or token", name),
            ),
            Rejection::LinkIncompatible { from, from_v4, from_v6, to, to_v4, to_v6 } => (
                "LINK_INCOMPATIBLE",
                format!("节点链路不兼容：{}(v4={},v6={}) -> {}(v4={},v6={})", from, from_v4, from_v6, to, to_v4, to_v6),
                format!(
                    "no common IP family from {} (v4={}, v6={}) to {} (v4={}, v6={})",
                    from, from_v4, from_v6, to, to_v4, to_v6
                ),
            ),
            Rejection::PortMissing => ("PORT_MISSING", "节点端口不能为空".into(), "a next-hop node has no port".into()),
        };
        PlanError { code: code.to_string(), message, message_en }
    }
}

type Result<T> = std::result::Result<T, Rejection>;

/// Plans one input `{tunnel, nodes, federation?}`. Never panics: a rejected
/// or unreadable input gives a plan whose `error` says why.
pub fn plan(input: &Value) -> Plan {
    plan_with_limits(input, &Limits::default())
}

/// [`plan`] with explicit input size limits.
pub fn plan_with_limits(input: &Value, limits: &Limits) -> Plan {
    if let Err(e) = crate::limits::check_value(input, limits) {
        return rejected(limit_error(&e));
    }
    match build(input) {
        Ok(plan) => plan,
        Err(rejection) => Plan { error: Some(rejection.to_plan_error()), federation: vec![], local: vec![], nodes: vec![] },
    }
}

/// Plans JSON text and returns the plan as JSON text. Text that is not JSON
/// gives a plan with an `INVALID_INPUT` error.
pub fn plan_json(text: &str) -> String {
    let limits = Limits::default();
    if let Err(e) = crate::limits::check_text(text, &limits) {
        return plan_to_json(&rejected(limit_error(&e)));
    }
    let plan = match crate::json::from_str(text) {
        Ok(v) => plan_with_limits(&v, &limits),
        Err(e) => Plan {
            error: Some(Rejection::InvalidInput(format!("not JSON: {}", e)).to_plan_error()),
            federation: vec![],
            local: vec![],
            nodes: vec![],
        },
    };
    plan_to_json(&plan)
}

fn rejected(error: PlanError) -> Plan {
    Plan { error: Some(error), federation: vec![], local: vec![], nodes: vec![] }
}

/// An input over a size limit: not a server decision, so the Chinese and
/// English texts are this module's own.
fn limit_error(e: &crate::limits::LimitError) -> PlanError {
    PlanError { code: "LIMIT_EXCEEDED".into(), message: e.message_zh(), message_en: e.message.clone() }
}

/// A plan as compact JSON text.
pub fn plan_to_json(plan: &Plan) -> String {
    crate::encode::to_string(plan)
}

/// The tunnel as the server holds it after preparation.
struct TunnelState {
    id: i64,
    kind: i64,
    ip_preference: String,
    entries: Vec<TunnelNode>,
    hops: Vec<Vec<TunnelNode>>,
    exits: Vec<TunnelNode>,
    nodes: HashMap<i64, NodeRecord>,
}

fn build(input: &Value) -> Result<Plan> {
    let obj = input.as_object().ok_or_else(|| Rejection::InvalidInput("the input must be an object {tunnel, nodes, federation?}".into()))?;
    let tunnel = obj
        .get("tunnel")
        .and_then(Value::as_object)
        .ok_or_else(|| Rejection::InvalidInput("/tunnel must be an object (the panel's tunnel payload)".into()))?;
    let nodes = node_table(obj.get("nodes"));
    let federation = obj.get("federation");

    let mut state = prepare(tunnel, nodes)?;
    let federation_steps = apply_federation(&mut state, federation)?;
    let local = apply_local(&state)?;
    let nodes = node_summary(&state, federation);
    Ok(Plan { error: None, federation: federation_steps, local, nodes })
}

/// Section 1: entries, exits, hops, ports, then node checks in order.
fn prepare(tunnel: &serde_json::Map<String, Value>, nodes: HashMap<i64, NodeRecord>) -> Result<TunnelState> {
    let kind = go_int(tunnel.get("type"), 1);
    let mut ids: Vec<i64> = Vec::new();

    let mut entries = Vec::new();
    for item in map_slice(tunnel.get("inNodeId")) {
        let n = TunnelNode::from_item(item, Role::Entry);
        if n.node_id <= 0 {
            continue;
        }
        ids.push(n.node_id);
        entries.push(n);
    }
    if entries.is_empty() {
        return Err(Rejection::NoEntries);
    }

    let mut exits = Vec::new();
    let mut hops: Vec<Vec<TunnelNode>> = Vec::new();
    if kind == 2 {
        let mut picked: HashMap<i64, i64> = HashMap::default();
        let raw_exits = map_slice(tunnel.get("outNodeId"));
        if raw_exits.is_empty() {
            return Err(Rejection::NoExits);
        }
        for item in raw_exits {
            let mut n = TunnelNode::from_item(item, Role::Exit);
            if n.node_id <= 0 {
                continue;
            }
            ids.push(n.node_id);
            n.port = resolve_port(&n, &nodes, &mut picked)?;
            exits.push(n);
        }
        if exits.is_empty() {
            return Err(Rejection::NoExits);
        }
        for raw_hop in any_slice(tunnel.get("chainNodes")) {
            let mut hop = Vec::new();
            for item in map_slice(Some(raw_hop)) {
                let mut n = TunnelNode::from_item(item, Role::Middle);
                if n.node_id <= 0 {
                    continue;
                }
                ids.push(n.node_id);
                n.port = resolve_port(&n, &nodes, &mut picked)?;
                n.hop = hops.len() as i64 + 1;
                hop.push(n);
            }
            if !hop.is_empty() {
                hops.push(hop);
            }
        }
    }

    let mut seen = HashSet::default();
    for id in &ids {
        if !seen.insert(*id) {
            return Err(Rejection::DuplicateNode);
        }
        let node = nodes.get(id).ok_or(Rejection::NodeNotFound)?;
        if !node.is_remote && node.status != 1 {
            return Err(Rejection::NodeOffline);
        }
    }

    for n in exits.iter().chain(hops.iter().flatten()) {
        if let Some(node) = nodes.get(&n.node_id) {
            check_remote_port(node, n.port)?;
        }
    }

    Ok(TunnelState {
        id: go_int(tunnel.get("id"), 0),
        kind,
        ip_preference: go_string(tunnel.get("ipPreference")),
        entries,
        hops,
        exits,
        nodes,
    })
}

/// The given port, or for a local node the first free port of its range
/// (a remote node keeps 0 until its provider allocates one).
fn resolve_port(n: &TunnelNode, nodes: &HashMap<i64, NodeRecord>, picked: &mut HashMap<i64, i64>) -> Result<i64> {
    if n.port > 0 {
        return Ok(n.port);
    }
    let node = nodes.get(&n.node_id).ok_or(Rejection::NodeNotFound)?;
    if node.is_remote {
        return Ok(n.port);
    }
    if let Some(p) = picked.get(&n.node_id) {
        return Ok(*p);
    }
    let port = node.first_free_port().ok_or(Rejection::PortsExhausted)?;
    picked.insert(n.node_id, port);
    Ok(port)
}

fn check_remote_port(node: &NodeRecord, port: i64) -> Result<()> {
    if !node.is_remote || port <= 0 {
        return Ok(());
    }
    let (start, end) = node.remote_port_range();
    if start <= 0 || end <= 0 {
        return Ok(());
    }
    if port < start || port > end {
        return Err(Rejection::RemotePortOutOfRange { port, start, end });
    }
    Ok(())
}

/// The host `from` dials to reach `to`: the target's connect IP, else the
/// first address family both sides share, in the tunnel's preference order.
fn dial_host(from: &NodeRecord, to: &NodeRecord, preference: &str, connect_ip: &str) -> Result<String> {
    if !connect_ip.trim().is_empty() {
        return Ok(connect_ip.trim().to_string());
    }
    let (f4, f6, t4, t6) = (from.supports_v4(), from.supports_v6(), to.supports_v4(), to.supports_v6());
    let v4 = |ok: bool| if ok { Some(to.address_v4().trim()) } else { None };
    let v6 = |ok: bool| if ok { Some(to.address_v6().trim()) } else { None };
    let order = match preference.trim() {
        "v6" => vec![v6(f6 && t6), v4(f4 && t4)],
        "v4" => vec![v4(f4 && t4), v6(f6 && t6)],
        _ => vec![v4(f4 && t4), v6(f6 && t6), v4(f6 && t4), v6(f4 && t6)],
    };
    for host in order.into_iter().flatten() {
        if !host.is_empty() {
            return Ok(host.to_string());
        }
    }
    Err(Rejection::LinkIncompatible {
        from: from.name.clone(),
        from_v4: f4,
        from_v6: f6,
        to: to.name.clone(),
        to_v4: t4,
        to_v6: t6,
    })
}

fn node(state: &TunnelState, id: i64) -> Result<&NodeRecord> {
    state.nodes.get(&id).ok_or(Rejection::NodeNotFound)
}

/// Chain targets from `from` to each of `targets`, in order.
fn chain_targets(state: &TunnelState, from: &NodeRecord, targets: &[TunnelNode]) -> Result<Vec<ChainTarget>> {
    let mut out = Vec::with_capacity(targets.len());
    for t in targets {
        let to = node(state, t.node_id)?;
        let host = dial_host(from, to, &state.ip_preference, &t.connect_ip)?;
        if t.port <= 0 {
            return Err(Rejection::PortMissing);
        }
        out.push(ChainTarget { host, port: t.port, protocol: default_string(&t.protocol, "tls") });
    }
    Ok(out)
}

/// The strategy a hop runs toward `targets`: the first target's, `best` as fifo.
fn targets_strategy(owner_strategy: &str, targets: &[TunnelNode]) -> String {
    let s = default_string(owner_strategy, "round");
    let s = match targets.first() {
        Some(t) => default_string(&t.strategy, &s),
        None => s,
    };
    builders::runtime_strategy(&s)
}

fn next_targets(state: &TunnelState, hop_index: usize) -> &[TunnelNode] {
    state.hops.get(hop_index + 1).map(Vec::as_slice).unwrap_or(&state.exits)
}

/// Section 3: remote exits, then remote hop nodes from the last hop to the
/// first; fixes the ports the local chains dial.
fn apply_federation(state: &mut TunnelState, federation: Option<&Value>) -> Result<Vec<FederationStep>> {
    let mut steps = Vec::new();
    let mut memo = ChainMemo::default();
    for i in 0..state.exits.len() {
        let Some(exit) = state.exits.get(i).cloned() else { continue };
        let rec = node(state, exit.node_id)?;
        if !rec.is_remote {
            continue;
        }
        check_share(rec)?;
        let fed = FederationInfo::lookup(federation, exit.node_id);
        let key = resource_key(state.id, exit.node_id, 3, 0);
        let protocol = default_string(&exit.protocol, "tls");
        let port = fed.allocated_port.unwrap_or(exit.port);
        if let Some(e) = state.exits.get_mut(i) {
            e.port = port;
        }
        let service = builders::service(ServiceSpec {
            name: builders::numbered("fed_svc_", fed.runtime_id),
            addr: crate::address::host_port(&fed.tcp_listen_addr, port),
            protocol: &protocol,
            chain: None,
            candidates: 0,
            interface: Some(&fed.interface_name),
            flavor: Flavor::Federated,
        });
        steps.push(FederationStep {
            node_id: exit.node_id,
            role: "exit".into(),
            resource_key: key.clone(),
            reserve: Reserve { resource_key: key.clone(), protocol: protocol.clone(), requested_port: exit.port },
            apply: Apply {
                resource_key: key,
                role: "exit".into(),
                protocol,
                strategy: default_string(&exit.strategy, "round"),
                targets: None,
            },
            commands: vec![Command { node_id: exit.node_id, command: "AddService".into(), data: CommandData::Services(vec![service]) }],
        });
    }

    for h in (0..state.hops.len()).rev() {
        let width = state.hops.get(h).map_or(0, Vec::len);
        for j in 0..width {
            let Some(hop_node) = state.hops.get(h).and_then(|hop| hop.get(j)).cloned() else { continue };
            let rec = node(state, hop_node.node_id)?;
            if !rec.is_remote {
                continue;
            }
            check_share(rec)?;
            let fed = FederationInfo::lookup(federation, hop_node.node_id);
            let key = resource_key(state.id, hop_node.node_id, 2, h as i64 + 1);
            let protocol = default_string(&hop_node.protocol, "tls");
            let port = fed.allocated_port.unwrap_or(hop_node.port);
            if let Some(n) = state.hops.get_mut(h).and_then(|hop| hop.get_mut(j)) {
                n.port = port;
            }

            // The port is set; read the record again (the mutation above ended the borrow).
            let rec = node(state, hop_node.node_id)?;
            let next = next_targets(state, h);
            let (targets, nodes) = memo.get(state, rec, h + 1, Flavor::Federated)?;
            let strategy = targets_strategy(&hop_node.strategy, next);
            let chain_name = builders::numbered("fed_chain_", fed.runtime_id);
            let chain = builders::chain_with_nodes(
                chain_name.clone(),
                builders::numbered("hop_", fed.runtime_id),
                builders::runtime_strategy(&strategy),
                nodes,
                &fed.interface_name,
            );
            let service = builders::service(ServiceSpec {
                name: builders::numbered("fed_svc_", fed.runtime_id),
                addr: crate::address::host_port(&fed.tcp_listen_addr, port),
                protocol: &protocol,
                chain: Some(chain_name),
                candidates: targets.len(),
                interface: None,
                flavor: Flavor::Federated,
            });
            steps.push(FederationStep {
                node_id: hop_node.node_id,
                role: "middle".into(),
                resource_key: key.clone(),
                reserve: Reserve { resource_key: key.clone(), protocol: protocol.clone(), requested_port: hop_node.port },
                apply: Apply {
                    resource_key: key,
                    role: "middle".into(),
                    protocol,
                    strategy,
                    targets: Some(targets),
                },
                commands: vec![
                    Command { node_id: hop_node.node_id, command: "AddChains".into(), data: CommandData::Chain(chain) },
                    Command { node_id: hop_node.node_id, command: "AddService".into(), data: CommandData::Services(vec![service]) },
                ],
            });
        }
    }
    Ok(steps)
}

fn check_share(rec: &NodeRecord) -> Result<()> {
    if rec.remote_url.is_empty() || !rec.has_remote_token {
        return Err(Rejection::RemoteShareMissing { name: rec.name.clone() });
    }
    Ok(())
}

pub fn resource_key(tunnel_id: i64, node_id: i64, chain_type: i64, hop: i64) -> String {
    format!("tunnel:{}:node:{}:type:{}:hop:{}", tunnel_id, node_id, chain_type, hop)
}

/// Section 2: the panel's own nodes (type 2 tunnels only).
fn apply_local(state: &TunnelState) -> Result<Vec<Command>> {
    let mut out = Vec::new();
    if state.kind != 2 {
        return Ok(out);
    }
    let mut memo = ChainMemo::default();
    let first_targets: &[TunnelNode] = state.hops.first().map(Vec::as_slice).unwrap_or(&state.exits);
    for entry in &state.entries {
        let from = node(state, entry.node_id)?;
        out.push(Command { node_id: entry.node_id, command: "AddChains".into(), data: CommandData::Chain(local_chain(state, &mut memo, from, 0, first_targets)?) });
    }
    for (h, hop) in state.hops.iter().enumerate() {
        let next = next_targets(state, h);
        for hop_node in hop {
            let rec = node(state, hop_node.node_id)?;
            if rec.is_remote || rec.status != 1 {
                continue;
            }
            out.push(Command { node_id: hop_node.node_id, command: "AddChains".into(), data: CommandData::Chain(local_chain(state, &mut memo, rec, h + 1, next)?) });
            out.push(Command {
                node_id: hop_node.node_id,
                command: "AddService".into(),
                data: CommandData::Services(vec![local_service(state, hop_node, rec, next.len())]),
            });
        }
    }
    for exit in &state.exits {
        let rec = node(state, exit.node_id)?;
        if rec.is_remote || rec.status != 1 {
            continue;
        }
        out.push(Command { node_id: exit.node_id, command: "AddService".into(), data: CommandData::Services(vec![local_service(state, exit, rec, 1)]) });
    }
    Ok(out)
}

fn local_chain(
    state: &TunnelState,
    memo: &mut ChainMemo,
    from: &NodeRecord,
    target_hop: usize,
    targets: &[TunnelNode],
) -> Result<crate::plan::ChainConfig> {
    let (_, nodes) = memo.get(state, from, target_hop, Flavor::Local)?;
    let strategy = match targets.first() {
        Some(t) => builders::runtime_strategy(&default_string(t.strategy.trim(), "round")),
        None => "round".to_string(),
    };
    Ok(builders::chain_with_nodes(builders::numbered("chains_", state.id), builders::numbered("hop_", state.id), strategy, nodes, &from.interface_name))
}

fn local_service(state: &TunnelState, n: &TunnelNode, rec: &NodeRecord, candidates: usize) -> crate::plan::ServiceConfig {
    let protocol = default_string(&n.protocol, "tls");
    let host = default_string(n.connect_ip.trim(), &rec.tcp_listen_addr);
    let is_middle = n.role == Role::Middle;
    builders::service(ServiceSpec {
        name: builders::numbered("tunnel_", state.id),
        addr: crate::address::process_server_address(&crate::address::host_port(&host, n.port)),
        protocol: &protocol,
        chain: if is_middle { Some(builders::numbered("chains_", state.id)) } else { None },
        candidates,
        interface: if n.role == Role::Exit { Some(&rec.interface_name) } else { None },
        flavor: Flavor::Local,
    })
}

/// The plan's node table: every tunnel node, its role, final port and the
/// hosts it is dialed by (as they appear in chain node addresses).
fn node_summary(state: &TunnelState, federation: Option<&Value>) -> Vec<PlanNode> {
    let all = state.entries.iter().chain(state.hops.iter().flatten()).chain(state.exits.iter());
    all.filter_map(|n| {
        let rec = state.nodes.get(&n.node_id)?;
        let mut addresses: Vec<String> = Vec::new();
        for host in [n.connect_ip.as_str(), rec.server_ipv4.as_str(), rec.server_ipv6.as_str(), rec.server_ip.as_str()] {
            let host = host.trim();
            if host.is_empty() {
                continue;
            }
            let dialed = dialed_host(host, n.port);
            if !addresses.contains(&dialed) {
                addresses.push(dialed);
            }
        }
        Some(PlanNode {
            node_id: n.node_id,
            name: rec.name.clone(),
            role: n.role.as_str().to_string(),
            hop: n.hop,
            remote: rec.is_remote,
            protocol: n.protocol.clone(),
            strategy: n.strategy.clone(),
            port: n.port,
            addresses,
            runtime_id: if rec.is_remote && n.role != Role::Entry { Some(FederationInfo::lookup(federation, n.node_id).runtime_id) } else { None },
        })
    })
    .collect()
}

/// The host part of the address a chain writes for `host` and `port`.
fn dialed_host(host: &str, port: i64) -> String {
    let addr = crate::address::process_server_address(&crate::address::host_port(host, port));
    let suffix = format!(":{}", port);
    match addr.strip_suffix(&suffix) {
        Some(h) => h.to_string(),
        None => addr,
    }
}

/// Chain targets and chain nodes toward one hop, per sender address family and
/// builder flavor. The hosts a node dials depend only on which IP families it
/// has, so every node of a hop (usually) shares one node list: a plan grows
/// with the square of hop width, but holds only one list per hop and family.
/// The targets toward one hop and the chain nodes that dial them.
type ChainLists = (Shared<Vec<ChainTarget>>, Shared<Vec<NodeConfig>>);

#[derive(Default)]
struct ChainMemo {
    lists: HashMap<(usize, bool, bool, Flavor), ChainLists>,
}

impl ChainMemo {
    /// `target_hop`: index into the hops, `hops.len()` for the exits.
    fn get(&mut self, state: &TunnelState, from: &NodeRecord, target_hop: usize, flavor: Flavor) -> Result<ChainLists> {
        let key = (target_hop, from.supports_v4(), from.supports_v6(), flavor);
        if let Some((t, n)) = self.lists.get(&key) {
            return Ok((t.clone(), n.clone()));
        }
        let targets_of = state.hops.get(target_hop).map(Vec::as_slice).unwrap_or(&state.exits);
        let targets = Shared::new(chain_targets(state, from, targets_of)?);
        let nodes = builders::chain_nodes(&targets, flavor);
        self.lists.insert(key, (targets.clone(), nodes.clone()));
        Ok((targets, nodes))
    }
}
