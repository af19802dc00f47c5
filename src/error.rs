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

/// The TypeScript of the error every function throws (its class is defined
/// in the bindings' JS snippet, `src/wasm/glue.js`) and of its codes.
pub const HOP_POLICY_ERROR_TS: &str = r#"
/** What a `HopPolicyError` says went wrong. */
export type ErrorCode = 'IN001' | 'BAD_ARGUMENT' | 'BAD_OPTIONS' | 'BAD_SCENARIO' | 'LIMIT_EXCEEDED' | 'NOT_INITIALISED' | 'STACK_EXHAUSTED' | 'INTERNAL' | (string & {});

/**
 * What every function throws when it cannot produce its result (a server
 * rejection is not thrown: it is the plan's `error`). `code` is stable:
 * `IN001` (unreadable input), `BAD_ARGUMENT`, `BAD_OPTIONS`, `BAD_SCENARIO`,
 * `LIMIT_EXCEEDED`, `NOT_INITIALISED` (web build: `init()` not awaited yet),
 * `STACK_EXHAUSTED` / `INTERNAL` (the call failed inside the module, which was
 * reset: the next call works), or a code from the core. `path` is a JSON
 * Pointer into the input.
 */
export class HopPolicyError extends Error {
  readonly name: 'HopPolicyError';
  readonly code: ErrorCode;
  readonly path: string;
  constructor(code: ErrorCode, message: string, path?: string);
}
"#;
