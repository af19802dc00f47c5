//! The planner's input model: panel node rows, tunnel payload items and the
//! preview's federation answers, read with the server's loose coercions.

use crate::coerce::GoText;
use crate::coerce::{default_string, go_int, go_string, map_slice};
use crate::go::coerce::parse_int;
use crate::go::net::{parse_ip, IpKind};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use tsify_next::Tsify;

/// One node row, as the server's node record holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRecord {
    pub id: i64,
    /// Display name: the trimmed `name`, or `node_{id}` when blank.
    pub name: String,
    pub server_ip: String,
    pub server_ipv4: String,
    pub server_ipv6: String,
    /// Port range spec, e.g. `40000-40100,50000`.
    pub port_range: String,
    /// Listen address as stored (untrimmed); exactly `""` reads as `[::]`.
    pub tcp_listen_addr: String,
    /// The UDP listen address as stored; exactly `""` reads as `[::]`.
    pub udp_listen_addr: String,
    /// The name as the repository hands it to messages that do not trim it
    /// (`nodeRecordFromModel`: untrimmed, `node_{id}` when blank).
    pub row_name: String,
    pub interface_name: String,
    pub status: i64,
    pub is_remote: bool,
    pub remote_url: String,
    /// Whether a share token is configured: a non-blank `remoteToken`, or the
    /// presence marker `remoteToken: true` (a browser that never sees tokens).
    pub has_remote_token: bool,
    /// Which share the row points at: rows with the same URL and token are one
    /// share. Compared only; never printed (its `Debug` is redacted).
    pub share_identity: ShareIdentity,
    pub remote_config: String,
}

/// A share token is configured: a non-blank string, or the marker `true`.
fn token_present(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        other => !go_string(other).is_empty(),
    }
}

/// The identity of a share token, kept only to compare two rows.
#[derive(Clone, PartialEq, Eq)]
pub struct ShareIdentity(String);

impl ShareIdentity {
    /// The trimmed token; a row with only the presence marker is a share of its own.
    pub(crate) fn of(node_id: i64, token: Option<&Value>) -> ShareIdentity {
        match token {
            Some(Value::String(t)) if !t.trim().is_empty() => {
                ShareIdentity(format!("t:{}", t.trim()))
            }
            _ => ShareIdentity(format!("n:{}", node_id)),
        }
    }
}

#[cfg(test)]
impl ShareIdentity {
    pub fn test(name: &str) -> ShareIdentity {
        ShareIdentity(name.to_string())
    }
}

impl std::fmt::Debug for ShareIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ShareIdentity(<redacted>)")
    }
}

/// A string field that the server stores untrimmed.
fn raw_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        other => go_string(other),
    }
}

/// The column names a node row uses: the node list API's or the database's.
#[derive(Debug, Clone, Copy)]
pub struct RowKeys {
    pub name: &'static str,
    pub server_ip: &'static str,
    pub server_ipv4: &'static str,
    pub server_ipv6: &'static str,
    pub tcp_listen_addr: &'static str,
    pub udp_listen_addr: &'static str,
    pub interface_name: &'static str,
    pub is_remote: &'static str,
    pub remote_url: &'static str,
    pub remote_token: &'static str,
    pub remote_config: &'static str,
    /// `remoteToken: true` marks a configured token without showing it (a
    /// browser that never sees tokens); where tokens are stored as text (a
    /// backup export), any non-text value reads as its text instead.
    pub token_marker: bool,
}

impl RowKeys {
    /// `ListNodes` of the panel's API (camelCase).
    pub const API: RowKeys = RowKeys {
        name: "name",
        server_ip: "serverIp",
        server_ipv4: "serverIpV4",
        server_ipv6: "serverIpV6",
        tcp_listen_addr: "tcpListenAddr",
        udp_listen_addr: "udpListenAddr",
        interface_name: "interfaceName",
        is_remote: "isRemote",
        remote_url: "remoteUrl",
        remote_token: "remoteToken",
        remote_config: "remoteConfig",
        token_marker: true,
    };
    /// A backup export's nodes (`BackupData`'s json tags: the API's names).
    pub const BACKUP: RowKeys = RowKeys {
        token_marker: false,
        ..RowKeys::API
    };
    /// The `node` table (column names of model.go).
    pub const DATABASE: RowKeys = RowKeys {
        name: "name",
        server_ip: "server_ip",
        server_ipv4: "server_ip_v4",
        server_ipv6: "server_ip_v6",
        tcp_listen_addr: "tcp_listen_addr",
        udp_listen_addr: "udp_listen_addr",
        interface_name: "interface_name",
        is_remote: "is_remote",
        remote_url: "remote_url",
        remote_token: "remote_token",
        remote_config: "remote_config",
        token_marker: true,
    };
}

