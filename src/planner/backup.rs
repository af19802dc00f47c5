//! A panel's stored tunnels, from either of its two sources, as the rows
//! a redeploy rebuilds each tunnel from:
//!
//! * its backup export (`POST /backup/export`: `{version, exportedAt, nodes,
//!   tunnels, ...}`, json tags of model.go's `BackupData`), which leaves out
//!   chain rows' `connect_ip` and every federation binding, so a tunnel read
//!   from it redeploys with no connect IPs and nothing to release, and each
//!   tunnel's `assumed` list says so;
//! * its database (`{node, tunnel, chain_tunnel, federation_tunnel_binding}`,
//!   each a list of rows with model.go's column names), which carries both.
//!
//! Either is read once into [`Tables`]: every row as the planner reads it
//! (`NodeRecord`, `TunnelRow`, `ChainRow`, `BindingRow`), beside the row as the
//! source holds it. [`each_tunnel_rows`] groups them by tunnel; an audit plans
//! from the typed rows, and [`each_tunnel`] prints each tunnel's rows as the
//! database stores them, for a redeploy input. Credentials are not carried
//! over into an input: node secrets are dropped, each distinct share token
//! becomes a pseudonym (`share-1`, `share-2`, ...), so nodes of one share stay
//! one share without the token leaving this module, remote URLs lose their
//! userinfo and secret parameters ([`UrlNames`]) and a `remote_config` its
//! secret values (`redact::redact_json_text`).

use super::stored::{nullable_string, text_cell, BindingRow, ChainRow, TunnelRow};
use crate::coerce::{go_int, go_string, tree_rows};
use crate::error::ApiError;
use crate::forward::input::ForwardTables;
use crate::json::object;
use crate::json::tree::{Arena, TreeObject, TreeValue};
use crate::model::{NodeRecord, NodeSource, NODE_KEYS};
use crate::redact;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

crate::encode::shape! {
    #[doc = " One tunnel of a backup: its redeploy input and what the backup could not say."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct BackupTunnel {
        pub id: i64 => "id",
        pub name: String => "name",
        pub kind: i64 => "type",
        #[doc = " `{db: {tunnel, chain_tunnel, node}, tunnelId}`, for `planTunnel(input, {mode: 'redeploy'})`."]
        pub input: Value => "input": "RedeployInput",
        #[doc = " What the redeploy assumes because the export does not carry it."]
        pub assumed: Vec<String> => "assumed",
    }
}

/// A backup's node as its `node` row: integers where the column is one in
/// [`COLUMNS`] (missing is 0), text as given otherwise (missing is NULL);
/// each column under the export's key for it ([`NODE_KEYS`]).
/// A backup's node as the database stores it.
fn node_row_of(item: &TreeValue<'_>) -> Map<String, Value> {
    let mut row = Map::new();
    for &(column, key) in NODE_KEYS {
        let v = item.get(key).map(|v| crate::encode::to_value(v));
        let v = v.as_ref();
        let integer = COLUMNS[0].1.iter().any(|&(c, kind)| {
            c == column && matches!(kind, Column::Integer | Column::IntegerOrNull)
        });
        let cell = match integer {
            true => Value::from(go_int(v, 0)),
            false => text_cell(&nullable_string(v)),
        };
        row.insert(column.to_string(), cell);
    }
    row
}

/// Where a panel's rows came from: what the source leaves out is what a
/// redeploy from it has to assume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Backup,
    Database,
}

/// One row of a panel's table: as the planner reads it, and as its source
/// holds it (a database row, or a backup's object with the export's keys).
#[derive(Debug)]
pub struct Row<'a, T> {
    pub read: T,
    pub(crate) stored: &'a TreeValue<'a>,
}

/// Each stored row with what `read` makes of it.
fn rows<'a, T>(
    list: Vec<&'a TreeValue<'a>>,
    read: impl Fn(&TreeValue<'_>) -> T,
) -> Vec<Row<'a, T>> {
    list.into_iter()
        .map(|stored| Row {
            read: read(stored),
            stored,
        })
        .collect()
}

/// The rows of a panel's tables a redeploy reads.
#[derive(Debug)]
pub struct Tables<'a> {
    pub source: Source,
    pub node: Vec<Row<'a, NodeRecord>>,
    pub tunnel: Vec<Row<'a, TunnelRow>>,
    pub chain_tunnel: Vec<Row<'a, ChainRow>>,
    pub federation_tunnel_binding: Vec<Row<'a, BindingRow>>,
    /// `forward`, `forward_port`, `speed_limit`, `user`, `user_tunnel`, as
    /// the forward sync reads them: what `redeployTunnelAndForwards`
    /// (mutations.go:1617) syncs after each tunnel. Empty where the source
    /// has none (a dump of the four tunnel tables only).
    pub forwards: ForwardTables,
}

/// The type a column must have (SQL NULL is JSON `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Integer,
    IntegerOrNull,
    Text,
    TextOrNull,
}

impl Column {
    fn accepts(self, v: &TreeValue<'_>) -> bool {
        let integer = v.as_i64().is_some();
        match self {
            Column::Integer => integer,
            Column::IntegerOrNull => integer || v.is_null(),
            Column::Text => v.is_string(),
            Column::TextOrNull => v.is_string() || v.is_null(),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Column::Integer => "an integer",
            Column::IntegerOrNull => "an integer or NULL",
            Column::Text => "text",
            Column::TextOrNull => "text or NULL",
        }
    }
}

