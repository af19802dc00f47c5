//! Section 3 of the contract: nodes shared by other panels. Remote exits
//! first, then remote hop nodes from the last hop to the first; each is
//! reserved and applied on its provider panel, which fixes the port the
//! local chains dial.

use super::local::{chain_targets, targets_strategy};
use super::provider::{share_of, ApplyKind, Providers, Share};
use super::rejection::{Rejection, Result};
use super::state::TunnelState;
use crate::builders::{self, Flavor, ServiceSpec};
use crate::coerce::default_string;
use crate::model::{FederationInfo, NodeRecord, NodeTable};
use crate::plan::{
    Apply, Assumption, Command, CommandData, FederationStep, MetaValue, Reserve, UpdateChainData,
};
use serde_json::Value;

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
        crate::stable_sort::sort(&mut keys);
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

pub fn apply_federation(
    state: &mut TunnelState,
    nodes: &NodeTable,
    federation: Option<&Value>,
    providers: &mut Providers,
) -> Result<FederationOutcome> {
    let mut out = FederationOutcome::default();
    let mut places: Vec<Place> = (0..state.exits.len()).map(Place::Exit).collect();
    for h in (0..state.hops.len()).rev() {
        let width = state.hops.get(h).map_or(0, Vec::len);
        places.extend((0..width).map(|j| Place::Hop(h, j)));
    }
    for place in places {
        let item = match place {
            Place::Exit(i) => state.exits.get(i),
            Place::Hop(h, j) => state.hops.get(h).and_then(|hop| hop.get(j)),
        };
        let Some(item) = item.cloned() else { continue };
        let Some(rec) = nodes.get(item.node_id) else {
            continue;
        };
        if !rec.is_remote {
            continue;
        }
        if rec.remote_url.is_empty() || !rec.has_remote_token {
            return Err(Rejection::RemoteShareMissing {
                name: rec.name.clone(),
            });
        }
        let share = share_of(rec, nodes.rows(), federation);
        let fed = FederationInfo::lookup(federation, item.node_id);
        let (chain_type, hop_position, role) = match place {
            Place::Exit(_) => (3, 0, "exit"),
            Place::Hop(h, _) => (2, h as i64 + 1, "middle"),
        };
        let key = resource_key(state.id, item.node_id, chain_type, hop_position);
        let protocol = default_string(&item.protocol, "tls");
        let reserve = Reserve {
            resource_key: key.clone(),
            protocol: protocol.clone(),
            requested_port: item.port,
        };

        let reserved = providers
            .reserve(&share, &key, item.port, fed.runtime_id, fed.allocated_port)
            .or_else(|e| {
                if item.port > 0 {
                    providers.reserve(&share, &key, 0, fed.runtime_id, fed.allocated_port)
                } else {
                    Err(e)
                }
            })
            .map_err(|reason| Rejection::RemoteReserveFailed {
                name: rec.name.clone(),
                reason,
            })?;
        set_port(state, place, reserved.port, reserved.runtime_id);

        // A middle's targets are known now: its next hop was applied before it.
        let (strategy, targets) = match place {
            Place::Exit(_) => (default_string(&item.strategy, "round"), None),
            Place::Hop(h, _) => {
                let next = state.next_targets(h);
                let targets = chain_targets(nodes, &state.ip_preference, rec, next)?;
                (targets_strategy(&item.strategy, next), Some(targets))
            }
        };
        let (kind, applied) =
            providers
                .apply(&share, &key)
                .map_err(|reason| Rejection::RemoteApplyFailed {
                    name: rec.name.clone(),
                    reason,
                })?;
        set_port(state, place, applied.port, applied.runtime_id);

        let commands = provider_commands(
            item.node_id,
            &share,
            applied.runtime_id,
            applied.port,
            &protocol,
            &strategy,
            targets.as_deref(),
            kind,
        );
        note_assumptions(
            &mut out.assumed,
            rec,
            &fed,
            applied.port,
            applied.runtime_id,
            item.port,
        );
        out.bindings.push(Binding {
            node_id: item.node_id,
            resource_key: key.clone(),
            runtime_id: applied.runtime_id,
            share,
        });
        out.steps.push(FederationStep {
            node_id: item.node_id,
            role: role.into(),
            resource_key: key.clone(),
            reserve,
            apply: Apply {
                resource_key: key,
                role: role.into(),
                protocol,
                strategy,
                targets: targets.map(crate::plan::Shared::new),
            },
            commands,
        });
    }
    Ok(out)
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
    targets: Option<&[builders::ChainTarget]>,
    kind: ApplyKind,
) -> Vec<Command> {
    let chain_name = builders::numbered("fed_chain_", runtime_id);
    let chain = targets.map(|t| {
        builders::chain(
            chain_name.clone(),
            builders::numbered("hop_", runtime_id),
            builders::runtime_strategy(strategy),
            t,
            &share.interface_name,
            Flavor::Federated,
        )
    });
    if kind == ApplyKind::AlreadyApplied {
        return match chain {
            Some(data) if targets.is_some_and(|t| !t.is_empty()) => {
                vec![Command::new(
                    node_id,
                    "UpdateChains",
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
        candidates: targets.map_or(0, <[_]>::len),
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
            "AddChains",
            CommandData::Chain(chain),
        ));
    }
    commands.push(Command::new(
        node_id,
        "AddService",
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
