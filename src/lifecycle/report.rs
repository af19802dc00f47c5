//! The `report` step: a node posts its whole config to the panel that owns
//! it, and that panel deletes what its name rules take for orphans
//! ([`crate::cleanup`], flow_policy.go:505-670): services, chains, then
//! traffic limiters (a connection limiter is never reported for cleanup).
//! This panel owns its own nodes and holds the tunnels applied and not
//! deleted, the forwards stored and the speed limits the steps gave; the
//! provider panel of a remote node (federated, or an entry this panel
//! relays to) holds the tunnels the step gives it, none by default, and
//! keeps the forward services this panel relayed to it (it binds them to
//! its share when it relays them, federation.go:1400-1404).

use super::state::Config;
use super::{chain_delete, services_delete, step_path, Replay};
use crate::cleanup::{
    deleted_services, deletes_chain, deletes_limiter, PanelRows, REPORT_INTERVAL_MINUTES as MINUTES,
};
use crate::coerce::{loose, GoText};
use crate::error::ApiError;
use crate::go::coerce::parse_int;
use crate::json::object;
use crate::json::tree::TreeValue;
use crate::plan::{CommandData, CommandName};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use tsify_next::Tsify;

/// A `report` step as written.
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
struct ReportStep {
    /// The node that reports; every node that runs something when absent.
    #[tsify(optional, type = "Loose")]
    node_id: Option<GoText>,
    /// By remote node id: the tunnel ids its provider panel holds (default:
    /// none).
    #[tsify(optional, type = "{ [nodeId: string]: Loose[] }")]
    provider_tunnels: BTreeMap<String, TunnelIds>,
}

#[derive(Debug, Default, Deserialize)]
struct TunnelIds(#[serde(deserialize_with = "loose::ints")] Vec<i64>);

/// What the step asks, read: the node that reports (`None`: every node),
/// and the rows each remote node's provider holds.
struct Reading {
    node: Option<i64>,
    providers: BTreeMap<i64, PanelRows>,
}

fn read(step: &TreeValue<'_>, i: usize) -> Result<Reading, ApiError> {
    let bad = |what: String, at: &str| ApiError::new("IN001", what, step_path(i, at));
    let step = ReportStep::deserialize(step).map_err(|e| bad(e.to_string(), ""))?;
    let node = match &step.node_id {
        None => None,
        Some(GoText(text)) => Some(
            parse_int(text.trim())
                .ok_or_else(|| bad(format!("nodeId must be a node id, not {text:?}"), "/nodeId"))?,
        ),
    };
    let mut providers = BTreeMap::new();
    for (key, TunnelIds(tunnels)) in step.provider_tunnels {
        let Some(node) = parse_int(key.trim()) else {
            let at = format!("/providerTunnels/{}", crate::finding::pointer_token(&key));
            return Err(bad(
                format!("providerTunnels keys are node ids, not {key:?}"),
                &at,
            ));
        };
        providers.insert(node, PanelRows::new(tunnels, vec![], vec![]));
    }
    Ok(Reading { node, providers })
}

/// The names of a node's configs, as its report lists them.
fn names(list: &[(String, Config)]) -> Vec<String> {
    list.iter().map(|(name, _)| name.clone()).collect()
}

/// Who cleans a node: this panel or the node's provider panel.
#[derive(Clone, Copy)]
enum Owner {
    ThisPanel,
    Provider,
}

impl Owner {
    /// The cleaner, in both languages.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Owner::ThisPanel => ("this panel", "本面板"),
            Owner::Provider => ("the provider panel", "提供方面板"),
        }
    }
}

