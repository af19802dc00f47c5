//! A forward service's handler as the agent runs it: its target loop over
//! `forwarder.nodes` (`go-gost/x/handler/forward/local/handler.go:181-275`),
//! each try one router dial towards the chosen target over the service's
//! chain. The targets are a hop of the world ([`Forwarder`]): they are
//! selected, filtered and marked by the engine's own selector and markers.

use super::super::util::{note, owned};
use super::super::world::{Agent, Forwarder, Hop, Service, World};
use super::super::{NumberOrText, RequestTrace, Scenario, SkippedTarget, TargetTry, TraceForward};
use super::{fail_limits, whole_seconds, Outcome, Selection, Simulation};
use crate::error::ApiError;
use crate::forward::parse_service_name as parse_name;
use crate::go::duration::parse_duration;

/// The forward service requests enter at, with the scenario's overrides.
pub(in crate::simulate) struct Entry {
    pub agent: usize,
    pub service: String,
    pub forward_id: Option<i64>,
    pub chain: Option<usize>,
    chain_name: Option<String>,
    pub retries: i64,
    /// The targets as a hop, `maxFails` / `failTimeout` overridden.
    pub hop: Hop,
    /// Targets one request may try (`maxRetries`, else all of them).
    pub tries: usize,
}

/// Does service `name` belong to the forward `wanted` names?
fn names_forward(world: &World, name: &str, wanted: &NumberOrText) -> bool {
    let parsed = parse_name(name);
    if let Some(id) = wanted.id() {
        return parsed.is_some_and(|(fid, _)| fid == id);
    }
    let Some(text) = wanted.text() else {
        return false;
    };
    let named = |fid: i64| {
        world
            .forward_names
            .iter()
            .any(|(id, n)| *id == fid && n == text)
    };
    name == text || parsed.is_some_and(|(fid, base)| base == text || named(fid))
}

/// The forward services of the world, in node-table then command order.
fn forward_services(world: &World) -> Vec<(usize, &Service, &Forwarder)> {
    let mut out = Vec::new();
    for (ai, agent) in world.agents.iter().enumerate() {
        for s in &agent.services {
            if let Some(f) = s.forwarder.as_ref().filter(|f| !f.hop.nodes.is_empty()) {
                out.push((ai, s, f));
            }
        }
    }
    out
}

/// The forward the scenario names (default: the first forward service), or
/// `None` for a document without forwards (a single node's config counts
/// as one without: its requests enter as before).
pub(in crate::simulate) fn pick(world: &World, sc: &Scenario) -> Result<Option<Entry>, ApiError> {
    let all = if world.single_node {
        Vec::new()
    } else {
        forward_services(world)
    };
    let wanted = sc.forward.as_ref();
    let Some(&(ai, svc, fwd)) = all
        .iter()
        .find(|(_, s, _)| wanted.is_none_or(|w| names_forward(world, &s.name, w)))
    else {
        return match wanted {
            None if sc.dead_targets.is_empty() => Ok(None),
            None => Err(ApiError::new(
                "IN001",
                "deadTargets names targets, but the document deploys no forward",
                "/deadTargets",
            )),
            Some(w) => Err(ApiError::new(
                "IN001",
                format!(
                    "forward {} is not deployed by this document{}",
                    crate::redact::describe(&w.given_value()),
                    listed(&all)
                ),
                "/forward",
            )),
        };
    };
    let ai = match &sc.entry {
        Some(e) => entry_running(world, &all, &svc.name, e)?,
        None => ai,
    };
    let agent = world.agents.get(ai);
    let chain_name = svc.chain.clone();
    let chain = chain_name
        .as_deref()
        .and_then(|c| agent.and_then(|a| a.chain_index(c)));
    Ok(Some(Entry {
        agent: ai,
        service: svc.name.clone(),
        forward_id: parse_name(&svc.name).map(|(id, _)| id),
        chain,
        chain_name,
        retries: sc.retries.or(sc.entry_retries).unwrap_or(svc.retries),
        hop: overridden(&fwd.hop, sc)?,
        tries: tries(fwd),
    }))
}

