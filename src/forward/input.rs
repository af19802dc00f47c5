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

/// `POST /api/v1/forward/create` and `/update` bodies (mutations.go:1835,
/// :1966). Fields the server tests for presence stay `Option<GoText>`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ForwardBody {
    pub id: Option<GoText>,
    pub tunnel_id: Option<GoText>,
    pub name: Option<GoText>,
    pub remote_addr: Option<GoText>,
    pub strategy: Option<GoText>,
    pub in_port: Option<GoText>,
    /// Present-but-null and absent differ for these three (`Some(None)` / `None`).
    #[serde(deserialize_with = "loose::keyed")]
    pub in_ip: Option<Option<GoText>>,
    #[serde(deserialize_with = "loose::keyed")]
    pub speed_id: Option<Option<GoText>>,
    #[serde(deserialize_with = "loose::keyed")]
    pub ip_speed_id: Option<Option<GoText>>,
    pub max_conn: Option<GoText>,
    pub ip_max_conn: Option<GoText>,
    pub proxy_protocol: Option<GoText>,
}

/// The user making the request, as the forward modes give it (camelCase,
/// plus the token's `roleId`) or as a `user` row of a database dump stores
/// it (snake_case columns, the name in `user`); a backup export's `users`
/// read as the former. Written as its `user` row (no password column).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UserInput {
    #[serde(deserialize_with = "loose::int")]
    pub id: i64,
    /// 0: administrator; anything else: a normal user.
    #[serde(alias = "role_id", deserialize_with = "loose::int")]
    pub role_id: i64,
    #[serde(alias = "user", deserialize_with = "loose::column")]
    pub name: String,
    #[serde(alias = "max_conn", deserialize_with = "loose::int")]
    pub max_conn: i64,
    #[serde(deserialize_with = "loose::int")]
    pub status: i64,
    #[serde(alias = "exp_time", deserialize_with = "loose::int")]
    pub exp_time: i64,
    /// Quota in GB.
    #[serde(deserialize_with = "loose::int")]
    pub flow: i64,
    #[serde(alias = "in_flow", deserialize_with = "loose::int")]
    pub in_flow: i64,
    #[serde(alias = "out_flow", deserialize_with = "loose::int")]
    pub out_flow: i64,
    /// Most active forwards; 0 = no limit.
    #[serde(deserialize_with = "loose::int")]
    pub num: i64,
}

impl Default for UserInput {
    fn default() -> Self {
        UserInput {
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

impl UserInput {
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

impl Encode for UserInput {
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

/// What an agent holds before the request, and how it answers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AgentInput {
    /// An agent from before go-gost 2e2c182: `UpdateService` of a service it
    /// does not have fails (`service X not found`) instead of creating it.
    pub legacy: bool,
    #[serde(deserialize_with = "loose::strings")]
    pub services: Vec<String>,
    #[serde(deserialize_with = "loose::strings")]
    pub limiters: Vec<String>,
    #[serde(deserialize_with = "loose::strings")]
    pub climiters: Vec<String>,
}

/// What the forward modes add to a tunnel input (`tests/data/README.md`,
/// "forward-vectors.jsonl").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ForwardContext {
    /// The request body of `forward-create` / `forward-update`.
    pub forward: Option<ForwardBody>,
    /// Forwards created (by the same user) before the request.
    pub create_forwards: Vec<ForwardBody>,
    pub user: UserInput,
    pub speed_limits: Vec<SpeedLimitRow>,
    pub user_tunnel: Option<UserTunnelRow>,
    /// More `user` and `user_tunnel` rows: the owners of stored forwards
    /// other than the requesting user (a tunnel edit re-syncs each forward
    /// under its own owner's rows).
    pub users: Vec<UserInput>,
    pub user_tunnels: Vec<UserTunnelRow>,
    /// Forwards already stored, each with its `ports`.
    pub forwards: Vec<ForwardRow>,
    /// By node id.
    pub agents: Entries<AgentInput>,
    /// The panel's `vite_config` values (`allow_local_remote_addr`).
    pub config: Entries<GoText>,
    /// Nodes whose agent is not connected.
    #[serde(deserialize_with = "loose::ints")]
    pub offline: Vec<i64>,
    /// The request's time, Unix milliseconds (expiry checks); default: now.
    #[serde(deserialize_with = "loose::nullable_int")]
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

/// The forward tables of a redeploy's `db`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ForwardTables {
    pub forward: Vec<ForwardRow>,
    pub forward_port: Vec<ForwardPortRow>,
    pub speed_limit: Vec<SpeedLimitRow>,
    pub user: Vec<UserInput>,
    pub user_tunnel: Vec<UserTunnelRow>,
}
