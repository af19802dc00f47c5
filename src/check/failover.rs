//! FO rules: does a service's router retry enough to reach every candidate of
//! its chain's first hop (go-gost/x/chain/router.go, `Router.dial`: the router
//! dials up to `retries + 1` times, one fresh route each time).

use super::model::{Chain, Document, Service};
use super::rules::Sink;
use super::util::{get_ci, get_obj, join, join_i, node_label};
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
        let mut index = super::model::ChainIndex::with_capacity(doc.chains.len());
        for (i, c) in doc.chains.iter().enumerate() {
            // a later UpdateChains replaces an earlier AddChains: the last one wins
            index.insert((c.group, c.node_id, c.name), i);
        }
        index
    });
    index.get(&(svc.group, svc.node_id, name)).copied()
}

pub(crate) fn check(doc: &Document<'_>, sink: &mut Sink) {
    let mut routed = Routed {
        seen: vec![false; doc.chains.len()],
        order: Vec::new(),
    };
    for svc in &doc.services {
        check_service(doc, svc, &mut routed, sink);
    }
    for chain in routed.order.into_iter().filter_map(|at| doc.chains.get(at)) {
        direct_egress(doc, chain, sink);
    }
}

/// The chains some service routes through (for FO005), each once, in the
/// order services first name them.
struct Routed {
    seen: Vec<bool>,
    order: Vec<usize>,
}

impl Routed {
    /// The chain at index `at` of `doc.chains` is routed through.
    fn note(&mut self, at: usize) {
        if self
            .seen
            .get_mut(at)
            .is_some_and(|seen| !std::mem::replace(seen, true))
        {
            self.order.push(at);
        }
    }
}

/// The FO rules on one service: retries without a chain (FO002), a chain
/// its node is not sent (FO004), a forward's targets (FO006), and retries
/// against its chain's first hop (FO001, FO003).
fn check_service<'a>(doc: &Document<'a>, svc: &Service<'a>, routed: &mut Routed, sink: &mut Sink) {
    let Some((hkey, handler)) = svc.config.handler else {
        return;
    };
    // A retries value of the wrong type is AC001; the agent rejects the service anyway.
    let Ok(shown) = svc.retries else {
        return;
    };
    let retries = shown.unwrap_or(0);
    let chain_name = svc.config.chain.str().unwrap_or("");
    if chain_name.is_empty() {
        if retries > 0 && get_obj(handler, "chainGroup").is_none() {
            let name = &svc_name(svc);
            Msg::RetriesWithoutChain { name, retries }.say(
                sink,
                svc.node_id,
                &retries_path(svc, hkey),
            );
        }
        return;
    }
    let Some(chain) = find_chain(doc, svc, chain_name) else {
        let cpath = join(
            &handler_path(svc, hkey),
            get_ci(handler, "chain").map(|(k, _)| k).unwrap_or("chain"),
        );
        let name = &svc_name(svc);
        Msg::DanglingChain {
            name,
            chain: chain_name,
        }
        .say(sink, svc.node_id, &cpath);
        return;
    };
    if let Some(at) = chain_at(doc, svc, chain_name) {
        routed.note(at);
    }
    let Some(n) = chain.first_hop else { return };
    let forwarder = svc.config.forwarder();
    if let Some(fwd) = &forwarder {
        target_blackout(doc, svc, fwd, chain, retries, sink);
    }
    if n == 0 {
        return;
    }
    let ctx = Retries {
        name: svc_name(svc),
        chain: chain_name,
        candidates: n,
        retries,
        shown,
        per_route: forwarder.as_ref().map_or(1, |f| f.tries()),
    };
    weigh_retries(svc, hkey, &ctx, forwarder.is_some(), sink);
}

/// A service's `handler` pointer (built only for a finding).
fn handler_path(svc: &Service<'_>, hkey: &str) -> String {
    join(&svc.path(), hkey)
}

/// A service's `handler.retries` pointer.
fn retries_path(svc: &Service<'_>, hkey: &str) -> String {
    let rkey = svc.config.retries.key().unwrap_or("retries");
    join(&handler_path(svc, hkey), rkey)
}

