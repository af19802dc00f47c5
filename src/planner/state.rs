//! The tunnel state the server prepares from a payload (entries, exits, hops,
//! ports, node checks) and the chain rows it stores, plus the connect-IP
//! check that runs before everything (go-backend
//! `internal/http/handler/mutations.go`).

use super::rejection::{Rejection, Result};
use crate::coerce::GoText;
use crate::limits::{LimitError, Limits};
use crate::model::{
    NodeItems, NodeRecord, NodeRole, NodeTable, TunnelNode, TunnelNodeRef, TunnelPayload,
};
use std::collections::{BTreeMap, BTreeSet};

/// A tunnel's `type` as the server tells them apart: 2 relays traffic from
/// the entries through the hops to the exits over a chain (a tunnel
/// forward); the server tests nothing but `type == 2`, so any other value
/// forwards ports on the entries alone (a port forward, type 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunnelType {
    PortForward,
    TunnelForward,
}

impl TunnelType {
    pub fn of(kind: i64) -> TunnelType {
        match kind {
            2 => TunnelType::TunnelForward,
            _ => TunnelType::PortForward,
        }
    }

    /// Whether the tunnel's nodes relay over a chain (hops and exits).
    pub fn relays(self) -> bool {
        self == TunnelType::TunnelForward
    }
}

/// The tunnel as the server holds it once prepared (or rebuilt from rows).
#[derive(Debug, Clone)]
pub struct TunnelState {
    pub id: i64,
    /// The `type` as stored ([`TunnelType::of`] reads it).
    pub kind: i64,
    pub ip_preference: String,
    pub entries: Vec<TunnelNode>,
    pub hops: Vec<Vec<TunnelNode>>,
    pub exits: Vec<TunnelNode>,
}

impl TunnelState {
    /// `(node id, port)` of every chain row with a port: the hops' and the
    /// exits' (an entry's row stores none).
    pub fn chain_ports(&self) -> Vec<(i64, i64)> {
        let nodes = self.hops.iter().flatten().chain(&self.exits);
        nodes.map(|n| (n.node_id, n.port)).collect()
    }
}

/// The fewest bytes one dialed node takes in a plan's text: a chain's node
/// entry has at least its keys, `{"addr":"","connector":{"type":""},
/// "dialer":{"type":""},"name":""}`, whatever its values (src/builders.rs).
pub const PLAN_BYTES_PER_DIAL: usize = 64;

impl TunnelState {
    /// What hop `index` (0-based) dials: the next hop, or the exits.
    pub fn next_targets(&self, index: usize) -> &[TunnelNode] {
        self.hops
            .get(index + 1)
            .map(Vec::as_slice)
            .unwrap_or(&self.exits)
    }

    /// What the entries dial: the first hop, or the exits.
    pub fn first_targets(&self) -> &[TunnelNode] {
        self.hops.first().map(Vec::as_slice).unwrap_or(&self.exits)
    }

    /// How many node-to-node dials the tunnel's chains list: each node of a
    /// group lists every node of the group it dials, so a plan grows with
    /// these products, whatever the input's size.
    pub fn dial_count(&self) -> usize {
        let mut count = self
            .entries
            .len()
            .saturating_mul(self.first_targets().len());
        for (index, hop) in self.hops.iter().enumerate() {
            count = count.saturating_add(hop.len().saturating_mul(self.next_targets(index).len()));
        }
        count
    }

    /// Refuses a tunnel whose plan cannot fit `limits.maxOutputBytes`, from
    /// its dial count alone: before any command is built.
    pub fn output_within(&self, limits: &Limits) -> std::result::Result<(), LimitError> {
        let floor = self.dial_count().saturating_mul(PLAN_BYTES_PER_DIAL);
        if floor > limits.max_output_bytes {
            return Err(LimitError::new(
                "maxOutputBytes",
                floor,
                limits.max_output_bytes,
                String::new(),
            ));
        }
        Ok(())
    }
}

