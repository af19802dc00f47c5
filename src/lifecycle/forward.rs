//! Forward steps: the forward list's requests (`forwardCreate`,
//! `forwardEdit`, `forwardPause`, `forwardResume`, `forwardDelete`) replayed
//! on the panel's rows and the agents' registries.
//!
//! The replay keeps the panel's tables ([`Store`]: forwards, their ports,
//! and the users, grants and speed limits the steps gave) across steps,
//! and the last `{tunnel, nodes, federation}` input each tunnel was
//! applied with: a request meets the tunnels as those inputs create them
//! and the agents as the replay left them. It runs through
//! [`crate::forward::Panel`]; what it sent is applied as the agents
//! answered (a `failed` command changes nothing), and [`super::leftover`]
//! says what it left behind.

use super::leftover::Leftover;
use super::{step_path, target_of, Replay};
use crate::coerce::loose;
use crate::error::ApiError;
use crate::forward::agents::Agents;
use crate::forward::input::{
    AgentState, Entries, ForwardPayload, ForwardUser, SpeedLimitRow, UserTunnelRow,
};
use crate::forward::rejection::ForwardRejection;
use crate::forward::store::{Store, TunnelRow};
use crate::forward::Panel;
use crate::json::object;
use crate::json::tree::TreeValue;
use crate::model::NodeTable;
use crate::plan::Command;
use serde::Deserialize;
use serde_json::{Map, Value};
use tsify_next::Tsify;

/// A forward request of the forward list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ForwardOp {
    Create,
    Edit,
    Pause,
    Resume,
    Delete,
}

impl ForwardOp {
    pub(super) fn as_str(self) -> &'static str {
        super::LifecycleOp::from(self).as_str()
    }

    /// Why what this request leaves behind stays, by whether it failed.
    fn leftover(self, failed: bool) -> Leftover {
        match (self, failed) {
            (ForwardOp::Create, true) => Leftover::CreateFailed,
            (ForwardOp::Edit, true) => Leftover::EditFailed,
            (ForwardOp::Edit, false) => Leftover::Edit,
            (ForwardOp::Delete, _) => Leftover::Delete,
            _ => Leftover::Control,
        }
    }
}

/// A forward step as written: the form's body or the forward's id, and the
/// context of the forward modes (README, "Forwards").
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
struct ForwardStep {
    /// `forwardCreate` / `forwardEdit`: the forward form's body.
    #[tsify(optional, type = "ForwardPayload | null")]
    forward: Option<ForwardPayload>,
    /// `forwardPause` / `forwardResume` / `forwardDelete`: the forward's id.
    #[serde(deserialize_with = "loose::nullable_int")]
    #[tsify(optional, type = "Loose")]
    id: Option<i64>,
    /// Who asks (kept for later steps; default: the administrator).
    #[tsify(optional, type = "ForwardUser | null")]
    user: Option<ForwardUser>,
    /// `speed_limit` rows, kept for later steps.
    #[tsify(optional, type = "DbRow[]")]
    speed_limits: Vec<SpeedLimitRow>,
    /// The user's `user_tunnel` row, kept for later steps.
    #[tsify(optional, type = "DbRow | null")]
    user_tunnel: Option<UserTunnelRow>,
    /// What each agent holds beyond what the replay deployed, by node id.
    #[tsify(optional, type = "{ [nodeId: string]: AgentState }")]
    agents: Entries<AgentState>,
    /// The panel's `vite_config` values.
    #[tsify(optional, type = "{ [key: string]: Loose }")]
    config: Entries<crate::coerce::GoText>,
    /// Nodes whose agent is not connected.
    #[serde(deserialize_with = "loose::ints")]
    #[tsify(optional, type = "Loose[]")]
    offline: Vec<i64>,
    /// The request's time, Unix milliseconds.
    #[serde(deserialize_with = "loose::nullable_int")]
    #[tsify(optional, type = "Loose")]
    now: Option<i64>,
}

