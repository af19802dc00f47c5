//! The dial-by-dial engine: routers, hop selection, marks and time.

use super::util::{crc32_ieee, note, owned, Prng};
use super::world::{filed_under, Agent, Chain, ChainNode, Hop, World, DEFAULT_FAIL_TIMEOUT_NS};
use super::{
    Attempt, Candidate, NumberOrText, RequestTrace, Scenario, Summary, Trace, MAX_ATTEMPTS,
    MAX_REQUESTS, MAX_ROUNDS,
};
use crate::error::ApiError;
use crate::go::net::normalize_host;
use crate::gost::host_and_port;
use std::collections::BTreeSet;
use std::fmt::Write;

mod forward;

/// GOST's fail marker: a count and the Unix second of the last failure.
#[derive(Debug, Clone, Copy, Default)]
struct Marker {
    count: i64,
    time_sec: i64,
}

impl Marker {
    /// When the fail filter lets the node back in (ms, rounded down):
    /// `timeout` after the marked second.
    fn until_ms(&self, timeout_ns: i128) -> i64 {
        let timeout_ms = whole_seconds(timeout_ns.saturating_mul(1000));
        self.time_sec
            .saturating_mul(1000)
            .saturating_add(timeout_ms)
    }
}

/// Where a request left the tunnel.
#[derive(Debug, Clone)]
enum Egress {
    Agent(usize),
    External(String),
}

#[derive(Debug, Clone)]
struct Outcome {
    ok: bool,
    /// The node's router ended on a success (it answered the relay request
    /// with OK), even when the request fails later: upstream routers stop.
    accepted: bool,
    egress: Option<Egress>,
    direct_from: Option<usize>,
    why: String,
}

impl Outcome {
    fn fail(why: impl Into<String>) -> Self {
        Outcome {
            ok: false,
            accepted: false,
            egress: None,
            direct_from: None,
            why: why.into(),
        }
    }
    /// The request reaches the destination through `egress`; `direct_from`
    /// is the node that dials it itself because its hop had no candidate.
    fn reached(egress: Egress, direct_from: Option<usize>, why: String) -> Self {
        Outcome {
            ok: true,
            accepted: true,
            egress: Some(egress),
            direct_from,
            why,
        }
    }
    /// The router at this node counted a success, yet the request fails later.
    fn late_fail(why: impl Into<String>) -> Self {
        Outcome {
            ok: false,
            accepted: true,
            egress: None,
            direct_from: None,
            why: why.into(),
        }
    }
}

struct Selection {
    chosen: Option<usize>,
    text: String,
    candidates: Vec<Candidate>,
    /// Nodes the fail filter dropped, with the time (ms) they come back.
    filtered: Vec<(usize, i64)>,
}

/// One try of a router: its agent, the chain it dials over, which try it
/// is of how many, and how deep the router sits in the request.
#[derive(Clone, Copy)]
struct RouterTry<'w> {
    ai: usize,
    agent: &'w Agent,
    chain: &'w Chain,
    round: i64,
    rounds: i64,
    depth: usize,
}

/// The route of one try: the selected node of each hop as (hop, node,
/// selection), up to the first hop with no candidate left (`stuck`).
struct Route {
    dials: Vec<(usize, usize, Selection)>,
    stuck: Option<(usize, Selection)>,
}

/// How one try of a router ended.
enum TryEnd {
    /// The router stops with this outcome.
    Done(Outcome),
    /// The try failed (why); the router tries again while it has tries.
    Failed(String),
    /// The route ended without a dial to judge: the router stops trying.
    Stopped,
}

struct Simulation<'w> {
    world: &'w World,
    /// The dead nodes' ids; only ids of the world's agents (the only ones
    /// asked about).
    dead_ids: BTreeSet<i64>,
    /// Dead `host:port` addresses: the hosts, and `(port, host index)`
    /// sorted by port, an index read by the world's [`filed_under`].
    dead_hosts: Vec<String>,
    dead_ports: Vec<(i64, usize)>,
    /// By chain node and by hop `serial`: plain vectors, no map code.
    markers: Vec<Marker>,
    rr: Vec<u64>,
    prng: Prng,
    now_ms: i64,
    attempts: Vec<Attempt>,
    budget_used: usize,
    truncated: bool,
    /// What the trace's text takes so far, counted as attempts are recorded,
    /// against the scenario's `maxOutputBytes`.
    output_bytes: usize,
    max_output_bytes: usize,
    destination: String,
    /// Agents on the path of the current dial, to stop routing loops.
    path: Vec<usize>,
    /// The forward's targets the scenario kills, by position in its
    /// `forwarder.nodes`; `dest_dead` while the handler tries a dead one.
    dead_targets: Vec<bool>,
    dest_dead: bool,
}

const MAX_DEPTH: usize = 24;