/// `validateTunnelConnectIPConstraints`, on the raw payload: a custom
/// connect IP is refused on any exit of a multi-exit tunnel, then on any node
/// of a hop with several nodes.
pub fn check_connect_ips(tunnel: &TunnelPayload) -> Result<()> {
    let has_connect_ip = |item: &TunnelNodeRef| !GoText::text(&item.connect_ip).is_empty();
    let exits = &tunnel.out_node_id.0;
    if exits.len() > 1 && exits.iter().any(has_connect_ip) {
        return Err(Rejection::ConnectIpMultiExit);
    }
    for (i, hop) in tunnel.chain_nodes.0.iter().enumerate() {
        let nodes = &hop.0;
        if nodes.len() > 1 && nodes.iter().any(has_connect_ip) {
            return Err(Rejection::ConnectIpMultiNodeHop { hop: i + 1 });
        }
    }
    Ok(())
}

/// Create or edit rules of the preparation.
pub enum Rules<'a> {
    Create,
    /// The create an edit starts from: the tunnel existed, so nodes that
    /// have gone offline since are no reason to refuse it.
    Recreate,
    /// An edit of the stored tunnel: ports are picked excluding its own, and
    /// offline nodes that already have a row in it are tolerated.
    Update {
        stored_nodes: &'a BTreeSet<i64>,
    },
}

/// `prepareTunnelCreateState` (mutations.go:2944-3115): the first error
/// stops everything.
pub fn prepare(
    tunnel: &TunnelPayload,
    id: i64,
    nodes: &NodeTable,
    rules: Rules<'_>,
) -> Result<TunnelState> {
    let kind = GoText::int(&tunnel.kind, 1);
    let entries = read_entries(tunnel)?;
    let (exits, hops) = if TunnelType::of(kind).relays() {
        let mut picked = PortPicks::default();
        let exits = read_exits(tunnel, nodes, &mut picked)?;
        let hops = read_hops(tunnel, nodes, &mut picked)?;
        (exits, hops)
    } else {
        (Vec::new(), Vec::new())
    };
    let ids = entries
        .iter()
        .chain(&exits)
        .chain(hops.iter().flatten())
        .map(|n| n.node_id);
    check_nodes(ids, nodes, &rules)?;
    for n in exits.iter().chain(hops.iter().flatten()) {
        if let Some(node) = nodes.get(n.node_id) {
            check_remote_port(node, n.port)?;
        }
    }
    Ok(TunnelState {
        id,
        kind,
        ip_preference: GoText::text(&tunnel.ip_preference).to_string(),
        entries,
        hops,
        exits,
    })
}

/// The nodes of a list (`inNodeId`, `outNodeId`), numbered by their place
/// in it; an item without a node id is skipped.
fn listed(items: &NodeItems, role: NodeRole) -> Vec<TunnelNode> {
    let items = items.0.iter().enumerate();
    items
        .filter_map(|(i, item)| {
            let mut n = TunnelNode::from_ref(item, role);
            n.inx = i as i64 + 1;
            (n.node_id > 0).then_some(n)
        })
        .collect()
}

/// The entries of the payload (`inNodeId`); a tunnel needs at least one.
fn read_entries(tunnel: &TunnelPayload) -> Result<Vec<TunnelNode>> {
    let entries = listed(&tunnel.in_node_id, NodeRole::Entry);
    if entries.is_empty() {
        return Err(Rejection::NoEntries);
    }
    Ok(entries)
}

/// The exits of the payload (`outNodeId`), each with its port; a relaying
/// tunnel needs at least one.
fn read_exits(
    tunnel: &TunnelPayload,
    nodes: &NodeTable,
    picked: &mut PortPicks,
) -> Result<Vec<TunnelNode>> {
    let mut exits = listed(&tunnel.out_node_id, NodeRole::Exit);
    for n in exits.iter_mut() {
        n.port = picked.payload_port(n, nodes)?;
    }
    if exits.is_empty() {
        return Err(Rejection::NoExits);
    }
    Ok(exits)
}

/// The hops of the payload (`chainNodes`), each node with its port: an
/// empty hop is dropped, so `hop` counts the hops kept while `inx` keeps
/// the payload's place.
fn read_hops(
    tunnel: &TunnelPayload,
    nodes: &NodeTable,
    picked: &mut PortPicks,
) -> Result<Vec<Vec<TunnelNode>>> {
    let mut hops: Vec<Vec<TunnelNode>> = Vec::new();
    for (raw_index, raw_hop) in tunnel.chain_nodes.0.iter().enumerate() {
        let mut hop = Vec::new();
        for item in &raw_hop.0 {
            let mut n = TunnelNode::from_ref(item, NodeRole::Middle);
            if n.node_id <= 0 {
                continue;
            }
            n.port = picked.payload_port(&n, nodes)?;
            n.hop = hops.len() as i64 + 1;
            n.inx = raw_index as i64 + 1;
            hop.push(n);
        }
        if !hop.is_empty() {
            hops.push(hop);
        }
    }
    Ok(hops)
}

