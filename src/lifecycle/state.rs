//! What the replay keeps on every node, and how the report prints it.
//!
//! A node is what its agent's registries hold: services, chains, traffic
//! limiters (`limiters`), connection limiters (`climiters`), and which
//! services are paused. A planned config stays typed from the plan to the
//! report: no JSON value is built for it. The report prints each config as the value reading the
//! config's text would give prints (keys sorted, serde_json's map order),
//! redacted as [`crate::redact::redact_in_place`] redacts it.

use crate::encode::{Encode, Events, Writer};
use crate::forward::{ForwardService, LimiterData};
use crate::json::{write_string, write_value};
use crate::plan::CommandName::{self, *};
use crate::plan::{ChainConfig, CommandData, DeleteServicesData, ServiceConfig};
use crate::redact::{is_secret_key, redact_in_place, scrub_urls, REDACTED};
use crate::simulate::world::RawNode;
use serde::Deserialize;
use serde_json::{Map, Number, Value};
use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut, Range};
use std::sync::OnceLock;

/// One config on an agent.
#[derive(Debug, Clone)]
pub(super) enum Config {
    Chain(ChainConfig),
    Service(ServiceConfig),
    /// One of a forward's `_tcp`/`_udp` pair.
    Forward(ForwardService),
    Limiter(LimiterData),
    /// A pasted plan's config, or one renamed to a provider's runtime id.
    Json(Value),
}

impl From<Value> for Config {
    fn from(v: Value) -> Config {
        Config::Json(v)
    }
}

/// What an agent runs: its services and chains by name ([`RawNode`],
/// which it derefs to), its limiters, and the services it holds paused.
#[derive(Debug, Default)]
pub(super) struct Node {
    raw: RawNode<Config>,
    /// Traffic limiters (`AddLimiters`), by name in the order added.
    pub limiters: Vec<(String, Config)>,
    /// Connection limiters (`AddCLimiters`).
    pub climiters: Vec<(String, Config)>,
    /// Services stopped by `PauseService`, sorted.
    pub paused: Vec<String>,
}

impl Deref for Node {
    type Target = RawNode<Config>;
    fn deref(&self) -> &RawNode<Config> {
        &self.raw
    }
}

impl DerefMut for Node {
    fn deref_mut(&mut self) -> &mut RawNode<Config> {
        &mut self.raw
    }
}

impl Node {
    /// Whether the agent holds nothing at all.
    fn is_empty(&self) -> bool {
        self.services.is_empty()
            && self.chains.is_empty()
            && self.limiters.is_empty()
            && self.climiters.is_empty()
    }

    /// Whether a traffic limiter (`conn` false) or a connection limiter of
    /// this name is held.
    pub(super) fn has_limiter(&self, conn: bool, name: &str) -> bool {
        let list = if conn {
            &self.climiters
        } else {
            &self.limiters
        };
        list.iter().any(|(n, _)| n == name)
    }

    /// The registry of traffic limiters, or of connection limiters.
    fn registry(&mut self, conn: bool) -> &mut Vec<(String, Config)> {
        if conn {
            &mut self.climiters
        } else {
            &mut self.limiters
        }
    }

    /// `Add*Limiters` / `Update*Limiters`: an upsert by name.
    fn put_limiter(&mut self, conn: bool, name: String, config: Config) {
        let list = self.registry(conn);
        match list.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = config,
            None => list.push((name, config)),
        }
    }

    fn delete_limiter(&mut self, conn: bool, name: &str) {
        self.registry(conn).retain(|(n, _)| n != name);
    }

    /// `PauseService` marks the services the agent has paused;
    /// `ResumeService`, an update or a delete (`pause` false) clears them.
    fn mark_paused(&mut self, names: &[String], pause: bool) {
        for name in names {
            let at = self.paused.binary_search(name);
            match at {
                Ok(i) if !pause => {
                    self.paused.remove(i);
                }
                Err(i) if pause && self.has_service(name) => self.paused.insert(i, name.clone()),
                _ => {}
            }
        }
    }
}

impl Config {
    /// The retries a service config sets (`retries` under an exact
    /// `handler`); a chain sets none.
    pub(super) fn retries(&self) -> Option<i64> {
        match self {
            Config::Service(s) => s.handler.retries,
            Config::Forward(s) => s.handler.retries,
            Config::Chain(_) | Config::Limiter(_) => None,
            Config::Json(v) => json_retries(v),
        }
    }

