//! The rows the forward paths read and write, kept as the panel's database
//! holds them, with the repository's queries (store/repo/*.go) the server
//! runs on them.

use super::config::{ForwardDb, ForwardPortOut, ForwardRowOut};
use super::input::{ForwardPortRow, ForwardRow, ForwardUser, SpeedLimitRow, UserTunnelRow};
use litemap::LiteMap;
use std::collections::{BTreeMap, BTreeSet};

/// The tunnel a forward rides on, as stored.
#[derive(Debug, Clone)]
pub struct TunnelRow {
    pub id: i64,
    /// 2: tunnel forward (a chain); anything else: port forward.
    pub kind: i64,
    pub status: i64,
    /// Entry node ids (`chain_type` 1) in `inx, id` order.
    pub entries: Vec<i64>,
}

/// The tables.
#[derive(Debug, Clone, Default)]
pub struct Store {
    pub tunnels: Vec<TunnelRow>,
    /// By id, ascending.
    pub forwards: Vec<ForwardRow>,
    /// `forward_port` rows in id order (new rows take the next id); a
    /// deleted row's place stays, empty.
    port_rows: Vec<Option<ForwardPortRow>>,
    /// A forward's rows, as places in `port_rows`, in id order.
    by_forward: BTreeMap<i64, Vec<usize>>,
    /// `(node_id, port, forward_id, place)` of every row listed: who holds a
    /// node's ports. A deleted row's entry stays (its place is empty): the
    /// set only grows, and no removal is compiled for it.
    by_node: BTreeSet<(i64, i64, i64, usize)>,
    pub(crate) speeds: LiteMap<i64, i64>,
    pub(crate) users: LiteMap<i64, ForwardUser>,
    pub user_tunnels: Vec<UserTunnelRow>,
    /// `(node_id, port)` of every chain row with a port.
    pub chain_ports: Vec<(i64, i64)>,
    /// The tables' AUTOINCREMENT counters: ids are never reused.
    next_forward_id: i64,
    next_port_id: i64,
}

/// `ResolveUserTunnelAndLimiter`: the user's first grant of the tunnel
/// (0 when none) and its speed limit, when the limit row exists.
#[derive(Debug, Clone, Copy, Default)]
pub struct UserTunnelLimiter {
    pub user_tunnel_id: i64,
    pub limiter: Option<(i64, i64)>,
}

impl Store {
    pub fn new(
        forwards: Vec<ForwardRow>,
        ports: Vec<ForwardPortRow>,
        speed_limits: &[SpeedLimitRow],
        users: Vec<ForwardUser>,
        user_tunnels: Vec<UserTunnelRow>,
    ) -> Store {
        let mut store = Store {
            speeds: crate::sorting::sorted_map(
                speed_limits.iter().map(|s| (s.id, s.speed)).collect(),
            ),
            users: crate::sorting::sorted_map(users.into_iter().map(|u| (u.id, u)).collect()),
            user_tunnels,
            ..Store::default()
        };
        let mut forwards = forwards;
        crate::sorting::sort_by_key(&mut forwards, |f| f.id);
        let mut ports = ports;
        // Rows listed with their forward get the next ids, in input order.
        for f in &mut forwards {
            for mut p in std::mem::take(&mut f.ports) {
                p.forward_id = f.id;
                ports.push(p);
            }
        }
        let mut next = ports.iter().map(|p| p.id).max().unwrap_or(0);
        for p in &mut ports {
            if p.id <= 0 {
                next += 1;
                p.id = next;
            }
        }
        store.next_port_id = next;
        store.next_forward_id = forwards.iter().map(|f| f.id).max().unwrap_or(0);
        store.forwards = forwards;
        // By id; a repeated row id keeps the last row.
        let ports = crate::sorting::sorted_map(ports.into_iter().map(|p| (p.id, p)).collect());
        for (_, p) in ports {
            store.index_port(p);
        }
        store
    }

    /// Lists a row whose id is above every listed row's.
    fn index_port(&mut self, p: ForwardPortRow) {
        let at = self.port_rows.len();
        self.by_forward.entry(p.forward_id).or_default().push(at);
        self.by_node.insert((p.node_id, p.port, p.forward_id, at));
        self.port_rows.push(Some(p));
    }

