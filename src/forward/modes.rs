//! The forward modes of a plan: `forward-create` and `forward-update` on a
//! tunnel input plus the forward context (`tests/data/README.md`,
//! "forward-vectors.jsonl"), and the forward sync the tunnel paths end with.

use super::agents::Agents;
use super::input::{ForwardContext, ForwardPayload, ForwardPortRow, ForwardTables, ForwardUser};
use super::rejection::ForwardRejection;
use super::store::{Store, TunnelRow};
use super::{validate, Panel};
use crate::json::node::Node;
use crate::json::tree::TreeValue;
use crate::limits::{Count, Limits};
use crate::model::FederationAnswers;
use crate::plan::{Plan, PlanError};
use crate::planner::request::{EditStages, Outcome, Redeploy, TunnelRequest};
use crate::planner::stored::StoredTunnel;
use crate::planner::{PlanMode, Rejection};
use serde::Deserialize;

/// The fewest bytes one forward port takes in a plan: its `UpdateService`
/// pair, whatever its values (src/forward/config.rs).
pub const PLAN_BYTES_PER_FORWARD_PORT: usize = 256;

/// Forwards fan out over entry nodes: each forward an input creates (or
/// an edit moves) gets a row and a service pair on every entry. The work is
/// refused, like a plan's output, when that many pairs could not fit in
/// `maxOutputBytes`; the forward rows themselves count against `maxNodes`
/// as a redeploy's stored node rows do.
fn fan_out_within(
    rows: usize,
    fanning: usize,
    entries: usize,
    limits: &Limits,
) -> Result<(), PlanError> {
    use crate::planner::rejection::limit_error;
    let at = || "/createForwards".to_string();
    limits
        .count_within(Count::Nodes, rows, at)
        .map_err(|e| limit_error(&e))?;
    let floor = fanning
        .saturating_mul(entries)
        .saturating_mul(PLAN_BYTES_PER_FORWARD_PORT);
    if floor > limits.max_output_bytes {
        let e =
            crate::limits::LimitError::new("maxOutputBytes", floor, limits.max_output_bytes, at());
        return Err(limit_error(&e));
    }
    Ok(())
}

/// The forward context of an input (absent fields read as empty).
pub(crate) fn context(input: &TreeValue<'_>) -> Result<ForwardContext, ForwardRejection> {
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

/// The tunnel part of a forward-mode input, as the server meets it with
/// the context's forwards stored (their ports taken for the tunnel's picks).
fn tunnel_request(input: &TreeValue<'_>, ctx: &ForwardContext) -> TunnelRequest {
    TunnelRequest::read(input).with_forwards(&ctx.forwards)
}

/// The tables as the tunnel `outcome` deployed left them: its row and its
/// chain rows' ports.
fn seat_tunnel(store: &mut Store, outcome: &Outcome) {
    store.tunnels = vec![tunnel_row(outcome)];
    store.chain_ports = outcome.state.chain_ports();
}

/// The panel a forward request meets on the tunnel `outcome` deployed,
/// with `store`'s rows and `user` asking.
fn panel_on<'s>(
    mut store: Store,
    outcome: &'s Outcome,
    ctx: &ForwardContext,
    federation: &'s FederationAnswers,
    user: ForwardUser,
) -> Panel<'s, 's> {
    seat_tunnel(&mut store, outcome);
    Panel {
        store,
        nodes: &outcome.nodes,
        agents: Agents::new(&outcome.nodes, federation, &ctx.agents, &ctx.offline),
        user,
        allow_local: super::allows_local(&ctx.config),
        now: ctx.now.or_else(super::clock_now),
        assumed: vec![],
        warnings: vec![],
    }
}

/// The panel of a forward-mode input once its tunnel is created: the
/// context's rows, its user asking.
fn panel<'s>(
    ctx: &ForwardContext,
    outcome: &'s Outcome,
    federation: &'s FederationAnswers,
) -> Panel<'s, 's> {
    let store = Store::new(
        ctx.forwards.clone(),
        vec![],
        &ctx.speed_limits,
        ctx.users.iter().chain([&ctx.user]).cloned().collect(),
        ctx.user_tunnels
            .iter()
            .chain(&ctx.user_tunnel)
            .cloned()
            .collect(),
    );
    panel_on(store, outcome, ctx, federation, ctx.user.clone())
}