    /// The chain a service config routes through (`chain` under an exact
    /// `handler`, as the agent reads it); a chain names none.
    pub(super) fn handler_chain(&self) -> Option<String> {
        match self {
            Config::Service(s) => s.handler.chain.clone(),
            Config::Forward(s) => s.handler.chain.clone(),
            Config::Chain(_) | Config::Limiter(_) => None,
            Config::Json(v) => json_chain(v),
        }
    }

    /// The limiters a service config names: its `limiter` (traffic) or
    /// `climiter` (`conn`) list, split on commas as the agent splits it.
    pub(super) fn limiter_names(&self, conn: bool) -> Vec<String> {
        let list = match self {
            Config::Forward(s) if conn => s.climiter.clone(),
            Config::Forward(s) => s.limiter.clone(),
            Config::Json(v) => json_text(v, if conn { "climiter" } else { "limiter" }),
            _ => None,
        };
        let list = list.unwrap_or_default();
        let names = list.split(',').map(str::trim).filter(|n| !n.is_empty());
        names.map(str::to_string).collect()
    }

    /// Appends the config's report text ([`Cache`]: what the configs
    /// written before it left). A JSON config is redacted already
    /// ([`State::new`]).
    fn write(&self, out: &mut String, cache: &mut Cache) {
        match self {
            Config::Chain(c) => write_sorted(c, out, cache),
            Config::Service(s) => write_sorted(s, out, cache),
            Config::Forward(s) => write_sorted(s, out, cache),
            Config::Limiter(l) => write_sorted(l, out, cache),
            Config::Json(v) => write_value(v, out),
        }
    }
}

/// The retries a JSON service config sets, read from the GOST model as the
/// simulator reads them ([`crate::gost::Field::exact`]).
pub(super) fn json_retries(service: &Value) -> Option<i64> {
    let arena = crate::json::tree::Arena::new();
    let tree = crate::encode::to_tree(service, &arena);
    crate::gost::Service::read(tree.as_object()?)
        .retries
        .exact()
        .and_then(crate::go::coerce::json_int)
}

/// The `handler.chain` a JSON service config names, read from the GOST
/// model as [`json_retries`] reads its retries.
fn json_chain(service: &Value) -> Option<String> {
    let arena = crate::json::tree::Arena::new();
    let tree = crate::encode::to_tree(service, &arena);
    let chain = crate::gost::Service::read(tree.as_object()?).chain;
    chain.exact_str().map(str::to_string)
}

/// The string field `key` of a JSON config, read from the GOST model.
fn json_text(config: &Value, key: &str) -> Option<String> {
    let arena = crate::json::tree::Arena::new();
    let tree = crate::encode::to_tree(config, &arena);
    let text = crate::gost::Text::of(tree.as_object(), key).str();
    text.map(str::to_string)
}

/// The names a pasted limiter or service-control command gives.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct JsonNames {
    name: Option<String>,
    limiter: Option<String>,
    services: Vec<String>,
}

impl JsonNames {
    fn of(v: &Value) -> JsonNames {
        let arena = crate::json::tree::Arena::new();
        crate::coerce::from_tree(&crate::encode::to_tree(v, &arena))
    }
}

/// Whether a limiter command acts on connection limiters.
fn is_conn(command: &str) -> bool {
    command.contains("CLimiters")
}

/// Applies one agent command to `node`; a typed config is kept typed, any
/// other pairing of command and config is applied as its JSON reads.
pub(super) fn apply(node: &mut Node, command: &str, data: CommandData) {
    match (CommandName::parse(command), data) {
        (Some(AddLimiters | AddCLimiters), CommandData::Limiter(l)) => {
            node.put_limiter(is_conn(command), l.name.clone(), Config::Limiter(l))
        }
        (Some(UpdateLimiters | UpdateCLimiters), CommandData::UpdateLimiter(u)) => {
            node.put_limiter(is_conn(command), u.limiter, Config::Limiter(u.data))
        }
        (_, data) if command.contains("Limiters") => apply_json_limiter(node, command, data),
        (Some(name @ (PauseService | ResumeService)), data) => {
            node.mark_paused(&control_names(data), name == PauseService)
        }
        (Some(AddService | UpdateService), CommandData::ForwardServices(list)) => {
            let names: Vec<String> = list.iter().map(|s| s.name.clone()).collect();
            node.mark_paused(&names, false);
            for s in list {
                node.put_service(s.name.clone(), Config::Forward(s));
            }
        }
        (Some(DeleteService), CommandData::DeleteServices(d)) => {
            node.mark_paused(&d.services, false);
            apply_raw(node, command, CommandData::DeleteServices(d))
        }
        (_, data) => apply_raw(node, command, data),
    }
}

