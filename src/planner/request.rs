//! The server's request paths, in its order (go-backend
//! `internal/http/handler/mutations.go`: `tunnelCreate` 585-763).
//! `tunnelCreate`, `tunnelUpdate` and `redeployTunnelAndForwards` each run
//! their validations, prepare (or rebuild) the tunnel state, apply federated
//! nodes on their provider panels, then apply the panel's own nodes.

use super::federation::{apply_federation, Binding, FederationOutcome};
use super::local::{apply_local, Verb};
use super::probe;
use super::provider::{share_of, Providers};
use super::rejection::{Rejection, Result};
use super::state::{
    check_connect_ips, prepare, store_chain_rows, stored_node_ids, Rules, TunnelState, TunnelType,
};
use super::stored::{StoredTables, StoredTunnel, TunnelTables};
use crate::coerce::loose::{self, ObjectOnly};
use crate::coerce::GoText;
use crate::forward::input::{ForwardRow, ForwardTables};
use crate::forward::rejection::ForwardRejection;
use crate::json::tree::TreeValue;
use crate::limits::{Count, Limits};
use crate::model::{ApiNodeRows, FederationAnswers, NodeTable, TunnelPayload};
use crate::plan::{Assumption, Command, MetaValue, PlanError};
use serde::de::{self, MapAccess};
use serde::Deserialize;
use tsify_next::Tsify;

/// What a request deploys once the server accepts it.
pub struct Outcome {
    pub state: TunnelState,
    pub nodes: NodeTable,
    pub federation: FederationOutcome,
    pub local: Vec<Command>,
    pub assumed: Vec<Assumption>,
}

/// The top level of a create or an update input (`{tunnel, before?, nodes,
/// federation?}`), each part read by its own type; a forward request adds
/// a [`ForwardContext`](crate::forward::input::ForwardContext) (`TunnelInput` in the TypeScript declarations).
#[derive(Default, Deserialize, Tsify)]
pub struct TunnelRequest {
    /// The panel's tunnel payload (absent: refused as the caller's mistake).
    #[tsify(type = "TunnelPayload")]
    tunnel: PayloadCell,
    /// Edit only: the tunnel as it was (default: `tunnel`).
    #[serde(default)]
    #[tsify(optional, type = "TunnelPayload | null")]
    before: PayloadCell,
    #[serde(default)]
    #[tsify(type = "NodeRow[]")]
    nodes: ApiNodeRows,
    /// Keyed by node id.
    #[serde(default)]
    #[tsify(optional, type = "{ [nodeId: string]: FederationAllocation }")]
    federation: FederationAnswers,
    /// Edit only: ports forwards created on the tunnel as it was hold when
    /// the edit picks its ports (`(node id, port)`; not part of the input).
    #[serde(skip)]
    edit_held: Vec<(i64, i64)>,
}

impl TunnelRequest {
    /// Reads an input object (a field that cannot be read leaves the
    /// whole request empty, as the loose readers rarely refuse anything).
    pub(crate) fn read(input: &TreeValue<'_>) -> TunnelRequest {
        TunnelRequest::deserialize(input).unwrap_or_default()
    }

    /// The request as the server meets it with `forwards` stored: the
    /// ports their `forward_port` rows hold are taken for the tunnel's picks.
    pub(crate) fn with_forwards(mut self, forwards: &[ForwardRow]) -> TunnelRequest {
        let held = forwards.iter().flat_map(|f| f.ports.iter());
        self.nodes
            .0
            .hold_forward_ports(held.map(|p| (p.node_id, p.port)));
        self
    }

    /// An edit whose picks also pass over `held` (`(node id, port)`): the
    /// ports of forwards created on the tunnel as it was, which the server
    /// moves only after the edit's commit (mutations.go:1014-1017).
    pub(crate) fn holding_on_edit(mut self, held: Vec<(i64, i64)>) -> TunnelRequest {
        self.edit_held = held;
        self
    }

    /// The providers' answers the input gives.
    pub fn federation(&self) -> &FederationAnswers {
        &self.federation
    }

