//! The fields of a tunnel step (`apply`, `create`, `edit`, `applyError`,
//! `release`, `delete`) as the replay reads them: each one loosely, as the
//! module docs describe it; a field of another JSON type reads as absent.
//! The documents a step carries (`plan`, `input`) are taken as they are:
//! the planner and the plan reader read them.

use crate::coerce::loose;
use crate::json::tree::TreeValue;
use crate::plan::Command;
use serde::de::{self, Deserializer, MapAccess};
use serde::Deserialize;
use tsify_next::Tsify;

/// The fields of a tunnel step (`apply`, `edit`, `applyError`, `release`,
/// `delete`) beside its `op` and its document.
#[derive(Debug, Default, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct TunnelStep {
    /// The tunnel it is about (default: the plan's, the input's, the last
    /// apply's).
    #[serde(deserialize_with = "loose::id")]
    #[tsify(optional, type = "Loose")]
    pub tunnel_id: Option<i64>,
    /// Remote nodes whose provider panel cannot be reached in this step.
    #[serde(deserialize_with = "loose::ids")]
    #[tsify(optional, type = "Loose[]")]
    pub unreachable: Vec<i64>,
    /// Providers that miss only this step's releases.
    #[serde(deserialize_with = "loose::ids")]
    #[tsify(optional, type = "Loose[]")]
    pub release_unreachable: Vec<i64>,
    /// The request path of the step's `input` (default: what it asks for).
    #[serde(deserialize_with = "loose::str_only")]
    #[tsify(optional, type = "PlanMode")]
    pub mode: Option<String>,
    /// Local commands that time out at the panel but still take effect.
    #[serde(deserialize_with = "loose::list")]
    #[tsify(optional)]
    pub timeouts: Vec<CommandSelector>,
    /// `applyError`: the local command that fails.
    #[tsify(optional)]
    pub fail_at: Option<CommandSelector>,
}

impl TunnelStep {
    /// The fields of `step` (an object: a step without one has no `op`).
    pub(super) fn of(step: &TreeValue<'_>) -> TunnelStep {
        match step {
            TreeValue::Object(_) => TunnelStep::deserialize(step).unwrap_or_default(),
            _ => TunnelStep::default(),
        }
    }
}

// A TypeScript declaration only: the replay reads a step's `op` and its
// document from the tree (the plan reader or the planner reads the
// document); `LifecycleStep` is the intersection (`LIFECYCLE_STEP_TS`).
/// What every lifecycle step has beside the fields the replay reads as
/// typed fields (`TunnelStep`, the forward and report steps' own): its
/// `op`, and an apply's document, taken as it is.
#[cfg(any(test, target_arch = "wasm32"))]
#[allow(dead_code)]
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub(super) struct StepHead {
    pub op: super::LifecycleOp,
    /// The plan applied (`apply`, `edit`, `applyError`)...
    #[tsify(optional)]
    pub plan: Option<crate::check::documents::PlanDocument>,
    /// ...or the tunnel input, planned first.
    #[tsify(optional, type = "TunnelInput | RedeployInput")]
    pub input: Option<crate::planner::request::TunnelRequest>,
}

/// The TypeScript of one step: the head and every kind's fields.
pub const LIFECYCLE_STEP_TS: &str = r#"
/** One lifecycle step (see the lifecycle module docs for the semantics). */
export type LifecycleStep = StepHead & TunnelStep & ForwardStep & ReportStep;
"#;

/// A local command picked by its index among the plan's local commands, or
/// by node and command name (`{nodeId?, command?}`: an absent or unreadable
/// part matches any); any other value picks none.
#[derive(Debug, Clone, PartialEq, Eq, Tsify)]
#[serde(untagged)]
pub(super) enum CommandSelector {
    Index(u64),
    Node {
        #[serde(rename = "nodeId")]
        #[tsify(optional, type = "Loose")]
        node_id: Option<i64>,
        #[tsify(optional, type = "CommandName")]
        command: Option<String>,
    },
    #[serde(skip)]
    Nothing,
}