/// The services a `PauseService` / `ResumeService` names.
fn control_names(data: CommandData) -> Vec<String> {
    match data {
        CommandData::DeleteServices(DeleteServicesData { services }) => services,
        other => JsonNames::of(&other.to_json()).services,
    }
}

/// A limiter command as a pasted plan gives it: `Add*` names the limiter
/// by `name`, `Update*` and `Delete*` by `limiter`.
fn apply_json_limiter(node: &mut Node, command: &str, data: CommandData) {
    let conn = is_conn(command);
    let v = into_value(data);
    let names = JsonNames::of(&v);
    match CommandName::parse(command) {
        Some(AddLimiters | AddCLimiters) => {
            let name = names.name.unwrap_or_default();
            node.put_limiter(conn, name, Config::Json(v));
        }
        Some(UpdateLimiters | UpdateCLimiters) => {
            let config = v.get("data").cloned().unwrap_or(Value::Null);
            node.put_limiter(
                conn,
                names.limiter.unwrap_or_default(),
                Config::Json(config),
            );
        }
        Some(DeleteLimiters | DeleteCLimiters) => {
            node.delete_limiter(conn, names.limiter.as_deref().unwrap_or_default())
        }
        _ => {}
    }
}

fn into_value(data: CommandData) -> Value {
    match data {
        CommandData::Json(v) => v,
        typed => typed.to_json(),
    }
}

/// A service or chain command on the node's [`RawNode`].
fn apply_raw(node: &mut Node, command: &str, data: CommandData) {
    match (CommandName::parse(command), data) {
        (Some(AddChains | UpdateChains), CommandData::Chain(c)) => {
            node.put_chain(c.name.clone(), Config::Chain(c))
        }
        (Some(AddChains | UpdateChains), CommandData::UpdateChain(d)) => {
            node.put_chain(d.chain, Config::Chain(d.data))
        }
        (Some(AddService | UpdateService), CommandData::Services(list)) => {
            for s in list {
                node.put_service(s.name.clone(), Config::Service(s));
            }
        }
        (Some(DeleteService), CommandData::DeleteServices(d)) => {
            let names: Vec<&str> = d.services.iter().map(String::as_str).collect();
            node.delete_services(&names)
        }
        (Some(DeleteChains), CommandData::DeleteChain(d)) => node.delete_chain(&d.chain),
        (_, CommandData::Json(v)) => node.apply_owned(command, v),
        (_, other) => node.apply_owned(command, other.to_json()),
    }
    let Node { raw, paused, .. } = node;
    paused.retain(|name| raw.has_service(name));
}

/// What the replay leaves deployed, redacted, as the report prints it: the
/// nodes' configs, the provider runtimes and the tunnels' records.
#[derive(Debug)]
pub(crate) struct State {
    /// The nodes that run something, by id as text (the report's key order).
    nodes: Vec<(String, Node)>,
    runtimes: Value,
    tunnels: Value,
}

impl State {
    /// The state of these nodes, runtimes and tunnels, redacted: configs
    /// pasted by the caller may carry auth blocks or tokens. A typed config
    /// is redacted as it is written.
    pub(super) fn new(
        nodes: BTreeMap<i64, Node>,
        mut runtimes: Value,
        mut tunnels: Value,
    ) -> State {
        let mut listed = Vec::new();
        for (id, mut n) in nodes {
            if n.is_empty() {
                continue;
            }
            let Node {
                raw,
                limiters,
                climiters,
                ..
            } = &mut n;
            let configs = raw.chains.iter_mut().chain(raw.services.iter_mut());
            for (_, config) in configs.chain(limiters.iter_mut()).chain(climiters) {
                if let Config::Json(v) = config {
                    redact_in_place(v);
                }
            }
            listed.push((id.to_string(), n));
        }
        crate::sorting::sort_by(&mut listed, |a, b| a.0.cmp(&b.0));
        redact_in_place(&mut runtimes);
        redact_in_place(&mut tunnels);
        State {
            nodes: listed,
            runtimes,
            tunnels,
        }
    }

