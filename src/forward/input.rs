//! The inputs of the forward paths, typed: the request bodies the panel's
//! forward form posts, the rows the server reads (`forward`, `forward_port`,
//! `speed_limit`, `user`, `user_tunnel`) and what the agents already hold.
//! Every field is read the way the server reads it (`asString`, `asInt`,
//! nullable columns), through the shared readers of [`crate::coerce`].

use crate::coerce::{loose, GoText};
use crate::encode::{Encode, Object, Writer};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;
use tsify_next::Tsify;

/// The panel's forward form body (`POST /api/v1/forward/create` and
/// `/update`, mutations.go:1835 and :1966; the frontend's
/// `ForwardMutationPayload`). Read as the server reads it: numbers may be
/// strings, `null` is absent.
// Fields the server tests for presence stay `Option<GoText>`; for `inIp`,
// `speedId` and `ipSpeedId` present-but-null and absent differ
// (`Some(None)` / `None`).
#[derive(Debug, Clone, Default, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
pub struct ForwardPayload {
    /// `forward-update`: the forward edited.
    #[tsify(optional, type = "Loose")]
    pub id: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub tunnel_id: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub name: Option<GoText>,
    /// `host:port` targets, one per line or comma separated.
    #[tsify(optional, type = "Loose")]
    pub remote_addr: Option<GoText>,
    /// The targets' selector strategy (default `fifo`).
    #[tsify(optional, type = "Strategy | null")]
    pub strategy: Option<GoText>,
    /// Absent or 0: the first port free on every entry node.
    #[tsify(optional, type = "Loose")]
    pub in_port: Option<GoText>,
    #[serde(deserialize_with = "loose::keyed")]
    #[tsify(optional, type = "Loose")]
    pub in_ip: Option<Option<GoText>>,
    /// A `speed_limit` row's id (`null`: none).
    #[serde(deserialize_with = "loose::keyed")]
    #[tsify(optional, type = "Loose")]
    pub speed_id: Option<Option<GoText>>,
    #[serde(deserialize_with = "loose::keyed")]
    #[tsify(optional, type = "Loose")]
    pub ip_speed_id: Option<Option<GoText>>,
    #[tsify(optional, type = "Loose")]
    pub max_conn: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub ip_max_conn: Option<GoText>,
    #[tsify(optional, type = "Loose")]
    pub proxy_protocol: Option<GoText>,
}

/// The user making a forward request (its `user` row and the token's
/// role), camelCase; read too from a `user` row of a database dump
/// (snake_case columns, the name in `user`) and a backup export's `users`.
/// Written as its `user` row (no password column).
#[derive(Debug, Clone, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
pub struct ForwardUser {
    /// Default 1.
    #[serde(deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub id: i64,
    /// 0: administrator (the default); anything else: a normal user.
    #[serde(alias = "role_id", deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub role_id: i64,
    /// The account name (default `admin` for id 1, `user<id>` for others).
    #[serde(alias = "user", deserialize_with = "loose::column")]
    #[tsify(optional, type = "Loose")]
    pub name: String,
    #[serde(alias = "max_conn", deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub max_conn: i64,
    /// Default 1.
    #[serde(deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub status: i64,
    /// Unix milliseconds; 0: never.
    #[serde(alias = "exp_time", deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub exp_time: i64,
    /// Quota in GB.
    #[serde(deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub flow: i64,
    #[serde(alias = "in_flow", deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub in_flow: i64,
    #[serde(alias = "out_flow", deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub out_flow: i64,
    /// Most active forwards; 0: no limit.
    #[serde(deserialize_with = "loose::int")]
    #[tsify(optional, type = "Loose")]
    pub num: i64,
}

impl Default for ForwardUser {
    fn default() -> Self {
        ForwardUser {
            id: 1,
            role_id: 0,
            name: String::new(),
            max_conn: 0,
            status: 1,
            exp_time: 0,
            flow: 0,
            in_flow: 0,
            out_flow: 0,
            num: 0,
        }
    }
}

impl ForwardUser {
    /// The `user.user` column: the name given, else the panel's first
    /// account `admin` for id 1 and `user<id>` for the others.
    pub fn user_name(&self) -> String {
        if !self.name.is_empty() {
            self.name.clone()
        } else if self.id == 1 {
            "admin".into()
        } else {
            format!("user{}", self.id)
        }
    }
}

/// Writes a row's columns as the database names them.
fn columns(out: &mut Writer<'_>, write: impl FnOnce(&mut Object<'_, '_>)) {
    let mut row = Object::new(out);
    write(&mut row);
    row.end();
}

