//! Turns a plan or one node's GOST config into the simulator's world: which
//! agents exist, what services and chains each one runs, and which agent
//! listens behind every chain node address. Commands are replayed into each
//! node's configs ([`RawNode`], JSON as the agent keeps them, shared with
//! the lifecycle replay); every config is then read into the [`gost`] model,
//! from which the world's services and chains are taken.

use super::util::{list_at, note, owned, str_at};
use crate::error::ApiError;
use crate::go::coerce::json_int;
use crate::go::duration::parse_duration;
use crate::go::net::normalize_host;
use crate::gost::{self, Metadata};
use crate::json::node::{Node, Shape};
use crate::json::tree::{TreeObject, TreeValue, NULL};
use crate::plan::CommandName::{self, *};
use serde_json::Value;
use std::collections::BTreeMap;

/// Size limits for a simulated document.
pub const MAX_NODES: usize = 2_000;
pub const MAX_OBJECTS: usize = 200_000;

/// GOST defaults for a hop without a selector (`DefaultNodeSelector`).
pub const DEFAULT_FAIL_TIMEOUT_NS: i128 = 10_000_000_000;

#[derive(Debug, Clone)]
pub struct Service {
    pub name: String,
    pub host: String,
    pub port: Option<i64>,
    /// The trailing port of `addr` even when Go cannot listen on it (`:::44014`).
    pub nominal_port: Option<i64>,
    pub addr: String,
    pub chain: Option<String>,
    pub retries: i64,
    /// Handler metadata `hash: host`: the hash strategy keys on the destination.
    pub hash_host: bool,
    /// The targets of a port-forward handler (`tcp`/`udp`/`forward` with a
    /// `forwarder`), `None` for any other service.
    pub forwarder: Option<Forwarder>,
}

/// A forward service's targets, walked by its handler's target loop
/// (`go-gost/x/handler/forward/local/handler.go:181-275`). The targets are
/// a hop: the same selector, fail filter and marks as a chain's hop
/// (`go-gost/x/config/parsing/service/parse.go` builds it with the hop parser).
#[derive(Debug, Clone)]
pub struct Forwarder {
    pub hop: Hop,
    /// `handler.metadata.maxRetries` when positive: how many targets one
    /// connection tries (else every target once).
    pub max_retries: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct ChainNode {
    pub name: String,
    pub addr: String,
    pub host: String,
    pub port: Option<i64>,
    /// Agent index listening behind `addr`, `None` for an address outside the document.
    pub target: Option<usize>,
    /// The relay connector waits for the next node's reply (`nodelay`), so a
    /// failure further on fails this attempt and the router retries.
    pub waits_reply: bool,
    pub md_max_fails: Option<i64>,
    pub md_fail_timeout_ns: Option<i128>,
    pub backup: bool,
    pub weight: i64,
    /// Position among all chain nodes of the world, in (agent, chain, hop,
    /// node) order: the engine keeps its fail markers in a `Vec` by it.
    pub serial: usize,
}

#[derive(Debug, Clone)]
pub struct Hop {
    pub name: String,
    pub strategy: String,
    pub max_fails: i64,
    pub fail_timeout_ns: i128,
    pub nodes: Vec<ChainNode>,
    /// Position among all hops of the world: the engine keeps its
    /// round-robin counters in a `Vec` by it.
    pub serial: usize,
}

#[derive(Debug, Clone)]
pub struct Chain {
    pub name: String,
    pub hops: Vec<Hop>,
}

#[derive(Debug, Clone, Default)]
pub struct Agent {
    pub node_id: Option<i64>,
    /// The node's name from the plan's node table.
    pub name: Option<String>,
    pub label: String,
    pub role: Option<String>,
    /// Hosts this agent is dialed by (from the plan's node table).
    pub addresses: Vec<String>,
    pub services: Vec<Service>,
    pub chains: Vec<Chain>,
    /// Chains by name (the first of a name), so a lookup per service stays
    /// constant time on configs with thousands of chains.
    pub chain_at: BTreeMap<String, usize>,
}

impl Agent {
    pub fn chain_index(&self, name: &str) -> Option<usize> {
        self.chain_at.get(name).copied()
    }
    pub fn service_on_port(&self, port: i64) -> Option<&Service> {
        self.services.iter().find(|s| s.port == Some(port))
    }
}

#[derive(Debug, Clone)]
pub struct World {
    pub agents: Vec<Agent>,
    /// Notes about the document (decode problems, guesses) shown in the trace.
    pub notes: Vec<String>,
    /// True when the document is a single node's config.
    pub single_node: bool,
    /// How many hops and chain nodes the agents have (see their `serial`);
    /// forwarders count as hops and their targets as nodes.
    pub hop_count: usize,
    pub node_count: usize,
    /// Forward ids and names from the plan's `db.forward` rows.
    pub forward_names: Vec<(i64, String)>,
}

impl World {
    /// The world of these agents, their hops and chain nodes numbered.
    fn new(mut agents: Vec<Agent>, notes: Vec<String>, single_node: bool) -> World {
        let (mut hop_count, mut node_count) = (0, 0);
        let mut number = |hop: &mut Hop| {
            hop.serial = hop_count;
            hop_count += 1;
            for node in &mut hop.nodes {
                node.serial = node_count;
                node_count += 1;
            }
        };
        for hop in agents
            .iter_mut()
            .flat_map(|a| &mut a.chains)
            .flat_map(|c| &mut c.hops)
        {
            number(hop);
        }
        // Forwarders after every chain, so the chains keep their numbers.
        for service in agents.iter_mut().flat_map(|a| &mut a.services) {
            if let Some(f) = &mut service.forwarder {
                number(&mut f.hop);
            }
        }
        World {
            agents,
            notes,
            single_node,
            hop_count,
            node_count,
            forward_names: Vec::new(),
        }
    }
}

/// Raw per-node state built from commands: services and chains by name, in
/// order. Configs are JSON as the agent keeps them; the lifecycle replay
/// keeps its planned ones typed (`C`) and the pasted ones as JSON.
#[derive(Debug, Clone)]
pub struct RawNode<C> {
    pub services: Vec<(String, C)>,
    pub chains: Vec<(String, C)>,
    /// Positions in `services` / `chains` by name: an add or update is a
    /// lookup, not a scan, so replaying n commands stays linear.
    service_at: BTreeMap<String, usize>,
    chain_at: BTreeMap<String, usize>,
}

// Not derived: a derive would ask `C: Default`.
impl<C> Default for RawNode<C> {
    fn default() -> Self {
        RawNode {
            services: Vec::new(),
            chains: Vec::new(),
            service_at: BTreeMap::new(),
            chain_at: BTreeMap::new(),
        }
    }
}

impl<C> RawNode<C> {
    fn put(list: &mut Vec<(String, C)>, index: &mut BTreeMap<String, usize>, name: String, v: C) {
        match index.get(&name).and_then(|&i| list.get_mut(i)) {
            Some(slot) => slot.1 = v,
            None => {
                index.insert(name.clone(), list.len());
                list.push((name, v));
            }
        }
    }

