//! Failover simulator (issue 4). Placeholder until the simulator lands.

use crate::error::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Scenario {
    pub dead: Vec<Value>,
    pub requests: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Trace {
    pub requests: Vec<Value>,
}

pub fn simulate(_doc: &Value, _scenario: &Scenario) -> Result<Trace, ApiError> {
    Err(ApiError::new("UNIMPLEMENTED", "the simulator is not built yet", ""))
}
