//! PA rules: each federated hop against its local twin, i.e. what the local
//! builder ([`crate::builders`], after the panel's
//! go-backend/internal/http/handler/control_plane.go) would emit for the same
//! node with the same targets and ports. Compared by role: `fed_svc_R` ~
//! `tunnel_T`, `fed_chain_R` ~ `chains_T`, `hop_R` ~ `hop_T`.

use super::failover::find_chain;
use super::linkage::{differing_keys, sorted_entries};
use super::model::{Chain, Document, FedEntry, Service};
use super::rules::Sink;
use super::tree::{TreeObject, TreeValue};
use super::util::{get_arr, get_ci, get_obj, get_str, join, join_i};
use crate::address::process_server_address as normalise_address;
use crate::builders;
use crate::finding::Fix;
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Selector the local builder puts on every chain hop.
const TWIN_MAX_FAILS: i64 = 1;
const TWIN_FAIL_TIMEOUT: i64 = 600_000_000_000;

type Meta = Vec<(String, Value)>;

/// Metadata from the builders, as the checker compares it: sorted pairs.
fn as_meta(m: Option<crate::plan::Metadata>) -> Meta {
    let Some(m) = m else { return Meta::new() };
    m.0.iter()
        .map(|(k, v)| {
            let v = match v {
                crate::plan::MetaValue::Bool(b) => Value::Bool(*b),
                crate::plan::MetaValue::Int(i) => Value::from(*i),
                crate::plan::MetaValue::Str(s) => Value::from(s.as_str()),
            };
            (k.clone(), v)
        })
        .collect()
}

/// Mux metadata the local builder puts on a relay connector or handler for `protocol`.
pub(crate) fn local_mux_metadata(protocol: &str) -> Meta {
    as_meta(builders::mux_metadata(protocol, builders::Flavor::Local))
}

/// The KCP tuning block the builders put on kcp dialers and listeners.
pub(crate) fn kcp_metadata(protocol: &str) -> Meta {
    as_meta(builders::transport(protocol).metadata)
}

/// The chain strategy the local builder derives from a next hop's strategy.
fn runtime_strategy(s: &str) -> String {
    builders::runtime_strategy(crate::coerce::default_string(s.trim(), "round"))
}

struct TwinTarget<'a> {
    host: &'a str,
    /// Borrowed unless the target gave its port as a number.
    port: std::borrow::Cow<'a, str>,
    protocol: &'a str,
}

/// What the federated side says about one hop, from which the twin is built.
struct Hop<'d, 'a> {
    node_id: Option<i64>,
    middle: bool,
    protocol: &'a str,
    strategy: Option<&'a str>,
    /// Shared by the services that route through one chain.
    targets: Rc<[TwinTarget<'a>]>,
    svc: &'d Service<'a>,
    chain: Option<&'d Chain<'a>>,
}

/// The metadata of a plugin object (`{metadata}`), sorted by key.
fn meta_of(obj: Option<&TreeObject<'_>>) -> Meta {
    sorted_entries(obj.and_then(|o| get_obj(o, "metadata")), &|_| true)
}

fn key_of<'o>(obj: &'o TreeObject<'_>, name: &'o str) -> &'o str {
    get_ci(obj, name).map(|(k, _)| k).unwrap_or(name)
}

fn svc_chain<'d, 'a>(doc: &'d Document<'a>, svc: &Service<'a>) -> Option<&'d Chain<'a>> {
    find_chain(doc, svc, svc.config.chain.str().filter(|n| !n.is_empty())?)
}

/// Targets and strategy as a deployed chain shows them (first hop).
fn chain_targets<'a>(chain: Option<&Chain<'a>>) -> (Vec<TwinTarget<'a>>, Option<&'a str>) {
    let mut targets = Vec::new();
    let mut strategy = None;
    let hop = chain
        .and_then(|c| c.config.hops_field().items())
        .and_then(|h| h.first())
        .and_then(|h| h.as_object());
    if let Some(hop) = hop {
        strategy = get_obj(hop, "selector").and_then(|s| get_str(s, "strategy"));
        for n in get_arr(hop, "nodes").unwrap_or(&[]) {
            let Some(n) = n.as_object() else { continue };
            let addr = get_str(n, "addr").unwrap_or("");
            let (host, port) = addr.rsplit_once(':').unwrap_or((addr, ""));
            let protocol = get_obj(n, "dialer")
                .and_then(|d| get_str(d, "type"))
                .unwrap_or("");
            targets.push(TwinTarget {
                host,
                port: port.into(),
                protocol,
            });
        }
    }
    (targets, strategy)
}