pub fn run(world: &World, sc: &Scenario) -> Result<Trace, ApiError> {
    let mut notes = world.notes.clone();
    let forward = forward::pick(world, sc)?;
    let (entry, entry_agent) = match &forward {
        Some(f) => (f.agent, f.entry_agent(world)?),
        None => pick_entry(world, sc)?,
    };
    let requests = sc.requests.unwrap_or(3).min(MAX_REQUESTS);
    if sc.requests.map(|r| r > MAX_REQUESTS).unwrap_or(false) {
        note(
            &mut notes,
            format_args!("requests capped at {MAX_REQUESTS}"),
        );
    }
    let start = sc.start_ms.unwrap_or(0);
    let gap = sc.gap_ms.unwrap_or(1000);
    let client_ip = sc.client_ip.clone().unwrap_or_else(|| owned("192.0.2.10"));
    let mut sim = Simulation::new(world, sc);
    sim.read_dead(&sc.dead, &mut notes)?;
    let (chain, retries, svc_note) = match &forward {
        Some(f) => {
            sim.dead_targets = forward::dead_targets(&f.hop, &sc.dead_targets)?;
            (f.chain, f.retries, Some(f.note(world)))
        }
        None => {
            forward::unused_overrides(sc, &mut notes);
            entry_router(entry_agent, world.single_node, sc)
        }
    };
    if let Some(n) = svc_note {
        notes.push(n);
    }
    let mut out = Vec::new();
    for i in 0..requests {
        sim.now_ms = start.saturating_add(gap.saturating_mul(i64::from(i)));
        if sc.revive_at_ms.is_some_and(|t| sim.now_ms >= t) {
            sim.revive();
        }
        sim.attempts.clear();
        let trace = match &forward {
            Some(f) => sim.forward_request(f, i + 1, &client_ip),
            None => {
                let outcome = sim.enter(entry, chain, retries, &client_ip);
                sim.request_trace(i + 1, outcome)
            }
        };
        out.push(trace);
        if sim.output_bytes > sim.max_output_bytes {
            return Err(crate::limits::LimitError::new(
                "maxOutputBytes",
                sim.output_bytes,
                sim.max_output_bytes,
                String::new(),
            )
            .to_api_error());
        }
        if sim.truncated {
            note(
                &mut notes,
                format_args!(
                    "attempt budget ({MAX_ATTEMPTS}) exhausted at request {}; stopped",
                    i + 1
                ),
            );
            break;
        }
    }
    Ok(Trace {
        entry_node_id: entry_agent.node_id,
        summary: summarize(&out),
        requests: out,
        notes,
        truncated: sim.truncated,
        forward: forward.map(|f| f.describe(world)),
    })
}

/// The trace's totals.
fn summarize(out: &[RequestTrace]) -> Summary {
    let mut summary = Summary {
        requests: out.len(),
        ..Summary::default()
    };
    for r in out {
        summary.ok += usize::from(r.ok);
        summary.failed += usize::from(!r.ok);
        summary.direct += usize::from(r.direct);
        summary.attempts += r.attempts.len();
        summary.failed_attempts += r.attempts.iter().filter(|a| !a.ok).count();
    }
    summary
}

/// What a `dead` entry names: a `host:port` (as written), or a node by id
/// or name.
enum DeadName<'d> {
    Address(&'d str, String, i64),
    Node(i64),
}

/// Reads `dead` entry `d`; `Err` says what is wrong with it.
fn dead_name<'d>(world: &World, d: &'d NumberOrText) -> Result<DeadName<'d>, &'static str> {
    const NEITHER: &str = "is neither a node id nor host:port";
    let NumberOrText::Text(text) = d else {
        return d.id().map(DeadName::Node).ok_or(NEITHER);
    };
    let text = text.trim();
    if text.contains(':') {
        return host_and_port(text)
            .map(|(h, p)| DeadName::Address(text, h, p))
            .ok_or("is not host:port");
    }
    d.id()
        .or_else(|| {
            let named = world
                .agents
                .iter()
                .find(|a| a.name.as_deref() == Some(text));
            named.and_then(|a| a.node_id)
        })
        .map(DeadName::Node)
        .ok_or(NEITHER)
}

/// Does any chain of the world dial `host:port`?
fn dialed(world: &World, host: &str, port: i64) -> bool {
    world
        .agents
        .iter()
        .flat_map(|a| &a.chains)
        .flat_map(|c| &c.hops)
        .flat_map(|h| &h.nodes)
        .any(|n| n.port == Some(port) && n.host == host)
}

impl<'w> Simulation<'w> {
    fn new(world: &'w World, sc: &Scenario) -> Self {
        Simulation {
            world,
            dead_ids: BTreeSet::new(),
            dead_hosts: Vec::new(),
            dead_ports: Vec::new(),
            dead_targets: Vec::new(),
            dest_dead: false,
            markers: vec![Marker::default(); world.node_count],
            rr: vec![0; world.hop_count],
            prng: Prng::new(sc.seed.unwrap_or(1)),
            now_ms: sc.start_ms.unwrap_or(0),
            attempts: Vec::new(),
            budget_used: 0,
            truncated: false,
            output_bytes: 0,
            max_output_bytes: sc.limits.max_output_bytes,
            destination: sc
                .destination
                .clone()
                .unwrap_or_else(|| owned("example.com:443")),
            path: Vec::new(),
        }
    }

