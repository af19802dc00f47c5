//! Lifecycle replay: replays what the panel sends to agents and to
//! provider panels over a sequence of applies, edits, releases, failures,
//! forward requests and config reports, keeps what every node ends up
//! running, and reports what goes stale, leaks or is cleaned away while in
//! use.
//!
//! # Steps
//!
//! `lifecycle(steps)` takes a JSON array of steps (or `{"steps": [...]}`).
//! Every step is an object with an `op`:
//!
//! * `{"op": "apply", "plan": PLAN}` or `{"op": "apply", "input": {tunnel, nodes, federation?}}`
//!   (`input` is planned along the server's request path: the step's `mode`,
//!   else what the input asks for, see [`crate::planner::PlanMode::detect`]; an
//!   edit is best given as `{tunnel, before, nodes}`; a `plan` is read by
//!   [`crate::plan::Plan::from_json`], and every command in it needs an
//!   integer `nodeId`). The first apply of a
//!   tunnel is a create; a later one is an edit (`"op": "edit"` is the same and
//!   insists on an earlier apply). An edit first releases every federation
//!   binding of the tunnel, ignoring errors, then applies afresh. Optional
//!   `unreachable: [nodeId, ...]`: remote nodes whose provider panel cannot be
//!   reached during this step (a release to it is lost; an apply to it fails);
//!   `releaseUnreachable: [...]`: providers that miss only this step's
//!   releases (the edit's own release, a rollback's release).
//!   Optional `timeouts: [i | {nodeId, command}]`: local commands (index into
//!   the plan's `local`, or the first matching command) that time out at the
//!   panel but still take effect on the agent (the server skips them).
//! * `{"op": "applyError", "plan" | "input": ..., "failAt": i | {nodeId, command?}}`:
//!   an apply whose local command `failAt` fails. The server then rolls back:
//!   on a create it deletes `tunnel_{id}` (and the other tunnel service names)
//!   on the nodes where a service was created and `chains_{id}` where a chain
//!   was created, newest first; on an edit it does not roll back local
//!   commands. Both release the federation bindings of this apply. Accepts
//!   `unreachable` and `timeouts` as above.
//! * `{"op": "release", "unreachable": [nodeId, ...]}`: releases every
//!   federation binding of the tunnel (what an edit or delete does first); the
//!   panel forgets the bindings even when a provider never got the release.
//! * `{"op": "delete", "unreachable": [...]}`: deletes the tunnel: releases its
//!   federation bindings, then removes `chains_{id}` and the tunnel services on
//!   its own nodes. The tunnel's forward rows go with it
//!   (`DeleteTunnelCascade`), and nothing is sent for their services.
//! * `{"op": "report", "nodeId"?: id, "providerTunnels"?: {"<nodeId>": [id, ...]}}`:
//!   a node's config report (every node that runs something when `nodeId`
//!   is absent) and the cleanup of the panel that owns it, which deletes by
//!   name what [`crate::cleanup`] says (services, chains, then traffic
//!   limiters). This panel owns its own nodes and holds the tunnels applied
//!   and not deleted, the stored forwards and the speed limits the steps
//!   gave; the provider panel owns a remote node (one a plan shows remote:
//!   federated, or an entry this panel relays to), holds the tunnels
//!   `providerTunnels` lists for that node, none by default, and keeps the
//!   forward services this panel relayed there.
//! * Forward requests, on the panel's forward rows as the earlier steps
//!   left them (`src/lifecycle/forward.rs`): `{"op": "forwardCreate", "forward": BODY}`
//!   (the create form's body, `tunnelId` naming a tunnel applied from an
//!   `input`; ids are the panel's next, never reused),
//!   `{"op": "forwardEdit", "forward": {"id": F, ...}}` (the edit form's
//!   body; a `tunnelId` other than the forward's is a tunnel switch), and
//!   `{"op": "forwardPause" | "forwardResume" | "forwardDelete", "id": F}`.
//!   Each takes the forward modes' context, every field optional: `user`
//!   (who asks; the administrator, id 1, by default), `speedLimits`,
//!   `userTunnel` (rows the panel keeps from then on), `agents` (per node:
//!   `legacy`, and names the agent holds beyond what the replay deployed),
//!   `offline` (node ids), `config`, `now`.
//!
//! `tunnelId` may be given on any step; otherwise it is read from the plan
//! (`chains_{id}`, `tunnel_{id}`, `tunnel:{id}:...`), the input's
//! `tunnel.id`, or the last apply.
//!
//! A node's state lists its `chains` and `services`, and when it holds any,
//! its `limiters`, `climiters` and the names of `paused` services.
//!
//! # What the replay follows (go-backend `mutations.go`, `federation.go`)
//!
//! * Federation before local: remote exits, then hops from last to first, in
//!   the plan's `federation` order. Each remote node's provider is a panel of
//!   [`crate::planner::provider`], the model the planner's request path uses:
//!   it reserves the resource key (an active runtime keeps its port and its
//!   applied flag; a released one is reset, keeping its runtime id; a new one
//!   gets the plan's `fed_svc_R` id unless the panel already numbered another
//!   runtime so). Applying a runtime that is still applied
//!   only sends `UpdateChains` for a middle (nothing for an exit) and leaves
//!   `fed_svc_R` as it was, retries included. Otherwise: `AddChains`
//!   `fed_chain_R` (middle), then `AddService` `fed_svc_R`.
//! * Release deletes `fed_svc_R` and, for a middle, `fed_chain_R`, and marks
//!   the runtime released; an unreachable provider keeps it all.
//! * The agent rejects `AddChains` / `AddService` for a name it already runs
//!   (`... already exists`), failing the apply; `Update*` are upserts.
//! * Local commands in plan order (`UpdateChains`/`UpdateService` on an edit).
//!   After a successful edit, nodes that no longer take part lose
//!   `chains_{id}` / the tunnel services.
//! * Forward requests run through [`crate::forward::Panel`] (`forwardCreate`
//!   mutations.go:1835, `forwardUpdate` :1966, `forwardDelete` :2191,
//!   `forwardPause` :2240, `forwardResume` :2262) against the agents as the
//!   replay left them; what a forward path sends is applied as the agent or
//!   its provider answered it (`failed`: nothing changes; `relay`: through
//!   the provider). A tunnel apply or edit from an `input`, of a tunnel the
//!   panel has forwards on, is planned as the update mode plans an edit with
//!   forwards ([`crate::forward::modes::update_plan`], mutations.go:1014-1018,
//!   :1047-1065): `before` is the payload it was last applied with unless
//!   given, the forwards, their first owner's `user` and `userTunnel` rows,
//!   the speed limits and the agents' registries are added; the forwards'
//!   services are deleted on dropped entries, their rows move, and every
//!   forward is re-synced when the type or the entry set changed. A
//!   redeploy input (`{db}`) gets the panel's forward tables in its `db`
//!   and is planned as the redeploy mode plans it
//!   ([`crate::forward::modes::redeploy_plan`], mutations.go:1617-1625:
//!   every forward synced after the tunnel).
//!
//! # Findings (the LC and IN rules of `src/check/rules.rs`)
//!
//! * LC001 stale-retries-after-edit: a re-apply found a federated middle
//!   still applied, so only its chain changed, and the service's retries
//!   differ from what a fresh apply would set for the new target count.
//! * LC002 release-leak: after a `release` or `delete`, a service or chain
//!   created for the tunnel is still deployed; after a forward request or a
//!   tunnel edit or delete, a forward service or limiter that nothing the
//!   panel holds uses any more is still deployed (`src/lifecycle/leftover.rs`: the server
//!   never deletes a limiter, nor a service on a node it skipped).
//! * LC003 rollback-leak: after an `applyError`, something this apply created
//!   is still deployed; after a `forwardCreate` or `forwardEdit` whose sync
//!   failed, what the sync pushed and the rollback left.
//! * LC004 cleanup-deletes-in-use: a `report`'s cleanup deleted a chain that
//!   a service still running on that node names as `handler.chain` (the node
//!   then dials destinations itself), or a traffic limiter one names as its
//!   `limiter` (it then runs unlimited); it recurs after every redeploy.
//! * IN001 / IN002: a step that cannot be read / a plan or a forward request
//!   the server rejects.
//!
//! Paths are JSON Pointers into the steps document.

