//! Lifecycle replay (issue 4): replays what the panel sends to agents and to
//! provider panels over a sequence of applies, edits, releases and failures,
//! keeps what every node ends up running, and reports what goes stale or leaks.
//!
//! # Steps
//!
//! `lifecycle(steps)` takes a JSON array of steps (or `{"steps": [...]}`).
//! Every step is an object with an `op`:
//!
//! * `{"op": "apply", "plan": PLAN}` or `{"op": "apply", "input": {tunnel, nodes, federation?}}`
//!   (`input` is planned along the server's request path: the step's `mode`,
//!   else what the input asks for, see [`crate::planner::Mode::detect`]; an
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
//!   its own nodes.
//!
//! `tunnelId` may be given on any step; otherwise it is read from the plan
//! (`chains_{id}`, `tunnel_{id}`, `tunnel:{id}:...`) or the last apply.
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
//!
//! # Findings (policy-rules.md, LC)
//!
//! * LC001 stale-retries-after-edit: a re-apply found a federated middle
//!   still applied, so only its chain changed, and the service's retries
//!   differ from what a fresh apply would set for the new target count.
//! * LC002 release-leak: after a `release` or `delete`, a service or chain
//!   created for the tunnel is still deployed.
//! * LC003 rollback-leak: after an `applyError`, something this apply created
//!   is still deployed.
//! * IN001 / IN002: a step that cannot be read / a plan the server rejects.
//!
//! Paths are JSON Pointers into the steps document.

use crate::encode::shape;
use crate::error::ApiError;
use crate::finding::{sort_findings, Finding, Severity};
use crate::go::coerce::loose_id;
use crate::json::object;
use crate::plan::{Command, FederationStep, Plan};
use crate::planner::provider::{ApplyKind, Providers, Released, Runtime, Share, Usage};
use crate::simulate::world::{is_plan, RawNode};
use crate::stable_sort::insert_sorted;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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

// Sets of objects and of nodes are sorted vectors
// ([`crate::stable_sort::insert_sorted`]).

/// Does the sorted `list` hold this object?
fn holds(list: &[Deployed], node: i64, kind: &str, name: &str) -> bool {
    list.binary_search_by(|(n, k, s)| (*n, *k, s.as_str()).cmp(&(node, kind, name)))
        .is_ok()
}

/// One command as the agent gets it: node, command, config (the agent's
/// state holds configs as JSON).
type Sent<'a> = (i64, &'a str, Value);

#[derive(Default)]
struct Replay {
    nodes: BTreeMap<i64, RawNode>,
    /// The provider panels: one per remote node ([`Share::of_node`]), since
    /// a plan names no panel URLs.
    providers: Providers,
    /// By tunnel id, sorted.
    tunnels: Vec<(i64, TunnelRec)>,
    log: Vec<Value>,
    findings: Vec<Finding>,
    last_tunnel: Option<i64>,
}

fn tunnel_service_names(t: i64) -> Vec<String> {
    let mut v = vec![format!("tunnel_{t}")];
    for p in ["tls", "kcp", "wss", "mtls", "mwss", "tcp", "mtcp"] {
        v.push(format!("{t}_{p}"));
    }
    v
}

fn sent(commands: &[Command]) -> Vec<Sent<'_>> {
    commands
        .iter()
        .map(|c| (c.node_id, c.command.as_str(), c.data.to_json()))
        .collect()
}

/// The name a config gives: a chain's, else its first service's.
fn config_name(data: &Value) -> Option<&str> {
    data.get("name")
        .or_else(|| data.get(0).and_then(|s| s.get("name")))
        .and_then(Value::as_str)
}

/// The number after the first of `prefixes` a config's name starts with.
fn named_id(commands: &[Sent], prefixes: [&str; 2]) -> Option<i64> {
    commands.iter().find_map(|(_, _, data)| {
        let name = config_name(data)?;
        prefixes
            .iter()
            .find_map(|p| name.strip_prefix(p))?
            .parse()
            .ok()
    })
}