impl Encode for ForwardUser {
    fn encode(&self, out: &mut Writer<'_>) {
        columns(out, |row| {
            row.field("id", &self.id)
                .field("user", &self.name)
                .field("role_id", &self.role_id)
                .field("max_conn", &self.max_conn)
                .field("status", &self.status)
                .field("exp_time", &self.exp_time)
                .field("flow", &self.flow)
                .field("in_flow", &self.in_flow)
                .field("out_flow", &self.out_flow)
                .field("num", &self.num);
        })
    }
}

impl Encode for SpeedLimitRow {
    fn encode(&self, out: &mut Writer<'_>) {
        columns(out, |row| {
            row.field("id", &self.id).field("speed", &self.speed);
        })
    }
}

impl Encode for UserTunnelRow {
    fn encode(&self, out: &mut Writer<'_>) {
        columns(out, |row| {
            row.field("id", &self.id)
                .field("user_id", &self.user_id)
                .field("tunnel_id", &self.tunnel_id)
                .field("speed_id", &self.speed_id)
                .field("num", &self.num)
                .field("flow", &self.flow)
                .field("in_flow", &self.in_flow)
                .field("out_flow", &self.out_flow)
                .field("exp_time", &self.exp_time)
                .field("status", &self.status);
        })
    }
}

/// A `speed_limit` row.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SpeedLimitRow {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    /// Mbit/s.
    #[serde(deserialize_with = "loose::int")]
    pub speed: i64,
}

/// A `user_tunnel` row: a normal user's grant of one tunnel (a backup
/// export's `userTunnels` item reads with its camelCase keys).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct UserTunnelRow {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    #[serde(alias = "userId", deserialize_with = "loose::int")]
    pub user_id: i64,
    #[serde(alias = "tunnelId", deserialize_with = "loose::int")]
    pub tunnel_id: i64,
    #[serde(alias = "speedId", deserialize_with = "loose::nullable_int")]
    pub speed_id: Option<i64>,
    #[serde(deserialize_with = "loose::int")]
    pub num: i64,
    #[serde(deserialize_with = "loose::int")]
    pub flow: i64,
    #[serde(alias = "inFlow", deserialize_with = "loose::int")]
    pub in_flow: i64,
    #[serde(alias = "outFlow", deserialize_with = "loose::int")]
    pub out_flow: i64,
    #[serde(alias = "expTime", deserialize_with = "loose::int")]
    pub exp_time: i64,
    #[serde(deserialize_with = "loose::int")]
    pub status: i64,
}

/// A `forward` row; in the forward modes' `forwards` list it carries its
/// `forward_port` rows as `ports`. A backup export's `forwards` item reads
/// with its camelCase keys (model.go `ForwardBackup`), its ports in
/// `forwardPorts`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ForwardRow {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    #[serde(alias = "userId", deserialize_with = "loose::int")]
    pub user_id: i64,
    #[serde(alias = "userName", deserialize_with = "loose::column")]
    pub user_name: String,
    #[serde(deserialize_with = "loose::column")]
    pub name: String,
    #[serde(alias = "tunnelId", deserialize_with = "loose::int")]
    pub tunnel_id: i64,
    #[serde(alias = "remoteAddr", deserialize_with = "loose::column")]
    pub remote_addr: String,
    #[serde(deserialize_with = "loose::column")]
    pub strategy: String,
    #[serde(alias = "inFlow", deserialize_with = "loose::int")]
    pub in_flow: i64,
    #[serde(alias = "outFlow", deserialize_with = "loose::int")]
    pub out_flow: i64,
    #[serde(deserialize_with = "loose::int")]
    pub status: i64,
    #[serde(deserialize_with = "loose::int")]
    pub inx: i64,
    #[serde(alias = "speedId", deserialize_with = "loose::nullable_int")]
    pub speed_id: Option<i64>,
    #[serde(alias = "maxConn", deserialize_with = "loose::int")]
    pub max_conn: i64,
    #[serde(alias = "ipMaxConn", deserialize_with = "loose::int")]
    pub ip_max_conn: i64,
    #[serde(alias = "ipSpeedId", deserialize_with = "loose::nullable_int")]
    pub ip_speed_id: Option<i64>,
    #[serde(alias = "proxyProtocol", deserialize_with = "loose::int")]
    pub proxy_protocol: i64,
    #[serde(alias = "forwardPorts")]
    pub ports: Vec<ForwardPortRow>,
}

/// A `forward_port` row: the port of one forward on one entry node.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ForwardPortRow {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    #[serde(alias = "forwardId", deserialize_with = "loose::int")]
    pub forward_id: i64,
    #[serde(alias = "nodeId", deserialize_with = "loose::int")]
    pub node_id: i64,
    #[serde(deserialize_with = "loose::int")]
    pub port: i64,
    /// `sql.NullString`: `None` is SQL NULL.
    pub in_ip: Option<String>,
}

