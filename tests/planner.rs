//! Planner behaviour the golden vectors exercise rarely or not at all.

use hop_policy::plan;
use hop_policy::planner::{PlanMode, PlanOptions};
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
        "tunnel": {"id": 9, "name": "t9", "type": 2, "ipPreference": "", "inNodeId": [{"nodeId": 1}],
                    "chainNodes": hops, "outNodeId": exits},
        "nodes": nodes
    })
}

fn error_of(v: &Value) -> Option<(String, String)> {
    let p = serde_json::to_value(plan(v, &Default::default())).unwrap();
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
    let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
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
    let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
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
    let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
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
        let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
        assert!(p["error"]["code"].is_string(), "{}", v);
    }
    let refused = hop_policy::api::plan_json("{not json", None).unwrap_err();
    assert_eq!(refused.code, "IN001");
}

fn error_in(v: &Value, mode: PlanMode) -> Option<(String, String)> {
    let p = serde_json::to_value(plan(v, &PlanOptions::along(mode))).unwrap();
    p["error"].as_object().map(|e| {
        (
            e["code"].as_str().unwrap().to_string(),
            e["message"].as_str().unwrap().to_string(),
        )
    })
}

#[test]
fn checks_run_in_the_servers_order() {
    // A connect IP on a multi-exit tunnel is refused before the blank name.
    let mut v = input(
        vec![node(1, false), node(3, false), node(4, false)],
        json!([]),
        json!([{"nodeId": 3, "connectIp": "1.2.3.4"}, {"nodeId": 4}]),
    );
    v["tunnel"]["name"] = json!("  ");
    assert_eq!(
        error_of(&v),
        Some((
            "CONNECT_IP_MULTI_EXIT".into(),
            "多出口隧道不支持设置自定义连接IP".into()
        ))
    );
    v["tunnel"]["outNodeId"] = json!([{"nodeId": 3}]);
    assert_eq!(
        error_of(&v),
        Some(("NAME_EMPTY".into(), "隧道名称不能为空".into()))
    );
    v["tunnel"]["name"] = json!("t");
    v["tunnel"]["chainNodes"] = json!([[], [{"nodeId": 4}, {"nodeId": 5, "connectIp": " x "}]]);
    assert_eq!(
        error_of(&v),
        Some((
            "CONNECT_IP_MULTI_NODE_HOP".into(),
            "转发链第2跳有多个节点时不支持设置自定义连接IP".into()
        ))
    );
    v["tunnel"]["chainNodes"] = json!([]);
    v["tunnel"]["probeTargetHost"] = json!("http://x");
    v["tunnel"]["probeTargetPort"] = json!(80);
    assert_eq!(
        error_of(&v),
        Some((
            "PROBE_TARGET_INVALID".into(),
            "测试目标 Host 不能包含协议或路径".into()
        ))
    );
    let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
    assert_eq!(p["error"]["path"], "/tunnel/probeTargetHost");
}

#[test]
fn a_token_presence_marker_plans_as_the_token_would() {
    let mut with_token = input(
        vec![node(1, false), node(2, true), node(3, false)],
        json!([[{"nodeId": 2, "port": 45000}]]),
        json!([{"nodeId": 3}]),
    );
    let mut marker = with_token.clone();
    marker["nodes"][1]["remoteToken"] = json!(true);
    let a = serde_json::to_value(plan(&with_token, &Default::default())).unwrap();
    let b = serde_json::to_value(plan(&marker, &Default::default())).unwrap();
    assert!(a["error"].is_null(), "{}", a["error"]);
    assert_eq!(a, b);
    with_token["nodes"][1]["remoteToken"] = json!(false);
    assert_eq!(
        error_of(&with_token),
        Some((
            "REMOTE_SHARE_MISSING".into(),
            "远程节点 n2 缺少共享配置".into()
        ))
    );
}