use crate::encode::{shape, Encode, Object, Writer};
use crate::error::ApiError;
use crate::finding::{sort_findings, Finding, Severity};
use crate::json::object;
use crate::json::tree::TreeValue;
use crate::plan::CommandName::{self, *};
use crate::plan::{
    Command, CommandData, DeleteChainData, DeleteServicesData, FederationStep, Plan,
    UpdateChainData,
};
use crate::planner::provider::{ApplyKind, Providers, Released, Runtime, Share, Usage};
use crate::simulate::world::is_plan;
use leftover::Leftover;
pub use op::LifecycleOp;
use serde_json::{Map, Value};
use state::{Node, State};
use std::collections::{BTreeMap, BTreeSet};
pub use step::LIFECYCLE_STEP_TS;
use step::{CommandSelector, TunnelStep};

mod forward;
mod leftover;
mod op;
mod report;
mod state;
mod step;

shape! {
    #[doc = " What a replay leaves behind."]
    #[derive(Debug, Clone, Default)]
    pub struct LifecycleReport {
        #[doc = " Every command and decision, in order."]
        pub log: Vec<Value> => "log": "JsonValue[]",
        #[doc = " What each node runs at the end, provider runtimes and tunnel bindings."]
        pub state: Value => "state": "JsonValue",
        pub findings: Vec<crate::finding::Finding> => "findings",
    }
}

/// Maximum number of steps accepted.
pub const MAX_STEPS: usize = 1000;

#[derive(Debug, Clone, Default)]
struct TunnelRec {
    exists: bool,
    /// Resource keys the panel holds bindings for, with their remote node.
    bindings: Vec<(String, i64)>,
    /// Local nodes with `chains_{id}` / with a tunnel service, sorted.
    chain_nodes: Vec<i64>,
    service_nodes: Vec<i64>,
    /// Every object an apply of this tunnel created on an agent, sorted.
    created: Vec<Deployed>,
}

impl TunnelRec {
    /// The nodes with `chains_{id}` and those with a tunnel service, in order.
    fn nodes(&self) -> (Vec<i64>, Vec<i64>) {
        (self.chain_nodes.clone(), self.service_nodes.clone())
    }
}