/// The index of the first service and of the first chain of each group,
/// found in one walk (not one walk per federation entry).
struct GroupFirsts {
    service: BTreeMap<usize, usize>,
    chain: BTreeMap<usize, usize>,
}

impl GroupFirsts {
    fn of(doc: &Document<'_>) -> GroupFirsts {
        let mut service = BTreeMap::new();
        for (i, s) in doc.services.iter().enumerate() {
            service.entry(s.group).or_insert(i);
        }
        let mut chain = BTreeMap::new();
        for (i, c) in doc.chains.iter().enumerate() {
            chain.entry(c.group).or_insert(i);
        }
        GroupFirsts { service, chain }
    }
}

/// Federated hops of a plan: one per federation entry with role middle or exit.
fn plan_hops<'d, 'a>(doc: &'d Document<'a>) -> Vec<Hop<'d, 'a>> {
    let firsts = GroupFirsts::of(doc);
    doc.fed
        .iter()
        .filter_map(|entry| plan_hop(doc, &firsts, entry))
        .collect()
}

/// The hop of one federation entry: its group's first service, the chain
/// that service uses (else the group's first chain), and what the entry's
/// `apply` step says; `None` for an entry without a service or whose role
/// is neither middle nor exit.
fn plan_hop<'d, 'a>(
    doc: &'d Document<'a>,
    firsts: &GroupFirsts,
    entry: &FedEntry<'a>,
) -> Option<Hop<'d, 'a>> {
    let apply = entry.obj.get("apply").and_then(|a| a.as_object());
    let svc = firsts
        .service
        .get(&entry.group)
        .and_then(|&i| doc.services.get(i))?;
    let chain = svc_chain(doc, svc).or_else(|| {
        firsts
            .chain
            .get(&entry.group)
            .and_then(|&i| doc.chains.get(i))
    });
    let middle = is_middle(entry, apply, svc)?;
    let (chain_targets, chain_strategy) = chain_targets(chain);
    let protocol = apply
        .and_then(|a| a.get("protocol"))
        .or_else(|| entry.obj.get("reserve").and_then(|r| r.get("protocol")))
        .and_then(|p| p.as_str())
        .or_else(|| svc.config.listener_type().str())
        .unwrap_or_default();
    let strategy = apply
        .and_then(|a| a.get("strategy"))
        .and_then(|s| s.as_str())
        .or(chain_strategy);
    // Without apply targets the deployed chain says what the targets are.
    let targets = apply_targets(apply).unwrap_or_else(|| chain_targets.into());
    Some(Hop {
        node_id: entry.node_id,
        middle,
        protocol,
        strategy,
        targets,
        svc,
        chain,
    })
}

/// Whether an entry is a middle (`Some(false)`: an exit) by its role, or
/// the role of its `apply` step; `None` for any other role.
fn is_middle(
    entry: &FedEntry<'_>,
    apply: Option<&TreeObject<'_>>,
    svc: &Service<'_>,
) -> Option<bool> {
    let role = entry
        .obj
        .get("role")
        .and_then(|r| r.as_str())
        .or_else(|| apply.and_then(|a| a.get("role")).and_then(|r| r.as_str()));
    match role {
        Some("middle") => Some(true),
        Some("exit") => Some(false),
        Some(_) => None,
        // No role given: a service with a chain is a middle.
        None => Some(svc.config.chain.str().is_some_and(|c| !c.is_empty())),
    }
}

