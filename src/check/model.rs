//! Reads a checked document into the services and chains each node receives,
//! running the AC decode walk on the way. Commands are grouped: group 0 is the
//! panel's own list (`local`, a command list or a config), group i+1 is
//! `federation[i]` (what that provider sends to its agent).

use super::agent::{Decoder, Mode, CHAIN, SERVICE};
use super::rules::Sink;
use super::tree::{TreeObject, TreeValue, NULL};
use super::util::{get_ci, go_int, join, join_i, json_type, json_type_zh, Pointer};
use crate::go::coerce::loose_id;
use crate::gost;
use crate::plan::CommandName::{self, *};

/// A service of the document: its config ([`gost::Service`]) and where it sits.
pub(crate) struct Service<'a> {
    /// Read right after its decode walk, while the service is still in
    /// cache: the rules run only after the whole document is read.
    pub config: gost::Service<'a>,
    /// `handler.retries` as the agent decodes it ([`go_int`]).
    pub retries: Result<Option<i64>, ()>,
    /// Its JSON Pointer is `base/index`, built only for a finding (most
    /// services of a large config have none).
    pub base: std::rc::Rc<str>,
    pub index: usize,
    pub node_id: Option<i64>,
    pub group: usize,
}

impl Service<'_> {
    /// The service's JSON Pointer.
    pub fn path(&self) -> String {
        join_i(&self.base, self.index)
    }
}

/// A chain of the document: its config ([`gost::Chain`]) and where it sits.
pub(crate) struct Chain<'a> {
    pub config: gost::Chain<'a>,
    pub path: String,
    /// The name services refer to it by (an `UpdateChains` may give another
    /// than the config's own).
    pub name: &'a str,
    /// Nodes (objects) in its first hop, `None` without a hop. Counted right
    /// after the chain is decoded, while it is still in cache: the FO rule
    /// runs only after the whole document is read.
    pub first_hop: Option<usize>,
    pub node_id: Option<i64>,
    pub group: usize,
}

pub(crate) struct FedEntry<'a> {
    pub obj: &'a TreeObject<'a>,
    pub node_id: Option<i64>,
    pub group: usize,
}

/// One row of a plan's node table.
pub(crate) struct TableNode {
    pub node_id: i64,
    pub hosts: Vec<String>,
    /// `entry`, `middle` or `exit`.
    pub role: String,
    /// 1-based hop number for middles, 0 otherwise.
    pub hop: i64,
    /// Shared by another panel: that panel owns (and cleans) it.
    pub remote: bool,
}

/// Which registry of the agent a limiter goes to: `limiter` (traffic) or
/// `climiter` (connections) of a service name one of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LimiterKind {
    Traffic,
    Connections,
}

impl LimiterKind {
    /// The service field that names one.
    pub fn field(self) -> &'static str {
        match self {
            LimiterKind::Traffic => "limiter",
            LimiterKind::Connections => "climiter",
        }
    }
}

/// A limiter a node holds once the document's commands ran: one it was
/// sent, or one whose add it refused because it already had it.
pub(crate) struct SentLimiter<'a> {
    pub kind: LimiterKind,
    pub name: &'a str,
    pub node_id: Option<i64>,
}

#[derive(Default)]
pub(crate) struct Document<'a> {
    pub services: Vec<Service<'a>>,
    pub chains: Vec<Chain<'a>>,
    pub fed: Vec<FedEntry<'a>>,
    pub table: Option<Vec<TableNode>>,
    /// Limiters sent by the document's commands (a node config lists its own).
    pub limiters: Vec<SentLimiter<'a>>,
    /// A node config or a plan: it says every limiter its nodes hold (a
    /// bare command list may be partial).
    pub limiters_known: bool,
    /// Several nodes (plan or command list): linkage rules apply.
    pub multi_node: bool,
    /// A whole plan: every node it dials is deployed by it, so a dialed port
    /// nobody listens on is dangling (a bare command list may be partial).
    pub whole_plan: bool,
    /// (group, node, chain name) -> index of the last such chain in
    /// `chains`, built on first use: a name lookup does not scan the chains.
    pub chain_index: std::cell::OnceCell<ChainIndex<'a>>,
}

/// (group, node, chain name) -> index into `Document::chains`.
pub(crate) type ChainIndex<'a> = crate::lookup::LookupMap<(usize, Option<i64>, &'a str), usize>;

