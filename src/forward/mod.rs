//! Forwards: the users' port-forward rules riding on a tunnel
//! (mutations.go:1835-2285, control_plane.go:210-378). For each forward and each
//! entry node the server pushes a `_tcp`/`_udp` service pair with its
//! limiters; this module reproduces the forward request paths
//! (`forwardCreate`, `forwardUpdate`) and the sync the tunnel paths end with.
//!
//! * [`input`]: the typed inputs; [`store`]: the rows and their queries;
//! * [`validate`]: the checks; [`rejection`]: the answers;
//! * [`config`]: the services and limiters; [`sync`]: pushing them;
//! * [`control`]: pausing, resuming and deleting a forward;
//! * [`agents`]: the agents and provider panels that answer.

pub mod agents;
pub mod config;
pub mod control;
pub mod input;
pub mod modes;
pub mod rejection;
pub mod store;
pub mod sync;
pub mod validate;

pub use config::{ForwardDb, ForwardService, LimiterData, UpdateLimiterData};

use crate::coerce::{default_string, GoText};
use crate::model::NodeTable;
use crate::plan::{Assumption, MetaValue};
use agents::Agents;
use input::{ForwardPayload, ForwardPortRow, ForwardRow, ForwardUser};
use rejection::ForwardRejection;
use store::Store;
use sync::{SyncResult, Syncer};

static CLOCK: std::sync::OnceLock<fn() -> i64> = std::sync::OnceLock::new();

/// Sets where the request time comes from when an input gives no `now`
/// (the wasm bindings pass the page's clock; natively it is the system's).
pub fn set_clock(now_ms: fn() -> i64) {
    let _ = CLOCK.set(now_ms);
}

/// The current time in Unix milliseconds, where one is known.
pub fn clock_now() -> Option<i64> {
    if let Some(f) = CLOCK.get() {
        return Some(f());
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        since.ok().map(|d| d.as_millis() as i64)
    }
    #[cfg(target_arch = "wasm32")]
    None
}

/// `buildForwardServiceBase` (control_plane.go:1623): the name a forward's
/// services share, `<forwardId>_<userId>_<userTunnelId>`.
pub fn service_base(forward: &ForwardRow, user_tunnel_id: i64) -> String {
    use crate::strings::push_number;
    let mut base = String::with_capacity(24);
    push_number(&mut base, forward.id);
    base.push('_');
    push_number(&mut base, forward.user_id);
    base.push('_');
    push_number(&mut base, user_tunnel_id);
    base
}

/// A forward service's name, `<base>_tcp` or `<base>_udp`: its forward id
/// and base (control_plane.go:234-378).
pub fn parse_service_name(name: &str) -> Option<(i64, &str)> {
    let base = name
        .strip_suffix("_tcp")
        .or_else(|| name.strip_suffix("_udp"))?;
    let parts: Vec<&str> = base.split('_').collect();
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() != 3 || !parts.iter().all(numeric) {
        return None;
    }
    Some((parts.first()?.parse().ok()?, base))
}

/// Whether the panel's `vite_config` lets normal users forward to internal
/// addresses (`allow_local_remote_addr`).
pub fn allows_local(config: &input::Entries<GoText>) -> bool {
    config
        .get("allow_local_remote_addr")
        .is_some_and(|v| v.0.eq_ignore_ascii_case("true"))
}

/// The panel as one forward request sees it: its tables, its nodes, the
/// agents that answer, and who asks.
pub struct Panel<'s, 'a> {
    pub store: Store,
    pub nodes: &'s NodeTable,
    pub agents: Agents<'a>,
    /// The user making the request.
    pub user: ForwardUser,
    /// `allow_local_remote_addr` is set: normal users' targets are not checked.
    pub allow_local: bool,
    /// Unix milliseconds; `None` skips the expiry checks (listed as assumed).
    pub now: Option<i64>,
    pub assumed: Vec<Assumption>,
    /// The warnings of the request's syncs, kept when a sync fails too.
    pub warnings: Vec<String>,
}