/// The targets an entry's `apply` step lists, when it lists them.
fn apply_targets<'a>(apply: Option<&'a TreeObject<'a>>) -> Option<Rc<[TwinTarget<'a>]>> {
    let targets = apply?.get("targets")?.as_array()?;
    Some(
        targets
            .iter()
            .filter_map(|t| t.as_object())
            .map(apply_target)
            .collect(),
    )
}

fn apply_target<'a>(t: &'a TreeObject<'a>) -> TwinTarget<'a> {
    TwinTarget {
        host: t.get("host").and_then(|h| h.as_str()).unwrap_or("").trim(),
        port: match t.get("port") {
            Some(TreeValue::Str(s)) => s.trim().into(),
            Some(TreeValue::Num(n)) => {
                let mut text = String::new();
                crate::json::write_number(n, &mut text);
                text.into()
            }
            _ => "".into(),
        },
        protocol: t.get("protocol").and_then(|p| p.as_str()).unwrap_or(""),
    }
}

/// Federated hops of a config or command list, recognised by the provider's
/// naming (`fed_svc_R`); targets come from the chain the service uses.
fn named_hops<'d, 'a>(doc: &'d Document<'a>) -> Vec<Hop<'d, 'a>> {
    let federated =
        |svc: &&Service<'a>| svc.config.name().is_some_and(|n| n.starts_with("fed_svc_"));
    // Several services may route through one chain: its targets are read once.
    type Targets<'a> = (Rc<[TwinTarget<'a>]>, Option<&'a str>);
    let mut read: BTreeMap<Option<&'d str>, Targets<'a>> = BTreeMap::new();
    let hop = |svc: &'d Service<'a>| {
        let chain = svc_chain(doc, svc);
        let (targets, strategy) = read
            .entry(chain.map(|c| c.path.as_str()))
            .or_insert_with(|| {
                let (targets, strategy) = chain_targets(chain);
                (targets.into(), strategy)
            })
            .clone();
        Hop {
            node_id: svc.node_id,
            middle: svc.config.chain.str().is_some_and(|c| !c.is_empty()),
            protocol: svc.config.listener_type().str().unwrap_or(""),
            strategy,
            targets,
            svc,
            chain,
        }
    };
    doc.services.iter().filter(federated).map(hop).collect()
}

pub(crate) fn check(doc: &Document<'_>, is_plan: bool, sink: &mut Sink) {
    let hops = if is_plan {
        plan_hops(doc)
    } else {
        named_hops(doc)
    };
    let mut chains = BTreeMap::new();
    for hop in &hops {
        compare(hop, &mut chains, sink);
    }
}

/// What a chain contributes to the comparison of every hop that routes
/// through it, walked once per chain (by its path).
struct ChainPart<'a> {
    /// Interfaces set on its hops and chain nodes (PA005).
    places: Places<'a>,
    /// Its first hop's path, when that hop is an object.
    hop_path: Option<String>,
    /// Its first hop has been compared (PA002-PA004): a second hop through
    /// the chain would raise the same findings again.
    compared: bool,
}