/// ", which are: a, b" listing the forward services, for an error.
fn listed(all: &[(usize, &Service, &Forwarder)]) -> String {
    if all.is_empty() {
        return owned(" (it deploys none)");
    }
    let mut names: Vec<&str> = all.iter().map(|(_, s, _)| s.name.as_str()).collect();
    names.dedup();
    format!(" (its forward services: {})", names.join(", "))
}

/// The agent of node `entry` running the service `name`.
fn entry_running(
    world: &World,
    all: &[(usize, &Service, &Forwarder)],
    name: &str,
    entry: &NumberOrText,
) -> Result<usize, ApiError> {
    let id = entry.id().ok_or_else(|| super::not_a_node_id(entry))?;
    all.iter()
        .find(|(ai, s, _)| {
            s.name == name && world.agents.get(*ai).and_then(|a| a.node_id) == Some(id)
        })
        .map(|(ai, _, _)| *ai)
        .ok_or_else(|| {
            ApiError::new(
                "NO_ENTRY",
                format!("node {id} does not run the forward service {name}"),
                "/entry",
            )
        })
}

/// How many targets one connection tries: `maxRetries` when positive, else
/// every target; a try never repeats a target, so no more than there are.
fn tries(f: &Forwarder) -> usize {
    let all = f.hop.nodes.len().max(1);
    match f.max_retries.filter(|m| *m > 0) {
        Some(m) => usize::try_from(m).unwrap_or(usize::MAX).min(all),
        None => all,
    }
}

/// The forwarder's hop with the scenario's `maxFails` and `failTimeout`.
fn overridden(hop: &Hop, sc: &Scenario) -> Result<Hop, ApiError> {
    let mut hop = hop.clone();
    if let Some(m) = sc.max_fails {
        hop.max_fails = m;
    }
    if let Some(v) = &sc.fail_timeout {
        let ns = match v.text() {
            Some(text) => parse_duration(text).ok(),
            None => v.number().and_then(serde_json::Number::as_i64),
        };
        hop.fail_timeout_ns = ns.map(i128::from).ok_or_else(|| {
            ApiError::new(
                "IN001",
                format!(
                    "failTimeout {} is neither a Go duration nor nanoseconds",
                    crate::redact::describe(&v.given_value())
                ),
                "/failTimeout",
            )
        })?;
    }
    Ok(hop)
}

/// The scenario's `deadTargets` as flags by position in `forwarder.nodes`:
/// a string is a target's address as written there, a number its 1-based
/// position.
pub(in crate::simulate) fn dead_targets(
    hop: &Hop,
    list: &[NumberOrText],
) -> Result<Vec<bool>, ApiError> {
    let mut dead = vec![false; hop.nodes.len()];
    for (i, v) in list.iter().enumerate() {
        let at = match (v.text(), v.number()) {
            (Some(addr), _) => hop.nodes.iter().position(|n| n.addr == addr),
            (_, Some(n)) => n
                .as_u64()
                .and_then(|k| usize::try_from(k).ok())
                .filter(|k| (1..=hop.nodes.len()).contains(k))
                .map(|k| k - 1),
            _ => None,
        };
        let slot = at.and_then(|k| dead.get_mut(k)).ok_or_else(|| {
            ApiError::new(
                "IN001",
                format!(
                    "dead target {} is neither an address of the forward's targets nor a position from 1 to {}",
                    crate::redact::describe(&v.given_value()),
                    hop.nodes.len()
                ),
                format!("/deadTargets/{i}"),
            )
        })?;
        *slot = true;
    }
    Ok(dead)
}

