//! The plan: what the server sends for one tunnel, to its own nodes (`local`)
//! and through federation (`federation`), plus the node table the checker uses
//! to know which node owns which address. Field names follow the golden vectors.

use crate::encode::{shape, Encode, Writer};
use crate::json::tree::{Arena, TreeValue, NULL};
use serde::Serialize;
use serde_json::Value;

shape! {
    #[doc = " Everything the server would deploy for one tunnel input."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Plan {
        #[doc = " `null` when the server accepts the tunnel."]
        pub error: Option<PlanError> => "error",
        #[doc = " Remote nodes, in the order the server contacts their provider panels."]
        pub federation: Vec<FederationStep> => "federation",
        #[doc = " Commands this panel sends to its own nodes, in order."]
        pub local: Vec<Command> => "local",
        #[doc = " Every node of the tunnel with its role and the addresses it is reached by."]
        #[doc = " Never carries credentials. Empty when `error` is set."]
        pub nodes: Vec<PlanNode> => "nodes",
        #[doc = " The request path planned: `create`, `update` or `redeploy`."]
        pub mode: String => "mode": "PlanMode",
        #[doc = " Values the preview had to assume because only the server or a provider"]
        #[doc = " panel knows them (ids, provider allocations); empty when nothing was assumed."]
        pub assumed: Vec<Assumption> => "assumed",
        #[doc = " What the server's answer would warn about (nodes skipped as offline,"]
        #[doc = " limiters that failed), in its words; empty for a tunnel alone."]
        pub warnings: Vec<String> => "warnings",
        #[doc = " The forward and forward_port rows the server would store for the"]
        #[doc = " tunnel's forwards (forward modes, and redeploys and edits with forwards)."]
        pub db: Option<crate::forward::ForwardDb> => "db": "ForwardDb" optional,
        #[doc = " The forward modes only: the tunnel's own apply, which the server ran when"]
        #[doc = " the tunnel was created and this request does not send. Its chains are"]
        #[doc = " what the forward services route through; the checker and the simulator"]
        #[doc = " read them from here."]
        pub deployed: Option<TunnelDeploy> => "deployed": "TunnelDeploy" optional,
    }
}

shape! {
    #[doc = " What a tunnel's apply left on its nodes (`Plan::deployed`)."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct TunnelDeploy {
        pub federation: Vec<FederationStep> => "federation",
        pub local: Vec<Command> => "local",
    }
}

shape! {
    #[doc = " One value the preview assumed, where the input can give it instead, and why."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Assumption {
        #[doc = " The node it belongs to (`null` for the tunnel itself)."]
        pub node_id: Option<i64> => "nodeId",
        #[doc = " JSON Pointer into the input where the real value goes"]
        #[doc = " (`/tunnel/id`, `/federation/2/allocatedPort`, ...)."]
        pub path: String => "path",
        pub value: MetaValue => "value",
        #[doc = " Why it had to be assumed, and what depends on it."]
        pub reason: String => "reason",
    }
}

impl Plan {
    /// A plan refused at one of the preview's own limits (`LIMIT_EXCEEDED`,
    /// not a decision of the server) as the error a call that plans an input
    /// throws, placed at `path` (the input's place in the caller's
    /// document, built only then); `None` for a plan not so refused.
    pub fn limit_error_at(&self, path: impl FnOnce() -> String) -> Option<crate::error::ApiError> {
        let e = self.error.as_ref().filter(|e| e.code == "LIMIT_EXCEEDED")?;
        Some(crate::error::ApiError::new(
            "LIMIT_EXCEEDED",
            e.message_en.clone(),
            path(),
        ))
    }

    /// A refused request: only the error (and the mode) are set.
    pub fn rejected(error: PlanError, mode: &str) -> Plan {
        Plan {
            error: Some(error),
            federation: vec![],
            local: vec![],
            nodes: vec![],
            mode: mode.to_string(),
            assumed: vec![],
            warnings: vec![],
            db: None,
            deployed: None,
        }
    }

    /// The plan as the JSON value its text reads into, written by its one
    /// encoder ([`crate::encode::to_value`]).
    pub fn to_json_value(&self) -> serde_json::Value {
        crate::encode::to_value(self)
    }
}

/// Why a plan given as JSON cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanReadError {
    /// JSON Pointer into the plan.
    pub path: String,
    pub message: String,
}