    /// The entry nodes the payload lists (`inNodeId`), in order: what an
    /// edit the server refuses would have made the entry set.
    pub fn entry_ids(&self) -> Vec<i64> {
        let PayloadCell::Object(tunnel) = &self.tunnel else {
            return Vec::new();
        };
        let ids = tunnel.in_node_id.0.iter();
        ids.map(|item| GoText::int(&item.node_id, 0))
            .filter(|id| *id > 0)
            .collect()
    }
}

/// A mutation payload as given: absent, `null`, an object, or another value.
#[derive(Default)]
enum PayloadCell {
    #[default]
    Absent,
    Null,
    Object(Box<TunnelPayload>),
    Other,
}

impl<'de> Deserialize<'de> for PayloadCell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        crate::coerce::loose::any(d)
    }
}

impl<'de> crate::coerce::loose::AnyValue<'de> for PayloadCell {
    fn other() -> Self {
        PayloadCell::Other
    }
    fn null() -> Self {
        PayloadCell::Null
    }
    fn object<A: MapAccess<'de>>(map: A) -> std::result::Result<Self, A::Error> {
        let payload = TunnelPayload::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(PayloadCell::Object(Box::new(payload)))
    }
}

/// The mutation payload: `null` reads as empty (as the server reads a `null`
/// body), anything else but an object is refused; a missing one is the
/// caller's mistake, not a decision of the server.
fn payload(v: PayloadCell, what: &str) -> Result<TunnelPayload> {
    match v {
        PayloadCell::Absent => Err(Rejection::InvalidInput(format!(
            "{} is missing: give the panel's tunnel payload (a node list alone is not enough)",
            what
        ))),
        PayloadCell::Null => Ok(TunnelPayload::default()),
        PayloadCell::Object(p) => Ok(*p),
        PayloadCell::Other => Err(Rejection::InvalidInput(format!(
            "{} must be an object (the panel's tunnel payload)",
            what
        ))),
    }
}

/// The counts the limits bound in a tunnel input, in the order they are
/// named: its node rows, then each payload the planner plans (`tunnel`,
/// then an edit's `before`, which is created first): its hops, the nodes
/// of each hop, its entries and its exits.
fn counted(request: &TunnelRequest, limits: &Limits) -> Result<()> {
    limits.count_within(Count::Nodes, request.nodes.given(), || "/nodes".into())?;
    for (cell, at) in [(&request.tunnel, "/tunnel"), (&request.before, "/before")] {
        if let PayloadCell::Object(payload) = cell {
            payload_counted(payload, at, limits)?;
        }
    }
    Ok(())
}

/// [`counted`] for one payload at `at`.
fn payload_counted(payload: &TunnelPayload, at: &str, limits: &Limits) -> Result<()> {
    let hops = &payload.chain_nodes.0;
    limits.count_within(Count::Hops, hops.len(), || format!("{at}/chainNodes"))?;
    for (i, hop) in hops.iter().enumerate() {
        limits.count_within(Count::HopNodes, hop.given(), || {
            format!("{at}/chainNodes/{i}")
        })?;
    }
    let ends = [
        (&payload.in_node_id, "inNodeId"),
        (&payload.out_node_id, "outNodeId"),
    ];
    for (nodes, key) in ends {
        limits.count_within(Count::HopNodes, nodes.given(), || format!("{at}/{key}"))?;
    }
    Ok(())
}

/// `tunnelCreate` on `{tunnel, nodes, federation?}`.
pub(crate) fn create(input: &TreeValue<'_>, limits: &Limits) -> Result<Outcome> {
    TunnelRequest::read(input).create(limits)
}

impl TunnelRequest {
    /// `tunnelCreate` on the request.
    pub fn create(self, limits: &Limits) -> Result<Outcome> {
        create_request(self, limits)
    }

    /// `tunnelUpdate` on the request, in its stages: what the forwards
    /// created on the tunnel as it was see, and what they see once the
    /// edit's rows are committed.
    pub fn update_stages(self, limits: &Limits) -> EditStages {
        let mut created = None;
        let mut committed = None;
        let edited = update_into(self, limits, &mut created, &mut committed);
        EditStages {
            created,
            committed,
            edited,
        }
    }
}

