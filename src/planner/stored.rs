//! The tunnel as the panel's database stores it (`tunnel`, `chain_tunnel`,
//! `node`, `federation_tunnel_binding` rows, column names of model.go), and
//! `reconstructTunnelState`: what a redeploy rebuilds from those rows.

use super::rejection::{Rejection, Result};
use super::state::TunnelState;
use crate::coerce::{from_tree, go_string, loose, Column, GoText};
use crate::forward::input::{
    ForwardPortRow, ForwardRow, ForwardTables, ForwardUser, SpeedLimitRow, UserTunnelRow,
};
use crate::json::tree::TreeValue;
use crate::limits::{Count, Limits};
use crate::model::{NodeColumns, NodeRecord, NodeRole, NodeTable, TunnelNode};
use serde::Deserialize;
use serde_json::Value;
use tsify_next::Tsify;

/// One `tunnel` row: what a redeploy and an audit read of it.
#[derive(Debug, Clone, PartialEq)]
pub struct TunnelRow {
    pub id: i64,
    pub name: Option<String>,
    pub kind: i64,
    pub status: i64,
    pub ip_preference: String,
}

/// One `chain_tunnel` row, as stored (SQL NULL = `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainRow {
    pub id: i64,
    pub tunnel_id: Option<i64>,
    /// The stored text (`"1"`, `"2"`, `"3"`); rows sort by it bytewise.
    pub chain_type: Option<String>,
    pub node_id: i64,
    pub port: Option<i64>,
    pub strategy: Option<String>,
    pub inx: Option<i64>,
    pub protocol: Option<String>,
    pub connect_ip: Option<String>,
}

/// One `federation_tunnel_binding` row, each column read as the server
/// reads it (`asInt`, `asString`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct BindingRow {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    #[serde(deserialize_with = "loose::int")]
    pub tunnel_id: i64,
    #[serde(deserialize_with = "loose::int")]
    pub node_id: i64,
    #[serde(deserialize_with = "loose::int")]
    pub chain_type: i64,
    #[serde(deserialize_with = "loose::int")]
    pub hop_inx: i64,
    #[serde(deserialize_with = "loose::string")]
    pub remote_url: String,
    #[serde(deserialize_with = "loose::string")]
    pub resource_key: String,
    #[serde(deserialize_with = "loose::int")]
    pub remote_binding_id: i64,
    #[serde(deserialize_with = "loose::int")]
    pub allocated_port: i64,
    #[serde(deserialize_with = "loose::int")]
    pub status: i64,
}

/// The stored rows of one tunnel.
#[derive(Debug, Clone)]
pub struct StoredTunnel {
    pub id: i64,
    pub kind: i64,
    pub ip_preference: String,
    pub chain_rows: Vec<ChainRow>,
    /// Active bindings, in the order the cleanup releases them.
    pub bindings: Vec<BindingRow>,
    pub nodes: NodeTable,
}

pub(super) fn nullable_string(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        other => Some(go_string(other)),
    }
}

pub(super) fn text_cell(v: &Option<String>) -> Value {
    v.clone().map_or(Value::Null, Value::String)
}

fn int_cell(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

/// The tables of a redeploy input's `db`, column names of model.go: each
/// table a list of rows (or one row object); columns the server does not
/// read are ignored.
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(default)]
pub struct StoredTables {
    /// `{id, name, type, ip_preference, ...}` (none: no such tunnel).
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow | DbRow[] | null")]
    pub tunnel: Vec<TunnelColumns>,
    /// `{id, tunnel_id, chain_type, node_id, port, strategy, inx, protocol, connect_ip}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub chain_tunnel: Vec<ChainColumns>,
    /// `{id, name, server_ip, server_ip_v4, server_ip_v6, port, tcp_listen_addr, interface_name, status, is_remote, remote_url, remote_token, remote_config, ...}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub node: Vec<NodeColumns>,
    /// `{tunnel_id, node_id, chain_type, hop_inx, remote_url, resource_key, remote_binding_id, allocated_port, status}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub federation_tunnel_binding: Vec<BindingRow>,
    /// The tunnel's forwards, re-synced after its redeploy: `{id, user_id,
    /// user_name, name, tunnel_id, remote_addr, strategy, in_flow, out_flow,
    /// status, inx, speed_id, max_conn, ip_max_conn, ip_speed_id, proxy_protocol}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub forward: Vec<ForwardRow>,
    /// `{id, forward_id, node_id, port, in_ip}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub forward_port: Vec<ForwardPortRow>,
    /// `{id, speed, ...}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub speed_limit: Vec<SpeedLimitRow>,
    /// `{id, user, role_id, max_conn, status, exp_time, flow, in_flow, out_flow, num, ...}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub user: Vec<ForwardUser>,
    /// `{id, user_id, tunnel_id, speed_id, num, flow, in_flow, out_flow, exp_time, status}`.
    #[serde(deserialize_with = "loose::rows")]
    #[tsify(type = "DbRow[]")]
    pub user_tunnel: Vec<UserTunnelRow>,
}

