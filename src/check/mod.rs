//! Policy checker: finds what the agent would reject (AC), missing
//! or useless failover retries (FO), broken links between the nodes of one
//! plan (LK), differences between federated hops and their local twins (PA)
//! and unreadable input (IN). Rules, codes and severities are the table in
//! `rules.rs` (README.md, section "Rules"); every finding carries a JSON
//! Pointer into the checked document (for a tunnel input: into the plan made
//! from it).

mod agent;
mod failover;
mod linkage;
mod model;
mod parity;
mod report;
mod rules;
pub mod sharing;
mod survival;
pub(crate) mod util;

pub use report::{report_sarif, report_text};
pub use rules::{rules, RuleInfo};

use crate::encode::shape;
use crate::finding::{sort_findings, Finding, Severity};
use crate::json::tree;
use crate::plan::Plan;
use model::Document;
use rules::Sink;
use serde_json::Value;
use std::fmt::Write;
use tree::{TreeObject, TreeValue};

/// Largest JSON text [`check_text`] reads.
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;
/// Largest number of JSON values (objects, arrays, scalars) a document may hold.
pub const MAX_VALUES: usize = 1_000_000;

/// Options for [`check`] (`checkDocument`'s options; unknown keys are
/// ignored, `null` keeps a default).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct CheckOptions {
    /// Forces the document kind instead of detecting it.
    #[serde(deserialize_with = "crate::options::field::string")]
    #[cfg_attr(
        any(test, target_arch = "wasm32"),
        tsify(optional, type = "DocumentKind")
    )]
    pub kind: Option<String>,
    /// The request path a tunnel input is planned along (default: what the
    /// input asks for, [`crate::planner::PlanMode::detect`]).
    #[serde(deserialize_with = "crate::planner::PlanMode::given")]
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional, type = "PlanMode"))]
    pub mode: Option<crate::planner::PlanMode>,
    /// Size limits for the document; omitted fields keep their defaults
    /// ([`crate::limits`]).
    #[serde(deserialize_with = "crate::limits::Limits::given")]
    #[cfg_attr(any(test, target_arch = "wasm32"), tsify(optional, type = "Limits"))]
    pub limits: crate::limits::Limits,
}

impl CheckOptions {
    /// Reads `{kind?, mode?, limits?}`.
    pub fn from_json(v: &Value) -> Result<CheckOptions, crate::options::OptionError> {
        crate::options::read_value(v)
    }
}

shape! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Summary {
        #[doc = " The detected (or forced) document kind: `tunnel`, `plan`, `config`,"]
        #[doc = " `commands`, or `unknown` when unreadable."]
        pub kind: String => "kind",
        #[doc = " What finding paths point into: `\"document\"`, or `\"plan\"` for a tunnel"]
        #[doc = " input (which is planned first)."]
        pub paths_into: String => "pathsInto",
        pub errors: usize => "errors",
        pub warnings: usize => "warnings",
        pub infos: usize => "infos",
        pub total: usize => "total",
        #[doc = " Number of findings per code."]
        #[serde(serialize_with = "crate::encode::serialize_map")]
        pub by_code: litemap::LiteMap<String, usize> => "byCode": "Record<string, number>",
    }
}

shape! {
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct CheckReport {
        pub findings: Vec<Finding> => "findings",
        pub summary: Summary => "summary",
    }
}

shape! {
    #[doc = " `checkTunnel`, the panel's pre-submit check: the plan and the findings"]
    #[doc = " of checking it."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct TunnelCheck {
        pub plan: Plan => "plan",
        pub findings: Vec<Finding> => "findings",
    }
}

/// What a checked document is (`CheckOptions.kind` forces one; an
/// unknown name there is reported as unreadable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify_next::Tsify)]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    /// A tunnel input: planned first, its plan checked.
    Tunnel,
    Plan,
    /// One node's GOST config (`{services?, chains?}`).
    Config,
    /// A list of commands.
    Commands,
}

