//! `syncForwardServicesWithWarnings` (control_plane.go:234-378): a forward's
//! limiters and services pushed to each of its entry nodes, with the
//! server's fallbacks, then the pause of a paused forward
//! (`controlForwardServices`, control_plane.go:522-640).

use super::agents::Agents;
use super::config::{
    conn_limiters, forward_services, limit_line, LimiterData, ServiceSpec, UpdateLimiterData,
};
use super::input::{ForwardPortRow, ForwardRow};
use super::store::Store;
use crate::model::NodeTable;
use crate::plan::{CommandData, CommandName, DeleteServicesData};

/// The warnings of a sync, and its error (the server's text) if it failed.
#[derive(Debug, Default)]
pub struct SyncResult {
    pub warnings: Vec<String>,
    pub error: Option<String>,
}

/// Everything a sync reads and the agents it sends to.
pub struct Syncer<'s, 'a> {
    pub store: &'s Store,
    pub nodes: &'s NodeTable,
    pub agents: &'s mut Agents<'a>,
}

// The server lowercases with Go's Unicode rules; the words it looks for are
// ASCII (or Chinese, which has no case), so ASCII lowercasing finds the same.

/// `isNodeOfflineOrTimeoutError`.
pub fn is_offline_error(e: &str) -> bool {
    let m = e.trim().to_ascii_lowercase();
    m.contains("节点不在线")
        || m.contains("等待节点响应超时")
        || m.contains("timeout")
        || m.contains("超时")
}

/// `isNotFoundError`.
pub fn is_not_found(e: &str) -> bool {
    let m = e.trim().to_ascii_lowercase();
    m.contains("not found") || m.contains("不存在")
}

/// `isAlreadyExistsMessage`.
fn is_already_exists(e: &str) -> bool {
    let m = e.trim().to_ascii_lowercase();
    if m.is_empty() || is_address_in_use(&m) {
        return false;
    }
    m.contains("already exists") || m.contains("已存在") || compact(&m).contains("alreadyexists")
}

fn is_address_in_use(m: &str) -> bool {
    m.contains("address already in use") || compact(m).contains("addressalreadyinuse")
}

fn compact(m: &str) -> String {
    m.split_whitespace()
        .collect::<String>()
        .to_ascii_lowercase()
}

/// A sync that ends in a limiter's failure on an online node, or on a node
/// with no row, answers no warnings (`return nil, err`,
/// control_plane.go:313, 330, 344); a failed service push keeps them
/// (:351, :373).
fn drop_warnings(warnings: &mut Vec<String>) {
    warnings.clear();
}

impl Syncer<'_, '_> {
    /// `sendNodeCommand` with its two tolerances.
    fn send(
        &mut self,
        node_id: i64,
        command: CommandName,
        data: CommandData,
        tolerate_exists: bool,
        tolerate_not_found: bool,
    ) -> Result<(), String> {
        match self.agents.send(node_id, command, data) {
            Err(e) if tolerate_exists && is_already_exists(&e) => Ok(()),
            Err(e) if tolerate_not_found && is_not_found(&e) => Ok(()),
            other => other,
        }
    }

    /// The sync of one forward with `UpdateService` and the add fallback.
    pub fn sync(&mut self, forward: &ForwardRow) -> SyncResult {
        let mut out = SyncResult::default();
        if let Err(e) = self.sync_ports(forward, &mut out.warnings) {
            out.error = Some(e);
            return out;
        }
        if forward.status != 1 {
            if let Err(e) = self.control(forward, CommandName::PauseService) {
                out.error = Some(e);
            }
        }
        out
    }

