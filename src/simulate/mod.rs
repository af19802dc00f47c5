//! Failover simulator: replays what GOST agents do, dial by dial,
//! when some nodes of a tunnel are dead.
//!
//! `simulate(doc, scenario)` takes a plan (the golden `expected` shape, with or
//! without the `nodes` table), a tunnel input `{tunnel, nodes}` (planned first
//! with [`crate::planner::plan`]), one node's GOST config `{services, chains}`,
//! or what a lifecycle replay left deployed (its report, or its `state`).
//!
//! The model follows the agent source (`go-gost/x/chain/router.go`, `route.go`,
//! `chain.go`, `hop/hop.go`, `selector/*.go`, `connector/relay`):
//!
//! * A request enters at the entry node (the first `entry` of the plan unless
//!   `scenario.entry` names another). The entry's forward service has no
//!   `retries` (flvx never sets them), so its router builds one route unless
//!   `scenario.entryRetries` says otherwise. For a node config the first
//!   service with a chain is the entry and its own `handler.retries` count.
//! * Each router tries `retries + 1` times (at least once); every try builds a
//!   new route: per hop, the fail filter (skipped when the hop has at most one
//!   node; `failures >= maxFails` marked within `failTimeout` are dropped;
//!   `maxFails <= 0` counts as 1, `failTimeout <= 0` as 10 s; node metadata
//!   `maxFails`/`failTimeout` override the selector's), then the backup filter,
//!   then the strategy (`round`/`rr` with one counter per hop, `random`/`rand`
//!   weighted, `fifo`/`ha`, `hash` keyed on the client IP the service saw, or
//!   on the destination with handler metadata `hash: host`; any other name is
//!   round robin). Strategy names are case-sensitive.
//! * Dialing a dead node (or a port where nothing listens) fails and marks the
//!   node: failure count + 1, time = now truncated to whole seconds (GOST keeps
//!   Unix seconds). A successful handshake resets the count to 0.
//! * A node that accepts but cannot reach its own next hop answers the relay
//!   request with an error. When the connector waits for that answer
//!   (`relay` with `nodelay: true`, as flvx sets for tls/mtls/mtcp) the attempt
//!   fails without marking the node and the router tries again. Without
//!   `nodelay` (kcp, ws, tcp, ...) the connector returns at once, the router
//!   counts the try as a success (`ok: true`, `carried: false`) and the request
//!   fails later with no retry. A node whose router counted such a success
//!   answers its own caller with OK, so callers further up do not retry either.
//! * A tunnel's own entry forwards to one destination, so the forward
//!   handler's per-target loop adds no tries there. When the document
//!   deploys forwards, requests enter at a forward service instead
//!   (`scenario.forward`, default the first): its handler tries up to
//!   `maxRetries` targets (default: each target once), each chosen among
//!   those not tried yet by the forwarder's selector, each one router dial
//!   over the service's chain; a failed dial marks the target, whatever
//!   failed, a dial the router counted as a success resets it, and a
//!   transfer that breaks after such a dial marks it again and ends the
//!   request (`go-gost/x/handler/forward/local/handler.go:181-275`). Targets
//!   are marked and filtered like chain nodes. A dead target
//!   (`scenario.deadTargets`) fails the node that dials it.
//! * When a hop has no candidate left the route is empty and that node dials
//!   the destination itself (`direct: true`): traffic leaves from a middle
//!   node, bypassing the exits, until a mark expires.
//! * The destination is always reachable; all dials of one request happen at
//!   its start time; request `i` (1-based) starts at `startMs + (i-1) * gapMs`.
//!
//! Scenario JSON (camelCase, every field optional): `dead` (node ids as numbers
//! or strings, node names from the plan's node table, or `host:port` addresses), `requests` (3), `startMs` (0),
//! `gapMs` (1000), `seed` (1, drives `rand` and a `hash` without a source),
//! `entry` (node id), `entryRetries` (0), `clientIp` ("192.0.2.10"),
//! `destination` ("example.com:443"); with forwards `forward`, `deadTargets`
//! (addresses as written in `forwarder.nodes`, or 1-based positions),
//! `maxFails`, `failTimeout` (Go duration or ns) and `retries` (what-if
//! values for the forward), and `reviveAtMs` (from then on nothing is dead).