/// The columns of each table a redeploy reads, with their types in model.go
/// (a `sql.Null*` field may be NULL). Other columns are ignored.
const COLUMNS: [(&str, &[(&str, Column)]); 4] = [
    (
        "node",
        &[
            ("id", Column::Integer),
            ("name", Column::Text),
            ("server_ip", Column::Text),
            ("server_ip_v4", Column::TextOrNull),
            ("server_ip_v6", Column::TextOrNull),
            ("port", Column::Text),
            ("interface_name", Column::TextOrNull),
            ("status", Column::Integer),
            ("tcp_listen_addr", Column::Text),
            ("udp_listen_addr", Column::Text),
            ("is_remote", Column::IntegerOrNull),
            ("remote_url", Column::TextOrNull),
            ("remote_token", Column::TextOrNull),
            ("remote_config", Column::TextOrNull),
        ],
    ),
    (
        "tunnel",
        &[
            ("id", Column::Integer),
            ("name", Column::Text),
            ("type", Column::Integer),
            ("status", Column::Integer),
            ("ip_preference", Column::Text),
        ],
    ),
    (
        "chain_tunnel",
        &[
            ("id", Column::Integer),
            ("tunnel_id", Column::Integer),
            ("chain_type", Column::Text),
            ("node_id", Column::Integer),
            ("port", Column::IntegerOrNull),
            ("strategy", Column::TextOrNull),
            ("inx", Column::IntegerOrNull),
            ("protocol", Column::TextOrNull),
            ("connect_ip", Column::TextOrNull),
        ],
    ),
    (
        "federation_tunnel_binding",
        &[
            ("id", Column::Integer),
            ("tunnel_id", Column::Integer),
            ("node_id", Column::Integer),
            ("chain_type", Column::Integer),
            ("hop_inx", Column::Integer),
            ("remote_url", Column::Text),
            ("resource_key", Column::Text),
            ("remote_binding_id", Column::Text),
            ("allocated_port", Column::Integer),
            ("status", Column::Integer),
        ],
    ),
];

fn json_type(v: &TreeValue<'_>) -> &'static str {
    match v {
        TreeValue::Null => "NULL",
        TreeValue::Bool(_) => "a boolean",
        TreeValue::Num(n) if n.is_f64() => "a non-integer number",
        TreeValue::Num(_) => "an integer",
        TreeValue::Str(_) => "text",
        TreeValue::Arr(_) => "a list",
        TreeValue::Object(_) => "an object",
    }
}

impl<'a> Tables<'a> {
    /// Reads `{node, tunnel, chain_tunnel, federation_tunnel_binding}` (each
    /// a list of rows), checking every column a redeploy reads. An error names
    /// the table, the row's id and the column.
    pub(crate) fn read(db: &'a TreeValue<'a>) -> Result<Tables<'a>, ApiError> {
        let Some(db) = db.as_object() else {
            return Err(ApiError::new(
                "IN001",
                "a panel's database rows must be an object {node, tunnel, chain_tunnel, federation_tunnel_binding}",
                "",
            ));
        };
        let missing: Vec<&str> = COLUMNS
            .iter()
            .map(|(table, _)| *table)
            .filter(|table| !db.contains_key(table))
            .collect();
        if !missing.is_empty() {
            return Err(ApiError::new(
                "IN001",
                format!(
                    "not the panel's database: no table {} (it has node, tunnel, chain_tunnel, federation_tunnel_binding)",
                    missing.join(", ")
                ),
                "",
            ));
        }
        let mut read: [Vec<&'a TreeValue<'a>>; 4] = Default::default();
        for (&(table, columns), out) in COLUMNS.iter().zip(read.iter_mut()) {
            let Some(items) = db.get(table).and_then(TreeValue::as_array) else {
                return Err(ApiError::new(
                    "IN001",
                    format!("table {table} must be a list of rows"),
                    format!("/{table}"),
                ));
            };
            let mut rows = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let Some(row) = item.as_object() else {
                    return Err(ApiError::new(
                        "IN001",
                        format!("table {table}, row {}: a row must be an object", index + 1),
                        format!("/{table}/{index}"),
                    ));
                };
                for &(column, kind) in columns {
                    let Some(value) = row.get(column) else {
                        return Err(ApiError::new(
                            "IN001",
                            format!("table {table} has no column {column} (model.go names it)"),
                            format!("/{table}/{index}"),
                        ));
                    };
                    if !kind.accepts(value) {
                        return Err(column_error(table, index, row, column, kind, value));
                    }
                }
                rows.push(item);
            }
            *out = rows;
        }
        let [node, tunnel, chain_tunnel, federation_tunnel_binding] = read;
        let forwards = ForwardTables {
            forward: typed_rows(db, "forward")?,
            forward_port: typed_rows(db, "forward_port")?,
            speed_limit: typed_rows(db, "speed_limit")?,
            user: typed_rows(db, "user")?,
            user_tunnel: typed_rows(db, "user_tunnel")?,
        };
        Ok(Tables {
            source: Source::Database,
            node: rows(node, |r| NodeRecord::from_row(r, NodeSource::Database)),
            tunnel: rows(tunnel, TunnelRow::from_row),
            chain_tunnel: rows(chain_tunnel, ChainRow::from_row),
            federation_tunnel_binding: rows(federation_tunnel_binding, BindingRow::from_row),
            forwards,
        })
    }

    /// Reads a backup export: its nodes, its tunnels and their `chainTunnels`.
    /// The export writes `version` always and leaves an empty list out
    /// (`omitempty`): a panel without tunnels has no `tunnels` key. A partial
    /// export (`types` without "nodes") has tunnels but no nodes to plan them
    /// on; that is refused, not planned as if every node had been deleted.
    pub(crate) fn from_backup(backup: &'a TreeValue<'a>) -> Result<Tables<'a>, ApiError> {
        let Some(obj) = backup.as_object() else {
            return Err(ApiError::new(
                "IN001",
                "a panel backup must be a JSON object {version, exportedAt, nodes, tunnels, ...}",
                "",
            ));
        };
        if !obj.contains_key("version") {
            return Err(ApiError::new("IN001", "not a panel backup: the key \"version\" is missing (a backup export has version, exportedAt, nodes, tunnels)", ""));
        }
        for key in ["nodes", "tunnels"] {
            if !matches!(
                obj.get(key),
                None | Some(TreeValue::Arr(_)) | Some(TreeValue::Null)
            ) {
                return Err(ApiError::new(
                    "IN001",
                    format!("not a panel backup: {key} must be a list"),
                    format!("/{key}"),
                ));
            }
        }
        let mut tunnel = Vec::new();
        let mut chain_tunnel = Vec::new();
        for stored in tree_rows(obj.get("tunnels")) {
            let read = TunnelRow::from_export(stored);
            for c in tree_rows(stored.get("chainTunnels")) {
                chain_tunnel.push(Row {
                    read: ChainRow::from_export(c, read.id),
                    stored: c,
                });
            }
            tunnel.push(Row { read, stored });
        }
        if !chain_tunnel.is_empty() && !obj.contains_key("nodes") {
            return Err(ApiError::new(
                "IN001",
                "this backup has tunnels but no nodes to plan them on: the key \"nodes\" is missing (a partial export; export the nodes with the tunnels, or everything)",
                "",
            ));
        }
        let node = rows(tree_rows(obj.get("nodes")), |r| {
            NodeRecord::from_row(r, NodeSource::Backup)
        });
        let mut forwards = ForwardTables {
            forward: typed_rows(obj, "forwards")?,
            forward_port: Vec::new(),
            speed_limit: typed_rows(obj, "speedLimits")?,
            user: typed_rows(obj, "users")?,
            user_tunnel: typed_rows(obj, "userTunnels")?,
        };
        as_imported(&mut forwards);
        Ok(Tables {
            source: Source::Backup,
            node,
            tunnel,
            chain_tunnel,
            federation_tunnel_binding: Vec::new(),
            forwards,
        })
    }

    /// A panel's tables, from its backup export or its database rows (told
    /// apart by the backup's `version` key and the database's `chain_tunnel`
    /// table).
    pub(crate) fn of_panel(doc: &'a TreeValue<'a>) -> Result<Tables<'a>, ApiError> {
        match doc {
            TreeValue::Object(o)
                if o.contains_key("chain_tunnel") && !o.contains_key("version") =>
            {
                Tables::read(doc)
            }
            _ => Tables::from_backup(doc),
        }
    }
}

