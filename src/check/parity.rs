//! PA rules: each federated hop against its local twin, i.e. what the local
//! builder (control_plane.go) would emit for the same node with the same
//! targets and ports. Compared by role: `fed_svc_R` ~ `tunnel_T`,
//! `fed_chain_R` ~ `chains_T`, `hop_R` ~ `hop_T`.

use super::failover::find_chain;
use super::linkage::{differing_keys, sorted_entries};
use super::model::{Chain, Document, Service};
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
    builders::runtime_strategy(&crate::coerce::default_string(s.trim(), "round"))
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

/// Federated hops of a plan: one per federation entry with role middle or exit.
fn plan_hops<'d, 'a>(doc: &'d Document<'a>) -> Vec<Hop<'d, 'a>> {
    // The first service and chain of each group, found in one walk (not
    // one walk per entry).
    let mut first_svc = BTreeMap::new();
    for (i, s) in doc.services.iter().enumerate() {
        first_svc.entry(s.group).or_insert(i);
    }
    let mut first_chain = BTreeMap::new();
    for (i, c) in doc.chains.iter().enumerate() {
        first_chain.entry(c.group).or_insert(i);
    }
    let mut out = Vec::new();
    for entry in &doc.fed {
        let apply = entry.obj.get("apply").and_then(|a| a.as_object());
        let Some(svc) = first_svc
            .get(&entry.group)
            .and_then(|&i| doc.services.get(i))
        else {
            continue;
        };
        let chain = svc_chain(doc, svc).or_else(|| {
            first_chain
                .get(&entry.group)
                .and_then(|&i| doc.chains.get(i))
        });
        let role = entry
            .obj
            .get("role")
            .and_then(|r| r.as_str())
            .or_else(|| apply.and_then(|a| a.get("role")).and_then(|r| r.as_str()));
        let middle = match role {
            Some("middle") => true,
            Some("exit") => false,
            Some(_) => continue,
            // No role given: a service with a chain is a middle.
            None => svc.config.chain.str().is_some_and(|c| !c.is_empty()),
        };
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
        let targets = apply
            .and_then(|a| a.get("targets"))
            .and_then(|t| t.as_array())
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| t.as_object())
                    .map(|t| TwinTarget {
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
                    })
                    .collect::<Rc<[_]>>()
            })
            // Without apply targets the deployed chain says what the targets are.
            .unwrap_or_else(|| chain_targets.into());
        out.push(Hop {
            node_id: entry.node_id,
            middle,
            protocol,
            strategy,
            targets,
            svc,
            chain,
        });
    }
    out
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

fn compare<'d, 'a>(
    hop: &Hop<'d, 'a>,
    chains: &mut BTreeMap<&'d str, ChainPart<'a>>,
    sink: &mut Sink,
) {
    let svc = hop.svc;
    let node = hop.node_id;
    let role = if hop.middle { "middle" } else { "exit" };
    let role_zh = if hop.middle { "中转" } else { "出口" };
    let handler_metadata = svc.config.handler_metadata().object();
    let hpath = join(&svc.path(), key_of(svc.config.obj, "handler"));

    // PA001: retries.
    let n = hop.targets.len() as i64;
    let twin_retries = if hop.middle && n > 1 { n - 1 } else { 0 };
    let fed_retries = svc.retries;
    let retries_differ = match fed_retries {
        Ok(r) => r.unwrap_or(0) != twin_retries,
        Err(()) => true,
    };
    if retries_differ {
        let shown = match (svc.config.retries.value(), fed_retries) {
            (None, _) | (_, Ok(None)) => "absent (0)".to_string(),
            (Some(v), _) => v.to_string(),
        };
        sink.say(
            "PA001",
            node,
            &hpath,
            format_args!(
                "federated {} service has retries {} but the local builder would set {} for {} target(s): failover differs between local and federated hops",
                role, shown, twin_retries, n
            ),
            format_args!(
                "联邦{}服务的 retries 为 {}，而本地构建对 {} 个目标会设为 {}：本地与联邦跳点的故障切换行为不一致",
                role_zh, shown, n, twin_retries
            ),
        );
        sink.fix_last(Fix {
            op: "set".into(),
            path: join(&hpath, "retries"),
            value: Value::from(twin_retries),
        });
    }

    // PA003 (service side): handler and listener metadata.
    let twin_handler = local_mux_metadata(hop.protocol);
    let fed_handler = sorted_entries(handler_metadata, &|k| k != "interface");
    metadata_finding(
        sink,
        node,
        &hpath,
        Plugin::Handler,
        &fed_handler,
        &twin_handler,
    );
    let listener = get_obj(svc.config.obj, "listener");
    if listener.is_some() {
        let lpath = join(&svc.path(), key_of(svc.config.obj, "listener"));
        metadata_finding(
            sink,
            node,
            &lpath,
            Plugin::Listener,
            &meta_of(listener),
            &kcp_metadata(hop.protocol),
        );
    }

    // PA004: the listen address.
    if let Some((akey, TreeValue::Str(addr))) = get_ci(svc.config.obj, "addr") {
        let twin = match addr.rsplit_once(':') {
            Some((h, p)) => normalise_address(&format!("{}:{}", h.trim(), p)),
            None => normalise_address(addr),
        };
        if *addr != twin {
            sink.say(
                "PA004",
                node,
                &join(&svc.path(), akey),
                format_args!(
                    "federated listen addr {:?} is not normalised; the local builder would listen on {:?}",
                    addr, twin
                ),
                format_args!("联邦监听地址 {:?} 未规范化；本地构建会使用 {:?}", addr, twin),
            );
        }
    }

    // Chain side (middles).
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
        handler_metadata.and_then(|m| get_str(m, "interface")),
    );

    let mut hop_path_for_iface = None;
    if let Some(chain) = hop.chain {
        let hops_field = chain.config.hops_field();
        let hops = hops_field.items().unwrap_or(&[]);
        let part = chains.entry(chain.path.as_str()).or_insert_with(|| {
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
        });
        places.set |= part.places.set;
        places.iface = places.iface.or(part.places.iface);
        hop_path_for_iface.clone_from(&part.hop_path);
        let first = hops.first().and_then(|h| h.as_object());
        if let (true, false, Some(h), Some(hop_path)) =
            (hop.middle, part.compared, first, &part.hop_path)
        {
            part.compared = true;
            compare_hop(hop, h, hop_path, sink);
        }
    }

    // PA005: where the outgoing interface sits.
    let twin_places = match (places.iface, hop.middle) {
        (None, _) => 0,
        (Some(_), true) => HOP,
        (Some(_), false) => SERVICE_METADATA,
    };
    if places.set != twin_places {
        let fed_s = if places.set == 0 {
            "nowhere".to_string()
        } else {
            place_names(places.set)
        };
        let twin_s = place_names(twin_places);
        let iface = places.iface.unwrap_or("");
        let path = if hop.middle {
            hop_path_for_iface.unwrap_or_else(|| svc.path())
        } else {
            svc.path()
        };
        sink.say(
            "PA005",
            node,
            &path,
            format_args!(
                "federated {} puts interface {:?} on: {}; the local builder puts it on: {}",
                role, iface, fed_s, twin_s
            ),
            format_args!(
                "联邦{}把网卡 {:?} 放在：{}；本地构建放在：{}",
                role_zh, iface, fed_s, twin_s
            ),
        );
    }
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
}

