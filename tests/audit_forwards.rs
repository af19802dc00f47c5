//! The whole-panel audit with forwards: each redeploy vector of
//! `forward-vectors.jsonl` is a panel of one tunnel; its database rows
//! (tunnel, chains, nodes, forwards, ports, speed limits, users, grants) are
//! audited as `hop-policy audit` reads a database. The audit must plan what
//! the redeploy path plans for the same rows with agents that hold nothing
//! and fresh providers, and where the vector itself says exactly that (no
//! agent state, no provider answers), what the upstream server sent.

use hop_policy::planner::{plan, PlanMode, PlanOptions};
use serde_json::{json, Value};
mod golden_vectors;
use golden_vectors::forward_vectors;

/// A redeploy vector's `db` as a panel's database dump: every table a list.
fn panel_database(db: &Value) -> Value {
    let mut tables = db.as_object().unwrap().clone();
    let tunnel = tables.remove("tunnel").unwrap();
    let rows = match tunnel {
        Value::Array(rows) => rows,
        Value::Null => vec![],
        row => vec![row],
    };
    tables.insert("tunnel".into(), Value::Array(rows));
    tables
        .entry("federation_tunnel_binding")
        .or_insert_with(|| json!([]));
    Value::Object(tables)
}

fn audited(panel: &Value) -> Vec<Value> {
    let text = hop_policy::api::audit_panel_json(&panel.to_string(), None).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// Whether the vector's agents hold nothing and answer as current ones do.
fn agents_hold_nothing(input: &Value) -> bool {
    input.get("agents").is_none_or(|agents| {
        agents.as_object().unwrap().values().all(|a| {
            ["services", "limiters", "climiters"].iter().all(|k| {
                a.get(*k)
                    .is_none_or(|l| l.as_array().is_some_and(Vec::is_empty))
            }) && a.get("legacy").is_none_or(|l| l == &json!(false))
        })
    })
}

#[test]
fn a_panel_audit_plans_each_tunnels_forwards_as_its_redeploy_does() {
    let vectors: Vec<Value> = forward_vectors()
        .into_iter()
        .filter(|v| v["mode"] == "redeploy")
        .collect();
    assert_eq!(vectors.len(), 150);
    let (mut same_as_server, mut with_forwards) = (0, 0);
    for v in &vectors {
        let input = &v["input"];
        let panel = panel_database(&input["db"]);
        let tunnels = audited(&panel);
        if input["db"]["tunnel"].is_null() {
            // No tunnel row: a panel without that tunnel has nothing to audit.
            assert_eq!(tunnels.len(), 0, "{}", v["name"]);
            continue;
        }
        assert_eq!(tunnels.len(), 1, "{}", v["name"]);
        let tunnel = &tunnels[0];
        // The same rows as a redeploy input, without what only a live panel knows.
        let bare = json!({"db": input["db"], "tunnelId": input["tunnelId"]});
        let plan = plan(&bare, &PlanOptions::along(PlanMode::Redeploy));
        let plan: Value = serde_json::from_str(&hop_policy::encode::to_string(&plan)).unwrap();
        assert_eq!(tunnel["plan"], plan, "{}", v["name"]);
        if plan["local"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["command"] == "UpdateService")
        {
            with_forwards += 1;
        }
        let provider_free = input["federation"]
            .as_object()
            .is_none_or(serde_json::Map::is_empty);
        if provider_free && agents_hold_nothing(input) {
            let expected = &v["expected"];
            assert_eq!(plan["error"]["message"], expected["error"], "{}", v["name"]);
            for key in ["local", "warnings", "db"] {
                assert_eq!(plan[key], expected[key], "{}: {key}", v["name"]);
            }
            same_as_server += 1;
        }
    }
    eprintln!(
        "{same_as_server} audits equal the server's answer; {with_forwards} sync forward services"
    );
    assert!(same_as_server >= 10, "{same_as_server}");
    assert!(with_forwards >= 100, "{with_forwards}");
}

/// A backup export carries forwards with their ports inline and camelCase
/// keys; the audit reads them as the database rows an import would store,
/// says what the export leaves out, and never prints a password.
#[test]
fn a_backup_exports_forwards_and_the_audit_syncs_them() {
    let backup = json!({
        "version": "1.0", "exportedAt": 1,
        "users": [{"id": 2, "user": "alice", "pwd": "hash-never-shown", "roleId": 1, "status": 1, "num": 10, "flow": 100, "expTime": 0}],
        "nodes": [
            {"id": 1, "name": "entry", "secret": "s1", "serverIp": "203.0.113.1", "port": "1000-2000", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]"},
            {"id": 2, "name": "exit", "secret": "s2", "serverIp": "203.0.113.2", "port": "1000-2000", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]"}
        ],
        "tunnels": [{"id": 7, "name": "t7", "type": 2, "protocol": "tls", "status": 1, "chainTunnels": [
            {"id": 1, "tunnelId": 7, "chainType": "1", "nodeId": 1},
            {"id": 2, "tunnelId": 7, "chainType": "3", "nodeId": 2, "port": 1500, "protocol": "tls", "strategy": "fifo"}
        ]}],
        "forwards": [{"id": 31, "userId": 2, "userName": "alice", "name": "web", "tunnelId": 7,
            "remoteAddr": "198.51.100.9:443", "strategy": "fifo", "status": 1, "inx": 0,
            "speedId": 4, "ipSpeedId": 0, "forwardPorts": [{"nodeId": 1, "port": 1200}], "proxyProtocol": 0}],
        "userTunnels": [{"id": 5, "userId": 2, "tunnelId": 7, "num": 5, "flow": 10, "expTime": 0, "status": 1}],
        "speedLimits": [{"id": 4, "name": "8M", "speed": 8, "status": 1}]
    });
    let text = backup.to_string();
    let out = hop_policy::api::audit_panel_json(&text, None).unwrap();
    assert!(!out.contains("hash-never-shown"));
    let tunnels: Value = serde_json::from_str(&out).unwrap();
    let t = &tunnels[0];
    let local = t["plan"]["local"].as_array().unwrap();
    let commands: Vec<(&str, &str)> = local
        .iter()
        .map(|c| {
            (
                c["command"].as_str().unwrap(),
                c["data"]["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The tunnel's own apply, then the forward's limiter and its service pair
    // on the entry (control_plane.go:234-378): 8 Mbit/s is "1.0MB" a second.
    assert!(commands.contains(&("AddLimiters", "4")), "{commands:?}");
    let limiter = local
        .iter()
        .find(|c| c["command"] == "AddLimiters")
        .unwrap();
    assert_eq!(limiter["data"]["limits"], json!(["$ 1.0MB 1.0MB"]));
    let services = local
        .iter()
        .find(|c| c["command"] == "UpdateService")
        .unwrap();
    let names: Vec<&str> = services["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["31_2_5_tcp", "31_2_5_udp"]);
    assert_eq!(services["data"][0]["addr"], "[::]:1200");
    assert_eq!(services["data"][0]["handler"]["chain"], "chains_7");
    assert_eq!(services["data"][0]["limiter"], "4");
    assert_eq!(
        t["plan"]["db"]["forward_port"],
        json!([{"id": 1, "forward_id": 31, "node_id": 1, "port": 1200, "in_ip": null}])
    );
    let assumed = t["assumed"].as_array().unwrap();
    assert!(
        assumed
            .iter()
            .any(|a| a.as_str().unwrap().contains("forward_port.in_ip")),
        "{assumed:?}"
    );
    // One target over a one-node first hop: no FO001; the per-IP limiter is absent.
    let codes: Vec<&str> = t["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"FO001"), "{codes:?}");
    // The split-out redeploy input carries the forward tables; checking it alone agrees.
    let inputs: Value =
        serde_json::from_str(&hop_policy::api::backup_tunnels_json(&text, None).unwrap()).unwrap();
    let input = &inputs[0]["input"];
    assert_eq!(
        input["db"]["user"],
        json!([{"id": 2, "role_id": 1, "user": "alice", "max_conn": 0, "status": 1, "exp_time": 0, "flow": 100, "in_flow": 0, "out_flow": 0, "num": 10}])
    );
    let one =
        hop_policy::api::check_tunnel_json(&input.to_string(), Some(r#"{"mode":"redeploy"}"#))
            .unwrap();
    let one: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["plan"], t["plan"]);
    assert_eq!(one["findings"], t["findings"]);
}

/// Two tunnels on one node: a forward of a port-forward tunnel (type 1)
/// listening on the port the other tunnel's exit relays on (upstream #313).
fn two_tunnels_on_node_1(forward_port: i64) -> Value {
    let node = |id: i64| json!({"id": id, "name": format!("n{id}"), "secret": "s", "serverIp": format!("203.0.113.{id}"), "port": "1000-2000", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]"});
    json!({
        "version": "1.0", "exportedAt": 1,
        "nodes": [node(1), node(2)],
        "tunnels": [
            {"id": 5, "name": "direct", "type": 1, "protocol": "tls", "status": 1, "chainTunnels": [
                {"id": 1, "tunnelId": 5, "chainType": "1", "nodeId": 1}]},
            {"id": 6, "name": "relayed", "type": 2, "protocol": "tls", "status": 1, "chainTunnels": [
                {"id": 2, "tunnelId": 6, "chainType": "1", "nodeId": 2},
                {"id": 3, "tunnelId": 6, "chainType": "3", "nodeId": 1, "port": 1200, "protocol": "tls", "strategy": "fifo"}]}
        ],
        "forwards": [{"id": 9, "userId": 1, "userName": "admin", "name": "f9", "tunnelId": 5,
            "remoteAddr": "198.51.100.9:443", "strategy": "fifo", "status": 1,
            "forwardPorts": [{"nodeId": 1, "port": forward_port}]}]
    })
}

fn lk004(tunnel: &Value) -> Vec<(String, String)> {
    tunnel["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LK004")
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// LK004 across the panel: each tunnel is told which service of which
/// other tunnel holds its port on that node; a port apart is no clash, and
/// each tunnel checked alone sees nothing.
#[test]
fn the_audit_finds_services_of_two_tunnels_on_one_port() {
    let clash = two_tunnels_on_node_1(1200).to_string();
    let tunnels: Value =
        serde_json::from_str(&hop_policy::api::audit_panel_json(&clash, None).unwrap()).unwrap();
    let (direct, relayed) = (lk004(&tunnels[0]), lk004(&tunnels[1]));
    assert_eq!(direct.len(), 1, "{direct:?}");
    assert_eq!(relayed.len(), 1, "{relayed:?}");
    let (path, message) = &direct[0];
    assert!(
        path.starts_with("/local/") && path.ends_with("/addr"),
        "{path}"
    );
    assert!(
        message.contains("\"9_1_0_tcp\"") && message.contains("TCP port 1200 of node 1"),
        "{message}"
    );
    assert!(message.contains("of tunnel \"relayed\" (#6)"), "{message}");
    assert!(
        relayed[0].1.contains("of tunnel \"direct\" (#5)"),
        "{}",
        relayed[0].1
    );
    // Checked alone, neither tunnel has the clash.
    let inputs: Value =
        serde_json::from_str(&hop_policy::api::backup_tunnels_json(&clash, None).unwrap()).unwrap();
    for t in inputs.as_array().unwrap() {
        let one = hop_policy::api::check_tunnel_json(
            &t["input"].to_string(),
            Some(r#"{"mode":"redeploy"}"#),
        )
        .unwrap();
        let one: Value = serde_json::from_str(&one).unwrap();
        assert!(lk004(&one).is_empty());
    }
    // A port apart: no clash.
    let apart = two_tunnels_on_node_1(1201).to_string();
    let tunnels: Value =
        serde_json::from_str(&hop_policy::api::audit_panel_json(&apart, None).unwrap()).unwrap();
    assert!(tunnels
        .as_array()
        .unwrap()
        .iter()
        .all(|t| lk004(t).is_empty()));
}