impl<'a> Panel<'_, 'a> {
    /// What pushes to the agents, on this panel's rows.
    fn syncer(&mut self) -> Syncer<'_, 'a> {
        Syncer {
            store: &self.store,
            nodes: self.nodes,
            agents: &mut self.agents,
        }
    }
}

impl Panel<'_, '_> {
    /// `syncForwardServicesWithWarnings(forward, "UpdateService", true)`.
    pub fn sync(&mut self, forward_id: i64) -> SyncResult {
        let Some(forward) = self.store.forward(forward_id).cloned() else {
            return SyncResult {
                warnings: vec![],
                error: Some("转发不存在".into()),
            };
        };
        self.syncer().sync(&forward)
    }

    /// `ensureForwardAccessByActor` (control_plane.go:144): the stored
    /// forward, when the requester is an administrator or its owner.
    fn accessible(&self, id: i64) -> Result<ForwardRow, ForwardRejection> {
        let normal = self.user.role_id != 0;
        self.store
            .forward(id)
            .filter(|f| !normal || f.user_id == self.user.id)
            .cloned()
            .ok_or(ForwardRejection::ForwardNotFound)
    }

    /// `deleteForwardServicesOnNode`: the forward's services deleted on one node.
    pub fn delete_forward_on_node(
        &mut self,
        forward: &ForwardRow,
        node_id: i64,
    ) -> Result<(), String> {
        self.delete_on_node(forward, node_id)
    }

    /// `deleteForwardServicesOnNodeBatch` with `forward` as it was.
    fn delete_on_node(&mut self, forward: &ForwardRow, node_id: i64) -> Result<(), String> {
        self.syncer().delete_on_node(forward, node_id)
    }

    /// A normal user's targets (`IsSafeRemoteAddr`); host names are assumed safe.
    fn check_targets(&mut self, remote_addr: &str) -> Result<(), ForwardRejection> {
        for check in validate::safe_targets(remote_addr)? {
            if let validate::TargetCheck::NeedsDns(host) = check {
                self.assumed.push(Assumption {
                    node_id: None,
                    path: "/forward/remoteAddr".into(),
                    value: MetaValue::Str(host),
                    reason: "the server resolves a target's host name and refuses it when it resolves to a loopback or private address; a preview does not resolve names, so it assumes a public address".into(),
                });
            }
        }
        Ok(())
    }

    /// The tunnel a forward request names, once the requester may use it
    /// and it is enabled (`ensureTunnelPermission`, then the tunnel row).
    fn usable_tunnel(
        &self,
        tunnel_id: i64,
        update: bool,
    ) -> Result<store::TunnelRow, ForwardRejection> {
        validate::tunnel_permission(&self.store, self.user.id, self.user.role_id, tunnel_id)?;
        let tunnel = self
            .store
            .tunnel(tunnel_id)
            .ok_or(ForwardRejection::TunnelNotFound)?;
        if tunnel.status != 1 {
            return Err(ForwardRejection::TunnelDisabled { update });
        }
        Ok(tunnel.clone())
    }

    /// `normalizeSpeedLimitReference`: a speed limit id that names no row is none.
    fn speed_limit(&self, id: Option<i64>) -> Option<i64> {
        id.filter(|id| self.store.speed(*id).is_some())
    }

    /// `ensureUserTunnelForwardAllowed` for `user_id` on the tunnel.
    fn user_allowed(&mut self, user_id: i64, tunnel_id: i64) -> Result<(), ForwardRejection> {
        let now = match self.now {
            Some(now) => now,
            None => {
                self.assumed.push(Assumption {
                    node_id: None,
                    path: "/now".into(),
                    value: MetaValue::Int(0),
                    reason: "no request time is known, so the user's and the grant's expiry times are not checked".into(),
                });
                i64::MIN
            }
        };
        validate::user_allowed(&self.store, user_id, tunnel_id, now)
    }

