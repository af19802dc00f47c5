//! LK rules: does every chain node dial a service the plan deploys, with the
//! matching protocol and mux settings. Which node owns which host comes from
//! the plan's node table; without one, dialed ports are matched against the
//! ports of the services the plan deploys.
//!
//! Many services may share a port and many nodes an address, so the rules
//! never walk the pairs: services are grouped once by port, listener type and
//! mux settings, and each chain node asks a group for its first service on
//! the nodes that own the dialed host ([`Lookup::first_on`]). One finding per
//! chain node at most, and an owner list is cut after [`SHOWN_OWNERS`] ids.

use super::model::{Document, Service};
use super::rules::Sink;
use super::tree::TreeObject;
use super::util::{get_ci, get_obj, get_str, join, join_i, loose_port};
use crate::gost;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;

fn listener_type<'a>(svc: &Service<'a>) -> Option<&'a str> {
    svc.config.listener_type().str().map(str::trim)
}

/// The `mux.*` settings of a connector's or handler's metadata.
fn mux_settings(meta: Option<&TreeObject<'_>>) -> Vec<(String, Value)> {
    sorted_entries(meta, &|k| k.starts_with("mux."))
}

/// The entries of `obj` whose keys `keep` accepts, as owned pairs sorted by
/// key: how the LK and PA rules compare metadata.
pub(crate) fn sorted_entries(
    obj: Option<&TreeObject<'_>>,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = obj
        .map(|m| {
            // Sorted below (keys are unique): the stored order will do.
            m.iter_any()
                .filter(|(k, _)| keep(k))
                .map(|(k, v)| (k.to_string(), crate::encode::to_value(v)))
                .collect()
        })
        .unwrap_or_default();
    crate::sorting::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
    out
}

/// The keys whose values differ between two key/value lists sorted by
/// key with unique keys (missing counts as different), in key order and
/// joined by ", "; `None` when they agree. A merge of the sorted lists.
pub(crate) fn differing_keys(a: &[(String, Value)], b: &[(String, Value)]) -> Option<String> {
    let mut out: Option<String> = None;
    let mut push = |k: &str| match &mut out {
        Some(text) => {
            text.push_str(", ");
            text.push_str(k);
        }
        None => out = Some(k.to_string()),
    };
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => {
                    push(&x.0);
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    push(&y.0);
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    if x.1 != y.1 {
                        push(&x.0);
                    }
                    a.next();
                    b.next();
                }
            },
            (Some(x), None) => {
                push(&x.0);
                a.next();
            }
            (None, Some(y)) => {
                push(&y.0);
                b.next();
            }
            (None, None) => return out,
        }
    }
}

pub(crate) fn check(doc: &Document<'_>, sink: &mut Sink) {
    if !doc.multi_node {
        return;
    }
    let mut index = Index::new(doc);
    for chain in &doc.chains {
        let hops_field = chain.config.hops_field();
        let Some(hops) = hops_field.items() else {
            continue;
        };
        let hops_path = join(&chain.path, hops_field.key().unwrap_or("hops"));
        for (hi, hop) in hops.iter().enumerate() {
            let nodes_field = gost::Field::of(hop.as_object(), "nodes");
            let Some(nodes) = nodes_field.items() else {
                continue;
            };
            let hop_path = join_i(&hops_path, hi);
            let nodes_path = join(&hop_path, nodes_field.key().unwrap_or("nodes"));
            for (ni, node) in nodes.iter().enumerate() {
                let Some(node) = node.as_object() else {
                    continue;
                };
                let node_path = join_i(&nodes_path, ni);
                let Some(addr) = get_str(node, "addr") else {
                    continue;
                };
                let Some((host, port)) = gost::split_addr(addr) else {
                    continue;
                };
                let dial = Dial {
                    from: chain.node_id,
                    node,
                    path: &node_path,
                    addr,
                    host: &host,
                    port,
                };
                link(doc, &mut index, &dial, sink);
            }
        }
    }
}

/// How many owner ids an LK001 message names before "and N more".
const SHOWN_OWNERS: usize = 5;

/// One chain node's dial, as [`link`] follows it.
struct Dial<'n> {
    /// The node running the chain.
    from: Option<i64>,
    /// The chain node and its JSON Pointer.
    node: &'n TreeObject<'n>,
    path: &'n str,
    addr: &'n str,
    /// The dialed host, normalised, and port.
    host: &'n str,
    port: i64,
}