impl NodeRecord {
    /// A row read the way the repository's `nodeRecordFromModel` reads it.
    pub fn from_row(row: &Map<String, Value>, keys: RowKeys) -> NodeRecord {
        let id = go_int(row.get("id"), 0);
        // The repository keeps the name untrimmed; messages show it trimmed.
        let name = raw_string(row.get(keys.name));
        let (name, row_name) = if name.trim().is_empty() {
            (format!("node_{}", id), format!("node_{}", id))
        } else {
            (name.trim().to_string(), name)
        };
        let token = row.get(keys.remote_token);
        let token_text;
        let token = match token {
            Some(Value::String(_)) | Some(Value::Null) | None => token,
            Some(_) if keys.token_marker => token,
            Some(other) => {
                token_text = Value::String(go_string(Some(other)));
                Some(&token_text)
            }
        };
        let tcp_listen_addr = raw_string(row.get(keys.tcp_listen_addr));
        let tcp_listen_addr = if tcp_listen_addr.is_empty() {
            "[::]".to_string()
        } else {
            tcp_listen_addr
        };
        let udp_listen_addr = raw_string(row.get(keys.udp_listen_addr));
        let udp_listen_addr = if udp_listen_addr.is_empty() {
            "[::]".to_string()
        } else {
            udp_listen_addr
        };
        NodeRecord {
            id,
            name,
            row_name,
            udp_listen_addr,
            server_ip: raw_string(row.get(keys.server_ip)),
            server_ipv4: go_string(row.get(keys.server_ipv4)),
            server_ipv6: go_string(row.get(keys.server_ipv6)),
            port_range: raw_string(row.get("port")),
            tcp_listen_addr,
            interface_name: go_string(row.get(keys.interface_name)),
            status: go_int(row.get("status"), 0),
            is_remote: go_int(row.get(keys.is_remote), 0) == 1,
            remote_url: go_string(row.get(keys.remote_url)),
            has_remote_token: token_present(token),
            share_identity: ShareIdentity::of(id, token),
            remote_config: go_string(row.get(keys.remote_config)),
        }
    }

    /// Whether other nodes can reach it over IPv4.
    pub fn supports_v4(&self) -> bool {
        self.supports(IpKind::V4)
    }

    /// Whether other nodes can reach it over IPv6.
    pub fn supports_v6(&self) -> bool {
        self.supports(IpKind::V6)
    }

    fn supports(&self, family: IpKind) -> bool {
        let (own, other) = match family {
            IpKind::V4 => (&self.server_ipv4, &self.server_ipv6),
            IpKind::V6 => (&self.server_ipv6, &self.server_ipv4),
        };
        if !own.is_empty() {
            return true;
        }
        if !other.is_empty() {
            return false;
        }
        let legacy = self.server_ip.trim().trim_matches(|c| c == '[' || c == ']');
        if legacy.is_empty() {
            return false;
        }
        match parse_ip(legacy) {
            Some(kind) => kind == family,
            None => true,
        }
    }

    pub fn address_v4(&self) -> &str {
        if self.server_ipv4.is_empty() {
            &self.server_ip
        } else {
            &self.server_ipv4
        }
    }

    pub fn address_v6(&self) -> &str {
        if self.server_ipv6.is_empty() {
            &self.server_ip
        } else {
            &self.server_ipv6
        }
    }

    /// `portRangeStart`/`portRangeEnd` of a remote share, (0, 0) when unset.
    pub fn remote_port_range(&self) -> (i64, i64) {
        if !self.is_remote || self.remote_config.is_empty() {
            return (0, 0);
        }
        match crate::limits::from_str(&self.remote_config) {
            Ok(Value::Object(cfg)) => (
                go_int(cfg.get("portRangeStart"), 0),
                go_int(cfg.get("portRangeEnd"), 0),
            ),
            _ => (0, 0),
        }
    }