    fn reindex(list: &[(String, C)], index: &mut BTreeMap<String, usize>) {
        index.clear();
        for (i, (name, _)) in list.iter().enumerate() {
            index.entry(name.clone()).or_insert(i);
        }
    }

    /// Whether the node runs a chain named `name`.
    pub fn has_chain(&self, name: &str) -> bool {
        self.chain_at.contains_key(name)
    }

    /// Whether the node runs a service named `name`.
    pub fn has_service(&self, name: &str) -> bool {
        self.service_at.contains_key(name)
    }

    /// The config of the service named `name`.
    pub fn service(&self, name: &str) -> Option<&C> {
        let at = *self.service_at.get(name)?;
        self.services.get(at).map(|(_, c)| c)
    }

    /// `AddChains` / `UpdateChains` of one chain: an upsert by name.
    pub fn put_chain(&mut self, name: String, config: C) {
        Self::put(&mut self.chains, &mut self.chain_at, name, config);
    }

    /// `AddService` / `UpdateService` of one service: an upsert by name.
    pub fn put_service(&mut self, name: String, config: C) {
        Self::put(&mut self.services, &mut self.service_at, name, config);
    }

    /// `DeleteService`: the services of these names go.
    pub fn delete_services(&mut self, names: &[&str]) {
        self.services.retain(|(n, _)| !names.contains(&n.as_str()));
        Self::reindex(&self.services, &mut self.service_at);
    }