    /// Takes in the scenario's `dead` list.
    fn read_dead(
        &mut self,
        dead: &[NumberOrText],
        notes: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        let world = self.world;
        for (i, d) in dead.iter().enumerate() {
            match dead_name(world, d) {
                Ok(DeadName::Address(text, host, port)) => {
                    if !dialed(world, &host, port) {
                        note(
                            notes,
                            format_args!("dead address {text} is not dialed by any chain"),
                        );
                    }
                    self.dead_ports.push((port, self.dead_hosts.len()));
                    self.dead_hosts.push(host);
                }
                Ok(DeadName::Node(id)) => {
                    if world.agents.iter().any(|a| a.node_id == Some(id)) {
                        self.dead_ids.insert(id);
                    } else {
                        note(
                            notes,
                            format_args!("dead node {id} is not part of this document"),
                        );
                    }
                }
                Err(problem) => {
                    return Err(ApiError::new(
                        "IN001",
                        format!(
                            "dead entry {} {problem}",
                            crate::redact::describe(&d.given_value())
                        ),
                        format!("/dead/{i}"),
                    ))
                }
            }
        }
        crate::sorting::sort_by_key(&mut self.dead_ports, |&(port, _)| port);
        Ok(())
    }

    /// `reviveAtMs` has come: nothing is dead any more (marks stay).
    fn revive(&mut self) {
        self.dead_ids.clear();
        self.dead_hosts.clear();
        self.dead_ports.clear();
        self.dead_targets.fill(false);
    }

    /// One request entering at agent `entry`, whose router dials over `chain`.
    fn enter(
        &mut self,
        entry: usize,
        chain: Option<usize>,
        retries: i64,
        client_ip: &str,
    ) -> Outcome {
        if self.is_dead_agent(entry) {
            return Outcome::fail("the entry node is dead: the request never enters the tunnel");
        }
        self.path.clear();
        self.path.push(entry);
        self.router_dial(entry, chain, retries, owned(client_ip), 0)
    }

    /// The trace of request `index` (1-based): its outcome and the dials
    /// recorded since the request started.
    fn request_trace(&mut self, index: u32, outcome: Outcome) -> RequestTrace {
        let world = self.world;
        let node_id = |a: usize| world.agents.get(a).and_then(|a| a.node_id);
        let (exit_node_id, exit_addr) =
            match (&outcome.egress, outcome.ok && outcome.direct_from.is_none()) {
                (Some(Egress::Agent(a)), true) => (node_id(*a), None),
                (Some(Egress::External(addr)), true) => (None, Some(addr.clone())),
                _ => (None, None),
            };
        let direct = outcome.ok && outcome.direct_from.is_some();
        RequestTrace {
            index,
            time_ms: self.now_ms,
            ok: outcome.ok,
            exit_node_id,
            exit_addr,
            direct,
            direct_from_node_id: outcome.direct_from.filter(|_| direct).and_then(node_id),
            attempts: std::mem::take(&mut self.attempts),
            outcome: outcome.why,
            target: None,
            target_tries: None,
            skipped_healthy: None,
        }
    }
}

/// The fewest bytes an attempt's text takes: its keys and punctuation (a
/// lower bound read off a trace's text), its strings, and each candidate's.
fn attempt_text_floor(node: &ChainNode, sel: &Selection, reason: &str) -> usize {
    const ATTEMPT_KEYS: usize = 200;
    const CANDIDATE_KEYS: usize = 50;
    let strings = node.addr.len() + node.name.len() + sel.text.len() + reason.len();
    let candidates: usize = sel
        .candidates
        .iter()
        .map(|c| CANDIDATE_KEYS + c.node.len() + c.addr.len() + c.reason.len())
        .sum();
    ATTEMPT_KEYS + strings + candidates
}

/// The reason of the route's last dial once the node behind it served the
/// request: how that node answered, and its why.
fn answer_reason(nested: &Outcome, node: &ChainNode) -> String {
    let (head, why, tail) = if nested.ok {
        ("handshake ok (count reset); carried the request", "", "")
    } else if nested.accepted {
        // The next node's router reported success, so it answered OK; the
        // request breaks later, further down, where nobody retries it.
        (
            "accepted (count reset) and answered OK, but the request fails further on: ",
            nested.why.as_str(),
            "",
        )
    } else if node.waits_reply {
        (
            "accepted (count reset), but answered with an error: ",
            nested.why.as_str(),
            "; the attempt fails without marking the node",
        )
    } else {
        ("accepted (count reset); the connector does not wait for the relay reply (no nodelay), so the router stops here and the request fails later: ", nested.why.as_str(), "")
    };
    format!("{head}{why}{tail}")
}