/// The tunnel id a plan belongs to: its resource keys' (`tunnel:{id}:...`),
/// else its local names' (`chains_{id}`, `tunnel_{id}`).
fn plan_tunnel_id(plan: &Plan, local: &[Sent]) -> Option<i64> {
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

/// Renames `fed_*_{from}` / `hop_{from}` to the provider's actual runtime id.
fn rename_runtime(v: &Value, from: i64, to: i64) -> Value {
    if from == to {
        return v.clone();
    }
    match v {
        Value::String(s) => {
            for prefix in ["fed_chain_", "fed_svc_", "hop_"] {
                if *s == format!("{prefix}{from}") {
                    return Value::String(format!("{prefix}{to}"));
                }
            }
            v.clone()
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| rename_runtime(x, from, to)).collect()),
        Value::Object(o) => {
            // Inserted one by one: collecting into a map would compile one
            // more sort (see stable_sort).
            let mut out = Map::new();
            for (k, x) in o {
                out.insert(k.clone(), rename_runtime(x, from, to));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The node ids listed under `keys` of a step, sorted.
fn ids(step: &Value, keys: &[&str]) -> Vec<i64> {
    let mut out = Vec::new();
    for key in keys {
        for id in step
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(loose_id)
        {
            insert_sorted(&mut out, id);
        }
    }
    out
}

/// The retries a service config sets, read from the GOST model as the
/// simulator reads them (`retries` under an exact `handler`, [`crate::gost::Field::exact`]).
fn handler_retries(service: &Value) -> Option<i64> {
    let arena = crate::json::tree::Arena::new();
    let tree = crate::json::tree::build(service, &arena);
    crate::gost::Service::read(tree.as_object()?)
        .retries
        .exact()
        .and_then(crate::go::coerce::json_int)
}

/// Does `spec` (an index or `{nodeId, command}`) select local command `i`?
fn selects(spec: &Value, i: usize, (node, command, _): &Sent, first_match: &mut bool) -> bool {
    if let Some(n) = spec.as_u64() {
        return n as usize == i;
    }
    if *first_match {
        return false;
    }
    let node_ok = spec
        .get("nodeId")
        .and_then(loose_id)
        .map(|n| *node == n)
        .unwrap_or(true);
    let cmd_ok = spec
        .get("command")
        .and_then(Value::as_str)
        .map(|c| *command == c || command.replace("Add", "Update") == c)
        .unwrap_or(true);
    if node_ok && cmd_ok && spec.is_object() {
        *first_match = true;
        return true;
    }
    false
}

/// The config of a `DeleteChains`.
fn chain_delete(name: String) -> Value {
    object([("chain", Value::String(name))])
}

/// The config of a `DeleteService`.
fn services_delete(names: Vec<String>) -> Value {
    object([("services", Value::from(names))])
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

    /// The providers of these remote nodes cannot be reached until the next call.
    fn unreachable(&mut self, nodes: &[i64]) {
        self.providers
            .set_unreachable(nodes.iter().map(|n| Share::of_node(*n)));
    }

    /// For an `AddChains` / `AddService`, the object that already exists on the
    /// agent (the agent then rejects the whole command).
    fn clash(&self, node: i64, command: &str, data: &Value) -> Option<String> {
        let n = self.nodes.get(&node)?;
        match command {
            "AddChains" => {
                let name = data.get("name").and_then(Value::as_str)?;
                n.has_chain(name).then(|| format!("chain {name}"))
            }
            "AddService" => data
                .as_array()?
                .iter()
                .filter_map(|s| s.get("name").and_then(Value::as_str))
                .find_map(|name| n.has_service(name).then(|| format!("service {name}"))),
            _ => None,
        }
    }

    /// Remembers what an Add/Update command creates for tunnel `t`.
    fn remember(&mut self, t: i64, node: i64, command: &str, data: &Value) {
        let Some(TunnelRec { created, .. }) = self.tunnel_entry(t) else {
            return;
        };
        let name_of = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        match command {
            "AddChains" | "UpdateChains" => {
                let name = name_of(data.get("chain").or_else(|| data.get("name")));
                insert_sorted(created, (node, "chain", name));
            }
            "AddService" | "UpdateService" => {
                for svc in data.as_array().into_iter().flatten() {
                    insert_sorted(created, (node, "service", name_of(svc.get("name"))));
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
            ("DeleteChains", chain_delete(format!("chains_{t}")))
        } else {
            ("DeleteService", services_delete(tunnel_service_names(t)))
        };
        for node in nodes {
            self.send(step, phase, *node, command, &data, note);
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
        data: &Value,
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
        data: Value,
        note: &str,
    ) {
        let target = data
            .get("chain")
            .or_else(|| data.get("name"))
            .cloned()
            .or_else(|| data.get(0).and_then(|s| s.get("name")).cloned())
            .or_else(|| data.get("services").cloned())
            .unwrap_or(Value::Null);
        self.nodes
            .entry(node)
            .or_default()
            .apply_owned(command, data);
        self.log_node(step, phase, node, Some(command), ("target", target), note);
    }

    /// Everything deployed for tunnel `t`.
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
                        insert_sorted(&mut out, (*id, kind, name.clone()));
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
            insert_sorted(&mut out, (node, "service", r.service_name()));
            insert_sorted(
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
                self.send(step, phase, node, "DeleteService", &services, note);
                if let Some(chain) = rt.chain_name() {
                    let data = chain_delete(chain);
                    self.send(step, phase, node, "DeleteChains", &data, note);
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
        plan: &Plan,
        plan_at: &str,
    ) -> Result<Vec<(String, i64)>, String> {
        let mut refs: Vec<(String, i64)> = Vec::new();
        for (j, fed) in plan.federation.iter().enumerate() {
            if let Err(why) = self.apply_runtime(step, t, fed, plan_at, j) {
                self.release_newest_first(step, &refs, "federation-release");
                return Err(format!("remote node {}: {why}", fed.node_id));
            }
            refs.push((fed.resource_key.clone(), fed.node_id));
        }
        Ok(refs)
    }

    /// Reserves and applies the runtime of federation step `j` on its
    /// provider, and deploys what the provider sends its agent.
    fn apply_runtime(
        &mut self,
        step: usize,
        t: i64,
        fed: &FederationStep,
        plan_at: &str,
        j: usize,
    ) -> Result<(), String> {
        let node = fed.node_id;
        let rk = fed.resource_key.as_str();
        let share = Share::of_node(node);
        if self.providers.is_unreachable(&share) {
            self.log_key(step, "federation", node, rk, "provider panel unreachable: the apply fails and earlier bindings of this apply are released");
            return Err("provider unreachable".into());
        }
        let cmds = sent(&fed.commands);
        let plan_r = named_id(&cmds, ["fed_svc_", "fed_chain_"]).unwrap_or(node.wrapping_mul(10));
        let plan_port = fed.reserve.requested_port;
        let targets = fed.apply.targets.as_ref().map_or(0, |t| t.len());
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
        let r_id = got.runtime_id;
        if got.port != plan_port && plan_port > 0 {
            let note = format!(
                "provider still holds this key and keeps port {} (the plan asked for {})",
                got.port, plan_port
            );
            self.log_key(step, "federation", node, rk, &note);
        }
        let service = |c: &&Sent| c.1 == "AddService";
        match (kind, before) {
            (ApplyKind::AlreadyApplied, Some(e)) if fed.role == "middle" && targets > 0 => {
                let service_name = e.service_name();
                let chain_name = e.chain_name().unwrap_or_default();
                if let Some((_, _, data)) = cmds.iter().find(|c| c.1 == "AddChains") {
                    let payload = object([
                        ("chain", Value::from(chain_name.as_str())),
                        ("data", rename_runtime(data, plan_r, r_id)),
                    ]);
                    self.send(
                        step,
                        "federation",
                        node,
                        "UpdateChains",
                        &payload,
                        "runtime still applied: the provider only updates the chain",
                    );
                }
                // The service keeps its earlier retries: compare with what a fresh apply sets.
                let fresh = cmds
                    .iter()
                    .find(service)
                    .and_then(|c| c.2.get(0))
                    .and_then(handler_retries);
                let kept = self.nodes.get(&node).and_then(|n| {
                    let (_, svc) = n.services.iter().find(|(name, _)| *name == service_name)?;
                    Some(handler_retries(svc))
                });
                if let Some(kept) = kept.filter(|k| *k != fresh) {
                    // A planned `input` has no federation list of its own: point at the input.
                    let retries_path = if plan_at == "/input" {
                        step_path(step, "/input")
                    } else {
                        let k = cmds.iter().position(|c| service(&c)).unwrap_or(1);
                        format!("/{step}/plan/federation/{j}/commands/{k}/data/0/handler/retries")
                    };
                    let show =
                        |r: Option<i64>| r.map(|n| n.to_string()).unwrap_or_else(|| "none".into());
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
                if let Some(r) = self.providers.runtime_mut(&share, rk) {
                    r.usage.targets = targets;
                }
            }
            (ApplyKind::AlreadyApplied, _) => self.log_key(
                step,
                "federation",
                node,
                rk,
                "runtime still applied: the provider sends nothing to its agent",
            ),
            (ApplyKind::Deploy, before) => {
                let mut chain_added = false;
                for (_, command, data) in &cmds {
                    let data = rename_runtime(data, plan_r, r_id);
                    if let Some(clash) = self.clash(node, command, &data) {
                        let note = format!("the agent rejects it: {clash} already exists; the provider's apply fails");
                        let key = ("resourceKey", Value::from(rk));
                        self.log_node(step, "federation", node, Some(command), key, &note);
                        if chain_added {
                            let chain = if fed.role == "middle" {
                                format!("fed_chain_{r_id}")
                            } else {
                                String::new()
                            };
                            self.send(
                                step,
                                "federation",
                                node,
                                "DeleteChains",
                                &chain_delete(chain),
                                "provider cleans up its failed apply",
                            );
                        }
                        // The failed apply leaves the provider's runtime as it was.
                        self.providers.restore(&share, rk, before);
                        return Err(format!("{clash} already exists"));
                    }
                    self.send(
                        step,
                        "federation",
                        node,
                        command,
                        &data,
                        "provider applies the runtime",
                    );
                    self.remember(t, node, command, &data);
                    chain_added |= *command == "AddChains";
                }
                if let Some(r) = self.providers.runtime_mut(&share, rk) {
                    r.usage = Usage {
                        node_id: node,
                        tunnel_id: t,
                        role: fed.role.clone(),
                        targets,
                    };
                }
            }
        }
        Ok(())
    }

    fn step_apply(&mut self, i: usize, step: &Value, op: &str) -> Result<(), ApiError> {
        let (plan, plan_at) = step_plan(step, i)?;
        if let Some(err) = &plan.error {
            let text = err.message.clone();
            self.report(
                "IN002",
                "server-rejects",
                None,
                step_path(i, plan_at),
                format!("Step {i}: the server rejects this tunnel ({text}); nothing is deployed"),
                format!("第 {i} 步：服务端拒绝该隧道（{text}），未下发任何配置"),
            );
            self.log(i, "rejected", object([("note", Value::from(text))]));
            return Ok(());
        }
        let local = sent(&plan.local);
        let t = step
            .get("tunnelId")
            .and_then(loose_id)
            .or_else(|| plan_tunnel_id(&plan, &local))
            .or(self.last_tunnel)
            .unwrap_or(0);
        self.last_tunnel = Some(t);
        let unreachable = ids(step, &["unreachable"]);
        let mut release_unreachable = unreachable.clone();
        for id in ids(step, &["releaseUnreachable"]) {
            insert_sorted(&mut release_unreachable, id);
        }
        let edit = self.tunnel(t).is_some_and(|r| r.exists);
        if op == "edit" && !edit {
            return Err(ApiError::new(
                "IN001",
                format!("step {i}: edit of tunnel {t}, which was never applied"),
                step_path(i, ""),
            ));
        }
        let fail_at = if op == "applyError" {
            let spec = step.get("failAt");
            let mut first = false;
            let hit = spec.is_some_and(|spec| {
                (spec.is_u64() || spec.is_object())
                    && local
                        .iter()
                        .enumerate()
                        .any(|(k, c)| selects(spec, k, c, &mut first))
            });
            if !hit {
                return Err(ApiError::new(
                    "IN001",
                    format!("step {i}: failAt must be an index into the plan's {} local commands or {{nodeId, command}} matching one", local.len()),
                    step_path(i, "/failAt"),
                ));
            }
            spec
        } else {
            None
        };
        let before = self.owned(t);
        let (old_chain_nodes, old_service_nodes) =
            self.tunnel(t).map(TunnelRec::nodes).unwrap_or_default();
        self.log(
            i,
            "begin",
            object([
                ("op", Value::from(op)),
                ("tunnelId", Value::from(t)),
                ("mode", Value::from(if edit { "edit" } else { "create" })),
            ]),
        );
        if edit {
            self.unreachable(&release_unreachable);
            self.release_all(i, t, "release");
        }
        self.unreachable(&unreachable);
        let refs = match self.apply_federation(i, t, &plan, plan_at) {
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
        // Local apply.
        let timeouts: &[Value] = step
            .get("timeouts")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let mut created_chains: Vec<i64> = Vec::new();
        let mut created_services: Vec<i64> = Vec::new();
        let mut failed = false;
        let mut fail_first = false;
        let mut to_first: Vec<bool> = vec![false; timeouts.len()];
        let mut new_chain_nodes = Vec::new();
        let mut new_service_nodes = Vec::new();
        for (k, cmd) in local.into_iter().enumerate() {
            let (node, command) = (cmd.0, cmd.1);
            let is_chain = command == "AddChains" || command == "UpdateChains";
            insert_sorted(
                if is_chain {
                    &mut new_chain_nodes
                } else {
                    &mut new_service_nodes
                },
                node,
            );
            if failed {
                continue;
            }
            let fails_here = fail_at.is_some_and(|f| selects(f, k, &cmd, &mut fail_first));
            let timed_out = timeouts
                .iter()
                .zip(to_first.iter_mut())
                .any(|(spec, first)| selects(spec, k, &cmd, first));
            // The config moves into the node's state: one copy per command.
            let (sent_cmd, payload) = match (edit, command, cmd.2) {
                (true, "AddChains", data) => (
                    "UpdateChains",
                    object([
                        ("chain", data.get("name").cloned().unwrap_or(Value::Null)),
                        ("data", data),
                    ]),
                ),
                (true, "AddService", data) => ("UpdateService", data),
                (_, _, data) => (command, data),
            };
            if fails_here {
                self.log_local(
                    i,
                    node,
                    sent_cmd,
                    k,
                    "the agent rejects this command: the apply fails",
                );
                failed = true;
                continue;
            }
            if let Some(clash) = self.clash(node, sent_cmd, &payload) {
                let note = format!("the agent rejects it: {clash} already exists; the apply fails");
                self.log_local(i, node, sent_cmd, k, &note);
                failed = true;
                continue;
            }
            self.remember(t, node, sent_cmd, &payload);
            if timed_out {
                self.nodes
                    .entry(node)
                    .or_default()
                    .apply_owned(sent_cmd, payload);
                self.log_local(i, node, sent_cmd, k, "timed out at the panel (skipped, not recorded as created) but took effect on the agent");
                continue;
            }
            self.send_owned(i, "local", node, sent_cmd, payload, "");
            if is_chain {
                created_chains.push(node);
            } else {
                created_services.push(node);
            }
        }
        if failed {
            if !edit {
                // rollbackTunnelRuntime: services newest first, then chains newest first.
                for (chain, created) in [(false, &created_services), (true, &created_chains)] {
                    let (mut seen, mut nodes) = (Vec::new(), Vec::new());
                    for node in created.iter().rev() {
                        if insert_sorted(&mut seen, *node) {
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
            self.unreachable(&release_unreachable);
            self.release_newest_first(i, &refs, "rollback");
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
            return Ok(());
        }
        if edit {
            let gone = |old: &[i64], new: &[i64]| -> Vec<i64> {
                let mut out = Vec::new();
                for node in old {
                    if new.binary_search(node).is_err() {
                        out.push(*node);
                    }
                }
                out
            };
            let note = "node left the tunnel";
            let chains = gone(&old_chain_nodes, &new_chain_nodes);
            self.delete_from(i, "cleanup", t, true, &chains, note);
            let services = gone(&old_service_nodes, &new_service_nodes);
            self.delete_from(i, "cleanup", t, false, &services, note);
        }
        if let Some(rec) = self.tunnel_mut(t) {
            rec.chain_nodes = new_chain_nodes;
            rec.service_nodes = new_service_nodes;
        }
        self.end(i, true);
        Ok(())
    }

    fn step_release(&mut self, i: usize, step: &Value, delete: bool) {
        let t = step
            .get("tunnelId")
            .and_then(loose_id)
            .or(self.last_tunnel)
            .unwrap_or(0);
        let unreachable = ids(step, &["unreachable", "releaseUnreachable"]);
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
        }
        self.end(i, true);
    }

    /// What every node runs at the end, handed over: the replay is done.
    fn take_state(&mut self) -> Value {
        let mut nodes = Map::new();
        for (id, n) in std::mem::take(&mut self.nodes) {
            if n.services.is_empty() && n.chains.is_empty() {
                continue;
            }
            let configs =
                |list: Vec<(String, Value)>| Value::Array(list.into_iter().map(|c| c.1).collect());
            nodes.insert(
                id.to_string(),
                object([
                    ("services", configs(n.services)),
                    ("chains", configs(n.chains)),
                ]),
            );
        }
        // By key (the map sorts them).
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
        object([
            ("nodes", Value::from(nodes)),
            ("runtimes", Value::from(runtimes)),
            ("tunnels", Value::from(tunnels)),
        ])
    }
}

/// The JSON Pointer `rest` (`""` or `/key...`) below step `i`.
fn step_path(i: usize, rest: &str) -> String {
    format!("/{i}{rest}")
}

/// The plan of an apply step and where it came from (`/plan` or `/input`,
/// a pointer below the step).
fn step_plan(step: &Value, i: usize) -> Result<(Plan, &'static str), ApiError> {
    if let Some(p) = step.get("plan") {
        if !is_plan(p) {
            return Err(ApiError::new(
                "IN001",
                "plan must have federation and local lists",
                step_path(i, "/plan"),
            ));
        }
        let plan = Plan::from_json(p)
            .map_err(|e| ApiError::new("IN001", e.message, format!("/{i}/plan{}", e.path)))?;
        return Ok((plan, "/plan"));
    }
    if let Some(input) = step.get("input") {
        if input.get("tunnel").is_none() && input.get("db").is_none() {
            return Err(ApiError::new(
                "IN001",
                "input must be {tunnel, nodes} (or {tunnel, before, nodes}, or {db})",
                step_path(i, "/input"),
            ));
        }
        // The request path: the step's `mode`, else what the input asks for.
        let mode = match step.get("mode").and_then(Value::as_str) {
            None => crate::planner::Mode::detect(input),
            Some(m) => crate::planner::Mode::parse(m).ok_or_else(|| {
                ApiError::new(
                    "IN001",
                    format!("mode must be create, update or redeploy, not {m:?}"),
                    step_path(i, "/mode"),
                )
            })?,
        };
        // The whole step list was counted against the limits when it was
        // read (or walked, natively), this input with it: no second walk.
        let plan = crate::planner::plan_within(input, mode, &Default::default());
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
    lifecycle_within(steps)
}

/// [`lifecycle`] of steps already read within the default limits
/// (`lifecycleJson`'s text, counted while it was read).
pub fn lifecycle_within(steps: &Value) -> Result<LifecycleReport, ApiError> {
    let list = match steps {
        Value::Array(a) => Some(a),
        Value::Object(o) => o.get("steps").and_then(Value::as_array),
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
        let op = step
            .get("op")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::new("IN001", "a step needs an op", step_path(i, "/op")))?;
        match op {
            "apply" | "create" | "edit" | "applyError" => r.step_apply(i, step, op)?,
            "release" => r.step_release(i, step, false),
            "delete" => r.step_release(i, step, true),
            other => {
                return Err(ApiError::new(
                    "IN001",
                    format!("unknown op {other:?} (apply, edit, applyError, release, delete)"),
                    step_path(i, "/op"),
                ))
            }
        }
    }
    let mut findings = std::mem::take(&mut r.findings);
    sort_findings(&mut findings);
    findings.dedup();
    // Configs pasted by the caller may carry auth blocks or tokens: the
    // report echoes deployed configs, so it goes out redacted.
    let mut state = r.take_state();
    crate::redact::redact_in_place(&mut state);
    let mut log = std::mem::take(&mut r.log);
    log.iter_mut().for_each(crate::redact::redact_in_place);
    Ok(LifecycleReport {
        state,
        log,
        findings,
    })
}
