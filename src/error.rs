//! Structured errors for entry points that cannot produce their normal result.

use crate::encode::shape;

shape! {
    #[doc = " A caller-facing error: a stable `code`, a message that says what is"]
    #[doc = " wrong, and where. In JS, the extra properties of the thrown"]
    #[doc = " `HopPolicyError`."]
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ApiError as HopPolicyErrorFields {
        #[doc = " Stable identifier: `IN001` (unreadable input), `BAD_OPTIONS`,"]
        #[doc = " `BAD_SCENARIO`, or a code from the core."]
        pub code: String => "code",
        pub message: String => "message",
        #[doc = " JSON Pointer into the input (`\"\"` = the whole input)."]
        pub path: String => "path",
    }
}

impl ApiError {
    pub fn new(code: &str, message: impl Into<String>, path: impl Into<String>) -> Self {
        Self::from_parts(code, message.into(), path.into())
    }

    // One copy of the body for every combination of argument types.
    #[inline(never)]
    fn from_parts(code: &str, message: String, path: String) -> Self {
        ApiError {
            code: code.to_string(),
            message,
            path,
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