/// A row's id, read as the server reads it.
#[derive(Debug, Default, Deserialize)]
struct RowId {
    #[serde(default, deserialize_with = "loose::int")]
    id: i64,
}

fn row_id(row: &TreeValue<'_>) -> i64 {
    RowId::deserialize(row).map_or(0, |r| r.id)
}

/// The request a step makes.
enum Request {
    Create(ForwardPayload),
    Edit(ForwardPayload),
    Control(ForwardOp, i64),
}

/// A tunnel input as a forward request needs it: its payload, node rows
/// and federation entries, in the step's tree.
struct TunnelParts<'a> {
    tunnel: Option<&'a TreeValue<'a>>,
    nodes: Option<&'a [TreeValue<'a>]>,
    federation: Option<&'a TreeValue<'a>>,
    /// A redeploy input's tunnel.
    tunnel_id: Option<i64>,
}

/// A redeploy input's `tunnelId`, read as the server reads it.
#[derive(Debug, Default, Deserialize)]
struct TunnelIdField {
    #[serde(default, rename = "tunnelId", deserialize_with = "loose::nullable_int")]
    tunnel_id: Option<i64>,
}

impl<'a> TunnelParts<'a> {
    /// The parts of `input`; `None` when one has the wrong JSON type.
    fn of(input: &'a TreeValue<'a>) -> Option<TunnelParts<'a>> {
        let obj = input.as_object()?;
        let given = |key: &str| obj.get(key).filter(|v| !v.is_null());
        let nodes = match given("nodes") {
            None => None,
            Some(v) => Some(v.as_array()?),
        };
        let federation = match given("federation") {
            None => None,
            Some(v @ TreeValue::Object(_)) => Some(v),
            Some(_) => return None,
        };
        Some(TunnelParts {
            tunnel: given("tunnel"),
            nodes,
            federation,
            tunnel_id: TunnelIdField::deserialize(input).ok()?.tunnel_id,
        })
    }
}

/// Inserts or replaces the entry of `id` in a list sorted by id.
fn upsert<T>(list: &mut Vec<(i64, T)>, id: i64, value: T) {
    match list.binary_search_by_key(&id, |(k, _)| *k) {
        Ok(at) => {
            if let Some(slot) = list.get_mut(at) {
                slot.1 = value;
            }
        }
        Err(at) => list.insert(at, (id, value)),
    }
}

/// The panel's rows and the tunnels as they were applied.
#[derive(Debug, Default)]
pub(super) struct Forwards {
    pub(super) store: Store,
    /// The payload each tunnel was last applied with, by id.
    tunnels: Vec<(i64, Value)>,
    /// The node rows of the applied inputs, by id (a later row wins), and
    /// their federation entries.
    nodes: Vec<(i64, Value)>,
    federation: Map<String, Value>,
}

/// The panel's node table and tunnel rows, as the applied inputs create them.
struct World {
    table: NodeTable,
    federation: crate::model::FederationAnswers,
    tunnels: Vec<TunnelRow>,
}

impl Forwards {
    /// Remembers the input tunnel `t` was applied with (a `{db}` input
    /// gives no payload: forward requests then find no such tunnel).
    /// The parts are kept as values: the replay builds later inputs from
    /// them ([`Forwards::world`], `with_forwards`).
    pub(super) fn remember(&mut self, t: i64, input: &TreeValue<'_>) {
        let Some(parts) = TunnelParts::of(input) else {
            return;
        };
        let Some(tunnel) = parts.tunnel else {
            return;
        };
        let value = |v: &TreeValue<'_>| crate::encode::to_value(v);
        upsert(&mut self.tunnels, t, value(tunnel));
        for row in parts.nodes.unwrap_or_default() {
            upsert(&mut self.nodes, row_id(row), value(row));
        }
        if let Some(Value::Object(federation)) = parts.federation.map(value) {
            self.federation.extend(federation);
        }
    }