impl Plan {
    /// Reads a plan given as JSON (`{error, federation, local}`, the shape
    /// [`Plan`] prints), as leniently as the server's own output needs: a
    /// missing string or number reads as empty or 0, a list that is not one
    /// as empty. Only the node id every command goes to is required.
    /// Command configs stay as given ([`CommandData::Json`]). A plan whose
    /// `error` is set reads as that rejection alone; its `message` is the
    /// error's text, or its `message` field, or the error as JSON text.
    pub fn from_json(doc: &Value) -> Result<Plan, PlanReadError> {
        let arena = Arena::new();
        Plan::from_tree(&crate::encode::to_tree(doc, &arena))
    }

    /// [`Plan::from_json`] of a plan in a document tree.
    pub(crate) fn from_tree(doc: &TreeValue<'_>) -> Result<Plan, PlanReadError> {
        let mode = text(doc, "mode");
        if let Some(err) = doc.get("error").filter(|e| !e.is_null()) {
            let message = err
                .as_str()
                .or_else(|| err.get("message").and_then(TreeValue::as_str))
                .map_or_else(|| err.to_string(), str::to_string);
            let error = PlanError {
                code: text(err, "code"),
                message_en: message.clone(),
                message,
                path: None,
            };
            return Ok(Plan::rejected(error, &mode));
        }
        let federation = read_federation(doc)?;
        let local = read_local(doc, "local")?;
        let deployed = match doc.get("deployed").filter(|t| t.is_object()) {
            Some(t) => Some(TunnelDeploy {
                federation: read_federation(t).map_err(|e| e.under("/deployed"))?,
                local: read_local(t, "local").map_err(|e| e.under("/deployed"))?,
            }),
            None => None,
        };
        Ok(Plan {
            error: None,
            federation,
            local,
            nodes: vec![],
            mode,
            assumed: vec![],
            warnings: vec![],
            db: None,
            deployed,
        })
    }
}

impl PlanReadError {
    /// The same error, for a plan read inside `prefix`.
    fn under(mut self, prefix: &str) -> PlanReadError {
        self.path = format!("{prefix}{}", self.path);
        self
    }
}

/// A plan's `federation` steps, as [`Plan::from_json`] reads them.
fn read_federation(doc: &TreeValue<'_>) -> Result<Vec<FederationStep>, PlanReadError> {
    let mut federation = Vec::new();
    for (j, step) in list(doc, "federation").iter().enumerate() {
        let node_id = node_of(step).ok_or_else(|| no_node("federation", j))?;
        let reserve = step.get("reserve").unwrap_or(&NULL);
        let apply = step.get("apply").unwrap_or(&NULL);
        let targets = apply.get("targets").and_then(TreeValue::as_array).map(|t| {
            let read = |t: &TreeValue<'_>| Target {
                host: text(t, "host"),
                port: int(t, "port"),
                protocol: text(t, "protocol").into(),
            };
            Shared::new(t.iter().map(read).collect())
        });
        federation.push(FederationStep {
            node_id,
            role: text(step, "role"),
            resource_key: text(step, "resourceKey"),
            reserve: Reserve {
                resource_key: text(reserve, "resourceKey"),
                protocol: text(reserve, "protocol"),
                requested_port: int(reserve, "requestedPort"),
            },
            apply: Apply {
                resource_key: text(apply, "resourceKey"),
                role: text(apply, "role"),
                protocol: text(apply, "protocol"),
                strategy: text(apply, "strategy"),
                targets,
            },
            // The provider sends them to the node it shares.
            commands: list(step, "commands")
                .iter()
                .map(|c| command_of(c, node_of(c).unwrap_or(node_id)))
                .collect(),
        });
    }
    Ok(federation)
}

/// A plan's command list `key`, as [`Plan::from_json`] reads it.
fn read_local(doc: &TreeValue<'_>, key: &str) -> Result<Vec<Command>, PlanReadError> {
    let mut local = Vec::new();
    for (k, c) in list(doc, key).iter().enumerate() {
        local.push(command_of(c, node_of(c).ok_or_else(|| no_node(key, k))?));
    }
    Ok(local)
}

// The readers of `Plan::from_json`: a missing or mistyped value reads as empty.