impl DocumentKind {
    fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Tunnel => "tunnel",
            DocumentKind::Plan => "plan",
            DocumentKind::Config => "config",
            DocumentKind::Commands => "commands",
        }
    }
}

/// The TypeScript of the documents the checker reads ([`detect`] tells
/// them apart by their shape in the tree; a tunnel input is planned first).
/// Declarations only: no code builds these types.
#[cfg(any(test, target_arch = "wasm32"))]
pub mod documents {
    #![allow(dead_code, clippy::large_enum_variant)]
    use crate::coerce::accepted::JsonValue;
    use crate::plan::{
        Assumption, ChainConfig, Command, FederationStep, Plan, PlanNode, ServiceConfig,
    };
    use crate::planner::request::TunnelRequest;
    use tsify_next::Tsify;

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
}

fn detect<'d>(doc: &'d TreeValue<'d>) -> Result<DocumentKind, Reason<'d>> {
    match doc {
        TreeValue::Arr(_) => Ok(DocumentKind::Commands),
        TreeValue::Object(o) => {
            if o.contains_key("tunnel") || o.contains_key("db") {
                Ok(DocumentKind::Tunnel)
            } else if o.contains_key("local") || o.contains_key("federation") {
                Ok(DocumentKind::Plan)
            } else if o
                .keys()
                .any(|k| k.eq_ignore_ascii_case("services") || k.eq_ignore_ascii_case("chains"))
            {
                Ok(DocumentKind::Config)
            } else {
                Err(Reason::Unrecognised)
            }
        }
        other => Err(Reason::NotADocument(other)),
    }
}

/// The report of a document that cannot be checked: one IN001 finding.
fn unreadable(kind: &str, reason: Reason<'_>) -> CheckReport {
    let mut sink = Sink::default();
    Msg::Unreadable(reason).say(&mut sink, None, "");
    finish(kind, "document", sink.findings)
}

/// The report for a document over a size limit: one IN001 finding naming it.
pub fn limit_report(e: &crate::limits::LimitError) -> CheckReport {
    finish("unknown", "document", vec![e.to_finding()])
}

fn finish(kind: &str, paths_into: &str, mut findings: Vec<Finding>) -> CheckReport {
    sort_findings(&mut findings);
    findings.dedup();
    let mut summary = Summary {
        kind: kind.to_string(),
        paths_into: paths_into.to_string(),
        ..Default::default()
    };
    for f in &findings {
        match f.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
        match summary.by_code.get_mut(f.code.as_str()) {
            Some(n) => *n += 1,
            None => {
                summary.by_code.insert(f.code.clone(), 1);
            }
        }
    }
    summary.total = findings.len();
    CheckReport { findings, summary }
}

/// Checks one document: a tunnel input, a plan, one node's GOST config or a
/// command list. Never panics; an unreadable document is one IN001 finding.
/// A document already built gets the report its JSON text gets
/// ([`check_text`]): its limits walked in the order the reader meets them,
/// its tree built from it (no text). Its size in bytes is not limited (it
/// was not handed over as text).
pub fn check(doc: &Value, options: &CheckOptions) -> CheckReport {
    let values = match crate::limits::check_value_as_read(doc, &options.limits) {
        Ok(values) => values,
        Err(crate::limits::ReadError::Limit(e)) => return limit_report(&e),
        Err(crate::limits::ReadError::NotJson(e)) => {
            return unreadable("unknown", Reason::NotJson(&e))
        }
    };
    let arena = tree::Arena::new();
    let tree = crate::encode::to_tree(doc, &arena);
    check_read(&tree, values, options)
}

fn too_many_values() -> CheckReport {
    unreadable("unknown", Reason::TooManyValues)
}