/// An object on an agent: (node, `"service"` or `"chain"`, name).
type Deployed = (i64, &'static str, String);

// Sets of objects and of nodes are sorted vectors, searched by bisection.

/// Adds `x` to the sorted vector `set` unless it holds it already.
fn add_sorted<T: Ord>(set: &mut Vec<T>, x: T) {
    if let Err(at) = set.binary_search(&x) {
        set.insert(at, x);
    }
}

/// Does the sorted `list` hold this object?
fn holds(list: &[Deployed], node: i64, kind: &str, name: &str) -> bool {
    list.binary_search_by(|(n, k, s)| (*n, *k, s.as_str()).cmp(&(node, kind, name)))
        .is_ok()
}

#[derive(Default)]
struct Replay {
    nodes: BTreeMap<i64, Node>,
    /// The provider panels: one per remote node ([`Share::of_node`]), since
    /// a plan names no panel URLs.
    providers: Providers,
    /// By tunnel id, sorted.
    tunnels: Vec<(i64, TunnelRec)>,
    log: Vec<Value>,
    findings: Vec<Finding>,
    last_tunnel: Option<i64>,
    /// Nodes some plan showed shared by another panel, sorted: their
    /// provider panel runs the cleanup of their config reports.
    remote: Vec<i64>,
    /// The panel's forwards and the tunnels' inputs ([`forward`]).
    fwd: forward::Forwards,
}

fn tunnel_service_names(t: i64) -> Vec<String> {
    let mut v = vec![format!("tunnel_{t}")];
    for p in ["tls", "kcp", "wss", "mtls", "mwss", "tcp", "mtcp"] {
        v.push(format!("{t}_{p}"));
    }
    v
}

// A command's config is read below as its JSON would be read (`name`,
// `chain`, a list's first item): a planned config stays typed, a pasted one
// is JSON ([`CommandData::Json`]).

/// The name a config gives: a chain's, else its first service's.
fn config_name(data: &CommandData) -> Option<&str> {
    match data {
        CommandData::Chain(c) => Some(&c.name),
        CommandData::Services(list) => list.first().map(|s| s.name.as_str()),
        CommandData::Json(v) => v
            .get("name")
            .or_else(|| v.get(0).and_then(|s| s.get("name")))
            .and_then(Value::as_str),
        // Objects without a `name`, not lists.
        _ => None,
    }
}

/// A config's `name` when it is a string (what `AddChains` names).
fn name_field(data: &CommandData) -> Option<&str> {
    match data {
        CommandData::Chain(c) => Some(&c.name),
        CommandData::Json(v) => v.get("name").and_then(Value::as_str),
        _ => None,
    }
}

/// The names of the services a config lists (what `AddService` names); a
/// config that is not a list names none.
fn listed_services(data: &CommandData) -> Vec<&str> {
    match data {
        CommandData::Services(list) => list.iter().map(|s| s.name.as_str()).collect(),
        CommandData::Json(Value::Array(list)) => list
            .iter()
            .filter_map(|s| s.get("name").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// The chain a config names for the bookkeeping: its `chain`, else its
/// `name`; `""` when that is not a string.
fn chain_of(data: &CommandData) -> String {
    let name = match data {
        CommandData::Chain(c) => Some(c.name.as_str()),
        CommandData::UpdateChain(UpdateChainData { chain, .. })
        | CommandData::DeleteChain(DeleteChainData { chain }) => Some(chain.as_str()),
        CommandData::Json(v) => v
            .get("chain")
            .or_else(|| v.get("name"))
            .and_then(Value::as_str),
        _ => None,
    };
    name.unwrap_or_default().to_string()
}

/// What a log entry says a command targets: the config's `chain`, else its
/// `name` (a limiter delete's `limiter`), else its first service's name,
/// else its `services` list.
fn target_of(data: &CommandData) -> Value {
    match data {
        CommandData::Chain(c) => Value::from(c.name.as_str()),
        CommandData::UpdateChain(UpdateChainData { chain, .. })
        | CommandData::DeleteChain(DeleteChainData { chain }) => Value::from(chain.as_str()),
        CommandData::Services(list) => list
            .first()
            .map_or(Value::Null, |s| Value::from(s.name.as_str())),
        CommandData::DeleteServices(d) => Value::from(d.services.clone()),
        CommandData::ForwardServices(list) => list
            .first()
            .map_or(Value::Null, |s| Value::from(s.name.as_str())),
        CommandData::Limiter(l) => Value::from(l.name.as_str()),
        CommandData::UpdateLimiter(u) => Value::from(u.limiter.as_str()),
        CommandData::Json(data) => data
            .get("chain")
            .or_else(|| data.get("name"))
            .or_else(|| data.get("limiter"))
            .cloned()
            .or_else(|| data.get(0).and_then(|s| s.get("name")).cloned())
            .or_else(|| data.get("services").cloned())
            .unwrap_or(Value::Null),
    }
}

/// The retries the first service of a config sets.
fn first_retries(data: &CommandData) -> Option<i64> {
    match data {
        CommandData::Services(list) => list.first()?.handler.retries,
        CommandData::Json(v) => v.get(0).and_then(state::json_retries),
        _ => None,
    }
}

/// The number after the first of `prefixes` a config's name starts with.
fn named_id(commands: &[Command], prefixes: [&str; 2]) -> Option<i64> {
    commands.iter().find_map(|c| {
        let name = config_name(&c.data)?;
        prefixes
            .iter()
            .find_map(|p| name.strip_prefix(p))?
            .parse()
            .ok()
    })
}

/// The tunnel id a plan belongs to: its resource keys' (`tunnel:{id}:...`),
/// else its local names' (`chains_{id}`, `tunnel_{id}`).
fn plan_tunnel_id(plan: &Plan, local: &[Command]) -> Option<i64> {
    plan.federation
        .iter()
        .find_map(|f| {
            f.resource_key
                .strip_prefix("tunnel:")?
                .split(':')
                .next()?
                .parse()
                .ok()
        })
        .or_else(|| named_id(local, ["chains_", "tunnel_"]))
}

/// A config with `fed_*_{from}` / `hop_{from}` renamed to the provider's
/// actual runtime id: the same config when the ids agree, else its JSON
/// renamed (rare: the provider had numbered another runtime so).
fn rename_runtime(data: CommandData, from: i64, to: i64) -> CommandData {
    if from == to {
        return data;
    }
    CommandData::Json(rename_value(&into_json(data), from, to))
}

/// A config's JSON, moved out when it is JSON already.
fn into_json(data: CommandData) -> Value {
    match data {
        CommandData::Json(v) => v,
        typed => typed.to_json(),
    }
}

/// [`rename_runtime`] of JSON: every string that is `{prefix}{from}`.
fn rename_value(v: &Value, from: i64, to: i64) -> Value {
    match v {
        Value::String(s) => {
            for prefix in ["fed_chain_", "fed_svc_", "hop_"] {
                if *s == format!("{prefix}{from}") {
                    return Value::String(format!("{prefix}{to}"));
                }
            }
            v.clone()
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| rename_value(x, from, to)).collect()),
        Value::Object(o) => {
            // Inserted one by one: `collect` sorts its entries first, one
            // more compiled sort (the keys are already unique).
            let mut renamed = serde_json::Map::new();
            for (k, x) in o {
                renamed.insert(k.clone(), rename_value(x, from, to));
            }
            Value::Object(renamed)
        }
        other => other.clone(),
    }
}

/// The ids of `lists` together, sorted, each once.
fn ids(lists: &[&[i64]]) -> Vec<i64> {
    let set: BTreeSet<i64> = lists.iter().flat_map(|l| l.iter().copied()).collect();
    set.into_iter().collect()
}

/// The config of a `DeleteChains`.
fn chain_delete(chain: String) -> CommandData {
    CommandData::DeleteChain(DeleteChainData { chain })
}

/// The config of a `DeleteService`.
fn services_delete(services: Vec<String>) -> CommandData {
    CommandData::DeleteServices(DeleteServicesData { services })
}

/// What the local commands of an apply did.
#[derive(Default)]
struct LocalApply {
    /// A command failed; the ones after it were not sent.
    failed: bool,
    /// The nodes a sent command created a chain / a service on, in order.
    created_chains: Vec<i64>,
    created_services: Vec<i64>,
    /// The nodes the plan gives a chain / a service, sorted.
    chain_nodes: Vec<i64>,
    service_nodes: Vec<i64>,
}

/// An apply step under way: its tunnel, whether it edits it, and what the
/// tunnel had before the step.
struct ApplyRun<'s> {
    i: usize,
    step: &'s TreeValue<'s>,
    t: i64,
    edit: bool,
    /// The step's `failAt`, for an `applyError`.
    fail_at: Option<&'s CommandSelector>,
    /// Providers out of reach for the whole step, sorted.
    unreachable: Vec<i64>,
    /// Those and the ones that miss only the step's releases, sorted.
    release_unreachable: Vec<i64>,
    /// What the tunnel had deployed.
    before: Vec<Deployed>,
    /// The nodes with `chains_{id}` / with a tunnel service, sorted.
    old_chain_nodes: Vec<i64>,
    old_service_nodes: Vec<i64>,
}

/// The nodes of `old` that the sorted `new` no longer lists, in order.
fn departed(old: &[i64], new: &[i64]) -> Vec<i64> {
    old.iter()
        .copied()
        .filter(|node| new.binary_search(node).is_err())
        .collect()
}

/// What the server sends for a local command: on an edit, `AddChains` is
/// `UpdateChains` of `{chain, data}` and `AddService` is `UpdateService`.
fn as_sent(edit: bool, command: &str, data: CommandData) -> (&str, CommandData) {
    match (edit, CommandName::parse(command), data) {
        (true, Some(AddChains), CommandData::Chain(c)) => (
            UpdateChains.as_str(),
            CommandData::UpdateChain(UpdateChainData {
                chain: c.name.clone(),
                data: c,
            }),
        ),
        (true, Some(AddChains), other) => {
            let data = into_json(other);
            let chain = data.get("name").cloned().unwrap_or(Value::Null);
            let payload = object([("chain", chain), ("data", data)]);
            (UpdateChains.as_str(), CommandData::Json(payload))
        }
        (true, Some(AddService), data) => (UpdateService.as_str(), data),
        (_, _, data) => (command, data),
    }
}

/// The `failAt` of an `applyError` step, which must select one of the
/// plan's local commands; `None` for other ops.
fn fail_spec<'s>(
    fields: &'s TunnelStep,
    op: LifecycleOp,
    local: &[Command],
    i: usize,
) -> Result<Option<&'s CommandSelector>, ApiError> {
    if op != LifecycleOp::ApplyError {
        return Ok(None);
    }
    let spec = fields.fail_at.as_ref();
    let mut first = false;
    let hit = spec.is_some_and(|spec| {
        local
            .iter()
            .enumerate()
            .filter(|(_, c)| !forward::is_forward_command(c))
            .any(|(k, c)| spec.selects(k, c, &mut first))
    });
    if !hit {
        return Err(ApiError::new(
            "IN001",
            format!("step {i}: failAt must be an index into the plan's {} local commands or {{nodeId, command}} matching one of the tunnel's own", local.len()),
            step_path(i, "/failAt"),
        ));
    }
    Ok(spec)
}

impl Replay {
    /// Reports a finding (every lifecycle finding is an error).
    fn report(
        &mut self,
        code: &str,
        rule: &str,
        node: Option<i64>,
        path: String,
        en: String,
        zh: String,
    ) {
        self.findings.push(Finding {
            code: code.into(),
            rule: rule.into(),
            severity: Severity::Error,
            node_id: node,
            path,
            message: en,
            message_zh: zh,
            fix: None,
        });
    }

    /// Logs `entry`, an object without `step` and `phase` keys.
    fn log(&mut self, step: usize, phase: &str, mut entry: Value) {
        if let Value::Object(obj) = &mut entry {
            obj.insert("step".into(), Value::from(step));
            obj.insert("phase".into(), Value::from(phase));
        }
        self.log.push(entry);
    }

    /// A log entry about one resource key on one remote node.
    fn log_key(&mut self, step: usize, phase: &str, node: i64, rk: &str, note: &str) {
        self.log_node(
            step,
            phase,
            node,
            None,
            ("resourceKey", Value::from(rk)),
            note,
        );
    }