fn text(v: &TreeValue<'_>, key: &str) -> String {
    v.get(key)
        .and_then(TreeValue::as_str)
        .unwrap_or_default()
        .to_string()
}

fn int(v: &TreeValue<'_>, key: &str) -> i64 {
    v.get(key)
        .and_then(crate::go::coerce::json_int)
        .unwrap_or(0)
}

fn list<'a>(v: &TreeValue<'a>, key: &str) -> &'a [TreeValue<'a>] {
    v.get(key).and_then(TreeValue::as_array).unwrap_or_default()
}

/// The integer id of the node a command goes to.
fn node_of(v: &TreeValue<'_>) -> Option<i64> {
    v.get("nodeId").and_then(crate::go::coerce::json_int)
}

/// Item `i` of the plan's list `list` has no [`node_of`].
#[inline(never)]
fn no_node(list: &str, i: usize) -> PlanReadError {
    PlanReadError {
        path: format!("/{list}/{i}/nodeId"),
        message: "a command needs the integer id of the node it goes to".into(),
    }
}

/// A command of a pasted plan; its config kept as the value the agent is
/// sent ([`CommandData::Json`]).
fn command_of(v: &TreeValue<'_>, node_id: i64) -> Command {
    let data = v
        .get("data")
        .map_or(Value::Null, |d| crate::encode::to_value(d));
    let relay = match v.get("relay") {
        Some(TreeValue::Bool(b)) => Some(*b),
        _ => None,
    };
    Command {
        node_id,
        command: text(v, "command"),
        data: CommandData::Json(data),
        relay,
        failed: v
            .get("failed")
            .and_then(TreeValue::as_str)
            .map(str::to_string),
    }
}

shape! {
    #[doc = " A server rejection: `message` is the server's exact text."]
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct PlanError {
        pub code: String => "code": "PlanErrorCode",
        pub message: String => "message",
        pub message_en: String => "messageEn",
        #[doc = " JSON Pointer into the input where the server's check looked, when one place can be named."]
        pub path: Option<String> => "path" optional,
    }
}

shape! {
    #[doc = " One federated node: what this panel asks its provider, and what the"]
    #[doc = " provider sends to its agent."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct FederationStep {
        pub node_id: i64 => "nodeId",
        #[doc = " `\"exit\"` or `\"middle\"`."]
        pub role: String => "role": "Role",
        pub resource_key: String => "resourceKey",
        pub reserve: Reserve => "reserve",
        pub apply: Apply => "apply",
        #[doc = " What the provider panel sends to its agent."]
        pub commands: Vec<Command> => "commands",
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Reserve {
        pub resource_key: String => "resourceKey",
        pub protocol: String => "protocol",
        pub requested_port: i64 => "requestedPort",
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Apply {
        pub resource_key: String => "resourceKey",
        pub role: String => "role": "Role",
        pub protocol: String => "protocol",
        pub strategy: String => "strategy",
        #[doc = " Shared: every federated node of a hop lists the same next hop."]
        pub targets: Option<Shared<Vec<Target>>> => "targets": "Target[]" optional,
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Target {
        pub host: String => "host",
        pub port: i64 => "port",
        // A known protocol is not copied (`builders::plugin_kind`).
        pub protocol: std::borrow::Cow<'static, str> => "protocol": "string",
    }
}

shape! {
    #[doc = " One command to one agent."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Command {
        pub node_id: i64 => "nodeId",
        #[doc = " A [`CommandName`] (a pasted plan may carry any other name)."]
        pub command: String => "command": "CommandName",
        pub data: CommandData => "data",
        #[doc = " Sent to a remote (federated) node through its provider panel's"]
        #[doc = " `/runtime/command`; `nodeId` is this panel's node."]
        pub relay: Option<bool> => "relay" optional,
        #[doc = " The agent's or the provider's refusal; the server goes on as it does."]
        pub failed: Option<String> => "failed" optional,
    }
}

impl Command {
    /// A command the agent takes.
    pub fn new(node_id: i64, command: CommandName, data: CommandData) -> Command {
        Command {
            node_id,
            command: command.as_str().to_string(),
            data,
            relay: None,
            failed: None,
        }
    }

    /// Is it the command `name`? (A pasted plan may carry any name.)
    pub fn is(&self, name: CommandName) -> bool {
        self.command == name.as_str()
    }

    /// Its name when the agent knows it.
    pub fn name(&self) -> Option<CommandName> {
        CommandName::parse(&self.command)
    }
}

/// Declares the command names once: the enum, its wire names and the list.
macro_rules! command_names {
    ($($name:ident,)*) => {
        /// The commands the panel sends an agent (the ones the planner, the
        /// forward paths and the lifecycle replay send), by their names on
        /// the wire.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, tsify_next::Tsify)]
        pub enum CommandName {
            $($name,)*
        }

        impl CommandName {
            pub const ALL: &'static [CommandName] = &[$(CommandName::$name,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(CommandName::$name => stringify!($name),)*
                }
            }

            /// Does a provider panel relay it to a shared node?
            /// (`isFederationRuntimeCommandAllowed`, go-backend
            /// internal/http/handler/federation.go:1576: chain updates and
            /// the connection limiters are not on its list.)
            pub fn provider_relays(self) -> bool {
                !matches!(
                    self,
                    CommandName::UpdateChains
                        | CommandName::AddCLimiters
                        | CommandName::UpdateCLimiters
                        | CommandName::DeleteCLimiters
                )
            }

            /// The command of a wire name (exactly as the agent spells it).
            pub fn parse(name: &str) -> Option<CommandName> {
                match name {
                    $(stringify!($name) => Some(CommandName::$name),)*
                    _ => None,
                }
            }
        }
    };
}

