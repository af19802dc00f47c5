//! The lifecycle's `report` step: a node's config report
//! and the cleanup of the panel that owns it, with LC004 for a chain it
//! deletes under a running service. Known answers on the seed tunnel 7
//! (examples/seed-federated-middle.json: entry 1, federated middle 2 running
//! `fed_svc_31` through `fed_chain_31`, exits 3, 4, 5).

use hop_policy::lifecycle::{lifecycle, LifecycleReport};
use serde_json::{json, Value};

fn seed() -> Value {
    let text = include_str!("../examples/seed-federated-middle.json");
    serde_json::from_str(text).unwrap()
}

/// The seed with its middle node 2 one of this panel's own nodes.
fn local_only() -> Value {
    let mut input = seed();
    let nodes = input["nodes"].as_array_mut().unwrap();
    let middle = nodes.iter_mut().find(|n| n["id"] == 2).unwrap();
    middle["isRemote"] = json!(0);
    for key in ["remoteConfig", "remoteToken", "remoteUrl"] {
        middle[key] = Value::Null;
    }
    input
}

fn apply() -> Value {
    json!({"op": "apply", "input": seed()})
}

fn names(r: &LifecycleReport, node: i64, kind: &str) -> Vec<String> {
    r.state["nodes"][node.to_string()][kind]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The (node, command, target) the replay sent in step `step`.
fn sent(r: &LifecycleReport, step: usize) -> Vec<(i64, String, Value)> {
    r.log
        .iter()
        .filter(|e| e["step"] == step && e.get("command").is_some())
        .map(|e| {
            let node = e["nodeId"].as_i64().unwrap();
            let command = e["command"].as_str().unwrap().to_string();
            (node, command, e["target"].clone())
        })
        .collect()
}

/// The (code, node, path) of every finding.
fn findings(r: &LifecycleReport) -> Vec<(String, Option<i64>, String)> {
    r.findings
        .iter()
        .map(|f| (f.code.clone(), f.node_id, f.path.clone()))
        .collect()
}

fn lc004(path: &str) -> (String, Option<i64>, String) {
    ("LC004".to_string(), Some(2), path.to_string())
}

#[test]
fn report_after_apply_deletes_the_federated_chain_lc004() {
    let r = lifecycle(&json!([apply(), {"op": "report"}])).unwrap();
    assert_eq!(findings(&r), vec![lc004("/1")]);
    // Only the provider's cleanup deletes, and only the chain.
    let chain = (2, "DeleteChains".to_string(), json!("fed_chain_31"));
    assert_eq!(sent(&r, 1), vec![chain]);
    assert_eq!(names(&r, 2, "chains"), Vec::<String>::new());
    assert_eq!(names(&r, 2, "services"), vec!["fed_svc_31"]);
    assert_eq!(names(&r, 1, "chains"), vec!["chains_7"]);
    for exit in [3, 4, 5] {
        assert_eq!(names(&r, exit, "services"), vec!["tunnel_7"]);
    }
    let f = &r.findings[0];
    assert_eq!(f.rule, "cleanup-deletes-in-use");
    for text in [
        "fed_chain_31",
        "fed_svc_31",
        "provider panel",
        "10 minutes",
        "redeploy",
    ] {
        assert!(f.message.contains(text), "{text}: {}", f.message);
    }
    for text in ["flow_policy.go:607-624", "router.go:129-130"] {
        assert!(
            f.message.contains(text) && f.message_zh.contains(text),
            "{text}"
        );
    }
    assert!(f.message_zh.contains("fed_chain_31") && f.message_zh.contains("10 分钟"));
}

#[test]
fn provider_holding_tunnel_31_keeps_the_chain() {
    let report = json!({"op": "report", "providerTunnels": {"2": [31]}});
    let r = lifecycle(&json!([apply(), report])).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(sent(&r, 1).is_empty(), "{:?}", sent(&r, 1));
    assert_eq!(names(&r, 2, "chains"), vec!["fed_chain_31"]);
    // Ids may be given as text, as other steps' ids.
    let report = json!({"op": "report", "nodeId": "2", "providerTunnels": {"2": ["31"]}});
    let r = lifecycle(&json!([apply(), report])).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

#[test]
fn one_node_reports_alone() {
    let r = lifecycle(&json!([apply(), {"op": "report", "nodeId": 1}])).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(sent(&r, 1).is_empty());
    let r = lifecycle(&json!([apply(), {"op": "report", "nodeId": 2}])).unwrap();
    assert_eq!(findings(&r), vec![lc004("/1")]);
}

#[test]
fn local_only_tunnel_loses_nothing() {
    let steps = json!([{"op": "apply", "input": local_only()}, {"op": "report"}]);
    let r = lifecycle(&steps).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(sent(&r, 1).is_empty(), "{:?}", sent(&r, 1));
    assert_eq!(names(&r, 2, "chains"), vec!["chains_7"]);
    assert_eq!(names(&r, 2, "services"), vec!["tunnel_7"]);
}

#[test]
fn report_after_delete_has_nothing_left() {
    let steps = json!([apply(), {"op": "delete"}, {"op": "report"}]);
    let r = lifecycle(&steps).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(sent(&r, 2).is_empty(), "{:?}", sent(&r, 2));
    assert_eq!(r.state["nodes"], json!({}));
}

#[test]
fn redeploy_pushes_the_chain_back_and_the_next_report_deletes_it_again() {
    let pushed = lifecycle(&json!([apply(), {"op": "report"}, apply()])).unwrap();
    assert_eq!(names(&pushed, 2, "chains"), vec!["fed_chain_31"]);
    assert_eq!(findings(&pushed), vec![lc004("/1")]);
    let steps = json!([apply(), {"op": "report"}, apply(), {"op": "report"}]);
    let r = lifecycle(&steps).unwrap();
    assert_eq!(findings(&r), vec![lc004("/1"), lc004("/3")]);
    assert_eq!(names(&r, 2, "chains"), Vec::<String>::new());
}

#[test]
fn this_panel_cleans_what_a_failed_create_left() {
    // The entry's chain timed out at the panel but took effect on the agent;
    // the create fails at the first exit's service and is rolled back, which
    // forgets the tunnel: the entry's next report deletes chains_7.
    let steps = json!([
        {"op": "applyError", "input": seed(), "timeouts": [0], "failAt": {"nodeId": 3}},
        {"op": "report", "nodeId": 1},
    ]);
    let r = lifecycle(&steps).unwrap();
    let codes: Vec<_> = r.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, vec!["LC003"]);
    let deleted = (1, "DeleteChains".to_string(), json!("chains_7"));
    assert_eq!(sent(&r, 1), vec![deleted]);
    assert_eq!(names(&r, 1, "chains"), Vec::<String>::new());
}

#[test]
fn unreadable_report_steps_are_errors() {
    for (report, path) in [
        (json!({"op": "report", "nodeId": "two"}), "/1/nodeId"),
        (
            json!({"op": "report", "providerTunnels": {"x/2": [31]}}),
            "/1/providerTunnels/x~12",
        ),
        (json!({"op": "report", "providerTunnels": [31]}), "/1"),
    ] {
        let err = lifecycle(&json!([apply(), report])).unwrap_err();
        assert_eq!((err.code.as_str(), err.path.as_str()), ("IN001", path));
    }
}

#[test]
fn readme_steps_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sim/lifecycle-report.json"
    );
    let steps: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = lifecycle(&steps).unwrap();
    // The second report is node 2's alone, to a provider holding a tunnel 31.
    assert_eq!(findings(&r), vec![lc004("/1")]);
    assert_eq!(names(&r, 2, "chains"), vec!["fed_chain_31"]);
    let out = hop_policy::encode::to_string(&r);
    assert!(!out.contains("secret-share-token"));
}

#[test]
fn a_chain_named_with_spaces_survives_its_delete() {
    // The panel deletes the trimmed name, which the agent does not run.
    let text =
        hop_policy::encode::to_string(&hop_policy::planner::plan(&seed(), &Default::default()));
    let text = text.replace("\"fed_chain_31\"", "\" fed_chain_31\"");
    let plan: Value = serde_json::from_str(&text).unwrap();
    let steps = json!([{"op": "apply", "plan": plan}, {"op": "report"}]);
    let r = lifecycle(&steps).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let chain = (2, "DeleteChains".to_string(), json!("fed_chain_31"));
    assert_eq!(sent(&r, 1), vec![chain]);
    assert_eq!(names(&r, 2, "chains"), vec![" fed_chain_31"]);
}
