//! `lifecycleJson`.

use crate::encode;
use crate::error::ApiError;

/// The replay of a list of lifecycle steps.
pub fn lifecycle(steps: &str) -> Result<String, ApiError> {
    let value = super::parse_within_limits(steps, "the step list")?;
    Ok(encode::to_string(&crate::lifecycle::lifecycle_within(
        &value,
    )?))
}
