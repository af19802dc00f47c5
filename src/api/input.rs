//! TypeScript declarations of what the code does not read as one serde
//! type: the stored tables' generic row (`DbRow`), the loose values
//! (`JsonValue`, `Loose`, `Token`), a lifecycle step, the document unions,
//! and the closed sets the core writes as plain strings (`Role`,
//! `NodeRole`, `CommandName`, ...). No code builds these types. The inputs
//! the code reads as serde types carry their own declarations
//! (`planner::request::TunnelRequest` and `RedeployInput`,
//! `planner::stored::StoredTables`, `model::NodeRow`, `model::TunnelPayload`,
//! `forward::input::ForwardContext` and the forward bodies,
//! `planner::PlanOptions`, `limits::Limits`, `simulate::Scenario`,
//! `check::CheckOptions`, ...); `TunnelInput` is the alias
//! `TunnelRequest & ForwardContext`.
//! `tests/node/declarations.test.mjs` checks every golden input and every
//! kind of output against the shipped `.d.ts` with `tsc --strict`.

// Declarations only, never built on a hot path.
#![allow(clippy::large_enum_variant, dead_code)]

use crate::plan::{
    Assumption, ChainConfig, Command, FederationStep, Plan, PlanNode, ServiceConfig,
};
use crate::planner::request::TunnelRequest;
use std::collections::BTreeMap;
use tsify_next::Tsify;

