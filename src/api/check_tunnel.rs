//! `checkTunnel` / `checkTunnelJson`: a tunnel input planned and its plan
//! checked.

use crate::check::{self, TunnelCheck};
use crate::encode;
use crate::error::ApiError;
use crate::json::tree::Arena;
use crate::planner::PlanOptions;
use serde_json::Value;

/// The plan and its findings in one call.
pub fn check_tunnel(input: &Value, options: &PlanOptions) -> TunnelCheck {
    check::check_tunnel(input, options)
}

/// [`check_tunnel`] on JSON text.
pub fn check_tunnel_json(input: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = super::plan_options(options)?;
    let arena = Arena::new();
    let tree = super::read_within(input, "the tunnel input", &options.limits, &arena)?;
    let checked = check::check_tunnel_within(&tree, &options);
    Ok(super::within_output(
        encode::to_string(&checked),
        &options.limits,
    )?)
}