fn create_request(request: TunnelRequest, limits: &Limits) -> Result<Outcome> {
    counted(&request, limits)?;
    let tunnel = payload(request.tunnel, "/tunnel")?;
    let nodes = request.nodes.0;
    let mut providers = Providers::default();
    let mut assumed = Vec::new();
    let given_id = GoText::int(&tunnel.id, 0);
    let id = if given_id > 0 {
        given_id
    } else {
        assumed.push(Assumption {
            node_id: None,
            path: "/tunnel/id".into(),
            value: MetaValue::Int(1),
            reason: "a create gets the next id of the tunnel table; the preview names chains_1, tunnel_1, hop_1 and the resource keys after id 1".into(),
        });
        1
    };
    let mut outcome = create_on(
        &tunnel,
        id,
        nodes,
        &request.federation,
        &mut providers,
        Rules::Create,
        limits,
    )?;
    assumed.append(&mut outcome.assumed);
    outcome.assumed = assumed;
    Ok(outcome)
}

fn create_on(
    tunnel: &TunnelPayload,
    id: i64,
    nodes: NodeTable,
    federation: &FederationAnswers,
    providers: &mut Providers,
    rules: Rules<'_>,
    limits: &Limits,
) -> Result<Outcome> {
    check_connect_ips(tunnel)?;
    // The tunnel an edit starts from was created under some name.
    if matches!(rules, Rules::Create) && GoText::text(&tunnel.name).is_empty() {
        return Err(Rejection::NameEmpty);
    }
    probe::validate(tunnel)?;
    let mut state = prepare(tunnel, id, &nodes, rules)?;
    let federation = apply_federation(&mut state, &nodes, federation, providers)?;
    if !TunnelType::of(state.kind).relays() {
        store_chain_rows(tunnel, &nodes)?;
    }
    deploy(state, nodes, federation, Verb::Add, limits)
}

/// The last step of every path: the local apply, once the federated nodes
/// have their ports.
fn deploy(
    state: TunnelState,
    nodes: NodeTable,
    federation: FederationOutcome,
    verb: Verb,
    limits: &Limits,
) -> Result<Outcome> {
    deploy_committed(state, nodes, federation, verb, limits, None)
}

/// [`deploy`], noting in `committed` the chain rows' ports once the rows
/// are committed (the bindings saved): an edit's forwards move then, whatever
/// the local apply says after (mutations.go:982-1017).
fn deploy_committed(
    state: TunnelState,
    nodes: NodeTable,
    federation: FederationOutcome,
    verb: Verb,
    limits: &Limits,
    committed: Option<&mut Option<Vec<(i64, i64)>>>,
) -> Result<Outcome> {
    federation.saved()?;
    state.output_within(limits)?;
    if let Some(committed) = committed {
        *committed = Some(state.chain_ports());
    }
    let local = apply_local(&state, &nodes, verb)?;
    let assumed = federation.assumed.clone();
    Ok(Outcome {
        state,
        nodes,
        federation,
        local,
        assumed,
    })
}

/// The stages of a tunnel edit ([`TunnelRequest::update_stages`]).
pub struct EditStages {
    /// The tunnel as `before` created it (`None` when `before` itself is
    /// refused).
    pub created: Option<Outcome>,
    /// The edited chain rows' `(node id, port)` once committed (`None` when
    /// the edit is refused before its commit).
    pub committed: Option<Vec<(i64, i64)>>,
    pub edited: Result<Outcome>,
}

/// `tunnelUpdate` on `{tunnel, before?, nodes, federation?}`: the tunnel is
/// first created as `before` was (default: as `tunnel`), then edited.
pub(crate) fn update(input: &TreeValue<'_>, limits: &Limits) -> Result<Outcome> {
    TunnelRequest::read(input).update_stages(limits).edited
}