/// The tables a tunnel's own redeploy reads, each row read.
#[derive(Debug, Default)]
pub struct TunnelTables {
    pub tunnel: Vec<TunnelRow>,
    pub chain_tunnel: Vec<ChainRow>,
    pub federation_tunnel_binding: Vec<BindingRow>,
    pub node: Vec<NodeRecord>,
}

impl StoredTables {
    /// The tunnel's own tables and the forward tables its redeploy re-syncs.
    pub fn split(self) -> (TunnelTables, ForwardTables) {
        let tunnel = TunnelTables {
            tunnel: self
                .tunnel
                .into_iter()
                .map(|c| TunnelRow::from_columns(c, false))
                .collect(),
            chain_tunnel: self
                .chain_tunnel
                .into_iter()
                .map(|c| ChainRow::from_columns(c, None))
                .collect(),
            federation_tunnel_binding: self.federation_tunnel_binding,
            node: self
                .node
                .into_iter()
                .map(NodeRecord::from_columns)
                .collect(),
        };
        let forwards = ForwardTables {
            forward: self.forward,
            forward_port: self.forward_port,
            speed_limit: self.speed_limit,
            user: self.user,
            user_tunnel: self.user_tunnel,
        };
        (tunnel, forwards)
    }
}

/// The columns of a `tunnel` row, and of a backup export's tunnel (json
/// tags: the same names but `ipPreference`), each kept apart so that one
/// source's key never stands in for the other's.
#[derive(Debug, Default, Deserialize)]
pub struct TunnelColumns {
    id: Option<GoText>,
    name: Option<Column>,
    #[serde(rename = "type")]
    kind: Option<GoText>,
    status: Option<GoText>,
    ip_preference: Option<Column>,
    #[serde(rename = "ipPreference")]
    ip_preference_export: Option<Column>,
}

impl TunnelRow {
    fn read(row: &TreeValue<'_>, export: bool) -> TunnelRow {
        TunnelRow::from_columns(from_tree(row), export)
    }

    fn from_columns(c: TunnelColumns, export: bool) -> TunnelRow {
        let ip_preference = if export {
            c.ip_preference_export
        } else {
            c.ip_preference
        };
        TunnelRow {
            id: GoText::int(&c.id, 0),
            name: c.name.map(|n| n.0),
            kind: GoText::int(&c.kind, 0),
            status: GoText::int(&c.status, 0),
            ip_preference: ip_preference.map(|p| p.0).unwrap_or_default(),
        }
    }

    pub(crate) fn from_row(row: &TreeValue<'_>) -> TunnelRow {
        TunnelRow::read(row, false)
    }

    /// A tunnel of a backup export (`BackupData`'s json tags).
    pub(crate) fn from_export(item: &TreeValue<'_>) -> TunnelRow {
        TunnelRow::read(item, true)
    }

    /// The name as the panel shows it (trimmed).
    pub fn display_name(&self) -> String {
        self.name.as_deref().unwrap_or("").trim().to_string()
    }

    /// The row as the database stores it.
    pub fn to_row(&self) -> Value {
        crate::json::object([
            ("id", Value::from(self.id)),
            ("ip_preference", Value::String(self.ip_preference.clone())),
            ("name", text_cell(&self.name)),
            ("status", Value::from(self.status)),
            ("type", Value::from(self.kind)),
        ])
    }
}

/// The columns of a `chain_tunnel` row and of a backup export's
/// `chainTunnels` item (json tags: `chainType`, `nodeId`; the export omits
/// a port or `inx` of 0, NULL in the database, and leaves `connect_ip`
/// out), each kept apart so that one source's key never stands in for the
/// other's.
#[derive(Debug, Default, Deserialize)]
pub struct ChainColumns {
    id: Option<GoText>,
    tunnel_id: Option<GoText>,
    chain_type: Option<Column>,
    #[serde(rename = "chainType")]
    chain_type_export: Option<Column>,
    node_id: Option<GoText>,
    #[serde(rename = "nodeId")]
    node_id_export: Option<GoText>,
    port: Option<GoText>,
    strategy: Option<Column>,
    inx: Option<GoText>,
    protocol: Option<Column>,
    connect_ip: Option<Column>,
}

impl ChainRow {
    /// A row of the database (`export`: of a backup export, its tunnel
    /// given by its place there).
    fn read(row: &TreeValue<'_>, export: Option<i64>) -> ChainRow {
        ChainRow::from_columns(from_tree(row), export)
    }