fn compare_hop(hop: &Hop<'_, '_>, h: &TreeObject<'_>, hop_path: &str, sink: &mut Sink) {
    let node = hop.node_id;
    // PA002: selector.
    let selector = get_obj(h, "selector");
    let sel_path = join(hop_path, key_of(h, "selector"));
    let mut differ: Vec<String> = Vec::new();
    let twin_strategy = runtime_strategy(hop.strategy.unwrap_or(""));
    let fed_strategy = selector.and_then(|s| get_str(s, "strategy")).unwrap_or("");
    if fed_strategy != twin_strategy {
        differ.push(format!(
            "strategy {:?} (local {:?})",
            fed_strategy, twin_strategy
        ));
    }
    let fed_max = selector
        .and_then(|s| get_ci(s, "maxFails"))
        .map(|(_, v)| crate::encode::to_value(v))
        .unwrap_or(Value::Null);
    if fed_max.as_i64() != Some(TWIN_MAX_FAILS) {
        differ.push(format!(
            "maxFails {} (local {})",
            crate::json::Text(&fed_max),
            TWIN_MAX_FAILS
        ));
    }
    let fed_ft = selector
        .and_then(|s| get_ci(s, "failTimeout"))
        .map(|(_, v)| crate::encode::to_value(v))
        .unwrap_or(Value::Null);
    if fed_ft.as_i64() != Some(TWIN_FAIL_TIMEOUT) {
        differ.push(format!(
            "failTimeout {} (local {})",
            crate::json::Text(&fed_ft),
            TWIN_FAIL_TIMEOUT
        ));
    }
    if !differ.is_empty() {
        let d = differ.join("; ");
        sink.say(
            "PA002",
            node,
            &sel_path,
            format_args!(
                "federated hop selector differs from the local builder's: {}",
                d
            ),
            format_args!("联邦跳点选择器与本地构建不一致：{}", d),
        );
    }
    // Per chain node: connector and dialer metadata, dial address.
    let nodes_key = key_of(h, "nodes");
    let nodes = get_arr(h, "nodes").unwrap_or(&[]);
    for (i, (n, t)) in nodes.iter().zip(hop.targets.iter()).enumerate() {
        let Some(n) = n.as_object() else { continue };
        let npath = join_i(&join(hop_path, nodes_key), i);
        if let Some(conn) = get_obj(n, "connector") {
            let cpath = join(&npath, key_of(n, "connector"));
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
            let dpath = join(&npath, key_of(n, "dialer"));
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
                sink.say(
                    "PA004",
                    node,
                    &join(&npath, akey),
                    format_args!(
                        "federated chain node addr {:?} differs from the local builder's normalised {:?}",
                        addr, twin
                    ),
                    format_args!("联邦链路节点地址 {:?} 与本地构建的规范化地址 {:?} 不一致", addr, twin),
                );
            }
        }
    }
}

fn metadata_finding(
    sink: &mut Sink,
    node: Option<i64>,
    path: &str,
    what: Plugin,
    fed: &Meta,
    twin: &Meta,
) {
    let Some(keys) = differing_keys(fed, twin) else {
        return;
    };
    sink.say(
        "PA003",
        node,
        path,
        format_args!(
            "federated {} metadata differs from the local builder's in: {}",
            what.name(),
            keys
        ),
        format_args!("联邦{}元数据与本地构建不一致的键：{}", what.name_zh(), keys),
    );
}

/// The GOST plugin whose metadata a PA003 finding compares, named in both
/// languages.
#[derive(Clone, Copy)]
enum Plugin {
    Handler,
    Listener,
    Connector,
    Dialer,
}

impl Plugin {
    fn name(self) -> &'static str {
        match self {
            Plugin::Handler => "handler",
            Plugin::Listener => "listener",
            Plugin::Connector => "connector",
            Plugin::Dialer => "dialer",
        }
    }

    fn name_zh(self) -> &'static str {
        match self {
            Plugin::Handler => "处理器",
            Plugin::Listener => "监听器",
            Plugin::Connector => "连接器",
            Plugin::Dialer => "拨号器",
        }
    }
}
