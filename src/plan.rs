//! The plan: what the server sends for one tunnel, to its own nodes (`local`)
//! and through federation (`federation`), plus the node table the checker uses
//! to know which node owns which address. Field names follow the golden vectors.

use crate::encode::{shape, Encode};
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// A refused request: only the error (and the mode) are set.
    pub fn rejected(error: PlanError, mode: &str) -> Plan {
        Plan {
            error: Some(error),
            federation: vec![],
            local: vec![],
            nodes: vec![],
            mode: mode.to_string(),
            assumed: vec![],
        }
    }

    /// The plan as a JSON value, by way of its JSON text. One serializer (the
    /// text writer, which `planTunnelJson` needs anyway) serves every caller,
    /// so the `.wasm` carries no second copy of the plan's serialization.
    pub fn to_json_value(&self) -> Result<serde_json::Value, String> {
        crate::json::from_str(&crate::encode::to_string(self)).map_err(|e| e.to_string())
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
        pub protocol: String => "protocol",
    }
}

shape! {
    #[doc = " One command to one agent."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Command {
        pub node_id: i64 => "nodeId",
        #[doc = " `AddChains`, `AddService`, `UpdateChains`, `DeleteService`, `DeleteChains`."]
        pub command: String => "command": "CommandName",
        pub data: CommandData => "data",
    }
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
    fn encode(&self, out: &mut String) {
        out.push_str(
            self.0
                .text
                .get_or_init(|| crate::encode::to_string(&self.0.value)),
        )
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
        pub kind: String => "type",
        pub metadata: Option<Metadata> => "metadata": "Record<string, MetaValue>" optional,
    }
}

/// The key/value pairs of one metadata block.
pub type MetaMap = BTreeMap<String, MetaValue>;

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
    fn encode(&self, out: &mut String) {
        self.0.encode(out)
    }
}

impl Serialize for Metadata {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
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
    fn encode(&self, out: &mut String) {
        match self {
            CommandData::Chain(c) => c.encode(out),
            CommandData::Services(s) => s.encode(out),
            CommandData::UpdateChain(d) => d.encode(out),
            CommandData::DeleteServices(d) => d.encode(out),
            CommandData::DeleteChain(d) => d.encode(out),
        }
    }
}

/// Untagged: the bare boolean, number or string.
impl Encode for MetaValue {
    fn encode(&self, out: &mut String) {
        match self {
            MetaValue::Bool(b) => b.encode(out),
            MetaValue::Int(i) => i.encode(out),
            MetaValue::Str(s) => s.encode(out),
        }
    }
}