impl<'a> ChainPart<'a> {
    fn walk(chain: &Chain<'a>) -> ChainPart<'a> {
        let hops_field = chain.config.hops_field();
        let hops = hops_field.items().unwrap_or(&[]);
        let mut part = ChainPart {
            places: Places::default(),
            hop_path: None,
            compared: false,
        };
        for (hi, h) in hops.iter().enumerate() {
            let Some(h) = h.as_object() else { continue };
            part.places.note(HOP, get_str(h, "interface"));
            for n in get_arr(h, "nodes").unwrap_or(&[]) {
                part.places.note(
                    CHAIN_NODE,
                    n.as_object().and_then(|n| get_str(n, "interface")),
                );
            }
            if hi == 0 {
                let hops_key = hops_field.key().unwrap_or("hops");
                part.hop_path = Some(join_i(&join(&chain.path, hops_key), 0));
            }
        }
        part
    }
}

/// One federated hop against its twin: the service side, then the chain
/// side (middles), then where the outgoing interface sits, which takes both.
fn compare<'d, 'a>(
    hop: &Hop<'d, 'a>,
    chains: &mut BTreeMap<&'d str, ChainPart<'a>>,
    sink: &mut Sink,
) {
    let svc = hop.svc;
    let hpath = join(&svc.path(), key_of(svc.config.obj, "handler"));
    compare_retries(hop, &hpath, sink);
    compare_service_metadata(hop, &hpath, sink);
    compare_listen_addr(hop, sink);
    let mut places = service_places(svc);
    let mut first_hop_path = None;
    if let Some(chain) = hop.chain {
        let part = chains
            .entry(chain.path.as_str())
            .or_insert_with(|| ChainPart::walk(chain));
        places.add(&part.places);
        first_hop_path.clone_from(&part.hop_path);
        compare_first_hop_once(hop, chain, part, sink);
    }
    compare_interface_places(hop, &places, first_hop_path, sink);
}

/// PA001: the service's retries against what the local builder sets for
/// its number of targets.
fn compare_retries(hop: &Hop<'_, '_>, hpath: &str, sink: &mut Sink) {
    let svc = hop.svc;
    let n = hop.targets.len() as i64;
    let twin = if hop.middle && n > 1 { n - 1 } else { 0 };
    let retries_differ = match svc.retries {
        Ok(r) => r.unwrap_or(0) != twin,
        Err(()) => true,
    };
    if !retries_differ {
        return;
    }
    let shown = match (svc.config.retries.value(), svc.retries) {
        (None, _) | (_, Ok(None)) => None,
        (Some(v), _) => Some(v),
    };
    Msg::Retries {
        middle: hop.middle,
        shown,
        twin,
        targets: n,
    }
    .say(sink, hop.node_id, hpath);
    sink.fix_last(Fix {
        op: "set".into(),
        path: join(hpath, "retries"),
        value: Value::from(twin),
    });
}

/// PA003 on the service side: handler metadata (its interface is PA005's)
/// and listener metadata.
fn compare_service_metadata(hop: &Hop<'_, '_>, hpath: &str, sink: &mut Sink) {
    let svc = hop.svc;
    let fed_handler = sorted_entries(svc.config.handler_metadata().object(), &|k| {
        k != "interface"
    });
    metadata_finding(
        sink,
        hop.node_id,
        hpath,
        Plugin::Handler,
        &fed_handler,
        &local_mux_metadata(hop.protocol),
    );
    let listener = get_obj(svc.config.obj, "listener");
    if listener.is_some() {
        let lpath = join(&svc.path(), key_of(svc.config.obj, "listener"));
        metadata_finding(
            sink,
            hop.node_id,
            &lpath,
            Plugin::Listener,
            &meta_of(listener),
            &kcp_metadata(hop.protocol),
        );
    }
}

/// PA004: the listen address, normalised as the local builder writes it.
fn compare_listen_addr(hop: &Hop<'_, '_>, sink: &mut Sink) {
    let svc = hop.svc;
    let Some((akey, TreeValue::Str(addr))) = get_ci(svc.config.obj, "addr") else {
        return;
    };
    let twin = match addr.rsplit_once(':') {
        Some((h, p)) => normalise_address(&format!("{}:{}", h.trim(), p)),
        None => normalise_address(addr),
    };
    if *addr != twin {
        Msg::ListenAddr { addr, twin: &twin }.say(sink, hop.node_id, &join(&svc.path(), akey));
    }
}

/// Where the service itself sets an outgoing interface (PA005).
fn service_places<'a>(svc: &Service<'a>) -> Places<'a> {
    let mut places = Places::default();
    places.note(SERVICE, get_str(svc.config.obj, "interface"));
    places.note(
        SERVICE_METADATA,
        svc.config
            .metadata()
            .object()
            .and_then(|m| get_str(m, "interface")),
    );
    places.note(
        HANDLER_METADATA,
        svc.config
            .handler_metadata()
            .object()
            .and_then(|m| get_str(m, "interface")),
    );
    places
}

