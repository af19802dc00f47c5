//! `planTunnel` / `planTunnelJson`: the plan of one tunnel input.

use crate::encode;
use crate::error::ApiError;
use crate::plan::Plan;
use crate::planner::{self, PlanOptions};
use serde_json::Value;

// A TypeScript declaration only: the planner reads the input from its
// tree by the request path it asks for (`planner::PlanMode::detect`).
/// What `planTunnel` and `checkTunnel` take.
#[cfg(any(test, target_arch = "wasm32"))]
#[allow(dead_code, clippy::large_enum_variant)]
#[derive(tsify_next::Tsify)]
#[serde(untagged)]
pub enum PlanInput {
    Tunnel(#[tsify(type = "TunnelInput")] crate::planner::request::TunnelRequest),
    Redeploy(#[tsify(type = "RedeployInput")] crate::planner::request::RedeployRequest),
}

/// The plan of one tunnel input: what the server computes for it along the
/// request path `options` names. A server rejection is a plan too (its
/// `error` is set).
pub fn plan(input: &Value, options: &PlanOptions) -> Plan {
    planner::plan_opts(input, options)
}

pub fn plan_options(options: Option<&str>) -> Result<PlanOptions, ApiError> {
    super::parse_options(options, "BAD_OPTIONS", "the plan options")
}

/// [`plan`] on JSON text; only text that is not JSON (or over a limit)
/// fails.
pub fn plan_json(input: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = plan_options(options)?;
    let plan = planner::plan_text(input, &options)?;
    // Counted first: a plan's chain node lists are shared, so its text can be
    // far larger than the plan itself, and counting writes each list once.
    let max = options.limits.max_output_bytes;
    let len = encode::text_len(&plan);
    if len > max {
        let e = crate::limits::LimitError::new("maxOutputBytes", len, max, String::new());
        let error = planner::rejection::limit_error(&e);
        return Ok(encode::to_string(&crate::plan::Plan::rejected(
            error, &plan.mode,
        )));
    }
    Ok(encode::to_string(&plan))
}