/// The rows of `table` (a key of `source`: a database table, or a backup's
/// list), each read as `T` the way the server reads its columns; absent or
/// NULL is none. An error names the table and the row.
fn typed_rows<T: serde::de::DeserializeOwned>(
    source: &TreeObject<'_>,
    table: &str,
) -> Result<Vec<T>, ApiError> {
    let items = match source.get(table) {
        None | Some(TreeValue::Null) => return Ok(Vec::new()),
        Some(TreeValue::Arr(items)) => items,
        Some(_) => {
            return Err(ApiError::new(
                "IN001",
                format!("table {table} must be a list of rows"),
                format!("/{table}"),
            ))
        }
    };
    let row = |(index, item): (usize, &TreeValue<'_>)| {
        T::deserialize(item).map_err(|e| {
            ApiError::new(
                "IN001",
                format!("table {table}, row {}: {e}", index + 1),
                format!("/{table}/{index}"),
            )
        })
    };
    items.iter().enumerate().map(row).collect()
}

/// A backup's forward rows as an import stores them (repository.go
/// `importForwards`, `importUserTunnels`): a speed limit id that is not
/// positive is NULL; each forward's `forwardPorts` (node and port only)
/// become `forward_port` rows with the next ids, in export order, and no
/// `in_ip` (NULL).
fn as_imported(tables: &mut ForwardTables) {
    let positive = |id: Option<i64>| id.filter(|id| *id > 0);
    for f in &mut tables.forward {
        f.speed_id = positive(f.speed_id);
        f.ip_speed_id = positive(f.ip_speed_id);
        for mut p in std::mem::take(&mut f.ports) {
            p.forward_id = f.id;
            p.id = tables.forward_port.len() as i64 + 1;
            tables.forward_port.push(p);
        }
    }
    for g in &mut tables.user_tunnel {
        g.speed_id = positive(g.speed_id);
    }
}

/// Why `value`, column `column` of row `index` of `table`, is not of the column's type.
#[inline(never)]
fn column_error(
    table: &str,
    index: usize,
    row: &TreeObject<'_>,
    column: &str,
    kind: Column,
    value: &TreeValue<'_>,
) -> ApiError {
    let id = match row.get("id").and_then(TreeValue::as_i64) {
        Some(id) => id.to_string(),
        None => format!("#{}", index + 1),
    };
    let integer = matches!(kind, Column::Integer | Column::IntegerOrNull);
    let message = match value {
        // A whole number the column cannot hold: its type is right, its size
        // is not (an integer column is never a credential, so it is shown).
        TreeValue::Num(n) if integer && whole_beyond_i64(n) => format!(
            "table {table}, row id {id}: column {column} must be an integer that fits in 64 bits, not {value}"
        ),
        _ => format!(
            "table {table}, row id {id}: column {column} must be {}, not {}",
            kind.describe(),
            json_type(value)
        ),
    };
    ApiError::new("IN001", message, format!("/{table}/{index}/{column}"))
}

/// A whole number outside `i64`: above it as an integer, or read as a
/// float because it was too long for 64 bits.
fn whole_beyond_i64(n: &serde_json::Number) -> bool {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if n.is_u64() {
        return n.as_i64().is_none();
    }
    n.as_f64()
        .is_some_and(|f| n.is_f64() && f.fract() == 0.0 && !(-LIMIT..LIMIT).contains(&f))
}

/// A node row as a redeploy input carries it: no secret, the share token
/// (trimmed, as the server compares them) replaced by its pseudonym, the
/// remote URL and config scrubbed, any other URL in it redacted.
/// Only the columns a redeploy reads are carried (`COLUMNS`), so no other
/// column of the database (the node's `secret` among them) reaches the input.
fn redacted_node(
    cell: impl Fn(&str) -> Option<Value>,
    pseudonyms: &mut std::collections::BTreeMap<String, usize>,
    urls: &mut UrlNames,
) -> Value {
    let mut out = Map::new();
    for (column, _) in COLUMNS[0].1 {
        let Some(value) = cell(column) else {
            continue;
        };
        let value = &value;
        let value = if *column == "remote_token" {
            let token = go_string(Some(value));
            if token.is_empty() {
                Value::Null
            } else {
                let next = pseudonyms.len() + 1;
                let k = *pseudonyms.entry(token).or_insert(next);
                Value::String(format!("share-{k}"))
            }
        } else {
            match (*column, value) {
                ("remote_url", Value::String(url)) => Value::String(urls.of(url)),
                ("remote_config", Value::String(text)) => match redact::redact_json_text(text) {
                    Some(clean) => Value::String(clean),
                    None => value.clone(),
                },
                // An address may hold a URL with userinfo too.
                _ => redact::redact(value),
            }
        };
        out.insert((*column).to_string(), value);
    }
    Value::Object(out)
}