/// The entry agent and its position in `world.agents`.
fn pick_entry<'w>(world: &'w World, sc: &Scenario) -> Result<(usize, &'w Agent), ApiError> {
    if world.agents.is_empty() {
        return Err(ApiError::new(
            "NO_ENTRY",
            "the document deploys nothing",
            "",
        ));
    }
    let agents = || world.agents.iter().enumerate();
    if let Some(e) = &sc.entry {
        let id = e.id().ok_or_else(|| not_a_node_id(e))?;
        return agents()
            .find(|(_, a)| a.node_id == Some(id))
            .ok_or_else(|| {
                ApiError::new(
                    "NO_ENTRY",
                    format!("entry node {id} is not part of this document"),
                    "/entry",
                )
            });
    }
    let entry = |a: &Agent| a.role.as_deref() == Some("entry");
    agents()
        .find(|(_, a)| entry(a) && !a.chains.is_empty())
        .or_else(|| agents().find(|(_, a)| entry(a)))
        .ok_or_else(|| ApiError::new("NO_ENTRY", "the document has no entry node", ""))
}

/// The error of a scenario's `entry` that names no node id.
pub(super) fn not_a_node_id(entry: &NumberOrText) -> ApiError {
    let given = entry.given_value();
    let message = format!("entry {} is not a node id", crate::json::Text(&given));
    ApiError::new("IN001", message, "/entry")
}

/// The router requests start with: chain index and retries.
fn entry_router(
    agent: &Agent,
    single: bool,
    sc: &Scenario,
) -> (Option<usize>, i64, Option<String>) {
    if single {
        if let Some(s) = agent.services.iter().find(|s| s.chain.is_some()) {
            let name = s.chain.clone().unwrap_or_default();
            let ci = agent.chain_index(&name);
            let retries = sc.entry_retries.unwrap_or(s.retries);
            let note = match ci {
                Some(_) => format!("requests enter at service {} (chain {name}, retries {retries})", s.name),
                None => format!("service {} names chain {name}, which this config does not have: it dials directly", s.name),
            };
            return (ci, retries, Some(note));
        }
        let retries = sc.entry_retries.unwrap_or(0);
        return (
            if agent.chains.is_empty() {
                None
            } else {
                Some(0)
            },
            retries,
            Some(owned(
                "no service uses a chain; requests start on the first chain",
            )),
        );
    }
    let retries = sc.entry_retries.unwrap_or(0);
    (
        if agent.chains.is_empty() {
            None
        } else {
            Some(0)
        },
        retries,
        None,
    )
}

/// `ns / 1e9`, truncated toward zero, as i64 (saturating). Whole seconds
/// fit an i64 (a mark's time and the clock are i64 ms or s, a timeout i64 ns
/// or s), so printing them keeps i128's formatter out of the build. The
/// division is long division of 32-bit limbs in u64, which keeps i128's
/// division routine out too.
fn whole_seconds(ns: i128) -> i64 {
    const BILLION: u64 = 1_000_000_000;
    let magnitude = ns.unsigned_abs();
    let (high, low) = ((magnitude >> 64) as u64, magnitude as u64);
    let mut rest = 0u64;
    let mut limb = |part: u64| {
        // `rest < 1e9 < 2^30`, so this fits a u64.
        let part = (rest << 32) | part;
        rest = part % BILLION;
        part / BILLION
    };
    let (q3, q2, q1, q0) = (
        limb(high >> 32),
        limb(high & 0xFFFF_FFFF),
        limb(low >> 32),
        limb(low & 0xFFFF_FFFF),
    );
    let whole = match (q3 | q2, i64::try_from((q1 << 32) | q0)) {
        (0, Ok(w)) => w,
        _ => i64::MAX,
    };
    if ns < 0 {
        -whole
    } else {
        whole
    }
}

fn name_of(world: &World, ai: Option<usize>) -> &str {
    ai.and_then(|a| world.agents.get(a))
        .map_or("outside node", |a| a.label.as_str())
}

impl<'w> Simulation<'w> {
    fn node_id(&self, ai: Option<usize>) -> Option<i64> {
        ai.and_then(|a| self.world.agents.get(a))
            .and_then(|a| a.node_id)
    }

    fn now_ns(&self) -> i128 {
        i128::from(self.now_ms) * 1_000_000
    }

    /// GOST's `Marker.Mark` of a chain node or target: one more failure,
    /// at this second (GOST keeps Unix seconds). Returns the count.
    fn mark(&mut self, serial: usize) -> i64 {
        let now_sec = self.now_ms.div_euclid(1000);
        // Every chain node and target has a marker (the world counts them).
        self.markers.get_mut(serial).map_or(1, |m| {
            m.count += 1;
            m.time_sec = now_sec;
            m.count
        })
    }

    /// GOST's `Marker.Reset`: a success clears the count.
    fn reset_mark(&mut self, serial: usize) {
        if let Some(m) = self.markers.get_mut(serial) {
            m.count = 0;
        }
    }

    /// Is agent `ai` one of the scenario's dead nodes?
    fn is_dead_agent(&self, ai: usize) -> bool {
        self.world
            .agents
            .get(ai)
            .and_then(|a| a.node_id)
            .is_some_and(|id| self.dead_ids.contains(&id))
    }

