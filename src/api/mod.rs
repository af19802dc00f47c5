//! Every operation of the package as plain Rust, the layer the JS bindings
//! (`crate::wasm`) convert to and from. One file per operation (`plan`,
//! `check`, `check_tunnel`, `simulate`, `lifecycle`, `backup`, `audit`),
//! each with the same two functions: the typed one (`plan`: the input as a
//! `serde_json::Value`, the options parsed, the answer a typed value that
//! encodes to its JSON) and its JSON twin (`plan_json`: the input and the
//! options as JSON text, read into the document tree ([`read_within`]),
//! the answer as the text the typed one's answer prints; tested equal in
//! `api::tests`). The whole-panel audit is text
//! only: each tunnel is written as it is audited.
//!
//! What is an error and what is an answer, for every operation:
//! * an [`ApiError`] (thrown in JS): the call itself is wrong: options or a
//!   scenario of the wrong shape (`BAD_OPTIONS`, `BAD_SCENARIO`), text that
//!   is not JSON (`IN001`; except for the checker, below), a document or
//!   answer over a size limit (`LIMIT_EXCEEDED`), a document of no kind the
//!   operation takes;
//! * an answer: everything the operation finds about a readable document: a
//!   server rejection (`plan.error`, with the server's message and a code),
//!   findings, a trace, a lifecycle report. The checker answers for any
//!   text: one it cannot read is an `IN001` finding, not an error.

mod audit;
mod backup;
mod check;
mod check_tunnel;
pub mod input_bytes;
mod lifecycle;
mod plan;
mod simulate;
#[cfg(test)]
mod tests;

pub use audit::audit_panel_json;
pub use backup::{backup_tunnels, backup_tunnels_json, panel_options, PanelOptions};
pub use check::{
    check, check_formatted, check_json, check_options, check_unreadable, unreadable_report,
};
pub use check_tunnel::{check_tunnel, check_tunnel_json};
pub use lifecycle::{lifecycle, lifecycle_json};
pub use plan::{plan, plan_json, plan_options, plan_text};
pub use simulate::{scenario, simulate, simulate_json, simulate_text};

use crate::error::ApiError;
use crate::options::OptionError;

/// Reads a document into the document tree in `arena`, within `limits`
/// (counted while it is read, the byte count first, so an input far over
/// a limit costs no more than taking its length); text that is not JSON is
/// `IN001`.
pub(crate) fn read_within<'a>(
    text: &'a str,
    what: &str,
    limits: &crate::limits::Limits,
    arena: &'a crate::json::tree::Arena,
) -> Result<crate::json::tree::TreeValue<'a>, ApiError> {
    match crate::limits::read_tree_within(text, limits, arena) {
        Ok((tree, _)) => Ok(tree),
        Err(e) => Err(read_error(e, what)),
    }
}

/// Why `what` could not be read: a limit's own error, or `IN001`.
fn read_error(e: crate::limits::ReadError, what: &str) -> ApiError {
    match e {
        crate::limits::ReadError::Limit(e) => e.to_api_error(),
        crate::limits::ReadError::NotJson(e) => {
            ApiError::new("IN001", format!("{what} is not valid JSON: {e}"), "")
        }
    }
}

/// A result's text within `limits.maxOutputBytes`: the last bound, for
/// results whose size no count predicted before they were built.
pub(crate) fn within_output(
    text: String,
    limits: &crate::limits::Limits,
) -> Result<String, crate::limits::LimitError> {
    if text.len() > limits.max_output_bytes {
        return Err(crate::limits::LimitError::new(
            "maxOutputBytes",
            text.len(),
            limits.max_output_bytes,
            String::new(),
        ));
    }
    Ok(text)
}

/// Reads optional options text: absent, blank or `null` is the default;
/// text that is not JSON or has the wrong shape is `code`.
fn parse_options<T: serde::de::DeserializeOwned + Default>(
    text: Option<&str>,
    code: &str,
    what: &str,
) -> Result<T, ApiError> {
    let text = match text {
        None => return Ok(T::default()),
        Some(t) if t.trim().is_empty() => return Ok(T::default()),
        Some(t) => t,
    };
    let arena = crate::json::tree::Arena::new();
    let tree = crate::limits::read_tree(text, &arena)
        .map_err(|e| ApiError::new(code, format!("{what} are not valid JSON: {e}"), ""))?;
    if tree.is_null() {
        return Ok(T::default());
    }
    crate::options::read(&tree).map_err(|e: OptionError| {
        ApiError::new(
            code,
            format!("{what} have the wrong shape: {}", e.message),
            e.path,
        )
    })
}
