//! LK rules: does every chain node dial a service the plan deploys, with the
//! matching protocol and mux settings. Which node owns which host comes from
//! the plan's node table; without one, dialed ports are matched against the
//! ports of the services the plan deploys.

use super::model::{Document, Service};
use super::rules::Sink;
use super::tree::TreeObject;
use super::util::{get_ci, get_obj, get_str, join, join_i, loose_port};
use crate::gost;
use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;
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
                .map(|(k, v)| (k.to_string(), crate::json::to_value(v)))
                .collect()
        })
        .unwrap_or_default();
    crate::stable_sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
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
    let index = Index::new(doc);
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
                link(
                    doc,
                    &index,
                    chain.node_id,
                    node,
                    &node_path,
                    addr,
                    &host,
                    port,
                    sink,
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn link(
    doc: &Document<'_>,
    index: &Index<'_>,
    from: Option<i64>,
    node: &TreeObject<'_>,
    node_path: &str,
    addr: &str,
    host: &str,
    port: i64,
    sink: &mut Sink,
) {
    let on_port: &[usize] = index.by_port.get(&port).map(Vec::as_slice).unwrap_or(&[]);
    // With a node table, only the services of the nodes that own the host
    // (their ids, in table order).
    let table = doc.table.as_deref().unwrap_or_default();
    let owners = match &index.owners {
        Some(owners_by_host) => {
            let rows: &[usize] = owners_by_host.get(host).map(Vec::as_slice).unwrap_or(&[]);
            if rows.is_empty() {
                return; // not a tunnel node: outside this plan
            }
            Some(
                rows.iter()
                    .filter_map(|&r| table.get(r))
                    .map(|row| row.node_id),
            )
        }
        None => None,
    };
    let candidates = on_port
        .iter()
        .filter_map(|&i| doc.services.get(i))
        .filter(|svc| {
            owners.clone().is_none_or(|mut owners| {
                svc.node_id
                    .is_some_and(|id| owners.any(|owner| owner == id))
            })
        });
    let Some(first) = candidates.clone().next() else {
        let (en, zh) = match owners {
            Some(owners) => {
                let mut ids = String::new();
                for id in owners {
                    if !ids.is_empty() {
                        ids.push_str(", ");
                    }
                    let _ = write!(ids, "{}", id);
                }
                (
                    format!(
                        "{} belongs to tunnel node {} but no planned service listens on port {} there",
                        addr, ids, port
                    ),
                    format!(
                        "{} 属于隧道节点 {}，但该节点的端口 {} 上没有计划中的服务监听",
                        addr, ids, port
                    ),
                )
            }
            // A command list may leave out the node it dials.
            None if !doc.whole_plan => return,
            None => (
                format!(
                    "{} is dialed but no service in this plan listens on port {}",
                    addr, port
                ),
                format!(
                    "拨号目标 {} 的端口 {} 上没有本计划部署的服务监听",
                    addr, port
                ),
            ),
        };
        sink.add("LK001", from, &join(node_path, "addr"), en, zh);
        return;
    };
    // Protocol: the dialer must speak what the dialed listener serves.
    let Some(dialer) = get_obj(node, "dialer") else {
        return;
    };
    let Some(dtype) = get_str(dialer, "type").map(str::trim) else {
        return;
    };
    let dkey = get_ci(node, "dialer").map(|(k, _)| k).unwrap_or("dialer");
    let mut matched =
        candidates.filter(|svc| listener_type(svc).is_some_and(|t| t.eq_ignore_ascii_case(dtype)));
    let Some(target) = matched.clone().next() else {
        let Some(ltype) = listener_type(first) else {
            return;
        };
        let on = first
            .node_id
            .map(|i| format!("node {}", i))
            .unwrap_or_else(|| "the target".into());
        sink.say(
            "LK002",
            from,
            &join(&join(node_path, dkey), "type"),
            format_args!(
                "dialer type {:?} does not match listener type {:?} of the service on {} ({}): the handshake fails",
                dtype, ltype, on, first.path()
            ),
            format_args!(
                "拨号器类型 {:?} 与 {} 上服务（{}）的监听器类型 {:?} 不一致：握手会失败",
                dtype, on, first.path(), ltype
            ),
        );
        return;
    };
    // Mux: connector vs the handler on the other end.
    let ckey = get_ci(node, "connector")
        .map(|(k, _)| k)
        .unwrap_or("connector");
    let conn_mux = mux_settings(get_obj(node, "connector").and_then(|c| get_obj(c, "metadata")));
    let handler_mux = |svc: &Service| mux_settings(svc.config.handler_metadata().object());
    // Without a node table several services may share the dialed port: any
    // one of them with the same settings is taken as the other end.
    if matched.any(|svc| differing_keys(&conn_mux, &handler_mux(svc)).is_none()) {
        return;
    }
    if let Some(keys) = differing_keys(&conn_mux, &handler_mux(target)) {
        sink.say(
            "LK003",
            from,
            &join(node_path, ckey),
            format_args!(
                "connector mux settings differ from the handler of {} ({}): {}",
                addr,
                target.path(),
                keys
            ),
            format_args!(
                "连接器的多路复用设置与 {} 的处理器（{}）不一致：{}",
                addr,
                target.path(),
                keys
            ),
        );
    }
}

/// What `link` looks up for every chain node, built once per document: the
/// services listening on each port (document order kept) and, for a plan,
/// the tunnel nodes that own each host. Keeps the rule linear in the number
/// of chain nodes.
struct Index<'d> {
    /// Indices into `Document::services` (the map type the simulator uses too).
    by_port: HashMap<i64, Vec<usize>>,
    /// Indices into `Document::table`.
    owners: Option<HashMap<&'d str, Vec<usize>>>,
}

impl<'d> Index<'d> {
    fn new(doc: &'d Document<'_>) -> Self {
        let mut by_port: HashMap<i64, Vec<usize>> = HashMap::default();
        for (i, svc) in doc.services.iter().enumerate() {
            if let Some(port) = svc.config.addr().str().and_then(loose_port) {
                by_port.entry(port).or_default().push(i);
            }
        }
        let owners = doc.table.as_ref().map(|table| {
            let mut m: HashMap<&str, Vec<usize>> = HashMap::default();
            for (row, n) in table.iter().enumerate() {
                for (i, h) in n.hosts.iter().enumerate() {
                    if !n.hosts.iter().take(i).any(|prev| prev == h) {
                        m.entry(h.as_str()).or_default().push(row);
                    }
                }
            }
            m
        });
        Index { by_port, owners }
    }
}
