//! The sample files under tests/data/sim (also used by the CLI helper) give
//! the documented answers, from plans and from raw tunnel inputs, and no
//! output carries a credential.

use hop_policy::lifecycle::lifecycle;
use hop_policy::simulate::{simulate, trace_text, Scenario};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/sim/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn lc001_from_plans_and_from_inputs() {
    for file in ["lifecycle-lc001.json", "lifecycle-lc001-inputs.json"] {
        let r = lifecycle(&load(file)).unwrap();
        let lc001: Vec<_> = r.findings.iter().filter(|f| f.code == "LC001").collect();
        assert_eq!(lc001.len(), 1, "{file}: {:?}", r.findings);
        assert_eq!(lc001[0].node_id, Some(2));
        let want = if file.contains("inputs") {
            "/2/input"
        } else {
            "/2/plan/federation/0/commands/1/data/0/handler/retries"
        };
        assert_eq!(lc001[0].path, want);
        let svc = r.state["nodes"]["2"]["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "fed_svc_31")
            .unwrap()
            .clone();
        assert!(svc["handler"].get("retries").is_none());
        let out = hop_policy::encode::to_string(&r);
        assert!(!out.contains("secret-share-token"), "{file}");
        assert!(!out.contains("remoteToken"), "{file}");
    }
}

#[test]
fn seed_input_and_plan_simulate_alike() {
    let sc = Scenario::from_json(&load("scenario-all-exits-dead.json")).unwrap();
    let a = simulate(&load("seed-plan.json"), &sc).unwrap();
    let b = simulate(&load("seed-input.json"), &sc).unwrap();
    // Labels differ (the node table adds names); the dials and outcomes do not.
    type Dial = (Option<i64>, Option<i64>, bool, bool);
    let shape = |t: &hop_policy::simulate::Trace| -> Vec<(bool, bool, Option<i64>, Vec<Dial>)> {
        t.requests
            .iter()
            .map(|r| {
                (
                    r.ok,
                    r.direct,
                    r.exit_node_id,
                    r.attempts
                        .iter()
                        .map(|x| (x.from_node_id, x.to_node_id, x.ok, x.alive))
                        .collect(),
                )
            })
            .collect()
    };
    assert_eq!(shape(&a), shape(&b));
    assert_eq!(
        a.requests
            .iter()
            .map(|r| (r.ok, r.direct))
            .collect::<Vec<_>>(),
        vec![(false, false), (true, true), (true, true), (true, true)]
    );
    let text = trace_text(&b);
    let json = hop_policy::encode::to_string(&b);
    for out in [text, json] {
        assert!(!out.contains("secret-share-token") && !out.contains("remoteToken"));
    }
}

#[test]
fn the_state_as_a_value_is_the_state_the_text_prints() {
    for file in [
        "lifecycle-lc001.json",
        "lifecycle-lc001-inputs.json",
        "lifecycle-report.json",
    ] {
        let steps = load(file);
        let report = lifecycle(&steps).unwrap();
        let text = hop_policy::api::lifecycle_json(&steps.to_string()).unwrap();
        let printed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(report.state, printed["state"], "{file}");
        assert!(
            report.state["nodes"]
                .as_object()
                .is_some_and(|n| !n.is_empty()),
            "{file}"
        );
    }
    // A pasted plan with credentials: redacted the same way in both.
    let path = format!(
        "{}/tests/data/hostile/regressions/lifecycle-state-echoes-credentials.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let steps: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let text = hop_policy::api::lifecycle_json(&steps.to_string()).unwrap();
    let printed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(lifecycle(&steps).unwrap().state, printed["state"]);
    assert!(!printed.to_string().contains("CANARY"));
}
