//! The forward modes of a plan: `forward-create` and `forward-update` on a
//! tunnel input plus the forward context (`../shared/golden/README.md`,
//! "forward-vectors.jsonl"), and the forward sync the tunnel paths end with.

use super::agents::Agents;
use super::input::{ForwardBody, ForwardContext, ForwardTables, UserInput};
use super::rejection::ForwardRejection;
use super::store::{Store, TunnelRow};
use super::Panel;
use crate::limits::Limits;
use crate::plan::{Plan, PlanError};
use crate::planner::request::Outcome;
use crate::planner::{Mode, Rejection};
use serde::Deserialize;
use serde_json::Value;

/// The forward context of an input (absent fields read as empty).
pub fn context(input: &Value) -> Result<ForwardContext, ForwardRejection> {
    ForwardContext::deserialize(input).map_err(|e| ForwardRejection::InvalidInput(e.to_string()))
}

/// The tunnel as the forward paths read it back from its rows.
pub fn tunnel_row(outcome: &Outcome) -> TunnelRow {
    let state = &outcome.state;
    TunnelRow {
        id: state.id,
        kind: state.kind,
        status: 1,
        entries: state.entries.iter().map(|n| n.node_id).collect(),
    }
}

/// Ports the tunnel's own chain rows hold.
fn chain_ports(outcome: &Outcome) -> Vec<(i64, i64)> {
    let state = &outcome.state;
    state
        .hops
        .iter()
        .flatten()
        .chain(state.exits.iter())
        .map(|n| (n.node_id, n.port))
        .collect()
}

/// The panel of a forward-mode input once its tunnel is created.
fn panel<'s>(
    ctx: &ForwardContext,
    outcome: &'s Outcome,
    federation: Option<&'s Value>,
) -> Panel<'s, 's> {
    let mut store = Store::new(
        ctx.forwards.clone(),
        vec![],
        &ctx.speed_limits,
        vec![ctx.user.clone()],
        ctx.user_tunnel.clone().into_iter().collect(),
    );
    store.tunnels.push(tunnel_row(outcome));
    store.chain_ports = chain_ports(outcome);
    Panel {
        store,
        nodes: &outcome.nodes,
        agents: Agents::new(&outcome.nodes, federation, &ctx.agents, &ctx.offline),
        user: ctx.user.clone(),
        allow_local: allow_local(ctx),
        now: ctx.now.or_else(super::clock_now),
        assumed: vec![],
        warnings: vec![],
    }
}

fn allow_local(ctx: &ForwardContext) -> bool {
    ctx.config
        .get("allow_local_remote_addr")
        .is_some_and(|v| v.0.to_lowercase() == "true")
}

/// Plans `forward-create` or `forward-update`: the tunnel is created first
/// (unreported), then the forwards of `createForwards`, then the request.
pub fn plan(input: &Value, mode: Mode, limits: &Limits) -> Plan {
    let refused = |e: PlanError| Plan::rejected(e, mode.as_str());
    let Some(obj) = input.as_object() else {
        return refused(
            Rejection::InvalidInput("the input must be an object".into()).to_plan_error(),
        );
    };
    let ctx = match context(input) {
        Ok(ctx) => ctx,
        Err(e) => return refused(e.to_plan_error()),
    };
    let Some(body) = ctx.forward.clone() else {
        return refused(
            ForwardRejection::InvalidInput(
                "/forward is missing: give the forward form's body".into(),
            )
            .to_plan_error(),
        );
    };
    let outcome = match crate::planner::request::create(obj, limits) {
        Ok(outcome) => outcome,
        Err(rejection) => return refused(rejection.to_plan_error()),
    };
    let mut panel = panel(&ctx, &outcome, obj.get("federation"));
    panel.agents.recording = false;
    let mut last = None;
    for setup in &ctx.create_forwards {
        if let Ok(id) = panel.create(setup) {
            last = Some(id);
        }
    }
    panel.agents.recording = true;
    panel.warnings.clear();
    let answer = match mode {
        Mode::ForwardUpdate => {
            let mut body: ForwardBody = body;
            if body.id.is_none() {
                body.id = last.map(|id| crate::coerce::GoText(id.to_string()));
            }
            panel.update(&body)
        }
        _ => panel.create(&body).map(|_| ()),
    };
    finish(panel, &outcome, mode, answer)
}