    fn from_columns(c: ChainColumns, export: Option<i64>) -> ChainRow {
        let text = |v: Option<Column>| v.map(|t| t.0);
        match export {
            None => ChainRow {
                id: GoText::int(&c.id, 0),
                tunnel_id: GoText::nullable_int(&c.tunnel_id),
                chain_type: text(c.chain_type),
                node_id: GoText::int(&c.node_id, 0),
                port: GoText::nullable_int(&c.port),
                strategy: text(c.strategy),
                inx: GoText::nullable_int(&c.inx),
                protocol: text(c.protocol),
                connect_ip: text(c.connect_ip),
            },
            Some(tunnel_id) => {
                // An `omitempty` integer: absent (or 0) was NULL.
                let omitted = |v: &Option<GoText>| Some(GoText::int(v, 0)).filter(|n| *n != 0);
                ChainRow {
                    id: GoText::int(&c.id, 0),
                    tunnel_id: Some(tunnel_id),
                    chain_type: text(c.chain_type_export),
                    node_id: GoText::int(&c.node_id_export, 0),
                    port: omitted(&c.port),
                    strategy: text(c.strategy),
                    inx: omitted(&c.inx),
                    protocol: text(c.protocol),
                    connect_ip: None,
                }
            }
        }
    }

    pub(crate) fn from_row(row: &TreeValue<'_>) -> ChainRow {
        ChainRow::read(row, None)
    }

    /// A chain row of a backup export's tunnel `tunnel_id` (the row's own
    /// `tunnelId` is not what groups it: its place in the export is).
    pub(crate) fn from_export(item: &TreeValue<'_>, tunnel_id: i64) -> ChainRow {
        ChainRow::read(item, Some(tunnel_id))
    }

    /// The row as the database stores it.
    pub fn to_row(&self) -> Value {
        crate::json::object([
            ("chain_type", text_cell(&self.chain_type)),
            ("connect_ip", text_cell(&self.connect_ip)),
            ("id", Value::from(self.id)),
            ("inx", int_cell(self.inx)),
            ("node_id", Value::from(self.node_id)),
            ("port", int_cell(self.port)),
            ("protocol", text_cell(&self.protocol)),
            ("strategy", text_cell(&self.strategy)),
            ("tunnel_id", int_cell(self.tunnel_id)),
        ])
    }

    fn chain_type(&self) -> &str {
        self.chain_type.as_deref().unwrap_or("")
    }

    /// The tunnel node a chain row stands for, `None` for a row of no
    /// known chain type. Blank protocols and strategies read as the
    /// defaults; an entry has no port or connect IP of its own.
    fn tunnel_node(&self) -> Option<TunnelNode> {
        let role = match self.chain_type().trim().parse::<i64>() {
            Ok(1) => NodeRole::Entry,
            Ok(2) => NodeRole::Middle,
            Ok(3) => NodeRole::Exit,
            _ => return None,
        };
        let blank_default = |v: &Option<String>, def: &str| match v {
            Some(s) if !s.trim().is_empty() => s.clone(),
            _ => def.to_string(),
        };
        Some(TunnelNode {
            node_id: self.node_id,
            protocol: blank_default(&self.protocol, "tls"),
            strategy: blank_default(&self.strategy, "round"),
            port: if role == NodeRole::Entry {
                0
            } else {
                self.port.unwrap_or(0)
            },
            connect_ip: if role == NodeRole::Entry {
                String::new()
            } else {
                self.connect_ip.clone().unwrap_or_default()
            },
            role,
            hop: 0,
            inx: self.inx.unwrap_or(0),
            runtime_id: None,
        })
    }
}

impl BindingRow {
    pub(crate) fn from_row(row: &TreeValue<'_>) -> BindingRow {
        from_tree(row)
    }
}

/// Where a count of a tunnel's chain rows (its hops, the nodes of one) is named.
fn chain_rows() -> String {
    "/db/chain_tunnel".into()
}

impl StoredTunnel {
    /// Reads the rows of tunnel `tunnel_id` (default: the tunnel row's id,
    /// else the first chain row's, else 1) out of a redeploy's tables. No
    /// tunnel row: `隧道不存在`.
    pub fn read(tables: TunnelTables, tunnel_id: Option<i64>) -> Result<StoredTunnel> {
        StoredTunnel::from_rows(
            tables.tunnel,
            tables.chain_tunnel,
            tables.federation_tunnel_binding,
            tables.node,
            tunnel_id,
        )
    }

