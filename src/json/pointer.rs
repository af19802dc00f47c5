//! JSON Pointer (RFC 6901) reference tokens.

/// Escapes one JSON Pointer reference token (RFC 6901 section 3).
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