    fn sync_ports(
        &mut self,
        forward: &ForwardRow,
        warnings: &mut Vec<String>,
    ) -> Result<(), String> {
        let store = self.store;
        let tunnel = store.tunnel(forward.tunnel_id).ok_or("隧道不存在")?;
        let ports = store.ports_of(forward.id);
        if ports.is_empty() {
            return Err("转发入口端口不存在".into());
        }
        let grant = store.resolve_user_tunnel(forward.user_id, forward.tunnel_id);
        let limiter = forward
            .speed_id
            .filter(|id| *id > 0)
            .and_then(|id| Some((id, store.speed(id)?)))
            .filter(|(_, speed)| *speed > 0)
            .or(grant.limiter);
        let ip_speed = forward
            .ip_speed_id
            .filter(|id| *id > 0)
            .and_then(|id| store.speed(id))
            .filter(|s| *s > 0);
        let base = super::service_base(forward, grant.user_tunnel_id.max(0));
        let user_max_conn = store.user(forward.user_id).map_or(0, |u| u.max_conn.max(0));
        let conn = conn_limiters(
            forward.id,
            forward.user_id,
            forward.max_conn,
            forward.ip_max_conn,
            user_max_conn,
        );
        let conn_names = join_names(&conn);
        for fp in &ports {
            let traffic = self.traffic_limiters(forward, fp, limiter, ip_speed, warnings);
            let Some(traffic) = traffic.inspect_err(|_| drop_warnings(warnings))? else {
                continue;
            };
            for c in &conn {
                if let Err(e) = self.conn_limiter(fp.node_id, c) {
                    warnings.push(format!("节点 {} 连接限制器下发失败: {}", fp.node_id, e));
                }
            }
            let spec = ServiceSpec {
                base: &base,
                tunnel_id: forward.tunnel_id,
                tunnel_kind: tunnel.kind,
                remote_addr: &forward.remote_addr,
                strategy: &forward.strategy,
                proxy_protocol: forward.proxy_protocol,
                conn_limiters: &conn_names,
                traffic_limiters: &traffic,
            };
            self.push_services(forward, fp, &spec, warnings)?;
        }
        Ok(())
    }

    /// The traffic limiters of one entry node: their names, or `None` when
    /// the node is offline (warned, skipped).
    fn traffic_limiters(
        &mut self,
        forward: &ForwardRow,
        fp: &ForwardPortRow,
        limiter: Option<(i64, i64)>,
        ip_speed: Option<i64>,
        warnings: &mut Vec<String>,
    ) -> Result<Option<String>, String> {
        let mut names = Vec::new();
        if let Some((id, speed)) = limiter {
            let name = id.to_string();
            let data = LimiterData {
                name: name.clone(),
                limits: vec![limit_line("$", speed)],
            };
            let pushed = self
                .upsert_limiter(fp.node_id, data)
                .map_err(|e| format!("限速规则下发失败: {e}"));
            if let Err(e) = pushed {
                return self.skip_offline(fp.node_id, e, warnings);
            }
            names.push(name);
        }
        if let Some(speed) = ip_speed {
            let name = format!("rule_traffic_limit_{}", forward.id);
            let data = LimiterData {
                name: name.clone(),
                limits: vec![limit_line("0.0.0.0/0", speed), limit_line("::/0", speed)],
            };
            if let Err(e) = self.traffic_limiter(fp.node_id, data) {
                return self.skip_offline(fp.node_id, e, warnings);
            }
            names.push(name);
        }
        Ok(Some(names.join(",")))
    }

    /// A limiter push that failed: an offline node is a warning naming the
    /// node (trimmed name, else its id), anything else the sync's error.
    fn skip_offline(
        &self,
        node_id: i64,
        error: String,
        warnings: &mut Vec<String>,
    ) -> Result<Option<String>, String> {
        if !is_offline_error(&error) {
            return Err(error);
        }
        let name = self
            .nodes
            .get(node_id)
            .map_or_else(|| node_id.to_string(), |n| n.name.clone());
        warnings.push(format!("节点 {name} 不在线，已跳过下发"));
        Ok(None)
    }

