//! The lifecycle's forward steps: create, edit (with a
//! tunnel switch), pause, resume, delete, the tunnel edit that re-syncs
//! forwards, and the LC002 / LC003 / LC004 they lead to. Every answer is
//! read off the upstream paths:
//!
//! * the sync (control_plane.go:234-378): per entry node in port-row order,
//!   `AddLimiters` of the speed limit `<speedId>` and of
//!   `rule_traffic_limit_<F>`, `AddCLimiters` of `rule_conn_limit_<F>`,
//!   then `UpdateService` of `<F>_<U>_<UT>_tcp|_udp`; an existing limiter
//!   is refused (`already exists`) and updated;
//! * `forwardDelete` (mutations.go:2191-2214): `DeleteService` of every base
//!   candidate's names per node, an offline node skipped, no limiter;
//! * `forwardUpdate` (mutations.go:1966-2189): on a tunnel switch the kept
//!   nodes are cleaned before the sync, the dropped ones after it; a failed
//!   sync restores the rows and re-syncs the old forward;
//! * `forwardCreate` (mutations.go:1958-1961): a failed sync deletes the row
//!   only;
//! * pause / resume (control_plane.go:568-640): each of `_tcp`, `_udp` and
//!   the bare base, one `PauseService` / `ResumeService` each;
//! * the tunnel edit (mutations.go:1014-1065): services of the forwards
//!   deleted on dropped entries, rows moved, every forward re-synced when
//!   the entry set changed;
//! * the config report (flow_policy.go:505-670): a traffic limiter whose
//!   name is no speed limit id is deleted.
//!
//! Nodes 1-6 are this panel's (ports 30000-30100); node 9 is remote, its
//! provider's share range 30050-30100 where the node row says 30000-30100,
//! so a forward on it picks port 30000 and the provider refuses it.

use hop_policy::finding::Finding;
use hop_policy::lifecycle::{lifecycle, LifecycleReport};
use serde_json::{json, Value};
mod golden_vectors;

fn node(id: i64) -> Value {
    json!({"id": id, "name": format!("n{id}"), "status": 1, "port": "30000-30100",
        "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "interfaceName": "", "isRemote": 0,
        "serverIp": format!("10.0.0.{id}"), "serverIpV4": format!("10.0.0.{id}")})
}

fn remote(id: i64) -> Value {
    let mut n = node(id);
    let share = json!({"isRemote": 1, "remoteUrl": "https://provider.example",
        "remoteToken": "share-token-secret",
        "remoteConfig": "{\"shareId\": 1, \"portRangeStart\": 30000, \"portRangeEnd\": 30100}"});
    for (k, v) in share.as_object().unwrap() {
        n[k] = v.clone();
    }
    n
}

/// A tunnel's payload: `kind` 2 is a tunnel forward (`chains_<id>` on its
/// entries), 1 a port forward.
fn tunnel(id: i64, kind: i64, entries: &[i64], exit: i64) -> Value {
    let ins: Vec<Value> = entries
        .iter()
        .map(|n| json!({"nodeId": n, "protocol": "tls", "strategy": "fifo"}))
        .collect();
    json!({"id": id, "name": format!("t{id}"), "type": kind, "inNodeId": ins, "chainNodes": [],
        "outNodeId": [{"nodeId": exit, "protocol": "tls", "strategy": "fifo"}]})
}

fn apply(id: i64, kind: i64, entries: &[i64], exit: i64) -> Value {
    let mut nodes: Vec<Value> = (1..=6).map(node).collect();
    nodes.push(remote(9));
    let federation = json!({"9": {"runtimeId": 91, "allocatedPort": 30001,
        "portRangeStart": 30050, "portRangeEnd": 30100}});
    let input = json!({"tunnel": tunnel(id, kind, entries, exit), "nodes": nodes, "federation": federation});
    json!({"op": "apply", "input": input})
}

/// Tunnel 7: entries 1 and 2, exit 3.
fn t7() -> Value {
    apply(7, 2, &[1, 2], 3)
}

fn speeds() -> Value {
    json!([{"id": 2, "speed": 100}, {"id": 3, "speed": 10}])
}

/// The administrator's forward on tunnel `t`: speed limit 2, per-IP limit
/// 3 and at most 5 connections, so all three limiters are pushed.
fn create(t: i64) -> Value {
    json!({"op": "forwardCreate", "speedLimits": speeds(),
        "forward": {"tunnelId": t, "name": "ssh", "remoteAddr": "9.9.9.9:22",
            "speedId": 2, "ipSpeedId": 3, "maxConn": 5}})
}

fn run(steps: Value) -> LifecycleReport {
    let report = lifecycle(&steps).unwrap();
    // The state as a value is the state the report's text prints.
    let text = hop_policy::api::lifecycle_json(&steps.to_string()).unwrap();
    let printed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report.state, printed["state"]);
    report
}

/// `(node, command, target, failed)` of every command step `step` sent.
fn sent(r: &LifecycleReport, step: usize) -> Vec<(i64, String, Value, Option<String>)> {
    r.log
        .iter()
        .filter(|e| e["step"] == step && e.get("command").is_some())
        .map(|e| {
            let failed = e.get("failed").and_then(Value::as_str).map(str::to_string);
            let command = e["command"].as_str().unwrap().to_string();
            (
                e["nodeId"].as_i64().unwrap(),
                command,
                e["target"].clone(),
                failed,
            )
        })
        .collect()
}

