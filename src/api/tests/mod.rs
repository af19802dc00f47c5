//! The text layer's behaviour, and the TypeScript the package ships checked
//! against real inputs and outputs.
//!
//! Each output type declares its fields once (`crate::encode::shape!`): its
//! encoder and its TypeScript come from the same field list, and its serde
//! view (what tsify reads) must print exactly what the encoder prints. The
//! declarations tests below read every declaration the `.d.ts` gets (tsify's
//! `DECL` of each type plus the hand-written closed sets) and check golden
//! inputs and every kind of output against them: an undeclared key, a
//! missing required key, a value outside a closed set or a reference to an
//! undeclared type fails.

mod typescript;

use crate::api;
use crate::encode;
use crate::planner;
use serde_json::Value;
use tsify_next::Tsify;
use typescript::Declarations;

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

/// Every vector: create, update, redeploy.
fn all_vectors() -> Vec<Value> {
    let mut all = vectors();
    all.extend(read_vectors(include_str!(
        "../../../tests/data/update-vectors.jsonl"
    )));
    all.extend(read_vectors(include_str!(
        "../../../tests/data/redeploy-vectors.jsonl"
    )));
    all
}

/// The forward vectors: forward-create, forward-update, and redeploys and
/// edits of tunnels with forwards.
fn forward_vectors() -> Vec<Value> {
    read_vectors(include_str!("../../../tests/data/forward-vectors.jsonl"))
}

fn seed() -> Value {
    vectors()
        .into_iter()
        .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
        .expect("seed vector")
}

fn options_of(v: &Value) -> String {
    format!(
        "{{\"mode\": \"{}\"}}",
        v["mode"].as_str().unwrap_or("create")
    )
}

macro_rules! declarations {
    ($($t:ty),* $(,)?) => {
        vec![$(<$t as Tsify>::DECL),*]
    };
}

/// Every declaration the package's `.d.ts` carries.
fn shipped() -> Declarations {
    use crate::api::input as i;
    use crate::plan as p;
    let mut texts = declarations![
        p::Plan,
        p::Assumption,
        p::PlanError,
        p::FederationStep,
        p::Reserve,
        p::Apply,
        p::Target,
        p::Command,
        p::CommandData,
        p::UpdateChainData,
        p::DeleteServicesData,
        p::DeleteChainData,
        p::ChainConfig,
        p::HopConfig,
        p::Selector,
        p::NodeConfig,
        p::Plugin,
        p::MetaValue,
        p::ServiceConfig,
        p::Handler,
        p::PlanNode,
        p::TunnelDeploy,
        crate::forward::config::ForwardService,
        crate::forward::config::Forwarder,
        crate::forward::config::ForwarderNode,
        crate::forward::config::ForwarderSelector,
        crate::forward::config::LimiterData,
        crate::forward::config::UpdateLimiterData,
        crate::forward::config::ForwardDb,
        crate::forward::config::ForwardRowOut,
        crate::forward::config::ForwardPortOut,
        crate::finding::Severity,
        crate::finding::Fix,
        crate::finding::Finding,
        crate::error::ApiError,
        crate::check::RuleInfo,
        crate::check::Summary,
        crate::check::CheckReport,
        crate::check::TunnelCheck,
        crate::simulate::Candidate,
        crate::simulate::Attempt,
        crate::simulate::RequestTrace,
        crate::simulate::TargetTry,
        crate::simulate::SkippedTarget,
        crate::simulate::TraceForward,
        crate::simulate::Summary,
        crate::simulate::Trace,
        crate::lifecycle::LifecycleReport,
        crate::planner::backup::BackupTunnel,
        i::JsonValue,
        i::Token,
        i::Loose,
        crate::model::TunnelNodeRef,
        crate::model::TunnelPayload,
        crate::model::NodeRow,
        crate::model::FederationAllocation,
        i::TunnelInput,
        i::RequestContext,
        crate::forward::input::ForwardPayload,
        crate::forward::input::ForwardUser,
        i::StoredForward,
        crate::forward::input::AgentState,
        i::DbRow,
        i::StoredTables,
        i::RedeployInput,
        i::PlanInput,
        crate::planner::PlanMode,
        crate::planner::PlanOptions,
        i::Role,
        i::NodeRole,
        i::NodeConfig,
        i::PlanDocument,
        i::CheckDocument,
        i::SimulateDocument,
        crate::check::CheckOptions,
        crate::limits::Limits,
        i::DocumentKind,
        i::CommandName,
        i::NodeSelector,
        crate::simulate::Scenario,
        crate::lifecycle::LifecycleOp,
        i::CommandSelector,
        i::LifecycleStep,
    ];
    texts.push(crate::api::input::CLOSED_SETS_TS);
    Declarations::read(&texts)
}