/// Plans `forward-create` or `forward-update`: the tunnel is created first
/// (unreported), then the forwards of `createForwards`, then the request.
pub(crate) fn plan(input: &TreeValue<'_>, mode: PlanMode, limits: &Limits) -> Plan {
    let refused = |e: PlanError| Plan::rejected(e, mode.as_str());
    if !input.is_object() {
        return refused(
            Rejection::InvalidInput("the input must be an object".into()).to_plan_error(),
        );
    }
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
    let request = tunnel_request(input, &ctx);
    let federation = request.federation().clone();
    let outcome = match request.create(limits) {
        Ok(outcome) => outcome,
        Err(rejection) => return refused(rejection.to_plan_error()),
    };
    let entries = outcome.state.entries.len();
    let created = ctx.create_forwards.len() + 1;
    if let Err(e) = fan_out_within(created + ctx.forwards.len(), created, entries, limits) {
        return refused(e);
    }
    let mut panel = panel(&ctx, &outcome, &federation);
    let last = create_unrecorded(&mut panel, &ctx.create_forwards);
    let answer = match mode {
        PlanMode::ForwardUpdate => {
            let mut body: ForwardPayload = body;
            if body.id.is_none() {
                body.id = last.map(|id| crate::coerce::GoText(id.to_string()));
            }
            panel.update(&body)
        }
        _ => panel.create(&body).map(|_| ()),
    };
    let output = PanelOutput::of(panel, outcome.state.id);
    finish(output, outcome, mode, answer)
}

/// What a forward request's panel leaves for its plan: what it assumed
/// and warned about, what it sent the agents, the tunnel's forward rows.
/// Taken out of the panel so that the tunnel's outcome it borrowed moves
/// into the plan whole.
struct PanelOutput {
    assumed: Vec<crate::plan::Assumption>,
    warnings: Vec<String>,
    sent: Vec<crate::plan::Command>,
    db: crate::forward::ForwardDb,
}

impl PanelOutput {
    fn of(panel: Panel<'_, '_>, tunnel_id: i64) -> PanelOutput {
        PanelOutput {
            db: panel.store.tunnel_rows(tunnel_id),
            assumed: panel.assumed,
            warnings: panel.warnings,
            sent: panel.agents.log,
        }
    }
}

/// The request's plan: the tunnel's own apply as `deployed`, what the
/// request sent as `local`, the answer's error if it was refused.
fn finish(
    output: PanelOutput,
    outcome: Outcome,
    mode: PlanMode,
    answer: Result<(), ForwardRejection>,
) -> Plan {
    let mut plan = crate::planner::to_plan(outcome, mode);
    plan.assumed.extend(output.assumed);
    plan.warnings = output.warnings;
    if let Err(e) = answer {
        plan.error = Some(e.to_plan_error());
        plan.nodes = vec![];
    }
    // The tunnel was created before the request: what it deployed is
    // context for the checks, not something this request sends.
    plan.deployed = Some(crate::plan::TunnelDeploy {
        federation: std::mem::take(&mut plan.federation),
        local: std::mem::replace(&mut plan.local, output.sent),
    });
    plan.db = Some(output.db);
    plan
}