    /// The payload tunnel `t` was last applied with.
    pub(super) fn payload(&self, t: i64) -> Option<&Value> {
        let at = self.tunnels.binary_search_by_key(&t, |(k, _)| *k).ok()?;
        self.tunnels.get(at).map(|(_, v)| v)
    }

    /// `DeleteTunnelCascade` (repository_mutations.go:579-601): the
    /// tunnel's forwards, their ports and its grants go with it.
    pub(super) fn drop_tunnel(&mut self, t: i64) {
        for f in self.store.forwards_of_tunnel(t) {
            self.store.delete_forward(f.id);
        }
        self.store.user_tunnels.retain(|g| g.tunnel_id != t);
        self.tunnels.retain(|(id, _)| *id != t);
    }

    /// Keeps the rows a step gives (a later row of the same id replaces
    /// the earlier one); the requester's row is stored when it is new.
    fn absorb(&mut self, step: &ForwardStep) -> ForwardUser {
        for s in &step.speed_limits {
            self.store.speeds.insert(s.id, s.speed);
        }
        if let Some(grant) = &step.user_tunnel {
            self.store.user_tunnels.retain(|g| g.id != grant.id);
            self.store.user_tunnels.push(grant.clone());
        }
        let user = step.user.clone().unwrap_or_default();
        if step.user.is_some() || self.store.user(user.id).is_none() {
            self.store.users.insert(user.id, user.clone());
        }
        user
    }

    /// The tunnels a request reads: the one a body names, and the one the
    /// forward it names rides on.
    fn tunnels_read(&self, request: &Request) -> Vec<i64> {
        let (body, id) = match request {
            Request::Create(body) => (Some(body), None),
            Request::Edit(body) => (Some(body), Some(crate::coerce::GoText::int(&body.id, 0))),
            Request::Control(_, id) => (None, Some(*id)),
        };
        let named = body.map(|b| crate::coerce::GoText::int(&b.tunnel_id, 0));
        let stored = id
            .and_then(|id| self.store.forward(id))
            .map(|f| f.tunnel_id);
        let mut ids: Vec<i64> = named.into_iter().chain(stored).collect();
        ids.dedup();
        ids
    }

    /// The applied tunnels `ids` created from their inputs, on one node
    /// table of every applied input's nodes.
    fn world(&self, ids: &[i64]) -> World {
        let rows: Vec<Value> = self.nodes.iter().map(|(_, r)| r.clone()).collect();
        let mut input = Map::new();
        input.insert("nodes".into(), Value::from(rows));
        input.insert("federation".into(), Value::Object(self.federation.clone()));
        let mut input = Value::Object(input);
        let limits = crate::limits::Limits::default();
        let mut tunnels = Vec::new();
        for payload in ids.iter().filter_map(|t| self.payload(*t)) {
            if let Value::Object(fields) = &mut input {
                fields.insert("tunnel".into(), payload.clone());
            }
            // The planner reads a document tree: this one encoded from the
            // input the replay built (no text).
            let arena = crate::json::tree::Arena::new();
            let doc = crate::encode::to_tree(&input, &arena);
            if let Ok(outcome) = crate::planner::request::create(&doc, &limits) {
                tunnels.push(crate::forward::modes::tunnel_row(&outcome));
            }
        }
        let arena = crate::json::tree::Arena::new();
        let doc = crate::encode::to_tree(&input, &arena);
        World {
            table: crate::model::node_table(doc.get("nodes")),
            federation: crate::model::FederationAnswers::read(doc.get("federation")),
            tunnels,
        }
    }

