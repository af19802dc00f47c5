//! What the forward paths leave on agents (LC002, LC003): a forward service
//! or limiter that nothing the panel holds accounts for any more, because
//! the server never sends its delete. A step reports the ones it left, not
//! the ones that were left before it.

use super::state::Node;
use super::{step_path, Deployed, Replay};
use crate::cleanup::{deletes_limiter, PanelRows};
use crate::forward::{parse_service_name, service_base};

/// The step that left something behind, and so why the server did not
/// delete it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Leftover {
    Delete,
    Edit,
    CreateFailed,
    EditFailed,
    Control,
    TunnelEdit,
    TunnelDelete,
}

impl Leftover {
    /// The finding's code and rule: a failed request's rollback, else a release.
    fn code(self) -> (&'static str, &'static str) {
        match self {
            Leftover::CreateFailed | Leftover::EditFailed => ("LC003", "rollback-leak"),
            _ => ("LC002", "release-leak"),
        }
    }

    /// What the server does instead, in both languages.
    fn why(self) -> (&'static str, &'static str) {
        match self {
            Leftover::Delete => (
                "forwardDelete sends only DeleteService of the forward's service names, skipping a node that is offline (mutations.go:2205, control_plane.go:549-567), and never deletes a limiter",
                "forwardDelete 只发送删除转发服务名的 DeleteService，跳过离线节点（mutations.go:2205、control_plane.go:549-567），从不删除限速器",
            ),
            Leftover::Edit => (
                "forwardUpdate deletes the old services only on the nodes a tunnel switch drops or keeps (mutations.go:2142-2158, :2170-2183), and its sync only adds or updates limiters (control_plane.go:297-336)",
                "forwardUpdate 只在切换隧道时删除被移除或保留节点上的旧服务（mutations.go:2142-2158、2170-2183），同步只新增或更新限速器（control_plane.go:297-336）",
            ),
            Leftover::CreateFailed => (
                "when the sync fails, forwardCreate deletes only the forward's rows (mutations.go:1958-1961): what the sync pushed before the failure stays",
                "同步失败时 forwardCreate 只删除转发的数据库记录（mutations.go:1958-1961），失败前已下发的配置仍然保留",
            ),
            Leftover::EditFailed => (
                "when the sync fails, forwardUpdate restores the rows and re-syncs the old forward (mutations.go:2163-2167, :4447-4464), deleting nothing the failed sync pushed",
                "同步失败时 forwardUpdate 恢复数据库记录并重新同步旧转发（mutations.go:2163-2167、4447-4464），不删除失败的同步已下发的任何配置",
            ),
            Leftover::Control => (
                "pausing and resuming send only PauseService / ResumeService, and a re-sync only adds or updates (control_plane.go:568-611)",
                "暂停与恢复只发送 PauseService / ResumeService，重新同步只新增或更新（control_plane.go:568-611）",
            ),
            Leftover::TunnelEdit => (
                "a tunnel edit deletes only the forwards' services on the entry nodes it drops, errors ignored (cleanupTunnelForwardRuntimesOnRemovedEntryNodes, mutations.go:1014-1018, :1193-1217), and never a limiter",
                "隧道编辑只删除被移除入口节点上的转发服务并忽略错误（cleanupTunnelForwardRuntimesOnRemovedEntryNodes，mutations.go:1014-1018、1193-1217），从不删除限速器",
            ),
            Leftover::TunnelDelete => (
                "tunnelDelete deletes the tunnel's forward rows with it (repository_mutations.go:584-590) but sends nothing for their services or limiters (mutations.go:1417-1419, :765-788)",
                "tunnelDelete 随隧道删除其转发记录（repository_mutations.go:584-590），但不发送任何删除转发服务或限速器的命令（mutations.go:1417-1419、765-788）",
            ),
        }
    }
}

/// An object kind in both languages.
fn kind_zh(kind: &str) -> &'static str {
    match kind {
        "service" => "服务",
        "limiter" => "限速器",
        "climiter" => "连接限制器",
        _ => "配置",
    }
}

impl Replay {
    /// The forward objects nothing the panel holds accounts for, sorted: a
    /// forward service whose forward is gone, has no port on that node or
    /// names its services otherwise now; a limiter no other service names.
    pub(super) fn forward_orphans(&self) -> Vec<Deployed> {
        self.forward_objects().0
    }

    /// The orphans among `accounted` (sorted): what a tunnel step left of
    /// what the panel's rows accounted for before it (forward commands a
    /// pasted plan brings for forwards the panel never stored are not its).
    pub(super) fn orphaned_among(&self, accounted: &[Deployed]) -> Vec<Deployed> {
        let left = self.forward_orphans().into_iter();
        left.filter(|o| accounted.binary_search(o).is_ok())
            .collect()
    }

