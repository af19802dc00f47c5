//! Nodes shared by other panels (`applyFederationRuntime`, go-backend
//! `internal/http/handler/mutations.go:3248-3432`). Remote exits first, then
//! remote hop nodes from the last hop to the first; each is reserved and
//! applied on its provider panel, which fixes the port the local chains dial.

use super::local::{targets_strategy, ChainLists, ChainMemo};
use super::provider::{share_of, ApplyKind, Providers, Reservation, Share};
use super::rejection::{Rejection, Result};
use super::state::TunnelState;
use crate::builders::{self, Flavor, ServiceSpec};
use crate::coerce::default_string;
use crate::model::{FederationAnswers, FederationInfo, NodeRecord, NodeTable, TunnelNode};
use crate::plan::{
    Apply, Assumption, Command, CommandData, CommandName, FederationStep, MetaValue, Reserve,
    UpdateChainData,
};

/// A runtime the request applied on a provider (a `federation_tunnel_binding`).
#[derive(Debug, Clone)]
pub struct Binding {
    pub node_id: i64,
    pub resource_key: String,
    pub runtime_id: i64,
    pub share: Share,
}

/// What the federation apply produced.
#[derive(Debug, Default)]
pub struct FederationOutcome {
    pub steps: Vec<FederationStep>,
    pub bindings: Vec<Binding>,
    pub assumed: Vec<Assumption>,
}

impl FederationOutcome {
    /// The bindings as the server saves them: a resource key names the
    /// tunnel, node, chain type and hop, so two bindings with one key break
    /// the table's unique indexes (model.go `FederationTunnelBinding`'s `uniqueIndex` tags).
    pub fn saved(&self) -> super::rejection::Result<()> {
        let mut keys: Vec<&str> = self
            .bindings
            .iter()
            .map(|b| b.resource_key.as_str())
            .collect();
        crate::sorting::sort(&mut keys);
        match keys.windows(2).any(|pair| pair.first() == pair.last()) {
            true => Err(super::rejection::Rejection::BindingNotUnique),
            false => Ok(()),
        }
    }
}

pub fn resource_key(tunnel_id: i64, node_id: i64, chain_type: i64, hop: i64) -> String {
    format!(
        "tunnel:{}:node:{}:type:{}:hop:{}",
        tunnel_id, node_id, chain_type, hop
    )
}

/// Where one remote node sits: an exit (by index) or a hop node.
#[derive(Clone, Copy)]
enum Place {
    Exit(usize),
    Hop(usize, usize),
}

impl Place {
    /// The binding's chain type, hop position and the step's role.
    fn binding_kind(self) -> (i64, i64, &'static str) {
        match self {
            Place::Exit(_) => (3, 0, "exit"),
            Place::Hop(h, _) => (2, h as i64 + 1, "middle"),
        }
    }
}

/// Reserves and applies every remote node of the tunnel on its provider,
/// in [`remote_order`]; the first refusal stops the apply.
pub fn apply_federation(
    state: &mut TunnelState,
    nodes: &NodeTable,
    federation: &FederationAnswers,
    providers: &mut Providers,
) -> Result<FederationOutcome> {
    let places = remote_order(state);
    let mut run = FederationApply {
        state,
        nodes,
        federation,
        providers,
        memo: ChainMemo::default(),
        out: FederationOutcome::default(),
    };
    for place in places {
        run.apply_place(place)?;
    }
    Ok(run.out)
}

/// Every place in the order the server applies them: the exits, then the
/// hops from the last to the first.
fn remote_order(state: &TunnelState) -> Vec<Place> {
    let mut places: Vec<Place> = (0..state.exits.len()).map(Place::Exit).collect();
    for h in (0..state.hops.len()).rev() {
        let width = state.hops.get(h).map_or(0, Vec::len);
        places.extend((0..width).map(|j| Place::Hop(h, j)));
    }
    places
}

/// The federation apply under way: the tunnel whose ports it fixes, the
/// provider panels, and what it has produced so far.
struct FederationApply<'a> {
    state: &'a mut TunnelState,
    nodes: &'a NodeTable,
    federation: &'a FederationAnswers,
    providers: &'a mut Providers,
    /// The middles of a hop dial the same next hop: one list of targets and
    /// chain nodes per address family, shared by their steps and chains.
    memo: ChainMemo,
    out: FederationOutcome,
}