    /// Runs one request on the panel: its answer (a new forward's id), what
    /// it sent, and its warnings.
    fn run(
        &mut self,
        step: &ForwardStep,
        user: ForwardUser,
        agents: &Entries<AgentState>,
        request: &Request,
    ) -> Ran {
        let world = self.world(&self.tunnels_read(request));
        let mut store = std::mem::take(&mut self.store);
        store.tunnels = world.tunnels;
        let mut panel = Panel {
            store,
            nodes: &world.table,
            agents: Agents::new(&world.table, &world.federation, agents, &step.offline),
            user,
            allow_local: crate::forward::allows_local(&step.config),
            now: step.now.or_else(crate::forward::clock_now),
            assumed: vec![],
            warnings: vec![],
        };
        let answer = match request {
            Request::Create(body) => panel.create(body).map(Some),
            Request::Edit(body) => panel.update(body).map(|_| None),
            Request::Control(ForwardOp::Pause, id) => panel.pause(*id).map(|_| None),
            Request::Control(ForwardOp::Resume, id) => panel.resume(*id).map(|_| None),
            Request::Control(_, id) => panel.delete(*id).map(|_| None),
        };
        let Panel {
            store,
            agents,
            warnings,
            ..
        } = panel;
        self.store = store;
        Ran {
            answer,
            sent: agents.log,
            warnings,
        }
    }
}

/// What a request did.
struct Ran {
    answer: Result<Option<i64>, ForwardRejection>,
    sent: Vec<Command>,
    warnings: Vec<String>,
}

/// Reads a forward step: its context and the request it makes.
fn read(step: &TreeValue<'_>, op: ForwardOp, i: usize) -> Result<(ForwardStep, Request), ApiError> {
    let bad = |what: String, at: &str| ApiError::new("IN001", what, step_path(i, at));
    let mut read = ForwardStep::deserialize(step).map_err(|e| bad(e.to_string(), ""))?;
    let name = op.as_str();
    let request = match (op, read.forward.take()) {
        (ForwardOp::Create, Some(body)) => Request::Create(body),
        (ForwardOp::Edit, Some(body)) => Request::Edit(body),
        (ForwardOp::Create | ForwardOp::Edit, None) => {
            return Err(bad(
                format!("{name} needs forward, the forward form's body"),
                "/forward",
            ))
        }
        (_, body) => {
            let from_body = body.map(|b| crate::coerce::GoText::int(&b.id, 0));
            match read.id.or(from_body).filter(|id| *id > 0) {
                Some(id) => Request::Control(op, id),
                None => return Err(bad(format!("{name} needs id, the forward's id"), "/id")),
            }
        }
    };
    Ok((read, request))
}

impl Replay {
    /// Replays one forward request (see the module docs).
    pub(super) fn step_forward(
        &mut self,
        i: usize,
        step: &TreeValue<'_>,
        op: ForwardOp,
    ) -> Result<(), ApiError> {
        let (read, request) = read(step, op, i)?;
        let user = self.fwd.absorb(&read);
        let before = self.forward_orphans();
        let begin = match &request {
            Request::Control(_, id) => object([
                ("op", Value::from(op.as_str())),
                ("forwardId", Value::from(*id)),
            ]),
            _ => object([("op", Value::from(op.as_str()))]),
        };
        self.log(i, "begin", begin);
        let agents = self.agent_entries(&read.agents);
        let ran = self.fwd.run(&read, user, &agents, &request);
        for cmd in ran.sent {
            self.forward_command(i, "forward", cmd);
        }
        if let Err(e) = &ran.answer {
            self.say_refused(i, op, e);
        }
        let mut offline = read.offline.clone();
        offline.sort_unstable();
        let left = self.forward_orphans();
        let left = left
            .into_iter()
            .filter(|o| before.binary_search(o).is_err());
        let why = op.leftover(ran.answer.is_err());
        self.report_leftovers(i, left.collect(), why, &offline, op.as_str());
        let mut end = Map::new();
        end.insert("ok".into(), Value::from(ran.answer.is_ok()));
        match &ran.answer {
            Ok(Some(id)) => drop(end.insert("forwardId".into(), Value::from(*id))),
            Err(e) => drop(end.insert("error".into(), Value::from(e.to_plan_error().message))),
            Ok(None) => {}
        }
        if !ran.warnings.is_empty() {
            end.insert("warnings".into(), Value::from(ran.warnings));
        }
        self.log(i, "end", Value::Object(end));
        Ok(())
    }