    /// The first port of the node's range spec not in `used` (the preview's
    /// pick: the server draws at random on create, takes the first on edit).
    pub fn first_free_port(&self, used: &[i64]) -> Option<i64> {
        first_free_port(&self.port_range, used)
    }
}

/// The ranges of a port spec like `40000-40100,50000`, the way the
/// repository's `parsePortRangeSpec` reads it: parts trimmed, `a-b`
/// inclusive with reversed bounds swapped, bad or non-positive parts skipped.
pub fn port_ranges(spec: &str) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for part in spec.trim().split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let range = match part.split_once('-') {
            Some((a, b)) => match (parse_int(a.trim()), parse_int(b.trim())) {
                (Some(s), Some(e)) if s > 0 && e > 0 => (s.min(e), s.max(e)),
                _ => continue,
            },
            None => match parse_int(part) {
                Some(p) if p > 0 => (p, p),
                _ => continue,
            },
        };
        out.push(range);
    }
    crate::sorting::sort(&mut out);
    out
}

/// The smallest port of `spec` that is not in `used`.
pub fn first_free_port(spec: &str, used: &[i64]) -> Option<i64> {
    let mut best: Option<i64> = None;
    for (start, end) in port_ranges(spec) {
        // Each used port can push the candidate up by one, so this loop is
        // bounded by `used.len() + 1` steps per range.
        let mut p = start;
        while p <= end && used.contains(&p) {
            p += 1;
        }
        if p <= end {
            best = Some(best.map_or(p, |b: i64| b.min(p)));
        }
    }
    best
}

/// The node rows in input order, looked up by id (the first row wins when an
/// id repeats, as a primary key would).
#[derive(Debug, Clone, Default)]
pub struct NodeTable {
    rows: Vec<NodeRecord>,
    index: BTreeMap<i64, usize>,
}

impl NodeTable {
    pub fn new(records: impl IntoIterator<Item = NodeRecord>) -> NodeTable {
        let mut table = NodeTable::default();
        for rec in records {
            if rec.id > 0 && !table.index.contains_key(&rec.id) {
                table.index.insert(rec.id, table.rows.len());
                table.rows.push(rec);
            }
        }
        table
    }

    pub fn get(&self, id: i64) -> Option<&NodeRecord> {
        self.index.get(&id).and_then(|&i| self.rows.get(i))
    }

    pub fn rows(&self) -> &[NodeRecord] {
        &self.rows
    }
}

/// The node rows of a node list (the panel API's camelCase rows).
pub fn node_table(nodes: Option<&Value>) -> NodeTable {
    NodeTable::new(
        map_slice(nodes)
            .into_iter()
            .map(|row| NodeRecord::from_row(row, RowKeys::API)),
    )
}

/// The kind of place a node holds in the tunnel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Entry,
    Middle,
    Exit,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Entry => "entry",
            Role::Middle => "middle",
            Role::Exit => "exit",
        }
    }
}

/// One tunnel item (entry, hop node or exit) after coercion.
#[derive(Debug, Clone, PartialEq)]
pub struct TunnelNode {
    pub node_id: i64,
    pub protocol: String,
    pub strategy: String,
    pub port: i64,
    pub connect_ip: String,
    pub role: Role,
    /// 1-based hop number among surviving hops for middles, 0 otherwise
    /// (resource keys and bindings use it).
    pub hop: i64,
    /// The stored `inx`: a hop node's raw position in `chainNodes` (dropped
    /// hops counted), an entry's or exit's position among the object items.
    pub inx: i64,
    /// For a remote hop node or exit, the runtime id its provider answered.
    pub runtime_id: Option<i64>,
}

/// One node of a tunnel as the panel's tunnel payload lists it (an item of
/// `inNodeId`, of a hop of `chainNodes`, of `outNodeId`), read as the server
/// reads it (`asInt`, `asString`).
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TunnelNodeRef {
    #[tsify(type = "Loose")]
    pub node_id: Option<GoText>,
    #[tsify(optional, type = "Protocol | null")]
    pub protocol: Option<GoText>,
    #[tsify(optional, type = "Strategy | null")]
    pub strategy: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub port: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub connect_ip: Option<GoText>,
}

/// A list of tunnel nodes as the server reads one (`asMapSlice`): the
/// object items of an array, in order; anything else lists none.
#[derive(Debug, Default)]
pub struct NodeItems(pub Vec<TunnelNodeRef>);

