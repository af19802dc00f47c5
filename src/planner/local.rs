//! What the panel sends its own nodes (go-backend
//! `internal/http/handler/mutations.go:3495-3576`; and,
//! relayed through a provider, its remote entries) for a type-2 tunnel:
//! entry chains, then per hop node its chain and service, then exit services.

use super::rejection::{Rejection, Result};
use super::state::{TunnelState, TunnelType};
use crate::builders::{self, ChainTarget, Flavor, ServiceSpec};
use crate::coerce::default_string;
use crate::model::{NodeRecord, NodeRole, NodeTable, TunnelNode};
use crate::plan::{
    ChainConfig, Command, CommandData, CommandName, NodeConfig, ServiceConfig, Shared,
    UpdateChainData,
};
use crate::strings::trim;
use std::collections::BTreeMap;

/// `Add*` on create and redeploy, `Update*` where an edit updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Add,
    Update,
}

/// The host `from` dials to reach `to`: the target's connect IP, else the
/// first address family both sides share, in the tunnel's preference order.
pub fn dial_host(
    from: &NodeRecord,
    to: &NodeRecord,
    preference: &str,
    connect_ip: &str,
) -> Result<String> {
    let connect_ip = trim(connect_ip);
    if !connect_ip.is_empty() {
        return Ok(connect_ip.to_string());
    }
    let (f4, f6, t4, t6) = (
        from.supports_v4(),
        from.supports_v6(),
        to.supports_v4(),
        to.supports_v6(),
    );
    let v4 = |ok: bool| {
        if ok {
            Some(trim(to.address_v4()))
        } else {
            None
        }
    };
    let v6 = |ok: bool| {
        if ok {
            Some(trim(to.address_v6()))
        } else {
            None
        }
    };
    let order = match trim(preference) {
        "v6" => [v6(f6 && t6), v4(f4 && t4), None, None],
        "v4" => [v4(f4 && t4), v6(f6 && t6), None, None],
        _ => [v4(f4 && t4), v6(f6 && t6), v4(f6 && t4), v6(f4 && t6)],
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

/// Chain targets from `from` to each of `targets`, in order.
pub fn chain_targets(
    nodes: &NodeTable,
    preference: &str,
    from: &NodeRecord,
    targets: &[TunnelNode],
) -> Result<Vec<ChainTarget>> {
    let mut out = Vec::with_capacity(targets.len());
    for t in targets {
        let to = nodes.get(t.node_id).ok_or(Rejection::NodeNotFound)?;
        let host = dial_host(from, to, preference, &t.connect_ip)?;
        if t.port <= 0 {
            return Err(Rejection::PortMissing);
        }
        out.push(ChainTarget {
            host,
            port: t.port,
            protocol: builders::plugin_kind(default_string(&t.protocol, "tls")),
        });
    }
    Ok(out)
}

/// The strategy a hop runs toward `targets`: the first target's, `best` as fifo.
pub fn targets_strategy(owner_strategy: &str, targets: &[TunnelNode]) -> String {
    let s = default_string(owner_strategy, "round");
    let s = match targets.first() {
        Some(t) => default_string(&t.strategy, s),
        None => s,
    };
    builders::runtime_strategy(s)
}

/// The local apply. `verb` is `Update` where an edit of a stored type-2
/// tunnel upserts.
pub fn apply_local(state: &TunnelState, nodes: &NodeTable, verb: Verb) -> Result<Vec<Command>> {
    let mut out = Vec::new();
    if !TunnelType::of(state.kind).relays() {
        return Ok(out);
    }
    let node = |id: i64| nodes.get(id).ok_or(Rejection::NodeNotFound);
    let mut memo = ChainMemo::default();
    for entry in &state.entries {
        let from = node(entry.node_id)?;
        let chain = local_chain(state, nodes, &mut memo, from, 0, state.first_targets())?;
        if from.is_remote {
            // Relayed by the entry's provider panel.
            if from.remote_url.is_empty() || !from.has_remote_token {
                return Err(Rejection::EntryShareMissing {
                    name: from.name.clone(),
                });
            }
            let command = chain_command_name(verb);
            if !command.provider_relays() {
                return Err(Rejection::EntryChainRefused {
                    name: from.name.clone(),
                    reason: "remote api error: command not allowed".into(),
                });
            }
        }
        // An offline agent answers `节点不在线`, which the server skips
        // silently (control_plane.go): nothing is sent.
        if !from.is_remote && from.status != 1 {
            continue;
        }
        out.push(chain_command(entry.node_id, chain, verb));
    }
    for (h, hop) in state.hops.iter().enumerate() {
        let next = state.next_targets(h);
        for hop_node in hop {
            let rec = node(hop_node.node_id)?;
            if rec.is_remote || rec.status != 1 {
                continue;
            }
            let chain = local_chain(state, nodes, &mut memo, rec, h + 1, next)?;
            out.push(chain_command(hop_node.node_id, chain, verb));
            out.push(service_command(
                hop_node.node_id,
                local_service(state, hop_node, rec, next.len()),
                verb,
            ));
        }
    }
    for exit in &state.exits {
        let rec = node(exit.node_id)?;
        if rec.is_remote || rec.status != 1 {
            continue;
        }
        out.push(service_command(
            exit.node_id,
            local_service(state, exit, rec, 1),
            verb,
        ));
    }
    Ok(out)
}

fn chain_command_name(verb: Verb) -> CommandName {
    match verb {
        Verb::Add => CommandName::AddChains,
        Verb::Update => CommandName::UpdateChains,
    }
}

fn chain_command(node_id: i64, chain: ChainConfig, verb: Verb) -> Command {
    let data = match verb {
        Verb::Add => CommandData::Chain(chain),
        Verb::Update => CommandData::UpdateChain(UpdateChainData {
            chain: chain.name.clone(),
            data: chain,
        }),
    };
    Command::new(node_id, chain_command_name(verb), data)
}

fn service_command(node_id: i64, service: ServiceConfig, verb: Verb) -> Command {
    let command = match verb {
        Verb::Add => CommandName::AddService,
        Verb::Update => CommandName::UpdateService,
    };
    Command::new(node_id, command, CommandData::Services(vec![service]))
}

fn local_chain(
    state: &TunnelState,
    nodes: &NodeTable,
    memo: &mut ChainMemo,
    from: &NodeRecord,
    target_hop: usize,
    targets: &[TunnelNode],
) -> Result<ChainConfig> {
    // `buildTunnelChainConfig` (mutations.go:3828-3835): a redeploy's rows
    // may give the entries or a hop nothing to dial.
    if targets.is_empty() {
        return Err(Rejection::ChainTargetsEmpty);
    }
    let (_, chain_nodes) = memo.get(state, nodes, from, target_hop, Flavor::Local)?;
    let strategy = match targets.first() {
        Some(t) => builders::runtime_strategy(default_string(trim(&t.strategy), "round")),
        None => "round".to_string(),
    };
    Ok(builders::chain_with_nodes(
        builders::numbered("chains_", state.id),
        builders::numbered("hop_", state.id),
        strategy,
        chain_nodes,
        &from.interface_name,
    ))
}

fn local_service(
    state: &TunnelState,
    n: &TunnelNode,
    rec: &NodeRecord,
    candidates: usize,
) -> ServiceConfig {
    let protocol = default_string(&n.protocol, "tls");
    let host = default_string(trim(&n.connect_ip), &rec.tcp_listen_addr);
    let is_middle = n.role == NodeRole::Middle;
    builders::service(ServiceSpec {
        name: builders::numbered("tunnel_", state.id),
        addr: crate::address::server_host_port(host, n.port),
        protocol,
        chain: if is_middle {
            Some(builders::numbered("chains_", state.id))
        } else {
            None
        },
        candidates,
        interface: if n.role == NodeRole::Exit {
            Some(&rec.interface_name)
        } else {
            None
        },
        flavor: Flavor::Local,
    })
}

/// The targets toward one hop and the chain nodes that dial them.
pub(super) type ChainLists = (Shared<Vec<ChainTarget>>, Shared<Vec<NodeConfig>>);

/// Chain targets and chain nodes toward one hop, per sender address family.
/// The hosts a node dials depend only on which IP families it has, so every
/// node of a hop (usually) shares one node list: a plan grows with the square
/// of hop width, but holds only one list per hop and family.
#[derive(Default)]
pub(super) struct ChainMemo {
    /// (target hop, sender has v4, sender has v6, federated flavor).
    lists: BTreeMap<(usize, bool, bool, bool), ChainLists>,
}

impl ChainMemo {
    /// `target_hop`: index into the hops, `hops.len()` for the exits.
    pub(super) fn get(
        &mut self,
        state: &TunnelState,
        nodes: &NodeTable,
        from: &NodeRecord,
        target_hop: usize,
        flavor: Flavor,
    ) -> Result<ChainLists> {
        let key = (
            target_hop,
            from.supports_v4(),
            from.supports_v6(),
            flavor == Flavor::Federated,
        );
        if let Some((t, n)) = self.lists.get(&key) {
            return Ok((t.clone(), n.clone()));
        }
        let targets_of = state
            .hops
            .get(target_hop)
            .map(Vec::as_slice)
            .unwrap_or(&state.exits);
        let targets = Shared::new(chain_targets(
            nodes,
            &state.ip_preference,
            from,
            targets_of,
        )?);
        let chain_nodes = builders::chain_nodes(&targets, flavor);
        self.lists
            .insert(key, (targets.clone(), chain_nodes.clone()));
        Ok((targets, chain_nodes))
    }
}
