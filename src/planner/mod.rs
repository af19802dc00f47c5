//! The planner: reproduces what the panel server does on its request paths
//! for a tunnel (create, edit, redeploy), in its order, and records every
//! command it would send, to its own nodes and through each provider panel,
//! instead of sending it.
//!
//! * [`request`]: the three request paths and their validations
//!   (mutations.go `tunnelCreate`, `tunnelUpdate`, `redeployTunnelAndForwards`);
//! * [`state`]: the tunnel state prepared from a payload;
//! * [`stored`]: the tunnel rebuilt from its database rows;
//! * [`federation`] and [`provider`]: remote nodes and their provider panels
//!   (federation.go);
//! * [`local`]: the panel's own nodes (control_plane.go);
//! * [`probe`]: the probe target check; [`rejection`]: the server's answers.

pub mod backup;
pub mod federation;
pub mod local;
pub mod probe;
pub mod provider;
pub mod rejection;
pub mod request;
pub mod state;
pub mod stored;

pub use federation::resource_key;
pub use rejection::Rejection;

use crate::json::node::Node;
use crate::json::tree::{Arena, TreeValue};
use crate::limits::Limits;
use crate::model::NodeRole;
use crate::plan::{Plan, PlanNode};
use rejection::limit_error;
use request::Outcome;
use serde_json::Value;

/// Which request path a plan follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, tsify_next::Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum PlanMode {
    /// `tunnelCreate` on `{tunnel, nodes, federation?}`.
    #[default]
    Create,
    /// `tunnelUpdate` on `{tunnel, before, nodes, federation?}`.
    Update,
    /// `redeployTunnelAndForwards` on `{db, tunnelId?, federation?}`.
    Redeploy,
    /// `forwardCreate` on a tunnel created as in `create`, with the forward
    /// context (`forward`, `user`, `forwards`, `agents`, ...).
    ForwardCreate,
    /// `forwardUpdate` of a forward created by `createForwards`.
    ForwardUpdate,
}

impl PlanMode {
    pub const NAMES: [&'static str; 5] = [
        "create",
        "update",
        "redeploy",
        "forward-create",
        "forward-update",
    ];

    pub fn parse(name: &str) -> Option<PlanMode> {
        match name {
            "create" => Some(PlanMode::Create),
            "update" => Some(PlanMode::Update),
            "redeploy" => Some(PlanMode::Redeploy),
            "forward-create" => Some(PlanMode::ForwardCreate),
            "forward-update" => Some(PlanMode::ForwardUpdate),
            _ => None,
        }
    }

    /// The mode an input asks for when none is given: a redeploy input has
    /// `db` (and no `tunnel`), an edit has `before`, a forward request has
    /// `forward` (an edit also `createForwards`); anything else is a create.
    pub(crate) fn detect<N: Node>(input: &N) -> PlanMode {
        let has = |key: &str| input.field(key).is_some();
        if has("db") && !has("tunnel") {
            PlanMode::Redeploy
        } else if has("before") {
            PlanMode::Update
        } else if has("forward") && has("createForwards") {
            PlanMode::ForwardUpdate
        } else if has("forward") {
            PlanMode::ForwardCreate
        } else {
            PlanMode::Create
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PlanMode::Create => "create",
            PlanMode::Update => "update",
            PlanMode::Redeploy => "redeploy",
            PlanMode::ForwardCreate => "forward-create",
            PlanMode::ForwardUpdate => "forward-update",
        }
    }
}

/// Options of `planTunnel` and `checkTunnel`: the request path and the
/// input size limits.
#[derive(Debug, Clone, Default, serde::Deserialize, tsify_next::Tsify)]
#[serde(default)]
pub struct PlanOptions {
    /// Default, what the input asks for: `redeploy` when the input has `db` (and
    /// no `tunnel`), `update` when it has `before`, `forward-update` when it
    /// has `forward` and `createForwards`, `forward-create` when it has
    /// `forward`, else `create`.
    #[serde(deserialize_with = "PlanMode::given")]
    #[tsify(optional, type = "PlanMode")]
    pub mode: Option<PlanMode>,
    #[serde(deserialize_with = "Limits::given")]
    #[tsify(optional)]
    pub limits: Limits,
}

impl PlanOptions {
    /// Reads `{mode?, limits?}` (unknown keys are ignored; `null` keeps a default).
    pub fn from_json(v: &Value) -> Result<PlanOptions, crate::options::OptionError> {
        crate::options::read_value(v)
    }

    /// Along the request path of `mode`, within the default limits.
    pub fn along(mode: PlanMode) -> PlanOptions {
        PlanOptions {
            mode: Some(mode),
            limits: Limits::default(),
        }
    }

    /// The mode for `input`: the one given, else what the input asks for.
    pub(crate) fn mode_for<N: Node>(&self, input: &N) -> PlanMode {
        self.mode.unwrap_or_else(|| PlanMode::detect(input))
    }
}

impl PlanMode {
    /// `deserialize_with` reader of an options object's `mode`: one of
    /// [`PlanMode::NAMES`] (spaces around it ignored); `null` is none.
    pub fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PlanMode>, D::Error> {
        let Some(name) = crate::options::field::string(d)? else {
            return Ok(None);
        };
        match PlanMode::parse(name.trim()) {
            Some(mode) => Ok(Some(mode)),
            None => Err(serde::de::Error::custom(format_args!(
                "mode must be one of {}, but it is {:?}",
                PlanMode::NAMES.join(", "),
                name
            ))),
        }
    }
}

