//! A document over a limit, and a text that could not be read within them:
//! the errors, and their one conversion each to the public error and to
//! the checker's finding.

use crate::error::ApiError;
use crate::finding::{Finding, Severity};
use crate::json::{Bound, JsonError, TooLarge};
use serde::Serialize;

/// A document over one limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitError {
    /// The option that was exceeded: `"maxInputBytes"`, `"maxNodes"`, `"maxHops"`,
    /// `"maxNodesPerHop"`, `"maxStringLen"`, `"maxDepth"` or `"maxOutputBytes"`.
    pub limit: &'static str,
    /// What the document has (for depth and string length: at least this much;
    /// scanning stops at the first value over the limit).
    pub actual: usize,
    /// The limit in force.
    pub max: usize,
    /// JSON Pointer to the offending value (`""` = the whole document).
    pub path: String,
    /// English text naming the limit, the sizes and how to raise it.
    pub message: String,
}

impl LimitError {
    pub(crate) fn new(limit: &'static str, actual: usize, max: usize, path: String) -> LimitError {
        let what = match limit {
            "maxInputBytes" => "the input is larger than the byte limit",
            "maxNodes" => "too many nodes",
            "maxHops" => "too many hops",
            "maxNodesPerHop" => "too many nodes in one hop",
            "maxStringLen" => "a string is longer than the length limit",
            "maxDepth" => "arrays/objects are nested deeper than the depth limit",
            "maxOutputBytes" => "the result would be larger than the output limit",
            _ => "a size limit is exceeded",
        };
        let at = if path.is_empty() {
            String::new()
        } else {
            format!(" at {}", path)
        };
        let message = format!(
            "{}{}: {} > {} (raise option limits.{} to allow it)",
            what, at, actual, max, limit
        );
        LimitError {
            limit,
            actual,
            max,
            path,
            message,
        }
    }

    /// Chinese text for the same error.
    pub fn message_zh(&self) -> String {
        let what = match self.limit {
            "maxInputBytes" => "输入超过字节数上限",
            "maxNodes" => "节点数量超过上限",
            "maxHops" => "跳数超过上限",
            "maxNodesPerHop" => "单跳节点数量超过上限",
            "maxStringLen" => "字符串长度超过上限",
            "maxDepth" => "嵌套层数超过上限",
            "maxOutputBytes" => "结果超过输出字节数上限",
            _ => "超过大小限制",
        };
        let at = if self.path.is_empty() {
            String::new()
        } else {
            format!("（位置 {}）", self.path)
        };
        format!(
            "{}{}：{} > {}（可通过选项 limits.{} 调整）",
            what, at, self.actual, self.max, self.limit
        )
    }

    /// The error for entry points that return [`ApiError`]: code `LIMIT_EXCEEDED`.
    pub fn to_api_error(&self) -> ApiError {
        ApiError::new("LIMIT_EXCEEDED", self.message.clone(), self.path.clone())
    }

    /// The finding for the checker: `IN001 unreadable`, an error, no fix.
    pub fn to_finding(&self) -> Finding {
        Finding {
            code: "IN001".to_string(),
            rule: "unreadable".to_string(),
            severity: Severity::Error,
            node_id: None,
            path: self.path.clone(),
            message: self.message.clone(),
            message_zh: self.message_zh(),
            fix: None,
        }
    }
}

impl std::fmt::Display for LimitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LimitError {}

impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> ApiError {
        e.to_api_error()
    }
}

/// The reader's bound, as the option that sets it.
impl From<TooLarge> for LimitError {
    fn from(e: TooLarge) -> LimitError {
        let limit = match e.bound {
            Bound::Bytes => "maxInputBytes",
            Bound::StringLen => "maxStringLen",
            Bound::Depth => "maxDepth",
        };
        LimitError::new(limit, e.actual, e.max, e.path)
    }
}

/// Why a text was not read within limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The text is not JSON.
    NotJson(JsonError),
    /// The document is over a limit.
    Limit(LimitError),
}