impl Entry {
    pub fn entry_agent<'w>(&self, world: &'w World) -> Result<&'w Agent, ApiError> {
        world
            .agents
            .get(self.agent)
            .ok_or_else(|| ApiError::new("NO_ENTRY", "internal: entry out of range", ""))
    }

    /// The trace's note on where requests enter.
    pub fn note(&self, world: &World) -> String {
        let label = world
            .agents
            .get(self.agent)
            .map_or("", |a| a.label.as_str());
        let route = match (&self.chain, &self.chain_name) {
            (Some(_), Some(c)) => format!("over chain {c} with retries {}", self.retries),
            (None, Some(c)) => format!(
                "naming chain {c}, which the node does not run: it dials the targets itself"
            ),
            _ => owned("without a chain: it dials the targets itself"),
        };
        format!(
            "requests enter at forward service {} on {label}, {route}; its handler tries up to {} of {} target(s)",
            self.service,
            self.tries,
            self.hop.nodes.len()
        )
    }

    /// The trace's `forward`.
    pub fn describe(&self, world: &World) -> TraceForward {
        let (_, timeout) = fail_limits(&self.hop, &Default::default());
        TraceForward {
            service: self.service.clone(),
            forward_id: self.forward_id,
            name: self.forward_id.and_then(|id| {
                world
                    .forward_names
                    .iter()
                    .find(|(f, _)| *f == id)
                    .map(|(_, n)| n.clone())
            }),
            node_id: world.agents.get(self.agent).and_then(|a| a.node_id),
            chain: self.chain_name.clone(),
            targets: self.hop.nodes.iter().map(|n| n.addr.clone()).collect(),
            strategy: self.hop.strategy.clone(),
            max_fails: self.hop.max_fails.max(1),
            fail_timeout_ms: whole_seconds(timeout.saturating_mul(1000)),
            tries: self.tries,
            retries: self.retries,
        }
    }
}

/// What one request did in the target loop.
struct Walk {
    outcome: Outcome,
    target: Option<String>,
    tries: Vec<TargetTry>,
    skipped: Vec<SkippedTarget>,
}