/// The kind to check `doc` as (forced by the options or detected), or why
/// it cannot be checked.
fn kind_of<'d>(
    doc: &'d TreeValue<'d>,
    options: &'d CheckOptions,
) -> Result<DocumentKind, Reason<'d>> {
    match options
        .kind
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        Some("tunnel") => Ok(DocumentKind::Tunnel),
        Some("plan") => Ok(DocumentKind::Plan),
        Some("config") => Ok(DocumentKind::Config),
        Some("commands") => Ok(DocumentKind::Commands),
        Some(other) => Err(Reason::UnknownKind(other)),
        None => detect(doc),
    }
}

/// A tunnel input is planned first, from the tree it was read into (within
/// the reader's limits already; the planner counts its rows and hops).
fn tunnel_report(doc: &TreeValue<'_>, options: &CheckOptions) -> CheckReport {
    let mode = options
        .mode
        .unwrap_or_else(|| crate::planner::PlanMode::detect(doc));
    if !doc.is_object() {
        let shape = crate::planner::input_shape(mode);
        return unreadable("tunnel", Reason::TunnelShape(shape));
    }
    let plan = crate::planner::plan_within(doc, mode, &options.limits);
    let (_, findings) = plan_and_findings(plan, None);
    finish(DocumentKind::Tunnel.as_str(), "plan", findings)
}

/// Checks a plan, config or command list (not a tunnel input).
fn check_kind(doc: &TreeValue<'_>, kind: DocumentKind) -> CheckReport {
    match kind {
        DocumentKind::Tunnel | DocumentKind::Plan => match doc.as_object() {
            Some(o) => match plan_findings(o, None) {
                Ok(f) => finish(DocumentKind::Plan.as_str(), "document", f),
                Err((en, zh)) => unreadable("plan", Reason::Read(&en, &zh)),
            },
            None => unreadable("plan", Reason::PlanShape),
        },
        DocumentKind::Config => match doc.as_object() {
            Some(o) => {
                let mut sink = Sink::default();
                let d = Document::from_config(&mut sink, o);
                run_rules(&d, false, &mut sink);
                finish(DocumentKind::Config.as_str(), "document", sink.findings)
            }
            None => unreadable("config", Reason::ConfigShape),
        },
        DocumentKind::Commands => match doc {
            TreeValue::Arr(_) => {
                let mut sink = Sink::default();
                let d = Document::from_commands(&mut sink, doc);
                run_rules(&d, false, &mut sink);
                finish(DocumentKind::Commands.as_str(), "document", sink.findings)
            }
            _ => unreadable("commands", Reason::CommandsShape),
        },
    }
}

/// [`check`] on JSON text: text that is not JSON or is too large is one IN001.
pub fn check_text(text: &str, options: &CheckOptions) -> CheckReport {
    // The checker's own tree (in one arena, strings borrowed from the
    // text), the limits counted while it is read.
    let arena = tree::Arena::new();
    let (tree, values) = match crate::limits::read_tree_within(text, &options.limits, &arena) {
        Ok(read) => read,
        Err(crate::limits::ReadError::Limit(e)) => return limit_report(&e),
        Err(crate::limits::ReadError::NotJson(e)) => {
            return unreadable("unknown", Reason::NotJson(&e));
        }
    };
    check_read(&tree, values, options)
}

/// The report on a document read (`values` JSON values in its `tree`).
fn check_read(tree: &TreeValue<'_>, values: usize, options: &CheckOptions) -> CheckReport {
    if values > MAX_VALUES {
        return too_many_values();
    }
    match kind_of(tree, options) {
        Ok(DocumentKind::Tunnel) => tunnel_report(tree, options),
        Ok(kind) => check_kind(tree, kind),
        Err(reason) => unreadable("unknown", reason),
    }
}

/// The panel's pre-submit check: plans the tunnel (along the path
/// `options` names, else the one it asks for, see
/// [`crate::planner::PlanMode::detect`]) and checks the plan.
pub fn check_tunnel(input: &Value, options: &crate::planner::PlanOptions) -> TunnelCheck {
    checked(crate::planner::plan(input, options))
}