/// Each node of the tunnel once, known, and online unless `rules` tolerate
/// it offline.
fn check_nodes(ids: impl Iterator<Item = i64>, nodes: &NodeTable, rules: &Rules<'_>) -> Result<()> {
    let mut seen = BTreeSet::default();
    for id in ids {
        if !seen.insert(id) {
            return Err(Rejection::DuplicateNode);
        }
        let node = nodes.get(id).ok_or(Rejection::NodeNotFound)?;
        if !node.is_remote && node.status != 1 {
            let tolerated = match rules {
                Rules::Create => false,
                Rules::Recreate => true,
                Rules::Update { stored_nodes } => stored_nodes.contains(&id),
            };
            if !tolerated {
                return Err(Rejection::NodeOffline);
            }
        }
    }
    Ok(())
}

/// Ports the request has picked so far, by node: a node picked twice gets
/// the same port.
#[derive(Default)]
struct PortPicks {
    by_node: BTreeMap<i64, i64>,
}

impl PortPicks {
    /// The payload's port, or for a local node a free port of its range (a
    /// remote node keeps 0 until its provider allocates one).
    fn payload_port(&mut self, n: &TunnelNode, nodes: &NodeTable) -> Result<i64> {
        if n.port > 0 {
            return Ok(n.port);
        }
        let node = nodes.get(n.node_id).ok_or(Rejection::NodeNotFound)?;
        if node.is_remote {
            return Ok(n.port);
        }
        self.pick(node, &[])
    }

    fn pick(&mut self, node: &NodeRecord, used: &[i64]) -> Result<i64> {
        if let Some(p) = self.by_node.get(&node.id) {
            return Ok(*p);
        }
        let port = node.first_free_port(used).ok_or_else(|| exhausted(node))?;
        self.by_node.insert(node.id, port);
        Ok(port)
    }
}

/// No port to pick: a blank range is told apart from a full one.
fn exhausted(node: &NodeRecord) -> Rejection {
    if node.port_range.trim().is_empty() {
        Rejection::PortRangeMissing {
            name: node.name.clone(),
        }
    } else {
        Rejection::PortsExhausted
    }
}

/// `validateRemoteNodePort`: a given port of a remote node must lie inside
/// the range its row's `remoteConfig` shares (when one is set).
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

/// `replaceTunnelChainsTx` (mutations.go:4155-4237) for a tunnel that is not
/// type 2: the rows it stores need a port for every exit and hop item,
/// picked where the payload gives none (ports already stored for the node in
/// this request are taken). For type 2 every port is set by then and nothing
/// can fail here.
pub fn store_chain_rows(tunnel: &TunnelPayload, nodes: &NodeTable) -> Result<()> {
    let mut picks = PortPicks::default();
    let mut stored: Vec<(i64, i64)> = Vec::new();
    let hop_items = tunnel.chain_nodes.0.iter().flat_map(|hop| hop.0.iter());
    for item in tunnel.out_node_id.0.iter().chain(hop_items) {
        let node_id = GoText::int(&item.node_id, 0);
        if node_id <= 0 {
            continue;
        }
        let mut port = GoText::int(&item.port, 0);
        if port <= 0 {
            let node = nodes.get(node_id).ok_or(Rejection::NodeNotFound)?;
            let used: Vec<i64> = stored
                .iter()
                .filter(|(id, _)| *id == node_id)
                .map(|(_, p)| *p)
                .collect();
            port = picks.pick(node, &used)?;
        }
        stored.push((node_id, port));
    }
    Ok(())
}

/// The node ids a payload stores chain rows for (every type stores them).
pub fn stored_node_ids(tunnel: &TunnelPayload) -> BTreeSet<i64> {
    tunnel
        .items()
        .map(|item| GoText::int(&item.node_id, 0))
        .filter(|id| *id > 0)
        .collect()
}