/// A redeploy: the tunnel's apply, then every forward of the tunnel synced
/// (`redeployTunnelAndForwards`, mutations.go:1617); the first error is the
/// answer, and the forward rows stay as stored.
pub(crate) fn redeploy_plan(
    input: &TreeValue<'_>,
    read: Result<Redeploy, PlanError>,
    limits: &Limits,
) -> Plan {
    let redeploy = match read {
        Ok(redeploy) => redeploy,
        Err(e) => return Plan::rejected(e, PlanMode::Redeploy.as_str()),
    };
    let tunnel_id = redeploy.named_tunnel();
    let outcome = StoredTunnel::read(redeploy.tunnel, redeploy.tunnel_id).and_then(|stored| {
        crate::planner::request::redeploy_stored(stored, &redeploy.federation, limits)
    });
    let tunnel = TunnelRedeploy {
        outcome: outcome.map_err(|r| r.to_plan_error()),
        federation: redeploy.federation,
        tunnel_id,
    };
    // The agents' part of the context: what the forwards' sync sees.
    redeploy_with_forwards(tunnel, redeploy.forwards, || context(input), limits)
}

/// A tunnel's own redeploy, as the forward sync that follows it sees it.
pub struct TunnelRedeploy {
    pub outcome: Result<Outcome, PlanError>,
    /// The providers' answers, as a redeploy input gives them.
    pub federation: FederationAnswers,
    pub tunnel_id: i64,
}

/// A redeploy of a tunnel read from its stored rows (the whole-panel audit)
/// with its forward `tables`, on agents that hold nothing yet.
pub fn redeploy_stored(
    outcome: crate::planner::rejection::Result<Outcome>,
    tunnel_id: i64,
    tables: ForwardTables,
    limits: &Limits,
) -> Plan {
    let tunnel = TunnelRedeploy {
        outcome: outcome.map_err(|r| r.to_plan_error()),
        federation: FederationAnswers::default(),
        tunnel_id,
    };
    redeploy_with_forwards(tunnel, tables, || Ok(ForwardContext::default()), limits)
}

/// A redeploy with the forward `tables`: the tunnel alone when none of them
/// rides on it (an older backup's dump, or a panel's whose forwards ride on
/// other tunnels), else [`redeploy_forwards`] on the agents `context` reads
/// (read only then).
fn redeploy_with_forwards(
    tunnel: TunnelRedeploy,
    tables: ForwardTables,
    context: impl FnOnce() -> Result<ForwardContext, ForwardRejection>,
    limits: &Limits,
) -> Plan {
    let mode = PlanMode::Redeploy;
    if !tables
        .forward
        .iter()
        .any(|f| f.tunnel_id == tunnel.tunnel_id)
    {
        return match tunnel.outcome {
            Ok(outcome) => crate::planner::to_plan(outcome, mode),
            Err(error) => Plan::rejected(error, mode.as_str()),
        };
    }
    match context() {
        Ok(ctx) => redeploy_forwards(tunnel, &ctx, tables, limits),
        Err(e) => Plan::rejected(e.to_plan_error(), mode.as_str()),
    }
}

/// The forward half of a redeploy: every forward of the tunnel synced on
/// the agents `ctx` describes, after the tunnel's own commands.
pub fn redeploy_forwards(
    tunnel: TunnelRedeploy,
    ctx: &ForwardContext,
    tables: ForwardTables,
    limits: &Limits,
) -> Plan {
    let mode = PlanMode::Redeploy.as_str();
    // Each forward is synced with lookups in the grants: both count as rows.
    for (rows, path) in [
        (tables.forward.len(), "/db/forward"),
        (tables.user_tunnel.len(), "/db/user_tunnel"),
    ] {
        if let Err(e) = limits.count_within(Count::Nodes, rows, || path.into()) {
            return Plan::rejected(crate::planner::rejection::limit_error(&e), mode);
        }
    }
    let store = Store::new(
        tables.forward,
        tables.forward_port,
        &tables.speed_limit,
        tables.user,
        tables.user_tunnel,
    );
    let outcome = match tunnel.outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            let mut plan = Plan::rejected(error, mode);
            plan.db = Some(store.tunnel_rows(tunnel.tunnel_id));
            return plan;
        }
    };
    let panel = panel_on(
        store,
        &outcome,
        ctx,
        &tunnel.federation,
        ForwardUser::default(),
    );
    match sync_redeployed_forwards(panel, outcome.state.id) {
        Ok(output) => {
            let mut plan = crate::planner::to_plan(outcome, PlanMode::Redeploy);
            plan.warnings = output.warnings;
            plan.local.extend(output.sent);
            plan.db = Some(output.db);
            plan
        }
        Err(refused) => *refused,
    }
}