/// PA002-PA004 on the chain's first hop, for the first middle routed
/// through the chain.
fn compare_first_hop_once(
    hop: &Hop<'_, '_>,
    chain: &Chain<'_>,
    part: &mut ChainPart<'_>,
    sink: &mut Sink,
) {
    let first = chain
        .config
        .hops_field()
        .items()
        .and_then(|hops| hops.first())
        .and_then(|h| h.as_object());
    if let (true, false, Some(h), Some(hop_path)) =
        (hop.middle, part.compared, first, &part.hop_path)
    {
        part.compared = true;
        compare_hop(hop, h, hop_path, sink);
    }
}

/// PA005: where the outgoing interface sits, against the local builder's
/// place for it (a middle's hop, an exit's service metadata).
fn compare_interface_places(
    hop: &Hop<'_, '_>,
    places: &Places<'_>,
    first_hop_path: Option<String>,
    sink: &mut Sink,
) {
    let twin = match (places.iface, hop.middle) {
        (None, _) => 0,
        (Some(_), true) => HOP,
        (Some(_), false) => SERVICE_METADATA,
    };
    if places.set == twin {
        return;
    }
    let path = if hop.middle {
        first_hop_path.unwrap_or_else(|| hop.svc.path())
    } else {
        hop.svc.path()
    };
    Msg::InterfacePlaces {
        middle: hop.middle,
        iface: places.iface.unwrap_or(""),
        fed: places.set,
        twin,
    }
    .say(sink, hop.node_id, &path);
}

/// The places an outgoing interface can sit (PA005), one bit each, in the
/// order their names sort.
const PLACE_NAMES: [&str; 5] = [
    "chain node",
    "handler metadata",
    "hop",
    "service",
    "service metadata",
];
const CHAIN_NODE: u8 = 1;
const HANDLER_METADATA: u8 = 2;
const HOP: u8 = 4;
const SERVICE: u8 = 8;
const SERVICE_METADATA: u8 = 16;

/// Where a federated hop sets an outgoing interface, and the first one set.
#[derive(Default)]
struct Places<'a> {
    set: u8,
    iface: Option<&'a str>,
}

impl<'a> Places<'a> {
    fn note(&mut self, place: u8, value: Option<&'a str>) {
        if let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) {
            self.set |= place;
            if self.iface.is_none() {
                self.iface = Some(v);
            }
        }
    }

    /// The places of `other` too; its interface counts when none was set.
    fn add(&mut self, other: &Places<'a>) {
        self.set |= other.set;
        self.iface = self.iface.or(other.iface);
    }
}

/// The first hop of a middle's chain against the twin's: its selector,
/// then each chain node against the target it dials.
fn compare_hop(hop: &Hop<'_, '_>, h: &TreeObject<'_>, hop_path: &str, sink: &mut Sink) {
    compare_selector(hop, h, hop_path, sink);
    let nodes_key = key_of(h, "nodes");
    let nodes = get_arr(h, "nodes").unwrap_or(&[]);
    for (i, (n, t)) in nodes.iter().zip(hop.targets.iter()).enumerate() {
        let Some(n) = n.as_object() else { continue };
        let npath = join_i(&join(hop_path, nodes_key), i);
        compare_chain_node(hop.node_id, n, t, &npath, sink);
    }
}

/// PA002: the hop's selector against the one the local builder sets.
fn compare_selector(hop: &Hop<'_, '_>, h: &TreeObject<'_>, hop_path: &str, sink: &mut Sink) {
    let selector = get_obj(h, "selector");
    let fed_number = |name: &str| {
        selector
            .and_then(|s| get_ci(s, name))
            .map(|(_, v)| crate::encode::to_value(v))
            .unwrap_or(Value::Null)
    };
    let twin_strategy = runtime_strategy(hop.strategy.unwrap_or(""));
    let fed_strategy = selector.and_then(|s| get_str(s, "strategy")).unwrap_or("");
    let (fed_max, fed_ft) = (fed_number("maxFails"), fed_number("failTimeout"));
    let strategy =
        (fed_strategy != twin_strategy).then_some((fed_strategy, twin_strategy.as_str()));
    let max_fails = (fed_max.as_i64() != Some(TWIN_MAX_FAILS)).then_some(&fed_max);
    let fail_timeout = (fed_ft.as_i64() != Some(TWIN_FAIL_TIMEOUT)).then_some(&fed_ft);
    if strategy.is_some() || max_fails.is_some() || fail_timeout.is_some() {
        let sel_path = join(hop_path, key_of(h, "selector"));
        Msg::Selector {
            strategy,
            max_fails,
            fail_timeout,
        }
        .say(sink, hop.node_id, &sel_path);
    }
}

