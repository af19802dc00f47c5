//! The dial-by-dial engine: routers, hop selection, marks and time.

use super::util::{crc32_ieee, note, owned, Prng};
use super::world::{by_key, filed_under, Agent, ChainNode, Hop, World, DEFAULT_FAIL_TIMEOUT_NS};
use super::{
    Attempt, Candidate, RequestTrace, Scenario, Summary, Trace, MAX_ATTEMPTS, MAX_REQUESTS,
    MAX_ROUNDS,
};
use crate::error::ApiError;
use crate::go::coerce::loose_id;
use crate::go::net::normalize_host;
use crate::gost::host_and_port;
use serde_json::Value;
use std::fmt::Write;

/// GOST's fail marker: a count and the Unix second of the last failure.
#[derive(Debug, Clone, Copy, Default)]
struct Marker {
    count: i64,
    time_sec: i64,
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
}

struct Simulation<'w> {
    world: &'w World,
    /// The dead nodes' ids, sorted, each once; only ids of the world's agents
    /// (the only ones asked about), so at most one per agent.
    dead_ids: Vec<i64>,
    /// Dead `host:port` addresses: the hosts, and `(port, host index)`
    /// sorted by port, an index like the world's (its sort and lookup are
    /// compiled once for both).
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
}

const MAX_DEPTH: usize = 24;