    /// [`StoredTunnel::read`] on rows of any source (a whole panel's, for
    /// one tunnel's audit).
    #[inline(never)]
    pub fn from_rows(
        tunnels: Vec<TunnelRow>,
        chain_rows: Vec<ChainRow>,
        bindings: Vec<BindingRow>,
        nodes: Vec<NodeRecord>,
        tunnel_id: Option<i64>,
    ) -> Result<StoredTunnel> {
        let id = tunnel_id
            .filter(|id| *id > 0)
            .or_else(|| tunnels.first().map(|t| t.id).filter(|id| *id > 0))
            .or_else(|| chain_rows.first().and_then(|r| r.tunnel_id))
            .unwrap_or(1);
        let row = tunnels
            .into_iter()
            .find(|t| t.id == id)
            .ok_or(Rejection::TunnelNotFound)?;
        let mut chain_rows: Vec<ChainRow> = chain_rows
            .into_iter()
            .filter(|r| r.tunnel_id.is_none_or(|t| t == id))
            .collect();
        // `ORDER BY chain_type, inx, id` as SQLite sorts: text bytewise, NULL first.
        crate::sorting::sort_by(&mut chain_rows, |a, b| {
            a.chain_type()
                .as_bytes()
                .cmp(b.chain_type().as_bytes())
                .then(a.inx.cmp(&b.inx))
                .then(a.id.cmp(&b.id))
        });
        let mut bindings: Vec<BindingRow> = bindings
            .into_iter()
            .filter(|b| b.tunnel_id == id && b.status == 1)
            .collect();
        crate::sorting::sort_by_key(&mut bindings, |b| (b.chain_type, b.hop_inx, b.id));
        Ok(StoredTunnel {
            id,
            kind: row.kind,
            ip_preference: row.ip_preference,
            chain_rows,
            bindings,
            nodes: NodeTable::new(nodes),
        })
    }

    /// The stored node rows against `limits.maxNodes`: a redeploy reads
    /// the whole `node` table, which no count of the input covers.
    pub fn node_rows_within(&self, limits: &Limits) -> Result<()> {
        let rows = self.nodes.rows().len();
        Ok(limits.count_within(Count::Nodes, rows, || "/db/node".into())?)
    }

    /// `reconstructTunnelState` (mutations.go:1497-1576) over
    /// `ListChainNodesForTunnel` and `splitChainNodeGroups`: entries and exits
    /// in row order, hop rows grouped by `inx`. Nothing else is checked but
    /// that each node has a row, and that the groups stay within `limits`
    /// (hops, nodes per hop), counted as the rows are grouped so that no
    /// group outgrows them.
    pub fn reconstruct(&self, limits: &Limits) -> Result<TunnelState> {
        let mut entries = Vec::new();
        let mut exits = Vec::new();
        let mut groups: Vec<(i64, Vec<TunnelNode>)> = Vec::new();
        for node in self.chain_rows.iter().filter_map(ChainRow::tunnel_node) {
            let group = match node.role {
                NodeRole::Entry => &mut entries,
                NodeRole::Exit => &mut exits,
                NodeRole::Middle => match hop_group(&mut groups, node.inx, limits)? {
                    Some(g) => g,
                    None => continue,
                },
            };
            group.push(node);
            limits.count_within(Count::HopNodes, group.len(), chain_rows)?;
        }
        let hops = numbered_hops(groups);
        for n in entries
            .iter()
            .chain(exits.iter())
            .chain(hops.iter().flatten())
        {
            if self.nodes.get(n.node_id).is_none() {
                return Err(Rejection::NodeNotFound);
            }
        }
        Ok(TunnelState {
            id: self.id,
            kind: self.kind,
            ip_preference: self.ip_preference.clone(),
            entries,
            hops,
            exits,
        })
    }
}

/// The group of the hop rows with `inx`, opened on the first of them (one
/// more hop, counted against `limits.maxHops`).
fn hop_group<'g>(
    groups: &'g mut Vec<(i64, Vec<TunnelNode>)>,
    inx: i64,
    limits: &Limits,
) -> Result<Option<&'g mut Vec<TunnelNode>>> {
    if !groups.iter().any(|(i, _)| *i == inx) {
        groups.push((inx, Vec::new()));
        limits.count_within(Count::Hops, groups.len(), chain_rows)?;
    }
    Ok(groups.iter_mut().find(|(i, _)| *i == inx).map(|(_, g)| g))
}

/// The hop groups in `inx` order, their nodes numbered with their hop
/// (1-based).
fn numbered_hops(mut groups: Vec<(i64, Vec<TunnelNode>)>) -> Vec<Vec<TunnelNode>> {
    crate::sorting::sort_by_key(&mut groups, |(inx, _)| *inx);
    groups
        .into_iter()
        .enumerate()
        .map(|(position, (_, mut g))| {
            for n in &mut g {
                n.hop = position as i64 + 1;
            }
            g
        })
        .collect()
}
