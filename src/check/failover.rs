//! FO rules: does a service's router retry enough to reach every candidate of
//! its chain's first hop (go-gost `x/chain/router.go`: the router dials up to
//! `retries + 1` times, one fresh route each time).

use super::model::{Chain, Document, Service};
use super::rules::Sink;
use super::util::{get_ci, get_obj, join, join_i};
use crate::finding::Fix;
use crate::gost;
use serde_json::Value;

/// The chain a service's handler names, among the chains the same node gets
/// in the same command list.
pub(crate) fn find_chain<'d, 'a>(
    doc: &'d Document<'a>,
    svc: &Service<'a>,
    name: &'a str,
) -> Option<&'d Chain<'a>> {
    chain_at(doc, svc, name).and_then(|i| doc.chains.get(i))
}

/// [`find_chain`]'s index into `doc.chains`.
fn chain_at<'a>(doc: &Document<'a>, svc: &Service<'a>, name: &'a str) -> Option<usize> {
    let index = doc.chain_index.get_or_init(|| {
        let mut index = super::model::ChainIndex::new();
        for (i, c) in doc.chains.iter().enumerate() {
            // a later UpdateChains replaces an earlier AddChains: the last one wins
            index.insert((c.group, c.node_id, c.name), i);
        }
        index
    });
    index.get(&(svc.group, svc.node_id, name)).copied()
}

pub(crate) fn check(doc: &Document<'_>, sink: &mut Sink) {
    // Chains some service routes through (for FO005), in the order services
    // first name them.
    let mut routed = vec![false; doc.chains.len()];
    let mut routed_order: Vec<usize> = Vec::new();
    for svc in &doc.services {
        let Some((hkey, handler)) = svc.config.handler else {
            continue;
        };
        // Paths are only built for a finding.
        let hpath = || join(&svc.path(), hkey);
        // A retries value of the wrong type is AC001; the agent rejects the service anyway.
        let Ok(retries_opt) = svc.retries else {
            continue;
        };
        let retries = retries_opt.unwrap_or(0);
        let rkey = svc.config.retries.key().unwrap_or("retries");
        let rpath = || join(&hpath(), rkey);
        let chain_name = svc.config.chain.str().unwrap_or("");
        if chain_name.is_empty() {
            if retries > 0 && get_obj(handler, "chainGroup").is_none() {
                let name = svc_name(svc);
                sink.say(
                    "FO002",
                    svc.node_id,
                    &rpath(),
                    format_args!(
                        "service {} has retries {} but no chain (an exit): the retries have no effect",
                        name, retries
                    ),
                    format_args!(
                        "服务 {} 设置了 retries {} 但没有链路（出口）：retries 不起作用",
                        name, retries
                    ),
                );
            }
            continue;
        }
        let Some(chain) = find_chain(doc, svc, chain_name) else {
            let cpath = join(
                &hpath(),
                get_ci(handler, "chain").map(|(k, _)| k).unwrap_or("chain"),
            );
            let name = svc_name(svc);
            sink.say(
                "FO004",
                svc.node_id,
                &cpath,
                format_args!(
                    "service {} uses chain {:?}, which this node does not receive: the agent cannot route through it",
                    name, chain_name
                ),
                format_args!(
                    "服务 {} 引用的链路 {:?} 在该节点上不存在：无法经该链路转发",
                    name, chain_name
                ),
            );
            continue;
        };
        if let Some(at) = chain_at(doc, svc, chain_name) {
            if routed
                .get_mut(at)
                .is_some_and(|seen| !std::mem::replace(seen, true))
            {
                routed_order.push(at);
            }
        }
        let Some(n) = chain.first_hop else { continue };
        let forwarder = svc.config.forwarder();
        if let Some(fwd) = &forwarder {
            target_blackout(doc, svc, fwd, chain, retries, sink);
        }
        if n == 0 {
            continue;
        }
        let ctx = Retries {
            name: svc_name(svc),
            chain: chain_name,
            candidates: n,
            retries,
            shown: retries_opt,
            per_route: forwarder.as_ref().map_or(1, |f| f.tries()),
        };
        let need = ctx.need();
        if n > 1 && retries < need {
            match &forwarder {
                Some(_) => forward_missing_retries(&ctx, svc.node_id, &hpath(), sink),
                None => missing_retries(&ctx, svc.node_id, &hpath(), sink),
            }
            sink.fix_last(Fix {
                op: "set".into(),
                path: join(&hpath(), "retries"),
                value: Value::from(need),
            });
        } else if retries > need {
            let name = &ctx.name;
            sink.say(
                "FO003",
                svc.node_id,
                &rpath(),
                format_args!(
                    "service {} retries {} times but its chain's first hop has only {} node(s): rounds beyond {} add latency and reach no new node",
                    name, retries, n, need
                ),
                format_args!("服务 {} 重试 {} 次，但链路首跳只有 {} 个节点：超过 {} 次的重试只增加延迟，不会到达新节点", name, retries, n, need),
            );
        }
    }
    for chain in routed_order.into_iter().filter_map(|at| doc.chains.get(at)) {
        direct_egress(doc, chain, sink);
    }
}