    /// Agent `ai` dials the destination itself (`why` says how the request
    /// got there): reached, unless the destination is a dead target.
    fn reach(
        &self,
        who: Option<usize>,
        egress: Egress,
        direct_from: Option<usize>,
        why: String,
    ) -> Outcome {
        if self.dest_dead {
            return Outcome::fail(format!(
                "{} cannot reach the target {}: it is dead",
                name_of(self.world, who),
                self.destination
            ));
        }
        Outcome::reached(egress, direct_from, why)
    }

    /// Runs one router: `retries + 1` route builds at most.
    fn router_dial(
        &mut self,
        ai: usize,
        chain: Option<usize>,
        retries: i64,
        hash_src: String,
        depth: usize,
    ) -> Outcome {
        let world = self.world;
        let Some(agent) = world.agents.get(ai) else {
            return Outcome::fail("internal: agent out of range");
        };
        let Some(ci) = chain else {
            return self.reach(
                Some(ai),
                Egress::Agent(ai),
                None,
                format!("{} dials the destination", agent.label),
            );
        };
        let Some(ch) = agent.chains.get(ci) else {
            return Outcome::fail("internal: chain index out of range");
        };
        let rounds = retries.saturating_add(1).clamp(1, MAX_ROUNDS);
        let mut last_fail = String::new();
        for round in 0..rounds {
            if self.budget_used >= MAX_ATTEMPTS || self.output_bytes > self.max_output_bytes {
                self.truncated = true;
                return Outcome::fail("attempt budget exhausted");
            }
            let t = RouterTry {
                ai,
                agent,
                chain: ch,
                round,
                rounds,
                depth,
            };
            match self.try_route(t, &hash_src) {
                TryEnd::Done(outcome) => return outcome,
                TryEnd::Failed(why) => last_fail = why,
                TryEnd::Stopped => break,
            }
        }
        Outcome::fail(format!(
            "{}: all {} tries failed; last: {}",
            agent.label, rounds, last_fail
        ))
    }

    /// One try of a router: builds the route and dials along it, or dials
    /// the destination directly when the route is empty.
    fn try_route(&mut self, t: RouterTry<'_>, hash_src: &str) -> TryEnd {
        let route = self.build_route(t.chain, hash_src);
        if route.dials.is_empty() {
            // A direct dial that fails fails this try of the router.
            let out = self.dial_directly(t, route.stuck.as_ref());
            return if out.ok {
                TryEnd::Done(out)
            } else {
                TryEnd::Failed(out.why)
            };
        }
        self.walk_route(t, route)
    }

    /// Builds the route: one selected node per hop; stops at a hop with no candidate.
    fn build_route(&mut self, chain: &Chain, hash_src: &str) -> Route {
        let mut dials = Vec::new();
        for (hi, hop) in chain.hops.iter().enumerate() {
            let sel = self.select(hop, hash_src);
            match sel.chosen {
                Some(ni) => dials.push((hi, ni, sel)),
                None => {
                    return Route {
                        dials,
                        stuck: Some((hi, sel)),
                    }
                }
            }
        }
        Route { dials, stuck: None }
    }

    /// The route is empty (its first hop has no candidate left, or the chain
    /// no hops): the router's agent dials the destination itself.
    fn dial_directly(&self, t: RouterTry<'_>, stuck: Option<&(usize, Selection)>) -> Outcome {
        let (agent, ch) = (t.agent, t.chain);
        let why = match stuck {
            Some((hi, sel)) => format!(
                "{}: hop {} of chain {} has no candidate left ({}); the route is empty and {} dials the destination directly, bypassing the exits",
                agent.label,
                ch.hops.get(*hi).map(|h| h.name.as_str()).unwrap_or(""),
                ch.name,
                sel.text,
                agent.label
            ),
            None => format!("{}: chain {} has no hops; it dials the destination directly", agent.label, ch.name),
        };
        self.reach(Some(t.ai), Egress::Agent(t.ai), Some(t.ai), why)
    }

    /// Dials the route's nodes in turn, each from the agent behind the one
    /// before (the router's own agent dials the first); the last one serves
    /// the request.
    fn walk_route(&mut self, t: RouterTry<'_>, route: Route) -> TryEnd {
        let Route { dials, stuck } = route;
        let mut from: Option<usize> = Some(t.ai);
        let last = dials.len() - 1;
        for (k, (hi, ni, sel)) in dials.into_iter().enumerate() {
            let Some(hop) = t.chain.hops.get(hi) else {
                break;
            };
            let Some(node) = hop.nodes.get(ni) else {
                break;
            };
            let goes_on = k < last;
            if let Some(why_dead) = self.dial(t, hop, node, sel, from, goes_on) {
                return TryEnd::Failed(format!(
                    "{} could not reach {} ({})",
                    name_of(self.world, from),
                    node.addr,
                    why_dead
                ));
            }
            if goes_on {
                from = node.target;
                continue;
            }
            return self.hand_over(t, node, from, stuck.as_ref());
        }
        TryEnd::Stopped
    }