    /// IN002 for a forward request the server refuses or fails.
    fn say_refused(&mut self, i: usize, op: ForwardOp, e: &ForwardRejection) {
        let error = e.to_plan_error();
        let name = op.as_str();
        self.report(
            "IN002",
            "server-rejects",
            None,
            step_path(i, ""),
            format!(
                "Step {i}: the server refuses this {name} ({})",
                error.message_en
            ),
            format!("第 {i} 步：服务端拒绝该 {name} 请求（{}）", error.message),
        );
    }

    /// What each agent holds, as the forward paths' agents read it: the
    /// replay's registries, plus what a step says an agent also holds and
    /// whether it is an older one (`legacy`).
    fn agent_entries(&self, given: &Entries<AgentState>) -> Entries<AgentState> {
        let names = |list: &[(String, super::state::Config)]| -> Vec<String> {
            list.iter().map(|(n, _)| n.clone()).collect()
        };
        let mut out: Vec<(String, AgentState)> = Vec::new();
        for (id, n) in &self.nodes {
            let agent = AgentState {
                legacy: false,
                services: names(&n.services),
                limiters: names(&n.limiters),
                climiters: names(&n.climiters),
            };
            out.push((id.to_string(), agent));
        }
        for (key, extra) in &given.0 {
            let id = crate::go::coerce::parse_int(key.trim()).map(|id| id.to_string());
            let at = out.iter().position(|(k, _)| Some(k) == id.as_ref());
            match at.and_then(|at| out.get_mut(at)) {
                Some((_, agent)) => {
                    agent.legacy |= extra.legacy;
                    agent.services.extend(extra.services.iter().cloned());
                    agent.limiters.extend(extra.limiters.iter().cloned());
                    agent.climiters.extend(extra.climiters.iter().cloned());
                }
                None => out.push((key.clone(), extra.clone())),
            }
        }
        Entries(out)
    }

    /// One command a forward path sent: applied unless the agent or its
    /// provider refused it (`failed`), and logged with its marks.
    pub(super) fn forward_command(&mut self, i: usize, phase: &str, cmd: Command) {
        let Command {
            node_id,
            command,
            data,
            relay,
            failed,
        } = cmd;
        let mut entry = Map::new();
        entry.insert("nodeId".into(), Value::from(node_id));
        entry.insert("command".into(), Value::from(command.as_str()));
        entry.insert("target".into(), target_of(&data));
        if relay == Some(true) {
            entry.insert("relay".into(), Value::from(true));
        }
        match failed {
            Some(why) => {
                entry.insert("failed".into(), Value::from(why));
                let note = "refused: nothing changes on the agent; the server goes on as it does";
                entry.insert("note".into(), Value::from(note));
            }
            None => super::state::apply(self.nodes.entry(node_id).or_default(), &command, data),
        }
        self.log(i, phase, Value::Object(entry));
    }
}

/// The id an apply step's `input` gives its tunnel (`tunnel.id`, a
/// redeploy's `tunnelId`).
pub(super) fn input_tunnel_id(step: &TreeValue<'_>) -> Option<i64> {
    let parts = TunnelParts::of(step.get("input")?)?;
    let named = parts.tunnel.map(row_id).or(parts.tunnel_id);
    named.filter(|id| *id > 0)
}

/// Whether a plan's local command is one the forward paths sent (a
/// forward's data, or an agent's answer on it), not the tunnel's own.
pub(super) fn is_forward_command(cmd: &Command) -> bool {
    use crate::plan::{CommandData as D, CommandName};
    match &cmd.data {
        _ if cmd.failed.is_some() => true,
        D::ForwardServices(_) | D::Limiter(_) | D::UpdateLimiter(_) | D::DeleteServices(_) => true,
        D::Json(_) => match cmd.name() {
            Some(
                CommandName::DeleteService | CommandName::PauseService | CommandName::ResumeService,
            ) => true,
            Some(CommandName::AddService | CommandName::UpdateService) => {
                super::listed_services(&cmd.data)
                    .first()
                    .is_some_and(|name| crate::forward::parse_service_name(name).is_some())
            }
            _ => cmd.command.contains("Limiters"),
        },
        _ => false,
    }
}

