//! Lifecycle replay known answers on the seed vectors of
//! tunnel 7: `seed-federated-middle-single-exit` (entry 1 -> federated middle 2
//! -> exit 3) and `seed-federated-middle-fifo-3-exits` (exits 3, 4, 5).

use hop_policy::lifecycle::lifecycle;
use hop_policy::simulate::{simulate, Scenario};
use serde_json::{json, Value};
mod golden_vectors;

/// The expected plan of the golden vector called `name`.
fn vector(name: &str) -> Value {
    golden_vectors::vector(name)["expected"].clone()
}

fn one_exit() -> Value {
    vector("seed-federated-middle-single-exit")
}
fn three_exits() -> Value {
    vector("seed-federated-middle-fifo-3-exits")
}

fn node(state: &Value, id: i64) -> &Value {
    &state["nodes"][id.to_string()]
}

fn find_named<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list.as_array()?.iter().find(|v| v["name"] == name)
}

/// The LC002 findings (node, message) of the replay of `steps`.
fn leaks(steps: &Value) -> Vec<(Option<i64>, String)> {
    lifecycle(steps)
        .unwrap()
        .findings
        .iter()
        .filter(|f| f.code == "LC002")
        .map(|f| (f.node_id, f.message.clone()))
        .collect()
}

/// The replay of `steps`, which must raise no finding.
fn replay_clean(steps: &Value) -> hop_policy::lifecycle::LifecycleReport {
    let r = lifecycle(steps).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    r
}

/// Apply `before`, a release that never reaches node 2, then apply `after`.
fn lost_release_between(before: Value, after: Value) -> Value {
    json!([
        {"op": "apply", "plan": before},
        {"op": "release", "unreachable": [2]},
        {"op": "apply", "plan": after},
    ])
}

fn codes(r: &hop_policy::lifecycle::LifecycleReport) -> Vec<String> {
    r.findings.iter().map(|f| f.code.clone()).collect()
}

#[test]
fn lost_release_then_edit_to_three_exits_keeps_old_retries_lc001() {
    let steps = lost_release_between(one_exit(), three_exits());
    let r = lifecycle(&steps).unwrap();
    let mid = node(&r.state, 2);
    let chain = find_named(&mid["chains"], "fed_chain_31").expect("fed_chain_31 deployed");
    assert_eq!(chain["hops"][0]["nodes"].as_array().unwrap().len(), 3);
    let svc = find_named(&mid["services"], "fed_svc_31").expect("fed_svc_31 deployed");
    assert!(svc["handler"].get("retries").is_none(), "{svc}");
    let lc001: Vec<_> = r.findings.iter().filter(|f| f.code == "LC001").collect();
    assert_eq!(lc001.len(), 1, "{:?}", r.findings);
    assert_eq!(lc001[0].node_id, Some(2));
    assert_eq!(
        lc001[0].path,
        "/2/plan/federation/0/commands/1/data/0/handler/retries"
    );
    assert!(
        lc001[0].message.contains("retries none") && lc001[0].message.contains("sets 2"),
        "{}",
        lc001[0].message
    );
    assert!(!lc001[0].message_zh.is_empty());
    // The lost release also left the provider's service and chain behind.
    assert!(codes(&r).contains(&"LC002".to_string()));
    // The provider only got UpdateChains in step 2.
    let step2: Vec<_> = r
        .log
        .iter()
        .filter(|e| e["step"] == 2 && e["nodeId"] == 2 && e.get("command").is_some())
        .collect();
    assert_eq!(step2.len(), 1, "{step2:?}");
    assert_eq!(step2[0]["command"], "UpdateChains");

    // Replaying GOST on the middle's resulting config: first exit dead -> the request fails.
    let cfg = json!({"services": mid["services"], "chains": mid["chains"]});
    let sc = Scenario::from_json(&json!({"dead": ["203.0.113.3:45001"], "requests": 2})).unwrap();
    let t = simulate(&cfg, &sc).unwrap();
    assert!(!t.requests[0].ok);
    assert!(t.requests[1].ok);
}