/// The `chainNodes` of a payload: each entry a hop's [`NodeItems`] (an
/// entry that is not an array is an empty hop, still counted in order).
#[derive(Debug, Default)]
pub struct Hops(pub Vec<NodeItems>);

/// A probe target field as given, with the JSON type the server tests.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeCell {
    Null,
    Str(String),
    Num(serde_json::Number),
    /// A boolean, array or object.
    Other,
}

/// The panel's tunnel mutation payload, read as the server reads it.
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TunnelPayload {
    /// The tunnel id; a create may leave it out (the server assigns one,
    /// the preview assumes 1 and says so in `plan.assumed`).
    #[tsify(optional, type = "Loose")]
    pub id: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub name: Option<GoText>,
    /// 1 = port forward, 2 = tunnel forward.
    #[serde(rename = "type")]
    #[tsify(optional, type = "TunnelType | null")]
    pub kind: Option<GoText>,
    /// `""`, `"v4"` or `"v6"`.
    #[tsify(optional, type = "Loose")]
    pub ip_preference: Option<GoText>,
    /// Entries.
    #[serde(default)]
    #[tsify(optional, type = "TunnelNodeRef[]")]
    pub in_node_id: NodeItems,
    /// Middle hops, each a list of nodes.
    #[serde(default)]
    #[tsify(optional, type = "TunnelNodeRef[][]")]
    pub chain_nodes: Hops,
    /// Exits.
    #[serde(default)]
    #[tsify(optional, type = "TunnelNodeRef[]")]
    pub out_node_id: NodeItems,
    /// The tunnel's probe target; validated when either field is present
    /// (even `null`).
    #[serde(default, deserialize_with = "present")]
    #[tsify(optional, type = "Loose")]
    pub probe_target_host: Option<ProbeCell>,
    #[serde(default, deserialize_with = "present")]
    #[tsify(optional, type = "Loose")]
    pub probe_target_port: Option<ProbeCell>,
}

impl TunnelPayload {
    /// A payload object (every field reads any JSON value, so an object
    /// always deserializes).
    pub fn of(payload: &Map<String, Value>) -> TunnelPayload {
        crate::coerce::from_object(payload)
    }

    /// Every node item it lists: entries, exits, then the hops' items.
    pub fn items(&self) -> impl Iterator<Item = &TunnelNodeRef> {
        let hops = self.chain_nodes.0.iter().flat_map(|h| h.0.iter());
        self.in_node_id
            .0
            .iter()
            .chain(&self.out_node_id.0)
            .chain(hops)
    }
}

/// A field given at all: `Some` even when it is `null`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

mod payload_de {
    //! The payload's loose cells: lists read as `asMapSlice` reads them,
    //! probe cells with their JSON type.
    use super::{Hops, NodeItems, ProbeCell, TunnelNodeRef};
    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::Number;
    use std::fmt;

    /// An item of a node list: a node when it is an object.
    struct Item(Option<TunnelNodeRef>);