/// [`check_tunnel`] of an input read into its tree within `options`'
/// limits (no second walk).
pub(crate) fn check_tunnel_within(
    input: &TreeValue<'_>,
    options: &crate::planner::PlanOptions,
) -> TunnelCheck {
    let mode = options.mode_for(input);
    checked(crate::planner::plan_within(input, mode, &options.limits))
}

/// A plan and its findings, sorted, each once.
fn checked(plan: Plan) -> TunnelCheck {
    let (plan, mut findings) = plan_and_findings(plan, None);
    sort_findings(&mut findings);
    findings.dedup();
    TunnelCheck { plan, findings }
}

/// [`check_tunnel`] on a plan already made (the whole-panel audit plans
/// each tunnel from its stored rows), with the services that listen on the
/// panel's own nodes, for the panel-wide port rule
/// ([`sharing::panel_port_clashes`]).
pub fn check_planned(plan: Plan) -> (TunnelCheck, Vec<sharing::PortHold>) {
    let mut holds = Vec::new();
    let (plan, mut findings) = plan_and_findings(plan, Some(&mut holds));
    sort_findings(&mut findings);
    findings.dedup();
    (TunnelCheck { plan, findings }, holds)
}

fn plan_and_findings(
    plan: Plan,
    holds: Option<&mut Vec<sharing::PortHold>>,
) -> (Plan, Vec<Finding>) {
    let mut sink = Sink::default();
    if let Some(err) = &plan.error {
        error_finding(err, &mut sink);
        return (plan, sink.findings);
    }
    // The plan as the tree its JSON text would read into, built from the
    // typed plan: the same rules read it as they read a plan document.
    let arena = tree::Arena::new();
    let tree = crate::encode::to_tree(&plan, &arena);
    // A plan is written as an object.
    let Some(obj) = tree.as_object() else {
        return (plan, sink.findings);
    };
    match plan_findings(obj, holds) {
        Ok(f) => sink.findings.extend(f),
        Err((en, zh)) => Msg::PlanUnreadable(Reason::Read(&en, &zh)).say(&mut sink, None, ""),
    }
    (plan, sink.findings)
}

/// The finding of a plan the server refuses: IN004 for the edit of a
/// remote entry, IN001 for input of the wrong shape or over the preview's
/// own bounds, IN002 for any other refusal.
fn error_finding(err: &crate::plan::PlanError, sink: &mut Sink) {
    let (msg, path) = match err.code.as_str() {
        "REMOTE_ENTRY_UPDATE_REFUSED" => (
            Msg::RemoteEntryEdit {
                server: &err.message,
            },
            "/error",
        ),
        // Not a decision of the server about this tunnel: the input has the wrong shape.
        "INVALID_INPUT" => (
            Msg::InvalidInput {
                why: err
                    .message_en
                    .strip_prefix("invalid input: ")
                    .unwrap_or(&err.message_en),
                server: &err.message,
            },
            "",
        ),
        // The preview's own bound (stored rows, the plan's size), not the server's.
        "LIMIT_EXCEEDED" => (
            Msg::Limit {
                en: &err.message_en,
                zh: &err.message,
            },
            "",
        ),
        _ => (
            Msg::ServerRejects {
                server: &err.message,
                english: &err.message_en,
            },
            "/error",
        ),
    };
    msg.say(sink, None, path);
}

fn plan_findings(
    plan: &TreeObject<'_>,
    holds: Option<&mut Vec<sharing::PortHold>>,
) -> Result<Vec<Finding>, (String, String)> {
    let mut sink = Sink::default();
    let rejects = |server: &str, english: &str, sink: &mut Sink| {
        Msg::ServerRejects { server, english }.say(sink, None, "/error")
    };
    match plan.get("error") {
        None | Some(TreeValue::Null) => {}
        Some(TreeValue::Str(s)) => rejects(s, "", &mut sink),
        Some(TreeValue::Object(e)) => {
            let msg = e.get("message").and_then(|m| m.as_str()).unwrap_or("");
            let en = e.get("messageEn").and_then(|m| m.as_str()).unwrap_or("");
            rejects(msg, en, &mut sink)
        }
        Some(other) => rejects(&other.to_string(), "", &mut sink),
    }
    assumed_findings(plan, &mut sink);
    let doc = Document::from_plan(&mut sink, plan)?;
    let listeners = run_rules(&doc, true, &mut sink);
    if let Some(holds) = holds {
        *holds = sharing::port_holds(listeners);
    }
    Ok(sink.findings)
}

