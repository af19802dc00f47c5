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
//!   edit is best given as `{tunnel, before, nodes}`). The first apply of a
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
//!   the plan's `federation` order. A provider reserves the resource key (an
//!   active runtime keeps its port and its applied flag; a released one is
//!   reset, keeping its runtime id). Applying a runtime that is still applied
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
use crate::json::object;
use crate::simulate::util::{json_int, loose_id};
use crate::simulate::world::{is_plan, RawNode};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

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

#[derive(Debug, Clone)]
struct Runtime {
    node_id: i64,
    runtime_id: i64,
    tunnel_id: i64,
    role: String,
    active: bool,
    applied: bool,
    port: i64,
    targets: usize,
    service_name: String,
    chain_name: String,
}

#[derive(Debug, Clone, Default)]
struct TunnelRec {
    exists: bool,
    /// Resource keys the panel holds bindings for.
    bindings: Vec<(String, i64)>,
    /// Local nodes with `chains_{id}` / with a tunnel service.
    chain_nodes: BTreeSet<i64>,
    service_nodes: BTreeSet<i64>,
    /// Every (node, kind, name) an apply of this tunnel created on an agent.
    created: BTreeSet<(i64, &'static str, String)>,
}

#[derive(Default)]
struct Replay {
    nodes: BTreeMap<i64, RawNode>,
    runtimes: BTreeMap<String, Runtime>,
    tunnels: BTreeMap<i64, TunnelRec>,
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

fn finding(
    code: &str,
    rule: &str,
    node: Option<i64>,
    path: String,
    en: String,
    zh: String,
) -> Finding {
    Finding {
        code: code.into(),
        rule: rule.into(),
        severity: Severity::Error,
        node_id: node,
        path,
        message: en,
        message_zh: zh,
        fix: None,
    }
}

/// The tunnel id a plan belongs to.
fn plan_tunnel_id(plan: &Value) -> Option<i64> {
    for step in plan
        .get("federation")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(rk) = step.get("resourceKey").and_then(Value::as_str) {
            if let Some(id) = rk
                .strip_prefix("tunnel:")
                .and_then(|r| r.split(':').next())
                .and_then(|s| s.parse().ok())
            {
                return Some(id);
            }
        }
    }
    for cmd in plan
        .get("local")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let data = cmd.get("data");
        let name = data
            .and_then(|d| d.get("name"))
            .and_then(Value::as_str)
            .or_else(|| {
                data.and_then(|d| d.get(0))
                    .and_then(|s| s.get("name"))
                    .and_then(Value::as_str)
            });
        if let Some(n) = name {
            if let Some(id) = n
                .strip_prefix("chains_")
                .or_else(|| n.strip_prefix("tunnel_"))
                .and_then(|s| s.parse().ok())
            {
                return Some(id);
            }
        }
    }
    None
}

/// The runtime id in `fed_svc_R` / `fed_chain_R` of a federation step.
fn step_runtime_id(fed: &Value) -> Option<i64> {
    for cmd in fed
        .get("commands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let data = cmd.get("data");
        let name = data
            .and_then(|d| d.get(0))
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str)
            .or_else(|| data.and_then(|d| d.get("name")).and_then(Value::as_str));
        if let Some(n) = name {
            if let Some(id) = n
                .strip_prefix("fed_svc_")
                .or_else(|| n.strip_prefix("fed_chain_"))
                .and_then(|s| s.parse().ok())
            {
                return Some(id);
            }
        }
    }
    None
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

fn ids(v: Option<&Value>) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    for id in v
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(loose_id)
    {
        out.insert(id);
    }
    out
}

fn handler_retries(service: &Value) -> Option<i64> {
    service
        .get("handler")
        .and_then(|h| h.get("retries"))
        .and_then(json_int)
}

/// Does `spec` (an index or `{nodeId, command}`) select local command `i`?
fn selects(spec: &Value, i: usize, cmd: &Value, first_match: &mut bool) -> bool {
    if let Some(n) = spec.as_u64() {
        return n as usize == i;
    }
    if *first_match {
        return false;
    }
    let node_ok = spec
        .get("nodeId")
        .and_then(loose_id)
        .map(|n| cmd.get("nodeId").and_then(json_int) == Some(n))
        .unwrap_or(true);
    let cmd_ok = spec
        .get("command")
        .and_then(Value::as_str)
        .map(|c| {
            let actual = cmd
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            actual == c || actual.replace("Add", "Update") == c
        })
        .unwrap_or(true);
    if node_ok && cmd_ok && spec.is_object() {
        *first_match = true;
        return true;
    }
    false
}