/// A binding row as a redeploy input carries it: redacted, with its
/// provider's URL shown as its node's is.
fn redacted_binding(row: &TreeValue<'_>, urls: &mut UrlNames) -> Value {
    let mut out = redacted(row);
    if let (Some(TreeValue::Str(url)), Value::Object(out)) = (row.get("remote_url"), &mut out) {
        out.insert("remote_url".into(), Value::String(urls.of(url)));
    }
    out
}

/// Remote URLs as a redeploy input shows them: without userinfo or secret
/// parameter values (`redact::scrub_url`). The planner tells provider panels
/// apart by URL, so two URLs that differ only in what is scrubbed stay two:
/// the first is marked `[redacted]`, the next `[redacted-2]`, and so on.
#[derive(Default)]
struct UrlNames {
    /// Each URL met, with how it is shown.
    shown: std::collections::BTreeMap<String, String>,
    taken: std::collections::BTreeSet<String>,
}

impl UrlNames {
    fn of(&mut self, url: &str) -> String {
        if let Some(s) = self.shown.get(url) {
            return s.clone();
        }
        let shown = match redact::scrub_url(url) {
            None => url.to_string(),
            Some(first) => {
                // Each mark gives another text, so one of them is free.
                let mut shown = first;
                let mut k = 1;
                while self.taken.contains(&shown) {
                    k += 1;
                    let mark = format!("[redacted-{k}]");
                    shown = redact::scrub_url_as(url, &mark).unwrap_or(mark);
                }
                shown
            }
        };
        self.taken.insert(shown.clone());
        self.shown.insert(url.to_string(), shown.clone());
        shown
    }
}

/// One tunnel's rows in a panel's tables: references, nothing copied.
pub struct TunnelRows<'t, 'a> {
    pub tunnel: &'t Row<'a, TunnelRow>,
    pub chains: Vec<&'t Row<'a, ChainRow>>,
    pub bindings: Vec<&'t Row<'a, BindingRow>>,
    /// Its nodes (its chain rows' and its forwards' ports'), as positions in
    /// [`Tables::node`], in table order, each once.
    pub nodes: Vec<usize>,
    /// Its forwards with the rows their sync reads ([`forwards_by_tunnel`]).
    pub forwards: ForwardTables,
    /// What a redeploy from this source assumes for this tunnel.
    pub assumed: Vec<String>,
}

impl TunnelRows<'_, '_> {
    pub fn id(&self) -> i64 {
        self.tunnel.read.id
    }

    pub fn name(&self) -> String {
        self.tunnel.read.display_name()
    }

    /// The tunnel's `type`.
    pub fn kind(&self) -> i64 {
        self.tunnel.read.kind
    }
}

/// Each of `table`'s rows by the position of its tunnel (`tunnel_at`), in table order.
fn by_tunnel<'t, T>(
    tunnel_at: &BTreeMap<i64, usize>,
    tunnels: usize,
    table: &'t [T],
    tunnel_of: impl Fn(&T) -> i64,
) -> Vec<Vec<&'t T>> {
    let mut of: Vec<Vec<&'t T>> = (0..tunnels).map(|_| Vec::new()).collect();
    for row in table {
        if let Some(rows) = tunnel_at.get(&tunnel_of(row)).and_then(|k| of.get_mut(*k)) {
            rows.push(row);
        }
    }
    of
}

/// Each tunnel's forwards (by the tunnel's position) with the rows their
/// sync reads (control_plane.go:210-378): their ports, the tunnel's grants,
/// the users of either and the speed limits any of them names. A tunnel
/// without forwards gets none of them.
fn forwards_by_tunnel(
    all: &ForwardTables,
    tunnel_at: &BTreeMap<i64, usize>,
    tunnels: usize,
) -> Vec<ForwardTables> {
    let mut of: Vec<ForwardTables> = (0..tunnels).map(|_| ForwardTables::default()).collect();
    let mut forward_at = BTreeMap::<i64, usize>::default();
    for f in &all.forward {
        if let Some((k, t)) = tunnel_at
            .get(&f.tunnel_id)
            .and_then(|&k| Some((k, of.get_mut(k)?)))
        {
            forward_at.entry(f.id).or_insert(k);
            t.forward.push(f.clone());
        }
    }
    for p in &all.forward_port {
        if let Some(t) = forward_at.get(&p.forward_id).and_then(|&k| of.get_mut(k)) {
            t.forward_port.push(p.clone());
        }
    }
    for g in &all.user_tunnel {
        if let Some(t) = tunnel_at.get(&g.tunnel_id).and_then(|&k| of.get_mut(k)) {
            t.user_tunnel.push(g.clone());
        }
    }
    let users = position_by_id(all.user.iter().map(|u| u.id));
    let speeds = position_by_id(all.speed_limit.iter().map(|s| s.id));
    for t in &mut of {
        if t.forward.is_empty() {
            t.user_tunnel.clear();
            continue;
        }
        let user_ids = t.forward.iter().map(|f| f.user_id);
        let user_ids = user_ids.chain(t.user_tunnel.iter().map(|g| g.user_id));
        t.user = picked(user_ids, &users, &all.user);
        let speed_ids = t.forward.iter().flat_map(|f| [f.speed_id, f.ip_speed_id]);
        let speed_ids = speed_ids.chain(t.user_tunnel.iter().map(|g| g.speed_id));
        t.speed_limit = picked(speed_ids.flatten(), &speeds, &all.speed_limit);
    }
    of
}

/// Each id's position among `ids` (a repeated id: its last row, as a table
/// read by id keeps one).
fn position_by_id(ids: impl Iterator<Item = i64>) -> BTreeMap<i64, usize> {
    // Inserted one by one: `collect` sorts first, a sort compiled per caller.
    let mut positions = BTreeMap::new();
    for (at, id) in ids.enumerate() {
        positions.insert(id, at);
    }
    positions
}

/// The rows of `table` named by `ids`, in id order, each once.
fn picked<T: Clone>(
    ids: impl Iterator<Item = i64>,
    at: &BTreeMap<i64, usize>,
    table: &[T],
) -> Vec<T> {
    let mut ids: Vec<i64> = ids.collect();
    ids.sort_unstable();
    ids.dedup();
    ids.iter()
        .filter_map(|id| at.get(id).and_then(|&k| table.get(k)).cloned())
        .collect()
}

