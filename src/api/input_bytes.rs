//! The byte limit an operation reads its document within, known from its
//! options before the document is read, and the order every entry point
//! follows: options first, then the document as far as that limit allows,
//! then the operation. UTF-8 takes at least one byte per UTF-16 unit, so
//! the bindings can refuse a JS string of more units than the limit without
//! copying it into memory that never shrinks; the answer is the one the
//! operation gives for any text over its byte limit.

use crate::encode;
use crate::error::ApiError;
use crate::limits::{LimitError, Limits, DEFAULT_MAX_INPUT_BYTES};
use crate::plan::Plan;

/// An operation that reads a document, by how its options set the limits
/// and how it answers a document over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `planTunnel`: plan options; over a limit is a rejected plan.
    Plan,
    /// `checkTunnel`: plan options; over a limit is an error.
    CheckTunnel,
    /// `checkDocument`: check options; over a limit is an IN001 finding.
    Check,
    /// `simulate`: the scenario's limits.
    Simulate,
    /// `lifecycle`: no options, the default limits.
    Lifecycle,
    /// `backupTunnels`, `auditPanel`: a whole panel's limits, raised by their options.
    Panel,
}

/// A document as the bindings read it: its text, or its length when that
/// alone puts it over the byte limit (it was then never copied).
pub enum Text {
    Read(String),
    Over(usize),
}

/// `op` on the document `read` gives within the byte limit `options` set
/// for `reader`; a document over it gets the operation's answer for one.
pub fn within(
    reader: Reader,
    options: Option<&str>,
    read: impl FnOnce(usize) -> Result<Text, ApiError>,
    op: impl FnOnce(&str) -> Result<String, ApiError>,
) -> Result<String, ApiError> {
    answer(reader, options, read(max_input_bytes(reader, options))?, op)
}

/// `op` on a document already read, or `reader`'s answer for one over its
/// byte limit.
pub fn answer(
    reader: Reader,
    options: Option<&str>,
    document: Text,
    op: impl FnOnce(&str) -> Result<String, ApiError>,
) -> Result<String, ApiError> {
    match document {
        Text::Read(text) => op(&text),
        Text::Over(bytes) => over_limit(reader, options, bytes),
    }
}

/// `checkDocument`: as [`within`], but a document that cannot be read at
/// all (not text, no JSON form) is reported as an `IN001` finding, as any
/// unreadable document is; only bad options are an error.
pub fn check_within(
    options: Option<&str>,
    read: impl FnOnce(usize) -> Result<Text, ApiError>,
) -> Result<String, ApiError> {
    match read(max_input_bytes(Reader::Check, options)) {
        Ok(Text::Read(text)) => super::check_json(&text, options),
        Ok(Text::Over(bytes)) => over_limit(Reader::Check, options, bytes),
        Err(e) => super::check_unreadable(&e.message, options),
    }
}

/// `checkDocumentFormatted`: [`check_within`] rendered as `format`; with
/// `read_error` the caller could not read the document at all.
pub fn check_formatted_within(
    format: &str,
    options: Option<&str>,
    uri: Option<&str>,
    read_error: Option<&str>,
    read: impl FnOnce(usize) -> Result<Text, ApiError>,
) -> Result<String, ApiError> {
    let read = match read_error {
        Some(reason) => Err(reason.to_string()),
        None => match read(max_input_bytes(Reader::Check, options)) {
            Ok(Text::Read(text)) => Ok(text),
            Ok(Text::Over(bytes)) => return over_limit_formatted(format, options, uri, bytes),
            Err(e) => Err(e.message),
        },
    };
    let document = read.as_deref().map_err(String::as_str);
    super::check_formatted(document, format, options, uri)
}

/// The byte limit `reader` applies with `options`. Options it cannot read
/// give the default: the operation itself reports them.
pub fn max_input_bytes(reader: Reader, options: Option<&str>) -> usize {
    limits(reader, options).map_or(DEFAULT_MAX_INPUT_BYTES, |l| l.max_input_bytes)
}

fn limits(reader: Reader, options: Option<&str>) -> Result<Limits, ApiError> {
    Ok(match reader {
        Reader::Plan | Reader::CheckTunnel => super::plan_options(options)?.limits,
        Reader::Check => super::check_options(options)?.limits,
        Reader::Simulate => super::scenario(options)?.limits,
        Reader::Lifecycle => Limits::default(),
        Reader::Panel => super::backup::panel_options(options)?.limits,
    })
}

/// What `reader` answers for a document of at least `bytes` bytes, over its
/// byte limit: options it cannot read are reported first, as it does.
pub fn over_limit(reader: Reader, options: Option<&str>, bytes: usize) -> Result<String, ApiError> {
    let error = limit_error(reader, options, bytes)?;
    match reader {
        Reader::Plan => {
            let mode = super::plan_options(options)?.mode.unwrap_or_default();
            Ok(encode::to_string(&Plan::rejected(
                crate::planner::rejection::limit_error(&error),
                mode.as_str(),
            )))
        }
        Reader::Check => Ok(encode::to_string(&crate::check::limit_report(&error))),
        _ => Err(error.to_api_error()),
    }
}