    /// A log entry about `node`: the command sent (if any), one more field
    /// and a note.
    fn log_node(
        &mut self,
        step: usize,
        phase: &str,
        node: i64,
        command: Option<&str>,
        field: (&str, Value),
        note: &str,
    ) {
        let mut entry = object([
            ("nodeId", Value::from(node)),
            field,
            ("note", Value::from(note)),
        ]);
        if let (Some(command), Value::Object(o)) = (command, &mut entry) {
            o.insert("command".into(), Value::from(command));
        }
        self.log(step, phase, entry);
    }

    /// A log entry about local command `index`.
    fn log_local(&mut self, step: usize, node: i64, command: &str, index: usize, note: &str) {
        let index = ("index", Value::from(index));
        self.log_node(step, "local", node, Some(command), index, note);
    }

    /// Remembers the nodes `plan` shows shared by another panel: its remote
    /// nodes, its federation steps' and the ones it relays commands to.
    fn note_remote(&mut self, plan: &Plan) {
        let nodes = plan.nodes.iter().filter(|n| n.remote).map(|n| n.node_id);
        let federated = plan.federation.iter().map(|f| f.node_id);
        let relayed = plan.local.iter().filter(|c| c.relay == Some(true));
        for node in nodes.chain(federated).chain(relayed.map(|c| c.node_id)) {
            add_sorted(&mut self.remote, node);
        }
    }

    /// The providers of these remote nodes cannot be reached until the next call.
    fn unreachable(&mut self, nodes: &[i64]) {
        self.providers
            .set_unreachable(nodes.iter().map(|n| Share::of_node(*n)));
    }

    /// For an `AddChains` / `AddService`, the object that already exists on the
    /// agent (the agent then rejects the whole command).
    fn clash(&self, node: i64, command: &str, data: &CommandData) -> Option<String> {
        let n = self.nodes.get(&node)?;
        match CommandName::parse(command)? {
            AddChains => {
                let name = name_field(data)?;
                n.has_chain(name).then(|| format!("chain {name}"))
            }
            AddService => listed_services(data)
                .into_iter()
                .find_map(|name| n.has_service(name).then(|| format!("service {name}"))),
            _ => None,
        }
    }

    /// Remembers what an Add/Update command creates for tunnel `t`.
    fn remember(&mut self, t: i64, node: i64, command: &str, data: &CommandData) {
        let Some(TunnelRec { created, .. }) = self.tunnel_entry(t) else {
            return;
        };
        match (CommandName::parse(command), data) {
            (Some(AddChains | UpdateChains), _) => {
                add_sorted(created, (node, "chain", chain_of(data)));
            }
            (Some(AddService | UpdateService), CommandData::Services(list)) => {
                for svc in list {
                    add_sorted(created, (node, "service", svc.name.clone()));
                }
            }
            (Some(AddService | UpdateService), CommandData::Json(v)) => {
                for svc in v.as_array().into_iter().flatten() {
                    let name = svc.get("name").and_then(Value::as_str).unwrap_or_default();
                    add_sorted(created, (node, "service", name.to_string()));
                }
            }
            _ => {}
        }
    }

    fn tunnel(&self, t: i64) -> Option<&TunnelRec> {
        let at = self.tunnels.binary_search_by_key(&t, |(id, _)| *id).ok()?;
        self.tunnels.get(at).map(|(_, r)| r)
    }

    fn tunnel_mut(&mut self, t: i64) -> Option<&mut TunnelRec> {
        let at = self.tunnels.binary_search_by_key(&t, |(id, _)| *id).ok()?;
        self.tunnels.get_mut(at).map(|(_, r)| r)
    }

    /// The record of tunnel `t`, a new one if it has none.
    fn tunnel_entry(&mut self, t: i64) -> Option<&mut TunnelRec> {
        if let Err(at) = self.tunnels.binary_search_by_key(&t, |(id, _)| *id) {
            self.tunnels.insert(at, (t, TunnelRec::default()));
        }
        self.tunnel_mut(t)
    }

    /// Deletes `chains_{t}` (`chain`) or the tunnel services from `nodes`, in order.
    fn delete_from(
        &mut self,
        step: usize,
        phase: &str,
        t: i64,
        chain: bool,
        nodes: &[i64],
        note: &str,
    ) {
        let (command, data) = if chain {
            (DeleteChains, chain_delete(format!("chains_{t}")))
        } else {
            (DeleteService, services_delete(tunnel_service_names(t)))
        };
        for node in nodes {
            self.send(step, phase, *node, command.as_str(), &data, note);
        }
    }

    fn end(&mut self, step: usize, ok: bool) {
        self.log(step, "end", object([("ok", Value::from(ok))]));
    }

    fn send(
        &mut self,
        step: usize,
        phase: &str,
        node: i64,
        command: &str,
        data: &CommandData,
        note: &str,
    ) {
        self.send_owned(step, phase, node, command, data.clone(), note);
    }

    /// [`Replay::send`] of a config the caller gives up: it moves into the
    /// node's state.
    fn send_owned(
        &mut self,
        step: usize,
        phase: &str,
        node: i64,
        command: &str,
        data: CommandData,
        note: &str,
    ) {
        let target = target_of(&data);
        state::apply(self.nodes.entry(node).or_default(), command, data);
        self.log_node(step, phase, node, Some(command), ("target", target), note);
    }

    /// Everything deployed for tunnel `t`, sorted.
    fn owned(&self, t: i64) -> Vec<Deployed> {
        let services = tunnel_service_names(t);
        let chain = format!("chains_{t}");
        let fed = self.runtime_objects(&|r| r.usage.tunnel_id == t);
        let created: &[Deployed] = self.tunnel(t).map_or(&[], |r| &r.created);
        let mut out = Vec::new();
        for (id, n) in &self.nodes {
            for (kind, list) in [("service", &n.services), ("chain", &n.chains)] {
                for (name, _) in list {
                    let named = if kind == "chain" {
                        *name == chain
                    } else {
                        services.contains(name)
                    };
                    if named || holds(created, *id, kind, name) || holds(&fed, *id, kind, name) {
                        add_sorted(&mut out, (*id, kind, name.clone()));
                    }
                }
            }
        }
        out
    }

    /// What the runtimes `keep` selects run on their nodes, sorted: each
    /// one's service and chain (an exit's chain reads as `""`).
    fn runtime_objects(&self, keep: &dyn Fn(&Runtime) -> bool) -> Vec<Deployed> {
        let mut out = Vec::new();
        for r in self.providers.runtimes().into_iter().filter(|r| keep(r)) {
            let node = r.usage.node_id;
            add_sorted(&mut out, (node, "service", r.service_name()));
            add_sorted(
                &mut out,
                (node, "chain", r.chain_name().unwrap_or_default()),
            );
        }
        out
    }

    /// `release-role` on the provider of `node`; its agent loses what an
    /// applied runtime ran.
    fn release_binding(&mut self, step: usize, rk: &str, node: i64, phase: &str) {
        match self.providers.release(&Share::of_node(node), 0, rk) {
            Released::Lost => self.log_key(step, phase, node, rk, "release did not reach the provider panel; the error is ignored and the runtime stays applied"),
            Released::Unknown => self.log_key(
                step,
                phase,
                node,
                rk,
                "provider has no runtime for this key: nothing to release",
            ),
            Released::Runtime(rt) if rt.applied => {
                let note = "provider releases the runtime";
                let services = services_delete(vec![rt.service_name()]);
                self.send(step, phase, node, DeleteService.as_str(), &services, note);
                if let Some(chain) = rt.chain_name() {
                    let data = chain_delete(chain);
                    self.send(step, phase, node, DeleteChains.as_str(), &data, note);
                }
            }
            Released::Runtime(_) => {}
        }
    }