    /// The state as the value its text reads into, built without the text.
    pub(crate) fn to_value(&self) -> Value {
        let mut nodes = Map::new();
        for (id, n) in &self.nodes {
            let mut node = Map::new();
            node.insert("chains".into(), list_value(&n.chains));
            node.insert("services".into(), list_value(&n.services));
            for (key, list) in [("limiters", &n.limiters), ("climiters", &n.climiters)] {
                if !list.is_empty() {
                    node.insert(key.into(), list_value(list));
                }
            }
            if !n.paused.is_empty() {
                node.insert("paused".into(), Value::from(n.paused.clone()));
            }
            nodes.insert(id.clone(), Value::Object(node));
        }
        crate::json::object([
            ("nodes", Value::Object(nodes)),
            ("runtimes", self.runtimes.clone()),
            ("tunnels", self.tunnels.clone()),
        ])
    }

    /// `{"nodes": {"id": {"chains": [...], "services": [...], "limiters"?:
    /// [...], "climiters"?: [...], "paused"?: [names]}}, "runtimes": ...,
    /// "tunnels": ...}`: the last three only when not empty.
    fn write(&self, out: &mut String) {
        // The shared texts are kept by their cells' addresses: every config
        // stays alive until the end.
        let mut cache = Cache::new();
        out.push_str("{\"nodes\":{");
        for (k, (id, n)) in self.nodes.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            write_string(id, out);
            out.push_str(":{\"chains\":");
            write_list(&n.chains, out, &mut cache);
            out.push_str(",\"services\":");
            write_list(&n.services, out, &mut cache);
            for (key, list) in [("limiters", &n.limiters), ("climiters", &n.climiters)] {
                if !list.is_empty() {
                    out.push_str(&format!(",\"{key}\":"));
                    write_list(list, out, &mut cache);
                }
            }
            if !n.paused.is_empty() {
                out.push_str(",\"paused\":");
                write_value(&Value::from(n.paused.clone()), out);
            }
            out.push('}');
        }
        out.push_str("},\"runtimes\":");
        write_value(&self.runtimes, out);
        out.push_str(",\"tunnels\":");
        write_value(&self.tunnels, out);
        out.push('}');
    }
}

impl Encode for State {
    fn encode(&self, out: &mut Writer<'_>) {
        match out {
            // Straight into the report's text.
            Writer::Text(text) => self.write(text),
            Writer::Count(len) => {
                let mut text = String::new();
                self.write(&mut text);
                **len += text.len();
            }
            build => build.value(&self.to_value()),
        }
    }
}

/// A list of configs as values: redacted as [`Config::write`] writes them.
fn list_value(list: &[(String, Config)]) -> Value {
    let value = |c: &Config| match c {
        Config::Json(v) => v.clone(),
        Config::Chain(c) => crate::redact::redact(&crate::encode::to_value(c)),
        Config::Service(s) => crate::redact::redact(&crate::encode::to_value(s)),
        Config::Forward(s) => crate::redact::redact(&crate::encode::to_value(s)),
        Config::Limiter(l) => crate::redact::redact(&crate::encode::to_value(l)),
    };
    Value::Array(list.iter().map(|(_, c)| value(c)).collect())
}

fn write_list(list: &[(String, Config)], out: &mut String, cache: &mut Cache) {
    out.push('[');
    for (i, (_, c)) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        c.write(out, cache);
    }
    out.push(']');
}

/// What the writing of one report's configs keeps: the sorted text of the
/// shared values already written ([`crate::plan::Shared`]), with where each
/// is by the address of its text cell; and whether each of the crate's own
/// keys met so far names a credential, by address and length (the same few
/// keys come for every config).
#[derive(Default)]
struct Cache {
    texts: Vec<String>,
    at: BTreeMap<usize, usize>,
    secret: Vec<((usize, usize), bool)>,
    /// The same for keys from the input (metadata), by their text.
    entry_secret: BTreeMap<String, bool>,
}

impl Cache {
    fn new() -> Self {
        Self::default()
    }
}

/// Stands for a shared value's text while the values around it are put in
/// order: NUL, its index, NUL. The text has no other NUL (strings escape it).
const MARK: char = '\0';

/// Appends `v`'s text as [`write_value`] prints the redacted value reading
/// it would give: object keys sorted, credentials replaced, URLs scrubbed.
fn write_sorted(v: &dyn Encode, out: &mut String, cache: &mut Cache) {
    let mut root = String::new();
    v.encode(&mut Writer::Build(&mut Sorted {
        open: Vec::new(),
        spare: Vec::new(),
        out: &mut root,
        cache,
    }));
    let texts = &cache.texts;
    // Each shared text is copied once, here, however deep it was written.
    let mut parts = root.split(MARK);
    out.push_str(parts.next().unwrap_or_default());
    while let (Some(index), Some(after)) = (parts.next(), parts.next()) {
        let text = index.parse().ok().and_then(|i: usize| texts.get(i));
        out.push_str(text.map_or("", String::as_str));
        out.push_str(after);
    }
}

