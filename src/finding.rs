//! The finding shape shared by the checker and the lifecycle replay
//! (`policy-rules.md`): one problem, where it is, and how to repair it.

use crate::encode::{Encode, Object};
use serde::Serialize;

/// How bad a finding is. The declaration order is the sort order: errors first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One edit that repairs a finding: `op` is always `"set"` today.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fix {
    pub op: String,
    /// JSON Pointer into the checked document.
    pub path: String,
    pub value: serde_json::Value,
}

/// One problem found in a document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable code such as `FO001`.
    pub code: String,
    /// Rule name such as `missing-retries`.
    pub rule: String,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<i64>,
    /// JSON Pointer into the checked document (`""` = the whole document).
    pub path: String,
    /// English text.
    pub message: String,
    /// Chinese text.
    pub message_zh: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

impl Encode for Severity {
    fn encode(&self, out: &mut String) {
        self.as_str().encode(out)
    }
}

impl Encode for Fix {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("op", &self.op)
            .field("path", &self.path)
            .field("value", &self.value)
            .end()
    }
}

impl Encode for Finding {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("code", &self.code)
            .field("rule", &self.rule)
            .field("severity", &self.severity)
            .some("nodeId", &self.node_id)
            .field("path", &self.path)
            .field("message", &self.message)
            .field("messageZh", &self.message_zh)
            .some("fix", &self.fix)
            .end()
    }
}
/// Sorts findings the way every output presents them: severity, then path,
/// then code, then message, so the same input always gives the same list.
pub fn sort_findings(findings: &mut [Finding]) {
    crate::stable_sort::sort_by(findings, |a, b| {
        a.severity
            .cmp(&b.severity)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.node_id.cmp(&b.node_id))
            .then_with(|| a.message.cmp(&b.message))
    });
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