    /// One dial of a route: `node`, chosen by `sel`, dialed from `from`, and
    /// recorded as an attempt. `Some(why)` when the node refuses it.
    fn dial(
        &mut self,
        t: RouterTry<'_>,
        hop: &Hop,
        node: &ChainNode,
        sel: Selection,
        from: Option<usize>,
        goes_on: bool,
    ) -> Option<String> {
        self.budget_used += 1;
        let refused = self.refusal(node);
        let (failures, relays, reason) = self.dial_verdict(node, refused.as_deref(), goes_on);
        // One push per dial; the last dial of the route is completed by `hand_over`.
        self.output_bytes = self
            .output_bytes
            .saturating_add(attempt_text_floor(node, &sel, &reason));
        self.attempts.push(Attempt {
            seq: self.attempts.len(),
            depth: t.depth,
            from_node_id: self.node_id(from),
            to_node_id: self.node_id(node.target),
            addr: node.addr.clone(),
            node: node.name.clone(),
            chain: t.chain.name.clone(),
            hop: hop.name.clone(),
            round: t.round,
            rounds: t.rounds,
            ok: relays,
            alive: refused.is_none(),
            carried: relays,
            marked: refused.is_some(),
            failures,
            selection: sel.text,
            candidates: sel.candidates,
            reason,
        });
        refused
    }

    /// A dial's effect on the node's fail marker and what its attempt says:
    /// (failure count, relays on, reason). A refused dial marks the node
    /// failed; an accepted one resets its count and relays on when the
    /// route `goes_on` past it.
    fn dial_verdict(
        &mut self,
        node: &ChainNode,
        refused: Option<&str>,
        goes_on: bool,
    ) -> (i64, bool, String) {
        match refused {
            Some(why_dead) => {
                let count = self.mark(node.serial);
                let reason = format!("dial failed: {why_dead}; marked failed (count {count})");
                (count, false, reason)
            }
            None => {
                self.reset_mark(node.serial);
                let reason = if goes_on {
                    owned("handshake ok (count reset); relays to the next node of the route")
                } else {
                    String::new()
                };
                (0, goes_on, reason)
            }
        }
    }

    /// The route's last dial went through: the node behind it serves the
    /// request, and how it answers completes the attempt just recorded and
    /// ends the try.
    fn hand_over(
        &mut self,
        t: RouterTry<'_>,
        node: &ChainNode,
        from: Option<usize>,
        stuck: Option<&(usize, Selection)>,
    ) -> TryEnd {
        let idx = self.attempts.len() - 1;
        let nested = self.serve(node, from.unwrap_or(t.ai), t.depth + 1);
        let Some(slot) = self.attempts.get_mut(idx) else {
            return TryEnd::Done(nested);
        };
        slot.reason = answer_reason(&nested, node);
        if let Some((ehi, esel)) = stuck {
            let _ = write!(
                slot.reason,
                "; hop {} had no candidate left ({}), so the route ends here",
                t.chain
                    .hops
                    .get(*ehi)
                    .map(|h| h.name.as_str())
                    .unwrap_or(""),
                esel.text
            );
        }
        slot.ok = nested.ok || nested.accepted || !node.waits_reply;
        slot.carried = nested.ok;
        if nested.ok {
            return TryEnd::Done(nested);
        }
        if nested.accepted {
            return TryEnd::Done(Outcome::late_fail(nested.why));
        }
        if node.waits_reply {
            return TryEnd::Failed(nested.why);
        }
        TryEnd::Done(Outcome::late_fail(format!(
            "{} (no retry: connector without nodelay)",
            nested.why
        )))
    }

    /// What happens behind a chain node once the dial succeeded.
    fn serve(&mut self, node: &ChainNode, from: usize, depth: usize) -> Outcome {
        let world = self.world;
        let Some(t) = node.target else {
            return self.reach(
                None,
                Egress::External(node.addr.clone()),
                None,
                format!("{} carries it on (outside the document)", node.addr),
            );
        };
        let Some(agent) = world.agents.get(t) else {
            return Outcome::fail("internal: agent out of range");
        };
        let Some(svc) = node.port.and_then(|p| agent.service_on_port(p)) else {
            return Outcome::fail(format!("{} has no service on {}", agent.label, node.addr));
        };
        if depth > MAX_DEPTH {
            return Outcome::fail(format!(
                "{}: routing loop (more than {MAX_DEPTH} nested hops)",
                agent.label
            ));
        }
        let Some(chain_name) = svc.chain.clone() else {
            return self.reach(
                Some(t),
                Egress::Agent(t),
                None,
                format!("{} dials the destination", agent.label),
            );
        };
        let hash_src = if svc.hash_host {
            self.destination.clone()
        } else {
            world
                .agents
                .get(from)
                .and_then(|a| a.addresses.first().cloned())
                .unwrap_or_else(|| owned(name_of(world, Some(from))))
        };
        if self.path.contains(&t) {
            return Outcome::fail(format!(
                "{}: routing loop (the request comes back to it)",
                agent.label
            ));
        }
        match agent.chain_index(&chain_name) {
            Some(ci) => {
                self.path.push(t);
                let out = self.router_dial(t, Some(ci), svc.retries, hash_src, depth);
                self.path.pop();
                out
            }
            None => self.reach(
                Some(t),
                Egress::Agent(t),
                Some(t),
                format!("{}: service {} names chain {chain_name}, which the node does not have; it dials the destination directly", agent.label, svc.name),
            ),
        }
    }

