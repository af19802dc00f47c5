//! The text layer's behaviour: errors, options, the typed operations
//! against their JSON twins. The TypeScript the package ships is checked
//! against real inputs and outputs by TypeScript itself
//! (`tests/node/declarations.test.mjs`).

use crate::api;
use crate::encode;
use crate::planner;
use serde_json::Value;

fn read_vectors(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("golden vector line is JSON"))
        .collect()
}

/// The create vectors.
fn vectors() -> Vec<Value> {
    read_vectors(include_str!("../../../tests/data/plan-vectors.jsonl"))
}

#[test]
fn text_plan_rejects_non_json_with_in001() {
    let e = api::plan_json("{\"tunnel\": ", None).unwrap_err();
    assert_eq!(e.code, "IN001");
    assert!(e.message.contains("not valid JSON"), "{}", e.message);
}

#[test]
fn text_plan_equals_core_plan() {
    for v in vectors().iter().take(50) {
        let via_text: Value =
            serde_json::from_str(&api::plan_json(&v["input"].to_string(), None).expect("plans"))
                .expect("JSON");
        let direct =
            serde_json::to_value(planner::plan(&v["input"], &Default::default())).expect("JSON");
        assert_eq!(via_text, direct);
    }
}

#[test]
fn unreadable_document_is_one_in001_finding() {
    let report: Value = serde_json::from_str(
        &api::check_json("not json", None).expect("never fails on the document"),
    )
    .expect("JSON");
    let findings = report["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{report}");
    assert_eq!(findings[0]["code"], "IN001");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("not JSON"),
        "{report}"
    );
    assert_eq!(report["summary"]["errors"], 1);
}

#[test]
fn malformed_options_are_reported_not_ignored() {
    assert_eq!(
        api::check_json("{}", Some("{\"kind\": 3}"))
            .unwrap_err()
            .code,
        "BAD_OPTIONS"
    );
    assert_eq!(
        api::check_json("{}", Some("{")).unwrap_err().code,
        "BAD_OPTIONS"
    );
    assert!(api::check_json("{}", Some("null")).is_ok());
    assert!(api::check_json("{}", Some("{\"kind\": \"plan\"}")).is_ok());
    assert_eq!(
        api::simulate_json("{}", Some("{\"requests\": -1}"))
            .unwrap_err()
            .code,
        "BAD_SCENARIO"
    );
}

/// A wrong option names the field, by message and by JSON Pointer.
#[test]
fn a_wrong_option_points_at_its_field() {
    let e = api::check_json("{}", Some(r#"{"limits": {"maxDepth": "5"}}"#)).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("BAD_OPTIONS", "/limits/maxDepth")
    );
    assert!(
        e.message.starts_with(
            "the check options have the wrong shape: `/limits/maxDepth` must be a whole number"
        ),
        "{}",
        e.message
    );
    let e = api::simulate_json("{}", Some(r#"{"requests": 2, "clientIp": 3}"#)).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("BAD_SCENARIO", "/clientIp")
    );
    assert!(
        e.message
            .ends_with("`/clientIp` must be a string, but it is a number (3)"),
        "{}",
        e.message
    );
    // Unknown keys are ignored and null keeps a default, as before.
    assert!(api::check_json("{}", Some(r#"{"limits": null, "other": 1}"#)).is_ok());
}

#[test]
fn remote_token_never_reaches_a_plan() {
    for v in vectors() {
        let mut input = v["input"].clone();
        if let Some(nodes) = input["nodes"].as_array_mut() {
            for n in nodes {
                n["remoteToken"] = Value::String("SECRET-TOKEN-3f9a".into());
            }
        }
        let out = api::plan_json(&input.to_string(), None).expect("plans");
        assert!(!out.contains("SECRET-TOKEN-3f9a"));
    }
}

/// Each operation's typed function answers what its JSON twin prints.
#[test]
fn each_typed_operation_answers_what_its_json_twin_prints() {
    let file = |path: &str| {
        std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let text_of = |v: &dyn encode::Encode| encode::to_string(v);
    let inputs = [
        file("examples/tunnel-with-forwards.json"),
        file("examples/seed-federated-middle.json"),
        file("tests/data/sim/seed-input.json"),
    ];
    for text in &inputs {
        let v: Value = crate::json::from_str(text).unwrap();
        let options = planner::PlanOptions::default();
        assert_eq!(
            text_of(&api::plan(&v, &options)),
            api::plan_json(text, None).unwrap()
        );
        let check_options = crate::check::CheckOptions::default();
        assert_eq!(
            text_of(&api::check(&v, &check_options)),
            api::check_json(text, None).unwrap()
        );
        assert_eq!(
            text_of(&api::check_tunnel(&v, &options)),
            api::check_tunnel_json(text, None).unwrap()
        );
        let scenario = crate::simulate::Scenario::default();
        assert_eq!(
            text_of(&api::simulate(&v, &scenario).unwrap()),
            api::simulate_json(text, None).unwrap()
        );
    }
    let steps = file("tests/data/sim/lifecycle-lc001-inputs.json");
    let v: Value = crate::json::from_str(&steps).unwrap();
    assert_eq!(
        text_of(&api::lifecycle(&v).unwrap()),
        api::lifecycle_json(&steps).unwrap()
    );
    let panel = file("examples/panel-backup.json");
    let v: Value = crate::json::from_str(&panel).unwrap();
    let tunnels = api::backup_tunnels(&v, &api::PanelOptions::default()).unwrap();
    assert!(tunnels.len() > 1);
    assert_eq!(
        text_of(&tunnels),
        api::backup_tunnels_json(&panel, None).unwrap()
    );
}