/// The LK rules on one chain node: is a service listening where it dials
/// (LK001), does it speak the dialer's protocol (LK002), with the
/// connector's mux settings (LK003).
fn link(doc: &Document<'_>, index: &mut Index<'_>, dial: &Dial<'_>, sink: &mut Sink) {
    index.add_port(doc, dial.port);
    let Index {
        ports,
        hosts,
        lookup,
        ..
    } = index;
    // With a node table, only the services of the nodes that own the host.
    let owner = match hosts {
        Some(hosts) => match hosts.get(dial.host) {
            Some(&h) => Some(h),
            None => return, // not a tunnel node: outside this plan
        },
        None => None,
    };
    let groups = ports.get(&dial.port).and_then(Option::as_ref);
    let first = groups
        .and_then(|g| lookup.first_on(owner, g.all))
        .and_then(|i| doc.services.get(i));
    let (Some(groups), Some(first)) = (groups, first) else {
        dangling_target(doc, lookup, owner, dial, sink);
        return;
    };
    let Some(dialer) = get_obj(dial.node, "dialer") else {
        return;
    };
    let Some(dtype) = get_str(dialer, "type").map(str::trim) else {
        return;
    };
    let typed = groups.by_type.get(&dtype.to_ascii_lowercase());
    let target = typed.and_then(|t| Some((t, lookup.first_on(owner, t.all)?)));
    let Some((typed, target)) = target else {
        protocol_mismatch(first, dtype, dial, sink);
        return;
    };
    mux_mismatch(doc, lookup, owner, typed, target, dial, sink);
}

/// LK001: no service listens on the dialed port of the dialed node (of
/// any node of the plan, without a node table).
fn dangling_target(
    doc: &Document<'_>,
    lookup: &Lookup,
    owner: Option<usize>,
    dial: &Dial<'_>,
    sink: &mut Sink,
) {
    let (addr, port) = (dial.addr, dial.port);
    let msg = match owner.and_then(|h| lookup.owners.get(h)) {
        Some(owners) => Msg::NotListening { addr, owners, port },
        // A command list may leave out the node it dials.
        None if !doc.whole_plan => return,
        None => Msg::NoService { addr, port },
    };
    msg.say(sink, dial.from, &join(dial.path, "addr"));
}

/// LK002: the dialer's type is not the listener type of any service on
/// the dialed port, `first` being the first of them.
fn protocol_mismatch(first: &Service<'_>, dtype: &str, dial: &Dial<'_>, sink: &mut Sink) {
    let Some(ltype) = listener_type(first) else {
        return;
    };
    let dkey = get_ci(dial.node, "dialer")
        .map(|(k, _)| k)
        .unwrap_or("dialer");
    Msg::ProtocolMismatch {
        dialer: dtype,
        listener: ltype,
        on: first.node_id,
        service: &first.path(),
    }
    .say(sink, dial.from, &join(&join(dial.path, dkey), "type"));
}

/// LK003: the connector's mux settings against the handler's of the
/// service it reaches (`target`, among the services of its listener type).
fn mux_mismatch(
    doc: &Document<'_>,
    lookup: &mut Lookup,
    owner: Option<usize>,
    typed: &TypeGroups,
    target: usize,
    dial: &Dial<'_>,
    sink: &mut Sink,
) {
    let ckey = get_ci(dial.node, "connector")
        .map(|(k, _)| k)
        .unwrap_or("connector");
    let conn_mux = Mux(mux_settings(
        get_obj(dial.node, "connector").and_then(|c| get_obj(c, "metadata")),
    ));
    // Without a node table several services may share the dialed port: any
    // one of them with the same settings is taken as the other end.
    let same = typed.by_mux.get(&conn_mux).copied();
    if same.is_some_and(|g| lookup.first_on(owner, g).is_some()) {
        return;
    }
    let Some(target_mux) = typed.mux_of.get(&target).and_then(|&k| typed.muxes.get(k)) else {
        return;
    };
    let Some(target) = doc.services.get(target) else {
        return;
    };
    if let Some(keys) = differing_keys(&conn_mux.0, &target_mux.0) {
        Msg::MuxMismatch {
            addr: dial.addr,
            service: &target.path(),
            keys: &keys,
        }
        .say(sink, dial.from, &join(dial.path, ckey));
    }
}