/// What one node's agent holds before the request, and how it answers.
#[derive(Debug, Clone, Default, Deserialize, Tsify)]
#[serde(default)]
pub struct AgentState {
    /// An agent from before go-gost 2e2c182: `UpdateService` of a service it
    /// does not have fails (`service X not found`) instead of creating it.
    #[tsify(optional)]
    pub legacy: bool,
    /// Service names it runs.
    #[serde(deserialize_with = "loose::strings")]
    #[tsify(optional)]
    pub services: Vec<String>,
    /// Limiter names it holds.
    #[serde(deserialize_with = "loose::strings")]
    #[tsify(optional)]
    pub limiters: Vec<String>,
    /// Connection limiter names it holds.
    #[serde(deserialize_with = "loose::strings")]
    #[tsify(optional)]
    pub climiters: Vec<String>,
}

/// What the forward modes add to a tunnel input (`tests/data/README.md`,
/// "forward-vectors.jsonl"): who asks, and what the panel and its agents
/// hold; a lifecycle forward step carries it too (its rows kept for later
/// steps).
#[derive(Debug, Clone, Default, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
pub struct ForwardContext {
    /// `forward-create`: the create body; `forward-update`: the update body
    /// (`id` default: the last created forward's).
    #[tsify(optional, type = "ForwardPayload | null")]
    #[serde(deserialize_with = "loose::request_body")]
    pub forward: Option<ForwardPayload>,
    /// `forward-update` and edits: create bodies run first, by `user`.
    #[tsify(optional)]
    pub create_forwards: Vec<ForwardPayload>,
    /// The user making the request (default: the administrator, id 1).
    #[tsify(optional)]
    pub user: ForwardUser,
    /// `speed_limit` rows: `{id, speed, ...}` (speed in Mbit/s).
    #[tsify(optional, type = "DbRow[]")]
    pub speed_limits: Vec<SpeedLimitRow>,
    /// The `user_tunnel` row of a normal user's grant of the tunnel:
    /// `{id, user_id, tunnel_id, speed_id, num, flow, in_flow, out_flow, exp_time, status}`.
    #[tsify(optional, type = "DbRow | null")]
    pub user_tunnel: Option<UserTunnelRow>,
    /// The `user` rows of other owners of `forwards` (a tunnel edit
    /// re-syncs each forward under its own owner's rows).
    #[tsify(optional, type = "DbRow[]")]
    pub users: Vec<ForwardUser>,
    /// Their `user_tunnel` rows.
    #[tsify(optional, type = "DbRow[]")]
    pub user_tunnels: Vec<UserTunnelRow>,
    /// Forwards already stored, each `forward` row with its `forward_port`
    /// rows as `ports`.
    #[tsify(optional, type = "(DbRow & { ports?: DbRow[] })[]")]
    pub forwards: Vec<ForwardRow>,
    /// What each node's agent holds before the request, keyed by node id
    /// (an older agent: `legacy`).
    #[tsify(optional, type = "{ [nodeId: string]: AgentState }")]
    pub agents: Entries<AgentState>,
    /// The panel's `vite_config` values (`allow_local_remote_addr`: `"true"`).
    #[tsify(optional, type = "{ [key: string]: Loose }")]
    pub config: Entries<GoText>,
    /// Ids of nodes whose agent is not connected (no command, a warning).
    #[serde(deserialize_with = "loose::ints")]
    #[tsify(optional, type = "Loose[]")]
    pub offline: Vec<i64>,
    /// The request's time, Unix milliseconds (expiry checks; default: now).
    #[serde(deserialize_with = "loose::nullable_int")]
    #[tsify(optional, type = "Loose")]
    pub now: Option<i64>,
}

/// An object's entries in key order, each key once (as `serde_json`'s map
/// holds them): read like a `BTreeMap`, same errors, without a tree
/// compiled for each value type.
#[derive(Debug, Clone)]
pub struct Entries<V>(pub Vec<(String, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<V> Entries<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<V> {
            type Value = Entries<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }

        d.deserialize_map(EntriesVisitor(PhantomData))
    }
}

/// The forward tables of a redeploy's `db`
/// ([`crate::planner::stored::StoredTables`]).
#[derive(Debug, Clone, Default)]
pub struct ForwardTables {
    pub forward: Vec<ForwardRow>,
    pub forward_port: Vec<ForwardPortRow>,
    pub speed_limit: Vec<SpeedLimitRow>,
    pub user: Vec<ForwardUser>,
    pub user_tunnel: Vec<UserTunnelRow>,
}