    /// Releases bindings newest first (an apply undoing its own).
    fn release_newest_first(&mut self, step: usize, refs: &[(String, i64)], phase: &str) {
        for (rk, node) in refs.iter().rev() {
            self.release_binding(step, rk, *node, phase);
        }
    }

    /// Releases every binding the panel holds for the tunnel, newest last as the server lists them.
    fn release_all(&mut self, step: usize, t: i64, phase: &str) {
        let bindings = self
            .tunnel_mut(t)
            .map(|r| std::mem::take(&mut r.bindings))
            .unwrap_or_default();
        for (rk, node) in &bindings {
            self.release_binding(step, rk, *node, phase);
        }
    }

    /// Federation apply of one plan, in its order. Returns the bindings
    /// made, or why it failed (the earlier bindings of this apply are then
    /// released).
    fn apply_federation(
        &mut self,
        step: usize,
        t: i64,
        federation: Vec<FederationStep>,
        plan_at: &str,
    ) -> Result<Vec<(String, i64)>, String> {
        let mut refs: Vec<(String, i64)> = Vec::new();
        for (j, fed) in federation.into_iter().enumerate() {
            let (rk, node) = (fed.resource_key.clone(), fed.node_id);
            if let Err(why) = self.apply_runtime(step, t, fed, plan_at, j) {
                self.release_newest_first(step, &refs, "federation-release");
                return Err(format!("remote node {node}: {why}"));
            }
            refs.push((rk, node));
        }
        Ok(refs)
    }

    /// Reserves and applies the runtime of federation step `j` on its
    /// provider, and deploys what the provider sends its agent.
    fn apply_runtime(
        &mut self,
        step: usize,
        t: i64,
        fed: FederationStep,
        plan_at: &str,
        j: usize,
    ) -> Result<(), String> {
        let plan_r = named_id(&fed.commands, ["fed_svc_", "fed_chain_"])
            .unwrap_or(fed.node_id.wrapping_mul(10));
        let targets = fed.apply.targets.as_ref().map_or(0, |t| t.len());
        let (kind, before, r_id) = self.reserve_runtime(step, &fed, plan_r)?;
        let ids = (plan_r, r_id);
        match (kind, before) {
            (ApplyKind::AlreadyApplied, Some(e)) if fed.role == "middle" && targets > 0 => {
                self.update_applied_middle(step, &fed, &e, ids, plan_at, j)
            }
            (ApplyKind::AlreadyApplied, _) => self.log_key(
                step,
                "federation",
                fed.node_id,
                &fed.resource_key,
                "runtime still applied: the provider sends nothing to its agent",
            ),
            (ApplyKind::Deploy, before) => {
                let share = Share::of_node(fed.node_id);
                let usage = Usage {
                    node_id: fed.node_id,
                    tunnel_id: t,
                    role: fed.role.clone(),
                    targets,
                };
                let rk = fed.resource_key.clone();
                if let Err(why) = self.deploy_runtime(step, t, fed, ids) {
                    // The failed apply leaves the provider's runtime as it was.
                    self.providers.restore(&share, &rk, before);
                    return Err(why);
                }
                if let Some(r) = self.providers.runtime_mut(&share, &rk) {
                    r.usage = usage;
                }
            }
        }
        Ok(())
    }

    /// The provider's reservation and apply of a federation step's runtime:
    /// how it applies, the runtime as it was before, and its id.
    fn reserve_runtime(
        &mut self,
        step: usize,
        fed: &FederationStep,
        plan_r: i64,
    ) -> Result<(ApplyKind, Option<Runtime>, i64), String> {
        let (node, rk) = (fed.node_id, fed.resource_key.as_str());
        let share = Share::of_node(node);
        if self.providers.is_unreachable(&share) {
            self.log_key(step, "federation", node, rk, "provider panel unreachable: the apply fails and earlier bindings of this apply are released");
            return Err("provider unreachable".into());
        }
        let plan_port = fed.reserve.requested_port;
        let before = self.providers.runtime(&share, rk).cloned();
        // The plan's port is the provider's allocation: no range to check.
        let answer = self
            .providers
            .reserve(&share, rk, plan_port, plan_r, Some(plan_port))
            .and_then(|_| self.providers.apply(&share, rk));
        let (kind, got) = match answer {
            Ok(a) => a,
            Err(e) => {
                self.providers.restore(&share, rk, before);
                return Err(e);
            }
        };
        if got.port != plan_port && plan_port > 0 {
            let note = format!(
                "provider still holds this key and keeps port {} (the plan asked for {})",
                got.port, plan_port
            );
            self.log_key(step, "federation", node, rk, &note);
        }
        Ok((kind, before, got.runtime_id))
    }

    /// A middle whose runtime is still applied: the provider only updates
    /// its chain, and the service keeps its earlier retries (LC001 when a
    /// fresh apply would set others).
    fn update_applied_middle(
        &mut self,
        step: usize,
        fed: &FederationStep,
        applied: &Runtime,
        (plan_r, r_id): (i64, i64),
        plan_at: &str,
        j: usize,
    ) {
        let node = fed.node_id;
        let chain_name = applied.chain_name().unwrap_or_default();
        if let Some(c) = fed.commands.iter().find(|c| c.is(AddChains)) {
            let data = match rename_runtime(c.data.clone(), plan_r, r_id) {
                CommandData::Chain(data) => CommandData::UpdateChain(UpdateChainData {
                    chain: chain_name.clone(),
                    data,
                }),
                other => CommandData::Json(object([
                    ("chain", Value::from(chain_name.as_str())),
                    ("data", into_json(other)),
                ])),
            };
            let note = "runtime still applied: the provider only updates the chain";
            self.send_owned(step, "federation", node, UpdateChains.as_str(), data, note);
        }
        self.check_kept_retries(step, fed, applied, plan_at, j);
        let targets = fed.apply.targets.as_ref().map_or(0, |t| t.len());
        if let Some(r) = self
            .providers
            .runtime_mut(&Share::of_node(node), &fed.resource_key)
        {
            r.usage.targets = targets;
        }
    }

    /// LC001: the retries an applied middle's service kept differ from
    /// what a fresh apply of `fed` sets.
    fn check_kept_retries(
        &mut self,
        step: usize,
        fed: &FederationStep,
        applied: &Runtime,
        plan_at: &str,
        j: usize,
    ) {
        let node = fed.node_id;
        let service_name = applied.service_name();
        let chain_name = applied.chain_name().unwrap_or_default();
        let targets = fed.apply.targets.as_ref().map_or(0, |t| t.len());
        let service = |c: &Command| c.is(AddService);
        let fresh = fed
            .commands
            .iter()
            .find(|c| service(c))
            .and_then(|c| first_retries(&c.data));
        let kept = self
            .nodes
            .get(&node)
            .and_then(|n| n.service(&service_name))
            .map(state::Config::retries);
        let Some(kept) = kept.filter(|k| *k != fresh) else {
            return;
        };
        // A planned `input` has no federation list of its own: point at the input.
        let retries_path = if plan_at == "/input" {
            step_path(step, "/input")
        } else {
            let k = fed.commands.iter().position(service).unwrap_or(1);
            format!("/{step}/plan/federation/{j}/commands/{k}/data/0/handler/retries")
        };
        let show = |r: Option<i64>| r.map(|n| n.to_string()).unwrap_or_else(|| "none".into());
        self.report(
            "LC001",
            "stale-retries-after-edit",
            Some(node),
            retries_path,
            format!(
                "Node {node}: its earlier release never reached the provider, so this apply only updated chain {} ({targets} targets) and service {} keeps retries {} where a fresh apply sets {}: a dead primary is not retried over the new targets",
                chain_name, service_name, show(kept), show(fresh)
            ),
            format!(
                "节点 {node}：之前的释放未送达提供方，本次只更新了转发链 {}（{targets} 个目标），服务 {} 仍保留 retries {}，而全新下发应为 {}：主节点失效时不会重试新目标",
                chain_name, service_name, show(kept), show(fresh)
            ),
        );
    }

