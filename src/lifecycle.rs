//! Lifecycle replay (issue 4). Placeholder until the replay lands.

use crate::error::ApiError;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Default, Serialize)]
pub struct LifecycleReport {
    pub log: Vec<Value>,
    pub state: Value,
    pub findings: Vec<crate::finding::Finding>,
}

pub fn lifecycle(_steps: &Value) -> Result<LifecycleReport, ApiError> {
    Err(ApiError::new("UNIMPLEMENTED", "the lifecycle replay is not built yet", ""))
}