/// An LK001-LK003 finding, with what its message names.
enum Msg<'m> {
    /// LK001: the dialed host belongs to these tunnel nodes.
    NotListening {
        addr: &'m str,
        owners: &'m Owners,
        port: i64,
    },
    /// LK001 without a node table.
    NoService { addr: &'m str, port: i64 },
    /// LK002: `service` is the path of the service on node `on`.
    ProtocolMismatch {
        dialer: &'m str,
        listener: &'m str,
        on: Option<i64>,
        service: &'m str,
    },
    /// LK003: `service` is the path of the dialed service.
    MuxMismatch {
        addr: &'m str,
        service: &'m str,
        keys: &'m str,
    },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, from: Option<i64>, path: &str) {
        match *self {
            Msg::NotListening { addr, owners, port } => {
                let (ids, ids_zh) = owner_ids(owners);
                sink.say(
                    "LK001",
                    from,
                    path,
                    format_args!(
                        "{} belongs to tunnel node {} but no planned service listens on port {} there",
                        addr, ids, port
                    ),
                    format_args!(
                        "{} 属于隧道节点 {}，但该节点的端口 {} 上没有计划中的服务监听",
                        addr, ids_zh, port
                    ),
                )
            }
            Msg::NoService { addr, port } => sink.say(
                "LK001",
                from,
                path,
                format_args!(
                    "{} is dialed but no service in this plan listens on port {}",
                    addr, port
                ),
                format_args!(
                    "拨号目标 {} 的端口 {} 上没有本计划部署的服务监听",
                    addr, port
                ),
            ),
            Msg::ProtocolMismatch {
                dialer,
                listener,
                on,
                service,
            } => {
                let on = on
                    .map(|i| format!("node {}", i))
                    .unwrap_or_else(|| "the target".into());
                sink.say(
                    "LK002",
                    from,
                    path,
                    format_args!(
                        "dialer type {:?} does not match listener type {:?} of the service on {} ({}): the handshake fails",
                        dialer, listener, on, service
                    ),
                    format_args!(
                        "拨号器类型 {:?} 与 {} 上服务（{}）的监听器类型 {:?} 不一致：握手会失败",
                        dialer, on, service, listener
                    ),
                )
            }
            Msg::MuxMismatch {
                addr,
                service,
                keys,
            } => sink.say(
                "LK003",
                from,
                path,
                format_args!(
                    "connector mux settings differ from the handler of {} ({}): {}",
                    addr, service, keys
                ),
                format_args!(
                    "连接器的多路复用设置与 {} 的处理器（{}）不一致：{}",
                    addr, service, keys
                ),
            ),
        }
    }
}

/// The owner ids an LK001 message names, in English and Chinese: the
/// first [`SHOWN_OWNERS`], then how many more there are.
fn owner_ids(owners: &Owners) -> (String, String) {
    let mut ids = String::new();
    for id in owners.shown.iter() {
        if !ids.is_empty() {
            ids.push_str(", ");
        }
        let _ = write!(ids, "{}", id);
    }
    let more = owners.rows - owners.shown.len();
    if more == 0 {
        (ids.clone(), ids)
    } else {
        (
            format!("{} and {} more", ids, more),
            format!("{} 等 {} 个", ids, owners.rows),
        )
    }
}

/// Services that share a key: the first of them (lowest index into
/// `Document::services`) and the first on each node, by node id.
struct Group {
    first: usize,
    nodes: Vec<(i64, usize)>,
}

impl Group {
    /// `members` in document order.
    fn of(doc: &Document<'_>, members: &[usize]) -> Option<Group> {
        let first = *members.first()?;
        let mut nodes: Vec<(i64, usize)> = members
            .iter()
            .filter_map(|&i| Some((doc.services.get(i)?.node_id?, i)))
            .collect();
        // Sorted by (id, index): the first of each id is its lowest index.
        crate::sorting::sort(&mut nodes);
        nodes.dedup_by_key(|n| n.0);
        Some(Group { first, nodes })
    }
}

/// A handler's or connector's `mux.*` settings, ordered so that equal
/// settings (as `differing_keys` finds no difference) are one key.
#[derive(PartialEq, Eq)]
struct Mux(Vec<(String, Value)>);