fn cmd(node: i64, command: &str, target: Value) -> (i64, String, Value, Option<String>) {
    (node, command.to_string(), target, None)
}

/// The names a node holds in one registry of the final state.
fn names(r: &LifecycleReport, node: i64, kind: &str) -> Vec<String> {
    let list = r.state["nodes"][node.to_string()][kind].as_array().cloned();
    list.unwrap_or_default()
        .iter()
        .map(|c| c.as_str().or(c["name"].as_str()).unwrap().to_string())
        .collect()
}

/// The `(code, node, kind, name, path)` of each leftover finding, read off
/// its message (`Node N: KIND NAME is still deployed ...`).
fn leftovers(r: &LifecycleReport) -> Vec<(String, i64, String, String, String)> {
    let mut out: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.code == "LC002" || f.code == "LC003")
        .filter(|f| f.message.contains("is still deployed after the"))
        .map(|f| {
            let mut words = f.message.split(' ');
            let node = words.nth(1).unwrap().trim_end_matches(':').parse().unwrap();
            let kind = words.next().unwrap().to_string();
            let name = words.next().unwrap().to_string();
            (f.code.clone(), node, kind, name, f.path.clone())
        })
        .collect();
    out.sort();
    out
}

fn left(
    code: &str,
    node: i64,
    kind: &str,
    name: &str,
    step: usize,
) -> (String, i64, String, String, String) {
    (
        code.into(),
        node,
        kind.into(),
        name.into(),
        format!("/{step}"),
    )
}

/// The three limiters of forward 1 (speed limit 2, per-IP, connections) on `node`.
fn limiters_of_1(code: &str, node: i64, step: usize) -> Vec<(String, i64, String, String, String)> {
    vec![
        left(code, node, "climiter", "rule_conn_limit_1", step),
        left(code, node, "limiter", "2", step),
        left(code, node, "limiter", "rule_traffic_limit_1", step),
    ]
}

/// The first finding whose message says `text`.
fn said<'r>(r: &'r LifecycleReport, text: &str) -> &'r Finding {
    let found = r.findings.iter().find(|f| f.message.contains(text));
    found.unwrap_or_else(|| panic!("no finding says {text:?}: {:?}", r.findings))
}

fn assert_says(f: &Finding, text: &str) {
    assert!(f.message.contains(text), "{text:?} not in {}", f.message);
}

/// The nodes of the findings of one code, in the report's order.
fn nodes_of(r: &LifecycleReport, code: &str) -> Vec<Option<i64>> {
    let found = r.findings.iter().filter(|f| f.code == code);
    found.map(|f| f.node_id).collect()
}