impl Replay {
    /// Replays a `report` step (see the module docs).
    pub(super) fn step_report(&mut self, i: usize, step: &TreeValue<'_>) -> Result<(), ApiError> {
        let reading = read(step, i)?;
        let nodes: Vec<i64> = match reading.node {
            Some(node) => vec![node],
            None => self.nodes.keys().copied().collect(),
        };
        let begin = object([
            ("op", Value::from("report")),
            ("nodeId", reading.node.map_or(Value::Null, Value::from)),
        ]);
        self.log(i, "begin", begin);
        let own = self.own_rows();
        let none = PanelRows::default();
        for node in nodes {
            if self.remote.binary_search(&node).is_ok() {
                let rows = reading.providers.get(&node).unwrap_or(&none);
                let rows = self.provider_rows(node, rows);
                self.clean(i, node, &rows, Owner::Provider);
            } else {
                self.clean(i, node, &own, Owner::ThisPanel);
            }
        }
        self.end(i, true);
        Ok(())
    }

    /// What this panel holds: the tunnels applied and not deleted, the
    /// forwards and the speed limits.
    pub(super) fn own_rows(&self) -> PanelRows {
        let live = self.tunnels.iter().filter(|(_, r)| r.exists);
        let store = &self.fwd.store;
        PanelRows::new(
            live.map(|(t, _)| *t).collect(),
            store.forwards.iter().map(|f| f.id).collect(),
            store.speeds.iter().map(|(id, _)| *id).collect(),
        )
    }

    /// What the provider of remote `node` holds: the tunnels the step gives
    /// it, and a forward runtime for each forward service this panel
    /// relayed there (federation.go:1400-1404, flow_policy.go:546-552).
    fn provider_rows(&self, node: i64, given: &PanelRows) -> PanelRows {
        let services = self.nodes.get(&node).map_or(&[][..], |n| &n.services[..]);
        let relayed = services
            .iter()
            .filter_map(|(name, _)| crate::forward::parse_service_name(name))
            .map(|(f, _)| f);
        let rows = given.clone();
        PanelRows::new(rows.tunnels, relayed.collect(), rows.speed_limits)
    }

    /// The cleanup of one node's report, in the server's order: services,
    /// chains, then traffic limiters (flow_policy.go:518-520), each tested
    /// on the config as reported.
    fn clean(&mut self, i: usize, node: i64, rows: &PanelRows, owner: Owner) {
        let (services, chains, limiters) = match self.nodes.get(&node) {
            Some(n) => (names(&n.services), names(&n.chains), names(&n.limiters)),
            None => (vec![], vec![], vec![]),
        };
        let idle = services.is_empty() && chains.is_empty() && limiters.is_empty();
        let note = match (owner, idle) {
            (_, true) => "the node runs nothing: nothing to clean",
            (Owner::ThisPanel, _) => {
                "the node reports its config to this panel, which holds these tunnels"
            }
            (Owner::Provider, _) => {
                "the node reports its config to its provider panel, which holds these tunnels"
            }
        };
        let held = ("tunnels", Value::from(rows.tunnels.clone()));
        self.log_node(i, "report", node, None, held, note);
        let note = match owner {
            Owner::ThisPanel => "this panel's cleanup deletes it by name",
            Owner::Provider => "the provider panel's cleanup deletes it by name",
        };
        for service in &services {
            let gone = deleted_services(service, rows);
            if !gone.is_empty() {
                let data = services_delete(gone);
                self.send_owned(
                    i,
                    "report",
                    node,
                    CommandName::DeleteService.as_str(),
                    data,
                    note,
                );
            }
        }
        for chain in chains.iter().filter(|c| deletes_chain(c, rows)) {
            // The panel names the chain trimmed (flow_policy.go:609, :622):
            // one whose name has spaces around it stays on the agent.
            let data = chain_delete(chain.trim().to_string());
            self.send_owned(
                i,
                "report",
                node,
                CommandName::DeleteChains.as_str(),
                data,
                note,
            );
            if self.nodes.get(&node).is_some_and(|n| n.has_chain(chain)) {
                continue;
            }
            let routed = |c: &Config| c.handler_chain().as_deref() == Some(chain.as_str());
            for user in self.services_using(node, routed) {
                self.say_chain_deleted(i, node, chain, &user, owner);
            }
        }
        for limiter in limiters.iter().filter(|l| deletes_limiter(l, rows)) {
            // Named trimmed, as chains are (flow_policy.go:628-632).
            let data = CommandData::Json(object([("limiter", Value::from(limiter.trim()))]));
            self.send_owned(
                i,
                "report",
                node,
                CommandName::DeleteLimiters.as_str(),
                data,
                note,
            );
            if self
                .nodes
                .get(&node)
                .is_some_and(|n| n.has_limiter(false, limiter))
            {
                continue;
            }
            let limited = |c: &Config| c.limiter_names(false).iter().any(|l| l == limiter);
            for user in self.services_using(node, limited) {
                self.say_limiter_deleted(i, node, limiter, &user, owner);
            }
        }
    }