/// Any JSON value.
#[derive(Tsify)]
#[serde(untagged)]
pub enum JsonValue {
    Null(()),
    Bool(bool),
    Number(#[tsify(type = "number")] serde_json::Number),
    String(String),
    Array(Vec<JsonValue>),
    Object(#[tsify(type = "{ [key: string]: JsonValue }")] BTreeMap<String, JsonValue>),
}

/// A share token, or the presence marker `true` (`false` or `null`: none).
#[derive(Tsify)]
#[serde(untagged)]
pub enum Token {
    Marker(bool),
    Value(Loose),
}

/// A loosely typed panel value: the server coerces numbers given as
/// strings and trims strings; null means empty.
#[derive(Tsify)]
#[serde(untagged)]
pub enum Loose {
    Number(#[tsify(type = "number")] serde_json::Number),
    String(String),
    Null(()),
}

/// A row of a table as the panel's database stores it: column names of
/// model.go, SQL NULL as `null`. Columns the server does not read are allowed.
#[derive(Tsify)]
#[serde(transparent)]
pub struct DbRow(
    #[tsify(type = "{ [column: string]: JsonValue }")] pub BTreeMap<String, JsonValue>,
);

/// What `planTunnel` and `checkTunnel` take.
#[derive(Tsify)]
#[serde(untagged)]
pub enum PlanInput {
    Tunnel(#[tsify(type = "TunnelInput")] TunnelRequest),
    Redeploy(#[tsify(type = "RedeployInput")] crate::planner::request::RedeployRequest),
}

/// A plan as a document to check or simulate: the node table is optional
/// (golden vectors and plans captured elsewhere have none).
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PlanDocument {
    #[tsify(optional)]
    pub error: Option<JsonValue>,
    pub federation: Vec<FederationStep>,
    pub local: Vec<Command>,
    #[tsify(optional)]
    pub nodes: Option<Vec<PlanNode>>,
    #[tsify(optional)]
    #[tsify(type = "PlanMode")]
    pub mode: Option<crate::planner::PlanMode>,
    #[tsify(optional)]
    pub assumed: Option<Vec<Assumption>>,
}

/// One node's GOST config.
#[derive(Tsify)]
pub struct NodeConfig {
    #[tsify(optional)]
    #[tsify(type = "Service[]")]
    pub services: Option<Vec<ServiceConfig>>,
    #[tsify(optional)]
    #[tsify(type = "Chain[]")]
    pub chains: Option<Vec<ChainConfig>>,
}

/// What the checker accepts (it may also be any other JSON value, which it
/// reports as unreadable).
#[derive(Tsify)]
#[serde(untagged)]
pub enum CheckDocument {
    Tunnel(#[tsify(type = "TunnelInput")] TunnelRequest),
    Plan(Plan),
    PlanDocument(PlanDocument),
    Config(NodeConfig),
    Commands(Vec<Command>),
    Other(JsonValue),
}

/// What the simulator accepts.
#[derive(Tsify)]
#[serde(untagged)]
pub enum SimulateDocument {
    Tunnel(#[tsify(type = "TunnelInput")] TunnelRequest),
    Plan(Plan),
    PlanDocument(PlanDocument),
    Config(NodeConfig),
}

/// What every lifecycle step has beside the fields the replay reads as
/// serde types (`lifecycle::step::TunnelStep`, the forward and report
/// steps' own): its `op`, and an apply's document, taken as it is (the
/// plan reader or the planner reads it). `LifecycleStep` is their
/// intersection.
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StepHead {
    pub op: crate::lifecycle::LifecycleOp,
    /// The plan applied (`apply`, `edit`, `applyError`)...
    #[tsify(optional)]
    pub plan: Option<PlanDocument>,
    /// ...or the tunnel input, planned first.
    #[tsify(optional, type = "TunnelInput | RedeployInput")]
    pub input: Option<TunnelRequest>,
}

/// The closed sets, hand-written (`FindingCode` is tested against the
/// checker's rule table in `tests/node/declarations.test.mjs`), and the
/// aliases of the tunnel input and the lifecycle step.
/// wasm-bindgen copies the text into the declarations at compile time.
pub const CLOSED_SETS_TS: &str = r#"
/**
 * The input of a create (`{tunnel, nodes, federation?}`) or an edit (the
 * same plus `before`). `forward-create` adds `forward` and the forward
 * context (`user`, `speedLimits`, `userTunnel`, `forwards`, `agents`,
 * `config`, `offline`, `now`; the tunnel is created first, unreported);
 * `forward-update` adds `createForwards` too; an edit may carry the context
 * and `createForwards` (the forwards on the `before` tunnel), which it
 * re-syncs.
 */
export type TunnelInput = TunnelRequest & ForwardContext;
/**
 * The input of a redeploy: the tunnel as the database stores it, and what
 * the forwards' sync after it sees of the agents (read only when forwards
 * ride on the tunnel).
 */
export type RedeployInput = RedeployRequest & Pick<ForwardContext, 'agents' | 'config' | 'offline' | 'now'>;
/** The role of a federated node. */
export type Role = Exclude<NodeRole, 'entry'>;
/** One lifecycle step (see the lifecycle module docs for the semantics). */
export type LifecycleStep = StepHead & TunnelStep & ForwardStep & ReportStep;
/**
 * Closed sets, each with an escape for values this version does not know:
 * `(string & {})` accepts any other string without losing the suggestions.
 */
export type Protocol = 'tls' | 'mtls' | 'wss' | 'mwss' | 'ws' | 'mws' | 'tcp' | 'mtcp' | 'kcp' | 'quic' | 'grpc' | 'h2' | 'http2' | (string & {});
/** GOST's selector strategies (`best` is the panel's; the agent runs it as `fifo`). */
export type Strategy = 'round' | 'rr' | 'rand' | 'random' | 'fifo' | 'ha' | 'hash' | 'best' | (string & {});
/** 1 = port forward, 2 = tunnel forward (anything but 2 acts as 1). */
export type TunnelType = 1 | 2 | '1' | '2' | (number & {});
/** The checker's rule codes (see `rules()`). */
export type FindingCode =
  | 'AC001' | 'AC002' | 'AC003' | 'AC004' | 'AC005' | 'AC006'
  | 'FO001' | 'FO002' | 'FO003' | 'FO004' | 'FO005' | 'FO006'
  | 'LK001' | 'LK002' | 'LK003' | 'LK004' | 'LK005'
  | 'PA001' | 'PA002' | 'PA003' | 'PA004' | 'PA005'
  | 'LC001' | 'LC002' | 'LC003' | 'LC004'
  | 'IN001' | 'IN002' | 'IN003' | 'IN004'
  | (string & {});
/** Why the server refuses a tunnel (`plan.error.code`). */
export type PlanErrorCode =
  | 'INVALID_INPUT' | 'CONNECT_IP_MULTI_EXIT' | 'CONNECT_IP_MULTI_NODE_HOP' | 'NAME_EMPTY' | 'TUNNEL_ID_MISSING'
  | 'TUNNEL_NOT_FOUND' | 'PROBE_TARGET_INVALID' | 'NO_ENTRIES' | 'NO_EXITS' | 'PORTS_EXHAUSTED' | 'PORT_RANGE_MISSING'
  | 'DUPLICATE_NODE' | 'NODE_NOT_FOUND' | 'NODE_OFFLINE' | 'REMOTE_PORT_OUT_OF_RANGE' | 'REMOTE_SHARE_MISSING'
  | 'REMOTE_RESERVE_FAILED' | 'REMOTE_APPLY_FAILED' | 'LINK_INCOMPATIBLE' | 'PORT_MISSING'
  | 'REMOTE_ENTRY_UPDATE_REFUSED' | 'BEFORE_REJECTED' | 'LIMIT_EXCEEDED'
  | 'FORWARD_TUNNEL_ID_MISSING' | 'FORWARD_ID_MISSING' | 'FORWARD_NOT_FOUND' | 'FORWARD_TUNNEL_NOT_FOUND'
  | 'FORWARD_NAME_OR_TARGET_EMPTY' | 'FORWARD_REMOTE_PORT_OUT_OF_RANGE' | 'FORWARD_PORT_OUT_OF_RANGE'
  | 'FORWARD_PORT_TAKEN' | 'FORWARD_ENTRY_PORT_CONFLICT' | 'FORWARD_SYNC_FAILED' | 'NO_TUNNEL_PERMISSION'
  | 'TUNNEL_DISABLED' | 'UNSAFE_TARGET' | 'SPEED_LIMIT_FORBIDDEN' | 'IN_IP_MULTI_ENTRY'
  | 'USER_NOT_FOUND' | 'USER_DISABLED' | 'USER_EXPIRED' | 'USER_FLOW_EXCEEDED' | 'USER_FORWARD_LIMIT'
  | 'USER_TUNNEL_DISABLED' | 'USER_TUNNEL_EXPIRED' | 'USER_TUNNEL_FLOW_EXCEEDED' | 'USER_TUNNEL_FORWARD_LIMIT'
  | (string & {});
/** What a `HopPolicyError` says went wrong. */
export type ErrorCode = 'IN001' | 'BAD_ARGUMENT' | 'BAD_OPTIONS' | 'BAD_SCENARIO' | 'LIMIT_EXCEEDED' | 'NOT_INITIALISED' | 'STACK_EXHAUSTED' | 'INTERNAL' | (string & {});
"#;

/// The class every function throws (defined in the bindings' JS snippet).
pub const HOP_POLICY_ERROR_TS: &str = r#"
/**
 * What every function throws when it cannot produce its result (a server
 * rejection is not thrown: it is the plan's `error`). `code` is stable:
 * `IN001` (unreadable input), `BAD_ARGUMENT`, `BAD_OPTIONS`, `BAD_SCENARIO`,
 * `LIMIT_EXCEEDED`, `NOT_INITIALISED` (web build: `init()` not awaited yet),
 * `STACK_EXHAUSTED` / `INTERNAL` (the call failed inside the module, which was
 * reset: the next call works), or a code from the core. `path` is a JSON
 * Pointer into the input.
 */
export class HopPolicyError extends Error {
  readonly name: 'HopPolicyError';
  readonly code: ErrorCode;
  readonly path: string;
  constructor(code: ErrorCode, message: string, path?: string);
}
"#;