    fn remove_ports_of(&mut self, forward_id: i64) {
        for at in self.by_forward.remove(&forward_id).unwrap_or_default() {
            if let Some(row) = self.port_rows.get_mut(at) {
                *row = None;
            }
        }
    }

    fn is_listed(&self, at: usize) -> bool {
        self.port_rows.get(at).is_some_and(Option::is_some)
    }

    pub fn tunnel(&self, id: i64) -> Option<&TunnelRow> {
        self.tunnels.iter().find(|t| t.id == id)
    }

    pub fn forward(&self, id: i64) -> Option<&ForwardRow> {
        self.forwards.iter().find(|f| f.id == id)
    }

    pub fn forward_mut(&mut self, id: i64) -> Option<&mut ForwardRow> {
        self.forwards.iter_mut().find(|f| f.id == id)
    }

    /// `ListForwardPorts`: a forward's rows by id.
    pub fn ports_of(&self, forward_id: i64) -> Vec<ForwardPortRow> {
        let rows = self
            .by_forward
            .get(&forward_id)
            .map_or(&[][..], Vec::as_slice);
        rows.iter()
            .filter_map(|&at| self.port_rows.get(at)?.clone())
            .collect()
    }

    /// `ListForwardsByTunnel`: by id.
    pub fn forwards_of_tunnel(&self, tunnel_id: i64) -> Vec<ForwardRow> {
        self.forwards
            .iter()
            .filter(|f| f.tunnel_id == tunnel_id)
            .cloned()
            .collect()
    }

    /// `GetSpeedLimitSpeed`.
    pub fn speed(&self, id: i64) -> Option<i64> {
        self.speeds.get(&id).copied()
    }

    pub fn user(&self, id: i64) -> Option<&ForwardUser> {
        self.users.get(&id)
    }

    /// `UserTunnelExistsByUserAndTunnel`: an active grant.
    pub fn has_active_grant(&self, user_id: i64, tunnel_id: i64) -> bool {
        self.user_tunnels
            .iter()
            .any(|u| u.user_id == user_id && u.tunnel_id == tunnel_id && u.status == 1)
    }