impl<'a> Document<'a> {
    fn service_list(
        &mut self,
        sink: &mut Sink,
        data: &'a TreeValue<'a>,
        path: &str,
        node_id: Option<i64>,
        group: usize,
    ) {
        let items = match data {
            TreeValue::Null => return,
            TreeValue::Arr(a) => a,
            other => {
                Msg::ServiceData(other).say(sink, node_id, path);
                return;
            }
        };
        let base: std::rc::Rc<str> = path.into();
        let list = Pointer::Base(path);
        self.services.reserve(items.len());
        for (i, item) in items.iter().enumerate() {
            let p = Pointer::Index(&list, i);
            match item {
                TreeValue::Null => {}
                TreeValue::Object(obj) => {
                    let mut dec = Decoder {
                        sink,
                        node_id,
                        mode: Mode::Service,
                    };
                    dec.object_at(&SERVICE, obj, &p, "");
                    dec.scan_selectors_at(item, &p, 0);
                    let config = gost::Service::read(obj);
                    self.services.push(Service {
                        retries: go_int(config.retries.value()),
                        config,
                        base: base.clone(),
                        index: i,
                        node_id,
                        group,
                    });
                }
                other => Msg::Service(other).say(sink, node_id, &p.render()),
            }
        }
    }

    fn chain(
        &mut self,
        sink: &mut Sink,
        data: &'a TreeValue<'a>,
        path: &str,
        name_override: Option<&'a str>,
        node_id: Option<i64>,
        group: usize,
    ) {
        match data {
            TreeValue::Null => {}
            TreeValue::Object(obj) => {
                Decoder {
                    sink,
                    node_id,
                    mode: Mode::Chain,
                }
                .object(&CHAIN, obj, path, "");
                let config = gost::Chain::read(obj);
                let own = config.name().str().unwrap_or("");
                let name = name_override.filter(|n| !n.is_empty()).unwrap_or(own);
                self.chains.push(Chain {
                    first_hop: config.first_hop_nodes(),
                    config,
                    path: path.to_string(),
                    name,
                    node_id,
                    group,
                });
            }
            other => Msg::ChainData(other).say(sink, node_id, path),
        }
    }

    /// Reads one command `{nodeId, command, data}`.
    fn command(&mut self, sink: &mut Sink, cmd: &'a TreeValue<'a>, path: &str, group: usize) {
        let Some(obj) = cmd.as_object() else {
            Msg::Command(cmd).say(sink, None, path);
            return;
        };
        let node_id = obj.get("nodeId").and_then(loose_id);
        let Some(name) = obj.get("command").and_then(|v| v.as_str()) else {
            Msg::CommandName.say(sink, None, path);
            return;
        };
        let data = obj.get("data").unwrap_or(&NULL);
        // A command the agent or provider refused left nothing on the node,
        // except an add refused because the node already has that limiter.
        if let Some(refusal) = obj.get("failed").and_then(|f| f.as_str()) {
            if refusal.ends_with("already exists") {
                self.limiter(name, data, node_id);
            }
            return;
        }
        self.limiter(name, data, node_id);
        let dpath = join(path, "data");
        match CommandName::parse(name) {
            Some(AddService | UpdateService) => {
                self.service_list(sink, data, &dpath, node_id, group)
            }
            Some(AddChains) => self.chain(sink, data, &dpath, None, node_id, group),
            Some(UpdateChains) => {
                // The agent first tries `{chain, data}`, then a bare chain config.
                let wrapped = data.as_object().and_then(|o| {
                    let inner = get_ci(o, "data")?;
                    let chain = get_ci(o, "chain").and_then(|(_, v)| v.as_str());
                    inner.1.is_object().then_some((inner, chain))
                });
                match wrapped {
                    Some(((k, inner), chain)) => {
                        let p = join(&dpath, k);
                        self.chain(sink, inner, &p, chain, node_id, group)
                    }
                    None => self.chain(sink, data, &dpath, None, node_id, group),
                }
            }
            _ => {}
        }
    }

    /// Records the limiter an `Add`/`Update` `[C]Limiters` command sends
    /// (`{name, limits}`, or `{limiter, data}` for an update).
    fn limiter(&mut self, command: &str, data: &'a TreeValue<'a>, node_id: Option<i64>) {
        let command = CommandName::parse(command);
        let kind = match command {
            Some(AddLimiters | UpdateLimiters) => LimiterKind::Traffic,
            Some(AddCLimiters | UpdateCLimiters) => LimiterKind::Connections,
            _ => return,
        };
        let Some(obj) = data.as_object() else { return };
        let named = |o: &'a TreeObject<'a>, key: &str| o.get(key).and_then(|v| v.as_str());
        let name = if matches!(command, Some(UpdateLimiters | UpdateCLimiters)) {
            named(obj, "limiter")
        } else {
            named(obj, "name")
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            self.limiters.push(SentLimiter {
                kind,
                name,
                node_id,
            });
        }
    }

