//! `checkDocument` / `checkDocumentJson`, `checkUnreadableJson` and
//! `checkDocumentFormatted`.

use crate::check::{self, CheckOptions, CheckReport};
use crate::encode;
use crate::error::ApiError;
use crate::finding::{Finding, Severity};
use serde_json::Value;

pub fn check_options(options: Option<&str>) -> Result<CheckOptions, ApiError> {
    super::parse_options(options, "BAD_OPTIONS", "the check options")
}

/// The report for a document that could not be read at all: the checker's
/// own IN001 finding for an unreadable document, carrying `reason`.
pub fn unreadable_report(reason: &str, options: &CheckOptions) -> CheckReport {
    // Ask the checker how it reports a document of the wrong shape, so the
    // summary stays in its format, then put the real reason in the finding.
    let mut report = check::check(&Value::Null, options);
    let message = format!("cannot read the document: {reason}");
    let message_zh = format!("无法读取文档：{reason}");
    match report.findings.iter_mut().find(|f| f.code == "IN001") {
        Some(existing) => {
            existing.message = message;
            existing.message_zh = message_zh;
        }
        None => {
            report.findings = vec![Finding {
                code: "IN001".into(),
                rule: "unreadable".into(),
                severity: Severity::Error,
                node_id: None,
                path: String::new(),
                message,
                message_zh,
                fix: None,
            }];
            report.summary.errors = 1;
            report.summary.warnings = 0;
            report.summary.infos = 0;
        }
    }
    report
}

/// The findings on one document (a tunnel input, a plan, a node's config or
/// a command list); one it cannot read is an IN001 finding.
pub fn check(doc: &Value, options: &CheckOptions) -> CheckReport {
    check::check(doc, options)
}

/// [`check()`] on JSON text. Never fails on the document itself (text that
/// is not JSON is one IN001 finding); fails only on malformed options.
pub fn check_json(doc: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = check_options(options)?;
    let report = encode::to_string(&check::check_text(doc, &options));
    Ok(super::within_output(report, &options.limits)
        .unwrap_or_else(|e| encode::to_string(&check::limit_report(&e))))
}

/// The report for a document that could not be read (`reason` says why).
pub fn check_unreadable(reason: &str, options: Option<&str>) -> Result<String, ApiError> {
    let options = check_options(options)?;
    Ok(encode::to_string(&unreadable_report(reason, &options)))
}

/// Checks `document` (or reports why it could not be read) and renders the
/// report as `text`, `sarif` (`uri` names the artifact) or `json`.
#[inline]
pub fn check_formatted(
    document: Result<&str, &str>,
    format: &str,
    options: Option<&str>,
    uri: Option<&str>,
) -> Result<String, ApiError> {
    let options = check_options(options)?;
    let report = match document {
        Ok(text) => check::check_text(text, &options),
        Err(reason) => unreadable_report(reason, &options),
    };
    render(&report, format, uri)
}

/// A report as `text`, `sarif` (`uri` names the artifact) or `json`.
pub fn render(report: &CheckReport, format: &str, uri: Option<&str>) -> Result<String, ApiError> {
    match format {
        "text" => Ok(check::report_text(report)),
        "sarif" => Ok(encode::to_string(&check::report_sarif(
            report,
            uri.unwrap_or("document.json"),
        ))),
        "json" => Ok(encode::to_string(report)),
        other => Err(ApiError::new(
            "BAD_OPTIONS",
            format!("unknown report format {other:?}: use text, json or sarif"),
            "",
        )),
    }
}
