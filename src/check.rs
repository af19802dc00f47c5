//! Policy checker (issue 3). Placeholder: the real rules land with the checker.

use crate::finding::Finding;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Options for [`check`]. `kind` forces the document kind:
/// `"tunnel"`, `"plan"`, `"config"` or `"commands"`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CheckOptions {
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub kind: String,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    pub findings: Vec<Finding>,
    pub summary: Summary,
}

/// Checks one document. Never panics; an unreadable document is one IN001 finding.
pub fn check(_doc: &Value, _options: &CheckOptions) -> CheckReport {
    CheckReport::default()
}
