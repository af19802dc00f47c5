//! Report formatters: a readable text report grouped by node, and SARIF 2.1.0.

use super::rules::{rules, RuleInfo, RULES};
use super::CheckReport;
use crate::finding::{Finding, Severity};
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
    crate::sorting::sort_by_key(&mut keyed, |k| k.0);
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

/// One object entry: the report's objects are filled through these two
/// functions, so each entry costs a call, not an inlined insert.
#[inline(never)]
fn put(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.insert(key.to_string(), value);
}

#[inline(never)]
fn put_str(map: &mut Map<String, Value>, key: &str, value: &str) {
    put(map, key, Value::from(value));
}

/// `{key: value}`.
#[inline(never)]
fn single(key: &str, value: Value) -> Value {
    let mut map = Map::new();
    put(&mut map, key, value);
    Value::Object(map)
}

/// `{key: "value"}`.
fn single_str(key: &str, value: &str) -> Value {
    single(key, Value::from(value))
}

/// `path` (a file name, relative or absolute) as the URI reference SARIF's
/// `artifactLocation.uri` must be (RFC 3986): every byte other than an
/// unreserved character or `/` is percent-encoded, so spaces, `#`, `%`, `?`,
/// `:` (which would read as a scheme) and non-ASCII letters stay part of one
/// path, and a relative path stays relative. Credentials are scrubbed first:
/// a name that is a URL with userinfo or a token parameter never carries
/// them into the report.
pub(crate) fn uri_reference(path: &str) -> String {
    let scrubbed = crate::redact::scrub_urls(path);
    let path = scrubbed.as_deref().unwrap_or(path);
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// SARIF 2.1.0: one run, the rule table as driver rules, one result per
/// finding; the JSON Pointer is the logical location inside the artifact
/// at `artifact_path`, a file name that becomes its `uri_reference`.
pub fn report_sarif(report: &CheckReport, artifact_path: &str) -> Value {
    let artifact_uri = uri_reference(artifact_path);
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| sarif_result(f, &artifact_uri))
        .collect();
    let mut sarif = Map::new();
    put_str(
        &mut sarif,
        "$schema",
        "https://json.schemastore.org/sarif-2.1.0.json",
    );
    put_str(&mut sarif, "version", "2.1.0");
    let run = sarif_run(report, &artifact_uri, results);
    put(&mut sarif, "runs", Value::Array(vec![run]));
    Value::Object(sarif)
}

/// The run: the tool with its rules, the artifact, the results, and the
/// report's kind as properties.
fn sarif_run(report: &CheckReport, artifact_uri: &str, results: Vec<Value>) -> Value {
    let mut driver = Map::new();
    put_str(&mut driver, "name", "hop-policy");
    put_str(&mut driver, "version", env!("CARGO_PKG_VERSION"));
    let sarif_rules = rules().iter().map(sarif_rule).collect();
    put(&mut driver, "rules", Value::Array(sarif_rules));
    let mut summary = Map::new();
    put_str(&mut summary, "kind", &report.summary.kind);
    put_str(&mut summary, "pathsInto", &report.summary.paths_into);
    let mut run = Map::new();
    put(&mut run, "tool", single("driver", Value::Object(driver)));
    put(
        &mut run,
        "artifacts",
        Value::Array(vec![single("location", single_str("uri", artifact_uri))]),
    );
    put(&mut run, "results", Value::Array(results));
    put(&mut run, "properties", Value::Object(summary));
    Value::Object(run)
}

/// One rule of the table as a driver rule.
fn sarif_rule(r: &RuleInfo) -> Value {
    let mut rule = Map::new();
    put_str(&mut rule, "id", &r.code);
    put_str(&mut rule, "name", &r.rule);
    put(
        &mut rule,
        "shortDescription",
        single_str("text", &r.description),
    );
    put(
        &mut rule,
        "fullDescription",
        single_str("text", &format!("{} / {}", r.description, r.description_zh)),
    );
    put(
        &mut rule,
        "defaultConfiguration",
        single_str("level", level(r.severity)),
    );
    let mut props = Map::new();
    put_str(&mut props, "descriptionZh", &r.description_zh);
    put_str(&mut props, "severity", r.severity.as_str());
    put(&mut rule, "properties", Value::Object(props));
    Value::Object(rule)
}

