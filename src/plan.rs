//! The plan: what the server sends for one tunnel, to its own nodes (`local`)
//! and through federation (`federation`), plus the node table the checker uses
//! to know which node owns which address. Field names follow the golden vectors.

use crate::encode::{Encode, Object};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Everything the server would deploy for one tunnel input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// `null` when the server accepts the tunnel.
    pub error: Option<PlanError>,
    /// Remote nodes, in the order the server contacts their provider panels.
    pub federation: Vec<FederationStep>,
    /// Commands this panel sends to its own nodes, in order.
    pub local: Vec<Command>,
    /// Every node of the tunnel with its role and the addresses it is reached by.
    /// Never carries credentials. Empty when `error` is set.
    pub nodes: Vec<PlanNode>,
    /// The request path planned: `create`, `update` or `redeploy`.
    pub mode: String,
    /// Values the preview had to assume because only the server or a provider
    /// panel knows them (ids, provider allocations); empty when nothing was assumed.
    pub assumed: Vec<Assumption>,
}

/// One value the preview assumed, where the input can give it instead, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Assumption {
    /// The node it belongs to (`null` for the tunnel itself).
    pub node_id: Option<i64>,
    /// JSON Pointer into the input where the real value goes
    /// (`/tunnel/id`, `/federation/2/allocatedPort`, ...).
    pub path: String,
    pub value: MetaValue,
    /// Why it had to be assumed, and what depends on it.
    pub reason: String,
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
        let mode = text(doc, "mode");
        if let Some(err) = doc.get("error").filter(|e| !e.is_null()) {
            let message = err
                .as_str()
                .or_else(|| err.get("message").and_then(Value::as_str))
                .map_or_else(|| crate::json::to_text(err), str::to_string);
            let error = PlanError {
                code: text(err, "code"),
                message_en: message.clone(),
                message,
                path: None,
            };
            return Ok(Plan::rejected(error, &mode));
        }
        let mut federation = Vec::new();
        for (j, step) in list(doc, "federation").iter().enumerate() {
            let node_id = node_of(step, || format!("/federation/{j}/nodeId"))?;
            let reserve = step.get("reserve").unwrap_or(&Value::Null);
            let apply = step.get("apply").unwrap_or(&Value::Null);
            let targets = apply.get("targets").and_then(Value::as_array).map(|t| {
                let read = |t: &Value| Target {
                    host: text(t, "host"),
                    port: int(t, "port"),
                    protocol: text(t, "protocol"),
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
                    .map(|c| command_of(c, node_of(c, String::new).unwrap_or(node_id)))
                    .collect(),
            });
        }
        let mut local = Vec::new();
        for (k, c) in list(doc, "local").iter().enumerate() {
            local.push(command_of(c, node_of(c, || format!("/local/{k}/nodeId"))?));
        }
        Ok(Plan {
            error: None,
            federation,
            local,
            nodes: vec![],
            mode,
            assumed: vec![],
        })
    }
}

