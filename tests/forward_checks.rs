//! The checker on the forward modes: a forward input is checked as its plan
//! (`checkTunnel` with `mode`), never refused as an unknown shape, and the
//! report carries the forward commands' nodes.

use serde_json::Value;
mod golden_vectors;
use golden_vectors::{forward_vectors, mode_of};

#[test]
fn every_forward_vector_checks_with_its_mode() {
    let mut checked = 0;
    for v in forward_vectors().iter().step_by(7) {
        let text = serde_json::to_string(&v["input"]).unwrap();
        let options = format!(r#"{{"mode":"{}"}}"#, mode_of(v).as_str());
        let report = hop_policy::api::check_tunnel_json(&text, Some(&options))
            .unwrap_or_else(|e| panic!("{}: {:?}", v["name"], e));
        let report: Value = serde_json::from_str(&report).unwrap();
        let plan = &report["plan"];
        assert_eq!(plan["mode"], mode_of(v).as_str(), "{}", v["name"]);
        assert_eq!(
            plan["error"]["message"], v["expected"]["error"],
            "{}",
            v["name"]
        );
        checked += 1;
    }
    assert!(checked > 80);
}

/// The shipped example: a normal user's second forward on the seed tunnel.
/// Its port is the first one the user's first forward does not hold, its
/// limiter is the grant's (the agent already has it, so it is updated), and
/// the entry's older agent refuses `UpdateService`, so the server deletes and
/// adds the pair.
#[test]
fn the_shipped_forward_example_plans_as_the_server_would() {
    let text = std::fs::read_to_string("examples/tunnel-with-forwards.json").unwrap();
    let plan = hop_policy::api::plan_json(&text, None).unwrap();
    let plan: Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(plan["mode"], "forward-create");
    assert!(plan["error"].is_null(), "{}", plan["error"]);
    let steps: Vec<String> = plan["local"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}@{}{}",
                c["command"].as_str().unwrap(),
                c["nodeId"],
                if c["failed"].is_null() { "" } else { "!" }
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            "AddLimiters@1!",
            "UpdateLimiters@1",
            "AddCLimiters@1",
            "UpdateService@1!",
            "DeleteService@1",
            "AddService@1"
        ]
    );
    let service = &plan["local"][5]["data"][0];
    assert_eq!(service["name"], "12_5_3_tcp");
    assert_eq!(service["addr"], "[::]:40001");
    assert_eq!(service["limiter"], "2");
    assert_eq!(service["climiter"], "user_conn_limit_5");
    assert_eq!(service["handler"]["chain"], "chains_7");
    assert!(service["handler"]["retries"].is_null());
    assert_eq!(plan["db"]["forward_port"][1]["port"], 40001);
    assert_eq!(plan["db"]["forward"][1]["user_name"], "alice");
    assert_eq!(plan["warnings"], serde_json::json!([]));
}

/// Forwards fan out over the entry nodes: an input that would create more
/// service pairs than `maxOutputBytes` can hold is refused before any is built.
#[test]
fn a_forward_fan_out_over_the_output_limit_is_refused_first() {
    let mut input: Value = serde_json::from_str(
        &std::fs::read_to_string("examples/tunnel-with-forwards.json").unwrap(),
    )
    .unwrap();
    input["createForwards"] = Value::Array(vec![input["forward"].clone(); 400]);
    let text = input.to_string();
    let plan = hop_policy::api::plan_json(
        &text,
        Some(r#"{"mode":"forward-update","limits":{"maxOutputBytes":100000}}"#),
    )
    .unwrap();
    let plan: Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(plan["error"]["code"], "LIMIT_EXCEEDED", "{}", plan["error"]);
    assert!(plan["error"]["messageEn"]
        .as_str()
        .unwrap()
        .contains("maxOutputBytes"));
    // Within the default limit the same input plans.
    let plan = hop_policy::api::plan_json(&text, Some(r#"{"mode":"forward-update"}"#)).unwrap();
    assert!(!plan.contains("LIMIT_EXCEEDED"));
}

/// A target given as a URL with credentials: the services dial its host, the
/// stored row keeps the URL, and neither the password nor the token appears
/// in the plan.
#[test]
fn credentials_in_a_forward_target_never_reach_the_plan() {
    let mut input: Value = serde_json::from_str(
        &std::fs::read_to_string("examples/tunnel-with-forwards.json").unwrap(),
    )
    .unwrap();
    input["forward"]["remoteAddr"] = "https://bob:hunter2@203.0.113.7:8443/x?token=abc123".into();
    input["nodes"][1]["remoteToken"] = "share-secret-77".into();
    // A normal user's URL target is refused (Go's SplitHostPort: too many
    // colons); the refusal quotes the target without its credentials.
    let refused = hop_policy::api::plan_json(&input.to_string(), None).unwrap();
    assert!(refused.contains("UNSAFE_TARGET"), "{refused}");
    // An administrator's is planned.
    input["user"]["roleId"] = 0.into();
    let plan = hop_policy::api::plan_json(&input.to_string(), None).unwrap();
    for secret in ["hunter2", "abc123", "share-secret-77"] {
        assert!(!plan.contains(secret), "{secret} in {plan}");
        assert!(!refused.contains(secret), "{secret} in {refused}");
    }
    let plan: Value = serde_json::from_str(&plan).unwrap();
    assert!(plan["error"].is_null(), "{}", plan["error"]);
    let service = &plan["local"].as_array().unwrap().last().unwrap()["data"][0];
    assert_eq!(service["forwarder"]["nodes"][0]["addr"], "203.0.113.7:8443");
}