    fn command_list(
        &mut self,
        sink: &mut Sink,
        list: &'a TreeValue<'a>,
        path: &str,
        group: usize,
    ) -> bool {
        match list {
            TreeValue::Null => true,
            TreeValue::Arr(items) => {
                for (i, c) in items.iter().enumerate() {
                    self.command(sink, c, &join_i(path, i), group);
                }
                true
            }
            _ => false,
        }
    }

    /// A plan's `federation` list at `path`: each provider's commands are a
    /// group of their own. False when it is not a list.
    fn federation_list(&mut self, sink: &mut Sink, list: &'a TreeValue<'a>, path: &str) -> bool {
        let entries = match list {
            TreeValue::Null => return true,
            TreeValue::Arr(entries) => entries,
            _ => return false,
        };
        for (i, e) in entries.iter().enumerate() {
            let p = join_i(path, i);
            let Some(obj) = e.as_object() else {
                Msg::FederationEntry(e).say(sink, None, &p);
                continue;
            };
            let group = self.fed.len() + 1;
            let node_id = obj.get("nodeId").and_then(loose_id);
            let cmds = obj.get("commands").unwrap_or(&NULL);
            let cp = join(&p, "commands");
            if !self.command_list(sink, cmds, &cp, group) {
                Msg::Commands(cmds).say(sink, None, &cp);
            }
            self.fed.push(FedEntry {
                obj,
                node_id,
                group,
            });
        }
        true
    }

    /// A plan `{error?, federation, local, nodes?}`; `Err` (English, Chinese) when its shape is wrong.
    pub fn from_plan(
        sink: &mut Sink,
        plan: &'a TreeObject<'a>,
    ) -> Result<Document<'a>, (String, String)> {
        let mut doc = Document {
            multi_node: true,
            whole_plan: true,
            limiters_known: true,
            ..Default::default()
        };
        let local = plan.get("local").unwrap_or(&NULL);
        if !doc.command_list(sink, local, "/local", 0) {
            return Err(Msg::Local(local).texts());
        }
        let federation = plan.get("federation").unwrap_or(&NULL);
        if !doc.federation_list(sink, federation, "/federation") {
            return Err(Msg::Federation(federation).texts());
        }
        // The forward modes' tunnel, deployed before the request: its
        // commands run on the same nodes (group 0) and through the same
        // providers as any others.
        if let Some(TreeValue::Object(deployed)) = plan.get("deployed") {
            let local = deployed.get("local").unwrap_or(&NULL);
            doc.command_list(sink, local, "/deployed/local", 0);
            let federation = deployed.get("federation").unwrap_or(&NULL);
            doc.federation_list(sink, federation, "/deployed/federation");
        }
        if let Some(TreeValue::Arr(rows)) = plan.get("nodes") {
            let mut table = Vec::new();
            for row in rows.iter() {
                let Some(o) = row.as_object() else { continue };
                let Some(node_id) = o.get("nodeId").and_then(loose_id) else {
                    continue;
                };
                let mut hosts: Vec<String> = Vec::new();
                for a in o
                    .get("addresses")
                    .and_then(|a| a.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|h| h.as_str())
                {
                    hosts.push(crate::go::net::normalize_host(a));
                    // An address that already carries a port (a server IP given
                    // as a URL with a port) is dialed at that host.
                    if let Ok((h, _)) = crate::go::net::split_host_port(a.trim()) {
                        hosts.push(crate::go::net::normalize_host(h));
                    }
                }
                hosts.retain(|h| !h.is_empty());
                let role = o.get("role").and_then(|r| r.as_str()).unwrap_or("");
                let hop = o.get("hop").and_then(loose_id).unwrap_or(0);
                let remote = matches!(o.get("remote"), Some(TreeValue::Bool(true)));
                table.push(TableNode {
                    node_id,
                    hosts,
                    role: role.to_string(),
                    hop,
                    remote,
                });
            }
            doc.table = Some(table);
        }
        Ok(doc)
    }

    /// A command list `[{nodeId, command, data}]`.
    pub fn from_commands(sink: &mut Sink, list: &'a TreeValue<'a>) -> Document<'a> {
        let mut doc = Document {
            multi_node: true,
            ..Default::default()
        };
        doc.command_list(sink, list, "", 0);
        doc
    }

    /// One node's GOST config `{services, chains}`.
    pub fn from_config(sink: &mut Sink, cfg: &'a TreeObject<'a>) -> Document<'a> {
        let mut doc = Document::default();
        // A config that lists limiters at all lists every one its node holds.
        for (key, kind) in [
            ("limiters", LimiterKind::Traffic),
            ("climiters", LimiterKind::Connections),
        ] {
            let Some((_, list)) = get_ci(cfg, key) else {
                continue;
            };
            doc.limiters_known = true;
            let names = list.as_array().into_iter().flatten();
            for name in names.filter_map(|l| l.as_object()?.get("name")?.as_str()) {
                doc.limiters.push(SentLimiter {
                    kind,
                    name,
                    node_id: None,
                });
            }
        }
        if let Some((k, services)) = get_ci(cfg, "services") {
            let p = join("", k);
            doc.service_list(sink, services, &p, None, 0);
        }
        if let Some((k, chains)) = get_ci(cfg, "chains") {
            let p = join("", k);
            match chains {
                TreeValue::Null => {}
                TreeValue::Arr(items) => {
                    doc.chains.reserve(items.len());
                    for (i, c) in items.iter().enumerate() {
                        doc.chain(sink, c, &join_i(&p, i), None, None, 0);
                    }
                }
                other => Msg::Chains(other).say(sink, None, &p),
            }
        }
        doc
    }
}

