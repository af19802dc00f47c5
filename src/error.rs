//! Structured errors for entry points that cannot produce their normal result.

use crate::encode::{Encode, Object};
use serde::Serialize;

/// A caller-facing error: a stable `code`, a message that says what is wrong,
/// and a JSON Pointer `path` to where in the input it is (`""` = the whole input).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    pub path: String,
}

impl ApiError {
    pub fn new(code: &str, message: impl Into<String>, path: impl Into<String>) -> Self {
        ApiError {
            code: code.to_string(),
            message: message.into(),
            path: path.into(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.code, self.message)
        } else {
            write!(f, "{}: {} (at {})", self.code, self.message, self.path)
        }
    }
}

impl std::error::Error for ApiError {}

impl Encode for ApiError {
    fn encode(&self, out: &mut String) {
        Object::new(out)
            .field("code", &self.code)
            .field("message", &self.message)
            .field("path", &self.path)
            .end()
    }
}