/// FO001 when the router's retries cannot reach every first-hop candidate
/// (with the fix), FO003 when they go beyond.
fn weigh_retries(svc: &Service<'_>, hkey: &str, ctx: &Retries<'_>, forward: bool, sink: &mut Sink) {
    let need = ctx.need();
    if ctx.candidates > 1 && ctx.retries < need {
        let hpath = handler_path(svc, hkey);
        let msg = if forward {
            Msg::ForwardMissingRetries(ctx)
        } else {
            Msg::MissingRetries(ctx)
        };
        msg.say(sink, svc.node_id, &hpath);
        sink.fix_last(Fix {
            op: "set".into(),
            path: join(&hpath, "retries"),
            value: Value::from(need),
        });
    } else if ctx.retries > need {
        Msg::ExcessRetries(ctx).say(sink, svc.node_id, &retries_path(svc, hkey));
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

    /// The first-hop candidates one connection of a forward reaches.
    fn reached(&self) -> usize {
        self.per_route * (self.retries.max(0) as usize + 1)
    }
}

pub(crate) fn svc_name(svc: &Service<'_>) -> String {
    match svc.config.name() {
        Some(n) => format!("{:?}", n),
        None => format!("at {}", svc.path()),
    }
}

/// GOST's fail filter default when a hop's selector sets no positive
/// `failTimeout` (`DefaultFailTimeout` in go-gost/x/selector/filter.go).
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
    // has a node table.
    let from_host = chain.node_id.and_then(|id| {
        let table = doc.table.as_ref()?;
        let node = table.iter().find(|n| n.node_id == id)?;
        node.hosts.first()
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
        let fail_timeout = super::util::go_int(hop.fail_timeout.value())
            .ok()
            .flatten()
            .filter(|ns| *ns > 0);
        Msg::DirectEgress {
            nodes: n,
            hop: hop.name.str(),
            index: i,
            chain: chain.name,
            from: chain.node_id,
            from_host: from_host.map(String::as_str),
            fail_timeout,
        }
        .say(sink, chain.node_id, &join_i(&hops_path, i));
    }
}

/// FO006: the forward handler marks the *target* failed whenever its dial
/// through the tunnel fails, whatever failed (go-gost
/// `x/handler/forward/local/handler.go:236-244`). With two targets or more
/// the selector's fail filter then skips a healthy target for `failTimeout`
/// (go-gost `x/handler/forward/local/handler.go:181-275`; flvx issues #509, #518).
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
    let name = &svc_name(svc);
    Msg::TargetBlackout {
        name,
        fwd,
        chain: chain.name,
        nodes: &blackout_nodes(doc, chain, retries),
    }
    .say(sink, svc.node_id, &join(&svc.path(), "forwarder"));
}

