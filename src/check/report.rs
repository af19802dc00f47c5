//! Report formatters: a readable text report grouped by node, and SARIF 2.1.0.

use super::rules::{rules, RULES};
use super::CheckReport;
use crate::finding::{Finding, Severity};
use crate::json::object;
use serde_json::{Map, Value};
use std::fmt::Write;

/// A readable report, findings grouped by node (document-level ones last).
pub fn report_text(report: &CheckReport) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "hop-policy check: {} ({}): {} error(s), {} warning(s), {} info(s)",
        s.kind, s.paths_into, s.errors, s.warnings, s.infos
    );
    if report.findings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    // Grouped by node (document-level findings last), in report order
    // within a group: a stable sort, then runs of one key.
    let mut keyed: Vec<((bool, i64), &Finding)> = report
        .findings
        .iter()
        .map(|f| (f.node_id.map_or((true, 0), |id| (false, id)), f))
        .collect();
    crate::stable_sort::sort_by(&mut keyed, |a, b| a.0.cmp(&b.0));
    for group in keyed.chunk_by(|a, b| a.0 == b.0) {
        let Some(&((doc_level, id), _)) = group.first() else {
            continue;
        };
        let findings = group.iter().map(|(_, f)| *f);
        let count = group.len();
        out.push('\n');
        if doc_level {
            let _ = writeln!(out, "Document ({} finding(s))", count);
        } else {
            let _ = writeln!(out, "Node {} ({} finding(s))", id, count);
        }
        for f in findings {
            let at = if f.path.is_empty() {
                "(whole document)"
            } else {
                f.path.as_str()
            };
            let _ = writeln!(
                out,
                "  {:<7} {} {} at {}",
                f.severity.as_str(),
                f.code,
                f.rule,
                at
            );
            let _ = writeln!(out, "          {}", f.message);
            let _ = writeln!(out, "          {}", f.message_zh);
            if let Some(fix) = &f.fix {
                let _ = writeln!(
                    out,
                    "          fix: {} {} = {}",
                    fix.op,
                    fix.path,
                    crate::json::Text(&fix.value)
                );
            }
        }
    }
    if !s.by_code.is_empty() {
        out.push('\n');
        let counts: Vec<String> = s
            .by_code
            .iter()
            .map(|(c, n)| format!("{} x{}", c, n))
            .collect();
        let _ = writeln!(out, "By code: {}", counts.join(", "));
    }
    out
}

fn level(sev: Severity) -> &'static str {
    match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// SARIF 2.1.0: one run, the rule table as driver rules, one result per
/// finding; the JSON Pointer is the logical location inside `artifact_uri`.
pub fn report_sarif(report: &CheckReport, artifact_uri: &str) -> Value {
    let text = |t: &str| object([("text", Value::from(t))]);
    let sarif_rules: Vec<Value> = rules()
        .iter()
        .map(|r| {
            object([
                ("id", Value::from(r.code.as_str())),
                ("name", Value::from(r.rule.as_str())),
                ("shortDescription", text(&r.description)),
                (
                    "fullDescription",
                    text(&format!("{} / {}", r.description, r.description_zh)),
                ),
                (
                    "defaultConfiguration",
                    object([("level", Value::from(level(r.severity)))]),
                ),
                (
                    "properties",
                    object([
                        ("descriptionZh", Value::from(r.description_zh.as_str())),
                        ("severity", Value::from(r.severity.as_str())),
                    ]),
                ),
            ])
        })
        .collect();
    let artifact = || object([("uri", Value::from(artifact_uri))]);
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let mut props = Map::new();
            props.insert("path".into(), Value::from(f.path.as_str()));
            props.insert("messageZh".into(), Value::from(f.message_zh.as_str()));
            props.insert("rule".into(), Value::from(f.rule.as_str()));
            if let Some(id) = f.node_id {
                props.insert("nodeId".into(), Value::from(id));
            }
            if let Some(fix) = &f.fix {
                props.insert(
                    "fix".into(),
                    object([
                        ("op", Value::from(fix.op.as_str())),
                        ("path", Value::from(fix.path.as_str())),
                        ("value", fix.value.clone()),
                    ]),
                );
            }
            let name = if f.path.is_empty() {
                "/"
            } else {
                f.path.as_str()
            };
            let location = object([
                (
                    "physicalLocation",
                    object([("artifactLocation", artifact())]),
                ),
                (
                    "logicalLocations",
                    Value::Array(vec![object([
                        ("fullyQualifiedName", Value::from(name)),
                        ("kind", Value::from("member")),
                    ])]),
                ),
            ]);
            let mut result = object([
                ("ruleId", Value::from(f.code.as_str())),
                ("level", Value::from(level(f.severity))),
                ("message", text(&f.message)),
                ("locations", Value::Array(vec![location])),
                ("properties", Value::Object(props)),
            ]);
            if let (Some(i), Some(obj)) = (
                RULES.iter().position(|r| r.0 == f.code),
                result.as_object_mut(),
            ) {
                obj.insert("ruleIndex".into(), Value::from(i));
            }
            result
        })
        .collect();
    let driver = object([
        ("name", Value::from("hop-policy")),
        ("version", Value::from(env!("CARGO_PKG_VERSION"))),
        ("rules", Value::Array(sarif_rules)),
    ]);
    let run = object([
        ("tool", object([("driver", driver)])),
        (
            "artifacts",
            Value::Array(vec![object([("location", artifact())])]),
        ),
        ("results", Value::Array(results)),
        (
            "properties",
            object([
                ("kind", Value::from(report.summary.kind.as_str())),
                ("pathsInto", Value::from(report.summary.paths_into.as_str())),
            ]),
        ),
    ]);
    object([
        (
            "$schema",
            Value::from("https://json.schemastore.org/sarif-2.1.0.json"),
        ),
        ("version", Value::from("2.1.0")),
        ("runs", Value::Array(vec![run])),
    ])
}