/// One remote node being applied, with what its steps share.
struct RemoteNode<'a> {
    place: Place,
    item: TunnelNode,
    rec: &'a NodeRecord,
    share: Share,
    fed: FederationInfo,
    key: String,
    protocol: String,
}

/// What a middle dials (its targets and its chain's nodes), or `None` for an exit.
type Targets = Option<ChainLists>;

impl<'a> FederationApply<'a> {
    /// The node at `place`, reserved and applied on its provider when it is
    /// remote; local nodes are left to the local apply.
    fn apply_place(&mut self, place: Place) -> Result<()> {
        let Some(item) = item_at(self.state, place).cloned() else {
            return Ok(());
        };
        let Some(rec) = self.nodes.get(item.node_id) else {
            return Ok(());
        };
        if !rec.is_remote {
            return Ok(());
        }
        if rec.remote_url.is_empty() || !rec.has_remote_token {
            return Err(Rejection::RemoteShareMissing {
                name: rec.name.clone(),
            });
        }
        let node = self.remote_node(place, item, rec);
        let reserve = Reserve {
            resource_key: node.key.clone(),
            protocol: node.protocol.clone(),
            requested_port: node.item.port,
        };
        self.reserve_port(&node)?;
        let (strategy, targets) = self.strategy_and_targets(&node)?;
        let (kind, applied) = self.apply_runtime(&node)?;
        // A first apply of a middle builds its chain (federation.go:96-103,
        // 1186-1188): with nothing to dial the provider refuses it.
        if kind == ApplyKind::Deploy && targets.as_ref().is_some_and(|(t, _)| t.is_empty()) {
            return Err(Rejection::RemoteApplyFailed {
                name: node.rec.name.clone(),
                reason: super::provider::api_error("targets are required for middle role"),
            });
        }
        let commands = provider_commands(
            node.item.node_id,
            &node.share,
            applied.runtime_id,
            applied.port,
            &node.protocol,
            &strategy,
            targets.as_ref(),
            kind,
        );
        note_assumptions(
            &mut self.out.assumed,
            node.rec,
            &node.fed,
            applied.port,
            applied.runtime_id,
            node.item.port,
        );
        self.record(node, reserve, strategy, targets, applied, commands);
        Ok(())
    }