/// A finding of reading the document (AC001 on what the agent cannot
/// decode, IN001 on what is not a command list), or why a plan cannot be
/// read, with the value of the wrong type it names.
enum Msg<'m> {
    /// AC001: a service command's data is not a list.
    ServiceData(&'m TreeValue<'m>),
    /// AC001: an item of a service list is not an object.
    Service(&'m TreeValue<'m>),
    /// AC001: a chain command's data is not an object.
    ChainData(&'m TreeValue<'m>),
    /// AC001: a config's `chains` is not a list.
    Chains(&'m TreeValue<'m>),
    /// IN001: a command is not an object.
    Command(&'m TreeValue<'m>),
    /// IN001: a command without a string `command`.
    CommandName,
    /// IN001: a federation entry is not an object.
    FederationEntry(&'m TreeValue<'m>),
    /// IN001: a federation entry's `commands` is not a list.
    Commands(&'m TreeValue<'m>),
    /// A plan whose `local` is not a list.
    Local(&'m TreeValue<'m>),
    /// A plan whose `federation` is not a list.
    Federation(&'m TreeValue<'m>),
}

impl Msg<'_> {
    /// Raises the finding.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        let code = match self {
            Msg::ServiceData(_) | Msg::Service(_) | Msg::ChainData(_) | Msg::Chains(_) => "AC001",
            _ => "IN001",
        };
        let (en, zh) = self.texts();
        sink.add(code, node_id, path, en, zh);
    }

    /// The message in English and Chinese.
    fn texts(&self) -> (String, String) {
        match *self {
            Msg::ServiceData(v) => (
                format!(
                    "service data must be a list of services for the agent's decoder, but it is {}",
                    json_type(v)
                ),
                format!("服务数据必须是服务列表（数组），实际是 {}", json_type_zh(v)),
            ),
            Msg::Service(v) => (
                format!(
                    "a service must be an object for the agent's decoder, but it is {}",
                    json_type(v)
                ),
                format!("服务必须是对象，实际是 {}", json_type_zh(v)),
            ),
            Msg::ChainData(v) => (
                format!(
                    "chain data must be an object for the agent's decoder, but it is {}",
                    json_type(v)
                ),
                format!("链路数据必须是对象，实际是 {}", json_type_zh(v)),
            ),
            Msg::Chains(v) => (
                format!(
                    "`chains` must be a list of chains, but it is {}",
                    json_type(v)
                ),
                format!("`chains` 必须是链路列表，实际是 {}", json_type_zh(v)),
            ),
            Msg::Command(v) => (
                format!(
                    "a command must be an object {{nodeId, command, data}}, but it is {}",
                    json_type(v)
                ),
                format!(
                    "命令必须是对象 {{nodeId, command, data}}，实际是 {}",
                    json_type_zh(v)
                ),
            ),
            Msg::CommandName => (
                "a command needs a string `command` (AddService, AddChains, ...)".into(),
                "命令缺少字符串字段 `command`（AddService、AddChains 等）".into(),
            ),
            Msg::FederationEntry(v) => (
                format!(
                    "a federation entry must be an object, but it is {}",
                    json_type(v)
                ),
                format!("联邦条目必须是对象，实际是 {}", json_type_zh(v)),
            ),
            Msg::Commands(v) => (
                format!("`commands` must be a list, but it is {}", json_type(v)),
                format!("`commands` 必须是列表，实际是 {}", json_type_zh(v)),
            ),
            Msg::Local(v) => (
                format!(
                    "`local` must be a list of commands, but it is {}",
                    json_type(v)
                ),
                format!("`local` 必须是命令列表，实际是 {}", json_type_zh(v)),
            ),
            Msg::Federation(v) => (
                format!("`federation` must be a list, but it is {}", json_type(v)),
                format!("`federation` 必须是列表，实际是 {}", json_type_zh(v)),
            ),
        }
    }
}
