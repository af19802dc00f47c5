//! `lifecycle` / `lifecycleJson`: a list of steps replayed.

use crate::encode;
use crate::error::ApiError;
use crate::lifecycle::LifecycleReport;
use serde_json::Value;

/// The replay of a list of lifecycle steps (`[...]` or `{steps: [...]}`).
pub fn lifecycle(steps: &Value) -> Result<LifecycleReport, ApiError> {
    crate::lifecycle::lifecycle(steps)
}

/// [`lifecycle`] on JSON text.
pub fn lifecycle_json(steps: &str) -> Result<String, ApiError> {
    let limits = crate::limits::Limits::default();
    let arena = crate::json::tree::Arena::new();
    let tree = super::read_within(steps, "the step list", &limits, &arena)?;
    // The report's state is written as text, never built as a value.
    let report = crate::lifecycle::replay_within(&tree)?;
    Ok(super::within_output(encode::to_string(&report), &limits)?)
}