/// One finding as a result, located in the artifact by its JSON Pointer.
fn sarif_result(f: &Finding, artifact_uri: &str) -> Value {
    let mut result = Map::new();
    put_str(&mut result, "ruleId", &f.code);
    put_str(&mut result, "level", level(f.severity));
    put(&mut result, "message", single_str("text", &f.message));
    put(
        &mut result,
        "locations",
        Value::Array(vec![sarif_location(f, artifact_uri)]),
    );
    put(
        &mut result,
        "properties",
        Value::Object(result_properties(f)),
    );
    if let Some(i) = RULES.iter().position(|r| r.0 == f.code) {
        put(&mut result, "ruleIndex", Value::from(i));
    }
    Value::Object(result)
}

/// The artifact and, inside it, the finding's JSON Pointer (`/` for the
/// whole document).
fn sarif_location(f: &Finding, artifact_uri: &str) -> Value {
    let name = if f.path.is_empty() {
        "/"
    } else {
        f.path.as_str()
    };
    let mut logical = Map::new();
    put_str(&mut logical, "fullyQualifiedName", name);
    put_str(&mut logical, "kind", "member");
    let mut location = Map::new();
    put(
        &mut location,
        "physicalLocation",
        single("artifactLocation", single_str("uri", artifact_uri)),
    );
    put(
        &mut location,
        "logicalLocations",
        Value::Array(vec![Value::Object(logical)]),
    );
    Value::Object(location)
}

/// What SARIF has no field for: the pointer, the Chinese message, the rule
/// name, the node and the fix.
fn result_properties(f: &Finding) -> Map<String, Value> {
    let mut props = Map::new();
    put_str(&mut props, "path", &f.path);
    put_str(&mut props, "messageZh", &f.message_zh);
    put_str(&mut props, "rule", &f.rule);
    if let Some(id) = f.node_id {
        put(&mut props, "nodeId", Value::from(id));
    }
    if let Some(fix) = &f.fix {
        let mut m = Map::new();
        put_str(&mut m, "op", &fix.op);
        put_str(&mut m, "path", &fix.path);
        put(&mut m, "value", fix.value.clone());
        put(&mut props, "fix", Value::Object(m));
    }
    props
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uri_is_percent_encoded() {
        for (path, uri) in [
            ("plan.json", "plan.json"),
            ("stdin", "stdin"),
            ("dir/sub-1/a_b.c~d.json", "dir/sub-1/a_b.c~d.json"),
            ("/abs/plan.json", "/abs/plan.json"),
            ("my plan #2 100%.json", "my%20plan%20%232%20100%25.json"),
            ("c:plan.json", "c%3Aplan.json"),
            ("a?b=c&d.json", "a%3Fb%3Dc%26d.json"),
            ("隧道/ü.json", "%E9%9A%A7%E9%81%93/%C3%BC.json"),
            ("dir\\plan.json", "dir%5Cplan.json"),
            ("", ""),
            (
                "postgres://admin:hunter2@db:5432/flvx",
                "postgres%3A//%5Bredacted%5D%40db%3A5432/flvx",
            ),
            (
                "https://h/x.json?token=abc",
                "https%3A//h/x.json%3Ftoken%3D%5Bredacted%5D",
            ),
        ] {
            assert_eq!(uri_reference(path), uri, "{path:?}");
        }
    }

    #[test]
    fn sarif_locations_carry_the_encoded_uri() {
        let report = super::super::check_text("not json", &super::super::CheckOptions::default());
        assert!(!report.findings.is_empty());
        let sarif = report_sarif(&report, "out dir/plan #1.json");
        let run = &sarif["runs"][0];
        assert_eq!(
            run["artifacts"][0]["location"]["uri"],
            "out%20dir/plan%20%231.json"
        );
        for result in run["results"].as_array().expect("results") {
            assert_eq!(
                result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                "out%20dir/plan%20%231.json"
            );
        }
    }
}