    /// Sends what the provider sends its agent for a new runtime, renamed to
    /// runtime `r_id` (from the plan's `plan_r`). The agent rejects a name
    /// it already runs: the provider then removes the chain it added, and
    /// the apply fails.
    fn deploy_runtime(
        &mut self,
        step: usize,
        t: i64,
        fed: FederationStep,
        (plan_r, r_id): (i64, i64),
    ) -> Result<(), String> {
        let node = fed.node_id;
        let mut chain_added = false;
        for Command { command, data, .. } in fed.commands {
            let data = rename_runtime(data, plan_r, r_id);
            if let Some(clash) = self.clash(node, &command, &data) {
                let note = format!(
                    "the agent rejects it: {clash} already exists; the provider's apply fails"
                );
                let key = ("resourceKey", Value::from(fed.resource_key.as_str()));
                self.log_node(step, "federation", node, Some(&command), key, &note);
                if chain_added {
                    let chain = if fed.role == "middle" {
                        format!("fed_chain_{r_id}")
                    } else {
                        String::new()
                    };
                    let note = "provider cleans up its failed apply";
                    self.send_owned(
                        step,
                        "federation",
                        node,
                        DeleteChains.as_str(),
                        chain_delete(chain),
                        note,
                    );
                }
                return Err(format!("{clash} already exists"));
            }
            self.remember(t, node, &command, &data);
            let note = "provider applies the runtime";
            self.send_owned(step, "federation", node, &command, data, note);
            chain_added |= command == AddChains.as_str();
        }
        Ok(())
    }

    /// An apply step, and LC002 for forward objects it left behind.
    fn step_apply(
        &mut self,
        i: usize,
        step: &TreeValue<'_>,
        op: LifecycleOp,
    ) -> Result<(), ApiError> {
        let accounted = self.forward_objects().1;
        self.apply_step(i, step, op)?;
        let left = self.orphaned_among(&accounted);
        self.report_leftovers(i, left, Leftover::TunnelEdit, &[], "tunnel edit");
        Ok(())
    }

    fn apply_step(
        &mut self,
        i: usize,
        step: &TreeValue<'_>,
        op: LifecycleOp,
    ) -> Result<(), ApiError> {
        let fields = TunnelStep::of(step);
        let with_forwards = self.with_forwards(step, &fields);
        // The planner reads a document tree: the input the replay built is
        // encoded into one (no text).
        let arena = crate::json::tree::Arena::new();
        let built = with_forwards
            .as_ref()
            .map(|v| &*arena.alloc(crate::encode::to_tree(v, &arena)));
        let (mut plan, plan_at) = step_plan(step, &fields, built, i)?;
        if let Some(err) = &plan.error {
            self.reject_plan(i, plan_at, err.message.clone());
            return Ok(());
        }
        self.note_remote(&plan);
        // The plan's commands move into the node state, typed.
        let local = std::mem::take(&mut plan.local);
        let t = self.apply_tunnel_id(step, &fields, &plan, &local);
        if with_forwards.is_some() {
            self.fwd.adopt_ports(t, plan.db.take());
        }
        let run = self.begin_apply(i, step, &fields, op, t, &local)?;
        if run.edit {
            self.unreachable(&run.release_unreachable);
            self.release_all(i, t, "release");
        }
        self.unreachable(&run.unreachable);
        let federation = std::mem::take(&mut plan.federation);
        let refs = match self.apply_federation(i, t, federation, plan_at) {
            Ok(r) => r,
            Err(e) => {
                self.log(
                    i,
                    "end",
                    object([("ok", Value::from(false)), ("error", Value::from(e))]),
                );
                return Ok(());
            }
        };
        if let Some(rec) = self.tunnel_entry(t) {
            rec.exists = true;
            rec.bindings = refs.clone();
        }
        let applied = self.apply_local(i, t, &fields.timeouts, local, run.edit, run.fail_at);
        self.finish_apply(run, applied, &refs);
        Ok(())
    }

    /// IN002: the server rejects the step's tunnel, so nothing is deployed.
    fn reject_plan(&mut self, i: usize, plan_at: &str, text: String) {
        self.report(
            "IN002",
            "server-rejects",
            None,
            step_path(i, plan_at),
            format!("Step {i}: the server rejects this tunnel ({text}); nothing is deployed"),
            format!("第 {i} 步：服务端拒绝该隧道（{text}），未下发任何配置"),
        );
        self.log(i, "rejected", object([("note", Value::from(text))]));
    }

    /// The tunnel an apply step is about: its `tunnelId`, else the plan's,
    /// else its input's, else the last apply's; it is the last apply's from
    /// now on.
    fn apply_tunnel_id(
        &mut self,
        step: &TreeValue<'_>,
        fields: &TunnelStep,
        plan: &Plan,
        local: &[Command],
    ) -> i64 {
        let t = fields
            .tunnel_id
            .or_else(|| plan_tunnel_id(plan, local))
            .or_else(|| forward::input_tunnel_id(step))
            .or(self.last_tunnel)
            .unwrap_or(0);
        self.last_tunnel = Some(t);
        t
    }