    /// `Some(reason)` when dialing this chain node fails.
    fn refusal(&self, node: &ChainNode) -> Option<String> {
        if let Some(p) = node.port {
            let on_port = filed_under(&self.dead_ports, p, usize::MAX);
            // Normalised only when a dead node has this port (a dial's usual case has none).
            let dead = !on_port.is_empty() && {
                let host = normalize_host(&node.host);
                on_port
                    .into_iter()
                    .any(|h| self.dead_hosts.get(h).is_some_and(|d| *d == host))
            };
            if dead {
                return Some(format!("{} is dead", node.addr));
            }
        } else {
            return Some(format!("{:?} is not host:port", node.addr));
        }
        if let Some(t) = node.target {
            let agent = self.world.agents.get(t)?;
            if agent
                .node_id
                .map(|id| self.dead_ids.contains(&id))
                .unwrap_or(false)
            {
                return Some(format!("{} is dead", agent.label));
            }
            if let Some(bad) = agent
                .services
                .iter()
                .find(|s| s.port.is_none() && s.nominal_port == node.port)
            {
                return Some(format!(
                    "service {} of {} cannot listen on {:?} (not a valid listen address)",
                    bad.name, agent.label, bad.addr
                ));
            }
            if node.port.and_then(|p| agent.service_on_port(p)).is_none() {
                return Some(format!(
                    "nothing listens on port {} of {}",
                    node.port.unwrap_or(0),
                    agent.label
                ));
            }
        }
        None
    }

    /// One hop selection: fail filter, backup filter, strategy.
    fn select(&mut self, hop: &Hop, hash_src: &str) -> Selection {
        self.select_among(hop, hash_src, &[])
    }

    /// [`Self::select`] without the nodes whose address or name is in
    /// `tried`: a forward handler's later tries leave out what it tried,
    /// before the selector's filters run (`go-gost/x/hop/hop.go:145-165`).
    fn select_among(&mut self, hop: &Hop, hash_src: &str, tried: &[String]) -> Selection {
        let mut candidates: Vec<Candidate> = hop
            .nodes
            .iter()
            .map(|nd| Candidate {
                node: nd.name.clone(),
                addr: nd.addr.clone(),
                to_node_id: self.node_id(nd.target),
                kept: true,
                reason: String::new(),
            })
            .collect();
        let mut eligible = Vec::with_capacity(hop.nodes.len());
        for (i, (nd, cand)) in hop.nodes.iter().zip(candidates.iter_mut()).enumerate() {
            if tried.contains(&nd.addr) || tried.contains(&nd.name) {
                cand.kept = false;
                cand.reason = owned("already tried by this request");
            } else {
                eligible.push(i);
            }
        }
        let left = eligible.len();
        let alone = if tried.is_empty() {
            "only node of the hop: never filtered"
        } else {
            "only one not tried yet: never filtered"
        };
        let mut filtered = Vec::new();
        let kept = self.fail_filter(hop, eligible, &mut candidates, &mut filtered, alone);
        let kept = backup_filter(hop, kept, &mut candidates);
        if kept.is_empty() {
            let text = if left == 0 && !tried.is_empty() {
                owned("every node was tried already")
            } else {
                format!("all {left} nodes filtered out by the fail filter")
            };
            return Selection {
                chosen: None,
                text,
                candidates,
                filtered,
            };
        }
        let (pick, how) = self.strategy(hop, &kept, hash_src);
        let chosen = kept.get(pick).copied();
        if let Some(cand) = chosen.and_then(|c| candidates.get_mut(c)) {
            cand.reason = if cand.reason.is_empty() {
                owned("chosen")
            } else {
                format!("{}; chosen", cand.reason)
            };
        }
        Selection {
            chosen,
            text: how,
            candidates,
            filtered,
        }
    }

    /// The fail filter over `eligible` (`go-gost/x/selector/filter.go`):
    /// nothing is filtered when at most one is left (`alone` says so);
    /// otherwise a node with `failures >= maxFails` marked within
    /// `failTimeout` is dropped, and recorded in `filtered` with the time
    /// (ms) it comes back.
    fn fail_filter(
        &self,
        hop: &Hop,
        eligible: Vec<usize>,
        candidates: &mut [Candidate],
        filtered: &mut Vec<(usize, i64)>,
        alone: &str,
    ) -> Vec<usize> {
        if eligible.len() <= 1 {
            if let Some(only) = eligible.first().and_then(|&i| candidates.get_mut(i)) {
                only.reason = owned(alone);
            }
            return eligible;
        }
        let now_ns = self.now_ns();
        let mut next = Vec::new();
        for i in eligible {
            let (Some(nd), Some(cand)) = (hop.nodes.get(i), candidates.get_mut(i)) else {
                continue;
            };
            let (max_fails, timeout) = fail_limits(hop, nd);
            let m = self.markers.get(nd.serial).copied().unwrap_or_default();
            let since = now_ns - i128::from(m.time_sec) * 1_000_000_000;
            if m.count < max_fails {
                next.push(i);
                continue;
            }
            let (since_s, timeout_s) = (whole_seconds(since), whole_seconds(timeout));
            if since >= timeout {
                next.push(i);
                cand.reason =
                    format!("failure mark expired ({since_s} s >= failTimeout {timeout_s} s)");
            } else {
                cand.kept = false;
                cand.reason = format!(
                    "filtered: {} failure(s) >= maxFails {max_fails}, marked {since_s} s ago < failTimeout {timeout_s} s",
                    m.count
                );
                filtered.push((i, m.until_ms(timeout)));
            }
        }
        next
    }