/// PA003 and PA004 on one chain node: its connector and dialer metadata,
/// and its dial address, against the target `t` it dials.
fn compare_chain_node(
    node: Option<i64>,
    n: &TreeObject<'_>,
    t: &TwinTarget<'_>,
    npath: &str,
    sink: &mut Sink,
) {
    if let Some(conn) = get_obj(n, "connector") {
        let cpath = join(npath, key_of(n, "connector"));
        metadata_finding(
            sink,
            node,
            &cpath,
            Plugin::Connector,
            &meta_of(Some(conn)),
            &local_mux_metadata(t.protocol),
        );
    }
    if let Some(dialer) = get_obj(n, "dialer") {
        let dpath = join(npath, key_of(n, "dialer"));
        metadata_finding(
            sink,
            node,
            &dpath,
            Plugin::Dialer,
            &meta_of(Some(dialer)),
            &kcp_metadata(t.protocol),
        );
    }
    if let Some((akey, TreeValue::Str(addr))) = get_ci(n, "addr") {
        let twin = normalise_address(&format!("{}:{}", t.host, t.port));
        if *addr != twin {
            Msg::DialAddr { addr, twin: &twin }.say(sink, node, &join(npath, akey));
        }
    }
}

/// PA003 when the federated metadata `fed` differs from the twin's.
fn metadata_finding(
    sink: &mut Sink,
    node: Option<i64>,
    path: &str,
    plugin: Plugin,
    fed: &Meta,
    twin: &Meta,
) {
    if let Some(keys) = differing_keys(fed, twin) {
        Msg::Metadata {
            plugin,
            keys: &keys,
        }
        .say(sink, node, path);
    }
}

/// The GOST plugin whose metadata a PA003 finding compares.
#[derive(Clone, Copy)]
enum Plugin {
    Handler,
    Listener,
    Connector,
    Dialer,
}