// The readers of `Plan::from_json`: a missing or mistyped value reads as empty.

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn int(v: &Value, key: &str) -> i64 {
    v.get(key)
        .and_then(crate::simulate::util::json_int)
        .unwrap_or(0)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn node_of(v: &Value, path: impl FnOnce() -> String) -> Result<i64, PlanReadError> {
    v.get("nodeId")
        .and_then(crate::simulate::util::json_int)
        .ok_or_else(|| PlanReadError {
            path: path(),
            message: "a command needs the integer id of the node it goes to".into(),
        })
}

fn command_of(v: &Value, node_id: i64) -> Command {
    Command {
        node_id,
        command: text(v, "command"),
        data: CommandData::Json(v.get("data").cloned().unwrap_or(Value::Null)),
    }
}

/// A server rejection: `message` is the server's exact text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanError {
    pub code: String,
    pub message: String,
    pub message_en: String,
    /// JSON Pointer into the input where the server's check looked, when one place can be named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FederationStep {
    pub node_id: i64,
    /// `"exit"` or `"middle"`.
    pub role: String,
    pub resource_key: String,
    pub reserve: Reserve,
    pub apply: Apply,
    /// What the provider panel sends to its agent.
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reserve {
    pub resource_key: String,
    pub protocol: String,
    pub requested_port: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Apply {
    pub resource_key: String,
    pub role: String,
    pub protocol: String,
    pub strategy: String,
    /// Shared: every federated node of a hop lists the same next hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<Shared<Vec<Target>>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Target {
    pub host: String,
    pub port: i64,
    pub protocol: String,
}

/// One command to one agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Command {
    pub node_id: i64,
    /// `AddChains`, `AddService`, `UpdateChains`, `DeleteService`, `DeleteChains`.
    pub command: String,
    pub data: CommandData,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CommandData {
    Chain(ChainConfig),
    Services(Vec<ServiceConfig>),
    /// `UpdateChains`: `{chain, data}`.
    UpdateChain {
        chain: String,
        data: ChainConfig,
    },
    /// `DeleteService`: `{services: [...]}`.
    DeleteServices {
        services: Vec<String>,
    },
    /// `DeleteChains`: `{chain}`.
    DeleteChain {
        chain: String,
    },
    /// A config as a pasted plan gives it ([`Plan::from_json`]): the agent
    /// takes whatever GOST accepts, which is more than the planner writes.
    Json(Value),
}

impl CommandData {
    /// The config as JSON, what an agent holds. Written by the text writer,
    /// the one serializer of the plan types: `serde_json::to_value` would
    /// compile a second one into the `.wasm`.
    pub fn to_json(&self) -> Value {
        match self {
            CommandData::Json(v) => v.clone(),
            typed => crate::json::from_str(&crate::encode::to_string(typed)).unwrap_or(Value::Null),
        }
    }
}

/// A GOST chain with one hop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainConfig {
    pub name: String,
    pub hops: Vec<HopConfig>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HopConfig {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    pub selector: Selector,
    pub nodes: Shared<Vec<NodeConfig>>,
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

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Selector {
    pub strategy: String,
    pub max_fails: i64,
    /// Nanoseconds.
    pub fail_timeout: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeConfig {
    pub name: String,
    pub addr: String,
    pub connector: Plugin,
    pub dialer: Plugin,
}

/// A connector, dialer or listener: a type and optional metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plugin {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
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

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MetaValue {
    Bool(bool),
    Int(i64),
    Str(String),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceConfig {
    pub name: String,
    pub addr: String,
    pub handler: Handler,
    pub listener: Plugin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Handler {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// One node of the tunnel as the plan sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanNode {
    pub node_id: i64,
    pub name: String,
    /// `"entry"`, `"middle"` or `"exit"`.
    pub role: String,
    /// 1-based hop number for middles, 0 otherwise.
    pub hop: i64,
    /// Shared by another panel (federated).
    pub remote: bool,
    pub protocol: String,
    pub strategy: String,
    /// The port its service listens on (0 for entries).
    pub port: i64,
    /// Hosts other nodes may dial it by: connectIp, serverIpV4, serverIpV6, serverIp.
    pub addresses: Vec<String>,
    /// For federated nodes, the runtime id its provider uses (`fed_svc_R`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_id: Option<i64>,
}
// JSON text, field by field in declaration order (see `crate::encode`).

impl Encode for Plan {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("error", &self.error)
            .field("federation", &self.federation)
            .field("local", &self.local)
            .field("nodes", &self.nodes)
            .field("mode", &self.mode)
            .field("assumed", &self.assumed)
            .end()
    }
}

impl Encode for PlanError {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("code", &self.code)
            .field("message", &self.message)
            .field("messageEn", &self.message_en)
            .some("path", &self.path)
            .end()
    }
}

impl Encode for Assumption {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("nodeId", &self.node_id)
            .field("path", &self.path)
            .field("value", &self.value)
            .field("reason", &self.reason)
            .end()
    }
}

impl Encode for FederationStep {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("nodeId", &self.node_id)
            .field("role", &self.role)
            .field("resourceKey", &self.resource_key)
            .field("reserve", &self.reserve)
            .field("apply", &self.apply)
            .field("commands", &self.commands)
            .end()
    }
}

impl Encode for Reserve {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("resourceKey", &self.resource_key)
            .field("protocol", &self.protocol)
            .field("requestedPort", &self.requested_port)
            .end()
    }
}

impl Encode for Apply {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("resourceKey", &self.resource_key)
            .field("role", &self.role)
            .field("protocol", &self.protocol)
            .field("strategy", &self.strategy)
            .some("targets", &self.targets)
            .end()
    }
}

impl Encode for Target {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("protocol", &self.protocol)
            .end()
    }
}

impl Encode for Command {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("nodeId", &self.node_id)
            .field("command", &self.command)
            .field("data", &self.data)
            .end()
    }
}

/// Untagged: each variant prints as its content alone.
impl Encode for CommandData {
    fn encode(&self, out: &mut String) {
        match self {
            CommandData::Chain(c) => c.encode(out),
            CommandData::Services(s) => s.encode(out),
            CommandData::UpdateChain { chain, data } => Object::new(out)
                .field("chain", chain)
                .field("data", data)
                .end(),
            CommandData::DeleteServices { services } => {
                Object::new(out).field("services", services).end()
            }
            CommandData::DeleteChain { chain } => Object::new(out).field("chain", chain).end(),
            CommandData::Json(v) => v.encode(out),
        }
    }
}

impl Encode for ChainConfig {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("name", &self.name)
            .field("hops", &self.hops)
            .end()
    }
}

impl Encode for HopConfig {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("name", &self.name)
            .some("interface", &self.interface)
            .field("selector", &self.selector)
            .field("nodes", &self.nodes)
            .end()
    }
}

impl Encode for Selector {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("strategy", &self.strategy)
            .field("maxFails", &self.max_fails)
            .field("failTimeout", &self.fail_timeout)
            .end()
    }
}

impl Encode for NodeConfig {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("name", &self.name)
            .field("addr", &self.addr)
            .field("connector", &self.connector)
            .field("dialer", &self.dialer)
            .end()
    }
}

impl Encode for Plugin {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("type", &self.kind)
            .some("metadata", &self.metadata)
            .end()
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

impl Encode for ServiceConfig {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("name", &self.name)
            .field("addr", &self.addr)
            .field("handler", &self.handler)
            .field("listener", &self.listener)
            .some("metadata", &self.metadata)
            .end()
    }
}

impl Encode for Handler {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("type", &self.kind)
            .some("chain", &self.chain)
            .some("retries", &self.retries)
            .some("metadata", &self.metadata)
            .end()
    }
}

impl Encode for PlanNode {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("nodeId", &self.node_id)
            .field("name", &self.name)
            .field("role", &self.role)
            .field("hop", &self.hop)
            .field("remote", &self.remote)
            .field("protocol", &self.protocol)
            .field("strategy", &self.strategy)
            .field("port", &self.port)
            .field("addresses", &self.addresses)
            .some("runtimeId", &self.runtime_id)
            .end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_read_back_from_its_json_keeps_its_commands_and_federation() {
        let input = json!({
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
        });
        let plan = crate::planner::plan(&input);
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