#[track_caller]
fn accepted(d: &Declarations, ty: &str, v: &Value) {
    if let Err(e) = d.check(ty, v) {
        panic!("{ty} does not declare {v}:\n{e}");
    }
}

/// The JSON text `value` encodes to, checked against its serde view (the
/// one tsify declares) byte for byte; the value and the checker's tree the
/// encoder builds without the text are what reading the text gives.
fn encoded<T: encode::Encode + serde::Serialize>(value: &T) -> Value {
    let text = encode::to_string(value);
    assert_eq!(text, serde_json::to_string(value).expect("serializes"));
    let read: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(crate::encode::to_value(value), read);
    let arena = crate::json::tree::Arena::new();
    assert_eq!(
        format!("{:?}", crate::encode::to_tree(value, &arena)),
        format!(
            "{:?}",
            crate::json::tree::read(&text, &arena).expect("JSON")
        )
    );
    read
}

/// Every name the package's TypeScript declares.
const DECLARED_NAMES: &[&str] = &[
    "AgentState",
    "Apply",
    "Assumption",
    "Attempt",
    "BackupTunnel",
    "Candidate",
    "Chain",
    "ChainNode",
    "CheckDocument",
    "CheckOptions",
    "CheckReport",
    "Command",
    "CommandData",
    "CommandName",
    "CommandSelector",
    "DbRow",
    "DeleteChainData",
    "DeleteServicesData",
    "DocumentKind",
    "ErrorCode",
    "FederationAllocation",
    "FederationStep",
    "Finding",
    "FindingCode",
    "ForwardDb",
    "ForwardPortRow",
    "ForwardRow",
    "ForwardService",
    "Forwarder",
    "ForwarderNode",
    "ForwarderSelector",
    "Fix",
    "ForwardPayload",
    "ForwardUser",
    "Handler",
    "Hop",
    "HopPolicyErrorFields",
    "JsonValue",
    "LifecycleOp",
    "LifecycleReport",
    "LifecycleStep",
    "LimiterData",
    "Limits",
    "Loose",
    "MetaValue",
    "NodeConfig",
    "NodeRole",
    "NodeRow",
    "NodeSelector",
    "Plan",
    "PlanDocument",
    "PlanError",
    "PlanErrorCode",
    "PlanInput",
    "PlanMode",
    "PlanNode",
    "PlanOptions",
    "Plugin",
    "Protocol",
    "RedeployInput",
    "RequestContext",
    "RequestTrace",
    "Reserve",
    "Role",
    "RuleInfo",
    "Scenario",
    "Selector",
    "Service",
    "Severity",
    "SimulateDocument",
    "SkippedTarget",
    "Strategy",
    "StoredForward",
    "StoredTables",
    "Summary",
    "Target",
    "TargetTry",
    "Token",
    "Trace",
    "TraceForward",
    "TraceSummary",
    "TunnelCheck",
    "TunnelDeploy",
    "TunnelInput",
    "TunnelNodeRef",
    "TunnelPayload",
    "TunnelType",
    "UpdateChainData",
    "UpdateLimiterData",
];

#[test]
fn every_declared_name_resolves_and_every_shipped_name_is_declared() {
    let d = shipped();
    assert_eq!(d.unresolved(), Vec::<String>::new());
    let names: Vec<&str> = d.0.keys().map(String::as_str).collect();
    let mut expected = DECLARED_NAMES.to_vec();
    expected.sort_unstable();
    assert_eq!(names, expected);
}

#[test]
fn the_declarations_reject_what_they_do_not_declare() {
    let d = shipped();
    let mut plan = encoded(&planner::plan(&seed()["input"]));
    accepted(&d, "Plan", &plan);
    plan["extra"] = Value::from(1);
    assert!(d
        .check("Plan", &plan)
        .unwrap_err()
        .contains("key extra is not declared"));
    plan.as_object_mut().map(|o| o.remove("extra"));
    plan["federation"][0]["role"] = Value::from("entry");
    assert!(d.check("Plan", &plan).is_err(), "Role is exit | middle");
    plan["federation"][0]["role"] = Value::from("exit");
    plan["local"][0].as_object_mut().map(|o| o.remove("nodeId"));
    assert!(d
        .check("Plan", &plan)
        .unwrap_err()
        .contains("required key nodeId"));
    assert!(d.check("Finding", &serde_json::json!({"code": 1})).is_err());
}