impl Replay {
    fn log(&mut self, step: usize, phase: &str, entry: Value) {
        let mut obj = Map::new();
        obj.insert("step".into(), Value::from(step));
        obj.insert("phase".into(), Value::from(phase));
        if let Value::Object(m) = entry {
            obj.extend(m);
        }
        self.log.push(Value::Object(obj));
    }

    /// For an `AddChains` / `AddService`, the object that already exists on the
    /// agent (the agent then rejects the whole command).
    fn clash(&self, node: i64, command: &str, data: &Value) -> Option<String> {
        let n = self.nodes.get(&node)?;
        match command {
            "AddChains" => {
                let name = data.get("name").and_then(Value::as_str)?;
                n.chains
                    .iter()
                    .any(|(x, _)| x == name)
                    .then(|| format!("chain {name}"))
            }
            "AddService" => data
                .as_array()?
                .iter()
                .filter_map(|s| s.get("name").and_then(Value::as_str))
                .find_map(|name| {
                    n.services
                        .iter()
                        .any(|(x, _)| x == name)
                        .then(|| format!("service {name}"))
                }),
            _ => None,
        }
    }

    /// Remembers what an Add/Update command creates for tunnel `t`.
    fn remember(&mut self, t: i64, node: i64, command: &str, data: &Value) {
        let mut names: Vec<(&'static str, String)> = Vec::new();
        match command {
            "AddChains" | "UpdateChains" => {
                let name = data
                    .get("chain")
                    .or_else(|| data.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                names.push(("chain", name.to_string()));
            }
            "AddService" | "UpdateService" => {
                for svc in data.as_array().into_iter().flatten() {
                    names.push((
                        "service",
                        svc.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    ));
                }
            }
            _ => {}
        }
        let rec = self.tunnels.entry(t).or_default();
        for (kind, name) in names {
            rec.created.insert((node, kind, name));
        }
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
        self.nodes.entry(node).or_default().apply(command, data);
        let target = data
            .get("chain")
            .or_else(|| data.get("name"))
            .cloned()
            .or_else(|| data.get(0).and_then(|s| s.get("name")).cloned())
            .or_else(|| data.get("services").cloned())
            .unwrap_or(Value::Null);
        self.log(
            step,
            phase,
            object([
                ("nodeId", Value::from(node)),
                ("command", Value::from(command)),
                ("target", target),
                ("note", Value::from(note)),
            ]),
        );
    }

    /// Everything deployed for tunnel `t`: (node, kind, name).
    fn owned(&self, t: i64) -> BTreeSet<(i64, &'static str, String)> {
        let mut out = BTreeSet::new();
        let svc = tunnel_service_names(t);
        let chain = format!("chains_{t}");
        let fed: Vec<(i64, String, String)> = self
            .runtimes
            .values()
            .filter(|r| r.tunnel_id == t)
            .map(|r| (r.node_id, r.service_name.clone(), r.chain_name.clone()))
            .collect();
        let created = self
            .tunnels
            .get(&t)
            .map(|r| r.created.clone())
            .unwrap_or_default();
        for (id, n) in &self.nodes {
            for (name, _) in &n.services {
                if svc.contains(name)
                    || created.contains(&(*id, "service", name.clone()))
                    || fed.iter().any(|(fid, s, _)| fid == id && s == name)
                {
                    out.insert((*id, "service", name.clone()));
                }
            }
            for (name, _) in &n.chains {
                if *name == chain
                    || created.contains(&(*id, "chain", name.clone()))
                    || fed.iter().any(|(fid, _, c)| fid == id && c == name)
                {
                    out.insert((*id, "chain", name.clone()));
                }
            }
        }
        out
    }

    fn release_binding(
        &mut self,
        step: usize,
        rk: &str,
        node: i64,
        unreachable: &BTreeSet<i64>,
        phase: &str,
    ) {
        if unreachable.contains(&node) {
            self.log(step, phase, object([
                ("nodeId", Value::from(node)),
                ("resourceKey", Value::from(rk)),
                ("note", Value::from("release did not reach the provider panel; the error is ignored and the runtime stays applied")),
            ]));
            return;
        }
        let Some(rt) = self.runtimes.get(rk).cloned() else {
            self.log(
                step,
                phase,
                object([
                    ("nodeId", Value::from(node)),
                    ("resourceKey", Value::from(rk)),
                    (
                        "note",
                        Value::from("provider has no runtime for this key: nothing to release"),
                    ),
                ]),
            );
            return;
        };
        if rt.applied {
            if !rt.service_name.is_empty() {
                self.send(
                    step,
                    phase,
                    node,
                    "DeleteService",
                    &object([("services", Value::Array(vec![Value::from(rt.service_name)]))]),
                    "provider releases the runtime",
                );
            }
            if rt.role == "middle" && !rt.chain_name.is_empty() {
                self.send(
                    step,
                    phase,
                    node,
                    "DeleteChains",
                    &object([("chain", Value::from(rt.chain_name))]),
                    "provider releases the runtime",
                );
            }
        }
        if let Some(r) = self.runtimes.get_mut(rk) {
            r.active = false;
            r.applied = false;
        }
    }

    /// Releases every binding the panel holds for the tunnel, newest last as the server lists them.
    fn release_all(&mut self, step: usize, t: i64, unreachable: &BTreeSet<i64>, phase: &str) {
        let bindings = self
            .tunnels
            .get(&t)
            .map(|r| r.bindings.clone())
            .unwrap_or_default();
        for (rk, node) in &bindings {
            self.release_binding(step, rk, *node, unreachable, phase);
        }
        if let Some(rec) = self.tunnels.get_mut(&t) {
            rec.bindings.clear();
        }
    }

    /// Federation apply of one plan. Returns the bindings made, or an error message.
    fn apply_federation(
        &mut self,
        step: usize,
        t: i64,
        plan: &Value,
        base: &str,
        unreachable: &BTreeSet<i64>,
    ) -> Result<Vec<(String, i64)>, String> {
        let mut refs: Vec<(String, i64)> = Vec::new();
        let steps: Vec<Value> = plan
            .get("federation")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (j, fed) in steps.iter().enumerate() {
            let Some(node) = fed.get("nodeId").and_then(json_int) else {
                continue;
            };
            let rk = fed
                .get("resourceKey")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let role = fed
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if unreachable.contains(&node) {
                self.log(step, "federation", object([
                    ("nodeId", Value::from(node)),
                    ("resourceKey", Value::from(&*rk)),
                    ("note", Value::from("provider panel unreachable: the apply fails and earlier bindings of this apply are released")),
                ]));
                for (rk2, n2) in refs.iter().rev() {
                    self.release_binding(step, rk2, *n2, unreachable, "federation-release");
                }
                return Err(format!("remote node {node}: provider unreachable"));
            }
            let plan_r = step_runtime_id(fed).unwrap_or(node * 10);
            let plan_port = fed
                .get("reserve")
                .and_then(|r| r.get("requestedPort"))
                .and_then(json_int)
                .unwrap_or(0);
            let targets = fed
                .get("apply")
                .and_then(|a| a.get("targets"))
                .and_then(Value::as_array)
                .map(Vec::len)
                .unwrap_or(0);
            let cmds: Vec<Value> = fed
                .get("commands")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let existing = self.runtimes.get(&rk).cloned();
            let r_id = existing.as_ref().map(|e| e.runtime_id).unwrap_or(plan_r);
            let still_applied = existing
                .as_ref()
                .map(|e| e.active && e.applied)
                .unwrap_or(false);
            if let Some(e) = &existing {
                if e.active && e.port != plan_port && plan_port > 0 {
                    self.log(step, "federation", object([
                        ("nodeId", Value::from(node)),
                        ("resourceKey", Value::from(&*rk)),
                        ("note", Value::from(format!("provider still holds this key and keeps port {} (the plan asked for {})", e.port, plan_port))),
                    ]));
                }
            }
            // A planned `input` has no federation list of its own: point at the input.
            let retries_path = if base.ends_with("/input") {
                base.to_string()
            } else {
                let k = cmds
                    .iter()
                    .position(|c| c.get("command").and_then(Value::as_str) == Some("AddService"))
                    .unwrap_or(1);
                format!("{base}/federation/{j}/commands/{k}/data/0/handler/retries")
            };
            if still_applied {
                let e = existing
                    .clone()
                    .unwrap_or_else(|| unreachable_runtime(node));
                if role == "middle" && targets > 0 {
                    if let Some(chain_cmd) = cmds
                        .iter()
                        .find(|c| c.get("command").and_then(Value::as_str) == Some("AddChains"))
                    {
                        let data = rename_runtime(
                            chain_cmd.get("data").unwrap_or(&Value::Null),
                            plan_r,
                            r_id,
                        );
                        let payload = object([
                            ("chain", Value::from(e.chain_name.as_str())),
                            ("data", data),
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
                        .find(|c| c.get("command").and_then(Value::as_str) == Some("AddService"))
                        .and_then(|c| c.get("data"))
                        .and_then(|d| d.get(0))
                        .map(handler_retries)
                        .unwrap_or(None);
                    let deployed_svc = self
                        .nodes
                        .get(&node)
                        .and_then(|n| n.services.iter().find(|(name, _)| *name == e.service_name))
                        .map(|(_, v)| v.clone());
                    if let Some(svc) = deployed_svc {
                        let kept = handler_retries(&svc);
                        if kept != fresh {
                            let show = |r: Option<i64>| {
                                r.map(|n| n.to_string()).unwrap_or_else(|| "none".into())
                            };
                            self.findings.push(finding(
                                "LC001",
                                "stale-retries-after-edit",
                                Some(node),
                                retries_path.clone(),
                                format!(
                                    "Node {node}: its earlier release never reached the provider, so this apply only updated chain {} ({targets} targets) and service {} keeps retries {} where a fresh apply sets {}: a dead primary is not retried over the new targets",
                                    e.chain_name, e.service_name, show(kept), show(fresh)
                                ),
                                format!(
                                    "节点 {node}：之前的释放未送达提供方，本次只更新了转发链 {}（{targets} 个目标），服务 {} 仍保留 retries {}，而全新下发应为 {}：主节点失效时不会重试新目标",
                                    e.chain_name, e.service_name, show(kept), show(fresh)
                                ),
                            ));
                        }
                    }
                    if let Some(r) = self.runtimes.get_mut(&rk) {
                        r.targets = targets;
                    }
                } else {
                    self.log(step, "federation", object([
                        ("nodeId", Value::from(node)),
                        ("resourceKey", Value::from(&*rk)),
                        ("note", Value::from("runtime still applied: the provider sends nothing to its agent")),
                    ]));
                }
            } else {
                let svc_name = format!("fed_svc_{r_id}");
                let chain_name = if role == "middle" {
                    format!("fed_chain_{r_id}")
                } else {
                    String::new()
                };
                let mut chain_added = false;
                for c in &cmds {
                    let command = c
                        .get("command")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let data = rename_runtime(c.get("data").unwrap_or(&Value::Null), plan_r, r_id);
                    if let Some(clash) = self.clash(node, &command, &data) {
                        self.log(step, "federation", object([
                            ("nodeId", Value::from(node)),
                            ("command", Value::from(command)),
                            ("resourceKey", Value::from(&*rk)),
                            ("note", Value::from(format!("the agent rejects it: {clash} already exists; the provider's apply fails"))),
                        ]));
                        if chain_added {
                            self.send(
                                step,
                                "federation",
                                node,
                                "DeleteChains",
                                &object([("chain", Value::from(chain_name))]),
                                "provider cleans up its failed apply",
                            );
                        }
                        for (rk2, n2) in refs.iter().rev() {
                            self.release_binding(step, rk2, *n2, unreachable, "federation-release");
                        }
                        return Err(format!("remote node {node}: {clash} already exists"));
                    }
                    self.send(
                        step,
                        "federation",
                        node,
                        &command,
                        &data,
                        "provider applies the runtime",
                    );
                    self.remember(t, node, &command, &data);
                    chain_added |= command == "AddChains";
                }
                self.runtimes.insert(
                    rk.clone(),
                    Runtime {
                        node_id: node,
                        runtime_id: r_id,
                        tunnel_id: t,
                        role: role.clone(),
                        active: true,
                        applied: true,
                        port: plan_port,
                        targets,
                        service_name: svc_name,
                        chain_name,
                    },
                );
            }
            refs.push((rk, node));
        }
        Ok(refs)
    }

    fn step_apply(&mut self, i: usize, step: &Value, op: &str) -> Result<(), ApiError> {
        let base = format!("/{i}");
        let (plan, plan_key) = step_plan(step, &base)?;
        if let Some(err) = plan.get("error").filter(|e| !e.is_null()) {
            let text = err
                .as_str()
                .map(str::to_string)
                .or_else(|| {
                    err.get("message")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or_else(|| crate::json::to_text(err));
            self.findings.push(Finding {
                code: "IN002".into(),
                rule: "server-rejects".into(),
                severity: Severity::Error,
                node_id: None,
                path: format!("{base}/{plan_key}"),
                message: format!(
                    "Step {i}: the server rejects this tunnel ({text}); nothing is deployed"
                ),
                message_zh: format!("第 {i} 步：服务端拒绝该隧道（{text}），未下发任何配置"),
                fix: None,
            });
            self.log(i, "rejected", object([("note", Value::from(text))]));
            return Ok(());
        }
        let t = step
            .get("tunnelId")
            .and_then(loose_id)
            .or_else(|| plan_tunnel_id(&plan))
            .or(self.last_tunnel)
            .unwrap_or(0);
        self.last_tunnel = Some(t);
        let unreachable = ids(step.get("unreachable"));
        let mut release_unreachable = unreachable.clone();
        release_unreachable.extend(ids(step.get("releaseUnreachable")));
        let edit = self.tunnels.get(&t).map(|r| r.exists).unwrap_or(false);
        if op == "edit" && !edit {
            return Err(ApiError::new(
                "IN001",
                format!("step {i}: edit of tunnel {t}, which was never applied"),
                base,
            ));
        }
        if op == "applyError" {
            let local: Vec<Value> = plan
                .get("local")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let spec = step.get("failAt").cloned().unwrap_or(Value::Null);
            let mut first = false;
            let hit = (spec.is_u64() || spec.is_object())
                && local
                    .iter()
                    .enumerate()
                    .any(|(k, c)| selects(&spec, k, c, &mut first));
            if !hit {
                return Err(ApiError::new(
                    "IN001",
                    format!("step {i}: failAt must be an index into the plan's {} local commands or {{nodeId, command}} matching one", local.len()),
                    format!("{base}/failAt"),
                ));
            }
        }
        let before = self.owned(t);
        let old_chain_nodes = self
            .tunnels
            .get(&t)
            .map(|r| r.chain_nodes.clone())
            .unwrap_or_default();
        let old_service_nodes = self
            .tunnels
            .get(&t)
            .map(|r| r.service_nodes.clone())
            .unwrap_or_default();
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
            self.release_all(i, t, &release_unreachable, "release");
        }
        let plan_base = format!("{base}/{plan_key}");
        let refs = match self.apply_federation(i, t, &plan, &plan_base, &unreachable) {
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
        let rec = self.tunnels.entry(t).or_default();
        rec.exists = true;
        rec.bindings = refs.clone();
        // Local apply.
        let fail_at = if op == "applyError" {
            step.get("failAt").cloned()
        } else {
            None
        };
        if op == "applyError" && fail_at.is_none() {
            return Err(ApiError::new(
                "IN001",
                format!("step {i}: applyError needs failAt"),
                format!("{base}/failAt"),
            ));
        }
        let timeouts: Vec<Value> = step
            .get("timeouts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let local: Vec<Value> = plan
            .get("local")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut created_chains: Vec<i64> = Vec::new();
        let mut created_services: Vec<i64> = Vec::new();
        let mut failed = false;
        let mut fail_first = false;
        let mut to_first: Vec<bool> = vec![false; timeouts.len()];
        let mut new_chain_nodes = BTreeSet::new();
        let mut new_service_nodes = BTreeSet::new();
        for (k, cmd) in local.iter().enumerate() {
            let Some(node) = cmd.get("nodeId").and_then(json_int) else {
                continue;
            };
            let command = cmd
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let data = cmd.get("data").cloned().unwrap_or(Value::Null);
            let is_chain = command == "AddChains" || command == "UpdateChains";
            if is_chain {
                new_chain_nodes.insert(node);
            } else {
                new_service_nodes.insert(node);
            }
            if failed {
                continue;
            }
            let (sent_cmd, payload) = match (edit, command) {
                (true, "AddChains") => (
                    "UpdateChains",
                    object([
                        ("chain", data.get("name").cloned().unwrap_or(Value::Null)),
                        ("data", data),
                    ]),
                ),
                (true, "AddService") => ("UpdateService", data.clone()),
                _ => (command, data.clone()),
            };
            if fail_at
                .as_ref()
                .map(|f| selects(f, k, cmd, &mut fail_first))
                .unwrap_or(false)
            {
                self.log(
                    i,
                    "local",
                    object([
                        ("nodeId", Value::from(node)),
                        ("command", Value::from(sent_cmd)),
                        ("index", Value::from(k)),
                        (
                            "note",
                            Value::from("the agent rejects this command: the apply fails"),
                        ),
                    ]),
                );
                failed = true;
                continue;
            }
            if let Some(clash) = self.clash(node, sent_cmd, &payload) {
                self.log(
                    i,
                    "local",
                    object([
                        ("nodeId", Value::from(node)),
                        ("command", Value::from(sent_cmd)),
                        ("index", Value::from(k)),
                        (
                            "note",
                            Value::from(format!(
                                "the agent rejects it: {clash} already exists; the apply fails"
                            )),
                        ),
                    ]),
                );
                failed = true;
                continue;
            }
            let timed_out = timeouts
                .iter()
                .zip(to_first.iter_mut())
                .any(|(spec, first)| selects(spec, k, cmd, first));
            if timed_out {
                self.nodes
                    .entry(node)
                    .or_default()
                    .apply(sent_cmd, &payload);
                self.remember(t, node, sent_cmd, &payload);
                self.log(i, "local", object([
                    ("nodeId", Value::from(node)),
                    ("command", Value::from(sent_cmd)),
                    ("index", Value::from(k)),
                    ("note", Value::from("timed out at the panel (skipped, not recorded as created) but took effect on the agent")),
                ]));
                continue;
            }
            self.send(i, "local", node, sent_cmd, &payload, "");
            self.remember(t, node, sent_cmd, &payload);
            if is_chain {
                created_chains.push(node);
            } else {
                created_services.push(node);
            }
        }
        if failed {
            if !edit {
                // rollbackTunnelRuntime: services newest first, then chains newest first.
                let names = tunnel_service_names(t);
                let mut seen = BTreeSet::new();
                for node in created_services.iter().rev() {
                    if seen.insert(*node) {
                        self.send(
                            i,
                            "rollback",
                            *node,
                            "DeleteService",
                            &object([("services", Value::from(names.as_slice()))]),
                            "local rollback",
                        );
                    }
                }
                let mut seen = BTreeSet::new();
                for node in created_chains.iter().rev() {
                    if seen.insert(*node) {
                        self.send(
                            i,
                            "rollback",
                            *node,
                            "DeleteChains",
                            &object([("chain", Value::from(format!("chains_{t}")))]),
                            "local rollback",
                        );
                    }
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
            for (rk, node) in refs.iter().rev() {
                self.release_binding(i, rk, *node, &release_unreachable, "rollback");
            }
            if let Some(rec) = self.tunnels.get_mut(&t) {
                rec.bindings.clear();
                if !edit {
                    rec.exists = false;
                }
            }
            // LC003: anything this apply created that is still deployed.
            let after = self.owned(t);
            for (node, kind, name) in after.iter().filter(|x| !before.contains(x)) {
                self.findings.push(finding(
                    "LC003",
                    "rollback-leak",
                    Some(*node),
                    format!("{base}/failAt"),
                    format!("Node {node}: {kind} {name} was created by the failed apply of step {i} and is still deployed after the rollback"),
                    format!("节点 {node}：第 {i} 步下发失败后回滚，{kind} {name} 仍残留在节点上"),
                ));
            }
            self.log(i, "end", object([("ok", Value::from(false))]));
            return Ok(());
        }
        if edit {
            let names = tunnel_service_names(t);
            for node in old_chain_nodes
                .iter()
                .filter(|n| !new_chain_nodes.contains(n))
            {
                self.send(
                    i,
                    "cleanup",
                    *node,
                    "DeleteChains",
                    &object([("chain", Value::from(format!("chains_{t}")))]),
                    "node left the tunnel",
                );
            }
            for node in old_service_nodes
                .iter()
                .filter(|n| !new_service_nodes.contains(n))
            {
                self.send(
                    i,
                    "cleanup",
                    *node,
                    "DeleteService",
                    &object([("services", Value::from(names.as_slice()))]),
                    "node left the tunnel",
                );
            }
        }
        if let Some(rec) = self.tunnels.get_mut(&t) {
            rec.chain_nodes = new_chain_nodes;
            rec.service_nodes = new_service_nodes;
        }
        self.log(i, "end", object([("ok", Value::from(true))]));
        Ok(())
    }

    fn step_release(&mut self, i: usize, step: &Value, delete: bool) {
        let t = step
            .get("tunnelId")
            .and_then(loose_id)
            .or(self.last_tunnel)
            .unwrap_or(0);
        let mut unreachable = ids(step.get("unreachable"));
        unreachable.extend(ids(step.get("releaseUnreachable")));
        self.log(
            i,
            "begin",
            object([
                ("op", Value::from(if delete { "delete" } else { "release" })),
                ("tunnelId", Value::from(t)),
            ]),
        );
        let released: Vec<(String, i64)> = self
            .tunnels
            .get(&t)
            .map(|r| r.bindings.clone())
            .unwrap_or_default();
        self.release_all(i, t, &unreachable, "release");
        if delete {
            let (cn, sn) = self
                .tunnels
                .get(&t)
                .map(|r| (r.chain_nodes.clone(), r.service_nodes.clone()))
                .unwrap_or_default();
            let names = tunnel_service_names(t);
            for node in &cn {
                self.send(
                    i,
                    "cleanup",
                    *node,
                    "DeleteChains",
                    &object([("chain", Value::from(format!("chains_{t}")))]),
                    "tunnel deleted",
                );
            }
            for node in &sn {
                self.send(
                    i,
                    "cleanup",
                    *node,
                    "DeleteService",
                    &object([("services", Value::from(names.as_slice()))]),
                    "tunnel deleted",
                );
            }
        }
        // LC002: what the release should have removed and did not.
        let mut fed_keys: BTreeSet<&str> = BTreeSet::new();
        for (k, _) in &released {
            fed_keys.insert(k.as_str());
        }
        let leftovers: Vec<(i64, &'static str, String)> = self
            .owned(t)
            .into_iter()
            .filter(|(node, _kind, name)| {
                delete
                    || self.runtimes.iter().any(|(k, r)| {
                        fed_keys.contains(k.as_str())
                            && r.node_id == *node
                            && (r.service_name == *name || r.chain_name == *name)
                    })
            })
            .collect();
        for (node, kind, name) in leftovers {
            let why = if unreachable.contains(&node) {
                " (its provider never got the release)"
            } else {
                ""
            };
            self.findings.push(finding(
                "LC002",
                "release-leak",
                Some(node),
                format!("/{i}"),
                format!("Node {node}: {kind} {name} of tunnel {t} is still deployed after the {} of step {i}{why}", if delete { "delete" } else { "release" }),
                format!("节点 {node}：第 {i} 步{}后，隧道 {t} 的 {kind} {name} 仍残留{}", if delete { "删除" } else { "释放" }, if why.is_empty() { "" } else { "（提供方未收到释放请求）" }),
            ));
        }
        if delete {
            if let Some(rec) = self.tunnels.get_mut(&t) {
                *rec = TunnelRec::default();
            }
        }
        self.log(i, "end", object([("ok", Value::from(true))]));
    }

    fn state(&self) -> Value {
        let mut nodes = Map::new();
        for (id, n) in &self.nodes {
            if n.services.is_empty() && n.chains.is_empty() {
                continue;
            }
            nodes.insert(
                id.to_string(),
                object([
                    (
                        "services",
                        Value::from(
                            n.services
                                .iter()
                                .map(|(_, v)| v.clone())
                                .collect::<Vec<_>>(),
                        ),
                    ),
                    (
                        "chains",
                        Value::from(n.chains.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>()),
                    ),
                ]),
            );
        }
        let mut runtimes = Map::new();
        for (k, r) in &self.runtimes {
            runtimes.insert(
                k.clone(),
                object([
                    ("nodeId", Value::from(r.node_id)),
                    ("runtimeId", Value::from(r.runtime_id)),
                    ("tunnelId", Value::from(r.tunnel_id)),
                    ("role", Value::from(r.role.as_str())),
                    ("active", Value::from(r.active)),
                    ("applied", Value::from(r.applied)),
                    ("port", Value::from(r.port)),
                    ("targets", Value::from(r.targets)),
                    ("serviceName", Value::from(r.service_name.as_str())),
                    ("chainName", Value::from(r.chain_name.as_str())),
                ]),
            );
        }
        let mut tunnels = Map::new();
        for (t, r) in &self.tunnels {
            tunnels.insert(
                t.to_string(),
                object([
                    ("exists", Value::from(r.exists)),
                    (
                        "bindings",
                        Value::from(
                            r.bindings
                                .iter()
                                .map(|(k, n)| {
                                    object([
                                        ("resourceKey", Value::from(k.as_str())),
                                        ("nodeId", Value::from(*n)),
                                    ])
                                })
                                .collect::<Vec<_>>(),
                        ),
                    ),
                    (
                        "chainNodes",
                        Value::from(r.chain_nodes.iter().copied().collect::<Vec<_>>()),
                    ),
                    (
                        "serviceNodes",
                        Value::from(r.service_nodes.iter().copied().collect::<Vec<_>>()),
                    ),
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

fn unreachable_runtime(node: i64) -> Runtime {
    Runtime {
        node_id: node,
        runtime_id: 0,
        tunnel_id: 0,
        role: String::new(),
        active: false,
        applied: false,
        port: 0,
        targets: 0,
        service_name: String::new(),
        chain_name: String::new(),
    }
}

/// The plan of an apply step and the key it came from (`plan` or `input`).
fn step_plan(step: &Value, base: &str) -> Result<(Value, &'static str), ApiError> {
    if let Some(p) = step.get("plan") {
        if !is_plan(p) {
            return Err(ApiError::new(
                "IN001",
                "plan must have federation and local lists",
                format!("{base}/plan"),
            ));
        }
        return Ok((p.clone(), "plan"));
    }
    if let Some(input) = step.get("input") {
        if input.get("tunnel").is_none() && input.get("db").is_none() {
            return Err(ApiError::new(
                "IN001",
                "input must be {tunnel, nodes} (or {tunnel, before, nodes}, or {db})",
                format!("{base}/input"),
            ));
        }
        // The request path: the step's `mode`, else what the input asks for.
        let mode = match step.get("mode").and_then(Value::as_str) {
            None => crate::planner::Mode::detect(input),
            Some(m) => crate::planner::Mode::parse(m).ok_or_else(|| {
                ApiError::new(
                    "IN001",
                    format!("mode must be create, update or redeploy, not {m:?}"),
                    format!("{base}/mode"),
                )
            })?,
        };
        let plan = crate::planner::plan_with(input, mode, &Default::default());
        let v = plan.to_json_value().map_err(|e| {
            ApiError::new(
                "IN001",
                format!("plan could not be serialised: {e}"),
                format!("{base}/input"),
            )
        })?;
        return Ok((v, "input"));
    }
    Err(ApiError::new(
        "IN001",
        "an apply step needs plan or input",
        base.to_string(),
    ))
}

/// Replays the steps; see the module documentation for their format.
pub fn lifecycle(steps: &Value) -> Result<LifecycleReport, ApiError> {
    crate::limits::check_value(steps, &crate::limits::Limits::default())
        .map_err(|e| e.to_api_error())?;
    let list = match steps {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("steps") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(ApiError::new(
                    "IN001",
                    "expected a list of steps or {steps: [...]}",
                    "",
                ))
            }
        },
        _ => {
            return Err(ApiError::new(
                "IN001",
                "expected a list of steps or {steps: [...]}",
                "",
            ))
        }
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
            .ok_or_else(|| ApiError::new("IN001", "a step needs an op", format!("/{i}/op")))?;
        match op {
            "apply" | "create" | "edit" | "applyError" => r.step_apply(i, step, op)?,
            "release" => r.step_release(i, step, false),
            "delete" => r.step_release(i, step, true),
            other => {
                return Err(ApiError::new(
                    "IN001",
                    format!("unknown op {other:?} (apply, edit, applyError, release, delete)"),
                    format!("/{i}/op"),
                ))
            }
        }
    }
    let mut findings = std::mem::take(&mut r.findings);
    sort_findings(&mut findings);
    findings.dedup();
    // Configs pasted by the caller may carry auth blocks or tokens: the
    // report echoes deployed configs, so it goes out redacted.
    Ok(LifecycleReport {
        state: crate::redact::redact(&r.state()),
        log: r.log.iter().map(crate::redact::redact).collect(),
        findings,
    })
}