    /// `ListUserTunnelIDs` (`tunnel_id` given) or `ListUserTunnelIDsByUser`.
    pub fn user_tunnel_ids(&self, user_id: i64, tunnel_id: Option<i64>) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .user_tunnels
            .iter()
            .filter(|u| u.user_id == user_id && tunnel_id.is_none_or(|t| u.tunnel_id == t))
            .map(|u| u.id)
            .collect();
        ids.sort_unstable();
        ids
    }

    pub fn user_tunnel(&self, id: i64) -> Option<&UserTunnelRow> {
        self.user_tunnels.iter().find(|u| u.id == id)
    }

    pub fn resolve_user_tunnel(&self, user_id: i64, tunnel_id: i64) -> UserTunnelLimiter {
        let Some(ut) = self
            .user_tunnels
            .iter()
            .filter(|u| u.user_id == user_id && u.tunnel_id == tunnel_id)
            .min_by_key(|u| u.id)
        else {
            return UserTunnelLimiter::default();
        };
        let limiter = ut
            .speed_id
            .and_then(|id| Some((id, self.speed(id)?)))
            .filter(|(id, _)| *id > 0);
        UserTunnelLimiter {
            user_tunnel_id: ut.id,
            limiter,
        }
    }

    /// `CountActiveForwardsByUser` / `...ByUserTunnel`.
    pub fn active_forwards(&self, user_id: i64, tunnel_id: Option<i64>) -> i64 {
        self.forwards
            .iter()
            .filter(|f| f.user_id == user_id && f.status == 1)
            .filter(|f| tunnel_id.is_none_or(|t| f.tunnel_id == t))
            .count() as i64
    }

    /// `HasOtherForwardOnNodePort`.
    pub fn port_taken(&self, node_id: i64, port: i64, forward_id: i64) -> bool {
        node_id > 0
            && port > 0
            && self
                .by_node
                .range((node_id, port, i64::MIN, 0)..=(node_id, port, i64::MAX, usize::MAX))
                .any(|&(_, _, f, at)| f != forward_id && self.is_listed(at))
    }

    /// `(node_id, port)` of every `forward_port` row listed.
    pub fn held_ports(&self) -> Vec<(i64, i64)> {
        let listed = self
            .by_node
            .iter()
            .filter(|&&(_, _, _, at)| self.is_listed(at));
        listed.map(|&(node, port, _, _)| (node, port)).collect()
    }

    /// `GetUsedPortsOnNodeAsMap`: forward ports and chain ports of the node.
    pub fn used_ports(&self, node_id: i64) -> Vec<i64> {
        let all = (node_id, i64::MIN, i64::MIN, 0)..=(node_id, i64::MAX, i64::MAX, usize::MAX);
        let forwards = self
            .by_node
            .range(all)
            .filter(|&&(_, _, _, at)| self.is_listed(at))
            .map(|&(_, port, _, _)| port);
        let chains = self
            .chain_ports
            .iter()
            .filter(|(n, p)| *n == node_id && *p > 0)
            .map(|(_, p)| *p);
        let mut used: Vec<i64> = forwards.chain(chains).collect();
        used.sort_unstable();
        used.dedup();
        used
    }

    /// `NextIndex("forward")`: one below the smallest `inx`, 0 for none.
    pub fn next_forward_inx(&self) -> i64 {
        self.forwards
            .iter()
            .min_by_key(|f| (f.inx, f.id))
            .map_or(0, |f| f.inx - 1)
    }

    /// Inserts a forward with the table's next id.
    pub fn insert_forward(&mut self, mut row: ForwardRow) -> i64 {
        self.next_forward_id += 1;
        row.id = self.next_forward_id;
        let id = row.id;
        self.forwards.push(row);
        id
    }

    pub fn insert_port(&mut self, forward_id: i64, node_id: i64, port: i64, in_ip: Option<String>) {
        self.next_port_id += 1;
        self.index_port(ForwardPortRow {
            id: self.next_port_id,
            forward_id,
            node_id,
            port,
            in_ip,
        });
    }

    /// `ReplaceForwardPorts`: the forward's rows deleted, then `entries`
    /// (`(node, port, in_ip)`) inserted with new ids.
    pub fn replace_ports(&mut self, forward_id: i64, entries: &[(i64, i64, String)]) {
        self.remove_ports_of(forward_id);
        for (node, port, in_ip) in entries {
            let in_ip = (!in_ip.is_empty()).then(|| in_ip.clone());
            self.insert_port(forward_id, *node, *port, in_ip);
        }
    }

    /// `deleteForwardByID`'s rows.
    pub fn delete_forward(&mut self, id: i64) {
        self.forwards.retain(|f| f.id != id);
        self.remove_ports_of(id);
    }

    /// The rows of the tunnel's forwards, as the vectors list them.
    pub fn tunnel_rows(&self, tunnel_id: i64) -> ForwardDb {
        let forwards = self.forwards_of_tunnel(tunnel_id);
        let mut rows: Vec<ForwardPortRow> =
            forwards.iter().flat_map(|f| self.ports_of(f.id)).collect();
        sort_by_id(&mut rows);
        let forward_port = rows
            .iter()
            .map(|p| ForwardPortOut {
                id: p.id,
                forward_id: p.forward_id,
                node_id: p.node_id,
                port: p.port,
                in_ip: p.in_ip.clone(),
            })
            .collect();
        ForwardDb {
            forward: forwards.iter().map(row_out).collect(),
            forward_port,
        }
    }
}

fn sort_by_id(rows: &mut [ForwardPortRow]) {
    crate::sorting::sort_by_key(rows, |p| p.id);
}

fn row_out(f: &ForwardRow) -> ForwardRowOut {
    ForwardRowOut {
        id: f.id,
        user_id: f.user_id,
        user_name: f.user_name.clone(),
        name: f.name.clone(),
        tunnel_id: f.tunnel_id,
        // As stored, but a target's credentials never leave the preview.
        remote_addr: crate::redact::scrub_targets(&f.remote_addr)
            .unwrap_or_else(|| f.remote_addr.clone()),
        strategy: f.strategy.clone(),
        in_flow: f.in_flow,
        out_flow: f.out_flow,
        status: f.status,
        inx: f.inx,
        speed_id: f.speed_id,
        max_conn: f.max_conn,
        ip_max_conn: f.ip_max_conn,
        ip_speed_id: f.ip_speed_id,
        proxy_protocol: f.proxy_protocol,
    }
}