impl CommandSelector {
    /// Does it pick local command `k`, `cmd`? A `{nodeId, command}` picks
    /// only the first command it matches (`first_match` is set then).
    pub(super) fn selects(&self, k: usize, cmd: &Command, first_match: &mut bool) -> bool {
        match self {
            CommandSelector::Index(n) => *n as usize == k,
            CommandSelector::Nothing => false,
            CommandSelector::Node { .. } if *first_match => false,
            CommandSelector::Node { node_id, command } => {
                let node_ok = node_id.is_none_or(|n| cmd.node_id == n);
                let name = cmd.command.as_str();
                let cmd_ok = command
                    .as_deref()
                    .is_none_or(|c| name == c || name.replace("Add", "Update") == c);
                *first_match = node_ok && cmd_ok;
                *first_match
            }
        }
    }
}

impl<'de> Deserialize<'de> for CommandSelector {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        loose::any(d)
    }
}

/// An index is a non-negative integer; an object picks by node and name.
impl<'de> loose::AnyValue<'de> for CommandSelector {
    fn other() -> Self {
        CommandSelector::Nothing
    }
    fn number(n: serde_json::Number) -> Self {
        n.as_u64()
            .map_or(CommandSelector::Nothing, CommandSelector::Index)
    }
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        let fields = NodeAndName::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(CommandSelector::Node {
            node_id: fields.node_id,
            command: fields.command,
        })
    }
}

/// The parts of a `{nodeId, command}` selector.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeAndName {
    #[serde(default, deserialize_with = "loose::id")]
    node_id: Option<i64>,
    #[serde(default, deserialize_with = "loose::str_only")]
    command: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CommandData;
    use serde_json::{json, Value};

    /// The fields of a step given as a value, read from its tree.
    fn step_of(v: Value) -> TunnelStep {
        let arena = crate::json::tree::Arena::new();
        TunnelStep::of(&crate::encode::to_tree(&v, &arena))
    }

    fn command(node_id: i64, name: &str) -> Command {
        Command {
            node_id,
            command: name.into(),
            data: CommandData::Json(Value::Null),
            relay: None,
            failed: None,
        }
    }

    #[test]
    fn each_field_reads_loosely() {
        let step = step_of(json!({
            "tunnelId": " 7 ", "unreachable": [2, "3", 4.0, 4.5, "x", null, [1]],
            "releaseUnreachable": "5", "mode": 1, "timeouts": {"nodeId": 1}, "failAt": -1
        }));
        assert_eq!(step.tunnel_id, Some(7));
        assert_eq!(step.unreachable, vec![2, 3, 4]);
        assert!(step.release_unreachable.is_empty());
        assert_eq!(step.mode, None);
        assert!(step.timeouts.is_empty());
        assert_eq!(step.fail_at, Some(CommandSelector::Nothing));
        let none = step_of(json!({"tunnelId": true, "failAt": null, "mode": "update"}));
        assert_eq!(
            (none.tunnel_id, none.fail_at, none.mode.as_deref()),
            (None, None, Some("update"))
        );
    }

    #[test]
    fn a_selector_picks_by_index_or_by_node_and_name_once() {
        let cmds = [
            command(1, "AddChains"),
            command(2, "AddService"),
            command(2, "AddService"),
        ];
        let picks = |spec: Value| {
            let s = step_of(json!({"failAt": spec}))
                .fail_at
                .unwrap_or(CommandSelector::Nothing);
            let mut first = false;
            cmds.iter()
                .enumerate()
                .filter(|(k, c)| s.selects(*k, c, &mut first))
                .map(|(k, _)| k)
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(json!(2)), vec![2]);
        assert_eq!(picks(json!(2.0)), Vec::<usize>::new());
        assert_eq!(picks(json!("1")), Vec::<usize>::new());
        assert_eq!(picks(json!({"nodeId": "2"})), vec![1]);
        assert_eq!(
            picks(json!({"nodeId": 2, "command": "UpdateService"})),
            vec![1]
        );
        assert_eq!(picks(json!({"nodeId": "x", "command": 5})), vec![0]);
        assert_eq!(
            picks(json!({"command": "AddLimiters"})),
            Vec::<usize>::new()
        );
    }
}
