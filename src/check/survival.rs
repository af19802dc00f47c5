//! LC004: what the panels' own cleanup deletes while a service of the plan
//! still uses it (go-backend/internal/http/handler/flow_policy.go:505-670,
//! [`crate::cleanup`]). A plan's nodes are cleaned by the panel that owns
//! them: this panel its own nodes, a provider panel the nodes it shares (the
//! federation commands, and what this panel relays to a remote entry). A
//! provider is taken to hold no tunnel, forward or speed limit of its own
//! (the lifecycle's `report` step can say otherwise).

use super::failover::{find_chain, svc_name};
use super::model::{Document, Service};
use super::rules::Sink;
use super::util::{get_ci, join, node_label};
use crate::cleanup::{
    deletes_chain, deletes_limiter, PanelRows, REPORT_INTERVAL_MINUTES as MINUTES,
};

pub(crate) fn check(doc: &Document<'_>, sink: &mut Sink) {
    let remote = remote_nodes(doc);
    let own = own_rows(doc, &remote);
    let provider = PanelRows::default();
    for svc in &doc.services {
        let relayed = svc
            .node_id
            .is_some_and(|n| remote.binary_search(&n).is_ok());
        let (rows, owner) = if svc.group > 0 || relayed {
            (&provider, Owner::Provider)
        } else {
            (&own, Owner::ThisPanel)
        };
        if let Some(chain) = svc.config.chain.str().filter(|c| !c.is_empty()) {
            if find_chain(doc, svc, chain).is_some() && deletes_chain(chain, rows) {
                Msg::Chain { svc, chain, owner }.say(sink, svc.node_id, &chain_path(svc));
            }
        }
        let limiters = crate::gost::Text::of(Some(svc.config.obj), "limiter");
        let names = limiters.str().unwrap_or("").split(',').map(str::trim);
        for name in names.filter(|n| !n.is_empty()) {
            if deletes_limiter(name, rows) {
                let path = join(&svc.path(), "limiter");
                Msg::Limiter {
                    svc,
                    limiter: name,
                    owner,
                }
                .say(sink, svc.node_id, &path);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Owner {
    ThisPanel,
    Provider,
}

/// The nodes the plan's table marks remote (sorted): a provider owns them,
/// and with them what this panel relays there; a provider's own commands
/// (`federation`, group > 0) are its too.
fn remote_nodes(doc: &Document<'_>) -> Vec<i64> {
    let table = doc.table.as_deref().unwrap_or_default();
    let mut ids: Vec<i64> = table
        .iter()
        .filter(|r| r.remote)
        .map(|r| r.node_id)
        .collect();
    ids.sort_unstable();
    ids
}

/// What this panel holds: the tunnels whose chains it sends to its own
/// nodes and the speed limits its own nodes are sent (a plan is made from
/// rows the panel has).
fn own_rows(doc: &Document<'_>, remote_ids: &[i64]) -> PanelRows {
    let remote = |node: Option<i64>| node.is_some_and(|n| remote_ids.binary_search(&n).is_ok());
    let tunnels = doc
        .chains
        .iter()
        .filter(|c| c.group == 0 && !remote(c.node_id))
        .filter_map(|c| c.name.rsplit('_').next()?.parse().ok())
        .collect();
    let speed_limits = doc
        .limiters
        .iter()
        .filter(|l| !remote(l.node_id))
        .filter_map(|l| l.name.parse().ok())
        .collect();
    PanelRows::new(tunnels, vec![], speed_limits)
}

/// Where a service names its chain: `handler.chain` (the service itself
/// without a handler object).
fn chain_path(svc: &Service<'_>) -> String {
    svc.config
        .handler
        .map(|(k, h)| {
            let key = get_ci(h, "chain").map(|(k, _)| k).unwrap_or("chain");
            join(&join(&svc.path(), k), key)
        })
        .unwrap_or_else(|| svc.path())
}

/// An LC004 finding, with what its message names.
enum Msg<'m> {
    /// The chain `svc` routes through is deleted by `owner`'s cleanup.
    Chain {
        svc: &'m Service<'m>,
        chain: &'m str,
        owner: Owner,
    },
    /// A limiter `svc` names is deleted by `owner`'s cleanup.
    Limiter {
        svc: &'m Service<'m>,
        limiter: &'m str,
        owner: Owner,
    },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        match *self {
            Msg::Chain { svc, chain, owner } => {
                let (who, who_zh) = cleaner(owner, svc);
                let name = svc_name(svc);
                let (node, node_zh) = node_label(svc.node_id);
                sink.say(
                    "LC004",
                    node_id,
                    path,
                    format_args!(
                        "{who} deletes chain {chain:?} within {MINUTES} minutes of the apply (and again after every redeploy): its cleanup reads the number after the last '_' as a tunnel id it does not hold (handler/flow_policy.go:607-624). Service {name} then has no route, and {node} dials destinations itself (go-gost x/chain/router.go:129-130), bypassing the rest of the tunnel"
                    ),
                    format_args!(
                        "{who_zh}会在应用后 {MINUTES} 分钟内删除链路 {chain:?}（每次重新下发后再次发生）：清理逻辑把最后一个 '_' 之后的数字当作它没有的隧道 ID（handler/flow_policy.go:607-624）。之后服务 {name} 没有路由，{node_zh}直接连接目标地址（go-gost x/chain/router.go:129-130），绕过隧道其余部分"
                    ),
                )
            }
            Msg::Limiter {
                svc,
                limiter,
                owner,
            } => {
                let (who, who_zh) = cleaner(owner, svc);
                let name = svc_name(svc);
                sink.say(
                    "LC004",
                    node_id,
                    path,
                    format_args!(
                        "{who} deletes limiter {limiter:?} within {MINUTES} minutes of the apply (and again after every redeploy): only a limiter named by a speed limit id it holds survives (handler/flow_policy.go:626-634). Service {name} then runs without it: its limit stops"
                    ),
                    format_args!(
                        "{who_zh}会在应用后 {MINUTES} 分钟内删除限速器 {limiter:?}（每次重新下发后再次发生）：只有名称为其已有限速规则 ID 的限速器会保留（handler/flow_policy.go:626-634）。之后服务 {name} 在没有它的情况下运行：限速失效"
                    ),
                )
            }
        }
    }
}

/// Who cleans the node of `svc`, in English and Chinese.
fn cleaner(owner: Owner, svc: &Service<'_>) -> (String, String) {
    let (en, zh) = match owner {
        Owner::ThisPanel => ("this panel", "本面板"),
        Owner::Provider => ("the provider panel", "提供方面板"),
    };
    match svc.node_id {
        Some(n) => (
            format!("{en} (at node {n}'s next config report)"),
            format!("{zh}（在节点 {n} 下一次上报配置时）"),
        ),
        None => (
            format!("{en} (at the node's next config report)"),
            format!("{zh}（在节点下一次上报配置时）"),
        ),
    }
}