impl Ord for Mux {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (&self.0, &other.0);
        for ((ka, va), (kb, vb)) in a.iter().zip(b) {
            let o = ka.cmp(kb).then_with(|| cmp_json(va, vb));
            if o != Ordering::Equal {
                return o;
            }
        }
        a.len().cmp(&b.len())
    }
}

impl PartialOrd for Mux {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A total order on JSON values that agrees with `Value`'s `==` (numbers
/// equal only within the same representation, as `serde_json` compares them).
fn cmp_json(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Number(_) => 2,
            Value::String(_) => 3,
            Value::Array(_) => 4,
            Value::Object(_) => 5,
        }
    }
    fn number(n: &serde_json::Number) -> (u8, u64, i64, f64) {
        match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => (0, u, 0, 0.0),
            (None, Some(i)) => (1, 0, i, 0.0),
            (None, None) => (2, 0, 0, n.as_f64().unwrap_or(0.0)),
        }
    }
    fn seq<'v>(
        a: impl ExactSizeIterator<Item = (Option<&'v String>, &'v Value)>,
        b: impl ExactSizeIterator<Item = (Option<&'v String>, &'v Value)>,
    ) -> Ordering {
        let lens = a.len().cmp(&b.len());
        for ((ka, va), (kb, vb)) in a.zip(b) {
            let o = ka.cmp(&kb).then_with(|| cmp_json(va, vb));
            if o != Ordering::Equal {
                return o;
            }
        }
        lens
    }
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (number(x), number(y));
            // -0.0 and 0.0 are equal, as `==` has them.
            (x.0, x.1, x.2)
                .cmp(&(y.0, y.1, y.2))
                .then_with(|| x.3.partial_cmp(&y.3).unwrap_or(Ordering::Equal))
        }
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            seq(x.iter().map(|v| (None, v)), y.iter().map(|v| (None, v)))
        }
        (Value::Object(x), Value::Object(y)) => seq(
            x.iter().map(|(k, v)| (Some(k), v)),
            y.iter().map(|(k, v)| (Some(k), v)),
        ),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The services listening on one port: all of them, and by listener type.
struct PortGroups {
    all: usize,
    /// By ASCII-lowercased listener type (the dialer's type is compared
    /// without ASCII case).
    by_type: BTreeMap<String, TypeGroups>,
}

/// The services of one port and listener type, and those among them with
/// the same handler mux settings.
struct TypeGroups {
    all: usize,
    by_mux: BTreeMap<Mux, usize>,
    /// Each distinct setting once, and each service's (by its index).
    muxes: Vec<Mux>,
    mux_of: BTreeMap<usize, usize>,
}

/// A node table's rows that own one host.
struct Owners {
    /// Ids of the first [`SHOWN_OWNERS`] rows, in table order.
    shown: Vec<i64>,
    rows: usize,
    /// Every owner id once, sorted.
    ids: Vec<i64>,
}

/// What `link` looks up for every chain node, built once per document: the
/// services listening on each port (grouped on first use) and, for a plan,
/// the tunnel nodes that own each host. Keeps the rule linear in the number
/// of chain nodes, services and addresses.
struct Index<'d> {
    /// Indices into `Document::services`, in document order.
    on_port: BTreeMap<i64, Vec<usize>>,
    ports: BTreeMap<i64, Option<PortGroups>>,
    /// Host -> index into `Lookup::owners`, `None` without a node table.
    hosts: Option<BTreeMap<&'d str, usize>>,
    lookup: Lookup,
}

/// The groups and owner lists, and what has been asked of them.
#[derive(Default)]
struct Lookup {
    groups: Vec<Group>,
    owners: Vec<Owners>,
    /// (owners, group) -> the group's first service on those owners.
    memo: BTreeMap<(usize, usize), Option<usize>>,
}