    /// The share, the provider's answers the input gave, and the binding's
    /// resource key for the remote node `rec` at `place`.
    fn remote_node(&self, place: Place, item: TunnelNode, rec: &'a NodeRecord) -> RemoteNode<'a> {
        let share = share_of(rec, self.nodes.rows(), self.federation);
        let fed = FederationInfo::lookup(self.federation, item.node_id);
        let (chain_type, hop_position, _) = place.binding_kind();
        let key = resource_key(self.state.id, item.node_id, chain_type, hop_position);
        let protocol = default_string(&item.protocol, "tls").to_string();
        RemoteNode {
            place,
            item,
            rec,
            share,
            fed,
            key,
            protocol,
        }
    }

    /// `reserve-port` on the provider: the requested port, else any port of
    /// the share's range (mutations.go:3277-3284, 3349-3356); the local
    /// chains dial the port it grants.
    fn reserve_port(&mut self, node: &RemoteNode<'_>) -> Result<()> {
        let (share, key, fed) = (&node.share, node.key.as_str(), &node.fed);
        let requested = node.item.port;
        let reserved = self
            .providers
            .reserve(share, key, requested, fed.runtime_id, fed.allocated_port)
            .or_else(|e| {
                if requested > 0 {
                    self.providers
                        .reserve(share, key, 0, fed.runtime_id, fed.allocated_port)
                } else {
                    Err(e)
                }
            })
            .map_err(|reason| Rejection::RemoteReserveFailed {
                name: node.rec.name.clone(),
                reason,
            })?;
        set_port(self.state, node.place, reserved.port, reserved.runtime_id);
        Ok(())
    }

    /// The runtime's strategy and, for a middle, the targets its chain dials.
    fn strategy_and_targets(&mut self, node: &RemoteNode<'_>) -> Result<(String, Targets)> {
        // A middle's targets are known now: its next hop was applied before it.
        Ok(match node.place {
            Place::Exit(_) => (
                default_string(&node.item.strategy, "round").to_string(),
                None,
            ),
            Place::Hop(h, _) => {
                let lists =
                    self.memo
                        .get(self.state, self.nodes, node.rec, h + 1, Flavor::Federated)?;
                let next = self.state.next_targets(h);
                (targets_strategy(&node.item.strategy, next), Some(lists))
            }
        })
    }

    /// `apply-role` on the provider; its answer's port and runtime id are
    /// the node's from now on.
    fn apply_runtime(&mut self, node: &RemoteNode<'_>) -> Result<(ApplyKind, Reservation)> {
        let (kind, applied) = self
            .providers
            .apply(&node.share, &node.key)
            .map_err(|reason| Rejection::RemoteApplyFailed {
                name: node.rec.name.clone(),
                reason,
            })?;
        set_port(self.state, node.place, applied.port, applied.runtime_id);
        Ok((kind, applied))
    }

    /// The binding the request saves and the step the plan shows.
    fn record(
        &mut self,
        node: RemoteNode<'_>,
        reserve: Reserve,
        strategy: String,
        targets: Targets,
        applied: Reservation,
        commands: Vec<Command>,
    ) {
        let (_, _, role) = node.place.binding_kind();
        let node_id = node.item.node_id;
        self.out.bindings.push(Binding {
            node_id,
            resource_key: node.key.clone(),
            runtime_id: applied.runtime_id,
            share: node.share,
        });
        self.out.steps.push(FederationStep {
            node_id,
            role: role.into(),
            resource_key: node.key.clone(),
            reserve,
            apply: Apply {
                resource_key: node.key,
                role: role.into(),
                protocol: node.protocol,
                strategy,
                targets: targets.map(|(targets, _)| targets),
            },
            commands,
        });
    }
}

/// The node at `place`, if the tunnel has one there.
fn item_at(state: &TunnelState, place: Place) -> Option<&TunnelNode> {
    match place {
        Place::Exit(i) => state.exits.get(i),
        Place::Hop(h, j) => state.hops.get(h).and_then(|hop| hop.get(j)),
    }
}

fn set_port(state: &mut TunnelState, place: Place, port: i64, runtime_id: i64) {
    let item = match place {
        Place::Exit(i) => state.exits.get_mut(i),
        Place::Hop(h, j) => state.hops.get_mut(h).and_then(|hop| hop.get_mut(j)),
    };
    if let Some(n) = item {
        if port > 0 {
            n.port = port;
        }
        n.runtime_id = Some(runtime_id);
    }
}

/// What the provider sends its agent for one applied runtime.
#[allow(clippy::too_many_arguments)]
fn provider_commands(
    node_id: i64,
    share: &Share,
    runtime_id: i64,
    port: i64,
    protocol: &str,
    strategy: &str,
    targets: Option<&ChainLists>,
    kind: ApplyKind,
) -> Vec<Command> {
    let chain_name = builders::numbered("fed_chain_", runtime_id);
    let chain = targets.map(|(_, nodes)| {
        builders::chain_with_nodes(
            chain_name.clone(),
            builders::numbered("hop_", runtime_id),
            builders::runtime_strategy(strategy),
            nodes.clone(),
            &share.interface_name,
        )
    });
    if kind == ApplyKind::AlreadyApplied {
        return match chain {
            Some(data) if targets.is_some_and(|(t, _)| !t.is_empty()) => {
                vec![Command::new(
                    node_id,
                    CommandName::UpdateChains,
                    CommandData::UpdateChain(UpdateChainData {
                        chain: chain_name,
                        data,
                    }),
                )]
            }
            _ => vec![],
        };
    }
    let is_middle = chain.is_some();
    let service = builders::service(ServiceSpec {
        name: builders::numbered("fed_svc_", runtime_id),
        addr: crate::address::host_port(&share.listen_addr, port),
        protocol,
        chain: if is_middle { Some(chain_name) } else { None },
        candidates: targets.map_or(0, |(t, _)| t.len()),
        interface: if is_middle {
            None
        } else {
            Some(&share.interface_name)
        },
        flavor: Flavor::Federated,
    });
    let mut commands = Vec::with_capacity(2);
    if let Some(chain) = chain {
        commands.push(Command::new(
            node_id,
            CommandName::AddChains,
            CommandData::Chain(chain),
        ));
    }
    commands.push(Command::new(
        node_id,
        CommandName::AddService,
        CommandData::Services(vec![service]),
    ));
    commands
}

/// The provider's answers the input did not give: listed so a reader knows
/// which parts of the plan stand on assumptions.
fn note_assumptions(
    out: &mut Vec<Assumption>,
    rec: &NodeRecord,
    fed: &FederationInfo,
    port: i64,
    runtime_id: i64,
    requested: i64,
) {
    let base = format!("/federation/{}", rec.id);
    let mut add = |key: &str, value: MetaValue, reason: String| {
        out.push(Assumption {
            node_id: Some(rec.id),
            path: format!("{}/{}", base, key),
            value,
            reason,
        });
    };
    if fed.allocated_port.is_none() {
        let how = if requested > 0 {
            format!("the requested port {} is granted", requested)
        } else {
            "the provider picks the first free port of the share's range".to_string()
        };
        add(
            "allocatedPort",
            MetaValue::Int(port),
            format!(
                "no provider has answered yet: {}; the chains that dial {} use it",
                how, rec.name
            ),
        );
    }
    if !fed.runtime_id_given {
        add(
            "runtimeId",
            MetaValue::Int(runtime_id),
            format!("the provider numbers its runtimes; assumed node id x 10 (names fed_svc_{0}, fed_chain_{0}, hop_{0})", runtime_id),
        );
    }
    if !fed.given {
        add(
            "tcpListenAddr",
            MetaValue::Str(fed.tcp_listen_addr.clone()),
            "the provider's own listen address for the node is not known; assumed [::]".into(),
        );
        add(
            "interfaceName",
            MetaValue::Str(String::new()),
            "the provider's interface for the node is not known; assumed none".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{CommandData, Shared};
    use crate::planner::{plan, PlanOptions};

    /// Two shared middles of one hop dial the same exits: their steps
    /// list one targets list and their chains one node list (written once
    /// when a plan's size is counted), as the local chains toward a hop do.
    #[test]
    fn the_middles_of_a_hop_share_their_targets_and_chain_nodes() {
        let text = include_str!("../../examples/seed-federated-middle.json");
        let mut input: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let second =
            serde_json::json!({"nodeId": 6, "port": 44011, "protocol": "tls", "strategy": "fifo"});
        let mut node = input["nodes"][1].clone();
        node["id"] = 6.into();
        node["name"] = "n6".into();
        if let Some(nodes) = input["nodes"].as_array_mut() {
            nodes.push(node);
        }
        if let Some(hop) = input["tunnel"]["chainNodes"][0].as_array_mut() {
            hop.push(second);
        }
        let plan = plan(&input, &PlanOptions::default());
        assert_eq!(plan.error, None);
        let middles: Vec<_> = plan
            .federation
            .iter()
            .filter(|s| s.role == "middle")
            .collect();
        assert_eq!(middles.len(), 2);
        let targets: Vec<&Shared<_>> = middles
            .iter()
            .filter_map(|s| s.apply.targets.as_ref())
            .collect();
        let chain_nodes: Vec<_> = middles
            .iter()
            .flat_map(|s| &s.commands)
            .filter_map(|c| match &c.data {
                CommandData::Chain(chain) => chain.hops.first().map(|h| &h.nodes),
                _ => None,
            })
            .collect();
        assert_eq!((targets.len(), chain_nodes.len()), (2, 2));
        assert_eq!(targets[0].len(), 3);
        assert!(std::sync::Arc::ptr_eq(&targets[0].0, &targets[1].0));
        assert!(std::sync::Arc::ptr_eq(&chain_nodes[0].0, &chain_nodes[1].0));
    }
}