/// What FO001 and FO003 weigh for one service routed through a chain.
struct Retries<'a> {
    name: String,
    chain: &'a str,
    /// Nodes of the chain's first hop.
    candidates: usize,
    retries: i64,
    /// `handler.retries` as given (`None`: absent).
    shown: Option<i64>,
    /// Routes the service's handler asks the router for per connection
    /// before the router's own retries: 1, or a forward's target tries.
    per_route: usize,
}

impl Retries<'_> {
    /// The fewest router retries that reach every first-hop candidate:
    /// `per_route * (retries + 1)` routes must cover `candidates`.
    fn need(&self) -> i64 {
        let per_route = self.per_route.max(1);
        (self.candidates.div_ceil(per_route) as i64 - 1).max(0)
    }

    /// "retries is 1" / "retries is absent (0)", in both languages.
    fn shown(&self) -> (String, String) {
        match self.shown {
            Some(r) => (format!("retries is {}", r), format!("retries 为 {}", r)),
            None => (
                "retries is absent (0)".to_string(),
                "未设置 retries（即 0）".to_string(),
            ),
        }
    }
}

/// FO001 on a tunnel's own service: the builder's retries fall short.
fn missing_retries(ctx: &Retries<'_>, node_id: Option<i64>, path: &str, sink: &mut Sink) {
    let (shown, shown_zh) = ctx.shown();
    let (name, chain, n, need) = (&ctx.name, ctx.chain, ctx.candidates, ctx.need());
    sink.say(
        "FO001",
        node_id,
        path,
        format_args!(
            "service {} has {} next-hop candidates in chain {:?} but {}: when the chosen node is down the request fails instead of trying a backup; set handler.retries to {}",
            name, n, chain, shown, need
        ),
        format_args!(
            "服务 {} 的链路 {:?} 有 {} 个下一跳候选，但{}：所选节点故障时请求直接失败，不会切换到备用节点；请将 handler.retries 设为 {}",
            name, chain, n, shown_zh, need
        ),
    );
}

/// FO001 on a forward service: the server never sets `handler.retries` on
/// one (control_plane.go `buildForwardServiceConfigs`),
/// so only the handler's target tries reach other first-hop candidates.
fn forward_missing_retries(ctx: &Retries<'_>, node_id: Option<i64>, path: &str, sink: &mut Sink) {
    let (shown, shown_zh) = ctx.shown();
    let (name, chain, n, need) = (&ctx.name, ctx.chain, ctx.candidates, ctx.need());
    let reached = ctx.per_route * (ctx.retries.max(0) as usize + 1);
    sink.say(
        "FO001",
        node_id,
        path,
        format_args!(
            "forward service {} dials through chain {:?}, whose first hop has {} candidates, but {} and its handler tries {} target(s) once each: one connection reaches at most {} of them, so the first connection after the chosen node dies fails for the user. The repair is the server's: set handler.retries on forward services (the change plan 038 made for federated middles); on this node's config, set handler.retries to {}",
            name, chain, n, shown, ctx.per_route, reached, need
        ),
        format_args!(
            "转发服务 {} 经链路 {:?} 拨号，其首跳有 {} 个候选节点，但{}，且处理器对 {} 个目标各只尝试一次：一次连接最多到达其中 {} 个，所选节点故障后用户的第一个连接会失败。需由服务端修复：为转发服务设置 handler.retries（与计划 038 对联邦中转节点的修改相同）；在该节点配置上请将 handler.retries 设为 {}",
            name, chain, n, shown_zh, ctx.per_route, reached, need
        ),
    );
}