/// What a redeploy from `source` assumes for a tunnel: what the source
/// leaves out, and for its forwards, what only the agents know.
fn assumed_of(source: Source, federated: bool, forwards: &ForwardTables) -> Vec<String> {
    let mut assumed = Vec::new();
    if source == Source::Backup {
        assumed.push(
            "no chain row has a custom connect IP (the export leaves connect_ip out)".to_string(),
        );
        if federated {
            assumed.push("no federation binding to release, and each provider answers as a fresh one would (the export leaves bindings out)".into());
        }
    } else if federated {
        assumed.push(
            "each provider answers as a fresh one would (its own tables are on the provider panel)"
                .into(),
        );
    }
    if forwards.forward.is_empty() {
        return assumed;
    }
    if source == Source::Backup {
        assumed.push("each forward port listens on its node's default address, and no forward or user has a connection limit (the export leaves forward_port.in_ip and max_conn out)".into());
    }
    assumed.push("every entry node is online and runs a current agent that holds none of the forwards' limiters yet (one it holds answers \"already exists\" and is updated instead)".into());
    assumed
}

/// Each tunnel's rows, in the tunnel table's order. A tunnel id's first row
/// owns every row of that id; a node id's last row is the node.
pub fn each_tunnel_rows<'t, 'a>(tables: &'t Tables<'a>, f: &mut dyn FnMut(TunnelRows<'t, 'a>)) {
    let mut node_at = BTreeMap::<i64, usize>::default();
    for (i, n) in tables.node.iter().enumerate() {
        node_at.insert(n.read.id, i);
    }
    let mut tunnel_at = BTreeMap::<i64, usize>::default();
    for (k, t) in tables.tunnel.iter().enumerate().rev() {
        tunnel_at.insert(t.read.id, k);
    }
    let tunnels = tables.tunnel.len();
    let mut chains_of = by_tunnel(&tunnel_at, tunnels, &tables.chain_tunnel, |r| {
        r.read.tunnel_id.unwrap_or(0)
    });
    let mut bindings_of = by_tunnel(
        &tunnel_at,
        tunnels,
        &tables.federation_tunnel_binding,
        |r| r.read.tunnel_id,
    );
    let mut forwards_of = forwards_by_tunnel(&tables.forwards, &tunnel_at, tunnels);
    for (k, t) in tables.tunnel.iter().enumerate() {
        let chains = chains_of.get_mut(k).map(std::mem::take).unwrap_or_default();
        let forwards = forwards_of
            .get_mut(k)
            .map(std::mem::take)
            .unwrap_or_default();
        let node_ids = chains.iter().map(|c| c.read.node_id);
        let node_ids = node_ids.chain(forwards.forward_port.iter().map(|p| p.node_id));
        // Sorted once, not kept sorted by insertion: a tunnel may have as
        // many chain rows as the panel has bytes for.
        let mut nodes: Vec<usize> = node_ids
            .filter_map(|id| node_at.get(&id).copied())
            .collect();
        crate::sorting::sort(&mut nodes);
        nodes.dedup();
        let federated = nodes
            .iter()
            .any(|&i| tables.node.get(i).is_some_and(|n| n.read.is_remote));
        f(TunnelRows {
            tunnel: t,
            chains,
            bindings: bindings_of
                .get_mut(k)
                .map(std::mem::take)
                .unwrap_or_default(),
            nodes,
            assumed: assumed_of(tables.source, federated, &forwards),
            forwards,
        });
    }
}

/// Every tunnel of `tables`, in the tunnel table's order, as a redeploy
/// input with only its own rows, one tunnel at a time: each input is built just
/// before `f` takes it, so a whole panel's inputs never sit in memory at once.
/// A database's rows are carried as stored, a backup's as the database would
/// store them; either redacted (`redact::redact`, a binding's URL scrubbed as
/// its node's).
pub fn each_tunnel(tables: &Tables<'_>, f: &mut dyn FnMut(BackupTunnel)) {
    let database = tables.source == Source::Database;
    let mut pseudonyms = std::collections::BTreeMap::default();
    let mut urls = UrlNames::default();
    let nodes: Vec<Value> = tables
        .node
        .iter()
        .map(|n| match database {
            true => {
                let cell = |column: &str| n.stored.get(column).map(|v| crate::encode::to_value(v));
                redacted_node(cell, &mut pseudonyms, &mut urls)
            }
            false => {
                let row = node_row_of(n.stored);
                redacted_node(
                    |column| row.get(column).cloned(),
                    &mut pseudonyms,
                    &mut urls,
                )
            }
        })
        .collect();
    each_tunnel_rows(tables, &mut |mut t| {
        let id = t.id();
        let node_rows = t
            .nodes
            .iter()
            .filter_map(|&i| nodes.get(i).cloned())
            .collect();
        let tunnel = match database {
            true => redacted(t.tunnel.stored),
            false => redact::redact(&t.tunnel.read.to_row()),
        };
        let chains = t
            .chains
            .iter()
            .map(|r| match database {
                true => redacted(r.stored),
                false => redact::redact(&r.read.to_row()),
            })
            .collect();
        let bindings = t
            .bindings
            .iter()
            .map(|r| redacted_binding(r.stored, &mut urls))
            .collect();
        let mut db = object([
            ("tunnel", tunnel),
            ("chain_tunnel", Value::Array(chains)),
            ("node", Value::Array(node_rows)),
            ("federation_tunnel_binding", Value::Array(bindings)),
        ]);
        if let Value::Object(tables) = &mut db {
            tables.extend(forward_rows(std::mem::take(&mut t.forwards), id));
        }
        let name = t.name();
        f(BackupTunnel {
            id,
            name,
            kind: t.kind(),
            input: object([("db", db), ("tunnelId", Value::from(id))]),
            assumed: t.assumed,
        });
    });
}

/// A tunnel's forward tables as a redeploy input's `db` carries them (none
/// without forwards): the forward and port rows as the plan's `db` shows
/// them (a remote address's URL credentials scrubbed), the others by column;
/// a user row has no password column.
fn forward_rows(forwards: ForwardTables, tunnel_id: i64) -> Vec<(String, Value)> {
    if forwards.forward.is_empty() {
        return Vec::new();
    }
    let store = crate::forward::store::Store::new(
        forwards.forward,
        forwards.forward_port,
        &forwards.speed_limit,
        Vec::new(),
        Vec::new(),
    );
    let rows = store.tunnel_rows(tunnel_id);
    let json = crate::encode::to_value;
    vec![
        ("forward".into(), json(&rows.forward)),
        ("forward_port".into(), json(&rows.forward_port)),
        ("speed_limit".into(), json(&forwards.speed_limit)),
        ("user".into(), json(&forwards.user)),
        ("user_tunnel".into(), json(&forwards.user_tunnel)),
    ]
}