command_names! {
    AddChains,
    AddService,
    UpdateChains,
    UpdateService,
    DeleteService,
    DeleteChains,
    PauseService,
    ResumeService,
    AddLimiters,
    UpdateLimiters,
    DeleteLimiters,
    AddCLimiters,
    UpdateCLimiters,
    DeleteCLimiters,
}

/// The payload of one command, by command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[serde(untagged)]
pub enum CommandData {
    Chain(#[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = "Chain"))] ChainConfig),
    Services(
        #[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = "Service[]"))]
        Vec<ServiceConfig>,
    ),
    UpdateChain(UpdateChainData),
    DeleteServices(DeleteServicesData),
    DeleteChain(DeleteChainData),
    ForwardServices(
        #[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = "ForwardService[]"))]
        Vec<crate::forward::ForwardService>,
    ),
    Limiter(crate::forward::LimiterData),
    UpdateLimiter(crate::forward::UpdateLimiterData),
    /// A config as a pasted plan gives it ([`Plan::from_json`]): the agent
    /// takes whatever GOST accepts, which is more than the planner writes.
    /// Only the lifecycle replay reads plans, and no output of the package
    /// carries one, so it adds nothing to the TypeScript union.
    Json(#[cfg_attr(any(test, target_arch = "wasm32"), tsify(type = "never"))] Value),
}

impl CommandData {
    /// The config as JSON, what an agent holds. Written by the plan types'
    /// one encoder ([`crate::encode::to_value`]): `serde_json::to_value` would
    /// compile a second one into the `.wasm`.
    pub fn to_json(&self) -> Value {
        match self {
            CommandData::Json(v) => v.clone(),
            typed => crate::encode::to_value(typed),
        }
    }
}

shape! {
    #[doc = " `data` of `UpdateChains`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct UpdateChainData {
        pub chain: String => "chain",
        pub data: ChainConfig => "data": "Chain",
    }
}

shape! {
    #[doc = " `data` of `DeleteService`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct DeleteServicesData {
        pub services: Vec<String> => "services",
    }
}

shape! {
    #[doc = " `data` of `DeleteChains`."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct DeleteChainData {
        pub chain: String => "chain",
    }
}

shape! {
    #[doc = " A GOST chain with one hop."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ChainConfig as Chain {
        pub name: String => "name",
        pub hops: Vec<HopConfig> => "hops": "Hop[]",
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct HopConfig as Hop {
        pub name: String => "name",
        pub interface: Option<String> => "interface" optional,
        pub selector: Selector => "selector",
        pub nodes: Shared<Vec<NodeConfig>> => "nodes": "ChainNode[]",
    }
}

/// A value several places of a plan hold at once (every node of a hop dials
/// the same next-hop nodes): built once, and serialized to JSON text once; the
/// text is copied into every place it appears.
#[derive(Debug, Clone)]
pub struct Shared<T>(pub std::sync::Arc<SharedInner<T>>);