pub(crate) fn svc_name(svc: &Service<'_>) -> String {
    match svc.config.name() {
        Some(n) => format!("{:?}", n),
        None => format!("at {}", svc.path()),
    }
}

/// GOST's fail filter default when a hop's selector sets no positive
/// `failTimeout` (go-gost `x/selector` fail filter).
const DEFAULT_FAIL_TIMEOUT_NS: i64 = 10_000_000_000;

/// FO005: a hop of two or more nodes can be emptied by the fail filter
/// (every node marked within `failTimeout`); the route is then empty and the
/// node running the chain dials the destination itself, bypassing the rest of
/// the chain, until a mark expires. (A hop of one node is never filtered.)
fn direct_egress(doc: &Document<'_>, chain: &Chain<'_>, sink: &mut Sink) {
    let hops_field = chain.config.hops_field();
    let Some(hops) = hops_field.items() else {
        return;
    };
    // Where the traffic would leave from: the node's address when the plan
    // has a node table, else "this node".
    let from = chain
        .node_id
        .and_then(|id| {
            let table = doc.table.as_ref()?;
            let node = table.iter().find(|n| n.node_id == id)?;
            node.hosts.first().map(|h| (id, h.clone()))
        })
        .map(|(id, host)| {
            (
                format!("node {id} ({host})"),
                format!("节点 {id}（{host}）"),
            )
        })
        .unwrap_or_else(|| match chain.node_id {
            Some(id) => (format!("node {id}"), format!("节点 {id}")),
            None => ("this node".to_string(), "该节点".to_string()),
        });
    let hops_path = join(&chain.path, hops_field.key().unwrap_or("hops"));
    // A hop that is not an object has no nodes (n = 0) and is skipped; the
    // rest of a hop is read only when it has two nodes or more.
    for (i, item) in hops.iter().enumerate() {
        let n = gost::node_count(item);
        if n < 2 {
            continue;
        }
        let hop = gost::Hop::read(item);
        let timeout = super::util::go_int(hop.fail_timeout.value())
            .ok()
            .flatten()
            .filter(|ns| *ns > 0);
        let (shown, default_note, default_note_zh) = match timeout {
            Some(ns) => (crate::go::duration::format_duration(ns), "", ""),
            None => (
                crate::go::duration::format_duration(DEFAULT_FAIL_TIMEOUT_NS),
                ", GOST's default when none is set",
                "，未设置时 GOST 的默认值",
            ),
        };
        let hop_name = hop
            .name
            .str()
            .map(|h| format!("{h:?}"))
            .unwrap_or_else(|| format!("{}", i + 1));
        let (from_en, from_zh) = &from;
        sink.say(
            "FO005",
            chain.node_id,
            &join_i(&hops_path, i),
            format_args!(
                "if all {n} nodes of hop {hop_name} of chain {:?} are marked failed, {from_en} dials the destination itself, bypassing the rest of the chain, until failTimeout {shown}{default_note} passes (a known risk of GOST's design; mitigation: let that node connect out only to the hop's nodes)",
                chain.name
            ),
            format_args!(
                "链路 {:?} 的跳 {hop_name} 的 {n} 个节点都被标记为失败时，{from_zh} 会绕过链路其余部分直接连接目标地址，直到 failTimeout {shown}{default_note_zh} 过去（GOST 设计上的已知风险；缓解：只允许该节点向该跳的节点发起连接）",
                chain.name
            ),
        );
    }
}