/// Every tunnel of a panel, from its backup export or its database rows
/// (told apart by the backup's `version` key and the database's
/// `chain_tunnel` table).
pub fn read_panel(doc: &Value) -> Result<Vec<BackupTunnel>, ApiError> {
    let arena = Arena::new();
    let tree = crate::encode::to_tree(doc, &arena);
    let mut out = Vec::new();
    each_tunnel(&Tables::of_panel(&tree)?, &mut |t| out.push(t));
    Ok(out)
}

/// A stored row as the value a redeploy input carries it in, redacted
/// ([`redact::redact_in_place`]).
fn redacted(row: &TreeValue<'_>) -> Value {
    let mut value = crate::encode::to_value(row);
    redact::redact_in_place(&mut value);
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The export leaves empty lists out (`omitempty`): a panel without
    /// tunnels or nodes is read as empty; tunnels without their nodes (a
    /// partial export) are refused with what is missing.
    #[test]
    fn a_backup_leaves_empty_lists_out() {
        assert_eq!(
            read_panel(&json!({"version": "1.0", "exportedAt": 1})).unwrap(),
            vec![]
        );
        let only_nodes =
            json!({"version": "1.0", "exportedAt": 1, "nodes": [{"id": 1, "name": "a"}]});
        assert_eq!(read_panel(&only_nodes).unwrap(), vec![]);
        let tunnels_only = json!({"version": "1.0", "exportedAt": 1, "tunnels": [{"id": 5, "name": "t5", "type": 1, "chainTunnels": [
            {"id": 1, "tunnelId": 5, "chainType": "1", "nodeId": 1}
        ]}]});
        let e = read_panel(&tunnels_only).unwrap_err();
        assert!(
            e.message.contains("the key \"nodes\" is missing")
                && e.message.contains("partial export"),
            "{}",
            e.message
        );
        // A tunnel without chain rows needs no node: it is read (and rejected when planned).
        let bare = json!({"version": "1.0", "exportedAt": 1, "tunnels": [{"id": 5, "name": "t5", "type": 1}]});
        assert_eq!(read_panel(&bare).unwrap().len(), 1);
        let e = read_panel(&json!({"version": "1.0", "tunnels": {}})).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.path.as_str()),
            ("not a panel backup: tunnels must be a list", "/tunnels")
        );
    }

    #[test]
    fn a_backup_tunnel_redeploys_as_its_rows_would() {
        let backup = json!({"version": "1", "exportedAt": 1, "nodes": [
            {"id": 1, "name": "a", "secret": "node-secret-1", "serverIp": "10.0.0.1", "port": "40000-40010", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "inx": 0, "isRemote": 0},
            {"id": 2, "name": "b", "secret": "node-secret-2", "serverIp": "10.0.0.2", "port": "40000-40010", "status": 1, "tcpListenAddr": "", "udpListenAddr": "[::]", "inx": 0, "isRemote": 1, "remoteUrl": "https://p", "remoteToken": "share-token-2", "remoteConfig": "{\"portRangeStart\": 45000, \"portRangeEnd\": 45010}"}
        ], "tunnels": [{"id": 5, "name": "t5", "type": 2, "status": 1, "chainTunnels": [
            {"id": 1, "tunnelId": 5, "chainType": "1", "nodeId": 1, "strategy": "round", "inx": 1, "protocol": "tls"},
            {"id": 2, "tunnelId": 5, "chainType": "3", "nodeId": 2, "strategy": "fifo", "inx": 1, "protocol": "tls"}
        ]}]});
        let tunnels = read_panel(&backup).unwrap();
        assert_eq!(tunnels.len(), 1);
        let text = crate::encode::to_string(&tunnels);
        assert!(
            !text.contains("node-secret") && !text.contains("share-token-2"),
            "{text}"
        );
        let plan = crate::planner::plan(
            &tunnels[0].input,
            &crate::planner::PlanOptions::along(crate::planner::PlanMode::Redeploy),
        );
        assert!(plan.error.is_none(), "{:?}", plan.error);
        assert_eq!(plan.federation.len(), 1);
        // The remote exit requests no port and gets the first of the share's range.
        assert_eq!(plan.federation[0].reserve.requested_port, 0);
        assert_eq!(tunnels[0].assumed.len(), 2);
        assert!(read_panel(&json!({"nodes": []}))
            .unwrap_err()
            .message
            .contains("\"version\""));
    }

    /// The backup of `a_backup_tunnel_redeploys_as_its_rows_would` as the
    /// database stores it, with what the export leaves out: a connect IP and
    /// the remote exit's active binding.
    fn database() -> Value {
        json!({
            "node": [
                {"id": 1, "name": "a", "secret": "node-secret-1", "server_ip": "10.0.0.1", "server_ip_v4": null, "server_ip_v6": null, "port": "40000-40010", "interface_name": null, "status": 1, "tcp_listen_addr": "[::]", "udp_listen_addr": "[::]", "is_remote": 0, "remote_url": null, "remote_token": null, "remote_config": null},
                {"id": 2, "name": "b", "secret": "node-secret-2", "server_ip": "10.0.0.2", "server_ip_v4": null, "server_ip_v6": null, "port": "40000-40010", "interface_name": null, "status": 1, "tcp_listen_addr": "", "udp_listen_addr": "[::]", "is_remote": 1, "remote_url": "https://p", "remote_token": " share-token-2 ", "remote_config": "{\"portRangeStart\": 45000, \"portRangeEnd\": 45010}"},
                {"id": 3, "name": "c", "secret": "node-secret-3", "server_ip": "10.0.0.3", "server_ip_v4": null, "server_ip_v6": null, "port": "40000-40010", "interface_name": null, "status": 1, "tcp_listen_addr": "", "udp_listen_addr": "[::]", "is_remote": 1, "remote_url": "https://p", "remote_token": "share-token-2", "remote_config": "{\"portRangeStart\": 45000, \"portRangeEnd\": 45010}"}
            ],
            "tunnel": [{"id": 5, "name": "t5", "type": 2, "status": 1, "ip_preference": ""}],
            "chain_tunnel": [
                {"id": 1, "tunnel_id": 5, "chain_type": "1", "node_id": 1, "port": null, "strategy": "round", "inx": 1, "protocol": "tls", "connect_ip": null},
                {"id": 2, "tunnel_id": 5, "chain_type": "3", "node_id": 2, "port": null, "strategy": "fifo", "inx": 1, "protocol": "tls", "connect_ip": "10.9.9.9"}
            ],
            "federation_tunnel_binding": [
                {"id": 7, "tunnel_id": 5, "node_id": 2, "chain_type": 3, "hop_inx": 0, "remote_url": "https://p", "resource_key": "rk-5-2", "remote_binding_id": "21", "allocated_port": 45003, "status": 1}
            ]
        })
    }

    #[test]
    fn database_rows_redeploy_with_what_the_backup_lacks() {
        let db = database();
        let tunnels = read_panel(&db).unwrap();
        assert_eq!(tunnels.len(), 1);
        let t = &tunnels[0];
        assert_eq!((t.id, t.name.as_str(), t.kind), (5, "t5", 2));
        // Only the provider side is assumed: the database has connect IPs and bindings.
        assert_eq!(t.assumed.len(), 1, "{:?}", t.assumed);
        assert!(t.assumed[0].contains("provider"));
        let rows = &t.input["db"];
        assert_eq!(rows["chain_tunnel"][1]["connect_ip"], "10.9.9.9");
        assert_eq!(
            rows["federation_tunnel_binding"][0]["resource_key"],
            "rk-5-2"
        );
        // Node 3 is not in the tunnel; no secret and no token is carried.
        assert_eq!(rows["node"].as_array().unwrap().len(), 2);
        let text = crate::encode::to_string(&tunnels);
        assert!(
            !text.contains("node-secret") && !text.contains("share-token"),
            "{text}"
        );
        assert_eq!(rows["node"][1]["remote_token"], "share-1");
        let plan = crate::planner::plan(
            &t.input,
            &crate::planner::PlanOptions::along(crate::planner::PlanMode::Redeploy),
        );
        assert!(plan.error.is_none(), "{:?}", plan.error);
        assert_eq!(plan.federation.len(), 1);
    }

    #[test]
    fn one_share_token_is_one_pseudonym() {
        let mut db = database();
        db["chain_tunnel"][1]["chain_type"] = json!("2");
        db["chain_tunnel"][1]["port"] = json!(40001);
        db["chain_tunnel"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": 3, "tunnel_id": 5, "chain_type": "3", "node_id": 3, "port": null, "strategy": "fifo", "inx": 1, "protocol": "tls", "connect_ip": null}));
        let tunnels = read_panel(&db).unwrap();
        let nodes = &tunnels[0].input["db"]["node"];
        // " share-token-2 " and "share-token-2" are one token to the server.
        assert_eq!(nodes[1]["remote_token"], "share-1");
        assert_eq!(nodes[2]["remote_token"], "share-1");
    }

    #[test]
    fn a_backup_and_its_database_plan_alike_where_they_carry_the_same_facts() {
        let mut db = database();
        db["chain_tunnel"][1]["connect_ip"] = Value::Null;
        db["federation_tunnel_binding"] = json!([]);
        db["node"].as_array_mut().unwrap().pop();
        let backup = json!({"version": "1", "exportedAt": 1, "nodes": [
            {"id": 1, "name": "a", "secret": "node-secret-1", "serverIp": "10.0.0.1", "port": "40000-40010", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "isRemote": 0},
            {"id": 2, "name": "b", "secret": "node-secret-2", "serverIp": "10.0.0.2", "port": "40000-40010", "status": 1, "tcpListenAddr": "", "udpListenAddr": "[::]", "isRemote": 1, "remoteUrl": "https://p", "remoteToken": " share-token-2 ", "remoteConfig": "{\"portRangeStart\": 45000, \"portRangeEnd\": 45010}"}
        ], "tunnels": [{"id": 5, "name": "t5", "type": 2, "status": 1, "ipPreference": "", "chainTunnels": [
            {"id": 1, "tunnelId": 5, "chainType": "1", "nodeId": 1, "strategy": "round", "inx": 1, "protocol": "tls"},
            {"id": 2, "tunnelId": 5, "chainType": "3", "nodeId": 2, "strategy": "fifo", "inx": 1, "protocol": "tls"}
        ]}]});
        let plan_of = |t: &BackupTunnel| {
            crate::encode::to_string(&crate::planner::plan(
                &t.input,
                &crate::planner::PlanOptions::along(crate::planner::PlanMode::Redeploy),
            ))
        };
        let from_db = read_panel(&db).unwrap();
        let from_backup = read_panel(&backup).unwrap();
        assert_eq!(plan_of(&from_db[0]), plan_of(&from_backup[0]));
        assert_eq!(from_backup[0].assumed.len(), 2);
    }

    #[test]
    fn bad_database_rows_name_table_row_and_column() {
        let e = read_panel(&json!({"chain_tunnel": [], "node": []})).unwrap_err();
        assert!(
            e.message
                .contains("no table tunnel, federation_tunnel_binding"),
            "{}",
            e.message
        );
        let mut db = database();
        db["chain_tunnel"][1]["node_id"] = json!("two");
        let e = read_panel(&db).unwrap_err();
        assert_eq!(e.path, "/chain_tunnel/1/node_id");
        assert_eq!(
            e.message,
            "table chain_tunnel, row id 2: column node_id must be an integer, not text"
        );
        let mut db = database();
        db["node"][0]["secret"] = json!(42);
        db["node"][0]["remote_token"] = json!(7);
        let e = read_panel(&db).unwrap_err();
        assert_eq!(e.path, "/node/0/remote_token");
        assert!(!e.message.contains('7'), "{}", e.message);
    }

    /// An id too long for 64 bits is named as such, with its value (a
    /// number past u64 is read as the float it rounds to).
    #[test]
    fn an_integer_beyond_64_bits_is_named_as_such() {
        let mut db = database();
        db["node"][1]["id"] = crate::json::from_str("99999999999999999999").unwrap();
        let e = read_panel(&db).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.path.as_str()),
            (
                "table node, row id #2: column id must be an integer that fits in 64 bits, not 1e+20",
                "/node/1/id"
            )
        );
        let mut db = database();
        db["federation_tunnel_binding"][0]["id"] = json!(u64::MAX);
        assert_eq!(
            read_panel(&db).unwrap_err().message,
            "table federation_tunnel_binding, row id #1: column id must be an integer that fits in 64 bits, not 18446744073709551615"
        );
        let mut db = database();
        db["chain_tunnel"][0]["tunnel_id"] =
            crate::json::from_str("-99999999999999999999").unwrap();
        assert_eq!(
            read_panel(&db).unwrap_err().message,
            "table chain_tunnel, row id 1: column tunnel_id must be an integer that fits in 64 bits, not -1e+20"
        );
        let mut db = database();
        db["chain_tunnel"][0]["port"] = json!(1.5);
        assert_eq!(
            read_panel(&db).unwrap_err().message,
            "table chain_tunnel, row id 1: column port must be an integer or NULL, not a non-integer number"
        );
    }

    fn plan_text(input: &Value) -> String {
        crate::encode::to_string(&crate::planner::plan(
            input,
            &crate::planner::PlanOptions::along(crate::planner::PlanMode::Redeploy),
        ))
    }

    /// A remote URL keeps all but its userinfo and secret parameters, the
    /// binding's URL is shown as its node's, and a remote config keeps its
    /// other keys; the input plans as the rows themselves do.
    #[test]
    fn remote_urls_and_configs_lose_their_credentials() {
        let mut db = database();
        let url = "https://admin:url-pw-1@p.example:8443/panel?token=url-tok-1&region=eu";
        db["node"][1]["remote_url"] = json!(url);
        db["node"][1]["remote_config"] = json!(
            r#"{"portRangeStart":45000,"portRangeEnd":45010,"token":"cfg-tok-1","nested":{"password":"cfg-pw-1","name":"n"}}"#
        );
        db["federation_tunnel_binding"][0]["remote_url"] = json!(url);
        let tunnels = read_panel(&db).unwrap();
        let rows = &tunnels[0].input["db"];
        let shown = "https://[redacted]@p.example:8443/panel?token=[redacted]&region=eu";
        assert_eq!(rows["node"][1]["remote_url"], shown);
        assert_eq!(rows["federation_tunnel_binding"][0]["remote_url"], shown);
        assert_eq!(
            rows["node"][1]["remote_config"],
            r#"{"nested":{"name":"n","password":"[redacted]"},"portRangeEnd":45010,"portRangeStart":45000,"token":"[redacted]"}"#
        );
        let text = crate::encode::to_string(&tunnels);
        for secret in ["admin", "url-pw-1", "url-tok-1", "cfg-tok-1", "cfg-pw-1"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let raw = json!({"db": db, "tunnelId": 5});
        assert_eq!(plan_text(&tunnels[0].input), plan_text(&raw));

        // A backup's node: its URL the same way; a config that is not JSON whole.
        let backup = json!({"version": "1", "nodes": [
            {"id": 2, "name": "b", "serverIp": "10.0.0.2", "port": "40000-40010", "status": 1, "isRemote": 1,
             "remoteUrl": "http://u:p@h/x?access_token=a-1#k", "remoteToken": "t", "remoteConfig": "token=cfg-2"}
        ], "tunnels": [{"id": 5, "name": "t5", "type": 2, "status": 1, "chainTunnels": [
            {"id": 2, "tunnelId": 5, "chainType": "3", "nodeId": 2, "strategy": "fifo", "inx": 1, "protocol": "tls"}
        ]}]});
        let node = &read_panel(&backup).unwrap()[0].input["db"]["node"][0];
        assert_eq!(
            (&node["remote_url"], &node["remote_config"]),
            (
                &json!("http://[redacted]@h/x?access_token=[redacted]#k"),
                &json!("[redacted]")
            )
        );
        // Any other URL in a row, and any credential-named column, too.
        let mut db = database();
        db["node"][0]["server_ip"] = json!("http://u:addr-pw@10.0.0.1");
        db["chain_tunnel"][1]["connect_ip"] = json!("https://u:conn-pw@10.9.9.9");
        db["federation_tunnel_binding"][0]["api_token"] = json!("bind-tok");
        let rows = &read_panel(&db).unwrap()[0].input["db"];
        assert_eq!(rows["node"][0]["server_ip"], "http://[redacted]@10.0.0.1");
        assert_eq!(
            rows["chain_tunnel"][1]["connect_ip"],
            "https://[redacted]@10.9.9.9"
        );
        assert_eq!(
            rows["federation_tunnel_binding"][0]["api_token"],
            "[redacted]"
        );
    }

    /// The planner tells provider panels apart by URL: two URLs that differ
    /// only in their credentials stay two panels in the input.
    #[test]
    fn urls_that_differ_only_in_credentials_stay_apart() {
        let mut db = database();
        db["chain_tunnel"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": 3, "tunnel_id": 5, "chain_type": "3", "node_id": 3, "port": null, "strategy": "fifo", "inx": 2, "protocol": "tls", "connect_ip": null}));
        db["node"][1]["remote_url"] = json!("https://a:1@p");
        db["node"][2]["remote_url"] = json!("https://b:2@p");
        db["federation_tunnel_binding"][0]["remote_url"] = json!("https://b:2@p");
        let tunnels = read_panel(&db).unwrap();
        let rows = &tunnels[0].input["db"];
        assert_eq!(rows["node"][1]["remote_url"], "https://[redacted]@p");
        assert_eq!(rows["node"][2]["remote_url"], "https://[redacted-2]@p");
        assert_eq!(
            rows["federation_tunnel_binding"][0]["remote_url"],
            "https://[redacted-2]@p"
        );
        let raw = json!({"db": db.clone(), "tunnelId": 5});
        assert_eq!(plan_text(&tunnels[0].input), plan_text(&raw));
        // One URL for both would be one panel, which plans otherwise.
        let mut one = db;
        one["node"][2]["remote_url"] = json!("https://a:1@p");
        assert_ne!(
            plan_text(&json!({"db": one, "tunnelId": 5})),
            plan_text(&raw)
        );
    }
}