/// `checkDocumentFormatted`'s answer for a document of at least `bytes`
/// bytes, over the byte limit of `options`.
pub fn over_limit_formatted(
    format: &str,
    options: Option<&str>,
    uri: Option<&str>,
    bytes: usize,
) -> Result<String, ApiError> {
    let error = limit_error(Reader::Check, options, bytes)?;
    super::check::render(&crate::check::limit_report(&error), format, uri)
}

fn limit_error(
    reader: Reader,
    options: Option<&str>,
    bytes: usize,
) -> Result<LimitError, ApiError> {
    let max = limits(reader, options)?.max_input_bytes;
    Ok(LimitError::new("maxInputBytes", bytes, max, String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal without the text is what the operation answers for text
    /// of that many bytes.
    #[test]
    fn over_limit_answers_what_the_operation_answers() {
        let text = " ".repeat(40);
        let options = r#"{"limits": {"maxInputBytes": 30}, "mode": "update"}"#;
        assert_eq!(max_input_bytes(Reader::Plan, Some(options)), 30);
        assert_eq!(
            over_limit(Reader::Plan, Some(options), 40),
            super::super::plan_json(&text, Some(options))
        );
        assert_eq!(
            over_limit(Reader::CheckTunnel, Some(options), 40),
            super::super::check_tunnel_json(&text, Some(options))
        );
        assert_eq!(
            over_limit(Reader::Check, Some(options), 40),
            super::super::check_json(&text, Some(options))
        );
        for format in ["text", "sarif", "json", "yaml"] {
            assert_eq!(
                over_limit_formatted(format, Some(options), Some("a.json"), 40),
                super::super::check_formatted(Ok(&text), format, Some(options), Some("a.json"))
            );
        }
    }

    #[test]
    fn limits_by_reader() {
        let big = DEFAULT_MAX_INPUT_BYTES + 1;
        let text = " ".repeat(big);
        assert_eq!(
            max_input_bytes(Reader::Lifecycle, None),
            DEFAULT_MAX_INPUT_BYTES
        );
        assert_eq!(
            over_limit(Reader::Lifecycle, None, big),
            super::super::lifecycle_json(&text)
        );
        assert_eq!(
            over_limit(Reader::Simulate, None, big),
            super::super::simulate_json(&text, None)
        );
        assert_eq!(max_input_bytes(Reader::Panel, None), 256 << 20);
        let err = over_limit(Reader::Panel, None, 300 << 20).unwrap_err();
        assert_eq!(err.code, "LIMIT_EXCEEDED");
        assert!(
            err.message.contains("limits.maxInputBytes"),
            "{}",
            err.message
        );
    }

    /// Each entry point's order: the document is read within the options'
    /// limit, over it is the operation's answer, unreadable is the
    /// checker's finding (and the others' error).
    #[test]
    fn documents_are_read_within_the_options_limit() {
        let options = r#"{"limits": {"maxInputBytes": 30}}"#;
        let seen = std::cell::Cell::new(0);
        let read = |max: usize| {
            seen.set(max);
            Ok(Text::Over(40))
        };
        let over = within(Reader::Plan, Some(options), read, |_| unreachable!());
        assert_eq!(seen.get(), 30);
        assert_eq!(over, over_limit(Reader::Plan, Some(options), 40));
        let text = |t: &str| {
            let t = t.to_string();
            move |_: usize| Ok(Text::Read(t))
        };
        assert_eq!(
            within(Reader::Check, None, text("[]"), |t| Ok(format!("<{t}>"))),
            Ok("<[]>".to_string())
        );
        let unreadable = |_: usize| Err(ApiError::new("IN001", "no JSON form", ""));
        assert_eq!(
            check_within(None, unreadable),
            super::super::check_unreadable("no JSON form", None)
        );
        assert!(within(Reader::Plan, None, unreadable, |_| unreachable!()).is_err());
        assert_eq!(
            check_within(Some(options), text("{}")),
            super::super::check_json("{}", Some(options))
        );
        assert_eq!(
            check_formatted_within("text", None, None, Some("cannot open"), |_| unreachable!()),
            super::super::check_formatted(Err("cannot open"), "text", None, None)
        );
        assert_eq!(
            check_formatted_within("sarif", Some(options), Some("a.json"), None, read),
            over_limit_formatted("sarif", Some(options), Some("a.json"), 40)
        );
    }

    /// Options that cannot be read are reported as the operation reports
    /// them, not as a limit.
    #[test]
    fn bad_options_first() {
        let bad = r#"{"limits": 1}"#;
        assert_eq!(
            max_input_bytes(Reader::Check, Some(bad)),
            DEFAULT_MAX_INPUT_BYTES
        );
        let text = " ".repeat(DEFAULT_MAX_INPUT_BYTES + 1);
        assert_eq!(
            over_limit(Reader::Check, Some(bad), text.len()),
            super::super::check_json(&text, Some(bad))
        );
        assert_eq!(
            over_limit(Reader::Simulate, Some("[1]"), text.len()),
            super::super::simulate_json(&text, Some("[1]"))
        );
    }
}