    /// The strategy's pick among `kept` (non-empty): its position there,
    /// and how it was made.
    fn strategy(&mut self, hop: &Hop, kept: &[usize], hash_src: &str) -> (usize, String) {
        match hop.strategy.as_str() {
            "fifo" | "ha" => (0, format!("{}: first of {} left", hop.strategy, kept.len())),
            "random" | "rand" => {
                let weights: Vec<i64> = kept
                    .iter()
                    // `kept` only holds node indices; the fallback weight is never used.
                    .map(|&i| {
                        hop.nodes
                            .get(i)
                            .map_or(1, |nd| nd.weight.clamp(1, 1_000_000_000))
                    })
                    .collect();
                let sum: i64 = weights.iter().sum();
                let mut w = self.prng.below(sum.max(1) as u64) as i64 + 1;
                let mut pick = kept.len() - 1;
                for (k, wt) in weights.iter().enumerate() {
                    w -= wt;
                    if w <= 0 {
                        pick = k;
                        break;
                    }
                }
                (
                    pick,
                    format!(
                        "{}: weighted random among {} left (seeded)",
                        hop.strategy,
                        kept.len()
                    ),
                )
            }
            "hash" => self.hash_pick(kept.len(), hash_src),
            other => {
                // Every hop has a counter (the world counts them).
                let c = self.rr.get_mut(hop.serial).map_or(0, |counter| {
                    let c = *counter;
                    *counter = c.wrapping_add(1);
                    c
                });
                let p = (c % kept.len() as u64) as usize;
                let label = if other == "round" || other == "rr" {
                    owned(other)
                } else {
                    format!("unknown strategy {other:?} = round robin")
                };
                (p, format!("{label}: counter {c} mod {} left", kept.len()))
            }
        }
    }

    /// The hash strategy's pick among `left` nodes.
    fn hash_pick(&mut self, left: usize, hash_src: &str) -> (usize, String) {
        if hash_src.is_empty() {
            let p = self.prng.below(left as u64) as usize;
            return (
                p,
                format!("hash: no source, random among {left} left (seeded)"),
            );
        }
        let h = crc32_ieee(hash_src.as_bytes());
        let p = (u64::from(h) % left as u64) as usize;
        (p, format!("hash: crc32({hash_src}) = {h}, mod {left} left"))
    }
}

/// A node's fail filter settings: its metadata over the hop's selector,
/// `maxFails <= 0` counting as 1 and `failTimeout <= 0` as 10 s
/// (`go-gost/x/selector/filter.go`).
fn fail_limits(hop: &Hop, nd: &ChainNode) -> (i64, i128) {
    let mut max_fails = nd.md_max_fails.unwrap_or(hop.max_fails);
    if max_fails <= 0 {
        max_fails = 1;
    }
    let mut timeout = nd.md_fail_timeout_ns.unwrap_or(hop.fail_timeout_ns);
    if timeout <= 0 {
        timeout = DEFAULT_FAIL_TIMEOUT_NS;
    }
    (max_fails, timeout)
}

/// The backup filter: with more than one left, backup nodes go while a
/// non-backup one remains.
fn backup_filter(hop: &Hop, kept: Vec<usize>, candidates: &mut [Candidate]) -> Vec<usize> {
    if kept.len() <= 1 {
        return kept;
    }
    let is_backup = |i: usize| hop.nodes.get(i).is_some_and(|nd| nd.backup);
    let normal: Vec<usize> = kept.iter().copied().filter(|&i| !is_backup(i)).collect();
    if normal.is_empty() || normal.len() == kept.len() {
        return kept;
    }
    for &i in kept.iter().filter(|&&i| is_backup(i)) {
        if let Some(cand) = candidates.get_mut(i) {
            cand.kept = false;
            cand.reason = owned("backup node: a non-backup node is available");
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::whole_seconds;

    #[test]
    fn whole_seconds_truncates_toward_zero() {
        for ns in [
            0i128,
            1,
            999_999_999,
            1_000_000_000,
            -1,
            -1_999_999_999,
            10_000_000_000,
            i128::from(i64::MAX) * 1_000_000_000,
            i128::from(i64::MIN) * 1_000_000,
            (1i128 << 100) + 12_345,
        ] {
            let expected = i64::try_from(ns / 1_000_000_000).unwrap_or(i64::MAX);
            assert_eq!(whole_seconds(ns), expected, "{ns}");
        }
    }
}
