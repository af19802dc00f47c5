//! `auditPanelJson`: every tunnel of a panel planned and checked in one
//! call.

use super::backup::{panel_options, tables_within};
use crate::check::sharing::{panel_port_clashes, PanelTunnel, PortHold};
use crate::encode;
use crate::error::ApiError;
use crate::limits::{LimitError, Limits};
use crate::planner::backup::{each_tunnel_rows, Tables, TunnelRows};
use crate::planner::stored::StoredTunnel;

crate::encode::shape! {
    #[doc = " One tunnel of a panel audited as a redeploy pushes it: its plan and the"]
    #[doc = " checker's findings, with what the source could not say."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct AuditedTunnel {
        pub id: i64 => "id",
        pub name: String => "name",
        pub kind: i64 => "type",
        #[doc = " What the redeploy assumes because the source does not carry it."]
        pub assumed: Vec<String> => "assumed",
        pub plan: crate::plan::Plan => "plan",
        pub findings: Vec<crate::finding::Finding> => "findings",
    }
}

/// `auditPanelJson`: every tunnel of a panel (backup export or database
/// rows, as `backupTunnelsJson` reads them) planned along the redeploy path
/// with its forwards and checked, in one call: the panel is read once and
/// no tunnel input goes through JSON text again. Then the one rule no
/// single tunnel can see: services of two tunnels on one node's port (LK004).
/// Text only: each tunnel is written as it is audited, so a whole panel's
/// audits never sit in memory as values at once.
pub fn audit_panel_json(text: &str, options: Option<&str>) -> Result<String, ApiError> {
    let limits = panel_options(options)?.limits;
    let arena = crate::json::tree::Arena::new();
    let tree = super::read_within(text, "the backup", &limits, &arena)?;
    let tables = tables_within(Tables::of_panel(&tree)?, &limits)?;
    let mut audited = audit_tunnels(&tables, &limits)?;
    add_panel_port_clashes(&tables, &mut audited);
    let mut out = String::from("[");
    for (k, a) in audited.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&a.text);
    }
    out.push(']');
    Ok(super::within_output(out, &limits)?)
}

/// One tunnel's audit as written, with the services it listens with on
/// the panel's nodes (for the panel-wide port rule).
struct Audited {
    id: i64,
    name: String,
    text: String,
    holds: Vec<PortHold>,
}

/// A tunnel planned from its rows along the redeploy path and checked.
fn audit_one(tables: &Tables<'_>, t: TunnelRows<'_, '_>) -> (AuditedTunnel, Vec<PortHold>) {
    let (id, name, kind) = (t.id(), t.name(), t.kind());
    let nodes = t
        .nodes
        .iter()
        .filter_map(|&i| tables.node.get(i))
        .map(|n| n.read.clone())
        .collect();
    let stored = StoredTunnel::from_rows(
        vec![t.tunnel.read.clone()],
        t.chains.iter().map(|r| r.read.clone()).collect(),
        t.bindings.iter().map(|r| r.read.clone()).collect(),
        nodes,
        Some(id),
    );
    let plan = crate::planner::plan_stored(stored, id, t.forwards, &Limits::default());
    let (check, holds) = crate::check::check_planned(plan);
    let tunnel = AuditedTunnel {
        id,
        name,
        kind,
        assumed: t.assumed,
        plan: check.plan,
        findings: check.findings,
    };
    (tunnel, holds)
}

/// Each tunnel audited and written out in turn (only its text is kept): a
/// panel whose audit outgrows the output limit stops there, never more
/// than one tunnel (itself bounded by the tunnel limits) beyond it.
fn audit_tunnels(tables: &Tables<'_>, limits: &Limits) -> Result<Vec<Audited>, ApiError> {
    let mut audited = Vec::new();
    let mut written = 0usize;
    each_tunnel_rows(tables, &mut |t| {
        if written > limits.max_output_bytes {
            return;
        }
        let (tunnel, holds) = audit_one(tables, t);
        let text = encode::to_string(&tunnel);
        written = written.saturating_add(text.len() + 1);
        audited.push(Audited {
            id: tunnel.id,
            name: tunnel.name,
            text,
            holds,
        });
    });
    if written > limits.max_output_bytes {
        let e = LimitError::new(
            "maxOutputBytes",
            written,
            limits.max_output_bytes,
            String::new(),
        );
        return Err(e.to_api_error());
    }
    Ok(audited)
}

/// LK004 across the panel's tunnels. A tunnel that gets one is audited
/// again and written with it, its list sorted as every list is (kept
/// texts, not kept plans: a clash is rare, a panel's plans are many).
fn add_panel_port_clashes(tables: &Tables<'_>, audited: &mut [Audited]) {
    let tunnels: Vec<PanelTunnel<'_>> = audited
        .iter()
        .map(|a| PanelTunnel {
            id: a.id,
            name: &a.name,
            holds: &a.holds,
        })
        .collect();
    let clashes = panel_port_clashes(&tunnels);
    if clashes.is_empty() {
        return;
    }
    let mut found: Vec<Vec<crate::finding::Finding>> = audited.iter().map(|_| Vec::new()).collect();
    for (k, finding) in clashes {
        if let Some(list) = found.get_mut(k) {
            list.push(finding);
        }
    }
    let mut k = 0;
    each_tunnel_rows(tables, &mut |t| {
        let more = found.get_mut(k).map(std::mem::take).unwrap_or_default();
        if let (false, Some(a)) = (more.is_empty(), audited.get_mut(k)) {
            let (mut tunnel, _) = audit_one(tables, t);
            tunnel.findings.extend(more);
            crate::finding::sort_findings(&mut tunnel.findings);
            tunnel.findings.dedup();
            a.text = encode::to_string(&tunnel);
        }
        k += 1;
    });
}