    /// `forwardCreate` (mutations.go:1835): the new forward's id; the sync's
    /// warnings go to [`Panel::warnings`].
    pub fn create(&mut self, body: &ForwardPayload) -> Result<i64, ForwardRejection> {
        let user = self.user.clone();
        let normal = user.role_id != 0;
        let tunnel_id = GoText::int(&body.tunnel_id, 0);
        if tunnel_id <= 0 {
            return Err(ForwardRejection::TunnelIdMissing);
        }
        let tunnel = self.usable_tunnel(tunnel_id, false)?;
        self.user_allowed(user.id, tunnel_id)?;
        let name = GoText::text(&body.name).to_string();
        let remote_addr = GoText::text(&body.remote_addr).to_string();
        if name.is_empty() || remote_addr.is_empty() {
            return Err(ForwardRejection::NameOrTargetEmpty);
        }
        if normal && !self.allow_local {
            self.check_targets(&remote_addr)?;
        }
        let set = |f: &Option<Option<GoText>>| matches!(f, Some(Some(_)));
        if normal && set(&body.speed_id) {
            return Err(ForwardRejection::SpeedLimitForbidden {
                per_ip: false,
                change: false,
            });
        }
        let speed_id = self.speed_limit(GoText::int_ptr(&body.speed_id.clone().flatten()));
        if normal && set(&body.ip_speed_id) {
            return Err(ForwardRejection::SpeedLimitForbidden {
                per_ip: true,
                change: false,
            });
        }
        let ip_speed_id = self.speed_limit(GoText::int_ptr(&body.ip_speed_id.clone().flatten()));
        let mut port = GoText::int(&body.in_port, 0);
        if port <= 0 {
            port = validate::pick_port(&self.store, self.nodes, &tunnel.entries);
        }
        // A range may hold port 0 (`parsePorts` takes it) and the pick give
        // it: the server then takes 10000 (mutations.go:1898-1903).
        if port <= 0 {
            port = 10000;
        }
        let in_ip = GoText::text(&body.in_ip.clone().flatten())
            .trim()
            .to_string();
        if !in_ip.is_empty() && tunnel.entries.len() > 1 {
            return Err(ForwardRejection::InIpMultiEntry);
        }
        validate::entry_ports(&self.store, self.nodes, &tunnel.entries, port, 0)?;
        let row = ForwardRow {
            user_id: user.id,
            user_name: self
                .store
                .user(user.id)
                .map_or_else(|| "user".into(), ForwardUser::user_name),
            name,
            tunnel_id,
            remote_addr,
            strategy: default_string(GoText::text(&body.strategy), "fifo").to_string(),
            status: 1,
            inx: self.store.next_forward_inx(),
            speed_id,
            max_conn: GoText::int(&body.max_conn, 0),
            ip_max_conn: GoText::int(&body.ip_max_conn, 0).max(0),
            ip_speed_id,
            proxy_protocol: GoText::int(&body.proxy_protocol, 0),
            ..ForwardRow::default()
        };
        let id = self.store.insert_forward(row);
        for node in &tunnel.entries {
            let in_ip = (!in_ip.is_empty()).then(|| in_ip.clone());
            self.store.insert_port(id, *node, port, in_ip);
        }
        let synced = self.sync(id);
        self.warnings.extend(synced.warnings);
        if let Some(e) = synced.error {
            self.store.delete_forward(id);
            return Err(ForwardRejection::SyncFailed(e));
        }
        Ok(id)
    }