fn codes(r: &LifecycleReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

fn pair(base: &str) -> Value {
    json!(format!("{base}_tcp"))
}

/// The sync of forward 1 on a node that holds its limiters: each add is
/// refused as existing, then updated.
const RESYNC: [&str; 7] = [
    "AddLimiters",
    "UpdateLimiters",
    "AddLimiters",
    "UpdateLimiters",
    "AddCLimiters",
    "UpdateCLimiters",
    "UpdateService",
];

/// The sync's commands for forward 1 on a node with none of its limiters.
fn fresh_sync(node: i64) -> Vec<(i64, String, Value, Option<String>)> {
    vec![
        cmd(node, "AddLimiters", json!("2")),
        cmd(node, "AddLimiters", json!("rule_traffic_limit_1")),
        cmd(node, "AddCLimiters", json!("rule_conn_limit_1")),
        cmd(node, "UpdateService", pair("1_1_0")),
    ]
}

/// A normal user's rows as the tests give them: user 20 and its grant 7 of tunnel 7.
fn alice() -> (Value, Value) {
    let user = json!({"id": 20, "roleId": 1, "maxConn": 3});
    let grant = json!({"id": 7, "user_id": 20, "tunnel_id": 7, "speed_id": null, "num": 0,
        "flow": 100, "in_flow": 0, "out_flow": 0, "exp_time": 0, "status": 1});
    (user, grant)
}

/// User 20's forward on tunnel 7 (its id 1).
fn alice_creates() -> Value {
    let (user, grant) = alice();
    let body = json!({"tunnelId": 7, "name": "web", "remoteAddr": "9.9.9.9:443"});
    json!({"op": "forwardCreate", "user": user, "userTunnel": grant, "forward": body})
}

/// What deletes forward 1 of user 20 on a node: the grant's base, every
/// other grant of the user's (none), then 0 (control_plane.go:463-483, :1634-1656).
fn alice_deletes() -> Value {
    let bases = ["1_20_7", "1_20_0"];
    let names: Vec<String> = bases
        .iter()
        .flat_map(|b| [format!("{b}_tcp"), format!("{b}_udp"), b.to_string()])
        .collect();
    json!(names)
}

#[test]
fn create_pushes_limiters_then_the_service_pair_on_each_entry() {
    let r = run(json!([t7(), create(7)]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let want: Vec<_> = fresh_sync(1).into_iter().chain(fresh_sync(2)).collect();
    assert_eq!(sent(&r, 1), want);
    for n in [1, 2] {
        assert_eq!(names(&r, n, "services"), ["1_1_0_tcp", "1_1_0_udp"]);
        assert_eq!(names(&r, n, "limiters"), ["2", "rule_traffic_limit_1"]);
        assert_eq!(names(&r, n, "climiters"), ["rule_conn_limit_1"]);
        assert_eq!(names(&r, n, "chains"), ["chains_7"]);
        let svc = &r.state["nodes"][n.to_string()]["services"][0];
        // Through the tunnel's chain, on the first port free on both entries.
        assert_eq!(svc["handler"]["chain"], "chains_7");
        assert_eq!(svc["addr"], "[::]:30000");
        assert_eq!(svc["limiter"], "2,rule_traffic_limit_1");
        assert_eq!(svc["climiter"], "rule_conn_limit_1");
    }
    // The exit runs the tunnel alone; no limiter key where there is none.
    assert_eq!(names(&r, 3, "services"), ["tunnel_7"]);
    assert!(r.state["nodes"]["3"].get("limiters").is_none());
    let end = r
        .log
        .iter()
        .find(|e| e["step"] == 1 && e["phase"] == "end")
        .unwrap();
    assert_eq!(end["forwardId"], 1);
}

#[test]
fn a_normal_users_forward_is_named_by_its_grant_and_deleted_under_every_base() {
    let (user, create) = (alice().0, alice_creates());
    let r = run(json!([t7(), create, {"op": "forwardDelete", "id": 1, "user": user}]));
    let mut services = Vec::new();
    for n in [1, 2] {
        services.push(cmd(n, "AddCLimiters", json!("user_conn_limit_20")));
        services.push(cmd(n, "UpdateService", pair("1_20_7")));
    }
    assert_eq!(sent(&r, 1), services);
    let names6 = alice_deletes();
    let deletes = vec![
        cmd(1, "DeleteService", names6.clone()),
        cmd(2, "DeleteService", names6),
    ];
    assert_eq!(sent(&r, 2), deletes);
    assert_eq!(names(&r, 1, "services"), Vec::<String>::new());
    let want = vec![
        left("LC002", 1, "climiter", "user_conn_limit_20", 2),
        left("LC002", 2, "climiter", "user_conn_limit_20", 2),
    ];
    assert_eq!(leftovers(&r), want);
    // Another user may not touch it: the server answers 转发不存在.
    let other = json!({"op": "forwardPause", "id": 1, "user": {"id": 21, "roleId": 1}});
    let r = run(json!([t7(), create, other]));
    assert_eq!(codes(&r), ["IN002"]);
    assert!(r.findings[0].message_zh.contains("转发不存在"));
    assert!(sent(&r, 2).is_empty());
}

#[test]
fn pause_and_resume_try_each_name_and_a_paused_forward_stays_paused_after_an_edit() {
    let r = run(json!([t7(), create(7), {"op": "forwardPause", "id": 1}]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let mut want = Vec::new();
    for n in [1, 2] {
        want.push(cmd(n, "PauseService", json!(["1_1_0_tcp"])));
        want.push(cmd(n, "PauseService", json!(["1_1_0_udp"])));
        // The bare base is tried too; the agent has none.
        let mut bare = cmd(n, "PauseService", json!(["1_1_0"]));
        bare.3 = Some("service 1_1_0 not found".into());
        want.push(bare);
    }
    assert_eq!(sent(&r, 2), want);
    for n in [1, 2] {
        assert_eq!(names(&r, n, "paused"), ["1_1_0_tcp", "1_1_0_udp"]);
    }
    let r = run(
        json!([t7(), create(7), {"op": "forwardPause", "id": 1}, {"op": "forwardResume", "id": 1}]),
    );
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let resumed: Vec<_> = sent(&r, 3).iter().map(|c| c.1.clone()).collect();
    assert_eq!(resumed, ["ResumeService"; 6]);
    assert!(r.state["nodes"]["1"].get("paused").is_none());
    // The status is stored: an edit of the paused forward re-pauses it after its sync.
    let edit = json!({"op": "forwardEdit", "forward": {"id": 1, "name": "renamed"}});
    let r = run(json!([t7(), create(7), {"op": "forwardPause", "id": 1}, edit]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let commands: Vec<_> = sent(&r, 3).iter().map(|c| (c.0, c.1.clone())).collect();
    let last: Vec<_> = commands
        .iter()
        .rev()
        .take(3)
        .map(|c| c.1.as_str())
        .collect();
    assert_eq!(last, ["PauseService"; 3]);
    assert_eq!(names(&r, 2, "paused"), ["1_1_0_tcp", "1_1_0_udp"]);
}

#[test]
fn delete_removes_the_services_and_leaves_every_limiter_lc002() {
    let r = run(json!([t7(), create(7), {"op": "forwardDelete", "id": 1}]));
    let names3 = json!(["1_1_0_tcp", "1_1_0_udp", "1_1_0"]);
    assert_eq!(
        sent(&r, 2),
        vec![
            cmd(1, "DeleteService", names3.clone()),
            cmd(2, "DeleteService", names3)
        ]
    );
    let mut want = limiters_of_1("LC002", 1, 2);
    want.extend(limiters_of_1("LC002", 2, 2));
    assert_eq!(leftovers(&r), want);
    assert_eq!(codes(&r), ["LC002"; 6]);
    for n in [1, 2] {
        assert!(names(&r, n, "services").is_empty());
        assert_eq!(names(&r, n, "limiters"), ["2", "rule_traffic_limit_1"]);
    }
    let f = said(&r, "rule_conn_limit_1");
    for text in [
        "forwardDelete",
        "mutations.go:2205",
        "never deletes a limiter",
        "never deletes a connection limiter",
    ] {
        assert_says(f, text);
    }
    assert!(
        f.message_zh.contains("连接限制器 rule_conn_limit_1")
            && f.message_zh.contains("从不删除限速器")
    );
    // Whether the config report takes it later: the speed limit's own stays.
    let two = said(&r, "limiter 2 ");
    assert_says(two, "speed limit's id");
    let per_ip = said(&r, "limiter rule_traffic");
    assert_says(per_ip, "next config report deletes it");
}

#[test]
fn a_limiter_another_forward_still_names_is_not_a_leftover() {
    let second = json!({"op": "forwardCreate",
        "forward": {"tunnelId": 7, "name": "web", "remoteAddr": "9.9.9.9:443", "speedId": 2}});
    let r = run(json!([t7(), create(7), second, {"op": "forwardDelete", "id": 1}]));
    // Forward 2 pushed limiter 2 again: refused as existing, then updated.
    let first_node: Vec<_> = sent(&r, 2).into_iter().take(3).collect();
    let mut refused = cmd(1, "AddLimiters", json!("2"));
    refused.3 = Some("limiter 2 already exists".into());
    let want = vec![
        refused,
        cmd(1, "UpdateLimiters", json!("2")),
        cmd(1, "UpdateService", pair("2_1_0")),
    ];
    assert_eq!(first_node, want);
    let mut want = Vec::new();
    for n in [1, 2] {
        want.push(left("LC002", n, "climiter", "rule_conn_limit_1", 3));
        want.push(left("LC002", n, "limiter", "rule_traffic_limit_1", 3));
    }
    want.sort();
    assert_eq!(leftovers(&r), want);
    assert_eq!(names(&r, 1, "services"), ["2_1_0_tcp", "2_1_0_udp"]);
}

#[test]
fn delete_skips_an_offline_node_whose_services_stay() {
    let r = run(json!([t7(), create(7), {"op": "forwardDelete", "id": 1, "offline": [2]}]));
    let names3 = json!(["1_1_0_tcp", "1_1_0_udp", "1_1_0"]);
    assert_eq!(sent(&r, 2), vec![cmd(1, "DeleteService", names3)]);
    let mut want = limiters_of_1("LC002", 1, 2);
    want.extend(limiters_of_1("LC002", 2, 2));
    want.push(left("LC002", 2, "service", "1_1_0_tcp", 2));
    want.push(left("LC002", 2, "service", "1_1_0_udp", 2));
    want.sort();
    assert_eq!(leftovers(&r), want);
    let svc = said(&r, "service 1_1_0_tcp");
    assert!(svc.message.contains("offline") && svc.message_zh.contains("离线"));
    // Its forward is gone: the next report deletes the service, not limiter 2.
    let r = run(
        json!([t7(), create(7), {"op": "forwardDelete", "id": 1, "offline": [2]}, {"op": "report", "nodeId": 2}]),
    );
    // One delete per reported service (flow_policy.go:571-573), then the
    // per-IP limiter, whose name is no speed limit id.
    let tcp = json!(["1_1_0_tcp", "1_1_0", "1_1_0_tcp", "1_1_0_udp"]);
    let udp = json!(["1_1_0_udp", "1_1_0", "1_1_0_tcp", "1_1_0_udp"]);
    let want = vec![
        cmd(2, "DeleteService", tcp),
        cmd(2, "DeleteService", udp),
        cmd(2, "DeleteLimiters", json!("rule_traffic_limit_1")),
    ];
    assert_eq!(sent(&r, 3), want);
    assert_eq!(names(&r, 2, "limiters"), ["2"]);
    assert_eq!(names(&r, 2, "climiters"), ["rule_conn_limit_1"]);
}

#[test]
fn a_tunnel_switch_deletes_on_dropped_nodes_after_the_sync_and_leaves_their_limiters() {
    let switch = json!({"op": "forwardEdit", "forward": {"id": 1, "tunnelId": 8}});
    let r = run(json!([t7(), apply(8, 2, &[4], 5), create(7), switch]));
    let names3 = json!(["1_1_0_tcp", "1_1_0_udp", "1_1_0"]);
    let mut want = fresh_sync(4);
    want.push(cmd(1, "DeleteService", names3.clone()));
    want.push(cmd(2, "DeleteService", names3));
    assert_eq!(sent(&r, 3), want);
    let mut want = limiters_of_1("LC002", 1, 3);
    want.extend(limiters_of_1("LC002", 2, 3));
    assert_eq!(leftovers(&r), want);
    assert_eq!(names(&r, 4, "services"), ["1_1_0_tcp", "1_1_0_udp"]);
    // The forward's lowest port moves with it.
    assert_eq!(r.state["nodes"]["4"]["services"][0]["addr"], "[::]:30000");
    assert_eq!(
        r.state["nodes"]["4"]["services"][0]["handler"]["chain"],
        "chains_8"
    );
}

#[test]
fn a_switch_cleans_a_kept_node_before_the_sync_and_leaves_nothing_there() {
    let switch = json!({"op": "forwardEdit", "forward": {"id": 1, "tunnelId": 10}});
    let r = run(json!([t7(), apply(10, 2, &[1, 4], 5), create(7), switch]));
    let names3 = json!(["1_1_0_tcp", "1_1_0_udp", "1_1_0"]);
    let commands = sent(&r, 3);
    assert_eq!(
        commands.first(),
        Some(&cmd(1, "DeleteService", names3.clone()))
    );
    assert_eq!(commands.last(), Some(&cmd(2, "DeleteService", names3)));
    // Node 1 still has the limiters: each is refused, then updated.
    let node1: Vec<_> = commands
        .iter()
        .filter(|c| c.0 == 1)
        .map(|c| c.1.as_str())
        .collect();
    assert_eq!(node1, [&["DeleteService"][..], &RESYNC].concat());
    assert_eq!(leftovers(&r), limiters_of_1("LC002", 2, 3));
    assert_eq!(names(&r, 1, "services"), ["1_1_0_tcp", "1_1_0_udp"]);
}

#[test]
fn an_edit_that_keeps_the_nodes_and_limits_leaves_nothing() {
    let edit = json!({"op": "forwardEdit", "forward": {"id": 1, "name": "renamed", "remoteAddr": "9.9.9.9:2222"}});
    let r = run(json!([t7(), create(7), edit]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let svc = &r.state["nodes"]["2"]["services"][0];
    assert_eq!(svc["forwarder"]["nodes"][0]["addr"], "9.9.9.9:2222");
    // Dropping the per-IP limit leaves its limiter behind.
    let edit = json!({"op": "forwardEdit", "forward": {"id": 1, "ipSpeedId": null}});
    let r = run(json!([t7(), create(7), edit]));
    let want = vec![
        left("LC002", 1, "limiter", "rule_traffic_limit_1", 2),
        left("LC002", 2, "limiter", "rule_traffic_limit_1", 2),
    ];
    assert_eq!(leftovers(&r), want);
}

#[test]
fn a_failed_create_keeps_what_its_sync_pushed_lc003() {
    let body = json!({"tunnelId": 11, "name": "a", "remoteAddr": "9.9.9.9:22", "speedId": 2});
    let steps = json!([apply(11, 1, &[6, 9], 3), {"op": "forwardCreate", "forward": body, "speedLimits": speeds()}]);
    let r = run(steps);
    let refusal = "port 30000 out of allowed range 30050-30100";
    let refused = |command: &str| {
        (
            9,
            command.to_string(),
            pair("1_1_0"),
            Some(refusal.to_string()),
        )
    };
    let want = vec![
        cmd(6, "AddLimiters", json!("2")),
        cmd(6, "UpdateService", pair("1_1_0")),
        cmd(9, "AddLimiters", json!("2")),
        refused("UpdateService"),
        refused("AddService"),
    ];
    assert_eq!(sent(&r, 1), want);
    let relayed = r.log.iter().filter(|e| e["step"] == 1 && e["nodeId"] == 9);
    assert!(relayed.clone().count() == 3 && relayed.into_iter().all(|e| e["relay"] == true));
    let want = vec![
        left("LC003", 6, "limiter", "2", 1),
        left("LC003", 6, "service", "1_1_0_tcp", 1),
        left("LC003", 6, "service", "1_1_0_udp", 1),
        left("LC003", 9, "limiter", "2", 1),
    ];
    assert_eq!(leftovers(&r), want);
    let in002 = r.findings.iter().find(|f| f.code == "IN002").unwrap();
    assert!(in002
        .message_zh
        .contains(&format!("节点 n9 下发失败: remote api error: {refusal}")));
    let lc003 = r.findings.iter().find(|f| f.code == "LC003").unwrap();
    assert_eq!(lc003.rule, "rollback-leak");
    assert_says(lc003, "mutations.go:1958-1961");
    // The row is gone: the next forward takes id 2 (AUTOINCREMENT), and the
    // report deletes the orphaned pair on node 6.
    let ok = json!({"op": "forwardCreate", "forward": {"tunnelId": 7, "name": "b", "remoteAddr": "9.9.9.9:22"}});
    let r = run(
        json!([apply(11, 1, &[6, 9], 3), {"op": "forwardCreate", "forward": body, "speedLimits": speeds()}, t7(), ok, {"op": "report", "nodeId": 6}]),
    );
    assert_eq!(names(&r, 1, "services"), ["2_1_0_tcp", "2_1_0_udp"]);
    assert!(names(&r, 6, "services").is_empty());
}

#[test]
fn a_failed_switch_restores_the_forward_and_leaves_the_new_nodes_lc003() {
    let switch = json!({"op": "forwardEdit", "forward": {"id": 1, "tunnelId": 11}});
    let r = run(json!([t7(), apply(11, 1, &[6, 9], 3), create(7), switch]));
    // The rollback re-syncs the old forward on nodes 1 and 2, which kept it all.
    let after: Vec<_> = sent(&r, 3)
        .into_iter()
        .filter(|c| c.0 == 1 || c.0 == 2)
        .map(|c| c.1)
        .collect();
    assert_eq!(after, [RESYNC, RESYNC].concat());
    let mut want = vec![
        left("LC003", 6, "climiter", "rule_conn_limit_1", 3),
        left("LC003", 6, "limiter", "2", 3),
        left("LC003", 6, "limiter", "rule_traffic_limit_1", 3),
        left("LC003", 6, "service", "1_1_0_tcp", 3),
        left("LC003", 6, "service", "1_1_0_udp", 3),
        left("LC003", 9, "limiter", "2", 3),
        left("LC003", 9, "limiter", "rule_traffic_limit_1", 3),
    ];
    want.sort();
    assert_eq!(leftovers(&r), want);
    // Forward 1 still exists, so the config report keeps the pair on node 6.
    let svc = said(&r, "Node 6: service 1_1_0_tcp");
    assert_says(svc, "Its forward still exists");
    assert_eq!(names(&r, 1, "services"), ["1_1_0_tcp", "1_1_0_udp"]);
}

#[test]
fn a_tunnel_edit_dropping_an_entry_resyncs_and_leaves_its_limiters_lc002() {
    let edit = json!({"op": "edit", "input": apply(7, 2, &[1, 6], 3)["input"]});
    let r = run(json!([t7(), create(7), edit]));
    let names3 = json!(["1_1_0_tcp", "1_1_0_udp", "1_1_0"]);
    let commands = sent(&r, 2);
    // The forwards' services go first, on the dropped entry only.
    assert_eq!(commands.first(), Some(&cmd(2, "DeleteService", names3)));
    assert!(commands
        .iter()
        .skip(1)
        .all(|c| c.0 != 2 || c.1 == "DeleteChains"));
    let node6: Vec<_> = commands
        .iter()
        .filter(|c| c.0 == 6)
        .map(|c| c.1.as_str())
        .collect();
    assert_eq!(
        node6,
        [
            "UpdateChains",
            "AddLimiters",
            "AddLimiters",
            "AddCLimiters",
            "UpdateService"
        ]
    );
    assert_eq!(leftovers(&r), limiters_of_1("LC002", 2, 2));
    let f = said(&r, "limiter 2 ");
    assert_says(f, "cleanupTunnelForwardRuntimesOnRemovedEntryNodes");
    assert!(names(&r, 2, "services").is_empty() && names(&r, 2, "chains").is_empty());
    assert_eq!(names(&r, 6, "services"), ["1_1_0_tcp", "1_1_0_udp"]);
    // The rows moved: a later delete reaches node 6, not node 2.
    let r = run(json!([t7(), create(7), edit, {"op": "forwardDelete", "id": 1}]));
    let nodes: Vec<_> = sent(&r, 3).iter().map(|c| c.0).collect();
    assert_eq!(nodes, [1, 6]);
}

#[test]
fn a_tunnel_edit_resyncs_a_normal_users_forward_under_its_grant() {
    let create = alice_creates();
    let edit = json!({"op": "edit", "input": apply(7, 2, &[1, 6], 3)["input"]});
    let r = run(json!([t7(), create, edit]));
    let commands = sent(&r, 2);
    let names6 = alice_deletes();
    assert_eq!(commands.first(), Some(&cmd(2, "DeleteService", names6)));
    // The user's max_conn 3 gives user_conn_limit_20 (control_plane.go:291-295, :1941-1944).
    let node6: Vec<_> = commands
        .iter()
        .filter(|c| c.0 == 6)
        .skip(1)
        .cloned()
        .collect();
    let want = vec![
        cmd(6, "AddCLimiters", json!("user_conn_limit_20")),
        cmd(6, "UpdateService", pair("1_20_7")),
    ];
    assert_eq!(node6, want);
    assert_eq!(
        leftovers(&r),
        vec![left("LC002", 2, "climiter", "user_conn_limit_20", 2)]
    );
}

#[test]
fn a_tunnel_edit_keeping_its_entries_sends_nothing_for_the_forwards() {
    let mut payload = tunnel(7, 2, &[1, 2], 3);
    payload["outNodeId"][0]["strategy"] = json!("round");
    let mut input = apply(7, 2, &[1, 2], 3)["input"].clone();
    input["tunnel"] = payload;
    let r = run(json!([t7(), create(7), {"op": "edit", "input": input}]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let commands: Vec<_> = sent(&r, 2).iter().map(|c| c.1.clone()).collect();
    assert!(
        commands
            .iter()
            .all(|c| c == "UpdateChains" || c == "UpdateService"),
        "{commands:?}"
    );
    assert!(sent(&r, 2).iter().all(|c| c.2 != pair("1_1_0")));
}

#[test]
fn deleting_the_tunnel_drops_its_forwards_and_leaves_their_services_lc002() {
    let r = run(json!([t7(), create(7), {"op": "delete"}, {"op": "forwardPause", "id": 1}]));
    let mut want = Vec::new();
    for n in [1, 2] {
        want.extend(limiters_of_1("LC002", n, 2));
        want.push(left("LC002", n, "service", "1_1_0_tcp", 2));
        want.push(left("LC002", n, "service", "1_1_0_udp", 2));
    }
    want.sort();
    assert_eq!(leftovers(&r), want);
    let f = said(&r, "Node 1: service");
    assert!(
        f.message.contains("tunnelDelete") && f.message.contains("repository_mutations.go:584-590")
    );
    // Its rows went with the tunnel: 转发不存在.
    let in002 = r.findings.iter().find(|f| f.code == "IN002").unwrap();
    assert_eq!(in002.path, "/3");
    assert!(in002.message_zh.contains("转发不存在"));
}

#[test]
fn the_report_deletes_the_per_ip_limiter_under_its_services_lc004() {
    let r = run(json!([t7(), create(7), {"op": "report"}]));
    assert_eq!(nodes_of(&r, "LC004"), [Some(1), Some(1), Some(2), Some(2)]);
    let want = vec![
        cmd(1, "DeleteLimiters", json!("rule_traffic_limit_1")),
        cmd(2, "DeleteLimiters", json!("rule_traffic_limit_1")),
    ];
    assert_eq!(sent(&r, 2), want);
    assert_eq!(names(&r, 1, "limiters"), ["2"]);
    let f = &r.findings[0];
    for text in [
        "rule_traffic_limit_1",
        "1_1_0_tcp",
        "flow_policy.go:626-634",
        "limiter.go:36-42",
    ] {
        assert_says(f, text);
    }
    assert!(f.message_zh.contains("不再限速"));
    // A forward limited by a speed limit alone keeps it: no finding.
    let plain = json!({"op": "forwardCreate", "speedLimits": speeds(),
        "forward": {"tunnelId": 7, "name": "a", "remoteAddr": "9.9.9.9:22", "speedId": 2, "maxConn": 5}});
    let r = run(json!([t7(), plain, {"op": "report"}]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(sent(&r, 2).is_empty());
    assert_eq!(names(&r, 2, "climiters"), ["rule_conn_limit_1"]);
}

#[test]
fn unreadable_forward_steps_are_in001() {
    for (step, at) in [
        (json!({"op": "forwardPause"}), "/1/id"),
        (json!({"op": "forwardDelete", "id": 0}), "/1/id"),
        (json!({"op": "forwardCreate"}), "/1/forward"),
        (json!({"op": "forwardEdit", "id": 1}), "/1/forward"),
        (
            json!({"op": "forwardCreate", "forward": {}, "speedLimits": "x"}),
            "/1",
        ),
    ] {
        let e = lifecycle(&json!([t7(), step])).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("IN001", at),
            "{step}: {}",
            e.message
        );
    }
    let e = lifecycle(&json!([{"op": "forwardMove"}])).unwrap_err();
    assert!(e.message.contains("forwardCreate"), "{}", e.message);
}

#[test]
fn no_output_carries_the_share_token() {
    let r = run(json!([apply(11, 1, &[6, 9], 3), create(11)]));
    let out = hop_policy::encode::to_string(&r);
    assert!(!out.contains("share-token-secret"));
}

/// The README's forward lifecycle example (section "Lifecycle").
#[test]
fn readme_example() {
    let seed: Value =
        serde_json::from_str(include_str!("../examples/tunnel-with-forwards.json")).unwrap();
    let input =
        json!({"tunnel": seed["tunnel"], "nodes": seed["nodes"], "federation": seed["federation"]});
    let steps = json!([
        {"op": "apply", "input": input},
        {"op": "forwardCreate", "speedLimits": seed["speedLimits"],
         "forward": {"tunnelId": 7, "name": "web", "remoteAddr": "203.0.113.50:443", "speedId": 2, "ipSpeedId": 2}},
        {"op": "report", "nodeId": 1},
        {"op": "forwardDelete", "id": 1},
    ]);
    let r = run(steps);
    let found: Vec<_> = r
        .findings
        .iter()
        .map(|f| (f.code.as_str(), f.node_id, f.path.as_str()))
        .collect();
    // The report deletes rule_traffic_limit_1 under both services; the
    // delete leaves limiter 2.
    let want = [
        ("LC004", Some(1), "/2"),
        ("LC004", Some(1), "/2"),
        ("LC002", Some(1), "/3"),
    ];
    assert_eq!(found, want);
    assert!(r.findings[2].message.contains("limiter 2 "));
    assert_eq!(names(&r, 1, "limiters"), ["2"]);
}

/// `(node, command, failed, relay)` of a vector's command or a log entry.
fn marks(c: &Value) -> Value {
    let mark = |key: &str| c.get(key).cloned().unwrap_or(Value::Null);
    json!([c["nodeId"], c["command"], mark("failed"), mark("relay")])
}

/// Every forward-create vector whose panel stores no forward beforehand,
/// replayed as an apply of its tunnel and a `forwardCreate` with its
/// context, sends what the server sent, marks included.
#[test]
fn forward_create_vectors_replay_as_steps() {
    let mut replayed = 0;
    for v in golden_vectors::forward_vectors() {
        let input = &v["input"];
        if v["mode"] != "forward-create" || input.get("forwards").is_some() {
            continue;
        }
        let mut tunnel = json!({"tunnel": input["tunnel"], "nodes": input["nodes"]});
        if let Some(federation) = input.get("federation") {
            tunnel["federation"] = federation.clone();
        }
        let mut step = input.clone();
        let context = step.as_object_mut().unwrap();
        for key in ["tunnel", "nodes", "federation"] {
            context.remove(key);
        }
        context.insert("op".into(), json!("forwardCreate"));
        let r = run(json!([{"op": "apply", "input": tunnel}, step]));
        let got: Vec<Value> = r
            .log
            .iter()
            .filter(|e| e["step"] == 1 && e.get("command").is_some())
            .map(marks)
            .collect();
        let want: Vec<Value> = v["expected"]["local"]
            .as_array()
            .unwrap()
            .iter()
            .map(marks)
            .collect();
        assert_eq!(got, want, "{}", v["name"]);
        let refused = r.findings.iter().any(|f| f.code == "IN002");
        assert_eq!(refused, !v["expected"]["error"].is_null(), "{}", v["name"]);
        replayed += 1;
    }
    assert_eq!(replayed, 184);
}

/// Odd values in a forward step read as the server reads them or are
/// IN001; none panics, and a refused request changes nothing.
#[test]
fn odd_forward_steps_never_panic() {
    let odd = [
        json!({"op": "forwardCreate", "forward": null}),
        json!({"op": "forwardCreate", "forward": 5}),
        json!({"op": "forwardCreate", "forward": {"tunnelId": "7", "name": "a", "remoteAddr": "9.9.9.9:22", "inPort": "abc"}}),
        json!({"op": "forwardCreate", "forward": {"tunnelId": 99, "name": "a", "remoteAddr": "x"}}),
        json!({"op": "forwardCreate", "forward": {"tunnelId": 7}, "agents": []}),
        json!({"op": "forwardCreate", "forward": {"tunnelId": 7, "name": "a", "remoteAddr": "1.1.1.1:1"}, "offline": "1", "now": "x"}),
        json!({"op": "forwardEdit", "forward": {"id": "x"}}),
        json!({"op": "forwardEdit", "forward": {"id": 1, "tunnelId": -3}}),
        json!({"op": "forwardPause", "id": "abc"}),
        json!({"op": "forwardResume", "id": 1.5}),
        json!({"op": "forwardDelete", "id": [1]}),
        json!({"op": "forwardDelete", "id": 12345}),
        json!({"op": "forwardDelete", "forward": {"id": 12345}, "user": {"id": "x"}}),
    ];
    for step in odd {
        match lifecycle(&json!([t7(), step])) {
            Ok(r) => assert!(
                r.findings.iter().all(|f| f.code == "IN002"),
                "{step}: {:?}",
                r.findings
            ),
            Err(e) => assert_eq!(e.code, "IN001", "{step}"),
        }
    }
    // Text ids and an unreadable port read as asInt reads them: tunnel 7,
    // the first free port.
    let loose = json!({"op": "forwardCreate", "forward": {"tunnelId": "7", "name": "a",
        "remoteAddr": "9.9.9.9:22", "inPort": "abc"}});
    let r = run(json!([t7(), loose, {"op": "forwardPause", "id": "1"}]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.state["nodes"]["1"]["services"][0]["addr"], "[::]:30000");
    assert_eq!(names(&r, 1, "paused"), ["1_1_0_tcp", "1_1_0_udp"]);
}

/// Tunnel 7 as its stored rows give it: a redeploy input.
fn redeploy_t7() -> Value {
    let row = |id: i64| {
        json!({"id": id, "name": format!("n{id}"), "status": 1, "port": "30000-30100",
            "server_ip": format!("10.0.0.{id}"), "server_ip_v4": format!("10.0.0.{id}"),
            "tcp_listen_addr": "[::]", "udp_listen_addr": "[::]", "interface_name": "", "is_remote": 0})
    };
    let chain = |id: i64, kind: &str, node: i64, port: Value| {
        json!({"id": id, "tunnel_id": 7, "chain_type": kind, "node_id": node, "port": port,
            "strategy": "fifo", "inx": 1, "protocol": "tls", "connect_ip": null})
    };
    let db = json!({
        "tunnel": {"id": 7, "name": "t7", "type": 2, "status": 1, "flow": 1, "traffic_ratio": 1.0,
            "protocol": "tls", "ip_preference": "", "in_ip": null, "inx": 0},
        "chain_tunnel": [chain(1, "1", 1, Value::Null), chain(2, "1", 2, Value::Null), chain(3, "3", 3, json!(30000))],
        "node": (1..=6).map(row).collect::<Vec<_>>(),
    });
    json!({"op": "apply", "input": {"db": db, "tunnelId": 7}})
}

#[test]
fn a_redeploy_syncs_every_forward_after_the_tunnel() {
    let r = run(json!([t7(), create(7), redeploy_t7()]));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    // redeployTunnelAndForwards (mutations.go:1617-1625): the tunnel, then each forward.
    let commands: Vec<_> = sent(&r, 2).into_iter().map(|c| (c.0, c.1)).collect();
    let mut want = vec![
        (1, "UpdateChains".to_string()),
        (2, "UpdateChains".to_string()),
        (3, "UpdateService".to_string()),
    ];
    for n in [1, 2] {
        want.extend(RESYNC.iter().map(|c| (n, c.to_string())));
    }
    assert_eq!(commands, want);
    // An input that brings its own forward tables is planned as given.
    let mut own = redeploy_t7();
    own["input"]["db"]["forward"] = json!([]);
    let r = run(json!([t7(), create(7), own]));
    assert_eq!(sent(&r, 2).len(), 3);
}

/// Two normal users' forwards on one tunnel: a tunnel edit re-syncs each
/// under its own owner's rows (`resolveUserTunnelAndLimiter` and the user's
/// `max_conn` per forward, control_plane.go:210, :291-295), so each keeps its
/// grant's name and its owner's connection limiter on the new entry.
#[test]
fn a_tunnel_edit_resyncs_each_forward_under_its_own_owners_rows() {
    let bob = json!({"id": 30, "roleId": 1, "maxConn": 4});
    let bobs_grant = json!({"id": 8, "user_id": 30, "tunnel_id": 7, "speed_id": null, "num": 0,
        "flow": 100, "in_flow": 0, "out_flow": 0, "exp_time": 0, "status": 1});
    let bob_creates = json!({"op": "forwardCreate", "user": bob, "userTunnel": bobs_grant,
        "forward": {"tunnelId": 7, "name": "db", "remoteAddr": "9.9.9.8:5432"}});
    let edit = json!({"op": "edit", "input": apply(7, 2, &[1, 6], 3)["input"]});
    let r = run(json!([t7(), alice_creates(), bob_creates, edit]));
    let node6: Vec<_> = sent(&r, 3)
        .into_iter()
        .filter(|c| c.0 == 6 && c.1 != "UpdateChains")
        .collect();
    let want = vec![
        cmd(6, "AddCLimiters", json!("user_conn_limit_20")),
        cmd(6, "UpdateService", pair("1_20_7")),
        cmd(6, "AddCLimiters", json!("user_conn_limit_30")),
        cmd(6, "UpdateService", pair("2_30_8")),
    ];
    assert_eq!(node6, want);
}
