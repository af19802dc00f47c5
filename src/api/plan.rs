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
    planner::plan(input, options)
}

pub fn plan_options(options: Option<&str>) -> Result<PlanOptions, ApiError> {
    super::parse_options(options, "BAD_OPTIONS", "the plan options")
}

/// [`plan`] on JSON text, the typed answer of [`plan_json`]. An input over
/// a limit (the reader's while it reads, the planner's counts on what it
/// read) is a plan with a `LIMIT_EXCEEDED` error; text that is not JSON is
/// an `IN001` error.
pub fn plan_text(text: &str, options: &PlanOptions) -> Result<Plan, ApiError> {
    let mode_name = options.mode.unwrap_or_default().as_str();
    let arena = crate::json::tree::Arena::new();
    let tree = match crate::limits::read_tree_within(text, &options.limits, &arena) {
        Ok((tree, _)) => tree,
        Err(crate::limits::ReadError::Limit(e)) => {
            return Ok(Plan::rejected(
                planner::rejection::limit_error(&e),
                mode_name,
            ))
        }
        Err(crate::limits::ReadError::NotJson(e)) => {
            return Err(ApiError::new(
                "IN001",
                format!("the tunnel input is not valid JSON: {e}"),
                "",
            ))
        }
    };
    // Read within the limits: no walk of the value is needed again.
    Ok(planner::plan_within(
        &tree,
        options.mode_for(&tree),
        &options.limits,
    ))
}

/// [`plan`] on JSON text; only text that is not JSON (or over a limit)
/// fails.
pub fn plan_json(input: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = plan_options(options)?;
    let plan = plan_text(input, &options)?;
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
    Ok(encode::to_string_of_len(&plan, len))
}