#[derive(Debug)]
pub struct SharedInner<T> {
    value: T,
    text: std::sync::OnceLock<String>,
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(std::sync::Arc::new(SharedInner {
            value,
            text: std::sync::OnceLock::new(),
        }))
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.value == other.0.value
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T: Encode> Encode for Shared<T> {
    fn encode(&self, out: &mut Writer<'_>) {
        out.shared(&self.0.text, &self.0.value)
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.value.serialize(serializer)
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Selector {
        pub strategy: String => "strategy",
        pub max_fails: i64 => "maxFails",
        #[doc = " Nanoseconds."]
        pub fail_timeout: i64 => "failTimeout",
    }
}

shape! {
    #[doc = " One node of a chain hop: what the hop dials."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct NodeConfig as ChainNode {
        pub name: String => "name",
        pub addr: String => "addr",
        pub connector: Plugin => "connector",
        pub dialer: Plugin => "dialer",
    }
}

shape! {
    #[doc = " A connector, dialer or listener: a type and optional metadata."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Plugin {
        // A known name (`relay`, a protocol such as `tls`) is not copied.
        pub kind: std::borrow::Cow<'static, str> => "type": "string",
        pub metadata: Option<Metadata> => "metadata": "Record<string, MetaValue>" optional,
    }
}

/// The key/value pairs of one metadata block, in key order: a handful of
/// entries, kept in one sorted `Vec` (`litemap`), which compiles to less
/// than a `BTreeMap` of its own type (BENCH.md).
pub type MetaMap = litemap::LiteMap<String, MetaValue>;

/// A metadata block, shared: the planner hands the same block (for example
/// the mux settings of every tls connector) to every place it appears instead
/// of building one map per node. Serializes as the map itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata(pub std::sync::Arc<MetaMap>);

impl Metadata {
    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.0.get(key)
    }
}

impl From<MetaMap> for Metadata {
    fn from(m: MetaMap) -> Self {
        Metadata(std::sync::Arc::new(m))
    }
}

impl Encode for Metadata {
    fn encode(&self, out: &mut Writer<'_>) {
        self.0.encode(out)
    }
}

impl Serialize for Metadata {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::encode::serialize_map(&self.0, serializer)
    }
}

/// A metadata value in a GOST config.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[serde(untagged)]
pub enum MetaValue {
    Bool(bool),
    Int(i64),
    Str(String),
}

shape! {
    #[doc = " A GOST service."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ServiceConfig as Service {
        pub name: String => "name",
        pub addr: String => "addr",
        pub handler: Handler => "handler",
        pub listener: Plugin => "listener",
        pub metadata: Option<Metadata> => "metadata": "Record<string, MetaValue>" optional,
    }
}

shape! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Handler {
        pub kind: String => "type",
        pub chain: Option<String> => "chain" optional,
        pub retries: Option<i64> => "retries" optional,
        pub metadata: Option<Metadata> => "metadata": "Record<string, MetaValue>" optional,
    }
}

shape! {
    #[doc = " One node of the tunnel as the plan sees it (never carries credentials)."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct PlanNode {
        pub node_id: i64 => "nodeId",
        pub name: String => "name",
        #[doc = " `\"entry\"`, `\"middle\"` or `\"exit\"`."]
        pub role: String => "role": "NodeRole",
        #[doc = " 1-based hop number for middles, 0 otherwise."]
        pub hop: i64 => "hop",
        #[doc = " Shared by another panel (federated)."]
        pub remote: bool => "remote",
        pub protocol: String => "protocol",
        pub strategy: String => "strategy",
        #[doc = " The port its service listens on (0 for entries)."]
        pub port: i64 => "port",
        #[doc = " Hosts other nodes may dial it by: connectIp, serverIpV4, serverIpV6, serverIp."]
        pub addresses: Vec<String> => "addresses",
        #[doc = " For federated nodes, the runtime id its provider uses (`fed_svc_R`)."]
        pub runtime_id: Option<i64> => "runtimeId" optional,
    }
}