    /// `DeleteChains`: the chain of this name goes.
    pub fn delete_chain(&mut self, name: &str) {
        self.chains.retain(|(n, _)| n != name);
        Self::reindex(&self.chains, &mut self.chain_at);
    }
}

/// A node's configs as a pasted document gives them: borrowed from its tree.
pub type DocNode<'a> = RawNode<&'a TreeValue<'a>>;

impl<'a> DocNode<'a> {
    /// Applies one agent command (`AddChains`, `UpdateChains`, `AddService`,
    /// `UpdateService`, `DeleteService`, `DeleteChains`) of a document to
    /// the node, as [`RawNode::apply_owned`] applies a value.
    pub fn apply(&mut self, command: &str, data: &'a TreeValue<'a>) {
        match CommandName::parse(command) {
            Some(AddChains | UpdateChains) => {
                let wrapped = data.get("chain").zip(data.get("data"));
                let (name, cfg) = match wrapped {
                    Some((name, cfg)) => (name.as_str().unwrap_or_default(), cfg),
                    None => (str_at(data, "name"), data),
                };
                self.put_chain(owned(name), cfg);
            }
            Some(AddService | UpdateService) => {
                let list = match data {
                    TreeValue::Arr(items) => items,
                    TreeValue::Object(_) => std::slice::from_ref(data),
                    _ => &[],
                };
                for s in list {
                    self.put_service(owned(str_at(s, "name")), s);
                }
            }
            Some(DeleteService) => {
                let names: Vec<&str> = list_at(data, "services")
                    .iter()
                    .filter_map(TreeValue::as_str)
                    .collect();
                self.delete_services(&names);
            }
            Some(DeleteChains) => self.delete_chain(str_at(data, "chain")),
            _ => {}
        }
    }
}

impl<C: From<Value>> RawNode<C> {
    /// [`RawNode::apply`] of a config the caller gives up: it is kept, not copied.
    pub fn apply_owned(&mut self, command: &str, data: Value) {
        match CommandName::parse(command) {
            Some(AddChains | UpdateChains) => {
                let (name, cfg) = match data {
                    Value::Object(mut obj)
                        if obj.contains_key("chain") && obj.contains_key("data") =>
                    {
                        let name =
                            owned(obj.get("chain").and_then(Value::as_str).unwrap_or_default());
                        // Taken, not removed: the object is dropped next, and
                        // a removal compiles the tree's rebalancing.
                        let cfg = obj.get_mut("data").map_or(Value::Null, Value::take);
                        (name, cfg)
                    }
                    other => (owned(str_at(&other, "name")), other),
                };
                self.put_chain(name, cfg.into());
            }
            Some(AddService | UpdateService) => {
                let list = match data {
                    Value::Array(a) => a,
                    obj @ Value::Object(_) => vec![obj],
                    _ => Vec::new(),
                };
                for s in list {
                    let name = owned(str_at(&s, "name"));
                    self.put_service(name, s.into());
                }
            }
            Some(DeleteService) => {
                let names: Vec<&str> = list_at(&data, "services")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                self.delete_services(&names);
            }
            Some(DeleteChains) => self.delete_chain(str_at(&data, "chain")),
            _ => {}
        }
    }
}

/// Replays a plan's commands (federation first, then local, the server's
/// order) into per-node raw state. A forward mode's plan carries what the
/// tunnel already runs under `deployed` (same shape), replayed first. A
/// command the agent refused (`failed`) deployed nothing.
pub fn plan_nodes<'a>(plan: &'a TreeValue<'a>) -> BTreeMap<i64, DocNode<'a>> {
    let mut out: BTreeMap<i64, DocNode<'a>> = BTreeMap::new();
    let mut run = |cmd: &'a TreeValue<'a>| {
        if cmd.get("failed").is_some_and(|f| !f.is_null()) {
            return;
        }
        let node = cmd.get("nodeId").and_then(json_int);
        let command = cmd.get("command").and_then(TreeValue::as_str);
        if let (Some(node), Some(command)) = (node, command) {
            let data = cmd.get("data").unwrap_or(&NULL);
            out.entry(node).or_default().apply(command, data);
        }
    };
    let parts = [plan.get("deployed"), Some(plan)];
    for part in parts.into_iter().flatten() {
        for step in list_at(part, "federation") {
            for cmd in list_at(step, "commands") {
                run(cmd);
            }
        }
        for cmd in list_at(part, "local") {
            run(cmd);
        }
    }
    out
}

/// The world's service, read from the model by the simulator's rules:
/// fields under their exact names; a `retries` that is not an integer
/// counts as 0, with a note.
fn service(s: &gost::Service<'_>, notes: &mut Vec<String>, who: &str) -> Service {
    let name = owned(s.name.exact_str().unwrap_or_default());
    let addr = s.addr().exact_str().unwrap_or_default();
    // The listen address, as Go's SplitHostPort reads it.
    let (host, port) = match gost::host_and_port(addr) {
        Some((h, p)) => (h, Some(p)),
        None => (String::new(), None),
    };
    // Every field counts only under its exact name, its parents' too
    // (`gost::Field::exact`).
    let ignore_chain = Metadata::of(s.metadata().exact())
        .bool("ignoreChain")
        .unwrap_or(false);
    let chain = s
        .chain
        .exact_str()
        .filter(|_| !ignore_chain)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(owned);
    let retries = match s.retries.exact() {
        None | Some(TreeValue::Null) => 0,
        Some(r) => match json_int(r) {
            Some(n) => n,
            None => {
                note(notes, format_args!(
                    "{who}: service {name}: handler.retries {r} is not an integer; the agent rejects it (counted as 0 here)"
                ));
                0
            }
        },
    };
    let hash_host = Metadata::of(s.handler_metadata().exact())
        .get("hash")
        .and_then(TreeValue::as_str)
        .is_some_and(|s| s == "host");
    let nominal_port = addr
        .rsplit_once(':')
        .map_or(addr, |(_, p)| p)
        .parse::<i64>()
        .ok();
    Service {
        name,
        host,
        port,
        nominal_port,
        addr: owned(addr),
        chain,
        retries,
        hash_host,
        forwarder: forwarder(s, notes, who),
    }
}

/// The world's chain `name`, read from the model by the simulator's rules
/// (fields under their exact names).
fn chain(name: &str, c: &gost::Chain<'_>, notes: &mut Vec<String>, who: &str) -> Chain {
    // Hops and nodes count only under their exact names.
    let listed = c.hops_field().exact().map(|_| c.hops());
    let hops = listed
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(hi, h)| {
            let place = format!("chain {name} hop {hi}");
            hop(&h, Some(&place), notes, who)
        })
        .collect();
    Chain {
        name: owned(name),
        hops,
    }
}

/// The selector of a hop: strategy, maxFails and failTimeout (ns). A chain
/// hop (`place` names it) takes a string failTimeout only with a note, as
/// AddChains rejects it; a service's forwarder gets it parsed as a Go
/// duration by the agent (go-gost `x/config/parsing/service` selector parsing).
fn selector(
    h: &gost::Hop<'_>,
    place: Option<&str>,
    notes: &mut Vec<String>,
    who: &str,
) -> (String, i64, i128) {
    if !h.selector.exact().is_some_and(TreeValue::is_object) {
        return (owned("round"), 1, DEFAULT_FAIL_TIMEOUT_NS);
    }
    let strategy = owned(h.strategy.exact_str().unwrap_or_default());
    let max_fails = h
        .max_fails
        .exact()
        .map(|m| json_int(m).unwrap_or(0))
        .unwrap_or(0);
    let ft = match h.fail_timeout.exact() {
        None | Some(TreeValue::Null) => 0,
        Some(TreeValue::Str(text)) => {
            if let Some(place) = place {
                note(notes, format_args!(
                    "{who}: {place}: failTimeout is the string {text:?}; AddChains rejects it (read as a Go duration here)"
                ));
            }
            parse_duration(text.trim()).map(i128::from).unwrap_or(0)
        }
        Some(other) => json_int(other).map(i128::from).unwrap_or(0),
    };
    (strategy, max_fails, ft)
}

/// The world's hop (a chain's hop, or a forwarder: both are GOST hops).
fn hop(h: &gost::Hop<'_>, place: Option<&str>, notes: &mut Vec<String>, who: &str) -> Hop {
    let (strategy, max_fails, fail_timeout_ns) = selector(h, place, notes, who);
    let listed = h.nodes_field.exact().map(|_| h.nodes());
    let nodes = listed
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(ni, n)| chain_node(ni, &n))
        .collect();
    Hop {
        name: owned(h.name.exact_str().unwrap_or_default()),
        strategy,
        max_fails,
        fail_timeout_ns,
        nodes,
        serial: 0,
    }
}