#[test]
fn a_missing_port_range_is_not_a_full_one() {
    let mut v = input(
        vec![node(1, false), node(3, false)],
        json!([]),
        json!([{"nodeId": 3}]),
    );
    v["nodes"][1].as_object_mut().unwrap().remove("port");
    let p = serde_json::to_value(plan(&v, &Default::default())).unwrap();
    assert_eq!(p["error"]["code"], "PORT_RANGE_MISSING");
    assert_eq!(p["error"]["message"], "节点端口已满，无可用端口");
    assert!(p["error"]["messageEn"].as_str().unwrap().contains("n3"));
    v["nodes"][1]["port"] = json!("abc");
    assert_eq!(error_of(&v).unwrap().0, "PORTS_EXHAUSTED");
}

#[test]
fn an_edit_with_a_remote_entry_fails_as_upstream_does() {
    let mut v = input(
        vec![node(1, true), node(3, false)],
        json!([]),
        json!([{"nodeId": 3}]),
    );
    // Creating works: AddChains is on the relay's allow-list.
    let created = serde_json::to_value(plan(&v, &Default::default())).unwrap();
    assert!(created["error"].is_null(), "{}", created["error"]);
    assert_eq!(created["local"][0]["command"], "AddChains");
    v["before"] = v["tunnel"].clone();
    let (code, message) = error_in(&v, PlanMode::Update).unwrap();
    assert_eq!(code, "REMOTE_ENTRY_UPDATE_REFUSED");
    assert_eq!(
        message,
        "入口节点 n1 下发转发链失败: remote api error: command not allowed"
    );
}

#[test]
fn an_edit_tolerates_offline_nodes_already_in_the_tunnel() {
    let mut v = input(
        vec![node(1, false), node(3, false), node(4, false)],
        json!([]),
        json!([{"nodeId": 3}]),
    );
    v["before"] = v["tunnel"].clone();
    v["nodes"][1]["status"] = json!(0);
    assert_eq!(error_in(&v, PlanMode::Create).unwrap().0, "NODE_OFFLINE");
    let p = serde_json::to_value(plan(&v, &PlanOptions::along(PlanMode::Update))).unwrap();
    assert!(p["error"].is_null(), "{}", p["error"]);
    // The offline exit gets no service; the entry is updated, not added.
    assert_eq!(p["local"].as_array().unwrap().len(), 1);
    assert_eq!(p["local"][0]["command"], "UpdateChains");
    assert_eq!(p["local"][0]["data"]["chain"], "chains_9");
    // A node the edit adds must be online.
    v["tunnel"]["outNodeId"] = json!([{"nodeId": 3}, {"nodeId": 4}]);
    v["nodes"][2]["status"] = json!(0);
    assert_eq!(error_in(&v, PlanMode::Update).unwrap().0, "NODE_OFFLINE");
    v["tunnel"]["id"] = json!(0);
    assert_eq!(
        error_in(&v, PlanMode::Update),
        Some(("TUNNEL_ID_MISSING".into(), "隧道ID不能为空".into()))
    );
}

#[test]
fn redeploy_without_the_tunnel_row() {
    let v = json!({"db": {"tunnel": null, "chain_tunnel": [], "node": []}, "tunnelId": 5});
    assert_eq!(
        error_in(&v, PlanMode::Redeploy),
        Some(("TUNNEL_NOT_FOUND".into(), "隧道不存在".into()))
    );
    let v = json!({"db": {"tunnel": {"id": 5, "type": 1}, "chain_tunnel": [], "node": []}});
    let p = serde_json::to_value(plan(&v, &PlanOptions::along(PlanMode::Redeploy))).unwrap();
    assert!(p["error"].is_null());
    assert_eq!(p["local"], json!([]));
    assert_eq!(p["mode"], "redeploy");
    assert_eq!(
        error_in(&json!({"db": 1}), PlanMode::Redeploy).unwrap().0,
        "INVALID_INPUT"
    );
}