/// Plans `input` with `options` (`PlanOptions::default()`: along the
/// request path the input asks for, [`PlanMode::detect`]). Never panics: a
/// rejected or unreadable input gives a plan whose `error` says why. An
/// input over a limit is refused before it is read, so its plan names the
/// requested mode (else `create`), not one read off the input: the same
/// answer as `api::plan_json` gives for its text.
pub fn plan(input: &Value, options: &PlanOptions) -> Plan {
    if let Err(e) = crate::limits::check_value(input, &options.limits) {
        return Plan::rejected(limit_error(&e), options.mode.unwrap_or_default().as_str());
    }
    // The planner reads the document tree the text would read into, built
    // from the value (no text).
    let arena = Arena::new();
    let tree = crate::encode::to_tree(input, &arena);
    plan_within(&tree, options.mode_for(input), &options.limits)
}

/// Plans an input already within the reader's own limits (checked by
/// [`plan`]'s walk, or while its text was read); its node rows and hops (a
/// tunnel input's lists, a redeploy's stored nodes and chain rows) are
/// counted against `limits` on the types they are read into.
pub(crate) fn plan_within(input: &TreeValue<'_>, mode: PlanMode, limits: &Limits) -> Plan {
    if matches!(mode, PlanMode::ForwardCreate | PlanMode::ForwardUpdate) {
        return crate::forward::modes::plan(input, mode, limits);
    }
    if mode == PlanMode::Update && crate::forward::modes::has_forwards(input) {
        return crate::forward::modes::update_plan(input, limits);
    }
    if mode == PlanMode::Redeploy {
        let read = request::Redeploy::read(input);
        return crate::forward::modes::redeploy_plan(input, read, limits);
    }
    let outcome = match input {
        TreeValue::Object(_) if mode == PlanMode::Update => request::update(input, limits),
        TreeValue::Object(_) => request::create(input, limits),
        _ => Err(Rejection::InvalidInput(format!(
            "the input must be an object ({})",
            input_shape(mode)
        ))),
    };
    match outcome {
        Ok(outcome) => to_plan(outcome, mode),
        Err(rejection) => Plan::rejected(rejection.to_plan_error(), mode.as_str()),
    }
}

/// The redeploy of tunnel `tunnel_id` read from its stored rows
/// ([`stored::StoredTunnel::from_rows`]) with its forwards' rows, as
/// [`plan`] plans its `db` input in [`PlanMode::Redeploy`]: rows that cannot
/// be read, or are over `limits`, are its rejection.
pub fn plan_stored(
    stored: rejection::Result<stored::StoredTunnel>,
    tunnel_id: i64,
    forwards: crate::forward::input::ForwardTables,
    limits: &Limits,
) -> Plan {
    let outcome =
        stored.and_then(|stored| request::redeploy_stored(stored, &Default::default(), limits));
    crate::forward::modes::redeploy_stored(outcome, tunnel_id, forwards, limits)
}

/// The input shape of each mode, for messages.
pub fn input_shape(mode: PlanMode) -> &'static str {
    match mode {
        PlanMode::Create => "{tunnel, nodes, federation?}",
        PlanMode::Update => "{tunnel, before, nodes, federation?}",
        PlanMode::Redeploy => {
            "{db: {tunnel, chain_tunnel, node, federation_tunnel_binding?}, tunnelId?, federation?}"
        }
        PlanMode::ForwardCreate => {
            "{tunnel, nodes, federation?, forward, user?, forwards?, agents?, ...}"
        }
        PlanMode::ForwardUpdate => {
            "{tunnel, nodes, federation?, createForwards, forward, user?, forwards?, agents?, ...}"
        }
    }
}

/// The plan of a tunnel's outcome, which moves into it whole.
pub(crate) fn to_plan(outcome: Outcome, mode: PlanMode) -> Plan {
    let nodes = node_summary(&outcome);
    Plan {
        error: None,
        federation: outcome.federation.steps,
        local: outcome.local,
        nodes,
        mode: mode.as_str().to_string(),
        assumed: outcome.assumed,
        warnings: vec![],
        db: None,
        deployed: None,
    }
}

/// The plan's node table: every tunnel node, its role, final port and the
/// hosts it is dialed by (as they appear in chain node addresses).
fn node_summary(outcome: &Outcome) -> Vec<PlanNode> {
    let state = &outcome.state;
    let all = state
        .entries
        .iter()
        .chain(state.hops.iter().flatten())
        .chain(state.exits.iter());
    all.filter_map(|n| {
        let rec = outcome.nodes.get(n.node_id)?;
        let mut addresses: Vec<String> = Vec::new();
        for host in [
            n.connect_ip.as_str(),
            rec.server_ipv4.as_str(),
            rec.server_ipv6.as_str(),
            rec.server_ip.as_str(),
        ] {
            let host = host.trim();
            if host.is_empty() {
                continue;
            }
            let dialed = dialed_host(host, n.port);
            if !addresses.contains(&dialed) {
                addresses.push(dialed);
            }
        }
        Some(PlanNode {
            node_id: n.node_id,
            name: rec.name.clone(),
            role: n.role.as_str().to_string(),
            hop: n.hop,
            remote: rec.is_remote,
            protocol: n.protocol.clone(),
            strategy: n.strategy.clone(),
            port: n.port,
            addresses,
            runtime_id: if rec.is_remote && n.role != NodeRole::Entry {
                n.runtime_id
            } else {
                None
            },
        })
    })
    .collect()
}

/// The host part of the address a chain writes for `host` and `port`.
fn dialed_host(host: &str, port: i64) -> String {
    let mut addr = crate::address::server_host_port(host, port);
    let mut digits = itoa::Buffer::new();
    let kept = addr
        .strip_suffix(digits.format(port))
        .and_then(|rest| rest.strip_suffix(':'))
        .map(str::len);
    if let Some(len) = kept {
        addr.truncate(len);
    }
    addr
}