impl<'d> Index<'d> {
    fn new(doc: &'d Document<'_>) -> Self {
        let mut on_port: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (i, svc) in doc.services.iter().enumerate() {
            if let Some(port) = svc.config.addr().str().and_then(loose_port) {
                on_port.entry(port).or_default().push(i);
            }
        }
        let mut lookup = Lookup::default();
        let hosts = doc.table.as_ref().map(|table| {
            // (host, row), each host once per row.
            let mut pairs: Vec<(&str, usize)> = table
                .iter()
                .enumerate()
                .flat_map(|(row, n)| n.hosts.iter().map(move |h| (h.as_str(), row)))
                .collect();
            crate::sorting::sort(&mut pairs);
            pairs.dedup();
            let mut hosts = BTreeMap::new();
            for same in pairs.chunk_by(|a, b| a.0 == b.0) {
                let Some(&(host, _)) = same.first() else {
                    continue;
                };
                let id = |&(_, row): &(&str, usize)| table.get(row).map(|n| n.node_id);
                let mut ids: Vec<i64> = same.iter().filter_map(id).collect();
                let shown = ids.iter().take(SHOWN_OWNERS).copied().collect();
                ids.sort_unstable();
                ids.dedup();
                hosts.insert(host, lookup.owners.len());
                lookup.owners.push(Owners {
                    shown,
                    rows: same.len(),
                    ids,
                });
            }
            hosts
        });
        Index {
            on_port,
            ports: BTreeMap::new(),
            hosts,
            lookup,
        }
    }

    /// Groups the services on `port` the first time it is dialed.
    fn add_port(&mut self, doc: &Document<'_>, port: i64) {
        if !self.ports.contains_key(&port) {
            let members = self.on_port.remove(&port).unwrap_or_default();
            let built = self.lookup.port_groups(doc, &members);
            self.ports.insert(port, built);
        }
    }
}

impl Lookup {
    fn group(&mut self, doc: &Document<'_>, members: &[usize]) -> Option<usize> {
        let g = Group::of(doc, members)?;
        self.groups.push(g);
        Some(self.groups.len() - 1)
    }

    /// The groups of `members`, the services on one port.
    fn port_groups(&mut self, doc: &Document<'_>, members: &[usize]) -> Option<PortGroups> {
        let all = self.group(doc, members)?;
        let mut typed: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &i in members {
            if let Some(t) = doc.services.get(i).and_then(listener_type) {
                typed.entry(t.to_ascii_lowercase()).or_default().push(i);
            }
        }
        let mut by_type = BTreeMap::new();
        for (t, members) in typed {
            let Some(all) = self.group(doc, &members) else {
                continue;
            };
            let mut same: BTreeMap<Mux, Vec<usize>> = BTreeMap::new();
            for &i in &members {
                if let Some(svc) = doc.services.get(i) {
                    let mux = Mux(mux_settings(svc.config.handler_metadata().object()));
                    same.entry(mux).or_default().push(i);
                }
            }
            let (mut by_mux, mut muxes, mut mux_of) =
                (BTreeMap::new(), Vec::new(), BTreeMap::new());
            for (mux, members) in same {
                for &i in &members {
                    mux_of.insert(i, muxes.len());
                }
                if let Some(g) = self.group(doc, &members) {
                    // Keyed by a copy: `muxes` keeps the one LK003 compares with.
                    by_mux.insert(Mux(mux.0.clone()), g);
                }
                muxes.push(mux);
            }
            by_type.insert(
                t,
                TypeGroups {
                    all,
                    by_mux,
                    muxes,
                    mux_of,
                },
            );
        }
        Some(PortGroups { all, by_type })
    }

    /// The first service of group `g` on the nodes `owner` names (any node
    /// without a node table): walks the owners or the group's nodes,
    /// whichever are fewer, once per (owners, group).
    fn first_on(&mut self, owner: Option<usize>, g: usize) -> Option<usize> {
        let group = self.groups.get(g)?;
        let Some(owner) = owner else {
            return Some(group.first);
        };
        if let Some(&known) = self.memo.get(&(owner, g)) {
            return known;
        }
        let ids = self
            .owners
            .get(owner)
            .map(|o| o.ids.as_slice())
            .unwrap_or(&[]);
        let found = if ids.len() < group.nodes.len() {
            ids.iter()
                .filter_map(|id| {
                    let k = group.nodes.binary_search_by_key(id, |n| n.0).ok()?;
                    group.nodes.get(k).map(|n| n.1)
                })
                .min()
        } else {
            group
                .nodes
                .iter()
                .filter(|n| ids.binary_search(&n.0).is_ok())
                .map(|n| n.1)
                .min()
        };
        self.memo.insert((owner, g), found);
        found
    }
}