/// The world's node `ni` (0-based) of a hop.
fn chain_node(ni: usize, n: &gost::Node<'_>) -> ChainNode {
    let addr = owned(n.addr.exact_str().unwrap_or_default());
    let (host, port) = match &n.dial {
        Some((h, p)) => (h.clone(), Some(*p)),
        None => (normalize_host(&addr), None),
    };
    let ctype = n.connector_type.exact_str().unwrap_or("http");
    let cmd = Metadata::of(n.connector_metadata.exact());
    let waits_reply = match ctype.trim() {
        "relay" => cmd.bool("nodelay").unwrap_or(false),
        "forward" | "tcp" | "direct" | "virtual" => false,
        _ => true,
    };
    let md = Metadata::of(n.metadata.exact());
    ChainNode {
        name: n
            .name
            .exact_str()
            .map(owned)
            .unwrap_or_else(|| format!("node_{}", ni + 1)),
        addr,
        host,
        port,
        target: None,
        waits_reply,
        md_max_fails: md.int("maxFails"),
        md_fail_timeout_ns: md.duration_ns("failTimeout"),
        backup: md.bool("backup").unwrap_or(false),
        weight: md.int("weight").unwrap_or(0),
        serial: 0,
    }
}

/// The forwarder of a port-forward service (handler `tcp`, `udp` or
/// `forward`, with a `forwarder` object), read as a hop.
fn forwarder(s: &gost::Service<'_>, notes: &mut Vec<String>, who: &str) -> Option<Forwarder> {
    let kind = s.handler_type().exact_str()?;
    if !["tcp", "udp", "forward"].contains(&kind) {
        return None;
    }
    let value = gost::Field::of(Some(s.obj), "forwarder").exact()?;
    value.as_object()?;
    Some(Forwarder {
        hop: hop(&gost::Hop::read(value), None, notes, who),
        max_retries: s.forwarder().and_then(|f| f.max_retries),
    })
}

/// A config's object; one that is not an object reads as an empty one (as
/// its fields read absent).
fn object_of<'a>(v: &'a TreeValue<'a>) -> &'a TreeObject<'a> {
    static EMPTY: TreeObject<'static> = TreeObject::EMPTY;
    v.as_object().unwrap_or(&EMPTY)
}

/// An agent running what `raw` holds: each config read into the model
/// ([`gost`]) from its tree. Its label names node `node_id` (with `name`
/// when there is one), or "this node" for a node config.
fn build_agent(
    node_id: Option<i64>,
    name: &str,
    raw: &DocNode<'_>,
    notes: &mut Vec<String>,
) -> Agent {
    let label = match node_id {
        None => owned("this node"),
        Some(id) if name.is_empty() => format!("node {id}"),
        Some(id) => format!("node {id} ({name})"),
    };
    let who = label.clone();
    let mut chain_at = BTreeMap::new();
    for (i, (name, _)) in raw.chains.iter().enumerate() {
        chain_at.entry(name.clone()).or_insert(i);
    }
    Agent {
        node_id,
        name: None,
        label,
        role: None,
        addresses: vec![],
        services: raw
            .services
            .iter()
            .map(|(_, v)| service(&gost::Service::read(object_of(v)), notes, &who))
            .collect(),
        chains: raw
            .chains
            .iter()
            .map(|(n, v)| chain(n, &gost::Chain::read(object_of(v)), notes, &who))
            .collect(),
        chain_at,
    }
}

/// Is this document a plan (golden `expected` shape, with or without `nodes`)?
pub(crate) fn is_plan<N: Node>(doc: &N) -> bool {
    has_list(doc, "local") || has_list(doc, "federation")
}

/// Is this document one node's GOST config?
pub(crate) fn is_node_config<N: Node>(doc: &N) -> bool {
    has_list(doc, "services") || has_list(doc, "chains")
}

fn has_list<N: Node>(doc: &N, key: &str) -> bool {
    matches!(doc.field(key).map(Node::shape), Some(Shape::Arr(_)))
}

/// Builds the world from a plan.
pub fn from_plan(plan: &TreeValue<'_>) -> Result<World, ApiError> {
    if let Some(err) = plan.get("error").filter(|e| !e.is_null()) {
        let text = match err {
            TreeValue::Str(s) => owned(s),
            other => other
                .get("message")
                .and_then(TreeValue::as_str)
                .map_or_else(|| other.to_string(), owned),
        };
        return Err(ApiError::new(
            "PLAN_ERROR",
            format!("the server rejects this tunnel: {text}"),
            "/error",
        ));
    }
    let mut world = from_raw(plan_nodes(plan), plan)?;
    let rows = plan.get("db").map_or(&[][..], |db| list_at(db, "forward"));
    world.forward_names = rows
        .iter()
        .filter_map(|r| Some((r.get("id").and_then(json_int)?, owned(str_at(r, "name")))))
        .collect();
    Ok(world)
}

/// Is this a lifecycle `state` (`{nodes: {"id": {services, chains}}}`)?
pub(crate) fn is_state(doc: &TreeValue<'_>) -> bool {
    doc.get("nodes")
        .and_then(TreeValue::as_object)
        .map(|m| {
            m.len() > 0
                && m.iter_any()
                    .all(|(_, n)| n.get("services").is_some() || n.get("chains").is_some())
        })
        .unwrap_or(false)
}

/// Builds the world from a lifecycle report's `state`: what every node runs.
pub fn from_state(doc: &TreeValue<'_>) -> Result<World, ApiError> {
    let mut raw: BTreeMap<i64, DocNode<'_>> = BTreeMap::new();
    let nodes = doc.get("nodes").and_then(TreeValue::as_object);
    for (id, n) in nodes.into_iter().flat_map(|o| o.iter()) {
        let Ok(id) = id.trim().parse::<i64>() else {
            continue;
        };
        let r = raw.entry(id).or_default();
        for c in list_at(n, "chains") {
            r.apply(AddChains.as_str(), c);
        }
        for sv in list_at(n, "services") {
            r.apply(AddService.as_str(), sv);
        }
    }
    from_raw(raw, &NULL)
}