impl Simulation<'_> {
    /// Request `index` entering at the forward service.
    pub(in crate::simulate) fn forward_request(
        &mut self,
        f: &Entry,
        index: u32,
        client_ip: &str,
    ) -> RequestTrace {
        let walk = if self.is_dead_agent(f.agent) {
            Walk {
                outcome: Outcome::fail(
                    "the entry node is dead: the request never reaches the forward service",
                ),
                target: None,
                tries: Vec::new(),
                skipped: Vec::new(),
            }
        } else {
            self.target_loop(f, client_ip)
        };
        let mut trace = self.request_trace(index, walk.outcome);
        trace.target = walk.target;
        trace.target_tries = Some(walk.tries);
        trace.skipped_healthy = Some(walk.skipped);
        trace
    }

    /// The handler's loop: up to `tries` targets, each chosen among those
    /// not tried yet; the first dial that works carries the request.
    fn target_loop(&mut self, f: &Entry, client_ip: &str) -> Walk {
        let mut walk = Walk {
            outcome: Outcome::fail(""),
            target: None,
            tries: Vec::new(),
            skipped: Vec::new(),
        };
        let mut tried: Vec<String> = Vec::new();
        let mut last: Option<String> = None;
        for round in 0..f.tries {
            let sel = self.select_among(&f.hop, client_ip, &tried);
            self.skipped_healthy(&f.hop, &sel, &mut walk.skipped);
            let Some(ti) = sel.chosen else {
                walk.outcome = Outcome::fail(match &last {
                    Some(l) => format!("no target left to try ({}); last: {l}", sel.text),
                    None => format!("no target to try: {}", sel.text),
                });
                return walk;
            };
            let addr = f
                .hop
                .nodes
                .get(ti)
                .map_or_else(String::new, |n| n.addr.clone());
            tried.push(addr.clone());
            let (done, out) = self.try_target(f, ti, round, sel, client_ip);
            let (ok, accepted) = (out.ok, out.accepted);
            walk.tries.push(done);
            if ok {
                walk.target = Some(addr.clone());
                walk.outcome = Outcome {
                    why: format!("target {addr} carried it: {}", out.why),
                    ..out
                };
                return walk;
            }
            if accepted || self.truncated {
                walk.outcome = out;
                return walk;
            }
            last = Some(out.why);
        }
        walk.outcome = Outcome::fail(format!(
            "all {} target tries failed; last: {}",
            walk.tries.len(),
            last.unwrap_or_default()
        ));
        walk
    }

    /// Live targets the fail filter left out of `sel`, each once a request.
    fn skipped_healthy(&self, hop: &Hop, sel: &Selection, out: &mut Vec<SkippedTarget>) {
        for &(i, until_ms) in &sel.filtered {
            let dead = self.dead_targets.get(i).copied().unwrap_or(false);
            let (Some(n), Some(c)) = (hop.nodes.get(i), sel.candidates.get(i)) else {
                continue;
            };
            if dead || out.iter().any(|s| s.target == n.addr) {
                continue;
            }
            out.push(SkippedTarget {
                target: n.addr.clone(),
                node: n.name.clone(),
                until_ms,
                reason: c.reason.clone(),
            });
        }
    }

    /// One try: the router dials target `ti` over the service's chain, and
    /// the handler marks the target as the dial went
    /// (`go-gost/x/handler/forward/local/handler.go:232-266`):
    /// a failed dial marks it whatever failed, a dial the router counted as
    /// a success resets it, and a transfer that then breaks marks it again.
    fn try_target(
        &mut self,
        f: &Entry,
        ti: usize,
        round: usize,
        sel: Selection,
        client_ip: &str,
    ) -> (TargetTry, Outcome) {
        let node = f.hop.nodes.get(ti).cloned().unwrap_or_default();
        self.destination = node.addr.clone();
        self.dest_dead = self.dead_targets.get(ti).copied().unwrap_or(false);
        let first_seq = self.attempts.len();
        let out = self.enter(f.agent, f.chain, f.retries, client_ip);
        let dead = std::mem::replace(&mut self.dest_dead, false);
        if out.accepted {
            self.reset_mark(node.serial);
        }
        let marked = !out.ok;
        let failures = if marked { self.mark(node.serial) } else { 0 };
        let marker = self.markers.get(node.serial).copied().unwrap_or_default();
        let (_, timeout) = fail_limits(&f.hop, &node);
        let reason = if out.ok {
            owned("the router's dial worked (mark reset); the request went through")
        } else if out.accepted {
            format!("the router's dial worked (mark reset), but the request breaks further on; the transfer fails, the handler marks the target (count {failures}) and tries no other: {}", out.why)
        } else {
            format!(
                "the router's dial failed; the handler marks the target (count {failures}): {}",
                out.why
            )
        };
        let done = TargetTry {
            round,
            rounds: f.tries,
            target: node.addr.clone(),
            node: node.name.clone(),
            dead,
            selection: sel.text,
            candidates: sel.candidates,
            first_seq,
            dials: self.attempts.len() - first_seq,
            ok: out.accepted,
            carried: out.ok,
            marked,
            failures,
            marked_until_ms: marked.then(|| marker.until_ms(timeout)),
            reason,
        };
        (done, out)
    }
}

/// A note when the scenario overrides a forward's settings and the
/// document has none (naming a forward or dead targets is an error, [`pick`]).
pub(in crate::simulate) fn unused_overrides(sc: &Scenario, notes: &mut Vec<String>) {
    if sc.max_fails.is_some() || sc.fail_timeout.is_some() || sc.retries.is_some() {
        note(
            notes,
            format_args!(
                "maxFails, failTimeout and retries act on a forward; this document deploys none"
            ),
        );
    }
}