/// IN003: one finding per node (and one for the tunnel) listing the values
/// the preview assumed, so nobody mistakes them for the provider's answer.
fn assumed_findings(plan: &TreeObject<'_>, sink: &mut Sink) {
    let Some(items) = plan.get("assumed").and_then(TreeValue::as_array) else {
        return;
    };
    // (node, index of its first item, "path = value, ..."), in first-seen order.
    let mut groups: Vec<(Option<i64>, usize, String)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let node = item.get("nodeId").and_then(TreeValue::as_i64);
        let list = match groups.iter_mut().find(|g| g.0 == node) {
            Some(g) => {
                g.2.push_str(", ");
                &mut g.2
            }
            None => {
                groups.push((node, i, String::new()));
                match groups.last_mut() {
                    Some(g) => &mut g.2,
                    None => continue,
                }
            }
        };
        list.push_str(item.get("path").and_then(TreeValue::as_str).unwrap_or(""));
        list.push_str(" = ");
        if let Some(value) = item.get("value") {
            let _ = write!(list, "{}", value);
        }
    }
    for (node, first, list) in groups {
        let path = util::join_i("/assumed", first);
        Msg::Assumed { node, list: &list }.say(sink, node, &path);
    }
}

/// Every rule on `doc`; gives back its services' listeners (the audit's
/// panel-wide port rule reads them, see [`check_planned`]).
fn run_rules<'d>(
    doc: &'d Document<'_>,
    is_plan: bool,
    sink: &mut Sink,
) -> Vec<sharing::Listener<'d>> {
    failover::check(doc, sink);
    linkage::check(doc, sink);
    let listeners = sharing::check(doc, sink);
    parity::check(doc, is_plan, sink);
    if is_plan {
        survival::check(doc, sink);
    }
    listeners
}

