//! Helpers shared by the `hostile_*` tests: run every public core entry point
//! on a document and return what a caller would see, as JSON text.
#![allow(dead_code)]

use hop_policy::check::{self, CheckOptions};
use hop_policy::simulate::{self, Scenario};
use serde_json::{json, Value};
use std::path::PathBuf;

#[path = "../golden_vectors/mod.rs"]
mod golden_vectors;

mod credentials;
pub use credentials::{is_credential_key, plant_with};

/// The golden vectors (name, input, expected): `vectors()` the create ones,
/// `all_vectors()` every mode.
#[allow(unused_imports)]
pub use golden_vectors::{all_vectors, mode_of, sampled, vectors};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of the committed fuzz seed corpus and of tests/data/hostile,
/// as (name, text). Files that are not UTF-8 are included lossily.
pub fn corpus() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![root().join("tests/data/hostile")];
    if let Ok(rd) = std::fs::read_dir(root().join("fuzz/corpus")) {
        let mut seeds: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
            })
            .collect();
        seeds.sort();
        dirs.extend(seeds);
    }
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            if let Ok(bytes) = std::fs::read(&f) {
                let name = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
                out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    out
}

/// An output as the entry points print it (`hop_policy::encode`), after
/// checking that serde's derived serializer prints the same bytes.
pub fn to_json<T: serde::Serialize + hop_policy::encode::Encode>(t: &T) -> String {
    let shipped = hop_policy::encode::to_string(t);
    assert_eq!(
        shipped,
        serde_json::to_string(t).expect("outputs serialize"),
        "encode and serde differ"
    );
    shipped
}

/// Every entry point on one parsed document, each output as JSON text
/// (the text reports of the CLI included). Labels name the entry point.
pub fn outputs_for_value(doc: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    out.push(("plan", to_json(&hop_policy::plan(doc, &Default::default()))));
    if let Ok(text) = serde_json::to_string(doc) {
        // Text that serde_json wrote is JSON: the text entry point plans it.
        if let Ok(plan) = hop_policy::api::plan_json(&text, None) {
            out.push(("api::plan", plan));
        }
        out.push((
            "check_text",
            to_json(&check::check_text(&text, &CheckOptions::default())),
        ));
    }
    let report = check::check(doc, &CheckOptions::default());
    out.push(("check.report_text", check::report_text(&report)));
    out.push((
        "check.report_sarif",
        to_json(&check::report_sarif(&report, "doc.json")),
    ));
    out.push(("check", to_json(&report)));
    for kind in ["tunnel", "plan", "config", "commands"] {
        let opts = CheckOptions {
            kind: Some(kind.to_string()),
            ..Default::default()
        };
        out.push(("check(kind)", to_json(&check::check(doc, &opts))));
    }
    out.push((
        "check_tunnel",
        to_json(&check::check_tunnel(doc, &Default::default())),
    ));
    for scenario in [
        json!({}),
        json!({"dead": [2, "3", "203.0.113.4:45002"], "requests": 4, "gapMs": 0}),
    ] {
        let sc = Scenario::from_json(&scenario).expect("scenario");
        match simulate::simulate(doc, &sc) {
            Ok(trace) => {
                out.push(("simulate.trace_text", simulate::trace_text(&trace)));
                out.push(("simulate", to_json(&trace)));
            }
            Err(e) => out.push(("simulate(err)", to_json(&e) + &e.to_string())),
        }
    }
    let as_steps = [
        doc.clone(),
        json!([{"op": "apply", "input": doc}, {"op": "release", "unreachable": [2]}, {"op": "apply", "input": doc}]),
        json!([{"op": "apply", "plan": doc}, {"op": "delete"}]),
        json!([{"op": "apply", "plan": doc}]),
    ];
    for steps in as_steps {
        match hop_policy::lifecycle::lifecycle(&steps) {
            Ok(r) => out.push(("lifecycle", to_json(&r))),
            Err(e) => out.push(("lifecycle(err)", to_json(&e) + &e.to_string())),
        }
    }
    out
}

/// Text entry points on raw text, plus the value entry points when it parses.
pub fn outputs_for_text(text: &str) -> Vec<(&'static str, String)> {
    let mut out = vec![
        match hop_policy::api::plan_json(text, None) {
            Ok(plan) => ("api::plan", plan),
            Err(e) => ("api::plan_json(err)", to_json(&e) + &e.to_string()),
        },
        (
            "check_text",
            to_json(&check::check_text(text, &CheckOptions::default())),
        ),
    ];
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        out.extend(outputs_for_value(&v));
        // Corpus files for the simulator are `[doc, scenario]`, for the checker `{doc, options}`.
        if let Some([doc, sc]) = v.as_array().map(Vec::as_slice) {
            if let Ok(sc) = Scenario::from_json(sc) {
                if sc.requests.unwrap_or(3) <= 1000 {
                    match simulate::simulate(doc, &sc) {
                        Ok(t) => out.push(("simulate([doc, scenario])", to_json(&t))),
                        Err(e) => out.push(("simulate([doc, scenario])(err)", to_json(&e))),
                    }
                }
            }
        }
        if let (Some(doc), Some(opts)) = (v.get("doc"), v.get("options")) {
            let opts = CheckOptions::from_json(opts).unwrap_or_default();
            out.push(("check({doc, options})", to_json(&check::check(doc, &opts))));
        }
    }
    out
}

/// Each finding of `report` as (code, JSON Pointer).
pub fn code_paths(report: &check::CheckReport) -> Vec<(&str, &str)> {
    report
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.path.as_str()))
        .collect()
}

/// Replaces every credential-like field's value with a unique canary
/// (`CANARY<tag>Q<n>Z`), iteratively, and returns the canaries planted.
pub fn plant_canaries(v: &mut Value, tag: &str) -> Vec<String> {
    plant_with(v, |n| format!("CANARY{tag}Q{n}Z"))
}

/// All string values found under credential-like keys.
pub fn credential_values(v: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Object(m) => {
                for (k, child) in m {
                    if is_credential_key(k) {
                        if let Some(s) = child.as_str() {
                            found.push(s.to_string());
                        }
                    } else {
                        stack.push(child);
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    found
}

/// Takes a deeply nested value apart without recursion (its default drop recurses).
pub fn drop_deep(v: Value) {
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
