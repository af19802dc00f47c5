//! `checkTunnel` / `checkTunnelJson`: a tunnel input planned and its plan
//! checked.

use crate::check::{self, TunnelCheck};
use crate::encode;
use crate::error::ApiError;
use crate::planner::PlanOptions;
use serde_json::Value;

/// The plan and its findings in one call.
pub fn check_tunnel(input: &Value, options: &PlanOptions) -> TunnelCheck {
    check::check_tunnel(input, options)
}

/// [`check_tunnel`] on JSON text.
pub fn check_tunnel_json(input: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = super::plan_options(options)?;
    let value = super::parse_within(input, "the tunnel input", &options.limits)?;
    let checked = check::check_tunnel(&value, &options);
    Ok(super::within_output(
        encode::to_string(&checked),
        &options.limits,
    )?)
}