/// The end of a redeploy: every forward of the tunnel synced after the
/// tunnel's own commands; the first error is the answer.
fn sync_redeployed_forwards(
    mut panel: Panel<'_, '_>,
    tunnel_id: i64,
) -> Result<PanelOutput, Box<Plan>> {
    for forward in panel.store.forwards_of_tunnel(tunnel_id) {
        let synced = panel.sync(forward.id);
        panel.warnings.extend(synced.warnings);
        if let Some(e) = synced.error {
            let mut plan = Plan::rejected(
                ForwardRejection::SyncFailed(e).to_plan_error(),
                PlanMode::Redeploy.as_str(),
            );
            plan.db = Some(panel.store.tunnel_rows(tunnel_id));
            return Err(Box::new(plan));
        }
    }
    Ok(PanelOutput::of(panel, tunnel_id))
}

/// Whether a tunnel edit's input carries forwards to re-sync.
pub(crate) fn has_forwards<N: Node>(input: &N) -> bool {
    input.field("createForwards").is_some() || input.field("forwards").is_some()
}

/// A tunnel edit with forwards (`tunnelUpdate`, mutations.go:878-1062): the
/// forwards are created on the tunnel as it was; the edit checks their ports
/// on added entries, deletes their services on dropped entries and moves
/// their rows, applies the tunnel, then re-syncs every forward when the type
/// or the entry set changed (errors ignored).
pub(crate) fn update_plan(input: &TreeValue<'_>, limits: &Limits) -> Plan {
    let mode = PlanMode::Update.as_str();
    let TunnelEdit {
        entries,
        federation,
        ctx,
        before,
        committed,
        edited,
    } = match read_edit(input, limits) {
        Ok(edit) => edit,
        Err(error) => return Plan::rejected(error, mode),
    };
    let widest = before.state.entries.len().max(entries.len());
    let moved = ctx.create_forwards.len() + ctx.forwards.len();
    if let Err(e) = fan_out_within(moved, moved, widest, limits) {
        return Plan::rejected(e, mode);
    }
    let mut panel = panel(&ctx, &before, &federation);
    let held = match create_unrecorded(&mut panel, &ctx.create_forwards) {
        Some(_) => panel.store.held_ports(),
        None => vec![],
    };
    // The edit's picks pass over the ports the forwards just created hold:
    // planned again with them, unless no pick can change.
    let (committed, edited) = if picks_unchanged(committed.as_deref(), &held) {
        (committed, edited)
    } else {
        let stages = tunnel_request(input, &ctx)
            .holding_on_edit(held)
            .update_stages(limits);
        (stages.committed, stages.edited)
    };
    let tunnel_id = before.state.id;
    let (edited, entries_changed) = edit_entries(&mut panel, entries, &before, committed, edited);
    match edited {
        Ok(edited) => {
            let resync = entries_changed || before.state.kind != edited.state.kind;
            applied_edit_plan(panel, tunnel_id, edited, resync)
        }
        Err(error) => {
            let mut plan = Plan::rejected(error, mode);
            plan.db = Some(panel.store.tunnel_rows(tunnel_id));
            plan
        }
    }
}

/// Whether an edit planned without the ports `held` picks the same with
/// them: it reached its commit with chain rows, none on a held port (a pick
/// takes the first free port, so a held port changes a pick only when it is
/// the one taken). An edit refused before its commit, or with no chain rows
/// (a type-1 tunnel's stored rows are picked apart), is planned again.
fn picks_unchanged(committed: Option<&[(i64, i64)]>, held: &[(i64, i64)]) -> bool {
    held.is_empty()
        || committed.is_some_and(|rows| !rows.is_empty() && !rows.iter().any(|r| held.contains(r)))
}