    /// `forwardUpdate` (mutations.go:1966); its warnings go to [`Panel::warnings`].
    pub fn update(&mut self, body: &ForwardPayload) -> Result<(), ForwardRejection> {
        let normal = self.user.role_id != 0;
        let id = GoText::int(&body.id, 0);
        if id <= 0 {
            return Err(ForwardRejection::ForwardIdMissing);
        }
        let mut old = self.accessible(id)?;
        // `GetForwardRecord` (repository_flow.go:236) reads a blank strategy
        // as `fifo`, which the update (or its rollback) then stores.
        if old.strategy.trim().is_empty() {
            old.strategy = "fifo".into();
        }
        let old_ports = self.store.ports_of(id);
        let tunnel_id = GoText::int(&body.tunnel_id, old.tunnel_id);
        if tunnel_id <= 0 {
            return Err(ForwardRejection::TunnelIdMissing);
        }
        let tunnel = self.usable_tunnel(tunnel_id, true)?;
        let or_old = |v: &Option<GoText>, old: &str| match GoText::text(v).trim() {
            "" => old.to_string(),
            s => s.to_string(),
        };
        let mut row = old.clone();
        row.name = or_old(&body.name, &old.name);
        row.remote_addr = or_old(&body.remote_addr, &old.remote_addr);
        if normal && !self.allow_local {
            self.check_targets(&row.remote_addr)?;
        }
        row.strategy = or_old(&body.strategy, &old.strategy);
        self.update_speed_limits(body, &mut row, normal)?;
        let port = self.update_port(body, id, &tunnel.entries);
        let in_ip = body.in_ip.as_ref().map(|v| GoText::text(v).to_string());
        if in_ip.as_ref().is_some_and(|ip| !ip.trim().is_empty()) && tunnel.entries.len() > 1 {
            return Err(ForwardRejection::InIpMultiEntry);
        }
        validate::entry_ports(&self.store, self.nodes, &tunnel.entries, port, id)?;
        row.tunnel_id = tunnel_id;
        row.max_conn = GoText::int(&body.max_conn, old.max_conn);
        row.ip_max_conn = GoText::int(&body.ip_max_conn, old.ip_max_conn).max(0);
        row.proxy_protocol = GoText::int(&body.proxy_protocol, old.proxy_protocol);
        if let Some(f) = self.store.forward_mut(id) {
            *f = row;
        }
        let entries = port_entries(
            &tunnel.entries,
            port,
            in_ip,
            tunnel_id != old.tunnel_id,
            &old_ports,
        );
        self.store.replace_ports(id, &entries);
        self.switch_and_sync(&old, &old_ports, &tunnel.entries)
    }

    /// The speed limits of an edit: a normal user may keep, not change them.
    fn update_speed_limits(
        &self,
        body: &ForwardPayload,
        row: &mut ForwardRow,
        normal: bool,
    ) -> Result<(), ForwardRejection> {
        let same = |current: Option<i64>, requested: Option<i64>| current == requested;
        let requested = GoText::int_ptr(&body.speed_id.clone().flatten());
        if normal
            && body.speed_id.is_some()
            && requested.is_some()
            && !same(row.speed_id, requested)
        {
            return Err(ForwardRejection::SpeedLimitForbidden {
                per_ip: false,
                change: true,
            });
        }
        match self.speed_limit(requested) {
            Some(id) => row.speed_id = Some(id),
            None if body.speed_id.is_some() => row.speed_id = None,
            None => {}
        }
        let requested_ip = GoText::int_ptr(&body.ip_speed_id.clone().flatten());
        if normal {
            if body.ip_speed_id.is_some() && !same(row.ip_speed_id, requested_ip) {
                return Err(ForwardRejection::SpeedLimitForbidden {
                    per_ip: true,
                    change: true,
                });
            }
            return Ok(());
        }
        match self.speed_limit(requested_ip) {
            Some(id) => row.ip_speed_id = Some(id),
            None if body.ip_speed_id.is_some() => row.ip_speed_id = None,
            None => {}
        }
        Ok(())
    }

    /// The port of an edit: the one asked for, else the forward's lowest, else a free one.
    fn update_port(&self, body: &ForwardPayload, id: i64, entries: &[i64]) -> i64 {
        let port = GoText::int(&body.in_port, 0);
        if port > 0 {
            return port;
        }
        let lowest = self
            .store
            .ports_of(id)
            .iter()
            .map(|p| p.port)
            .min()
            .unwrap_or(0);
        if lowest > 0 {
            return lowest;
        }
        validate::pick_port(&self.store, self.nodes, entries)
    }