/// Untagged: each variant prints as its content alone.
impl Encode for CommandData {
    fn encode(&self, out: &mut Writer<'_>) {
        match self {
            CommandData::Chain(c) => c.encode(out),
            CommandData::Services(s) => s.encode(out),
            CommandData::UpdateChain(d) => d.encode(out),
            CommandData::DeleteServices(d) => d.encode(out),
            CommandData::DeleteChain(d) => d.encode(out),
            CommandData::ForwardServices(s) => s.encode(out),
            CommandData::Limiter(d) => d.encode(out),
            CommandData::UpdateLimiter(d) => d.encode(out),
            CommandData::Json(v) => v.encode(out),
        }
    }
}

/// Untagged: the bare boolean, number or string.
impl Encode for MetaValue {
    fn encode(&self, out: &mut Writer<'_>) {
        match self {
            MetaValue::Bool(b) => b.encode(out),
            MetaValue::Int(i) => i.encode(out),
            MetaValue::Str(s) => s.encode(out),
        }
    }
}

/// The TypeScript of a federated node's role (a [`PlanNode`] role other than
/// `entry`) and of the codes a [`PlanError`] carries (the planner's and the
/// forward paths' rejection tables).
pub const PLAN_SETS_TS: &str = r#"
/** The role of a federated node. */
export type Role = Exclude<NodeRole, 'entry'>;
/** Why the server refuses a tunnel (`plan.error.code`). */
export type PlanErrorCode =
  | 'INVALID_INPUT' | 'CONNECT_IP_MULTI_EXIT' | 'CONNECT_IP_MULTI_NODE_HOP' | 'NAME_EMPTY' | 'TUNNEL_ID_MISSING'
  | 'TUNNEL_NOT_FOUND' | 'PROBE_TARGET_INVALID' | 'NO_ENTRIES' | 'NO_EXITS' | 'PORTS_EXHAUSTED' | 'PORT_RANGE_MISSING'
  | 'DUPLICATE_NODE' | 'NODE_NOT_FOUND' | 'NODE_OFFLINE' | 'REMOTE_PORT_OUT_OF_RANGE' | 'REMOTE_SHARE_MISSING'
  | 'REMOTE_RESERVE_FAILED' | 'REMOTE_APPLY_FAILED' | 'LINK_INCOMPATIBLE' | 'PORT_MISSING'
  | 'REMOTE_ENTRY_UPDATE_REFUSED' | 'BEFORE_REJECTED' | 'LIMIT_EXCEEDED' | 'CHAIN_TARGETS_EMPTY' | 'BINDING_NOT_UNIQUE'
  | 'FORWARD_TUNNEL_ID_MISSING' | 'FORWARD_ID_MISSING' | 'FORWARD_NOT_FOUND' | 'FORWARD_TUNNEL_NOT_FOUND'
  | 'FORWARD_NAME_OR_TARGET_EMPTY' | 'FORWARD_REMOTE_PORT_OUT_OF_RANGE' | 'FORWARD_PORT_OUT_OF_RANGE'
  | 'FORWARD_PORT_TAKEN' | 'FORWARD_ENTRY_PORT_CONFLICT' | 'FORWARD_SYNC_FAILED' | 'NO_TUNNEL_PERMISSION'
  | 'TUNNEL_DISABLED' | 'UNSAFE_TARGET' | 'SPEED_LIMIT_FORBIDDEN' | 'IN_IP_MULTI_ENTRY'
  | 'USER_NOT_FOUND' | 'USER_DISABLED' | 'USER_EXPIRED' | 'USER_FLOW_EXCEEDED' | 'USER_FORWARD_LIMIT'
  | 'USER_TUNNEL_DISABLED' | 'USER_TUNNEL_EXPIRED' | 'USER_TUNNEL_FLOW_EXCEEDED' | 'USER_TUNNEL_FORWARD_LIMIT'
  | (string & {});
"#;