/// A tunnel edit's input as read: the entries its payload lists, the
/// providers' answers, its forward context, the tunnel as it was and the
/// edit's own outcome.
struct TunnelEdit {
    entries: Vec<i64>,
    federation: FederationAnswers,
    ctx: ForwardContext,
    before: Outcome,
    /// The edited chain rows' ports, once committed.
    committed: Option<Vec<(i64, i64)>>,
    edited: crate::planner::rejection::Result<Outcome>,
}

/// Reads an edit's input; refused when it is not an object, its context
/// cannot be read or the tunnel as it was cannot be created.
fn read_edit(input: &TreeValue<'_>, limits: &Limits) -> Result<TunnelEdit, PlanError> {
    if !input.is_object() {
        return Err(Rejection::InvalidInput("the input must be an object".into()).to_plan_error());
    }
    let ctx = context(input).map_err(|e| e.to_plan_error())?;
    let request = tunnel_request(input, &ctx);
    let entries = request.entry_ids();
    let federation = request.federation().clone();
    let EditStages {
        created: before,
        committed,
        edited,
    } = request.update_stages(limits);
    let Some(before) = before else {
        let error = edited.err().map(|r| r.to_plan_error());
        return Err(error.unwrap_or_else(|| {
            ForwardRejection::InvalidInput("the tunnel as it was cannot be created".into())
                .to_plan_error()
        }));
    };
    Ok(TunnelEdit {
        entries,
        federation,
        ctx,
        before,
        committed,
        edited,
    })
}

/// Creates `setups` on the panel as it stood before the request: nothing
/// they send is recorded, nor any warning. The id of the last one created.
fn create_unrecorded(panel: &mut Panel<'_, '_>, setups: &[ForwardPayload]) -> Option<i64> {
    panel.agents.recording = false;
    let mut last = None;
    for setup in setups {
        if let Ok(id) = panel.create(setup) {
            last = Some(id);
        }
    }
    panel.agents.recording = true;
    panel.warnings.clear();
    last
}

/// What the edit does to the forwards once its rows are committed: their
/// ports checked on added entries, then (no conflict, the entry set
/// changed) their services deleted on dropped entries and their rows
/// moved. The edit's outcome, refused by a port conflict, and whether the
/// entry set changed.
fn edit_entries(
    panel: &mut Panel<'_, '_>,
    payload_entries: Vec<i64>,
    before: &Outcome,
    committed: Option<Vec<(i64, i64)>>,
    edited: crate::planner::rejection::Result<Outcome>,
) -> (Result<Outcome, PlanError>, bool) {
    let tunnel_id = before.state.id;
    let old_entries = tunnel_row(before).entries;
    let new_entries = match &edited {
        Ok(outcome) => tunnel_row(outcome).entries,
        Err(_) => payload_entries,
    };
    // Once the edit's rows are committed (whatever the local apply says
    // after), a new entry's port is picked among them, not the old
    // tunnel's (mutations.go:982-1017).
    let is_committed = committed.is_some();
    if let Some(ports) = committed {
        panel.store.chain_ports = ports;
    }
    let conflict = if is_committed {
        check_new_entries(panel, tunnel_id, &old_entries, &new_entries).err()
    } else {
        None
    };
    let entries_changed = !same_set(&old_entries, &new_entries);
    if conflict.is_none() && is_committed && entries_changed {
        move_forward_entries(panel, tunnel_id, &old_entries, &new_entries);
    }
    let edited = match (edited, conflict) {
        (_, Some(conflict)) => Err(conflict.to_plan_error()),
        (Err(rejection), None) => Err(rejection.to_plan_error()),
        (Ok(outcome), None) => Ok(outcome),
    };
    (edited, entries_changed)
}