    /// Reads what the apply of tunnel `t` needs before it sends anything
    /// (a create or an edit, the providers out of reach, where it fails,
    /// what the tunnel had) and logs its beginning.
    fn begin_apply<'s>(
        &mut self,
        i: usize,
        step: &'s TreeValue<'s>,
        fields: &'s TunnelStep,
        op: LifecycleOp,
        t: i64,
        local: &[Command],
    ) -> Result<ApplyRun<'s>, ApiError> {
        let unreachable = ids(&[&fields.unreachable]);
        let release_unreachable = ids(&[&fields.unreachable, &fields.release_unreachable]);
        let edit = self.tunnel(t).is_some_and(|r| r.exists);
        if op == LifecycleOp::Edit && !edit {
            return Err(ApiError::new(
                "IN001",
                format!("step {i}: edit of tunnel {t}, which was never applied"),
                step_path(i, ""),
            ));
        }
        let fail_at = fail_spec(fields, op, local, i)?;
        let before = self.owned(t);
        let (old_chain_nodes, old_service_nodes) =
            self.tunnel(t).map(TunnelRec::nodes).unwrap_or_default();
        self.log(
            i,
            "begin",
            object([
                ("op", Value::from(op.as_str())),
                ("tunnelId", Value::from(t)),
                ("mode", Value::from(if edit { "edit" } else { "create" })),
            ]),
        );
        Ok(ApplyRun {
            i,
            step,
            t,
            edit,
            fail_at,
            unreachable,
            release_unreachable,
            before,
            old_chain_nodes,
            old_service_nodes,
        })
    }

    /// The end of an apply once its local commands were sent: the rollback
    /// when one failed, else the edit's cleanup of nodes that left the
    /// tunnel and the tunnel's new nodes.
    fn finish_apply(&mut self, run: ApplyRun<'_>, applied: LocalApply, refs: &[(String, i64)]) {
        let (i, t, edit) = (run.i, run.t, run.edit);
        if edit || !applied.failed {
            // The edit's rows are committed before its apply (mutations.go:1008-1018).
            if let Some(input) = run.step.get("input") {
                self.fwd.remember(t, input);
            }
        }
        if applied.failed {
            self.unreachable(&run.release_unreachable);
            self.roll_back(i, t, edit, &applied, refs, &run.before);
            return;
        }
        if edit {
            let note = "node left the tunnel";
            let chains = departed(&run.old_chain_nodes, &applied.chain_nodes);
            self.delete_from(i, "cleanup", t, true, &chains, note);
            let services = departed(&run.old_service_nodes, &applied.service_nodes);
            self.delete_from(i, "cleanup", t, false, &services, note);
        }
        if let Some(rec) = self.tunnel_mut(t) {
            rec.chain_nodes = applied.chain_nodes;
            rec.service_nodes = applied.service_nodes;
        }
        self.end(i, true);
    }

    /// Sends the plan's local commands in order, until one fails (`fail_at`,
    /// or a name the agent already runs); `timeouts` of the step take effect
    /// on the agent without the panel recording them.
    fn apply_local(
        &mut self,
        i: usize,
        t: i64,
        timeouts: &[CommandSelector],
        local: Vec<Command>,
        edit: bool,
        fail_at: Option<&CommandSelector>,
    ) -> LocalApply {
        let mut out = LocalApply::default();
        let mut fail_first = false;
        let mut to_first: Vec<bool> = vec![false; timeouts.len()];
        for (k, cmd) in local.into_iter().enumerate() {
            if forward::is_forward_command(&cmd) {
                // The forward paths' own: sent as the agents answered them.
                if !out.failed {
                    self.forward_command(i, "local", cmd);
                }
                continue;
            }
            let node = cmd.node_id;
            let is_chain = cmd.is(AddChains) || cmd.is(UpdateChains);
            let nodes = if is_chain {
                &mut out.chain_nodes
            } else {
                &mut out.service_nodes
            };
            add_sorted(nodes, node);
            if out.failed {
                continue;
            }
            let fails_here = fail_at.is_some_and(|f| f.selects(k, &cmd, &mut fail_first));
            let timed_out = timeouts
                .iter()
                .zip(to_first.iter_mut())
                .any(|(spec, first)| spec.selects(k, &cmd, first));
            // The config moves into the node's state.
            let (sent_cmd, payload) = as_sent(edit, &cmd.command, cmd.data);
            if fails_here {
                let note = "the agent rejects this command: the apply fails";
                self.log_local(i, node, sent_cmd, k, note);
                out.failed = true;
                continue;
            }
            if let Some(clash) = self.clash(node, sent_cmd, &payload) {
                let note = format!("the agent rejects it: {clash} already exists; the apply fails");
                self.log_local(i, node, sent_cmd, k, &note);
                out.failed = true;
                continue;
            }
            self.remember(t, node, sent_cmd, &payload);
            if timed_out {
                state::apply(self.nodes.entry(node).or_default(), sent_cmd, payload);
                self.log_local(i, node, sent_cmd, k, "timed out at the panel (skipped, not recorded as created) but took effect on the agent");
                continue;
            }
            self.send_owned(i, "local", node, sent_cmd, payload, "");
            let created = if is_chain {
                &mut out.created_chains
            } else {
                &mut out.created_services
            };
            created.push(node);
        }
        out
    }

    /// After a failed local apply: a create's rollback (an edit has none),
    /// the release of this apply's bindings, and LC003 for what is left of
    /// what it created (`before`: what the tunnel had before the step).
    fn roll_back(
        &mut self,
        i: usize,
        t: i64,
        edit: bool,
        applied: &LocalApply,
        refs: &[(String, i64)],
        before: &[Deployed],
    ) {
        if !edit {
            // rollbackTunnelRuntime: services newest first, then chains newest first.
            let created = [
                (false, &applied.created_services),
                (true, &applied.created_chains),
            ];
            for (chain, created) in created {
                let (mut seen, mut nodes) = (BTreeSet::new(), Vec::new());
                for node in created.iter().rev() {
                    if seen.insert(*node) {
                        nodes.push(*node);
                    }
                }
                self.delete_from(i, "rollback", t, chain, &nodes, "local rollback");
            }
        } else {
            self.log(
                i,
                "rollback",
                object([(
                    "note",
                    Value::from("edit: the server does not roll back local commands"),
                )]),
            );
        }
        self.release_newest_first(i, refs, "rollback");
        if let Some(rec) = self.tunnel_mut(t) {
            rec.bindings.clear();
            if !edit {
                rec.exists = false;
            }
        }
        // LC003: anything this apply created that is still deployed.
        let after = self.owned(t);
        for (node, kind, name) in after.iter().filter(|x| before.binary_search(x).is_err()) {
            self.report(
                "LC003",
                "rollback-leak",
                Some(*node),
                step_path(i, "/failAt"),
                format!("Node {node}: {kind} {name} was created by the failed apply of step {i} and is still deployed after the rollback"),
                format!("节点 {node}：第 {i} 步下发失败后回滚，{kind} {name} 仍残留在节点上"),
            );
        }
        self.end(i, false);
    }

    fn step_release(&mut self, i: usize, step: &TreeValue<'_>, delete: bool) {
        let fields = TunnelStep::of(step);
        let t = fields.tunnel_id.or(self.last_tunnel).unwrap_or(0);
        let unreachable = ids(&[&fields.unreachable, &fields.release_unreachable]);
        self.log(
            i,
            "begin",
            object([
                ("op", Value::from(if delete { "delete" } else { "release" })),
                ("tunnelId", Value::from(t)),
            ]),
        );
        let released: Vec<String> = self
            .tunnel(t)
            .map(|r| r.bindings.iter().map(|(k, _)| k.clone()).collect())
            .unwrap_or_default();
        self.unreachable(&unreachable);
        self.release_all(i, t, "release");
        if delete {
            let (chains, services) = self.tunnel(t).map(TunnelRec::nodes).unwrap_or_default();
            self.delete_from(i, "cleanup", t, true, &chains, "tunnel deleted");
            self.delete_from(i, "cleanup", t, false, &services, "tunnel deleted");
        }
        // LC002: what the release should have removed and did not (a
        // released runtime's service or chain name, whatever its kind here).
        let released = self.runtime_objects(&|r| released.contains(&r.resource_key));
        for (node, kind, name) in self.owned(t) {
            if !(delete
                || holds(&released, node, "service", &name)
                || holds(&released, node, "chain", &name))
            {
                continue;
            }
            let why = if unreachable.binary_search(&node).is_ok() {
                " (its provider never got the release)"
            } else {
                ""
            };
            self.report(
                "LC002",
                "release-leak",
                Some(node),
                step_path(i, ""),
                format!("Node {node}: {kind} {name} of tunnel {t} is still deployed after the {} of step {i}{why}", if delete { "delete" } else { "release" }),
                format!("节点 {node}：第 {i} 步{}后，隧道 {t} 的 {kind} {name} 仍残留{}", if delete { "删除" } else { "释放" }, if why.is_empty() { "" } else { "（提供方未收到释放请求）" }),
            );
        }
        if delete {
            if let Some(rec) = self.tunnel_mut(t) {
                *rec = TunnelRec::default();
            }
            self.forget_forwards(i, t);
        }
        self.end(i, true);
    }

    /// The tunnel's forward rows go with it; LC002 for what they ran.
    fn forget_forwards(&mut self, i: usize, t: i64) {
        let accounted = self.forward_objects().1;
        self.fwd.drop_tunnel(t);
        let left = self.orphaned_among(&accounted);
        self.report_leftovers(i, left, Leftover::TunnelDelete, &[], "delete");
    }

    /// What every node runs at the end, provider runtimes and tunnel
    /// bindings: the replay is done.
    fn take_state(&mut self) -> State {
        let nodes = std::mem::take(&mut self.nodes);
        State::new(nodes, self.runtimes(), self.tunnels())
    }

    /// The provider runtimes, by resource key.
    fn runtimes(&self) -> Value {
        let mut runtimes = Map::new();
        for r in self.providers.runtimes() {
            runtimes.insert(
                r.resource_key.clone(),
                object([
                    ("nodeId", Value::from(r.usage.node_id)),
                    ("runtimeId", Value::from(r.id)),
                    ("tunnelId", Value::from(r.usage.tunnel_id)),
                    ("role", Value::from(r.usage.role.as_str())),
                    ("active", Value::from(r.active)),
                    ("applied", Value::from(r.applied)),
                    ("port", Value::from(r.port)),
                    ("targets", Value::from(r.usage.targets)),
                    ("serviceName", Value::from(r.service_name())),
                    ("chainName", Value::from(r.chain_name().unwrap_or_default())),
                ]),
            );
        }
        Value::from(runtimes)
    }

    /// The tunnels' records, by id.
    fn tunnels(&self) -> Value {
        let mut tunnels = Map::new();
        for (t, r) in &self.tunnels {
            let mut bindings = Vec::new();
            for (k, n) in &r.bindings {
                bindings.push(object([
                    ("resourceKey", Value::from(k.as_str())),
                    ("nodeId", Value::from(*n)),
                ]));
            }
            let list = |s: &Vec<i64>| Value::from(s.clone());
            tunnels.insert(
                t.to_string(),
                object([
                    ("exists", Value::from(r.exists)),
                    ("bindings", Value::from(bindings)),
                    ("chainNodes", list(&r.chain_nodes)),
                    ("serviceNodes", list(&r.service_nodes)),
                ]),
            );
        }
        Value::from(tunnels)
    }
}