fn update_into(
    request: TunnelRequest,
    limits: &Limits,
    created_out: &mut Option<Outcome>,
    committed: &mut Option<Vec<(i64, i64)>>,
) -> Result<Outcome> {
    counted(&request, limits)?;
    let tunnel = payload(request.tunnel, "/tunnel")?;
    let before_given;
    let before = match request.before {
        // Without the tunnel as it was, the edit starts from the tunnel as it is.
        PayloadCell::Absent | PayloadCell::Null => &tunnel,
        given => {
            before_given = payload(given, "/before")?;
            &before_given
        }
    };
    let nodes = request.nodes.0;
    let federation = &request.federation;
    let id = GoText::int(&tunnel.id, 0);
    let before_id = [id, GoText::int(&before.id, 0)]
        .into_iter()
        .find(|i| *i > 0)
        .unwrap_or(1);

    let mut providers = Providers::default();
    let created = create_on(
        before,
        before_id,
        nodes.clone(),
        federation,
        &mut providers,
        Rules::Recreate,
        limits,
    )
    .map_err(|e| Rejection::BeforeRejected(Box::new(e.to_plan_error())))?;
    let stored_type2 = TunnelType::of(created.state.kind).relays();
    let created = created_out.insert(created);

    check_connect_ips(&tunnel)?;
    if id <= 0 {
        return Err(Rejection::TunnelIdMissing);
    }
    if tunnel.probe_target_host.is_some() || tunnel.probe_target_port.is_some() {
        probe::validate(&tunnel)?;
    }
    // Every federation binding is released before the state checks, whatever they say.
    release(&mut providers, &created.federation.bindings);

    let stored = stored_node_ids(before);
    let mut nodes = nodes;
    nodes.hold_forward_ports(request.edit_held);
    let mut state = prepare(
        &tunnel,
        id,
        &nodes,
        Rules::Update {
            stored_nodes: &stored,
        },
    )?;
    let fed = apply_federation(&mut state, &nodes, federation, &mut providers)?;
    if !TunnelType::of(state.kind).relays() {
        store_chain_rows(&tunnel, &nodes)?;
    }
    let verb = if stored_type2 {
        Verb::Update
    } else {
        Verb::Add
    };
    deploy_committed(state, nodes, fed, verb, limits, Some(committed))
}

fn release(providers: &mut Providers, bindings: &[Binding]) {
    for b in bindings {
        providers.release(&b.share, b.runtime_id, &b.resource_key);
    }
}

/// The top level of a redeploy input (`redeployTunnelAndForwards`,
/// mutations.go:1617): the tunnel as the database stores it; the forwards'
/// sync after it reads the agents' part of a [`ForwardContext`](crate::forward::input::ForwardContext)
/// (`RedeployInput` in the TypeScript declarations).
#[derive(Default, Deserialize, Tsify)]
#[serde(default, rename_all = "camelCase")]
pub struct RedeployRequest {
    #[tsify(type = "StoredTables")]
    pub db: ObjectOnly<StoredTables>,
    /// Default: `db.tunnel.id`.
    #[serde(deserialize_with = "loose::nullable_int")]
    #[tsify(optional, type = "Loose")]
    pub tunnel_id: Option<i64>,
    #[tsify(optional, type = "{ [nodeId: string]: FederationAllocation }")]
    pub federation: FederationAnswers,
}

/// A redeploy input, read: each part as the request path uses it.
#[derive(Debug)]
pub struct Redeploy {
    pub tunnel: TunnelTables,
    pub forwards: ForwardTables,
    /// The tunnel asked for (`tunnelId`), as given.
    pub tunnel_id: Option<i64>,
    pub federation: FederationAnswers,
}

impl Redeploy {
    /// Reads `input` (its forward rows whole, whether or not a forward
    /// rides on the tunnel).
    pub(crate) fn read(input: &TreeValue<'_>) -> std::result::Result<Redeploy, PlanError> {
        if !input.is_object() {
            let shape = super::input_shape(super::PlanMode::Redeploy);
            let why = format!("the input must be an object ({shape})");
            return Err(Rejection::InvalidInput(why).to_plan_error());
        }
        let read = RedeployRequest::deserialize(input);
        let input =
            read.map_err(|e| ForwardRejection::InvalidInput(e.to_string()).to_plan_error())?;
        let Some(db) = input.db.0 else {
            let why = "/db must be an object of tables {tunnel, chain_tunnel, node, federation_tunnel_binding?}";
            return Err(Rejection::InvalidInput(why.into()).to_plan_error());
        };
        let (tunnel, forwards) = db.split();
        Ok(Redeploy {
            tunnel,
            forwards,
            tunnel_id: input.tunnel_id,
            federation: input.federation,
        })
    }

