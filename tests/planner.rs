//! Planner behaviour the golden vectors exercise rarely or not at all.

use hop_policy::plan;
use serde_json::{json, Value};

fn node(id: i64, remote: bool) -> Value {
    json!({
        "id": id, "name": format!("n{}", id), "serverIp": format!("203.0.113.{}", id),
        "serverIpV4": format!("203.0.113.{}", id), "serverIpV6": null, "port": "40000-40100",
        "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "interfaceName": "", "status": 1,
        "isRemote": if remote { 1 } else { 0 },
        "remoteUrl": if remote { json!("https://provider.example") } else { Value::Null },
        "remoteToken": if remote { json!("tok-123456") } else { Value::Null },
        "remoteConfig": null
    })
}

fn input(nodes: Vec<Value>, hops: Value, exits: Value) -> Value {
    json!({
        "tunnel": {"id": 9, "type": 2, "ipPreference": "", "inNodeId": [{"nodeId": 1}],
                    "chainNodes": hops, "outNodeId": exits},
        "nodes": nodes
    })
}

fn error_of(v: &Value) -> Option<(String, String)> {
    let p = serde_json::to_value(plan(v)).unwrap();
    p["error"].as_object().map(|e| {
        (
            e["code"].as_str().unwrap().to_string(),
            e["message"].as_str().unwrap().to_string(),
        )
    })
}

#[test]
fn remote_without_share_config_is_rejected_with_its_name() {
    let mut n2 = node(2, true);
    n2["remoteToken"] = json!("   ");
    let v = input(
        vec![node(1, false), n2, node(3, false)],
        json!([[{"nodeId": 2}]]),
        json!([{"nodeId": 3}]),
    );
    assert_eq!(
        error_of(&v),
        Some((
            "REMOTE_SHARE_MISSING".into(),
            "远程节点 n2 缺少共享配置".into()
        ))
    );
}

#[test]
fn exits_all_skipped_means_no_exits() {
    let v = input(
        vec![node(1, false)],
        json!([]),
        json!([{"nodeId": 0}, {"nodeId": "x"}]),
    );
    assert_eq!(
        error_of(&v),
        Some(("NO_EXITS".into(), "出口不能为空".into()))
    );
}

#[test]
fn defaults_defaults_and_port_pick() {
    let v = input(
        vec![node(1, false), node(3, false)],
        json!([]),
        json!([{"nodeId": "3", "protocol": " ", "strategy": null}]),
    );
    let p = serde_json::to_value(plan(&v)).unwrap();
    assert!(p["error"].is_null());
    // entry chain dials the exit at the first port of its range, tls defaults apply
    let chain = &p["local"][0]["data"];
    assert_eq!(chain["hops"][0]["nodes"][0]["addr"], "203.0.113.3:40000");
    assert_eq!(chain["hops"][0]["selector"]["strategy"], "round");
    assert_eq!(p["local"][1]["data"][0]["listener"]["type"], "tls");
    assert_eq!(p["local"][1]["data"][0]["addr"], "[::]:40000");
}

#[test]
fn port_forward_tunnels_deploy_nothing() {
    let mut v = input(
        vec![node(1, false), node(3, false)],
        json!([]),
        json!([{"nodeId": 3}]),
    );
    v["tunnel"]["type"] = json!(1);
    let p = serde_json::to_value(plan(&v)).unwrap();
    assert!(p["error"].is_null());
    assert_eq!(p["local"], json!([]));
    assert_eq!(p["federation"], json!([]));
}

#[test]
fn federated_middle_gets_retries_and_its_node_table_entry() {
    let v = input(
        vec![
            node(1, false),
            node(2, true),
            node(3, false),
            node(4, false),
        ],
        json!([[{"nodeId": 2, "port": 45000}]]),
        json!([{"nodeId": 3, "strategy": "fifo"}, {"nodeId": 4}]),
    );
    let p = serde_json::to_value(plan(&v)).unwrap();
    assert!(p["error"].is_null(), "{}", p["error"]);
    let fed = &p["federation"][0];
    assert_eq!(fed["role"], "middle");
    assert_eq!(fed["commands"][1]["data"][0]["handler"]["retries"], 1);
    assert_eq!(fed["commands"][1]["data"][0]["name"], "fed_svc_20");
    let middle = p["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["nodeId"] == 2)
        .unwrap();
    assert_eq!(middle["role"], "middle");
    assert_eq!(middle["remote"], true);
    assert_eq!(middle["port"], 45000);
    assert_eq!(middle["runtimeId"], 20);
    assert!(!serde_json::to_string(&p).unwrap().contains("tok-123456"));
}

#[test]
fn garbage_never_panics() {
    for v in [
        json!(null),
        json!(1),
        json!("x"),
        json!([]),
        json!({}),
        json!({"tunnel": []}),
        json!({"tunnel": {"inNodeId": "1"}}),
        json!({"tunnel": {"inNodeId": [{"nodeId": 1e300}]}, "nodes": {}}),
    ] {
        let p = serde_json::to_value(plan(&v)).unwrap();
        assert!(p["error"]["code"].is_string(), "{}", v);
    }
    let text = hop_policy::plan_json("{not json");
    assert!(text.contains("INVALID_INPUT"));
}