impl Forwards {
    /// The stored forwards of `tunnels`: each `forward` row with its
    /// `forward_port` rows.
    fn rows_of(&self, tunnels: &[i64]) -> Vec<(Value, Vec<Value>)> {
        let mut out = Vec::new();
        for t in tunnels {
            let db = self.store.tunnel_rows(*t);
            for f in &db.forward {
                let ports = db.forward_port.iter().filter(|p| p.forward_id == f.id);
                let ports = ports.map(|p| crate::encode::to_value(p)).collect();
                let mut row = crate::encode::to_value(f);
                if let (Value::Object(o), Some(stored)) = (&mut row, self.store.forward(f.id)) {
                    // As stored: the rows' text hides a URL's credentials.
                    let addr = Value::from(stored.remote_addr.as_str());
                    o.insert("remote_addr".into(), addr);
                }
                out.push((row, ports));
            }
        }
        out
    }

    /// Every stored forward as the update mode's `forwards` list reads it:
    /// its row with its `forward_port` rows as `ports`.
    fn forward_rows(&self) -> Value {
        let mut tunnels: Vec<i64> = self.store.forwards.iter().map(|f| f.tunnel_id).collect();
        tunnels.sort_unstable();
        tunnels.dedup();
        let mut rows = Vec::new();
        for (mut row, ports) in self.rows_of(&tunnels) {
            if let Value::Object(o) = &mut row {
                o.insert("ports".into(), Value::from(ports));
            }
            rows.push(row);
        }
        Value::from(rows)
    }

    /// A redeploy's `db` gets the panel's rows for tunnel `t`'s forwards:
    /// `forward`, `forward_port`, `speed_limit`, `user`, `user_tunnel`.
    fn add_tables(&self, t: i64, db: &mut Map<String, Value>) {
        let (rows, ports): (Vec<Value>, Vec<Vec<Value>>) = self.rows_of(&[t]).into_iter().unzip();
        let store = &self.store;
        let users = store.users.iter().map(|(_, u)| crate::encode::to_value(u));
        let grants = store
            .user_tunnels
            .iter()
            .map(|g| crate::encode::to_value(g));
        let tables = [
            ("forward", Value::from(rows)),
            ("forward_port", Value::from(ports.concat())),
            ("speed_limit", self.speed_rows()),
            ("user", Value::from(users.collect::<Vec<_>>())),
            ("user_tunnel", Value::from(grants.collect::<Vec<_>>())),
        ];
        for (key, rows) in tables {
            db.insert(key.into(), rows);
        }
    }

    /// The `user` and `user_tunnel` rows of every owner of tunnel `t`'s
    /// forwards: each is re-synced under its own owner's grant.
    fn owner_rows(&self, t: i64) -> (Vec<Value>, Vec<Value>) {
        let store = &self.store;
        let mut owners: Vec<i64> = store
            .forwards_of_tunnel(t)
            .iter()
            .map(|f| f.user_id)
            .collect();
        owners.sort_unstable();
        owners.dedup();
        let users = owners.iter().filter_map(|&u| store.user(u));
        let grants = owners
            .iter()
            .map(|&u| store.resolve_user_tunnel(u, t).user_tunnel_id);
        let grants = grants.filter_map(|g| store.user_tunnel(g));
        (
            users.map(|u| crate::encode::to_value(u)).collect(),
            grants.map(|g| crate::encode::to_value(g)).collect(),
        )
    }