/// The TypeScript of what the simulator accepts. A declaration only: the
/// simulator tells the documents apart by their shape in the tree.
#[cfg(any(test, target_arch = "wasm32"))]
mod documents {
    #![allow(dead_code, clippy::large_enum_variant)]
    use crate::check::documents::{NodeConfig, PlanDocument};
    use crate::plan::Plan;
    use crate::planner::request::TunnelRequest;
    use tsify_next::Tsify;

    /// What the simulator accepts.
    #[derive(Tsify)]
    #[serde(untagged)]
    pub enum SimulateDocument {
        Tunnel(#[tsify(type = "TunnelInput")] TunnelRequest),
        Plan(Plan),
        PlanDocument(PlanDocument),
        Config(NodeConfig),
    }
}

mod engine;
mod text;
pub(crate) mod util;
pub(crate) mod world;

use crate::encode::shape;
use crate::error::ApiError;
use crate::json::tree::{Arena, TreeValue};
use serde::Deserialize;
use serde_json::Value;

pub use text::trace_text;

/// What to simulate: every field is optional, unknown keys are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct Scenario {
    /// Dead nodes: node ids (numbers or numeric strings), node names or `host:port` strings.
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "NodeSelector[]")
    )]
    #[serde(deserialize_with = "NumberOrText::list")]
    pub dead: Vec<NumberOrText>,
    /// Number of requests (default 3).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::count")]
    pub requests: Option<u32>,
    /// Time of the first request in milliseconds (default 0).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub start_ms: Option<i64>,
    /// Time between requests in milliseconds (default 1000).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub gap_ms: Option<i64>,
    /// Seed for `rand` and for `hash` without a source (default 1).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::unsigned")]
    pub seed: Option<u64>,
    /// Entry node (default: the first entry).
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "NodeSelector")
    )]
    #[serde(deserialize_with = "NumberOrText::given")]
    pub entry: Option<NumberOrText>,
    /// Retries of the entry's forward service (default 0, as flvx deploys it).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub entry_retries: Option<i64>,
    /// Client address the entry sees (the `hash` strategy's source there).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::string")]
    pub client_ip: Option<String>,
    /// Requested destination (`hash: host` source).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::string")]
    pub destination: Option<String>,
    /// The forward whose service requests enter at, when the document
    /// deploys forwards: its id (number or numeric string), its services'
    /// name base `<forwardId>_<userId>_<userTunnelId>`, a service's full
    /// name, or the forward's name from the plan's `db.forward` rows
    /// (default: the first forward service).
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "number | string")
    )]
    #[serde(deserialize_with = "NumberOrText::given")]
    pub forward: Option<NumberOrText>,
    /// Dead targets of that forward: addresses exactly as written in its
    /// `forwarder.nodes` (strings), or 1-based positions in that list (numbers).
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "(number | string)[]")
    )]
    #[serde(deserialize_with = "NumberOrText::list")]
    pub dead_targets: Vec<NumberOrText>,
    /// What if: the forward's target selector's `maxFails` (flvx: 1).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub max_fails: Option<i64>,
    /// What if: its `failTimeout`, a Go duration (`"30s"`) or nanoseconds (flvx: `"600s"`).
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "number | string")
    )]
    #[serde(deserialize_with = "NumberOrText::given")]
    pub fail_timeout: Option<NumberOrText>,
    /// What if: the forward service's `handler.retries` (flvx sets none: 0).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub retries: Option<i64>,
    /// From this time on (ms) every dead node, address and target is alive again.
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional))]
    #[serde(deserialize_with = "crate::options::field::signed")]
    pub revive_at_ms: Option<i64>,
    /// Size limits of the document and of the trace (`maxOutputBytes`).
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional, type = "Limits"))]
    #[serde(deserialize_with = "crate::limits::Limits::given")]
    pub limits: crate::limits::Limits,
}

impl Scenario {
    /// Reads a scenario object (camelCase keys, every field optional,
    /// unknown keys ignored, `null` for "use the default").
    pub fn from_json(v: &Value) -> Result<Scenario, crate::options::OptionError> {
        crate::options::read_value(v)
    }
}