pub fn run(world: &World, sc: &Scenario) -> Result<Trace, ApiError> {
    let mut notes = world.notes.clone();
    let (entry, entry_agent) = pick_entry(world, sc)?;
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
    let mut sim = Simulation {
        world,
        dead_ids: Vec::new(),
        dead_hosts: Vec::new(),
        dead_ports: Vec::new(),
        markers: vec![Marker::default(); world.node_count],
        rr: vec![0; world.hop_count],
        prng: Prng::new(sc.seed.unwrap_or(1)),
        now_ms: start,
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
    };
    for (i, d) in sc.dead.iter().enumerate() {
        let text = match d {
            Value::String(s) => owned(s.trim()),
            other => crate::json::to_text(other),
        };
        // What is wrong with the entry, when it names nothing it could name.
        let problem = if text.contains(':') {
            match host_and_port(&text) {
                Some(hp) => {
                    let known = world.agents.iter().any(|a| {
                        a.chains.iter().any(|c| {
                            c.hops.iter().any(|h| {
                                h.nodes
                                    .iter()
                                    .any(|n| n.port == Some(hp.1) && n.host == hp.0)
                            })
                        })
                    });
                    if !known {
                        note(
                            &mut notes,
                            format_args!("dead address {text} is not dialed by any chain"),
                        );
                    }
                    sim.dead_ports.push((hp.1, sim.dead_hosts.len()));
                    sim.dead_hosts.push(hp.0);
                    None
                }
                None => Some("is not host:port"),
            }
        } else if let Some(id) = loose_id(d).or_else(|| {
            let name = d.as_str()?.trim();
            world
                .agents
                .iter()
                .find(|a| a.name.as_deref() == Some(name))
                .and_then(|a| a.node_id)
        }) {
            if !world.agents.iter().any(|a| a.node_id == Some(id)) {
                note(
                    &mut notes,
                    format_args!("dead node {id} is not part of this document"),
                );
            } else {
                crate::stable_sort::insert_sorted(&mut sim.dead_ids, id);
            }
            None
        } else {
            Some("is neither a node id nor host:port")
        };
        if let Some(problem) = problem {
            return Err(ApiError::new(
                "IN001",
                format!("dead entry {} {problem}", crate::redact::describe(d)),
                format!("/dead/{i}"),
            ));
        }
    }

    crate::stable_sort::sort_by(&mut sim.dead_ports, by_key);

    let (chain, retries, svc_note) = entry_router(entry_agent, world.single_node, sc);
    if let Some(n) = svc_note {
        notes.push(n);
    }
    let mut out = Vec::new();
    for i in 0..requests {
        sim.now_ms = start.saturating_add(gap.saturating_mul(i64::from(i)));
        sim.attempts.clear();
        let outcome = if entry_agent
            .node_id
            .map(|id| sim.dead_ids.binary_search(&id).is_ok())
            .unwrap_or(false)
        {
            Outcome::fail("the entry node is dead: the request never enters the tunnel")
        } else {
            sim.path.clear();
            sim.path.push(entry);
            sim.router_dial(entry, chain, retries, client_ip.clone(), 0)
        };
        let (exit_node_id, exit_addr) =
            match (&outcome.egress, outcome.ok && outcome.direct_from.is_none()) {
                (Some(Egress::Agent(a)), true) => {
                    (world.agents.get(*a).and_then(|a| a.node_id), None)
                }
                (Some(Egress::External(addr)), true) => (None, Some(addr.clone())),
                _ => (None, None),
            };
        let direct = outcome.ok && outcome.direct_from.is_some();
        out.push(RequestTrace {
            index: i + 1,
            time_ms: sim.now_ms,
            ok: outcome.ok,
            exit_node_id,
            exit_addr,
            direct,
            direct_from_node_id: if direct {
                outcome
                    .direct_from
                    .and_then(|a| world.agents.get(a))
                    .and_then(|a| a.node_id)
            } else {
                None
            },
            attempts: std::mem::take(&mut sim.attempts),
            outcome: outcome.why,
        });
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
    let mut summary = Summary {
        requests: out.len(),
        ..Summary::default()
    };
    for r in &out {
        summary.ok += usize::from(r.ok);
        summary.failed += usize::from(!r.ok);
        summary.direct += usize::from(r.direct);
        summary.attempts += r.attempts.len();
        summary.failed_attempts += r.attempts.iter().filter(|a| !a.ok).count();
    }
    Ok(Trace {
        entry_node_id: entry_agent.node_id,
        requests: out,
        summary,
        notes,
        truncated: sim.truncated,
    })
}

/// The fewest bytes an attempt's text takes: its keys and punctuation
/// (measured on the seed's trace), its strings, and each candidate's.
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
    if let Some(e) = sc.entry.as_ref().filter(|e| !e.is_null()) {
        let id = loose_id(e).ok_or_else(|| {
            ApiError::new(
                "IN001",
                format!("entry {} is not a node id", crate::json::Text(e)),
                "/entry",
            )
        })?;
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
            return Outcome::reached(
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
            // Build the route: one selected node per hop; stop at a hop with no candidate.
            let mut route: Vec<(usize, usize, Selection)> = Vec::new();
            let mut empty_hop: Option<(usize, Selection)> = None;
            for (hi, hop) in ch.hops.iter().enumerate() {
                let sel = self.select(hop, &hash_src);
                match sel.chosen {
                    Some(ni) => route.push((hi, ni, sel)),
                    None => {
                        empty_hop = Some((hi, sel));
                        break;
                    }
                }
            }
            if route.is_empty() {
                let why = match &empty_hop {
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
                return Outcome::reached(Egress::Agent(ai), Some(ai), why);
            }
            let mut from: Option<usize> = Some(ai);
            let last = route.len() - 1;
            let mut round_failed = false;
            for (k, (hi, ni, sel)) in route.into_iter().enumerate() {
                let Some(hop) = ch.hops.get(hi) else { break };
                let Some(node) = hop.nodes.get(ni) else { break };
                self.budget_used += 1;
                let refused = self.refusal(node);
                // Every chain node has a marker (the world counts them).
                let marker = self.markers.get_mut(node.serial);
                let (failures, relays, reason) = match &refused {
                    Some(why_dead) => {
                        let count = marker.map_or(1, |m| {
                            m.count += 1;
                            m.time_sec = self.now_ms.div_euclid(1000);
                            m.count
                        });
                        let reason =
                            format!("dial failed: {why_dead}; marked failed (count {count})");
                        (count, false, reason)
                    }
                    None => {
                        if let Some(m) = marker {
                            m.count = 0;
                        }
                        let relays = k < last;
                        let reason = if relays {
                            owned(
                                "handshake ok (count reset); relays to the next node of the route",
                            )
                        } else {
                            String::new()
                        };
                        (0, relays, reason)
                    }
                };
                // One push per dial; the last dial of the route is completed below.
                self.output_bytes = self
                    .output_bytes
                    .saturating_add(attempt_text_floor(node, &sel, &reason));
                self.attempts.push(Attempt {
                    seq: self.attempts.len(),
                    depth,
                    from_node_id: self.node_id(from),
                    to_node_id: self.node_id(node.target),
                    addr: node.addr.clone(),
                    node: node.name.clone(),
                    chain: ch.name.clone(),
                    hop: hop.name.clone(),
                    round,
                    rounds,
                    ok: relays,
                    alive: refused.is_none(),
                    carried: relays,
                    marked: refused.is_some(),
                    failures,
                    selection: sel.text,
                    candidates: sel.candidates,
                    reason,
                });
                if let Some(why_dead) = refused {
                    last_fail = format!(
                        "{} could not reach {} ({})",
                        name_of(world, from),
                        node.addr,
                        why_dead
                    );
                    round_failed = true;
                    break;
                }
                if relays {
                    from = node.target;
                    continue;
                }
                let idx = self.attempts.len() - 1;
                let nested = self.serve(node, from.unwrap_or(ai), depth + 1);
                let Some(slot) = self.attempts.get_mut(idx) else {
                    return nested;
                };
                // The try's reason: how the next node answered, and its why.
                let (head, why, tail) = if nested.ok {
                    ("handshake ok (count reset); carried the request", "", "")
                } else if nested.accepted {
                    // The next node's router reported success, so it answered OK; the
                    // request breaks later, further down, where nobody retries it.
                    ("accepted (count reset) and answered OK, but the request fails further on: ", nested.why.as_str(), "")
                } else if node.waits_reply {
                    (
                        "accepted (count reset), but answered with an error: ",
                        nested.why.as_str(),
                        "; the attempt fails without marking the node",
                    )
                } else {
                    ("accepted (count reset); the connector does not wait for the relay reply (no nodelay), so the router stops here and the request fails later: ", nested.why.as_str(), "")
                };
                slot.reason = format!("{head}{why}{tail}");
                if let Some((ehi, esel)) = &empty_hop {
                    let _ = write!(
                        slot.reason,
                        "; hop {} had no candidate left ({}), so the route ends here",
                        ch.hops.get(*ehi).map(|h| h.name.as_str()).unwrap_or(""),
                        esel.text
                    );
                }
                slot.ok = nested.ok || nested.accepted || !node.waits_reply;
                slot.carried = nested.ok;
                if nested.ok {
                    return nested;
                }
                if nested.accepted {
                    return Outcome::late_fail(nested.why);
                }
                if node.waits_reply {
                    last_fail = nested.why;
                    round_failed = true;
                    break;
                }
                return Outcome::late_fail(format!(
                    "{} (no retry: connector without nodelay)",
                    nested.why
                ));
            }
            if !round_failed {
                break;
            }
        }
        Outcome::fail(format!(
            "{}: all {} tries failed; last: {}",
            agent.label, rounds, last_fail
        ))
    }

    /// What happens behind a chain node once the dial succeeded.
    fn serve(&mut self, node: &ChainNode, from: usize, depth: usize) -> Outcome {
        let world = self.world;
        let Some(t) = node.target else {
            return Outcome::reached(
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
            return Outcome::reached(
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
            None => Outcome::reached(
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
                .map(|id| self.dead_ids.binary_search(&id).is_ok())
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
        let now_ns = self.now_ns();
        let n = hop.nodes.len();
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
        let mut kept: Vec<usize> = (0..n).collect();
        if n > 1 {
            let mut next = Vec::new();
            // Every node is still kept here, so walk nodes and candidates together.
            for (i, (nd, cand)) in hop.nodes.iter().zip(candidates.iter_mut()).enumerate() {
                let mut max_fails = nd.md_max_fails.unwrap_or(hop.max_fails);
                if max_fails <= 0 {
                    max_fails = 1;
                }
                let mut timeout = nd.md_fail_timeout_ns.unwrap_or(hop.fail_timeout_ns);
                if timeout <= 0 {
                    timeout = DEFAULT_FAIL_TIMEOUT_NS;
                }
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
                }
            }
            kept = next;
        } else if let Some(only) = candidates.first_mut() {
            // n == 1 here (n == 0 leaves no candidate).
            only.reason = owned("only node of the hop: never filtered");
        }
        if kept.len() > 1 {
            let normal: Vec<usize> = kept
                .iter()
                .copied()
                .filter(|&i| hop.nodes.get(i).is_some_and(|nd| !nd.backup))
                .collect();
            if !normal.is_empty() && normal.len() < kept.len() {
                for &i in &kept {
                    if !hop.nodes.get(i).is_some_and(|nd| nd.backup) {
                        continue;
                    }
                    if let Some(cand) = candidates.get_mut(i) {
                        cand.kept = false;
                        cand.reason = owned("backup node: a non-backup node is available");
                    }
                }
                kept = normal;
            }
        }
        if kept.is_empty() {
            return Selection {
                chosen: None,
                text: format!("all {n} nodes filtered out by the fail filter"),
                candidates,
            };
        }
        let (pick, how) = match hop.strategy.as_str() {
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
            "hash" => {
                if hash_src.is_empty() {
                    let p = self.prng.below(kept.len() as u64) as usize;
                    (
                        p,
                        format!("hash: no source, random among {} left (seeded)", kept.len()),
                    )
                } else {
                    let h = crc32_ieee(hash_src.as_bytes());
                    let p = (u64::from(h) % kept.len() as u64) as usize;
                    (
                        p,
                        format!("hash: crc32({hash_src}) = {h}, mod {} left", kept.len()),
                    )
                }
            }
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
        };
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
        }
    }
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
