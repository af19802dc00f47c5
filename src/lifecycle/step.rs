//! The fields of a tunnel step (`apply`, `create`, `edit`, `applyError`,
//! `release`, `delete`) as the replay reads them: each one loosely, as the
//! module docs describe it; a field of another JSON type reads as absent.
//! The documents a step carries (`plan`, `input`) are taken as they are:
//! the planner and the plan reader read them.

use crate::coerce::loose;
use crate::plan::Command;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct TunnelStep {
    /// The tunnel it is about (default: the plan's, the input's, the last
    /// apply's).
    #[serde(deserialize_with = "loose::id")]
    pub tunnel_id: Option<i64>,
    /// Remote nodes whose provider panel cannot be reached in this step.
    #[serde(deserialize_with = "loose::ids")]
    pub unreachable: Vec<i64>,
    /// Providers that miss only this step's releases.
    #[serde(deserialize_with = "loose::ids")]
    pub release_unreachable: Vec<i64>,
    /// The request path of the step's `input` (default: what it asks for).
    #[serde(deserialize_with = "loose::str_only")]
    pub mode: Option<String>,
    /// Local commands that time out at the panel but take effect.
    #[serde(deserialize_with = "loose::list")]
    pub timeouts: Vec<CommandSelector>,
    /// `applyError`: the local command that fails.
    pub fail_at: Option<CommandSelector>,
}

impl TunnelStep {
    /// The fields of `step` (an object: a step without one has no `op`).
    pub(super) fn of(step: &Value) -> TunnelStep {
        step.as_object()
            .map(crate::coerce::from_object)
            .unwrap_or_default()
    }
}

/// A local command picked by its index among the plan's local commands, or
/// by node and command name (`{nodeId?, command?}`: an absent or unreadable
/// part matches any); any other value picks none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CommandSelector {
    Index(u64),
    Node {
        node_id: Option<i64>,
        command: Option<String>,
    },
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
        d.deserialize_any(SelectorVisitor)
    }
}

struct SelectorVisitor;

impl<'de> Visitor<'de> for SelectorVisitor {
    type Value = CommandSelector;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Index(n))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CommandSelector, A::Error> {
        let (mut node_id, mut command) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "nodeId" => node_id = map.next_value::<loose::LooseId>()?.0,
                "command" => command = map.next_value::<StrOnly>()?.0,
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        Ok(CommandSelector::Node { node_id, command })
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Nothing)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Nothing)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Nothing)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Nothing)
    }
    fn visit_unit<E: de::Error>(self) -> Result<CommandSelector, E> {
        Ok(CommandSelector::Nothing)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<CommandSelector, A::Error> {
        de::IgnoredAny
            .visit_seq(seq)
            .map(|_| CommandSelector::Nothing)
    }
}

/// A command name read by [`loose::str_only`].
struct StrOnly(Option<String>);

impl<'de> Deserialize<'de> for StrOnly {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        loose::str_only(d).map(StrOnly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CommandData;
    use serde_json::json;

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
        let step = TunnelStep::of(&json!({
            "tunnelId": " 7 ", "unreachable": [2, "3", 4.0, 4.5, "x", null, [1]],
            "releaseUnreachable": "5", "mode": 1, "timeouts": {"nodeId": 1}, "failAt": -1
        }));
        assert_eq!(step.tunnel_id, Some(7));
        assert_eq!(step.unreachable, vec![2, 3, 4]);
        assert!(step.release_unreachable.is_empty());
        assert_eq!(step.mode, None);
        assert!(step.timeouts.is_empty());
        assert_eq!(step.fail_at, Some(CommandSelector::Nothing));
        let none = TunnelStep::of(&json!({"tunnelId": true, "failAt": null, "mode": "update"}));
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
            let s = TunnelStep::of(&json!({"failAt": spec}))
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