fn from_raw(raw: BTreeMap<i64, DocNode<'_>>, plan: &TreeValue<'_>) -> Result<World, ApiError> {
    let mut notes = Vec::new();
    let size: usize = raw
        .values()
        .map(|r| r.services.len() + r.chains.len())
        .sum::<usize>()
        + raw
            .values()
            .flat_map(|r| r.chains.iter())
            .map(|(_, c)| crate::encode::text_len(*c) / 64)
            .sum::<usize>();
    if raw.len() > MAX_NODES || size > MAX_OBJECTS {
        return Err(ApiError::new("IN001", format!("the plan is too large to simulate (more than {MAX_NODES} nodes or {MAX_OBJECTS} objects)"), ""));
    }
    let table = list_at(plan, "nodes");
    let mut agents: Vec<Agent> = Vec::new();
    // Node table order first (entries, hops, exits as the planner lists them), then any other node.
    for row in table {
        let Some(id) = row.get("nodeId").and_then(json_int) else {
            continue;
        };
        if agents.iter().any(|a| a.node_id == Some(id)) {
            continue;
        }
        let empty = DocNode::default();
        let r = raw.get(&id).unwrap_or(&empty);
        let name = str_at(row, "name");
        let mut a = build_agent(Some(id), name, r, &mut notes);
        a.role = row.get("role").and_then(TreeValue::as_str).map(owned);
        a.name = Some(owned(name)).filter(|n| !n.is_empty());
        a.addresses = row
            .get("addresses")
            .and_then(TreeValue::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(TreeValue::as_str)
                    .map(normalize_host)
                    .collect()
            })
            .unwrap_or_default();
        agents.push(a);
    }
    for (id, r) in &raw {
        if agents.iter().any(|a| a.node_id == Some(*id)) {
            continue;
        }
        let mut a = build_agent(Some(*id), "", r, &mut notes);
        // Without a node table: a node with chains and no services is an entry.
        let role = if a.services.is_empty() && !a.chains.is_empty() {
            "entry"
        } else if a.services.iter().all(|s| s.chain.is_none()) {
            "exit"
        } else {
            "middle"
        };
        a.role = Some(owned(role));
        agents.push(a);
    }
    let table_ports: Vec<(usize, i64)> = table
        .iter()
        .filter_map(|row| {
            let id = row.get("nodeId").and_then(json_int)?;
            let port = row.get("port").and_then(json_int)?;
            let idx = agents.iter().position(|a| a.node_id == Some(id))?;
            Some((idx, port))
        })
        .collect();
    resolve_targets(&mut agents, &table_ports, &mut notes);
    Ok(World::new(agents, notes, false))
}

/// Builds the world from one node's config: every chain node is outside the document.
pub fn from_node_config(doc: &TreeValue<'_>) -> World {
    let mut notes = Vec::new();
    let mut raw = DocNode::default();
    for c in list_at(doc, "chains") {
        raw.apply(AddChains.as_str(), c);
    }
    for s in list_at(doc, "services") {
        raw.apply(AddService.as_str(), s);
    }
    let mut a = build_agent(None, "", &raw, &mut notes);
    a.role = Some("entry".into());
    World::new(vec![a], notes, true)
}

/// Finds, for every chain node, the agent that listens behind its address.
///
/// With the plan's node table a chain node resolves to the node dialed by that
/// host on that port. Without it, by the services listening on that port
/// (preferring one bound to the dialed host); when several nodes share the
/// port, the tunnel is walked from its entries and a node already reached at
/// an earlier or the same layer, or a sibling dialing the same targets, is not
/// taken as a target.
fn resolve_targets(agents: &mut [Agent], table_ports: &[(usize, i64)], notes: &mut Vec<String>) {
    let mut targets = find_targets(agents, table_ports, notes).into_iter();
    for agent in agents.iter_mut() {
        for chain in &mut agent.chains {
            for hop in &mut chain.hops {
                for node in &mut hop.nodes {
                    node.target = targets.next().flatten();
                }
            }
        }
    }
}

/// A chain node, with the agent that dials it and the serial number of its
/// hop (hops counted across the whole document).
struct Site<'a> {
    agent: usize,
    hop: usize,
    node: &'a ChainNode,
}

/// The per-agent tables below are built from `agents`, so every agent index
/// has a row; `row` reads one without indexing (a missing row reads empty).
fn row<T>(table: &[Vec<T>], i: usize) -> &[T] {
    table.get(i).map_or(&[], Vec::as_slice)
}

/// Does agent `m` run a service on `port` (bound to `host`, when given)?
fn listens_on(agents: &[Agent], m: usize, port: i64, host: Option<&str>) -> bool {
    agents.get(m).is_some_and(|a| {
        a.services
            .iter()
            .any(|s| s.nominal_port == Some(port) && host.is_none_or(|h| s.host == h))
    })
}

/// The agents in `list` that `keep` accepts, in order.
fn kept(list: &[usize], keep: &dyn Fn(usize) -> bool) -> Vec<usize> {
    list.iter().copied().filter(|&i| keep(i)).collect()
}

/// Narrows a choice of several agents to those `keep` accepts, unless that
/// leaves none.
fn narrow(list: &mut Vec<usize>, keep: &dyn Fn(usize) -> bool) {
    if list.len() > 1 {
        let rest = kept(list, keep);
        if !rest.is_empty() {
            *list = rest;
        }
    }
}

/// The agents of a key-sorted `(key, agent)` index filed under `key`, but `ai`
/// (`usize::MAX` for all of them).
pub(super) fn filed_under<K: Ord + Copy>(index: &[(K, usize)], key: K, ai: usize) -> Vec<usize> {
    let start = index.partition_point(|(k, _)| *k < key);
    index
        .iter()
        .skip(start)
        .take_while(|(k, _)| *k == key)
        .map(|&(_, idx)| idx)
        .filter(|&idx| idx != ai)
        .collect()
}