    /// The tunnel whose forwards the redeploy re-syncs: `tunnelId`, else
    /// the first tunnel row's id.
    pub fn named_tunnel(&self) -> i64 {
        let given = self.tunnel_id.unwrap_or(0);
        if given > 0 {
            return given;
        }
        self.tunnel.tunnel.first().map_or(0, |t| t.id)
    }
}

/// The redeploy path (`redeployTunnelAndForwards`) of a tunnel already read from its rows.
pub fn redeploy_stored(
    stored: StoredTunnel,
    federation: &FederationAnswers,
    limits: &Limits,
) -> Result<Outcome> {
    stored.node_rows_within(limits)?;
    let nodes = stored.nodes.clone();
    if !TunnelType::of(stored.kind).relays() {
        let state = TunnelState {
            id: stored.id,
            kind: stored.kind,
            ip_preference: stored.ip_preference.clone(),
            entries: vec![],
            hops: vec![],
            exits: vec![],
        };
        return Ok(Outcome {
            state,
            nodes,
            federation: FederationOutcome::default(),
            local: vec![],
            assumed: vec![],
        });
    }
    // Each active binding is an applied runtime on its provider; the cleanup releases it.
    let mut providers = Providers::default();
    for b in &stored.bindings {
        let Some(rec) = nodes.get(b.node_id) else {
            continue;
        };
        let mut share = share_of(rec, nodes.rows(), federation);
        if share.url.is_empty() {
            share.url = b.remote_url.clone();
        }
        if share.url.is_empty() || !rec.has_remote_token {
            continue;
        }
        providers.record_applied(
            &share,
            &b.resource_key,
            b.remote_binding_id,
            b.allocated_port,
        );
        providers.release(&share, b.remote_binding_id, &b.resource_key);
    }
    let mut state = stored.reconstruct(limits)?;
    let fed = apply_federation(&mut state, &nodes, federation, &mut providers)?;
    deploy(state, nodes, fed, Verb::Add, limits)
}

/// The TypeScript of the two inputs' full shapes: the typed request and the
/// forward context the same input carries (`forward::input::ForwardContext`).
pub const INPUT_ALIASES_TS: &str = r#"
/**
 * The input of a create (`{tunnel, nodes, federation?}`) or an edit (the
 * same plus `before`). `forward-create` adds `forward` and the forward
 * context (`user`, `speedLimits`, `userTunnel`, `forwards`, `agents`,
 * `config`, `offline`, `now`; the tunnel is created first, unreported);
 * `forward-update` adds `createForwards` too; an edit may carry the context
 * and `createForwards` (the forwards on the `before` tunnel), which it
 * re-syncs.
 */
export type TunnelInput = TunnelRequest & ForwardContext;
/**
 * The input of a redeploy: the tunnel as the database stores it, and what
 * the forwards' sync after it sees of the agents (read only when forwards
 * ride on the tunnel).
 */
export type RedeployInput = RedeployRequest & Pick<ForwardContext, 'agents' | 'config' | 'offline' | 'now'>;
"#;

#[cfg(test)]
mod tests {
    use crate::planner::{plan, PlanMode, PlanOptions};
    use serde_json::{json, Value};

    /// The English message of the plan's error (`invalid input: ...`
    /// stripped).
    fn error_of(input: serde_json::Value, mode: PlanMode) -> Option<String> {
        let error = plan(&input, &PlanOptions::along(mode)).error?;
        Some(
            error
                .message_en
                .trim_start_matches("invalid input: ")
                .to_string(),
        )
    }