#[cfg(test)]
pub(crate) mod tests {
    /// Every code the rejection tables answer with is a literal of the
    /// `PlanErrorCode` TypeScript union (a new code needs both).
    #[test]
    fn every_rejection_code_is_declared_for_typescript() {
        let union = PLAN_SETS_TS
            .split("export type PlanErrorCode")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .expect("PlanErrorCode is declared");
        let tables = [
            include_str!("planner/rejection.rs"),
            include_str!("forward/rejection.rs"),
        ];
        let mut codes = 0;
        for table in tables {
            for quoted in table.split('"').skip(1).step_by(2) {
                let is_code =
                    quoted.len() > 3 && quoted.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
                if is_code {
                    codes += 1;
                    assert!(union.contains(&format!("'{quoted}'")), "{quoted}");
                }
            }
        }
        assert!(codes > 40, "{codes} codes found");
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn command_names_read_back_and_the_provider_relays_its_list() {
        for name in CommandName::ALL {
            assert_eq!(CommandName::parse(name.as_str()), Some(*name));
        }
        assert_eq!(CommandName::ALL.len(), 14);
        assert_eq!(
            CommandName::parse("addservice"),
            None,
            "the wire name is exact"
        );
        // federation.go:1576's list, lower-cased (`TcpPing` and `Reload` are
        // not commands this package sends).
        let relayed: Vec<String> = CommandName::ALL
            .iter()
            .filter(|c| c.provider_relays())
            .map(|c| c.as_str().to_ascii_lowercase())
            .collect();
        assert_eq!(
            relayed,
            [
                "addchains",
                "addservice",
                "updateservice",
                "deleteservice",
                "deletechains",
                "pauseservice",
                "resumeservice",
                "addlimiters",
                "updatelimiters",
                "deletelimiters"
            ]
        );
    }

    /// A tunnel of three nodes whose middle is federated (node 2, shared
    /// with a token), for tests across the crate.
    pub(crate) fn federated_middle_input() -> Value {
        json!({
            "tunnel": {"id": 7, "name": "t", "type": 2,
                "inNodeId": [{"nodeId": 1}],
                "chainNodes": [[{"nodeId": 2, "protocol": "tls", "port": 44010}]],
                "outNodeId": [{"nodeId": 3, "protocol": "tls", "port": 45001}]},
            "nodes": [
                {"id": 1, "name": "a", "serverIp": "198.51.100.11", "status": 1},
                {"id": 2, "name": "b", "serverIp": "198.51.100.12", "status": 1,
                    "isRemote": 1, "remoteUrl": "https://p", "remoteToken": "tok",
                    "remoteConfig": "{\"portRangeStart\": 44000, \"portRangeEnd\": 44100}"},
                {"id": 3, "name": "c", "serverIp": "203.0.113.3", "status": 1}
            ]
        })
    }

    #[test]
    fn a_plan_read_back_from_its_json_keeps_its_commands_and_federation() {
        let input = federated_middle_input();
        let plan = crate::planner::plan(&input, &Default::default());
        assert!(plan.error.is_none(), "{:?}", plan.error);
        let text = crate::encode::to_string(&plan);
        let back = Plan::from_json(&crate::json::from_str(&text).unwrap()).unwrap();
        assert_eq!(back.federation.len(), 1);
        let (f, g) = (&plan.federation[0], &back.federation[0]);
        assert_eq!(
            (g.node_id, &g.role, &g.resource_key),
            (f.node_id, &f.role, &f.resource_key)
        );
        assert_eq!(g.reserve, f.reserve);
        assert_eq!(g.apply, f.apply);
        let shape = |p: &Plan| -> Vec<(i64, String, serde_json::Value)> {
            p.federation
                .iter()
                .flat_map(|f| &f.commands)
                .chain(&p.local)
                .map(|c| (c.node_id, c.command.clone(), c.data.to_json()))
                .collect()
        };
        assert_eq!(shape(&back), shape(&plan));
        assert!(back
            .local
            .iter()
            .all(|c| matches!(c.data, CommandData::Json(_))));
    }

    #[test]
    fn a_command_without_a_node_id_is_an_error_at_its_path_and_a_rejection_is_its_text() {
        let doc = json!({"federation": [], "local": [{"nodeId": 1, "command": "AddChains"}, {"command": "AddService"}]});
        let e = Plan::from_json(&doc).unwrap_err();
        assert_eq!(e.path, "/local/1/nodeId");
        let doc = json!({"federation": [{"nodeId": "2"}], "local": []});
        assert_eq!(
            Plan::from_json(&doc).unwrap_err().path,
            "/federation/0/nodeId"
        );
        for (error, text) in [
            (json!("refused"), "refused"),
            (json!({"code": "X", "message": "no"}), "no"),
            (json!({"code": "X"}), r#"{"code":"X"}"#),
        ] {
            let p = Plan::from_json(&json!({"error": error, "local": [{}]})).unwrap();
            assert_eq!(p.error.map(|e| e.message).as_deref(), Some(text));
            assert!(p.local.is_empty());
        }
    }
}