/// The JSON Pointer `rest` (`""` or `/key...`) below step `i`.
fn step_path(i: usize, rest: &str) -> String {
    format!("/{i}{rest}")
}

/// The plan of an apply step and where it came from (`/plan` or `/input`,
/// a pointer below the step); `input` stands for the step's own.
fn step_plan(
    step: &TreeValue<'_>,
    fields: &TunnelStep,
    input: Option<&TreeValue<'_>>,
    i: usize,
) -> Result<(Plan, &'static str), ApiError> {
    if let Some(p) = step.get("plan") {
        if !is_plan(p) {
            return Err(ApiError::new(
                "IN001",
                "plan must have federation and local lists",
                step_path(i, "/plan"),
            ));
        }
        let plan = Plan::from_tree(p)
            .map_err(|e| ApiError::new("IN001", e.message, format!("/{i}/plan{}", e.path)))?;
        return Ok((plan, "/plan"));
    }
    if let Some(input) = input.or_else(|| step.get("input")) {
        if input.get("tunnel").is_none() && input.get("db").is_none() {
            return Err(ApiError::new(
                "IN001",
                "input must be {tunnel, nodes} (or {tunnel, before, nodes}, or {db})",
                step_path(i, "/input"),
            ));
        }
        // The request path: the step's `mode`, else what the input asks for.
        let mode = match fields.mode.as_deref() {
            None => crate::planner::PlanMode::detect(input),
            Some(m) => crate::planner::PlanMode::parse(m).ok_or_else(|| {
                ApiError::new(
                    "IN001",
                    format!("mode must be create, update or redeploy, not {m:?}"),
                    step_path(i, "/mode"),
                )
            })?,
        };
        // Planned within the default limits (a step list has no options);
        // an input over one stops the replay, as a step list over the
        // reader's own limits does.
        let plan = crate::planner::plan_within(input, mode, &Default::default());
        if let Some(e) = plan.limit_error_at(|| step_path(i, "/input")) {
            return Err(e);
        }
        return Ok((plan, "/input"));
    }
    Err(ApiError::new(
        "IN001",
        "an apply step needs plan or input",
        step_path(i, ""),
    ))
}

/// Replays the steps; see the module documentation for their format.
pub fn lifecycle(steps: &Value) -> Result<LifecycleReport, ApiError> {
    crate::limits::check_value(steps, &crate::limits::Limits::default())
        .map_err(|e| e.to_api_error())?;
    // The replay reads a document tree: this one built from the value.
    let arena = crate::json::tree::Arena::new();
    lifecycle_within(&crate::encode::to_tree(steps, &arena))
}

/// [`lifecycle`] of steps already read within the default limits
/// (`lifecycleJson`'s text, counted while it was read).
pub(crate) fn lifecycle_within(steps: &TreeValue<'_>) -> Result<LifecycleReport, ApiError> {
    let report = replay_within(steps)?;
    Ok(LifecycleReport {
        log: report.log,
        state: report.state.to_value(),
        findings: report.findings,
    })
}

/// A [`LifecycleReport`] whose state is still what the replay kept: what
/// `lifecycleJson` prints, without building the state as a value.
#[derive(Debug)]
pub(crate) struct ReplayReport {
    pub log: Vec<Value>,
    pub state: State,
    pub findings: Vec<Finding>,
}

impl Encode for ReplayReport {
    fn encode(&self, out: &mut Writer<'_>) {
        Object::new(out)
            .field("log", &self.log)
            .field("state", &self.state)
            .field("findings", &self.findings)
            .end()
    }
}

/// [`lifecycle_within`], its report's state not built as a value.
pub(crate) fn replay_within(steps: &TreeValue<'_>) -> Result<ReplayReport, ApiError> {
    let list = match steps {
        TreeValue::Arr(a) => Some(*a),
        TreeValue::Object(o) => o.get("steps").and_then(TreeValue::as_array),
        _ => None,
    };
    let Some(list) = list else {
        return Err(ApiError::new(
            "IN001",
            "expected a list of steps or {steps: [...]}",
            "",
        ));
    };
    if list.len() > MAX_STEPS {
        return Err(ApiError::new(
            "IN001",
            format!("more than {MAX_STEPS} steps"),
            "",
        ));
    }
    let mut r = Replay::default();
    for (i, step) in list.iter().enumerate() {
        let name = step
            .get("op")
            .and_then(TreeValue::as_str)
            .ok_or_else(|| ApiError::new("IN001", "a step needs an op", step_path(i, "/op")))?;
        let op = LifecycleOp::parse(name).ok_or_else(|| {
            ApiError::new(
                "IN001",
                format!(
                    "unknown op {name:?} (apply, edit, applyError, release, delete, report, forwardCreate, forwardEdit, forwardPause, forwardResume, forwardDelete)"
                ),
                step_path(i, "/op"),
            )
        })?;
        match (op, op.forward()) {
            (_, Some(forward)) => r.step_forward(i, step, forward)?,
            (LifecycleOp::Release, _) => r.step_release(i, step, false),
            (LifecycleOp::Delete, _) => r.step_release(i, step, true),
            (LifecycleOp::Report, _) => r.step_report(i, step)?,
            _ => r.step_apply(i, step, op)?,
        }
    }
    let mut findings = std::mem::take(&mut r.findings);
    sort_findings(&mut findings);
    findings.dedup();
    // Configs pasted by the caller may carry auth blocks or tokens: the
    // report echoes deployed configs, so it goes out redacted (the state's
    // as it is written).
    let state = r.take_state();
    let mut log = std::mem::take(&mut r.log);
    log.iter_mut().for_each(crate::redact::redact_in_place);
    Ok(ReplayReport {
        log,
        state,
        findings,
    })
}