fn finish(
    panel: Panel<'_, '_>,
    outcome: &Outcome,
    mode: Mode,
    answer: Result<(), ForwardRejection>,
) -> Plan {
    let tunnel_id = outcome.state.id;
    let mut plan = crate::planner::tunnel_plan(outcome, mode);
    plan.federation = vec![];
    plan.assumed.extend(panel.assumed);
    plan.warnings = panel.warnings;
    if let Err(e) = answer {
        plan.error = Some(e.to_plan_error());
        plan.nodes = vec![];
    }
    plan.local = panel.agents.log;
    plan.db = Some(panel.store.tunnel_rows(tunnel_id));
    plan
}

/// The forward tables of a redeploy's `db`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RedeployDb {
    db: ForwardTables,
}

/// A redeploy: the tunnel's apply, then every forward of the tunnel synced
/// (`redeployTunnelAndForwards`, mutations.go:1617); the first error is the
/// answer, and the forward rows stay as stored.
pub fn redeploy_plan(input: &Value, outcome: crate::planner::rejection::Result<Outcome>) -> Plan {
    let mode = Mode::Redeploy.as_str();
    let has_forwards = input.get("db").and_then(|db| db.get("forward")).is_some();
    let outcome = match outcome {
        Ok(outcome) if !has_forwards => return crate::planner::to_plan(outcome, Mode::Redeploy),
        Ok(outcome) => Ok(outcome),
        Err(rejection) => Err(rejection.to_plan_error()),
    };
    let read = context(input).and_then(|ctx| {
        let db = RedeployDb::deserialize(input)
            .map_err(|e| ForwardRejection::InvalidInput(e.to_string()))?;
        Ok((ctx, db.db))
    });
    let (ctx, tables) = match read {
        Ok(read) => read,
        Err(e) => return Plan::rejected(e.to_plan_error(), mode),
    };
    let mut store = Store::new(
        tables.forward,
        tables.forward_port,
        &tables.speed_limit,
        tables.user.into_iter().map(UserInput::from).collect(),
        tables.user_tunnel,
    );
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            let tunnel_id = stored_tunnel_id(input);
            let mut plan = Plan::rejected(error, mode);
            plan.db = Some(store.tunnel_rows(tunnel_id));
            return plan;
        }
    };
    store.tunnels.push(tunnel_row(&outcome));
    store.chain_ports = chain_ports(&outcome);
    let mut plan = crate::planner::tunnel_plan(&outcome, Mode::Redeploy);
    sync_tunnel_forwards(
        &mut plan,
        &outcome,
        store,
        &ctx,
        input.get("federation"),
        true,
    );
    plan
}

/// The tunnel a redeploy names: `tunnelId`, else its `db.tunnel` row's id.
fn stored_tunnel_id(input: &Value) -> i64 {
    let given = crate::coerce::go_int(input.get("tunnelId"), 0);
    if given > 0 {
        return given;
    }
    let row = match input.get("db").and_then(|db| db.get("tunnel")) {
        Some(Value::Array(rows)) => rows.first(),
        other => other,
    };
    crate::coerce::go_int(row.and_then(|r| r.get("id")), 0)
}

/// What the tunnel paths add after their own apply: every forward of the
/// tunnel synced. `first_error_fails`: a redeploy answers with the first
/// error; an edit ignores them.
pub fn sync_tunnel_forwards(
    plan: &mut Plan,
    outcome: &Outcome,
    store: Store,
    ctx: &ForwardContext,
    federation: Option<&Value>,
    first_error_fails: bool,
) {
    let tunnel_id = outcome.state.id;
    let mut panel = Panel {
        store,
        nodes: &outcome.nodes,
        agents: Agents::new(&outcome.nodes, federation, &ctx.agents, &ctx.offline),
        user: UserInput::default(),
        allow_local: allow_local(ctx),
        now: ctx.now.or_else(super::clock_now),
        assumed: vec![],
        warnings: vec![],
    };
    let mut warnings = Vec::new();
    for forward in panel.store.forwards_of_tunnel(tunnel_id) {
        let synced = panel.sync(forward.id);
        warnings.extend(synced.warnings);
        if let Some(e) = synced.error {
            if first_error_fails {
                *plan = Plan::rejected(
                    ForwardRejection::SyncFailed(e).to_plan_error(),
                    plan.mode.as_str(),
                );
                plan.db = Some(panel.store.tunnel_rows(tunnel_id));
                return;
            }
        }
    }
    plan.local.extend(panel.agents.log);
    plan.warnings.extend(warnings);
    plan.db = Some(panel.store.tunnel_rows(tunnel_id));
}