/// FO006: the forward handler marks the *target* failed whenever its dial
/// through the tunnel fails, whatever failed (go-gost
/// `x/handler/forward/local/handler.go:236-244`). With two targets or more
/// the selector's fail filter then skips a healthy target for `failTimeout`
/// (go-gost `x/handler/forward/local/handler.go:181-275`; upstream #509, #518).
fn target_blackout(
    doc: &Document<'_>,
    svc: &Service<'_>,
    fwd: &gost::Forwarder<'_>,
    chain: &Chain<'_>,
    retries: i64,
    sink: &mut Sink,
) {
    if fwd.targets.len() < 2 {
        return;
    }
    let (en_nodes, zh_nodes) = match blackout_nodes(doc, chain, retries) {
        nodes if nodes.is_empty() => (
            "every node of a hop of the tunnel".to_string(),
            "隧道某一跳的全部节点".to_string(),
        ),
        nodes => {
            let (en, zh): (Vec<String>, Vec<String>) = nodes.into_iter().unzip();
            (en.join(" or "), zh.join("或"))
        }
    };
    let timeout = fwd.fail_timeout_ns.unwrap_or(DEFAULT_FAIL_TIMEOUT_NS);
    let shown = crate::go::duration::format_duration(timeout);
    let targets = fwd.targets.join(", ");
    let name = svc_name(svc);
    sink.say(
        "FO006",
        svc.node_id,
        &join(&svc.path(), "forwarder"),
        format_args!(
            "forward service {} has {} targets ({}) over chain {:?}: when {} dies, each target's dial through the tunnel fails and marks that healthy target failed (maxFails {}), so the forward skips it for failTimeout {}, also after the node is back",
            name, fwd.targets.len(), targets, chain.name, en_nodes, fwd.max_fails, shown
        ),
        format_args!(
            "转发服务 {} 有 {} 个目标（{}）经链路 {:?} 转发：{}故障时，每个目标经隧道的拨号都会失败并把这个健康的目标标记为失败（maxFails {}），转发会在 failTimeout {} 内跳过它，即使节点已恢复",
            name, fwd.targets.len(), targets, chain.name, zh_nodes, fwd.max_fails, shown
        ),
    );
}

/// The tunnel nodes whose death alone fails a dial through `chain`: the
/// first hop's nodes when the router's own tries do not cover them, and
/// the only node of any hop (of the chain, and of the plan's node table).
fn blackout_nodes(doc: &Document<'_>, chain: &Chain<'_>, retries: i64) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |label: (String, String)| {
        if !out.contains(&label) {
            out.push(label);
        }
    };
    let table = doc.table.as_deref().unwrap_or_default();
    let label_of = |row: &super::model::TableNode| match row.hosts.first() {
        Some(host) => (
            format!("node {} ({host})", row.node_id),
            format!("节点 {}（{host}）", row.node_id),
        ),
        None => (
            format!("node {}", row.node_id),
            format!("节点 {}", row.node_id),
        ),
    };
    // The chain's own hops: the first one's nodes unless the router's
    // tries cover them, any later one's only node.
    for (i, hop) in chain.config.hops().enumerate() {
        let nodes: Vec<_> = hop.nodes().collect();
        let covered = i > 0 || retries.saturating_add(1) >= nodes.len() as i64;
        if nodes.len() > 1 && covered {
            continue;
        }
        for node in &nodes {
            let Some(addr) = node.addr.str() else {
                continue;
            };
            let host = node.dial.as_ref().map(|(h, _)| h.as_str());
            let row = table
                .iter()
                .find(|row| host.is_some_and(|h| row.hosts.iter().any(|x| x == h)));
            match row {
                Some(row) => push(label_of(row)),
                None => push((addr.to_string(), addr.to_string())),
            }
        }
    }
    for row in lone_hop_nodes(table) {
        push(label_of(row));
    }
    out
}

/// The table's middles and exits that are the only node of their hop, in
/// table order: one sort of the (role, hop) keys, not a scan per row.
fn lone_hop_nodes(table: &[super::model::TableNode]) -> Vec<&super::model::TableNode> {
    fn hop_of(r: &super::model::TableNode) -> (&str, i64) {
        (r.role.as_str(), r.hop)
    }
    let mut keys: Vec<(&str, i64)> = table
        .iter()
        .filter(|r| r.role == "middle" || r.role == "exit")
        .map(hop_of)
        .collect();
    keys.sort_unstable();
    let count = |k: (&str, i64)| {
        let from = keys.partition_point(|x| *x < k);
        keys.get(from..)
            .map_or(0, |rest| rest.partition_point(|x| *x == k))
    };
    table
        .iter()
        .filter(|r| r.role == "middle" || r.role == "exit")
        .filter(|r| count(hop_of(r)) == 1)
        .collect()
}