    impl<'de> Deserialize<'de> for Item {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ItemVisitor).map(Item)
        }
    }

    struct ItemVisitor;

    impl<'de> Visitor<'de> for ItemVisitor {
        type Value = Option<TunnelNodeRef>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            TunnelNodeRef::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    /// A list of `T`s when the value is an array, else none.
    struct ListVisitor<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(x) = seq.next_element::<T>()? {
                out.push(x);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map
                .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                .is_some()
            {}
            Ok(Vec::new())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }

    impl<'de> Deserialize<'de> for NodeItems {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let items: Vec<Item> = d.deserialize_any(ListVisitor(std::marker::PhantomData))?;
            Ok(NodeItems(items.into_iter().filter_map(|i| i.0).collect()))
        }
    }

    impl<'de> Deserialize<'de> for Hops {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ListVisitor(std::marker::PhantomData))
                .map(Hops)
        }
    }

    struct CellVisitor;

    impl<'de> Visitor<'de> for CellVisitor {
        type Value = ProbeCell;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_unit<E: de::Error>(self) -> Result<ProbeCell, E> {
            Ok(ProbeCell::Null)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<ProbeCell, E> {
            Ok(ProbeCell::Str(s.to_string()))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<ProbeCell, E> {
            Ok(ProbeCell::Num(n.into()))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<ProbeCell, E> {
            Ok(ProbeCell::Num(n.into()))
        }
        fn visit_f64<E: de::Error>(self, f: f64) -> Result<ProbeCell, E> {
            Ok(Number::from_f64(f).map_or(ProbeCell::Other, ProbeCell::Num))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<ProbeCell, E> {
            Ok(ProbeCell::Other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ProbeCell, A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(ProbeCell::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ProbeCell, A::Error> {
            while map
                .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                .is_some()
            {}
            Ok(ProbeCell::Other)
        }
    }

    impl<'de> Deserialize<'de> for ProbeCell {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(CellVisitor)
        }
    }
}

impl TunnelNode {
    /// The node `r` lists, in `role`: an entry has no port or connect IP
    /// of its own (the server ignores them), a protocol defaults to `tls`
    /// and a strategy to `round`.
    pub fn from_ref(r: &TunnelNodeRef, role: Role) -> TunnelNode {
        let entry = role == Role::Entry;
        TunnelNode {
            node_id: GoText::int(&r.node_id, 0),
            protocol: default_string(GoText::text(&r.protocol), "tls"),
            strategy: default_string(GoText::text(&r.strategy), "round"),
            port: if entry { 0 } else { GoText::int(&r.port, 0) },
            connect_ip: if entry {
                String::new()
            } else {
                GoText::text(&r.connect_ip).to_string()
            },
            role,
            hop: 0,
            inx: 0,
            runtime_id: None,
        }
    }
}

/// What a provider panel allocates for one federated node in a preview, and
/// which of those values the input gave (the rest are assumed).
#[derive(Debug, Clone, PartialEq)]
pub struct FederationInfo {
    /// The runtime id a new reservation gets: `runtimeId`, else node id x 10.
    pub runtime_id: i64,
    /// `allocatedPort` when > 0: the provider's answer, used as is.
    pub allocated_port: Option<i64>,
    /// The provider's own listen address for that node, as stored (`""` reads as `[::]`).
    pub tcp_listen_addr: String,
    pub interface_name: String,
    /// The share's `portRangeStart`/`portRangeEnd`, (0, 0) when not given.
    pub port_range: (i64, i64),
    /// Whether the input had an entry for the node at all.
    pub given: bool,
    pub runtime_id_given: bool,
}

/// What a provider panel allocates for one remote node (the preview's
/// `federation` input, keyed by node id); each field read as the server
/// reads it.
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FederationAllocation {
    #[tsify(optional, type = "Loose")]
    pub runtime_id: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub allocated_port: Option<GoText>,
    /// Stored untrimmed.
    #[serde(default, deserialize_with = "crate::coerce::loose::column")]
    #[tsify(optional, type = "Loose")]
    pub tcp_listen_addr: String,
    #[tsify(optional, type = "Loose")]
    pub interface_name: Option<GoText>,
    /// The share's port range (default: the row's `remoteConfig`).
    #[tsify(optional, type = "Loose")]
    pub port_range_start: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub port_range_end: Option<GoText>,
}

impl FederationInfo {
    /// The preview answer for `node_id`, with the documented defaults for
    /// whatever the input leaves out.
    pub fn lookup(federation: Option<&Value>, node_id: i64) -> FederationInfo {
        let entry = federation
            .and_then(Value::as_object)
            .and_then(|m| m.get(&node_id.to_string()))
            .and_then(Value::as_object);
        let a: FederationAllocation = entry.map(crate::coerce::from_object).unwrap_or_default();
        let given_id = GoText::int(&a.runtime_id, 0);
        let runtime_id = if given_id > 0 {
            given_id
        } else {
            node_id.saturating_mul(10)
        };
        let allocated = GoText::int(&a.allocated_port, 0);
        FederationInfo {
            runtime_id,
            allocated_port: (allocated > 0).then_some(allocated),
            tcp_listen_addr: if a.tcp_listen_addr.is_empty() {
                "[::]".to_string()
            } else {
                a.tcp_listen_addr
            },
            interface_name: GoText::text(&a.interface_name).to_string(),
            port_range: (
                GoText::int(&a.port_range_start, 0),
                GoText::int(&a.port_range_end, 0),
            ),
            given: entry.is_some(),
            runtime_id_given: given_id > 0,
        }
    }
}