/// Why a document cannot be checked (an IN001 finding's reason).
enum Reason<'m> {
    /// An object with none of the keys of a known kind.
    Unrecognised,
    /// A JSON value that is not an object or array.
    NotADocument(&'m TreeValue<'m>),
    /// A kind the options force that the checker does not know.
    UnknownKind(&'m str),
    NotJson(&'m dyn std::fmt::Display),
    TooManyValues,
    /// A tunnel input that is not an object, with the shape the request path wants.
    TunnelShape(&'m str),
    PlanShape,
    ConfigShape,
    CommandsShape,
    /// Why the document reader could not read a plan (English, Chinese).
    Read(&'m str, &'m str),
}

impl Reason<'_> {
    /// The reason in English and Chinese.
    fn texts(&self) -> (String, String) {
        match *self {
            Reason::Unrecognised => (
                "unrecognised document: expected a tunnel input {tunnel, nodes}, a plan {federation, local}, a GOST config {services, chains} or a command list [{nodeId, command, data}]".into(),
                "无法识别的文档：应为隧道输入 {tunnel, nodes}、计划 {federation, local}、GOST 配置 {services, chains} 或命令列表 [{nodeId, command, data}]".into(),
            ),
            Reason::NotADocument(v) => (
                format!(
                    "unrecognised document: a {} is not a tunnel input, plan, GOST config or command list",
                    util::json_type(v)
                ),
                format!(
                    "无法识别的文档：{} 不是隧道输入、计划、GOST 配置或命令列表",
                    util::json_type_zh(v)
                ),
            ),
            Reason::UnknownKind(kind) => (
                format!(
                    "unknown kind {:?} (use tunnel, plan, config or commands)",
                    kind
                ),
                format!(
                    "未知的文档类型 {:?}（可用 tunnel、plan、config 或 commands）",
                    kind
                ),
            ),
            Reason::NotJson(e) => (format!("not JSON: {}", e), format!("不是合法的 JSON：{}", e)),
            Reason::TooManyValues => (
                format!("more than {} JSON values", MAX_VALUES),
                format!("JSON 值超过 {} 个", MAX_VALUES),
            ),
            Reason::TunnelShape(shape) => (
                format!("a tunnel input must be an object {}", shape),
                format!("隧道输入必须是对象 {}", shape),
            ),
            Reason::PlanShape => (
                "a plan must be an object {error?, federation, local}".into(),
                "计划必须是对象 {error?, federation, local}".into(),
            ),
            Reason::ConfigShape => (
                "a GOST config must be an object {services, chains}".into(),
                "GOST 配置必须是对象 {services, chains}".into(),
            ),
            Reason::CommandsShape => (
                "a command list must be an array [{nodeId, command, data}]".into(),
                "命令列表必须是数组 [{nodeId, command, data}]".into(),
            ),
            Reason::Read(en, zh) => (en.to_string(), zh.to_string()),
        }
    }
}

/// An IN finding, with what its message names.
enum Msg<'m> {
    /// IN001: the document cannot be read.
    Unreadable(Reason<'m>),
    /// IN001: the plan made from a tunnel input cannot be read.
    PlanUnreadable(Reason<'m>),
    /// IN001: a tunnel input of the wrong shape; the server's own answer.
    InvalidInput { why: &'m str, server: &'m str },
    /// IN001: over one of the preview's bounds, as the planner words it.
    Limit { en: &'m str, zh: &'m str },
    /// IN002: the server's answer, and its English words when they differ.
    ServerRejects { server: &'m str, english: &'m str },
    /// IN003: the values assumed for one node (`None`: the tunnel's).
    Assumed { node: Option<i64>, list: &'m str },
    /// IN004: the server's answer.
    RemoteEntryEdit { server: &'m str },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        match self {
            Msg::Unreadable(reason) => {
                let (en, zh) = reason.texts();
                sink.say(
                    "IN001",
                    node_id,
                    path,
                    format_args!("cannot read the document: {}", en),
                    format_args!("无法读取文档：{}", zh),
                )
            }
            Msg::PlanUnreadable(reason) => {
                let (en, zh) = reason.texts();
                sink.say(
                    "IN001",
                    node_id,
                    path,
                    format_args!("the plan made from this tunnel cannot be read: {}", en),
                    format_args!("由该隧道生成的计划无法读取：{}", zh),
                )
            }
            Msg::InvalidInput { why, server } => sink.say(
                "IN001",
                node_id,
                path,
                format_args!(
                    "cannot read the tunnel input: {} (the server answers {})",
                    why, server
                ),
                format_args!("无法读取隧道输入：{}（服务器返回 {}）", why, server),
            ),
            Msg::Limit { en, zh } => {
                sink.say("IN001", node_id, path, format_args!("{}", en), format_args!("{}", zh))
            }
            Msg::ServerRejects { server, english } => {
                let en = if english.is_empty() || english == server {
                    format!("the server would reject this tunnel: {}", server)
                } else {
                    format!(
                        "the server would reject this tunnel: {} ({})",
                        server, english
                    )
                };
                sink.add(
                    "IN002",
                    node_id,
                    path,
                    en,
                    format!("服务器会拒绝该隧道：{}", server),
                )
            }
            Msg::Assumed { node: Some(id), list } => sink.say(
                "IN003",
                node_id,
                path,
                format_args!("node {}: no provider panel has answered yet, so the preview assumed {} (as a fresh provider would answer); the real values may differ, give them in the input's federation map", id, list),
                format_args!("节点 {}：提供方面板尚未应答，预览假定了 {}（与全新的提供方一致）；实际值可能不同，可在输入的 federation 中给出", id, list),
            ),
            Msg::Assumed { node: None, list } => sink.say(
                "IN003",
                node_id,
                path,
                format_args!("the preview assumed {}: the server assigns it", list),
                format_args!("预览假定了 {}：实际值由服务器分配", list),
            ),
            Msg::RemoteEntryEdit { server } => sink.say(
                "IN004",
                node_id,
                path,
                format_args!(
                    "the server fails this edit: {} — the panel relays UpdateChains to a remote entry, and the provider's relay does not allow that command, so every edit of a tunnel whose entry is a remote node fails (even one that changes nothing), after the rows are saved and the federated hops re-applied; the remote entry keeps its old chain, which dials the released ports. Delete the tunnel and create it again (AddChains is allowed), or make the change on the provider panel",
                    server
                ),
                format_args!(
                    "服务器会让这次编辑失败：{}——面板向远程入口转发 UpdateChains，而提供方的转发接口不允许该命令，所以入口为远程节点的隧道每次编辑都会失败（即使没有任何改动），且此时数据库记录已保存、联邦节点已重新下发；远程入口保留旧的转发链，仍拨向已释放的端口。请删除隧道后重新创建（AddChains 是允许的），或在提供方面板上修改",
                    server
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A built value nested past the reader's recursion limit gets the report
    /// its text gets: the reader's refusal at the column of the refused
    /// container, or a limit it meets first; found without printing it.
    #[test]
    fn a_value_nested_past_the_reader_is_refused_where_its_text_is() {
        use serde_json::json;
        let nest = |mut v: Value, depth: usize, object: bool| {
            for _ in 0..depth {
                v = if object {
                    json!({ "k\u{e9}\"y": v, "a": [1.5, -2, "\n"] })
                } else {
                    json!([null, true, v, 1e300])
                };
            }
            v
        };
        let docs = [
            nest(json!(1), 130, false),
            nest(json!("x"), 127, true),
            nest(json!([]), 127, false),
            nest(json!({}), 140, true),
            json!([{"long": "y".repeat(50)}, nest(json!(0), 130, false)]),
            json!({"z": nest(json!(0), 130, true), "a": "y".repeat(50)}),
        ];
        for max_string_len in [40, 1000] {
            let mut options = CheckOptions::default();
            options.limits.max_depth = 500;
            options.limits.max_string_len = max_string_len;
            options.limits.max_input_bytes = usize::MAX;
            for doc in &docs {
                let text = crate::json::to_text(doc);
                let (built, read) = (check(doc, &options), check_text(&text, &options));
                let report = |r: &CheckReport| crate::encode::to_string(r);
                assert_eq!(report(&built), report(&read), "{max_string_len} {text:.80}");
            }
        }
    }

    /// IN003 groups the assumed values by node, in first-seen order, each
    /// finding pointing at its node's first item.
    #[test]
    fn assumed_values_are_grouped_by_node() {
        let plan = serde_json::json!({"assumed": [
            {"nodeId": 3, "path": "/a", "value": "x"},
            {"path": "/b", "value": 5},
            {"nodeId": 3, "path": "/c"},
        ]});
        let arena = tree::Arena::new();
        let plan = crate::encode::to_tree(&plan, &arena);
        let mut sink = Sink::default();
        assumed_findings(plan.as_object().expect("an object"), &mut sink);
        let got: Vec<_> = sink
            .findings
            .iter()
            .map(|f| {
                (
                    f.code.as_str(),
                    f.node_id,
                    f.path.as_str(),
                    f.message.as_str(),
                    f.message_zh.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("IN003", Some(3), "/assumed/0", "node 3: no provider panel has answered yet, so the preview assumed /a = \"x\", /c =  (as a fresh provider would answer); the real values may differ, give them in the input's federation map", "节点 3：提供方面板尚未应答，预览假定了 /a = \"x\", /c = （与全新的提供方一致）；实际值可能不同，可在输入的 federation 中给出"),
                ("IN003", None, "/assumed/1", "the preview assumed /b = 5: the server assigns it", "预览假定了 /b = 5：实际值由服务器分配"),
            ]
        );
    }
}