/// A scenario field given as a number or a text: a node it names (`dead`,
/// `entry`: an id, a numeric string, a name or a `host:port`), the forward,
/// a dead target, a fail timeout; each field reads it by its own rule.
/// Anything else is kept, to be named in the error it gets.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[cfg_attr(any(test, target_arch = "wasm32"), serde(untagged))]
pub enum NumberOrText {
    Number(
        #[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = "number"))] serde_json::Number,
    ),
    Text(String),
    #[cfg_attr(any(test, target_arch = "wasm32"), serde(skip))]
    Other(Value),
}

/// The TypeScript name of what `dead` and `entry` take: a node, by id (a
/// number or a numeric string), name or `host:port`.
pub const NODE_SELECTOR_TS: &str = r#"
/** A node a scenario names: its id (a number or a numeric string), its name, or a `host:port` it listens on. */
export type NodeSelector = NumberOrText;
"#;

impl From<Value> for NumberOrText {
    fn from(v: Value) -> NumberOrText {
        match v {
            Value::Number(n) => NumberOrText::Number(n),
            Value::String(s) => NumberOrText::Text(s),
            other => NumberOrText::Other(other),
        }
    }
}

impl NumberOrText {
    /// `deserialize_with` reader of a scenario's list of selectors.
    fn list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<NumberOrText>, D::Error> {
        let items = crate::options::field::list(d)?;
        Ok(items.into_iter().map(NumberOrText::from).collect())
    }

    /// `deserialize_with` reader of one selector; `null` is none.
    fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<NumberOrText>, D::Error> {
        Ok(crate::options::field::given(d)?.map(NumberOrText::from))
    }

    /// The node id it names: a whole number, or a numeric string (as the
    /// plan names nodes, [`crate::go::coerce::loose_id`]).
    pub(crate) fn id(&self) -> Option<i64> {
        match self {
            NumberOrText::Number(n) => crate::go::coerce::json_whole_number(n),
            NumberOrText::Text(s) => crate::go::coerce::id_text(s),
            NumberOrText::Other(_) => None,
        }
    }

    /// The text given, trimmed.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            NumberOrText::Text(s) => Some(s.trim()),
            _ => None,
        }
    }

    /// The number given.
    pub(crate) fn number(&self) -> Option<&serde_json::Number> {
        match self {
            NumberOrText::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The selector as given, for messages.
    pub(crate) fn given_value(&self) -> Value {
        match self {
            NumberOrText::Number(n) => Value::Number(n.clone()),
            NumberOrText::Text(s) => Value::String(s.clone()),
            NumberOrText::Other(v) => v.clone(),
        }
    }
}

/// Upper bounds that keep a hostile scenario or document cheap.
pub const MAX_REQUESTS: u32 = 10_000;
pub const MAX_ATTEMPTS: usize = 200_000;
pub const MAX_ROUNDS: i64 = 1_000;

shape! {
    #[doc = " One candidate of a hop when a route was built."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Candidate {
        pub node: String => "node",
        pub addr: String => "addr",
        pub to_node_id: Option<i64> => "toNodeId",
        #[doc = " Still selectable after the filters."]
        pub kept: bool => "kept",
        pub reason: String => "reason",
    }
}

shape! {
    #[doc = " One dial: `fromNodeId` dials `toNodeId` at `addr`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Attempt {
        #[doc = " Order of the dial within the request (0-based)."]
        pub seq: usize => "seq",
        #[doc = " 0 for the entry's dials, 1 for the next node's, ..."]
        pub depth: usize => "depth",
        pub from_node_id: Option<i64> => "fromNodeId",
        pub to_node_id: Option<i64> => "toNodeId",
        pub addr: String => "addr",
        #[doc = " Chain node name (`node_2`)."]
        pub node: String => "node",
        pub chain: String => "chain",
        pub hop: String => "hop",
        #[doc = " Which try of the dialing router (0-based) and how many it may make."]
        pub round: i64 => "round",
        pub rounds: i64 => "rounds",
        #[doc = " The dialing router counted this try as a success."]
        pub ok: bool => "ok",
        #[doc = " The dialed node accepted the connection."]
        pub alive: bool => "alive",
        #[doc = " The request went through this dial to the destination."]
        pub carried: bool => "carried",
        #[doc = " The dialed node was marked failed by this dial."]
        pub marked: bool => "marked",
        #[doc = " Its failure count after this dial."]
        pub failures: i64 => "failures",
        #[doc = " How the node was chosen (strategy, and how many candidates were left)."]
        pub selection: String => "selection",
        pub candidates: Vec<Candidate> => "candidates",
        pub reason: String => "reason",
    }
}