/// A writer of sorted, redacted text: an object's entries are written as
/// they come and put in key order when it ends.
struct Sorted<'a> {
    open: Vec<Open>,
    /// Containers done with, kept for their buffers.
    spare: Vec<Open>,
    /// Where the outermost value goes.
    out: &'a mut String,
    cache: &'a mut Cache,
}

/// A container being written: its values' text so far, and for an object
/// each value's key and place in it, with the key of the value to come
/// (the text of keys from the input is kept in `keys`).
#[derive(Default)]
struct Open {
    text: String,
    object: bool,
    entries: Vec<(Key, Range<usize>)>,
    key: Key,
    keys: String,
}

/// An object's key, and whether its value is to be replaced (a credential).
type Key = (KeyText, bool);

/// One of the crate's own keys, or where a key from the input is in `keys`.
#[derive(Clone)]
enum KeyText {
    Own(&'static str),
    At(Range<usize>),
}

impl Default for KeyText {
    fn default() -> Self {
        KeyText::Own("")
    }
}

impl KeyText {
    fn text<'k>(&self, keys: &'k str) -> &'k str {
        match self {
            KeyText::Own(key) => key,
            KeyText::At(at) => keys.get(at.clone()).unwrap_or_default(),
        }
    }
}

impl Sorted<'_> {
    /// One finished value, written by `write` into its container.
    fn put(&mut self, write: impl FnOnce(&mut String)) {
        let Some(top) = self.open.last_mut() else {
            return write(self.out);
        };
        let start = top.text.len();
        write(&mut top.text);
        if top.object {
            let key = std::mem::take(&mut top.key);
            top.entries.push((key, start..top.text.len()));
        }
    }

    fn open(&mut self, object: bool) {
        let mut open = self.spare.pop().unwrap_or_default();
        open.object = object;
        if !object {
            open.text.push('[');
        }
        self.open.push(open);
    }

    fn key(&mut self, key: Key) {
        if let Some(open) = self.open.last_mut() {
            open.key = key;
        }
    }

    /// Puts a finished container's text into its parent and keeps its buffers.
    fn close(&mut self, mut done: Open) {
        if done.object {
            let Open {
                text,
                entries,
                keys,
                ..
            } = &mut done;
            self.put(|o| object_text(text, keys, entries, o));
        } else {
            done.text.push(']');
            self.put(|o| o.push_str(&done.text));
        }
        done.text.clear();
        done.entries.clear();
        done.keys.clear();
        self.spare.push(done);
    }
}

/// Appends an object's text from its entries, in key order; the value of a
/// secret key is replaced unless it is null.
fn object_text(text: &str, keys: &str, entries: &mut [(Key, Range<usize>)], out: &mut String) {
    entries.sort_unstable_by(|a, b| a.0 .0.text(keys).cmp(b.0 .0.text(keys)));
    out.push('{');
    for (i, ((key, secret), at)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(key.text(keys), out);
        out.push(':');
        let value = text.get(at.clone()).unwrap_or_default();
        if *secret && value != "null" {
            write_string(REDACTED, out);
        } else {
            out.push_str(value);
        }
    }
    out.push('}');
}