    #[test]
    fn the_payloads_read_as_the_server_tells_them_apart() {
        let nodes = json!([{"id": 1, "status": 1}, 7, {"id": 2, "status": 1}]);
        let missing = error_of(json!({"nodes": nodes}), PlanMode::Create).unwrap();
        assert!(missing.starts_with("/tunnel is missing"), "{missing}");
        let wrong = error_of(json!({"tunnel": [1], "nodes": nodes}), PlanMode::Create).unwrap();
        assert!(wrong.starts_with("/tunnel must be an object"), "{wrong}");
        let tunnel = json!({"name": "t", "inNodeId": [{"nodeId": 1}], "outNodeId": [{"nodeId": 2, "port": 40001}]});
        let before = error_of(
            json!({"tunnel": tunnel, "before": "x", "nodes": nodes}),
            PlanMode::Update,
        );
        assert!(before.unwrap().starts_with("/before must be an object"));
        // `null` reads as an empty payload: the server's own check answers.
        let null = error_of(json!({"tunnel": null, "nodes": nodes}), PlanMode::Create).unwrap();
        assert!(!null.starts_with("/tunnel"), "{null}");
        // A `before` of `null` is the tunnel itself.
        let same = error_of(
            json!({"tunnel": tunnel, "before": null, "nodes": nodes}),
            PlanMode::Update,
        );
        let absent = error_of(json!({"tunnel": tunnel, "nodes": nodes}), PlanMode::Update);
        assert_eq!(same, absent);
    }

    /// A stored tunnel of one entry and one exit, its tables as `db`.
    fn stored_db() -> serde_json::Value {
        json!({
            "tunnel": {"id": 5, "name": "t", "type": 2, "status": 1},
            "chain_tunnel": [
                {"id": 1, "tunnel_id": 5, "chain_type": "1", "node_id": 1},
                "not a row",
                {"id": 2, "tunnel_id": 5, "chain_type": "3", "node_id": 2, "port": 40001, "protocol": "tls", "strategy": "round"}
            ],
            "node": [
                {"id": 1, "status": 1, "port": "40000-40100", "server_ip": "10.0.0.1", "server_ip_v4": "10.0.0.1"},
                {"id": 2, "status": 1, "port": "40000-40100", "server_ip": "10.0.0.2", "server_ip_v4": "10.0.0.2"}
            ]
        })
    }

    #[test]
    fn a_redeploy_reads_its_tables_as_rows() {
        use super::Redeploy;
        let arena = crate::json::tree::Arena::new();
        let tree = |v: Value| crate::encode::to_tree(&v, &arena);
        let read = Redeploy::read(&tree(json!({"db": stored_db(), "tunnelId": " 5 "}))).unwrap();
        // One row object is a table of one row; items that are not rows are skipped.
        assert_eq!(read.tunnel.tunnel.len(), 1);
        assert_eq!(read.tunnel.chain_tunnel.len(), 2);
        assert_eq!(read.tunnel_id, Some(5));
        assert_eq!(read.named_tunnel(), 5);
        let plan = plan(
            &json!({"db": stored_db()}),
            &PlanOptions::along(PlanMode::Redeploy),
        );
        assert!(plan.error.is_none(), "{:?}", plan.error);
        let sent: Vec<_> = plan
            .local
            .iter()
            .map(|c| (c.node_id, c.command.as_str()))
            .collect();
        assert_eq!(sent, [(1, "AddChains"), (2, "AddService")]);
        // No tunnelId: the tunnel row's.
        let unnamed = Redeploy::read(&tree(json!({"db": stored_db(), "tunnelId": null}))).unwrap();
        assert_eq!((unnamed.tunnel_id, unnamed.named_tunnel()), (None, 5));
    }

    #[test]
    fn a_redeploy_refuses_a_db_that_is_no_object_and_forward_rows_it_cannot_read() {
        let no_db = error_of(json!({"db": [stored_db()]}), PlanMode::Redeploy).unwrap();
        assert!(no_db.starts_with("/db must be an object"), "{no_db}");
        let not_object = error_of(json!([1]), PlanMode::Redeploy).unwrap();
        assert!(
            not_object.starts_with("the input must be an object"),
            "{not_object}"
        );
        // A port's `in_ip` is text or NULL: a number is refused, even when no
        // forward of the tunnel is among the rows.
        let mut db = stored_db();
        db["forward_port"] =
            json!([{"id": 1, "forward_id": 9, "node_id": 1, "port": 1000, "in_ip": 7}]);
        let bad = error_of(json!({"db": db}), PlanMode::Redeploy).unwrap();
        assert!(bad.contains("expected a string"), "{bad}");
    }
}