shape! {
    #[doc = " One try of a forward handler's target loop: a target chosen among"]
    #[doc = " those not tried yet, then one router dial towards it."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct TargetTry {
        #[doc = " Which try of the loop (0-based) and how many it may make."]
        pub round: usize => "try",
        pub rounds: usize => "tries",
        #[doc = " The target's address as written in `forwarder.nodes`."]
        pub target: String => "target",
        pub node: String => "node",
        #[doc = " The scenario made this target dead."]
        pub dead: bool => "dead",
        #[doc = " How the target was chosen (strategy, and how many were left)."]
        pub selection: String => "selection",
        pub candidates: Vec<Candidate> => "candidates",
        #[doc = " Its dials are `attempts[firstSeq .. firstSeq + dials]`."]
        pub first_seq: usize => "firstSeq",
        pub dials: usize => "dials",
        #[doc = " The router's dial succeeded."]
        pub ok: bool => "ok",
        #[doc = " The request reached the target through this try."]
        pub carried: bool => "carried",
        #[doc = " The handler marked the target failed."]
        pub marked: bool => "marked",
        #[doc = " The target's failure count after this try."]
        pub failures: i64 => "failures",
        #[doc = " Until when the mark keeps the target out of the selection (ms)."]
        pub marked_until_ms: Option<i64> => "markedUntilMs" optional,
        pub reason: String => "reason",
    }
}

shape! {
    #[doc = " A target the scenario keeps alive that a request did not try because"]
    #[doc = " of an earlier mark."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct SkippedTarget {
        pub target: String => "target",
        pub node: String => "node",
        #[doc = " The fail filter lets it back in from this time (ms)."]
        pub until_ms: i64 => "untilMs",
        pub reason: String => "reason",
    }
}

shape! {
    #[doc = " The forward service requests enter at, and its target loop's settings"]
    #[doc = " (after the scenario's overrides)."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct TraceForward {
        pub service: String => "service",
        pub forward_id: Option<i64> => "forwardId",
        pub name: Option<String> => "name",
        pub node_id: Option<i64> => "nodeId",
        #[doc = " The chain its router dials over (null: it dials the targets itself)."]
        pub chain: Option<String> => "chain",
        pub targets: Vec<String> => "targets",
        pub strategy: String => "strategy",
        pub max_fails: i64 => "maxFails",
        pub fail_timeout_ms: i64 => "failTimeoutMs",
        #[doc = " Targets one request may try, and the router's retries per try."]
        pub tries: usize => "tries",
        pub retries: i64 => "retries",
    }
}

shape! {
    #[doc = " One request from the entry to the destination."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct RequestTrace {
        #[doc = " 1-based."]
        pub index: u32 => "index",
        pub time_ms: i64 => "timeMs",
        pub ok: bool => "ok",
        #[doc = " The exit that carried the request to the destination, or null."]
        pub exit_node_id: Option<i64> => "exitNodeId",
        #[doc = " Address of the last hop when it is outside the document."]
        pub exit_addr: Option<String> => "exitAddr" optional,
        #[doc = " A node dialed the destination itself because its hop had no candidate left."]
        pub direct: bool => "direct",
        pub direct_from_node_id: Option<i64> => "directFromNodeId" optional,
        pub attempts: Vec<Attempt> => "attempts",
        pub outcome: String => "outcome",
        #[doc = " Forwards only: the target that carried the request."]
        pub target: Option<String> => "target" optional,
        #[doc = " Forwards only: the handler's target loop, try by try."]
        pub target_tries: Option<Vec<TargetTry>> => "targetTries" optional,
        #[doc = " Forwards only: live targets left out because of a mark."]
        pub skipped_healthy: Option<Vec<SkippedTarget>> => "skippedHealthy" optional,
    }
}

shape! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Summary as TraceSummary {
        pub requests: usize => "requests",
        pub ok: usize => "ok",
        pub failed: usize => "failed",
        pub direct: usize => "direct",
        pub attempts: usize => "attempts",
        pub failed_attempts: usize => "failedAttempts",
    }
}