    /// An edit's cleanup around its sync: nodes kept across a tunnel switch
    /// lose the old services first, the sync runs (a failure rolls the rows
    /// back and re-syncs the old forward), then nodes the switch dropped are
    /// cleaned.
    fn switch_and_sync(
        &mut self,
        old: &ForwardRow,
        old_ports: &[ForwardPortRow],
        entries: &[i64],
    ) -> Result<(), ForwardRejection> {
        let switched = self
            .store
            .forward(old.id)
            .is_some_and(|f| f.tunnel_id != old.tunnel_id);
        // `forwardPortNodeIDs` (mutations.go:1110): rows without a node
        // name none.
        let mut old_nodes: Vec<i64> = Vec::new();
        for p in old_ports.iter().filter(|p| p.node_id > 0) {
            if !old_nodes.contains(&p.node_id) {
                old_nodes.push(p.node_id);
            }
        }
        let (removed, kept): (Vec<i64>, Vec<i64>) = if switched {
            old_nodes.iter().partition(|n| !entries.contains(n))
        } else {
            (vec![], vec![])
        };
        self.clean_nodes(old, &kept, "清理旧转发监听失败");
        let synced = self.sync(old.id);
        if let Some(e) = synced.error {
            // The server answers with the error alone; the rollback's own sync is not reported either.
            self.rollback(old, old_ports);
            self.warnings.clear();
            return Err(ForwardRejection::SyncFailed(e));
        }
        self.warnings.extend(synced.warnings);
        self.clean_nodes(old, &removed, "清理旧隧道残留服务失败");
        Ok(())
    }

    fn clean_nodes(&mut self, old: &ForwardRow, nodes: &[i64], what: &str) {
        for node_id in nodes {
            if let Err(e) = self.delete_on_node(old, *node_id) {
                let label = self
                    .nodes
                    .get(*node_id)
                    .map_or_else(|| node_id.to_string(), |n| n.name.clone());
                self.warnings.push(format!("节点 {label} {what}: {e}"));
            }
        }
    }

    /// `rollbackForwardMutation`: the old fields and rows back, and the old
    /// forward synced again (its answer ignored).
    fn rollback(&mut self, old: &ForwardRow, old_ports: &[ForwardPortRow]) {
        if let Some(f) = self.store.forward_mut(old.id) {
            *f = old.clone();
        }
        let entries: Vec<(i64, i64, String)> = old_ports
            .iter()
            .map(|p| (p.node_id, p.port, p.in_ip.clone().unwrap_or_default()))
            .collect();
        self.store.replace_ports(old.id, &entries);
        let _ = self.sync(old.id);
    }
}

/// The rows an edit stores: with `inIp` given, every entry gets it; after a
/// tunnel switch none; otherwise each node keeps its old bind IP
/// (`buildForwardPortEntriesWithPreservedInIP`).
fn port_entries(
    entries: &[i64],
    port: i64,
    in_ip: Option<String>,
    switched: bool,
    old_ports: &[ForwardPortRow],
) -> Vec<(i64, i64, String)> {
    let kept_ip = |node: i64| -> String {
        let mut ip = None::<String>;
        for p in old_ports.iter().filter(|p| p.node_id == node) {
            let this = p.in_ip.clone().unwrap_or_default();
            match &ip {
                None => ip = Some(this),
                Some(cur) if cur.trim().is_empty() && !this.trim().is_empty() => ip = Some(this),
                _ => {}
            }
        }
        ip.unwrap_or_default()
    };
    entries
        .iter()
        .map(|n| {
            let ip = match (&in_ip, switched) {
                (Some(ip), _) => ip.clone(),
                (None, true) => String::new(),
                (None, false) => kept_ip(*n),
            };
            (*n, port, ip)
        })
        .collect()
}
