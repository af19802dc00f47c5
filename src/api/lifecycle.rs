//! `lifecycleJson`.

use crate::encode;
use crate::error::ApiError;

/// The replay of a list of lifecycle steps.
pub fn lifecycle(steps: &str) -> Result<String, ApiError> {
    let limits = crate::limits::Limits::default();
    let value = super::parse_within(steps, "the step list", &limits)?;
    // The report's state is written as text, never built as a value.
    let report = crate::lifecycle::replay_within(&value)?;
    Ok(super::within_output(encode::to_string(&report), &limits)?)
}