/// Is agent `c` upstream of agent `ai`: do its own chains dial one of
/// `ai`'s ports?
#[inline(never)]
fn dials_back(dial_ports: &[Vec<i64>], listen_ports: &[Vec<i64>], c: usize, ai: usize) -> bool {
    row(dial_ports, c)
        .iter()
        .any(|p| row(listen_ports, ai).contains(p))
}

/// The items of `list` that do not repeat an earlier one, in order.
fn first_of_each<T: PartialEq>(list: &[T]) -> impl Iterator<Item = &T> {
    list.iter()
        .enumerate()
        .filter(|&(k, x)| !list.iter().take(k).any(|earlier| earlier == x))
        .map(|(_, x)| x)
}

/// [`resolve_targets`]' choice for every chain node, in (agent, chain, hop,
/// node) order.
fn find_targets(
    agents: &[Agent],
    table_ports: &[(usize, i64)],
    notes: &mut Vec<String>,
) -> Vec<Option<usize>> {
    let tunnel = Tunnel::new(agents, table_ports);
    let group_picks = tunnel.group_picks();
    let mut candidates = tunnel.candidates(&group_picks, notes);
    tunnel.narrow_by_layers(&mut candidates);
    tunnel.choose(candidates, notes)
}

/// Every chain node as a [`Site`], and every hop as (agent, hop, its first
/// site), in (agent, chain, hop, node) order.
fn sites_and_hops(agents: &[Agent]) -> (Vec<Site<'_>>, Vec<(usize, &Hop, usize)>) {
    let mut sites: Vec<Site> = Vec::new();
    let mut hops: Vec<(usize, &Hop, usize)> = Vec::new();
    for (ai, agent) in agents.iter().enumerate() {
        for hop in agent.chains.iter().flat_map(|c| &c.hops) {
            let (first, serial) = (sites.len(), hops.len());
            sites.extend(hop.nodes.iter().map(|node| Site {
                agent: ai,
                hop: serial,
                node,
            }));
            hops.push((ai, hop, first));
        }
    }
    (sites, hops)
}

/// What the phases of [`find_targets`] share: the agents, every chain node
/// and hop, and per agent the ports it listens on and dials and its signature.
struct Tunnel<'a> {
    agents: &'a [Agent],
    table_ports: &'a [(usize, i64)],
    /// Every chain node, in (agent, chain, hop, node) order.
    sites: Vec<Site<'a>>,
    /// Every hop as (agent, hop, its first site).
    hops: Vec<(usize, &'a Hop, usize)>,
    listen_ports: Vec<Vec<i64>>,
    dial_ports: Vec<Vec<i64>>,
    /// An agent's signature: the addresses its chains dial, sorted.
    signatures: Vec<Vec<&'a str>>,
}