shape! {
    #[doc = " The whole simulation."]
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Trace {
        pub entry_node_id: Option<i64> => "entryNodeId",
        pub requests: Vec<RequestTrace> => "requests",
        pub summary: Summary => "summary": "TraceSummary",
        #[doc = " Assumptions and document problems worth knowing when reading the trace."]
        pub notes: Vec<String> => "notes",
        #[doc = " The attempt budget ran out; later dials are missing."]
        pub truncated: bool => "truncated",
        #[doc = " Requests entered at this forward service (documents with forwards)."]
        pub forward: Option<TraceForward> => "forward" optional,
    }
}

/// Runs the scenario against the document. Errors only when the document
/// cannot be simulated at all (unreadable, rejected by the server, no entry).
pub fn simulate(doc: &Value, scenario: &Scenario) -> Result<Trace, ApiError> {
    crate::limits::check_value(doc, &scenario.limits).map_err(|e| e.to_api_error())?;
    // The simulator reads a document tree: this one built from the value.
    let arena = Arena::new();
    simulate_within(&crate::encode::to_tree(doc, &arena), scenario)
}

/// [`simulate`] of a document tree already read within the scenario's
/// limits (`simulateJson`'s text, counted while it was read).
pub(crate) fn simulate_within(doc: &TreeValue<'_>, scenario: &Scenario) -> Result<Trace, ApiError> {
    engine::run(&world_of(doc, &scenario.limits)?, scenario)
}

/// The world of a plan, a tunnel input, a lifecycle state (or a report
/// holding one) or a node config, tried in that order.
fn world_of(doc: &TreeValue<'_>, limits: &crate::limits::Limits) -> Result<world::World, ApiError> {
    if world::is_plan(doc) {
        return world::from_plan(doc);
    }
    if doc.get("tunnel").is_some() && doc.get("nodes").is_some() {
        // Planned as `plan` plans it (the planner counts it against
        // `limits`: over one, the call fails as at the reader's own limits);
        // the plan read as the tree its text would read into (no text).
        let mode = crate::planner::PlanMode::detect(doc);
        let plan = crate::planner::plan_within(doc, mode, limits);
        if let Some(e) = plan.limit_error_at(String::new) {
            return Err(e);
        }
        let arena = Arena::new();
        return world::from_plan(&crate::encode::to_tree(&plan, &arena));
    }
    let state = Some(doc)
        .filter(|d| world::is_state(d))
        .or_else(|| doc.get("state").filter(|s| world::is_state(s)));
    if let Some(state) = state {
        return world::from_state(state);
    }
    if world::is_node_config(doc) {
        return Ok(world::from_node_config(doc));
    }
    Err(ApiError::new(
        "IN001",
        "expected a plan ({error, federation, local}), a tunnel input ({tunnel, nodes}), a node config ({services, chains}) or a lifecycle state",
        "",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scenario_names_nodes_by_id_name_or_address() {
        let given = json!({"dead": [3, "4", " 5 ", 2.0, 1.5, "a:1", {"a": 1}, true], "entry": "7"});
        let sc = Scenario::from_json(&given).unwrap();
        let ids: Vec<Option<i64>> = sc.dead.iter().map(NumberOrText::id).collect();
        assert_eq!(
            ids,
            [Some(3), Some(4), Some(5), Some(2), None, None, None, None]
        );
        assert_eq!(sc.entry.as_ref().and_then(NumberOrText::id), Some(7));
        let doc = crate::plan::tests::federated_middle_input();
        let refused = |dead: Value| {
            let sc = Scenario::from_json(&json!({ "dead": [dead] })).unwrap();
            simulate(&doc, &sc).map(|_| ()).map_err(|e| e.message)
        };
        // A string with a colon is an address; anything else that names no
        // node is neither (an object too, though its text has a colon).
        let not_address = "dead entry \"x:y\" is not host:port";
        assert_eq!(refused(json!("x:y")), Err(not_address.into()));
        let neither = "dead entry {\"a\":1} is neither a node id nor host:port";
        assert_eq!(refused(json!({"a": 1})), Err(neither.into()));
        assert_eq!(refused(json!(1)), Ok(()));
    }
}