#[test]
fn delivered_release_then_edit_gets_fresh_retries() {
    let steps = json!([
        {"op": "apply", "plan": one_exit()},
        {"op": "apply", "plan": three_exits()},
    ]);
    let r = replay_clean(&steps);
    let mid = node(&r.state, 2);
    let svc = find_named(&mid["services"], "fed_svc_31").unwrap();
    assert_eq!(svc["handler"]["retries"], json!(2));
    // Edit order: release (DeleteService, DeleteChains), then AddChains, AddService on the provider.
    let cmds: Vec<String> = r
        .log
        .iter()
        .filter(|e| e["step"] == 1 && e["nodeId"] == 2)
        .filter_map(|e| e["command"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        cmds,
        vec!["DeleteService", "DeleteChains", "AddChains", "AddService"]
    );
    // Local edit uses upserts, and exits 4 and 5 gain tunnel_7.
    for id in [3, 4, 5] {
        assert!(find_named(&node(&r.state, id)["services"], "tunnel_7").is_some());
    }
    let local: Vec<String> = r
        .log
        .iter()
        .filter(|e| e["step"] == 1 && e["phase"] == "local")
        .filter_map(|e| e["command"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        local,
        vec![
            "UpdateChains",
            "UpdateService",
            "UpdateService",
            "UpdateService"
        ]
    );
}

#[test]
fn edit_back_to_one_exit_cleans_up_removed_exits() {
    let steps = json!([
        {"op": "apply", "plan": three_exits()},
        {"op": "edit", "plan": one_exit()},
    ]);
    let r = replay_clean(&steps);
    assert!(
        node(&r.state, 4).is_null() && node(&r.state, 5).is_null(),
        "{}",
        r.state
    );
    let svc = find_named(&node(&r.state, 2)["services"], "fed_svc_31").unwrap();
    assert!(svc["handler"].get("retries").is_none());
}

#[test]
fn delete_reaching_everyone_leaves_nothing() {
    let steps = json!([{"op": "apply", "plan": three_exits()}, {"op": "delete"}]);
    let r = replay_clean(&steps);
    assert_eq!(r.state["nodes"], json!({}));
    assert_eq!(
        r.state["runtimes"]["tunnel:7:node:2:type:2:hop:1"]["active"],
        json!(false)
    );
}

#[test]
fn delete_with_unreachable_provider_leaks_lc002() {
    let steps =
        json!([{"op": "apply", "plan": three_exits()}, {"op": "delete", "unreachable": [2]}]);
    let leaks = leaks(&steps);
    assert_eq!(leaks.len(), 2, "{leaks:?}");
    assert!(leaks.iter().all(|(n, _)| *n == Some(2)));
    assert!(
        leaks.iter().any(|(_, m)| m.contains("fed_svc_31"))
            && leaks.iter().any(|(_, m)| m.contains("fed_chain_31"))
    );
}

#[test]
fn apply_error_on_create_rolls_back_cleanly() {
    // local: 0 AddChains@1, 1 AddService@3, 2 AddService@4, 3 AddService@5; exit 4 fails.
    let steps = json!([{"op": "applyError", "plan": three_exits(), "failAt": 2}]);
    let r = replay_clean(&steps);
    assert_eq!(r.state["nodes"], json!({}));
    let rb: Vec<(i64, String)> = r
        .log
        .iter()
        .filter(|e| e["phase"] == "rollback" && e.get("command").is_some())
        .map(|e| {
            (
                e["nodeId"].as_i64().unwrap(),
                e["command"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rb,
        vec![
            (3, "DeleteService".into()),
            (1, "DeleteChains".into()),
            (2, "DeleteService".into()),
            (2, "DeleteChains".into())
        ]
    );
}

#[test]
fn apply_error_after_a_timed_out_command_leaks_lc003() {
    let steps = json!([{"op": "applyError", "plan": three_exits(), "failAt": {"nodeId": 5}, "timeouts": [{"nodeId": 4, "command": "AddService"}]}]);
    let r = lifecycle(&steps).unwrap();
    let lc003: Vec<_> = r.findings.iter().filter(|f| f.code == "LC003").collect();
    assert_eq!(lc003.len(), 1, "{:?}", r.findings);
    assert_eq!(lc003[0].node_id, Some(4));
    assert!(lc003[0].message.contains("tunnel_7"));
}

#[test]
fn apply_error_on_edit_has_no_local_rollback_lc003() {
    let steps = json!([{"op": "applyError", "plan": three_exits(), "failAt": 0, "unreachable": []}, {"op": "apply", "plan": one_exit()},
                       {"op": "applyError", "plan": three_exits(), "failAt": 3, "unreachable": []}]);
    let r = lifecycle(&steps).unwrap();
    // Step 2 is an edit (step 1 created the tunnel): no local rollback, the new exits stay.
    let lc003: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.code == "LC003")
        .map(|f| f.node_id)
        .collect();
    assert_eq!(lc003, vec![Some(4)], "{:?}", r.findings);
}

#[test]
fn bad_steps_are_structured_errors() {
    assert_eq!(lifecycle(&json!("x")).unwrap_err().code, "IN001");
    assert_eq!(
        lifecycle(&json!([{"op": "fly"}])).unwrap_err().path,
        "/0/op"
    );
    assert_eq!(lifecycle(&json!([{"op": "apply"}])).unwrap_err().path, "/0");
    assert_eq!(
        lifecycle(&json!([{"op": "edit", "plan": one_exit()}]))
            .unwrap_err()
            .code,
        "IN001"
    );
    assert_eq!(
        lifecycle(&json!([{"op": "applyError", "plan": one_exit()}]))
            .unwrap_err()
            .path,
        "/0/failAt"
    );
    assert_eq!(
        lifecycle(&json!([{"op": "applyError", "plan": one_exit(), "failAt": 9}]))
            .unwrap_err()
            .path,
        "/0/failAt"
    );
    assert_eq!(
        lifecycle(&json!([{"op": "applyError", "plan": one_exit(), "failAt": "1"}]))
            .unwrap_err()
            .path,
        "/0/failAt"
    );
    assert_eq!(
        lifecycle(&json!([{"op": "applyError", "plan": one_exit(), "failAt": {"nodeId": 4}}]))
            .unwrap_err()
            .path,
        "/0/failAt"
    );
    assert_eq!(
        lifecycle(&json!([{"op": "apply", "plan": {"local": 3}}]))
            .unwrap_err()
            .path,
        "/0/plan"
    );
}

#[test]
fn release_unreachable_on_the_edit_step_itself_gives_lc001() {
    // One step: the edit's own release does not reach the provider, its apply does.
    let steps = json!([
        {"op": "apply", "plan": one_exit()},
        {"op": "edit", "plan": three_exits(), "releaseUnreachable": [2]},
    ]);
    let r = lifecycle(&steps).unwrap();
    assert_eq!(codes(&r), vec!["LC001".to_string()], "{:?}", r.findings);
    // Whereas `unreachable` also fails the apply: nothing new reaches the provider, no LC001.
    let steps = json!([
        {"op": "apply", "plan": one_exit()},
        {"op": "edit", "plan": three_exits(), "unreachable": [2]},
    ]);
    let r = lifecycle(&steps).unwrap();
    assert!(
        !codes(&r).contains(&"LC001".to_string()),
        "{:?}",
        r.findings
    );
    assert!(r
        .log
        .iter()
        .any(|e| e["phase"] == "end" && e["ok"] == json!(false)));
}

#[test]
fn delete_misses_a_service_with_a_name_outside_the_cleanup_list_lc002() {
    let mut plan = three_exits();
    plan["local"][3]["data"][0]["name"] = json!("custom_7");
    let steps = json!([{"op": "apply", "plan": plan}, {"op": "delete"}]);
    let leaks = leaks(&steps);
    assert_eq!(leaks.len(), 1, "{leaks:?}");
    assert_eq!(leaks[0].0, Some(5));
    assert!(leaks[0].1.contains("custom_7"));
}

#[test]
fn same_target_count_after_lost_release_is_not_lc001() {
    let steps = lost_release_between(three_exits(), three_exits());
    let r = lifecycle(&steps).unwrap();
    assert!(
        !codes(&r).contains(&"LC001".to_string()),
        "{:?}",
        r.findings
    );
    assert!(codes(&r).contains(&"LC002".to_string()));
}

#[test]
fn a_rollback_leak_makes_the_next_create_fail_on_already_exists() {
    let steps = json!([
        {"op": "applyError", "plan": three_exits(), "failAt": {"nodeId": 5}, "timeouts": [{"nodeId": 4, "command": "AddService"}]},
        {"op": "apply", "plan": three_exits()},
    ]);
    let r = lifecycle(&steps).unwrap();
    let rejected = r.log.iter().find(|e| {
        e["step"] == 1
            && e["note"]
                .as_str()
                .map(|n| n.contains("already exists"))
                .unwrap_or(false)
    });
    assert_eq!(
        rejected.map(|e| e["nodeId"].clone()),
        Some(json!(4)),
        "{:?}",
        r.log
    );
    assert!(r
        .log
        .iter()
        .any(|e| e["step"] == 1 && e["phase"] == "end" && e["ok"] == json!(false)));
    // The second create rolled back what it made (chain on 1, service on 3, the federated middle); node 4 keeps the leak.
    assert!(find_named(&node(&r.state, 4)["services"], "tunnel_7").is_some());
    assert!(
        node(&r.state, 1).is_null() && node(&r.state, 3).is_null() && node(&r.state, 2).is_null(),
        "{}",
        r.state["nodes"]
    );
    assert_eq!(
        r.findings.iter().filter(|f| f.code == "LC003").count(),
        1,
        "{:?}",
        r.findings
    );
}

#[test]
fn simulating_the_deployed_state_shows_the_lc001_failure() {
    let lost = lifecycle(&lost_release_between(one_exit(), three_exits())).unwrap();
    let delivered = lifecycle(
        &json!([{"op": "apply", "plan": one_exit()}, {"op": "apply", "plan": three_exits()}]),
    )
    .unwrap();
    let sc = Scenario::from_json(&json!({"dead": [3], "requests": 2})).unwrap();
    // The whole report is accepted as well as its state.
    let report = serde_json::to_value(&lost).unwrap();
    let t = simulate(&report, &sc).unwrap();
    assert_eq!(t.entry_node_id, Some(1));
    assert_eq!(
        t.requests
            .iter()
            .map(|r| (r.ok, r.exit_node_id))
            .collect::<Vec<_>>(),
        vec![(false, None), (true, Some(4))]
    );
    let t = simulate(&delivered.state, &sc).unwrap();
    assert_eq!(
        t.requests
            .iter()
            .map(|r| (r.ok, r.exit_node_id))
            .collect::<Vec<_>>(),
        vec![(true, Some(4)), (true, Some(4))]
    );
}

#[test]
fn a_plan_command_without_a_node_id_is_in001_at_its_path() {
    let mut plan = one_exit();
    plan["local"][1].as_object_mut().unwrap().remove("nodeId");
    let e = lifecycle(&json!([{"op": "apply", "plan": plan}])).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("IN001", "/0/plan/local/1/nodeId")
    );
    let mut plan = one_exit();
    plan["federation"][0]["nodeId"] = json!("2");
    let e = lifecycle(&json!([{"op": "apply", "plan": plan}])).unwrap_err();
    assert_eq!(e.path, "/0/plan/federation/0/nodeId");
}

#[test]
fn a_second_tunnel_on_the_same_provider_node_gets_the_next_runtime_id() {
    // Tunnel 8's plan asks for fed_svc_31 too, which the provider of node 2
    // already gave tunnel 7's runtime: it numbers the new one 32.
    let mut fed = one_exit()["federation"][0].clone();
    let key = "tunnel:8:node:2:type:2:hop:1";
    for at in ["/resourceKey", "/reserve/resourceKey", "/apply/resourceKey"] {
        *fed.pointer_mut(at).unwrap() = json!(key);
    }
    let steps = json!([
        {"op": "apply", "plan": one_exit()},
        {"op": "apply", "tunnelId": 8, "plan": {"federation": [fed], "local": []}},
    ]);
    let r = lifecycle(&steps).unwrap();
    assert!(codes(&r).is_empty(), "{:?}", r.findings);
    assert_eq!(r.state["runtimes"][key]["runtimeId"], 32);
    assert_eq!(
        r.state["runtimes"]["tunnel:7:node:2:type:2:hop:1"]["runtimeId"],
        31
    );
    let mid = node(&r.state, 2);
    for name in ["fed_svc_31", "fed_svc_32"] {
        assert!(find_named(&mid["services"], name).is_some(), "{name}");
    }
    let chain = find_named(&mid["chains"], "fed_chain_32").expect("fed_chain_32");
    assert_eq!(chain["hops"][0]["name"], "hop_32");
    let svc = find_named(&mid["services"], "fed_svc_32").unwrap();
    assert_eq!(svc["handler"]["chain"], "fed_chain_32");
}
