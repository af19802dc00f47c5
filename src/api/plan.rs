//! `planTunnelJson`.

use crate::encode;
use crate::error::ApiError;
use crate::planner::{self, PlanOptions};

pub fn plan_options(options: Option<&str>) -> Result<PlanOptions, ApiError> {
    super::parse_options(
        options,
        "BAD_OPTIONS",
        "the plan options",
        PlanOptions::from_json,
    )
}

/// The plan of one tunnel input. A server rejection is a normal plan (its
/// `error` is set); only text that is not JSON fails.
pub fn plan(input: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = plan_options(options)?;
    let plan = planner::plan_text(input, &options)?;
    Ok(
        super::within_output(encode::to_string(&plan), &options.limits).unwrap_or_else(|e| {
            let error = planner::rejection::limit_error(&e);
            encode::to_string(&crate::plan::Plan::rejected(error, &plan.mode))
        }),
    )
}