impl Events for Sorted<'_> {
    fn null(&mut self) {
        self.put(|o| o.push_str("null"))
    }
    fn bool(&mut self, b: bool) {
        self.put(|o| o.push_str(if b { "true" } else { "false" }))
    }
    fn int(&mut self, n: i64) {
        self.put(|o| o.push_str(itoa::Buffer::new().format(n)))
    }
    fn uint(&mut self, n: u64) {
        self.put(|o| o.push_str(itoa::Buffer::new().format(n)))
    }
    fn str(&mut self, s: &str) {
        let clean = scrub_urls(s);
        self.put(|o| write_string(clean.as_deref().unwrap_or(s), o))
    }
    fn number(&mut self, n: &Number) {
        self.put(|o| crate::json::write_number(n, o))
    }
    fn array(&mut self) {
        self.open(false)
    }
    fn item(&mut self, first: bool) {
        if let (false, Some(open)) = (first, self.open.last_mut()) {
            open.text.push(',');
        }
    }
    fn end_array(&mut self) {
        if let Some(done) = self.open.pop() {
            self.close(done);
        }
    }
    fn object(&mut self) {
        self.open(true)
    }
    fn field(&mut self, _: bool, key: &'static str) {
        let at = (key.as_ptr() as usize, key.len());
        let secret = match self.cache.secret.iter().find(|(a, _)| *a == at) {
            Some((_, secret)) => *secret,
            None => {
                let secret = is_secret_key(key);
                self.cache.secret.push((at, secret));
                secret
            }
        };
        self.key((KeyText::Own(key), secret))
    }
    fn entry(&mut self, _: bool, key: &str) {
        let secret = match self.cache.entry_secret.get(key) {
            Some(secret) => *secret,
            None => {
                let secret = is_secret_key(key);
                self.cache.entry_secret.insert(key.to_string(), secret);
                secret
            }
        };
        if let Some(open) = self.open.last_mut() {
            let start = open.keys.len();
            open.keys.push_str(key);
            open.key = (KeyText::At(start..open.keys.len()), secret);
        }
    }
    fn end_object(&mut self) {
        if let Some(done) = self.open.pop() {
            self.close(done);
        }
    }
    /// A shared node list is sorted once; where it is used, a mark stands
    /// for it until the outermost value is written.
    fn shared(&mut self, cell: &OnceLock<String>, value: &dyn Encode) -> bool {
        let at = cell as *const OnceLock<String> as usize;
        let index = match self.cache.at.get(&at) {
            Some(index) => *index,
            None => {
                let mut text = String::new();
                write_sorted(value, &mut text, self.cache);
                self.cache.texts.push(text);
                let index = self.cache.texts.len() - 1;
                self.cache.at.insert(at, index);
                index
            }
        };
        self.put(|o| {
            o.push(MARK);
            o.push_str(itoa::Buffer::new().format(index));
            o.push(MARK);
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config's report text is the text of its redacted value.
    fn as_value_prints(v: &dyn Encode) {
        let mut want = crate::encode::to_value(v);
        redact_in_place(&mut want);
        let mut got = String::new();
        write_sorted(v, &mut got, &mut Cache::new());
        assert_eq!(got, crate::json::to_text(&want));
    }

    #[test]
    fn handler_chain_as_the_agent_reads_it() {
        let json = |v: Value| Config::Json(v).handler_chain();
        let chain = serde_json::json!({"name": "s", "handler": {"chain": "fed_chain_31"}});
        assert_eq!(json(chain).as_deref(), Some("fed_chain_31"));
        // Only under its exact name, and only a string.
        assert_eq!(json(serde_json::json!({"Handler": {"chain": "c_1"}})), None);
        assert_eq!(json(serde_json::json!({"handler": {"chain": 1}})), None);
        // A planned middle's service routes through the chain sent with it.
        let plan = crate::planner::plan(
            &crate::plan::tests::federated_middle_input(),
            &Default::default(),
        );
        let commands = plan.federation.first().map_or(&[][..], |f| &f.commands);
        let (mut chain, mut service) = (None, None);
        for c in commands {
            match &c.data {
                CommandData::Chain(c) => chain = Some(c.name.clone()),
                CommandData::Services(list) => service = list.first().cloned(),
                _ => {}
            }
        }
        let service = Config::Service(service.expect("the middle's service"));
        assert!(chain.is_some());
        assert_eq!(service.handler_chain(), chain);
    }

    #[test]
    fn planned_configs_print_as_their_redacted_values() {
        let mut input = crate::plan::tests::federated_middle_input();
        input["nodes"][0]["interfaceName"] = "https://u:p@h?token=t".into();
        let plan = crate::planner::plan(&input, &Default::default());
        assert!(plan.error.is_none(), "{:?}", plan.error);
        let commands = plan.federation.iter().flat_map(|f| &f.commands);
        for c in commands.chain(&plan.local) {
            as_value_prints(&c.data);
        }
        // Metadata keys that name credentials, and values that are null.
        let meta: crate::plan::MetaMap = [
            ("apiToken", crate::plan::MetaValue::Int(1)),
            ("b", crate::plan::MetaValue::Str("ws://u:p@h".into())),
            ("a", crate::plan::MetaValue::Bool(true)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut svc = match &plan.local.last().map(|c| &c.data) {
            Some(CommandData::Services(s)) => s[0].clone(),
            other => panic!("{other:?}"),
        };
        svc.metadata = Some(meta.into());
        svc.handler.retries = None;
        as_value_prints(&svc);
        as_value_prints(&serde_json::json!({"b": null, "token": null, "a": [{"z": 1, "y": [2]}]}));
    }
}