    /// LC004 for a traffic limiter the cleanup deleted under a running service.
    fn say_limiter_deleted(
        &mut self,
        i: usize,
        node: i64,
        limiter: &str,
        service: &str,
        owner: Owner,
    ) {
        let (who, who_zh) = owner.names();
        self.say_deleted_in_use(
            i,
            node,
            format!(
                "Step {i}: at node {node}'s config report, {who} deletes limiter {limiter:?}, which service {service} still names as its limiter: only a limiter named by the id of a speed limit it holds survives (handler/flow_policy.go:626-634, :663-675). Service {service} then runs without the limit (go-gost x/registry/limiter.go:36-42) until a sync pushes the limiter back, and the next report, within {MINUTES} minutes (go-gost x/service/traffic_reporter.go:328), deletes it again"
            ),
            format!(
                "第 {i} 步：节点 {node} 上报配置时，{who_zh}删除了限速器 {limiter:?}，而服务 {service} 仍在使用它：只有名称为其已有限速规则 ID 的限速器会保留（handler/flow_policy.go:626-634、663-675）。之后服务 {service} 不再限速（go-gost x/registry/limiter.go:36-42），直到同步再次下发该限速器，而下一次上报（{MINUTES} 分钟内，go-gost x/service/traffic_reporter.go:328）又会删除它"
            ),
        );
    }

    /// LC004 at step `i` for `node`.
    fn say_deleted_in_use(&mut self, i: usize, node: i64, en: String, zh: String) {
        let (code, rule) = ("LC004", "cleanup-deletes-in-use");
        self.report(code, rule, Some(node), step_path(i, ""), en, zh);
    }

    /// The services still running on `node` whose config `uses` something
    /// (a chain as `handler.chain`, a limiter in `limiter`).
    fn services_using(&self, node: i64, uses: impl Fn(&Config) -> bool) -> Vec<String> {
        let Some(n) = self.nodes.get(&node) else {
            return vec![];
        };
        n.services
            .iter()
            .filter(|(_, c)| uses(c))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// LC004 for a chain the cleanup deleted under a running service.
    fn say_chain_deleted(&mut self, i: usize, node: i64, chain: &str, service: &str, owner: Owner) {
        let (who, who_zh) = owner.names();
        self.say_deleted_in_use(
            i,
            node,
            format!(
                "Step {i}: at node {node}'s config report, {who} deletes chain {chain:?}, which service {service} still names as handler.chain: its cleanup reads the number after the last '_' as a tunnel id it does not hold (handler/flow_policy.go:607-624). Node {node} then dials destinations itself (go-gost x/registry/chain.go:73-78, x/chain/router.go:129-130), bypassing the rest of the tunnel. The node reports within {MINUTES} minutes of the apply (go-gost x/service/traffic_reporter.go:328), and again after every redeploy, which pushes the chain back"
            ),
            format!(
                "第 {i} 步：节点 {node} 上报配置时，{who_zh}删除了链路 {chain:?}，而服务 {service} 的 handler.chain 仍指向它：清理逻辑把最后一个 '_' 之后的数字当作它没有的隧道 ID（handler/flow_policy.go:607-624）。之后节点 {node} 直接连接目标地址（go-gost x/registry/chain.go:73-78、x/chain/router.go:129-130），绕过隧道其余部分。节点在应用后 {MINUTES} 分钟内上报配置（go-gost x/service/traffic_reporter.go:328），每次重新下发把链路推回后会再次发生"
            ),
        );
    }
}