#[test]
fn every_golden_input_and_plan_is_declared() {
    let d = shipped();
    let vs = all_vectors();
    assert_eq!(vs.len(), 1122);
    let mut plans = 0;
    for v in &vs {
        let input = if v["mode"] == "redeploy" {
            "RedeployInput"
        } else {
            "TunnelInput"
        };
        accepted(&d, input, &v["input"]);
        accepted(&d, "PlanInput", &v["input"]);
        accepted(
            &d,
            "PlanOptions",
            &serde_json::from_str(&options_of(v)).expect("JSON"),
        );
        let options = api::plan_options(Some(&options_of(v))).expect("options");
        let plan = planner::plan_text(&v["input"].to_string(), &options).expect("plans");
        accepted(&d, "Plan", &encoded(&plan));
        accepted(&d, "SimulateDocument", &encoded(&plan));
        let mut expected = v["expected"].clone();
        if v["mode"].as_str().unwrap_or("create") == "create" && expected["error"].is_null() {
            accepted(&d, "PlanDocument", &expected);
            accepted(&d, "CheckDocument", &expected);
            expected["nodes"] = Value::Array(vec![]);
            expected["mode"] = Value::from("create");
            expected["assumed"] = Value::Array(vec![]);
            expected["warnings"] = Value::Array(vec![]);
            accepted(&d, "Plan", &expected);
            plans += 1;
        }
    }
    assert!(plans > 100, "only {plans} accepted vectors");
}

#[test]
fn every_forward_input_and_plan_is_declared() {
    let d = shipped();
    let vs = forward_vectors();
    assert_eq!(vs.len(), 650);
    let mut with_db = 0;
    for v in &vs {
        let name = v["name"].as_str().unwrap_or("?");
        let mode = v["mode"].as_str().expect("forward vectors name their mode");
        let input = if mode == "redeploy" {
            "RedeployInput"
        } else {
            "TunnelInput"
        };
        accepted(&d, input, &v["input"]);
        accepted(&d, "PlanInput", &v["input"]);
        accepted(
            &d,
            "PlanOptions",
            &serde_json::from_str(&options_of(v)).expect("JSON"),
        );
        let options = api::plan_options(Some(&options_of(v))).expect("options");
        let plan = encoded(&planner::plan_text(&v["input"].to_string(), &options).expect("plans"));
        assert_eq!(plan["mode"], mode, "{name}");
        accepted(&d, "Plan", &plan);
        accepted(&d, "SimulateDocument", &plan);
        let expected = &v["expected"];
        accepted(&d, "Command[]", &expected["local"]);
        accepted(&d, "string[]", &expected["warnings"]);
        if let Some(db) = expected.get("db") {
            accepted(&d, "ForwardDb", db);
            with_db += 1;
        }
        if let Some(federation) = expected.get("federation") {
            accepted(&d, "FederationStep[]", federation);
        }
    }
    assert!(with_db > 300, "only {with_db} vectors with db rows");
}

#[test]
fn every_check_output_is_declared() {
    let d = shipped();
    let seed = seed();
    let options = crate::check::CheckOptions::default();
    for doc in [
        seed["input"].to_string(),
        seed["expected"].to_string(),
        "{\"services\":[]}".into(),
        "[1,2".into(),
        "42".into(),
    ] {
        accepted(
            &d,
            "CheckReport",
            &encoded(&crate::check::check_text(&doc, &options)),
        );
    }
    for v in vectors().iter().take(150) {
        accepted(
            &d,
            "CheckReport",
            &encoded(&crate::check::check(&v["input"], &options)),
        );
        accepted(
            &d,
            "CheckReport",
            &encoded(&crate::check::check(&v["expected"], &options)),
        );
    }
    accepted(
        &d,
        "CheckReport",
        &encoded(&api::unreadable_report("gone", &options)),
    );
    let tunnel = crate::check::check_tunnel(
        &seed["input"],
        &planner::PlanOptions::along(planner::PlanMode::Create),
    );
    accepted(&d, "TunnelCheck", &encoded(&tunnel));
    accepted(&d, "RuleInfo[]", &encoded(&crate::check::rules()));
    accepted(
        &d,
        "CheckOptions",
        &serde_json::json!({"kind": "plan", "limits": {"maxDepth": 5}}),
    );
}