/// The plan of an edit the server applies: the forwards' cleanup sent so
/// far, the tunnel's own commands, then (`resync`) every forward of the
/// tunnel re-synced on the edited tunnel, errors ignored.
fn applied_edit_plan(
    mut panel: Panel<'_, '_>,
    tunnel_id: i64,
    edited: Outcome,
    resync: bool,
) -> Plan {
    let cleanup = std::mem::take(&mut panel.agents.log);
    seat_tunnel(&mut panel.store, &edited);
    if resync {
        for forward in panel.store.forwards_of_tunnel(tunnel_id) {
            let synced = panel.sync(forward.id);
            panel.warnings.extend(synced.warnings);
        }
    }
    let mut plan = crate::planner::to_plan(edited, PlanMode::Update);
    // The apply skips what an offline agent refuses and goes on (mutations.go:3517).
    plan.local.retain(|c| !panel.agents.is_offline(c.node_id));
    plan.local = cleanup
        .into_iter()
        .chain(plan.local)
        .chain(panel.agents.log)
        .collect();
    plan.warnings = panel.warnings;
    plan.assumed.extend(panel.assumed);
    plan.db = Some(panel.store.tunnel_rows(tunnel_id));
    plan
}

/// `validateTunnelEntryPortConflictsForNewEntriesTx`: each forward's port
/// must be free on every added entry node.
fn check_new_entries(
    panel: &Panel<'_, '_>,
    tunnel_id: i64,
    old: &[i64],
    new: &[i64],
) -> Result<(), ForwardRejection> {
    let added: Vec<i64> = new.iter().copied().filter(|n| !old.contains(n)).collect();
    if added.is_empty() {
        return Ok(());
    }
    for f in panel.store.forwards_of_tunnel(tunnel_id) {
        let Some(port) = lowest_port(&panel.store.ports_of(f.id)) else {
            continue;
        };
        for node in added.iter().filter_map(|id| panel.nodes.get(*id)) {
            if panel.store.port_taken(node.id, port, f.id) {
                return Err(ForwardRejection::EntryPortConflict {
                    forward: f.name.clone(),
                    node: node.row_name.clone(),
                    port,
                });
            }
        }
    }
    Ok(())
}

/// `pickForwardPortFromRecords`: the lowest positive port.
fn lowest_port(ports: &[ForwardPortRow]) -> Option<i64> {
    ports.iter().map(|p| p.port).filter(|p| *p > 0).min()
}

fn same_set(a: &[i64], b: &[i64]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// An edit that changed the entry set: every forward's services deleted on
/// the dropped entries (`cleanupTunnelForwardRuntimesOnRemovedEntryNodes`),
/// then its rows moved to the new entries (`syncTunnelForwardsEntryPorts`).
fn move_forward_entries(panel: &mut Panel<'_, '_>, tunnel_id: i64, old: &[i64], new: &[i64]) {
    let removed: Vec<i64> = old.iter().copied().filter(|n| !new.contains(n)).collect();
    let forwards = panel.store.forwards_of_tunnel(tunnel_id);
    for f in &forwards {
        for node in &removed {
            let _ = panel.delete_forward_on_node(f, *node);
        }
    }
    let mut entries: Vec<i64> = Vec::new();
    for n in new {
        if !entries.contains(n) {
            entries.push(*n);
        }
    }
    if entries.is_empty() {
        return;
    }
    let single = entries.len() == 1;
    for f in &forwards {
        let old_ports = panel.store.ports_of(f.id);
        let Some(reference) = lowest_port(&old_ports) else {
            continue;
        };
        let rows: Vec<(i64, i64, String)> = entries
            .iter()
            .map(|n| match old_ports.iter().rev().find(|p| p.node_id == *n) {
                Some(p) if p.port > 0 => {
                    let ip = if single {
                        p.in_ip.clone().unwrap_or_default()
                    } else {
                        String::new()
                    };
                    (*n, p.port, ip)
                }
                _ => {
                    let port = validate::port_for_new_entry(
                        &panel.store,
                        panel.nodes,
                        *n,
                        reference,
                        f.id,
                    );
                    let ip = if single {
                        old_ports
                            .iter()
                            .filter_map(|p| p.in_ip.clone())
                            .find(|ip| !ip.trim().is_empty())
                            .unwrap_or_default()
                    } else {
                        String::new()
                    };
                    (*n, port, ip)
                }
            })
            .collect();
        panel.store.replace_ports(f.id, &rows);
    }
}
