//! The planner's input model: panel node rows, tunnel payload items and the
//! preview's federation answers, read with the server's loose coercions.

use crate::coerce::default_string;
use crate::coerce::loose;
use crate::coerce::{from_tree, GoText, TokenCell};
use crate::go::coerce::parse_int;
use crate::go::net::{parse_ip, IpKind};
use crate::json::tree::TreeValue;
use serde::Deserialize;
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
    /// `portRangeStart`/`portRangeEnd` of a remote share's `remoteConfig`
    /// (JSON text), read with the row; (0, 0) when unset.
    pub remote_port_range: (i64, i64),
    /// Ports the node's `forward_port` rows hold, where the input gives the
    /// forwards ([`NodeTable::hold_forward_ports`]): a tunnel's port pick
    /// passes over them (`pickNodePortTx`, repository_mutations.go:525-535).
    pub forward_ports: Vec<i64>,
}

/// The identity of a share token, kept only to compare two rows.
#[derive(Clone, PartialEq, Eq)]
pub struct ShareIdentity(String);

impl ShareIdentity {
    /// The trimmed token; a row with only the presence marker (or none) is
    /// a share of its own.
    pub(crate) fn of(node_id: i64, token: &TokenCell) -> ShareIdentity {
        match token {
            TokenCell::Text(t) if !t.trim().is_empty() => ShareIdentity(format!("t:{}", t.trim())),
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

/// Declares a node row's fields once, with the key each source gives them:
/// the node list API and a backup export (`BackupData`'s json tags) use the
/// camelCase `key`, the `node` table the `column` of model.go. Each field
/// is read by the server's rule for it (`asString`, `asInt`, or the text as
/// stored).
macro_rules! node_row {
    ($($(#[$attr:meta])* $field:ident: $ty:ty = $column:literal / $key:literal by $read:literal;)*) => {
        /// A row of the panel's node list API, or a node of a backup export.
        /// Unknown keys are ignored.
        #[derive(Debug, Default, Deserialize, Tsify)]
        #[serde(default)]
        pub struct NodeRow {
            $($(#[$attr])* #[serde(rename = $key, deserialize_with = $read)] pub $field: $ty,)*
            /// The node's place in the panel's list; not read.
            #[tsify(optional, type = "Loose")]
            pub inx: serde::de::IgnoredAny,
        }

        /// A row of the `node` table: [`NodeRow`]'s fields under the
        /// database's column names.
        #[derive(Debug, Default, Deserialize)]
        #[serde(default)]
        pub struct NodeColumns {
            $(#[serde(rename = $column, deserialize_with = $read)] $field: $ty,)*
        }

        impl From<NodeColumns> for NodeRow {
            fn from(c: NodeColumns) -> NodeRow {
                NodeRow { $($field: c.$field,)* inx: serde::de::IgnoredAny }
            }
        }

        /// Each field as (the `node` table's column, the export's key).
        pub const NODE_KEYS: &[(&str, &str)] = &[$(($column, $key),)*];
    };
}

node_row! {
    #[tsify(type = "Loose")]
    id: i64 = "id" / "id" by "loose::int";
    #[tsify(optional, type = "Loose")]
    name: String = "name" / "name" by "loose::column";
    #[tsify(optional, type = "Loose")]
    server_ip: String = "server_ip" / "serverIp" by "loose::column";
    #[tsify(optional, type = "Loose")]
    server_ip_v4: String = "server_ip_v4" / "serverIpV4" by "loose::string";
    #[tsify(optional, type = "Loose")]
    server_ip_v6: String = "server_ip_v6" / "serverIpV6" by "loose::string";
    #[doc = " Port range spec such as `\"40000-40100,50000\"`."]
    #[tsify(optional, type = "Loose")]
    port: String = "port" / "port" by "loose::column";
    #[tsify(optional, type = "Loose")]
    interface_name: String = "interface_name" / "interfaceName" by "loose::string";
    #[tsify(optional, type = "Loose")]
    tcp_listen_addr: String = "tcp_listen_addr" / "tcpListenAddr" by "loose::column";
    #[tsify(optional, type = "Loose")]
    udp_listen_addr: String = "udp_listen_addr" / "udpListenAddr" by "loose::column";
    #[tsify(optional, type = "Loose")]
    remote_url: String = "remote_url" / "remoteUrl" by "loose::string";
    #[doc = " The share token, or `true`: a token is configured but the browser"]
    #[doc = " does not see it. Only its presence counts; never copied into any output."]
    #[tsify(optional, type = "Token")]
    remote_token: TokenCell = "remote_token" / "remoteToken" by "serde::Deserialize::deserialize";
    #[doc = " JSON text; `portRangeStart`/`portRangeEnd` bound a share's ports."]
    #[tsify(optional, type = "Loose")]
    remote_config: String = "remote_config" / "remoteConfig" by "loose::string";
    #[doc = " 1 = online."]
    #[tsify(optional, type = "Loose")]
    status: i64 = "status" / "status" by "loose::int";
    #[doc = " 1 = shared by another panel (federated)."]
    #[tsify(optional, type = "Loose")]
    is_remote: i64 = "is_remote" / "isRemote" by "loose::int";
}

/// The ports a share's `remoteConfig` allows (the server's `asInt` on each
/// bound of the JSON object in that text).
#[derive(Debug, Default, Deserialize)]
struct RemotePorts {
    #[serde(default, rename = "portRangeStart", deserialize_with = "loose::int")]
    start: i64,
    #[serde(default, rename = "portRangeEnd", deserialize_with = "loose::int")]
    end: i64,
}

impl RemotePorts {
    /// (start, end) of the config text; (0, 0) for blank text, text that is
    /// not JSON or JSON that is not an object.
    fn of(config: &str) -> (i64, i64) {
        if config.is_empty() {
            return (0, 0);
        }
        // JSON inside a string: read into its own small tree.
        let arena = crate::json::tree::Arena::new();
        match crate::limits::read_tree(config, &arena) {
            Ok(cfg @ TreeValue::Object(_)) => {
                let ports: RemotePorts = from_tree(&cfg);
                (ports.start, ports.end)
            }
            _ => (0, 0),
        }
    }
}

/// Where a node row comes from: which keys it uses, and how its share
/// token reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSource {
    /// `ListNodes` of the panel's API: `remoteToken: true` marks a
    /// configured token without showing it (a browser never sees tokens).
    Api,
    /// A backup export: the API's keys, tokens stored as text (any other
    /// value reads as its text).
    Backup,
    /// The `node` table (column names of model.go).
    Database,
}

impl NodeRecord {
    /// A row read the way the repository's `nodeRecordFromModel` reads it.
    pub(crate) fn from_row(row: &TreeValue<'_>, source: NodeSource) -> NodeRecord {
        let cells: NodeRow = match source {
            NodeSource::Database => from_tree::<NodeColumns>(row).into(),
            NodeSource::Api | NodeSource::Backup => from_tree(row),
        };
        NodeRecord::from_cells(cells, source == NodeSource::Backup)
    }

    /// A row of the `node` table, read.
    pub fn from_columns(row: NodeColumns) -> NodeRecord {
        NodeRecord::from_cells(row.into(), false)
    }

    fn from_cells(row: NodeRow, token_as_text: bool) -> NodeRecord {
        let id = row.id;
        // The repository keeps the name untrimmed; messages show it trimmed.
        let (name, row_name) = if row.name.trim().is_empty() {
            (format!("node_{}", id), format!("node_{}", id))
        } else {
            (row.name.trim().to_string(), row.name)
        };
        let token = match row.remote_token {
            TokenCell::Marker(b) if token_as_text => TokenCell::Text(b.to_string()),
            TokenCell::Other(t) if token_as_text => TokenCell::Text(t),
            token => token,
        };
        let has_remote_token = match &token {
            TokenCell::Absent => false,
            TokenCell::Marker(b) => *b,
            TokenCell::Text(t) => !t.trim().is_empty(),
            TokenCell::Other(t) => !t.is_empty(),
        };
        // Exactly "" reads as every address.
        let listen = |addr: String| {
            if addr.is_empty() {
                "[::]".to_string()
            } else {
                addr
            }
        };
        NodeRecord {
            id,
            name,
            row_name,
            udp_listen_addr: listen(row.udp_listen_addr),
            server_ip: row.server_ip,
            server_ipv4: row.server_ip_v4,
            server_ipv6: row.server_ip_v6,
            port_range: row.port,
            tcp_listen_addr: listen(row.tcp_listen_addr),
            interface_name: row.interface_name,
            status: row.status,
            is_remote: row.is_remote == 1,
            remote_url: row.remote_url,
            has_remote_token,
            share_identity: ShareIdentity::of(id, &token),
            remote_port_range: match row.is_remote == 1 {
                true => RemotePorts::of(&row.remote_config),
                false => (0, 0),
            },
            forward_ports: Vec::new(),
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
        self.remote_port_range
    }

    /// The first port of the node's range spec not in `used` (the preview's
    /// pick: the server draws at random on create, takes the first on edit).
    /// The first port of its range that is not `used` and no forward holds.
    pub fn first_free_port(&self, used: &[i64]) -> Option<i64> {
        if self.forward_ports.is_empty() {
            return first_free_port(&self.port_range, used);
        }
        let taken: Vec<i64> = used.iter().chain(&self.forward_ports).copied().collect();
        first_free_port(&self.port_range, &taken)
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
    /// The row of each id, once there are more than [`NodeTable::SCANNED`]
    /// rows; fewer are searched in order: a tunnel's handful of nodes builds
    /// no keyed map, so planning it draws no hash keys (`crate::lookup`).
    index: Option<crate::lookup::LookupMap<i64, usize>>,
}

impl NodeTable {
    const SCANNED: usize = 16;

    pub fn new(records: impl IntoIterator<Item = NodeRecord>) -> NodeTable {
        let mut table = NodeTable::default();
        for rec in records {
            if rec.id > 0 && table.position(rec.id).is_none() {
                table.push(rec);
            }
        }
        table
    }

    fn push(&mut self, rec: NodeRecord) {
        let at = self.rows.len();
        if let Some(index) = &mut self.index {
            index.insert(rec.id, at);
        }
        self.rows.push(rec);
        if self.index.is_none() && self.rows.len() > Self::SCANNED {
            let mut index = crate::lookup::LookupMap::with_capacity(2 * self.rows.len());
            for (at, row) in self.rows.iter().enumerate() {
                index.insert(row.id, at);
            }
            self.index = Some(index);
        }
    }

    fn position(&self, id: i64) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(&id).copied(),
            None => self.rows.iter().position(|row| row.id == id),
        }
    }

    pub fn get(&self, id: i64) -> Option<&NodeRecord> {
        self.position(id).and_then(|i| self.rows.get(i))
    }

    pub fn rows(&self) -> &[NodeRecord] {
        &self.rows
    }

    /// Records the ports forwards hold, `(node id, port)` from their
    /// `forward_port` rows (ports of 0 or less hold nothing).
    pub fn hold_forward_ports(&mut self, held: impl IntoIterator<Item = (i64, i64)>) {
        for (node_id, port) in held {
            let at = self.position(node_id);
            if let Some(row) = at.and_then(|i| self.rows.get_mut(i)).filter(|_| port > 0) {
                row.forward_ports.push(port);
            }
        }
    }
}

/// The node rows of a node list (the panel API's camelCase rows), read as
/// [`ApiNodeRows`].
pub(crate) fn node_table(nodes: Option<&TreeValue<'_>>) -> NodeTable {
    nodes
        .and_then(|v| ApiNodeRows::deserialize(v).ok())
        .map_or_else(NodeTable::default, |rows| rows.0)
}

/// The kind of place a node holds in the tunnel (a plan's `role`; a
/// federated node is a middle or an exit: `Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Tsify)]
#[serde(rename_all = "lowercase")]
pub enum NodeRole {
    Entry,
    Middle,
    Exit,
}

impl NodeRole {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Entry => "entry",
            NodeRole::Middle => "middle",
            NodeRole::Exit => "exit",
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
    pub role: NodeRole,
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
/// object items of an array, in order; anything else lists none. Then the
/// number of items the array had, objects or not (what `maxNodesPerHop`
/// bounds).
#[derive(Debug, Default)]
pub struct NodeItems(pub Vec<TunnelNodeRef>, usize);

impl NodeItems {
    /// How many items the list had, objects or not.
    pub fn given(&self) -> usize {
        self.1
    }
}

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
    use crate::coerce::loose::{self, AnyValue, ObjectOnly};
    use serde::de::{Deserialize, Deserializer};
    use serde_json::Number;

    impl<'de> Deserialize<'de> for NodeItems {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let items: Vec<ObjectOnly<TunnelNodeRef>> = loose::list(d)?;
            let given = items.len();
            Ok(NodeItems(
                items.into_iter().filter_map(|i| i.0).collect(),
                given,
            ))
        }
    }

    impl<'de> Deserialize<'de> for Hops {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            loose::list(d).map(Hops)
        }
    }

    /// A probe field with its JSON type: `null`, text, a number, or other.
    impl<'de> AnyValue<'de> for ProbeCell {
        fn other() -> Self {
            ProbeCell::Other
        }
        fn null() -> Self {
            ProbeCell::Null
        }
        fn text(s: &str) -> Self {
            ProbeCell::Str(s.to_string())
        }
        fn number(n: Number) -> Self {
            ProbeCell::Num(n)
        }
    }

    impl<'de> Deserialize<'de> for ProbeCell {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            loose::any(d)
        }
    }
}

impl TunnelNode {
    /// The node `r` lists, in `role`: an entry has no port or connect IP
    /// of its own (the server ignores them), a protocol defaults to `tls`
    /// and a strategy to `round`.
    pub fn from_ref(r: &TunnelNodeRef, role: NodeRole) -> TunnelNode {
        let entry = role == NodeRole::Entry;
        TunnelNode {
            node_id: GoText::int(&r.node_id, 0),
            protocol: default_string(GoText::text(&r.protocol), "tls").to_string(),
            strategy: default_string(GoText::text(&r.strategy), "round").to_string(),
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
#[derive(Debug, Clone, Default, Deserialize, Tsify)]
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

/// The preview's `federation` input read once: each node's provider
/// answer, by its key as written (a value that is not an object gives
/// none; the input not an object: none at all).
#[derive(Debug, Clone, Default)]
pub struct FederationAnswers(BTreeMap<String, FederationAllocation>);

impl FederationAnswers {
    pub(crate) fn read(federation: Option<&TreeValue<'_>>) -> FederationAnswers {
        match federation {
            Some(f @ TreeValue::Object(_)) => from_tree(f),
            _ => FederationAnswers::default(),
        }
    }
}

impl<'de> Deserialize<'de> for FederationAnswers {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Inserted one by one: `collect` would sort first, one more compiled
        // sort (the keys come sorted and once).
        let mut answers = BTreeMap::new();
        for (k, v) in loose::object_entries::<D, FederationAllocation>(d)? {
            answers.insert(k, v);
        }
        Ok(FederationAnswers(answers))
    }
}

/// A node list as the panel's API gives it: the rows of its objects
/// (anything else in it, or a value that is not a list, gives none). Then
/// the number of items the list had, objects or not (what `maxNodes`
/// bounds).
#[derive(Debug, Default)]
pub struct ApiNodeRows(pub NodeTable, usize);

impl ApiNodeRows {
    /// How many items the list had, objects or not.
    pub fn given(&self) -> usize {
        self.1
    }
}

impl<'de> Deserialize<'de> for ApiNodeRows {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let rows: Vec<loose::ObjectOnly<NodeRow>> = loose::list(d)?;
        let given = rows.len();
        let records = rows.into_iter().filter_map(|r| r.0);
        Ok(ApiNodeRows(
            NodeTable::new(records.map(|row| NodeRecord::from_cells(row, false))),
            given,
        ))
    }
}

impl FederationInfo {
    /// The preview answer for `node_id`, with the documented defaults for
    /// whatever the input leaves out.
    pub fn lookup(federation: &FederationAnswers, node_id: i64) -> FederationInfo {
        let entry = federation.0.get(&node_id.to_string());
        let none = FederationAllocation::default();
        let a = entry.unwrap_or(&none);
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
                a.tcp_listen_addr.clone()
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

/// The TypeScript of the payload's open closed sets ([`TunnelPayload`]'s
/// `protocol`, `strategy` and `type`): the values the server knows, and any other.
pub const PAYLOAD_SETS_TS: &str = r#"
/**
 * A link protocol. Each closed set has an escape for values this version
 * does not know: `(string & {})` accepts any other string without losing
 * the suggestions.
 */
export type Protocol = 'tls' | 'mtls' | 'wss' | 'mwss' | 'ws' | 'mws' | 'tcp' | 'mtcp' | 'kcp' | 'quic' | 'grpc' | 'h2' | 'http2' | (string & {});
/** GOST's selector strategies (`best` is the panel's; the agent runs it as `fifo`). */
export type Strategy = 'round' | 'rr' | 'rand' | 'random' | 'fifo' | 'ha' | 'hash' | 'best' | (string & {});
/** 1 = port forward, 2 = tunnel forward (anything but 2 acts as 1). */
export type TunnelType = 1 | 2 | '1' | '2' | (number & {});
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The first row of an id wins, and every id is found, whether the
    /// table is searched in order or indexed; forwards' ports go to the row
    /// of their node.
    #[test]
    fn a_node_table_finds_the_first_row_of_each_id_at_every_size() {
        for n in [
            1,
            NodeTable::SCANNED,
            NodeTable::SCANNED + 1,
            3 * NodeTable::SCANNED,
        ] {
            let n = n as i64;
            let row = |id: i64, name: &str| read(json!({"id": id, "name": name}), NodeSource::Api);
            let rows = (1..=n).flat_map(|id| [row(id, "first"), row((id + 1) / 2, "again")]);
            let mut table = NodeTable::new(rows.chain([row(0, "zero"), row(-1, "negative")]));
            assert_eq!(table.rows().len(), n as usize, "{n}");
            for id in 1..=n {
                let name = table.get(id).map(|r| r.name.as_str());
                assert_eq!(name, Some("first"), "{n} {id}");
            }
            assert!(table.get(0).is_none() && table.get(n + 4).is_none());
            table.hold_forward_ports([(1, 40001), (n + 4, 40002), (1, 0)]);
            assert_eq!(
                table.get(1).map(|r| r.forward_ports.clone()),
                Some(vec![40001])
            );
        }
    }

    fn read(row: Value, source: NodeSource) -> NodeRecord {
        let arena = crate::json::tree::Arena::new();
        NodeRecord::from_row(&crate::encode::to_tree(&row, &arena), source)
    }

    #[test]
    fn a_token_reads_by_its_source() {
        // (token, source, configured, the same share as the text "t")
        let cases = [
            (json!(true), NodeSource::Api, true, false),
            (json!(false), NodeSource::Api, false, false),
            (json!(true), NodeSource::Backup, true, false),
            (json!(false), NodeSource::Backup, true, false),
            (json!(" t "), NodeSource::Api, true, true),
            (json!("  "), NodeSource::Database, false, false),
            (json!(7), NodeSource::Api, true, false),
            (json!(null), NodeSource::Backup, false, false),
        ];
        let text = read(json!({"id": 9, "remoteToken": "t"}), NodeSource::Api);
        for (token, source, configured, same_share) in cases {
            let key = match source {
                NodeSource::Database => "remote_token",
                _ => "remoteToken",
            };
            let row = read(json!({"id": 9, key: token}), source);
            assert_eq!(row.has_remote_token, configured, "{token} {source:?}");
            assert_eq!(
                row.share_identity == text.share_identity,
                same_share,
                "{token} {source:?}"
            );
        }
        // A backup's number is its text: two rows with token 7 are one share.
        let a = read(json!({"id": 1, "remoteToken": 7}), NodeSource::Backup);
        let b = read(json!({"id": 2, "remoteToken": "7"}), NodeSource::Backup);
        assert_eq!(a.share_identity, b.share_identity);
        let c = read(json!({"id": 1, "remoteToken": 7}), NodeSource::Api);
        let d = read(json!({"id": 2, "remoteToken": 7}), NodeSource::Api);
        assert_ne!(c.share_identity, d.share_identity);
    }

    #[test]
    fn a_read_row_never_shows_its_token() {
        let given = json!({"id": 3, "isRemote": 1, "remoteUrl": "https://p", "remoteToken": "tok-SECRET-1"});
        let arena = crate::json::tree::Arena::new();
        let row: NodeRow = from_tree(&crate::encode::to_tree(&given, &arena));
        assert!(!format!("{row:?}").contains("SECRET"), "{row:?}");
        let record = read(given.clone(), NodeSource::Api);
        assert!(record.has_remote_token);
        assert!(!format!("{record:?}").contains("SECRET"), "{record:?}");
    }

    #[test]
    fn each_source_reads_its_own_keys() {
        let api = json!({"id": "4", "name": " n ", "serverIp": "10.0.0.1", "server_ip": "10.0.0.2",
            "tcpListenAddr": "", "isRemote": 1.0, "status": "1", "port": " 1-2 "});
        let row = read(api.clone(), NodeSource::Api);
        assert_eq!(
            (row.id, row.name.as_str(), row.row_name.as_str()),
            (4, "n", " n ")
        );
        assert_eq!(row.server_ip, "10.0.0.1");
        assert_eq!(row.tcp_listen_addr, "[::]");
        assert_eq!(
            (row.is_remote, row.status, row.port_range.as_str()),
            (true, 1, " 1-2 ")
        );
        let db = read(api, NodeSource::Database);
        assert_eq!(db.server_ip, "10.0.0.2");
        assert!(!db.is_remote);
        let unnamed = read(json!({"id": 5}), NodeSource::Database);
        assert_eq!(unnamed.name, "node_5");
    }

    #[test]
    fn federation_answers_are_the_object_entries_by_their_key() {
        let given =
            json!({"2": {"runtimeId": "21", "allocatedPort": 0}, "3": 7, " 4": {"runtimeId": 41}});
        let arena = crate::json::tree::Arena::new();
        let tree = |v: &Value| crate::encode::to_tree(v, &arena);
        let answers = FederationAnswers::read(Some(&tree(&given)));
        let two = FederationInfo::lookup(&answers, 2);
        assert_eq!(
            (two.given, two.runtime_id, two.allocated_port),
            (true, 21, None)
        );
        let three = FederationInfo::lookup(&answers, 3);
        assert_eq!((three.given, three.runtime_id), (false, 30));
        assert!(
            !FederationInfo::lookup(&answers, 4).given,
            "keys are compared as written"
        );
        let none = FederationAnswers::read(Some(&tree(&json!([1]))));
        assert_eq!(FederationInfo::lookup(&none, 2).tcp_listen_addr, "[::]");
    }

    #[test]
    fn a_share_config_is_read_with_its_row() {
        let config = r#"{"portRangeStart": "45000", "portRangeEnd": 45010.0}"#;
        let shared = read(
            json!({"id": 1, "isRemote": 1, "remoteConfig": config}),
            NodeSource::Api,
        );
        assert_eq!(shared.remote_port_range(), (45000, 45010));
        let local = read(
            json!({"id": 1, "isRemote": 0, "remoteConfig": config}),
            NodeSource::Api,
        );
        assert_eq!(local.remote_port_range(), (0, 0));
        for text in ["", "not json", "[45000]", "{\"portRangeStart\": \"x\"}"] {
            let row = read(
                json!({"id": 1, "is_remote": 1, "remote_config": text}),
                NodeSource::Database,
            );
            assert_eq!(row.remote_port_range(), (0, 0), "{text}");
        }
    }
}