    /// Adds a limiter, or updates it when the agent already has one of that
    /// name. `words` are the server's prefixes for a failed add and a failed
    /// update (`upsertLimiterOnNode` has none; control_plane.go:1913, 2011).
    fn add_or_update(
        &mut self,
        node_id: i64,
        kind: LimiterKind,
        data: LimiterData,
        words: Option<(&str, &str)>,
    ) -> Result<(), String> {
        let (add, update) = match kind {
            LimiterKind::Traffic => (CommandName::AddLimiters, CommandName::UpdateLimiters),
            LimiterKind::Connection => (CommandName::AddCLimiters, CommandName::UpdateCLimiters),
        };
        let wrap = |prefix: Option<&str>, e: String| match prefix {
            Some(p) => format!("{p}: {e}"),
            None => e,
        };
        match self.send(
            node_id,
            add,
            CommandData::Limiter(data.clone()),
            false,
            false,
        ) {
            Ok(()) => Ok(()),
            Err(e) if !is_already_exists(&e) => Err(wrap(words.map(|w| w.0), e)),
            Err(_) => {
                let data = UpdateLimiterData {
                    limiter: data.name.clone(),
                    data,
                };
                self.send(
                    node_id,
                    update,
                    CommandData::UpdateLimiter(data),
                    false,
                    false,
                )
                .map_err(|e| wrap(words.map(|w| w.1), e))
            }
        }
    }

    /// `upsertLimiterOnNode`: the forward's or the grant's traffic limiter.
    fn upsert_limiter(&mut self, node_id: i64, data: LimiterData) -> Result<(), String> {
        self.add_or_update(node_id, LimiterKind::Traffic, data, None)
    }

    /// `ensureTrafficLimiterOnNode` (the per-IP limiter).
    fn traffic_limiter(&mut self, node_id: i64, data: LimiterData) -> Result<(), String> {
        let words = ("限速规则下发失败", "限速规则更新失败");
        self.add_or_update(node_id, LimiterKind::Traffic, data, Some(words))
    }

    /// `ensureConnLimiterOnNode`.
    fn conn_limiter(&mut self, node_id: i64, data: &LimiterData) -> Result<(), String> {
        if data.name.is_empty() || data.limits.is_empty() {
            return Ok(());
        }
        let words = ("连接限制器下发失败", "连接限制器更新失败");
        self.add_or_update(node_id, LimiterKind::Connection, data.clone(), Some(words))
    }