    /// The speed limits, as `speed_limit` rows.
    fn speed_rows(&self) -> Value {
        let rows = self.store.speeds.iter().map(|(&id, &speed)| {
            crate::encode::to_value(&crate::forward::input::SpeedLimitRow { id, speed })
        });
        Value::from(rows.collect::<Vec<_>>())
    }

    /// After a tunnel edit: the forward rows it moved (`db.forward_port`).
    pub(super) fn adopt_ports(&mut self, t: i64, db: Option<crate::forward::ForwardDb>) {
        let Some(db) = db else {
            return;
        };
        for f in self.store.forwards_of_tunnel(t) {
            let rows: Vec<(i64, i64, String)> = db
                .forward_port
                .iter()
                .filter(|p| p.forward_id == f.id)
                .map(|p| (p.node_id, p.port, p.in_ip.clone().unwrap_or_default()))
                .collect();
            if !rows.is_empty() {
                self.store.replace_ports(f.id, &rows);
            }
        }
    }
}

impl Replay {
    /// The input of an apply step of a tunnel the panel has forwards on,
    /// with the forward context added: it is then planned as the update
    /// mode plans an edit with forwards ([`crate::forward::modes::update_plan`];
    /// `before`: the payload the tunnel was last applied with, unless
    /// given), or as the redeploy mode plans one ([`crate::forward::modes::redeploy_plan`]:
    /// the rows added to its `db`). `None`: the step's input as it is (a
    /// plan, a first apply, an input that brings its own forwards, a tunnel
    /// without forwards).
    pub(super) fn with_forwards(
        &self,
        step: &TreeValue<'_>,
        fields: &super::TunnelStep,
    ) -> Option<Value> {
        let input = step.get("input")?;
        let t = fields
            .tunnel_id
            .or_else(|| input_tunnel_id(step))
            .or(self.last_tunnel)?;
        let has = !self.fwd.store.forwards_of_tunnel(t).is_empty();
        if !has || !self.tunnel(t).is_some_and(|r| r.exists) {
            return None;
        }
        // A new input: the step's, as a value the replay adds its rows to.
        let Value::Object(mut map) = crate::encode::to_value(input) else {
            return None;
        };
        let mode = fields
            .mode
            .as_deref()
            .and_then(crate::planner::PlanMode::parse);
        if mode.unwrap_or_else(|| crate::planner::PlanMode::detect(input))
            == crate::planner::PlanMode::Redeploy
        {
            let db = map.get_mut("db")?.as_object_mut()?;
            if db.contains_key("forward") {
                return None;
            }
            self.fwd.add_tables(t, db);
        } else if crate::forward::modes::has_forwards(input) {
            return None;
        } else {
            self.edit_context(t, &mut map)?;
        }
        if !map.contains_key("agents") {
            map.insert("agents".into(), self.agents_value());
        }
        Some(Value::Object(map))
    }

    /// An edit's forward context: `before`, the forwards, their owner's
    /// rows and the speed limits.
    fn edit_context(&self, t: i64, map: &mut Map<String, Value>) -> Option<()> {
        if !map.contains_key("before") {
            map.insert("before".into(), self.fwd.payload(t)?.clone());
        }
        map.insert("forwards".into(), self.fwd.forward_rows());
        let (users, grants) = self.fwd.owner_rows(t);
        map.insert("users".into(), Value::from(users));
        map.insert("userTunnels".into(), Value::from(grants));
        map.insert("speedLimits".into(), self.fwd.speed_rows());
        Some(())
    }

    /// What each agent holds, as a forward context's `agents` gives it.
    fn agents_value(&self) -> Value {
        let mut agents = Map::new();
        for (id, entry) in self.agent_entries(&Entries::default()).0 {
            let list = |names: Vec<String>| Value::from(names);
            let agent = object([
                ("services", list(entry.services)),
                ("limiters", list(entry.limiters)),
                ("climiters", list(entry.climiters)),
            ]);
            agents.insert(id, agent);
        }
        Value::Object(agents)
    }
}