/// The tunnel nodes whose death alone fails a dial through `chain`, named
/// in English and Chinese: the first hop's nodes when the router's own
/// tries do not cover them, and the only node of any hop (of the chain,
/// and of the plan's node table).
fn blackout_nodes(doc: &Document<'_>, chain: &Chain<'_>, retries: i64) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |label: (String, String)| {
        if !out.contains(&label) {
            out.push(label);
        }
    };
    let table = doc.table.as_deref().unwrap_or_default();
    let label_of = |row: &super::model::TableNode| {
        node_at(Some(row.node_id), row.hosts.first().map(String::as_str))
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
    crate::sorting::sort(&mut keys);
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

/// An FO finding, with what its message names.
enum Msg<'m> {
    /// FO001 on a tunnel's own service: the builder's retries fall short.
    MissingRetries(&'m Retries<'m>),
    /// FO001 on a forward service: the server never sets `handler.retries`
    /// on one (go-backend/internal/http/handler/control_plane.go:1742,
    /// `buildForwardServiceConfigs`), so only the handler's target tries
    /// reach other first-hop candidates.
    ForwardMissingRetries(&'m Retries<'m>),
    /// FO002.
    RetriesWithoutChain { name: &'m str, retries: i64 },
    /// FO003.
    ExcessRetries(&'m Retries<'m>),
    /// FO004.
    DanglingChain { name: &'m str, chain: &'m str },
    /// FO005: hop `index` (0-based) of `chain`, run on node `from`;
    /// `fail_timeout` is `None` when GOST's default applies.
    DirectEgress {
        nodes: usize,
        hop: Option<&'m str>,
        index: usize,
        chain: &'m str,
        from: Option<i64>,
        from_host: Option<&'m str>,
        fail_timeout: Option<i64>,
    },
    /// FO006: `nodes` as [`blackout_nodes`] names them.
    TargetBlackout {
        name: &'m str,
        fwd: &'m gost::Forwarder<'m>,
        chain: &'m str,
        nodes: &'m [(String, String)],
    },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        match *self {
            Msg::MissingRetries(ctx) => {
                let (shown, shown_zh) = retries_shown(ctx.shown);
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
                )
            }
            Msg::ForwardMissingRetries(ctx) => {
                let (shown, shown_zh) = retries_shown(ctx.shown);
                let (name, chain, n, need) = (&ctx.name, ctx.chain, ctx.candidates, ctx.need());
                let (tries, reached) = (ctx.per_route, ctx.reached());
                sink.say(
                    "FO001",
                    node_id,
                    path,
                    format_args!(
                        "forward service {} dials through chain {:?}, whose first hop has {} candidates, but {} and its handler tries {} target(s) once each: one connection reaches at most {} of them, so the first connection after the chosen node dies fails for the user. The repair is the server's: set handler.retries on forward services (the change plan 038 made for federated middles); on this node's config, set handler.retries to {}",
                        name, chain, n, shown, tries, reached, need
                    ),
                    format_args!(
                        "转发服务 {} 经链路 {:?} 拨号，其首跳有 {} 个候选节点，但{}，且处理器对 {} 个目标各只尝试一次：一次连接最多到达其中 {} 个，所选节点故障后用户的第一个连接会失败。需由服务端修复：为转发服务设置 handler.retries（与计划 038 对联邦中转节点的修改相同）；在该节点配置上请将 handler.retries 设为 {}",
                        name, chain, n, shown_zh, tries, reached, need
                    ),
                )
            }
            Msg::RetriesWithoutChain { name, retries } => sink.say(
                "FO002",
                node_id,
                path,
                format_args!(
                    "service {} has retries {} but no chain (an exit): the retries have no effect",
                    name, retries
                ),
                format_args!(
                    "服务 {} 设置了 retries {} 但没有链路（出口）：retries 不起作用",
                    name, retries
                ),
            ),
            Msg::ExcessRetries(ctx) => {
                let (name, retries, n, need) = (&ctx.name, ctx.retries, ctx.candidates, ctx.need());
                sink.say(
                    "FO003",
                    node_id,
                    path,
                    format_args!(
                        "service {} retries {} times but its chain's first hop has only {} node(s): rounds beyond {} add latency and reach no new node",
                        name, retries, n, need
                    ),
                    format_args!("服务 {} 重试 {} 次，但链路首跳只有 {} 个节点：超过 {} 次的重试只增加延迟，不会到达新节点", name, retries, n, need),
                )
            }
            Msg::DanglingChain { name, chain } => sink.say(
                "FO004",
                node_id,
                path,
                format_args!(
                    "service {} uses chain {:?}, which this node does not receive: the agent cannot route through it",
                    name, chain
                ),
                format_args!(
                    "服务 {} 引用的链路 {:?} 在该节点上不存在：无法经该链路转发",
                    name, chain
                ),
            ),
            Msg::DirectEgress {
                nodes: n,
                hop,
                index,
                chain,
                from,
                from_host,
                fail_timeout,
            } => {
                let (from_en, from_zh) = node_at(from, from_host);
                let hop_name = hop
                    .map(|h| format!("{h:?}"))
                    .unwrap_or_else(|| format!("{}", index + 1));
                let (shown, default_note, default_note_zh) = fail_timeout_shown(fail_timeout);
                sink.say(
                    "FO005",
                    node_id,
                    path,
                    format_args!(
                        "if all {n} nodes of hop {hop_name} of chain {:?} are marked failed, {from_en} dials the destination itself, bypassing the rest of the chain, until failTimeout {shown}{default_note} passes (a known risk of GOST's design; mitigation: let that node connect out only to the hop's nodes)",
                        chain
                    ),
                    format_args!(
                        "链路 {:?} 的跳 {hop_name} 的 {n} 个节点都被标记为失败时，{from_zh} 会绕过链路其余部分直接连接目标地址，直到 failTimeout {shown}{default_note_zh} 过去（GOST 设计上的已知风险；缓解：只允许该节点向该跳的节点发起连接）",
                        chain
                    ),
                )
            }
            Msg::TargetBlackout {
                name,
                fwd,
                chain,
                nodes,
            } => {
                let (en_nodes, zh_nodes) = any_of(nodes);
                let timeout = fwd.fail_timeout_ns.unwrap_or(DEFAULT_FAIL_TIMEOUT_NS);
                let shown = crate::go::duration::format_duration(timeout);
                let targets = fwd.targets.join(", ");
                sink.say(
                    "FO006",
                    node_id,
                    path,
                    format_args!(
                        "forward service {} has {} targets ({}) over chain {:?}: when {} dies, each target's dial through the tunnel fails and marks that healthy target failed (maxFails {}), so the forward skips it for failTimeout {}, also after the node is back",
                        name, fwd.targets.len(), targets, chain, en_nodes, fwd.max_fails, shown
                    ),
                    format_args!(
                        "转发服务 {} 有 {} 个目标（{}）经链路 {:?} 转发：{}故障时，每个目标经隧道的拨号都会失败并把这个健康的目标标记为失败（maxFails {}），转发会在 failTimeout {} 内跳过它，即使节点已恢复",
                        name, fwd.targets.len(), targets, chain, zh_nodes, fwd.max_fails, shown
                    ),
                )
            }
        }
    }
}