/// A PA finding, with what its message names.
enum Msg<'m> {
    /// PA001: `shown` is the federated `handler.retries` (`None`: absent).
    Retries {
        middle: bool,
        shown: Option<&'m TreeValue<'m>>,
        twin: i64,
        targets: i64,
    },
    /// PA002: each selector field that differs, (federated, local) for the
    /// strategy and the federated value for the others.
    Selector {
        strategy: Option<(&'m str, &'m str)>,
        max_fails: Option<&'m Value>,
        fail_timeout: Option<&'m Value>,
    },
    /// PA003: the metadata keys that differ, joined.
    Metadata { plugin: Plugin, keys: &'m str },
    /// PA004 on a service's listen address.
    ListenAddr { addr: &'m str, twin: &'m str },
    /// PA004 on a chain node's dial address.
    DialAddr { addr: &'m str, twin: &'m str },
    /// PA005: the places (bit sets) of the interface, federated and local.
    InterfacePlaces {
        middle: bool,
        iface: &'m str,
        fed: u8,
        twin: u8,
    },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node: Option<i64>, path: &str) {
        match *self {
            Msg::Retries {
                middle,
                shown,
                twin,
                targets,
            } => {
                let (role, role_zh) = role_names(middle);
                let shown = shown.map_or_else(|| "absent (0)".to_string(), |v| v.to_string());
                sink.say(
                    "PA001",
                    node,
                    path,
                    format_args!(
                        "federated {} service has retries {} but the local builder would set {} for {} target(s): failover differs between local and federated hops",
                        role, shown, twin, targets
                    ),
                    format_args!(
                        "联邦{}服务的 retries 为 {}，而本地构建对 {} 个目标会设为 {}：本地与联邦跳点的故障切换行为不一致",
                        role_zh, shown, targets, twin
                    ),
                )
            }
            Msg::Selector {
                strategy,
                max_fails,
                fail_timeout,
            } => {
                let d = selector_differences(strategy, max_fails, fail_timeout);
                sink.say(
                    "PA002",
                    node,
                    path,
                    format_args!(
                        "federated hop selector differs from the local builder's: {}",
                        d
                    ),
                    format_args!("联邦跳点选择器与本地构建不一致：{}", d),
                )
            }
            Msg::Metadata { plugin, keys } => {
                let (name, name_zh) = plugin_names(plugin);
                sink.say(
                    "PA003",
                    node,
                    path,
                    format_args!(
                        "federated {} metadata differs from the local builder's in: {}",
                        name, keys
                    ),
                    format_args!("联邦{}元数据与本地构建不一致的键：{}", name_zh, keys),
                )
            }
            Msg::ListenAddr { addr, twin } => sink.say(
                "PA004",
                node,
                path,
                format_args!(
                    "federated listen addr {:?} is not normalised; the local builder would listen on {:?}",
                    addr, twin
                ),
                format_args!("联邦监听地址 {:?} 未规范化；本地构建会使用 {:?}", addr, twin),
            ),
            Msg::DialAddr { addr, twin } => sink.say(
                "PA004",
                node,
                path,
                format_args!(
                    "federated chain node addr {:?} differs from the local builder's normalised {:?}",
                    addr, twin
                ),
                format_args!("联邦链路节点地址 {:?} 与本地构建的规范化地址 {:?} 不一致", addr, twin),
            ),
            Msg::InterfacePlaces {
                middle,
                iface,
                fed,
                twin,
            } => {
                let (role, role_zh) = role_names(middle);
                let fed_s = if fed == 0 {
                    "nowhere".to_string()
                } else {
                    place_names(fed)
                };
                let twin_s = place_names(twin);
                sink.say(
                    "PA005",
                    node,
                    path,
                    format_args!(
                        "federated {} puts interface {:?} on: {}; the local builder puts it on: {}",
                        role, iface, fed_s, twin_s
                    ),
                    format_args!(
                        "联邦{}把网卡 {:?} 放在：{}；本地构建放在：{}",
                        role_zh, iface, fed_s, twin_s
                    ),
                )
            }
        }
    }
}

/// A hop's role, in English and Chinese.
fn role_names(middle: bool) -> (&'static str, &'static str) {
    if middle {
        ("middle", "中转")
    } else {
        ("exit", "出口")
    }
}

/// A plugin's name, in English and Chinese.
fn plugin_names(plugin: Plugin) -> (&'static str, &'static str) {
    match plugin {
        Plugin::Handler => ("handler", "处理器"),
        Plugin::Listener => ("listener", "监听器"),
        Plugin::Connector => ("connector", "连接器"),
        Plugin::Dialer => ("dialer", "拨号器"),
    }
}

/// PA002's list of differences, "field value (local value)" joined by "; ".
fn selector_differences(
    strategy: Option<(&str, &str)>,
    max_fails: Option<&Value>,
    fail_timeout: Option<&Value>,
) -> String {
    let mut differ: Vec<String> = Vec::new();
    if let Some((fed, twin)) = strategy {
        differ.push(format!("strategy {:?} (local {:?})", fed, twin));
    }
    if let Some(fed) = max_fails {
        differ.push(format!(
            "maxFails {} (local {})",
            crate::json::Text(fed),
            TWIN_MAX_FAILS
        ));
    }
    if let Some(fed) = fail_timeout {
        differ.push(format!(
            "failTimeout {} (local {})",
            crate::json::Text(fed),
            TWIN_FAIL_TIMEOUT
        ));
    }
    differ.join("; ")
}

/// The places of `set`, in name order, joined by ", ".
fn place_names(set: u8) -> String {
    let mut out = String::new();
    for (bit, name) in PLACE_NAMES.iter().enumerate() {
        if set & (1 << bit) != 0 {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(name);
        }
    }
    out
}