#[test]
fn every_simulate_output_is_declared() {
    let d = shipped();
    let seed = seed();
    for scenario in [
        "{\"dead\": [3], \"requests\": 3}",
        "{\"dead\": [3, 4, 5], \"requests\": 4}",
        "{\"dead\": [\"203.0.113.4:45002\"], \"seed\": 9, \"entry\": \"1\"}",
    ] {
        accepted(
            &d,
            "Scenario",
            &serde_json::from_str(scenario).expect("JSON"),
        );
        let scenario = api::scenario(Some(scenario)).expect("scenario");
        let trace = crate::simulate::simulate(&seed["expected"], &scenario).expect("simulates");
        accepted(&d, "Trace", &encoded(&trace));
    }
    // Requests entering at a forward: the target loop's trace.
    let example = include_str!("../../../examples/tunnel-with-forwards.json");
    let plan = api::plan_json(example, Some(r#"{"mode": "forward-create"}"#)).expect("plan");
    let plan: Value = serde_json::from_str(&plan).expect("JSON");
    let text = r#"{"dead": [2], "deadTargets": [2], "forward": "web", "maxFails": 2,
        "failTimeout": "30s", "retries": 1, "reviveAtMs": 2000, "requests": 3}"#;
    accepted(&d, "Scenario", &serde_json::from_str(text).expect("JSON"));
    let scenario = api::scenario(Some(text)).expect("scenario");
    let trace = crate::simulate::simulate(&plan, &scenario).expect("simulates");
    assert!(trace.forward.is_some());
    accepted(&d, "Trace", &encoded(&trace));
}

#[test]
fn every_lifecycle_and_panel_output_is_declared() {
    let d = shipped();
    let seed = seed();
    let steps = serde_json::json!([
        {"op": "apply", "input": seed["input"]},
        {"op": "release", "unreachable": [2]},
        {"op": "apply", "input": seed["input"], "timeouts": [0, {"nodeId": 1, "command": "AddService"}]},
        {"op": "applyError", "input": seed["input"], "failAt": 1},
        {"op": "apply", "input": seed["input"]},
        {"op": "report", "nodeId": 2, "providerTunnels": {"2": [31]}},
        {"op": "report"},
        {"op": "forwardCreate", "speedLimits": [{"id": 2, "speed": 100}], "user": {"id": 1, "roleId": 0},
         "forward": {"tunnelId": 7, "name": "web", "remoteAddr": "203.0.113.50:443", "speedId": 2}},
        {"op": "forwardEdit", "forward": {"id": 1, "remoteAddr": "203.0.113.51:443"}, "offline": [3]},
        {"op": "forwardPause", "id": 1},
        {"op": "forwardResume", "id": "1", "agents": {"1": {"legacy": true}}},
        {"op": "report", "nodeId": 1},
        {"op": "forwardDelete", "id": 1},
        {"op": "delete"}
    ]);
    accepted(&d, "LifecycleStep[]", &steps);
    let report = crate::lifecycle::lifecycle(&steps).expect("replays");
    accepted(&d, "LifecycleReport", &encoded(&report));
    // Every command the replay sends (forwards paused, resumed, limiters
    // deleted by the report) is a declared `CommandName`.
    let names = literals("CommandName");
    let mut sent = Vec::new();
    commands_in(&encoded(&report), &mut sent);
    assert!(sent.iter().any(|c| c == "ResumeService"), "{sent:?}");
    for c in &sent {
        assert!(names.contains(c), "{c} is not a declared CommandName");
    }
    let backup: Value =
        serde_json::from_str(include_str!("../../../examples/panel-backup.json")).expect("JSON");
    let tunnels = planner::backup::read_panel(&backup).expect("reads");
    assert!(!tunnels.is_empty());
    accepted(&d, "BackupTunnel[]", &encoded(&tunnels));
    let error = api::plan_json("{", None).unwrap_err();
    accepted(&d, "HopPolicyErrorFields", &encoded(&error));
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
        let direct = serde_json::to_value(planner::plan(&v["input"])).expect("JSON");
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

/// The string literals of a declared union (its escape `(string & {})`
/// left out).
fn literals(name: &str) -> Vec<String> {
    let d = shipped();
    let Some(typescript::TsType::Union(options)) = d.0.get(name) else {
        panic!("{name} is not a union");
    };
    let mut out: Vec<String> = options
        .iter()
        .filter_map(|t| match t {
            typescript::TsType::Literal(serde_json::Value::String(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

/// `FindingCode` lists exactly the checker's rules.
#[test]
fn finding_codes_are_the_rule_table() {
    let mut codes: Vec<String> = crate::check::rules().into_iter().map(|r| r.code).collect();
    codes.sort();
    assert_eq!(literals("FindingCode"), codes);
}

/// The string values of every `command` key in `v`.
fn commands_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                match (k.as_str(), x) {
                    ("command", Value::String(c)) => out.push(c.clone()),
                    _ => commands_in(x, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| commands_in(x, out)),
        _ => {}
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
