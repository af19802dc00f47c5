//! `backupTunnelsJson`.

use crate::encode;
use crate::error::ApiError;
use crate::json::tree::{Arena, TreeValue};
use crate::limits::{Count, Limits};
use crate::planner::backup::{Source, Tables};
use serde_json::Value;

/// A whole panel's bounds: bytes, depth and string lengths, its node rows
/// (`maxNodes`, here a panel's, not a tunnel's) and the text of the audit;
/// each tunnel is then planned within the tunnel defaults ([`Limits::default`]).
/// The hop counts apply to tunnel inputs only, not to a panel's tables.
pub(super) fn panel_limits() -> Limits {
    Limits {
        max_input_bytes: 256 << 20,
        max_nodes: MAX_PANEL_NODES,
        max_hops: usize::MAX,
        max_nodes_per_hop: usize::MAX,
        ..Default::default()
    }
}

/// The options of the whole-panel calls: `{limits}` over [`panel_limits`].
#[derive(serde::Deserialize)]
#[serde(default)]
pub struct PanelOptions {
    #[serde(deserialize_with = "given_panel_limits")]
    pub limits: Limits,
}

impl Default for PanelOptions {
    fn default() -> Self {
        PanelOptions {
            limits: panel_limits(),
        }
    }
}

/// The limits the panel options name, over [`panel_limits`] (`null`: those).
fn given_panel_limits<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Limits, D::Error> {
    let given: crate::limits::LimitFields = crate::options::field::group(d)?;
    Ok(given.onto(panel_limits()))
}

/// Reads the whole-panel calls' options text.
pub fn panel_options(options: Option<&str>) -> Result<PanelOptions, ApiError> {
    super::parse_options(options, "BAD_OPTIONS", "the panel options")
}

/// A panel's node rows, by default: far more than any panel runs, few enough
/// that every table built from them stays small.
pub const MAX_PANEL_NODES: usize = 100_000;

/// The panel's tables within the panel limits: its node rows (a backup's
/// `nodes`, a database's `node` table). Its tunnel rows need no count: each
/// is planned within the tunnel limits, so the audit's work grows with the
/// panel's size, not faster.
pub(super) fn tables_within<'a>(
    tables: Tables<'a>,
    limits: &Limits,
) -> Result<Tables<'a>, ApiError> {
    let at = match tables.source {
        Source::Backup => "/nodes",
        Source::Database => "/node",
    };
    limits
        .count_within(Count::Nodes, tables.node.len(), || at.into())
        .map_err(|e| e.to_api_error())?;
    Ok(tables)
}

/// Every tunnel of a panel, from its backup export or its database tables'
/// rows, as a redeploy input. A whole panel is larger than one tunnel input:
/// bytes, depth and string lengths are bounded, and no count applies (its
/// tables are not tunnel inputs).
pub fn backup_tunnels(
    panel: &Value,
    options: &PanelOptions,
) -> Result<Vec<crate::planner::backup::BackupTunnel>, ApiError> {
    crate::limits::check_value(panel, &options.limits).map_err(|e| e.to_api_error())?;
    let arena = Arena::new();
    tunnels_within(&crate::encode::to_tree(panel, &arena), &options.limits)
}

/// [`backup_tunnels`] on JSON text.
pub fn backup_tunnels_json(text: &str, options: Option<&str>) -> Result<String, ApiError> {
    let limits = panel_options(options)?.limits;
    let arena = Arena::new();
    let tree = super::read_within(text, "the backup", &limits, &arena)?;
    let tunnels = tunnels_within(&tree, &limits)?;
    Ok(super::within_output(encode::to_string(&tunnels), &limits)?)
}

/// The tunnels of a panel already within the byte and depth limits, its
/// tables read once.
fn tunnels_within(
    panel: &TreeValue<'_>,
    limits: &Limits,
) -> Result<Vec<crate::planner::backup::BackupTunnel>, ApiError> {
    let tables = tables_within(Tables::of_panel(panel)?, limits)?;
    let mut tunnels = Vec::new();
    crate::planner::backup::each_tunnel(&tables, &mut |t| tunnels.push(t));
    Ok(tunnels)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The one-call audit gives, per tunnel, what checking each tunnel's own
    /// redeploy input gives.
    #[test]
    fn the_panel_audit_is_each_tunnel_checked_on_its_own() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/panel-backup.json"
        ))
        .unwrap();
        let audited: Value =
            crate::json::from_str(&crate::api::audit_panel_json(&text, None).unwrap()).unwrap();
        let tunnels: Value =
            crate::json::from_str(&super::backup_tunnels_json(&text, None).unwrap()).unwrap();
        let audited = audited.as_array().unwrap();
        let tunnels = tunnels.as_array().unwrap();
        assert_eq!(audited.len(), tunnels.len());
        assert!(audited.len() >= 10);
        for (a, t) in audited.iter().zip(tunnels) {
            let one = crate::api::check_tunnel_json(
                &crate::json::to_text(&t["input"]),
                Some(r#"{"mode":"redeploy"}"#),
            )
            .unwrap();
            let one: Value = crate::json::from_str(&one).unwrap();
            assert_eq!(a["id"], t["id"]);
            assert_eq!(a["assumed"], t["assumed"]);
            assert_eq!(a["plan"], one["plan"], "tunnel {}", t["id"]);
            assert_eq!(a["findings"], one["findings"], "tunnel {}", t["id"]);
        }
        assert!(crate::api::audit_panel_json("{}", None)
            .unwrap_err()
            .message
            .contains("\"version\""));
    }

    /// The panel calls take `{limits}` over the panel defaults: node rows and
    /// the audit's text, each refused naming the option to raise.
    #[test]
    fn panel_limits_are_options() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/panel-backup.json"
        ))
        .unwrap();
        let e = crate::api::audit_panel_json(&text, Some(r#"{"limits": {"maxNodes": 2}}"#))
            .unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("LIMIT_EXCEEDED", "/nodes")
        );
        assert!(
            e.message.contains("raise option limits.maxNodes"),
            "{}",
            e.message
        );
        let e =
            crate::api::audit_panel_json(&text, Some(r#"{"limits": {"maxOutputBytes": 1000}}"#))
                .unwrap_err();
        assert_eq!(e.code, "LIMIT_EXCEEDED");
        assert!(e.message.contains("limits.maxOutputBytes"), "{}", e.message);
        let e = super::backup_tunnels_json(&text, Some(r#"{"limits": {"maxOutputBytes": 1000}}"#))
            .unwrap_err();
        assert!(e.message.contains("limits.maxOutputBytes"), "{}", e.message);
        let e = crate::api::audit_panel_json(&text, Some(r#"{"limits": 5}"#)).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("BAD_OPTIONS", "/limits")
        );
        // Raised, the same panel is audited as without options.
        let raised = r#"{"limits": {"maxNodes": 200000, "maxOutputBytes": 1000000000}}"#;
        assert_eq!(
            crate::api::audit_panel_json(&text, Some(raised)).unwrap(),
            crate::api::audit_panel_json(&text, None).unwrap()
        );
    }
}