/// Agents running services that dial the same addresses (the key), or all
/// exits (`<exit>`).
type Group<'t> = (&'t [&'t str], Vec<usize>);

/// Who is in the node table on a port, who is dialed by a host and who
/// listens on a port, each sorted by key once: the lookups run per chain
/// node, and a plan has width^2 of them per hop.
struct Indexes<'a> {
    table_by_port: Vec<(i64, usize)>,
    table_by_host: Vec<(&'a str, usize)>,
    listeners: Vec<(i64, usize)>,
}

impl<'a> Tunnel<'a> {
    fn new(agents: &'a [Agent], table_ports: &'a [(usize, i64)]) -> Self {
        let (sites, hops) = sites_and_hops(agents);
        let listen_ports = agents
            .iter()
            .map(|a| a.services.iter().filter_map(|s| s.nominal_port).collect())
            .collect();
        let mut signatures: Vec<Vec<&str>> = vec![Vec::new(); agents.len()];
        let mut dial_ports: Vec<Vec<i64>> = vec![Vec::new(); agents.len()];
        for site in &sites {
            if let Some(signature) = signatures.get_mut(site.agent) {
                signature.push(&site.node.addr);
            }
            if let (Some(ports), Some(p)) = (dial_ports.get_mut(site.agent), site.node.port) {
                ports.push(p);
            }
        }
        for signature in &mut signatures {
            crate::sorting::sort(signature);
        }
        Tunnel {
            agents,
            table_ports,
            sites,
            hops,
            listen_ports,
            dial_ports,
            signatures,
        }
    }

    /// The hosts agent `i` is dialed by, from the node table.
    fn addresses(&self, i: usize) -> &'a [String] {
        self.agents.get(i).map_or(&[], |a| a.addresses.as_slice())
    }

    fn label(&self, i: usize) -> &'a str {
        self.agents.get(i).map_or("", |a| a.label.as_str())
    }

    fn dials_back(&self, c: usize, ai: usize) -> bool {
        dials_back(&self.dial_ports, &self.listen_ports, c, ai)
    }

    /// Nodes of one hop dial the same targets, and a hop's targets are the
    /// whole next hop (or all exits): the agents with services, grouped so.
    fn groups(&self) -> Vec<Group<'_>> {
        let mut groups: Vec<Group> = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            if a.services.is_empty() {
                continue;
            }
            let key: &[&str] = if a.chains.is_empty() {
                &["<exit>"]
            } else {
                row(&self.signatures, i)
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(i),
                None => groups.push((key, vec![i])),
            }
        }
        groups
    }

    /// Without a node table, every chain node's agent from the group its hop
    /// matches as a whole (see [`Tunnel::group_for`]); `None` where no group
    /// matches, and for every node when there is a table.
    fn group_picks(&self) -> Vec<Option<usize>> {
        let mut picks: Vec<Option<usize>> = vec![None; self.sites.len()];
        if !self.table_ports.is_empty() {
            return picks;
        }
        let groups = self.groups();
        for &(ai, hop, first) in &self.hops {
            let members = self.group_for(&groups, ai, hop);
            for (ni, m) in members.into_iter().flatten().enumerate() {
                if let Some(slot) = picks.get_mut(first + ni) {
                    *slot = Some(m);
                }
            }
        }
        picks
    }

    /// The members of the group that takes every node of agent `ai`'s `hop`
    /// (see [`Tunnel::seat_hop`]), one per node; a group as wide as the hop
    /// wins, else the first that fits. A group holding `ai`, or an agent
    /// dialing back to it, is upstream and not matched.
    fn group_for(&self, groups: &[Group<'_>], ai: usize, hop: &Hop) -> Option<Vec<usize>> {
        let mut best: Option<Vec<usize>> = None;
        for (_, members) in groups {
            if members.contains(&ai) || members.iter().any(|&m| self.dials_back(m, ai)) {
                continue;
            }
            let Some(seated) = self.seat_hop(members, hop) else {
                continue;
            };
            let exact = members.len() == hop.nodes.len();
            if best.is_none() || exact {
                best = Some(seated);
                if exact {
                    break;
                }
            }
        }
        best
    }

    /// A distinct member for every node of `hop`, in node order; `None` when
    /// a node has no port or no free member listens on it.
    fn seat_hop(&self, members: &[usize], hop: &Hop) -> Option<Vec<usize>> {
        let mut used: Vec<usize> = Vec::new();
        for node in &hop.nodes {
            let port = node.port?;
            // A free member bound to the dialed host, else any on the port.
            let pick = [Some(node.host.as_str()), None]
                .into_iter()
                .find_map(|host| {
                    members
                        .iter()
                        .copied()
                        .find(|m| !used.contains(m) && listens_on(self.agents, *m, port, host))
                })?;
            used.push(pick);
        }
        Some(used)
    }

    fn indexes(&self) -> Indexes<'a> {
        let mut table_by_port: Vec<(i64, usize)> =
            self.table_ports.iter().map(|&(i, p)| (p, i)).collect();
        let mut table_by_host: Vec<(&str, usize)> = Vec::new();
        for &(idx, _) in self.table_ports {
            table_by_host.extend(first_of_each(self.addresses(idx)).map(|h| (h.as_str(), idx)));
        }
        let mut listeners: Vec<(i64, usize)> = Vec::new();
        for (idx, ports) in self.listen_ports.iter().enumerate() {
            listeners.extend(first_of_each(ports).map(|&p| (p, idx)));
        }
        crate::sorting::sort_by_key(&mut table_by_port, |&(port, _)| port);
        crate::sorting::sort_by_key(&mut listeners, |&(port, _)| port);
        crate::sorting::sort_by_key(&mut table_by_host, |&(host, _)| host);
        Indexes {
            table_by_port,
            table_by_host,
            listeners,
        }
    }

    /// The candidate agents of every chain node (see [`Tunnel::candidates_of`]).
    fn candidates(
        &self,
        group_picks: &[Option<usize>],
        notes: &mut Vec<String>,
    ) -> Vec<Vec<usize>> {
        let index = self.indexes();
        let mut cands: Vec<Vec<usize>> = Vec::with_capacity(self.sites.len());
        for (k, site) in self.sites.iter().enumerate() {
            let pick = group_picks.get(k).copied().flatten();
            cands.push(self.candidates_of(site, pick, &index, notes));
        }
        cands
    }

    /// The agents that may listen behind a chain node, by the first rule that
    /// finds any: the node table (that host on that port), the group pick,
    /// the agents listening on the port bound to the dialed host, any
    /// listening on the port, the one table node dialed by that host.
    fn candidates_of(
        &self,
        site: &Site<'a>,
        group_pick: Option<usize>,
        index: &Indexes<'a>,
        notes: &mut Vec<String>,
    ) -> Vec<usize> {
        let (ai, node) = (site.agent, site.node);
        let Some(port) = node.port else {
            return Vec::new();
        };
        let by_table = kept(&filed_under(&index.table_by_port, port, ai), &|idx| {
            self.addresses(idx).contains(&node.host)
        });
        if !by_table.is_empty() {
            return by_table;
        }
        if let Some(g) = group_pick {
            return vec![g];
        }
        let listening = filed_under(&index.listeners, port, ai);
        let exact = kept(&listening, &|idx| {
            listens_on(self.agents, idx, port, Some(&node.host))
        });
        if !exact.is_empty() {
            exact
        } else if !listening.is_empty() {
            listening
        } else {
            self.only_table_node_on_host(site, index, notes)
        }
    }

    /// The table node dialed by the chain node's host, when exactly one is
    /// (with a note: nothing of it listens on the dialed port); else none.
    fn only_table_node_on_host(
        &self,
        site: &Site<'a>,
        index: &Indexes<'a>,
        notes: &mut Vec<String>,
    ) -> Vec<usize> {
        let node = site.node;
        let by_host = filed_under(&index.table_by_host, node.host.as_str(), site.agent);
        if by_host.len() != 1 {
            return Vec::new();
        }
        note(
            notes,
            format_args!(
                "{}: {} ({}) dials a tunnel node on a port where it has no service",
                self.label(site.agent),
                node.name,
                node.addr
            ),
        );
        by_host
    }

    /// Walks the tunnel from its entries, layer by layer: where a chain node
    /// has several candidates, one already reached at an earlier or the same
    /// layer as the agent dialing it is dropped.
    fn narrow_by_layers(&self, cands: &mut [Vec<usize>]) {
        let n = self.agents.len();
        let mut layer: Vec<Option<usize>> = vec![None; n];
        let mut queue: Vec<usize> = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            if a.role.as_deref() == Some("entry") {
                if let Some(slot) = layer.get_mut(i) {
                    *slot = Some(0);
                }
                queue.push(i);
            }
        }
        let mut done = vec![false; n];
        let mut head = 0;
        while let Some(&ai) = queue.get(head) {
            head += 1;
            match done.get_mut(ai) {
                Some(seen) if !*seen => *seen = true,
                _ => continue,
            }
            let my = layer.get(ai).copied().flatten().unwrap_or(0);
            let mine = self.sites.partition_point(|s| s.agent < ai)
                ..self.sites.partition_point(|s| s.agent <= ai);
            for list in cands.get_mut(mine).into_iter().flatten() {
                narrow(list, &|c| {
                    layer.get(c).copied().flatten().is_none_or(|l| l > my)
                });
                for &c in list.iter() {
                    if let Some(slot) = layer.get_mut(c) {
                        if slot.is_none() {
                            *slot = Some(my + 1);
                            queue.push(c);
                        }
                    }
                }
            }
        }
    }

    /// Every chain node's target among its candidates (see [`Tunnel::choose_one`]).
    fn choose(&self, cands: Vec<Vec<usize>>, notes: &mut Vec<String>) -> Vec<Option<usize>> {
        let mut targets = Vec::with_capacity(self.sites.len());
        // Agents already taken by the current hop.
        let mut used: Vec<usize> = Vec::new();
        let mut used_hop = usize::MAX;
        for (site, list) in self.sites.iter().zip(cands) {
            if site.hop != used_hop {
                used.clear();
                used_hop = site.hop;
            }
            let found = self.choose_one(site, list, &used, notes);
            if let Some(idx) = found {
                used.push(idx);
            }
            targets.push(found);
        }
        targets
    }

    /// A chain node's target: among its candidates, upstream agents and
    /// siblings dialing the same targets dropped (unless that leaves none),
    /// the first not already `used` by its hop, else the first; with a note
    /// when the choice is a guess or there is none.
    fn choose_one(
        &self,
        site: &Site<'a>,
        mut list: Vec<usize>,
        used: &[usize],
        notes: &mut Vec<String>,
    ) -> Option<usize> {
        let (ai, node) = (site.agent, site.node);
        // A node whose own chain dials back to this node's ports is upstream, not a target.
        narrow(&mut list, &|c| !self.dials_back(c, ai));
        let my_signature = row(&self.signatures, ai);
        if !my_signature.is_empty() {
            narrow(&mut list, &|i| row(&self.signatures, i) != my_signature);
        }
        let label = self.label(ai);
        if list.len() > 1 {
            note(notes, format_args!(
                "{label}: {} ({}) matches {} nodes by port only; assumed the first one in plan order not already used by this hop",
                node.name,
                node.addr,
                list.len()
            ));
        }
        let found = list
            .iter()
            .copied()
            .find(|i| !used.contains(i))
            .or(list.first().copied());
        if found.is_none() && node.port.is_some() {
            note(notes, format_args!(
                "{label}: {} dials {}, where no node of this plan listens; treated as a reachable host outside the plan",
                node.name, node.addr
            ));
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A node config read through the model by the simulator's rules: fields
    /// under their exact names only, loose values coerced with a note.
    #[test]
    fn node_config_through_the_model() {
        let doc = json!({
            "services": [
                {"name": "s", "addr": ":8080", "handler": {"chain": " c ", "retries": "2",
                    "metadata": {"HASH": "host"}}},
                {"name": "t", "addr": "[::]:9", "Handler": {"chain": "c", "retries": 1}},
            ],
            "chains": [{"name": "c", "hops": [
                {"name": "h", "selector": {"strategy": "fifo", "maxFails": 2, "failTimeout": "5s"},
                 "nodes": [
                    {"name": "n", "addr": "10.0.0.1:80", "connector": {"type": "relay",
                        "metadata": {"nodelay": "true"}},
                     "metadata": {"maxFails": "3", "failTimeout": 2, "backup": true, "weight": 2.5}},
                    {"Addr": "10.0.0.2:80", "connector": {"type": "tcp"}},
                 ]},
                {"Nodes": [{"addr": "10.0.0.3:80"}]},
            ]}],
        });
        let arena = crate::json::tree::Arena::new();
        let world = from_node_config(&crate::encode::to_tree(&doc, &arena));
        assert_eq!(
            world.notes,
            [
                "this node: service s: handler.retries \"2\" is not an integer; the agent rejects it (counted as 0 here)",
                "this node: chain c hop 0: failTimeout is the string \"5s\"; AddChains rejects it (read as a Go duration here)",
            ]
        );
        let agent = &world.agents[0];
        let s = &agent.services[0];
        assert_eq!(
            (
                s.host.as_str(),
                s.port,
                s.chain.as_deref(),
                s.retries,
                s.hash_host
            ),
            ("", Some(8080), Some("c"), 0, true)
        );
        // `Handler` is not `handler`: no chain, no retries.
        let t = &agent.services[1];
        assert_eq!(
            (t.host.as_str(), t.port, t.chain.as_deref(), t.retries),
            ("::", Some(9), None, 0)
        );
        let hops = &agent.chains[0].hops;
        assert_eq!(hops.len(), 2);
        let h = &hops[0];
        assert_eq!(
            (h.strategy.as_str(), h.max_fails, h.fail_timeout_ns),
            ("fifo", 2, 5_000_000_000)
        );
        let n = &h.nodes[0];
        assert_eq!(
            (n.name.as_str(), n.host.as_str(), n.port, n.waits_reply),
            ("n", "10.0.0.1", Some(80), true)
        );
        assert_eq!(
            (n.md_max_fails, n.md_fail_timeout_ns, n.backup, n.weight),
            (Some(3), Some(2_000_000_000), true, 2)
        );
        // `Addr` is not `addr`: a node without an address.
        let m = &h.nodes[1];
        assert_eq!(
            (m.name.as_str(), m.addr.as_str(), m.port, m.waits_reply),
            ("node_2", "", None, false)
        );
        // A hop without a selector gets GOST's defaults; `Nodes` lists nothing.
        let g = &hops[1];
        assert_eq!(
            (g.strategy.as_str(), g.max_fails, g.fail_timeout_ns),
            ("round", 1, DEFAULT_FAIL_TIMEOUT_NS)
        );
        assert!(g.nodes.is_empty());
    }
}