/// "retries is 1" / "retries is absent (0)", in English and Chinese.
fn retries_shown(shown: Option<i64>) -> (String, String) {
    match shown {
        Some(r) => (format!("retries is {}", r), format!("retries 为 {}", r)),
        None => (
            "retries is absent (0)".to_string(),
            "未设置 retries（即 0）".to_string(),
        ),
    }
}

/// A hop's fail timeout as the FO005 message shows it, with the note (in
/// English and Chinese) that it is GOST's default when none is set.
fn fail_timeout_shown(ns: Option<i64>) -> (String, &'static str, &'static str) {
    match ns {
        Some(ns) => (crate::go::duration::format_duration(ns), "", ""),
        None => (
            crate::go::duration::format_duration(DEFAULT_FAIL_TIMEOUT_NS),
            ", GOST's default when none is set",
            "，未设置时 GOST 的默认值",
        ),
    }
}

/// FO006's tunnel nodes, "a or b" in English and Chinese; every node of a
/// hop when none alone fails a dial.
fn any_of(nodes: &[(String, String)]) -> (String, String) {
    if nodes.is_empty() {
        return (
            "every node of a hop of the tunnel".to_string(),
            "隧道某一跳的全部节点".to_string(),
        );
    }
    let en: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
    let zh: Vec<&str> = nodes.iter().map(|n| n.1.as_str()).collect();
    (en.join(" or "), zh.join("或"))
}

/// A node named with its address when known ("node 3 (203.0.113.3)"), in
/// English and Chinese; "this node" when the document does not say which.
fn node_at(id: Option<i64>, host: Option<&str>) -> (String, String) {
    match (id, host) {
        (Some(id), Some(host)) => (
            format!("node {id} ({host})"),
            format!("节点 {id}（{host}）"),
        ),
        (id, _) => node_label(id),
    }
}