    /// The forward services and limiters on the agents, sorted: the
    /// orphans ([`Replay::forward_orphans`]) and the ones accounted for.
    pub(super) fn forward_objects(&self) -> (Vec<Deployed>, Vec<Deployed>) {
        let mut out = (Vec::new(), Vec::new());
        for (id, node) in &self.nodes {
            self.sort_node(*id, node, &mut out);
        }
        for list in [&mut out.0, &mut out.1] {
            crate::sorting::sort(list);
            list.dedup();
        }
        out
    }

    fn sort_node(
        &self,
        id: i64,
        node: &Node,
        (orphans, kept): &mut (Vec<Deployed>, Vec<Deployed>),
    ) {
        let (mut traffic, mut conn) = (Vec::new(), Vec::new());
        for (name, config) in &node.services {
            let Some((f, base)) = parse_service_name(name) else {
                traffic.extend(config.limiter_names(false));
                conn.extend(config.limiter_names(true));
                continue;
            };
            if !self.accounts_for(f, base, id) {
                orphans.push((id, "service", name.clone()));
                continue;
            }
            kept.push((id, "service", name.clone()));
            traffic.extend(config.limiter_names(false));
            conn.extend(config.limiter_names(true));
        }
        let registries = [
            ("limiter", &node.limiters, traffic),
            ("climiter", &node.climiters, conn),
        ];
        for (kind, list, named) in registries {
            for (name, _) in list {
                let set = if named.contains(name) {
                    &mut *kept
                } else {
                    &mut *orphans
                };
                set.push((id, kind, name.clone()));
            }
        }
    }

    /// Whether forward `f` is stored, holds a port on `node` and names its
    /// services `base` now.
    fn accounts_for(&self, f: i64, base: &str, node: i64) -> bool {
        let store = &self.fwd.store;
        let Some(forward) = store.forward(f) else {
            return false;
        };
        let grant = store.resolve_user_tunnel(forward.user_id, forward.tunnel_id);
        service_base(forward, grant.user_tunnel_id.max(0)) == base
            && store.ports_of(f).iter().any(|p| p.node_id == node)
    }

    /// LC002 / LC003 for each forward object step `i` (a `what`) left
    /// behind; `offline`: the nodes the step could not reach, sorted.
    pub(super) fn report_leftovers(
        &mut self,
        i: usize,
        left: Vec<Deployed>,
        why: Leftover,
        offline: &[i64],
        what: &str,
    ) {
        let rows = self.own_rows();
        let (code, rule) = why.code();
        let (reason, reason_zh) = why.why();
        for (node, kind, name) in left {
            let (skipped, skipped_zh) = if offline.binary_search(&node).is_ok() {
                (
                    " (the node was offline, so the server skipped it)",
                    "（该节点离线，服务端跳过了它）",
                )
            } else {
                ("", "")
            };
            let (fate, fate_zh) = self.fate(node, kind, &name, &rows);
            let zh = kind_zh(kind);
            self.report(
                code,
                rule,
                Some(node),
                step_path(i, ""),
                format!("Node {node}: {kind} {name} is still deployed after the {what} of step {i}{skipped}, and nothing the panel holds uses it: {reason}. {fate}"),
                format!("节点 {node}：第 {i} 步 {what} 之后，{zh} {name} 仍残留在节点上{skipped_zh}，面板已没有任何配置使用它：{reason_zh}。{fate_zh}"),
            );
        }
    }

    /// What the cleanup at the node's config reports does with a leftover
    /// (flow_policy.go:505-670), when this panel owns the node.
    fn fate(&self, node: i64, kind: &str, name: &str, rows: &PanelRows) -> (String, String) {
        if self.remote.binary_search(&node).is_ok() {
            return (
                "Its provider panel's cleanup decides what stays".into(),
                "是否保留由其提供方面板的清理决定".into(),
            );
        }
        let service_kept =
            parse_service_name(name).is_some_and(|(f, _)| self.fwd.store.forward(f).is_some());
        let kept = match kind {
            "service" => service_kept,
            "limiter" => !deletes_limiter(name, rows),
            _ => true,
        };
        match (kind, kept) {
            ("climiter", _) => (
                "The panel's cleanup never deletes a connection limiter (flow_policy.go:505-521): it stays".into(),
                "面板的清理从不删除连接限制器（flow_policy.go:505-521）：它会一直保留".into(),
            ),
            ("service", true) => (
                "Its forward still exists, so the cleanup at the node's config reports keeps it (flow_policy.go:566-576): it stays".into(),
                "其转发仍然存在，节点上报配置时的清理会保留它（flow_policy.go:566-576）：它会一直保留".into(),
            ),
            ("limiter", true) => (
                "Its name is a speed limit's id, so the cleanup at the node's config reports keeps it (flow_policy.go:626-634): it stays".into(),
                "其名称是限速规则 ID，节点上报配置时的清理会保留它（flow_policy.go:626-634）：它会一直保留".into(),
            ),
            _ => (
                "The cleanup at the node's next config report deletes it (flow_policy.go:505-670)".into(),
                "节点下一次上报配置时的清理会删除它（flow_policy.go:505-670）".into(),
            ),
        }
    }
}