    /// `UpdateService` of the pair; a refusal falls back to `AddService`
    /// (after a delete when the refusal was "not found"); an offline node is
    /// a warning.
    fn push_services(
        &mut self,
        forward: &ForwardRow,
        fp: &ForwardPortRow,
        spec: &ServiceSpec<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<(), String> {
        let Some(node) = self.nodes.get(fp.node_id) else {
            drop_warnings(warnings);
            return Err("节点不存在".into());
        };
        let node_name = node.row_name.clone();
        let services = forward_services(
            spec,
            node,
            fp.port,
            fp.in_ip.as_deref().unwrap_or("").trim(),
        );
        let update = CommandData::ForwardServices(services.clone());
        let mut sent = self.send(fp.node_id, CommandName::UpdateService, update, true, false);
        if let Err(e) = &sent {
            if is_not_found(e) {
                if let Err(d) = self.delete_on_node(forward, fp.node_id) {
                    if !is_not_found(&d) {
                        return Err(format!("节点 {node_name} 清理旧服务失败: {d}"));
                    }
                }
            }
            let add = CommandData::ForwardServices(services);
            sent = self.send(fp.node_id, CommandName::AddService, add, true, false);
        }
        match sent {
            Err(e) if is_offline_error(&e) => {
                warnings.push(format!("节点 {node_name} 不在线，已跳过下发"));
                Ok(())
            }
            Err(e) => Err(format!("节点 {node_name} 下发失败: {e}")),
            Ok(()) => Ok(()),
        }
    }

    /// `forwardServiceBaseCandidates`: the forward's service bases under the
    /// user's grant of the tunnel, every other grant of the user, and 0.
    fn bases(&self, forward: &ForwardRow) -> Vec<String> {
        let store = self.store;
        let preferred = store
            .resolve_user_tunnel(forward.user_id, forward.tunnel_id)
            .user_tunnel_id;
        let mut ids = vec![preferred];
        ids.extend(store.user_tunnel_ids(forward.user_id, Some(forward.tunnel_id)));
        ids.extend(store.user_tunnel_ids(forward.user_id, None));
        ids.push(0);
        let mut seen = Vec::new();
        ids.retain(|id| {
            let new = !seen.contains(id);
            seen.push(*id);
            new
        });
        ids.iter()
            .map(|ut| super::service_base(forward, *ut))
            .collect()
    }

    /// `deleteForwardServicesOnNode`: one `DeleteService` of every name the
    /// forward's services may have had.
    pub fn delete_on_node(&mut self, forward: &ForwardRow, node_id: i64) -> Result<(), String> {
        let mut names: Vec<String> = Vec::new();
        for base in self.bases(forward) {
            for name in [format!("{base}_tcp"), format!("{base}_udp"), base] {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        if names.is_empty() {
            return Ok(());
        }
        let data = CommandData::DeleteServices(DeleteServicesData { services: names });
        self.send(node_id, CommandName::DeleteService, data, false, true)
    }

    /// `controlForwardServices` for `PauseService` / `ResumeService`: each
    /// name alone on each entry node; a node where none was found heals the
    /// forward by a sync once, then tries again.
    pub fn control(&mut self, forward: &ForwardRow, command: CommandName) -> Result<(), String> {
        let ports = self.store.ports_of(forward.id);
        let bases = self.bases(forward);
        let mut seen = Vec::new();
        let mut healed = false;
        for fp in &ports {
            if seen.contains(&fp.node_id) {
                continue;
            }
            seen.push(fp.node_id);
            let mut outcome = match self.control_on_node(fp.node_id, &bases, command) {
                Err(e) if is_offline_error(&e) => continue,
                Err(e) => return Err(e),
                Ok(o) => o,
            };
            if !outcome.handled && outcome.not_found.is_some() && !healed {
                let heal = self.sync(forward);
                if let Some(e) = heal.error {
                    return Err(e);
                }
                healed = true;
                outcome = self.control_on_node(fp.node_id, &bases, command)?;
            }
            if outcome.handled {
                continue;
            }
            return Err(outcome
                .not_found
                .unwrap_or_else(|| "service control failed".into()));
        }
        Ok(())
    }

    fn control_on_node(
        &mut self,
        node_id: i64,
        bases: &[String],
        command: CommandName,
    ) -> Result<Control, String> {
        let mut not_found = None;
        for base in bases {
            let mut handled = false;
            for name in [format!("{base}_tcp"), format!("{base}_udp"), base.clone()] {
                let data = CommandData::DeleteServices(DeleteServicesData {
                    services: vec![name],
                });
                match self.send(node_id, command, data, false, false) {
                    Ok(()) => handled = true,
                    Err(e) if is_not_found(&e) => not_found = Some(e),
                    Err(e) => return Err(e),
                }
            }
            if handled {
                return Ok(Control {
                    handled: true,
                    not_found: None,
                });
            }
        }
        Ok(Control {
            handled: false,
            not_found,
        })
    }
}

/// An agent's two limiter registries.
#[derive(Clone, Copy)]
enum LimiterKind {
    Traffic,
    Connection,
}

struct Control {
    handled: bool,
    not_found: Option<String>,
}

/// `joinLimiterNames`.
fn join_names(configs: &[LimiterData]) -> String {
    configs
        .iter()
        .filter(|c| !c.name.is_empty())
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(",")
}
