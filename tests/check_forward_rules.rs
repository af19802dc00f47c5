//! The rules on forward services and what services of one node share
//! (FO001 on forwards, FO006, LK004, LK005): each raised by a document and
//! left alone by its near misses.

use hop_policy::check::{check, CheckOptions, CheckReport};
use hop_policy::finding::Severity;
use serde_json::{json, Value};

fn run(doc: &Value) -> CheckReport {
    check(doc, &CheckOptions::default())
}

fn found<'r>(r: &'r CheckReport, code: &str) -> Vec<&'r hop_policy::Finding> {
    r.findings.iter().filter(|f| f.code == code).collect()
}

/// An entry node's config: the tunnel's chain `chains_7` (first hop of
/// `hop_nodes` middles) and one forward service pair on port 40001 with
/// `targets`.
fn entry_config(hop_nodes: u32, targets: &[&str]) -> Value {
    let node = |i: u32| {
        json!({"name": format!("node_{i}"), "addr": format!("198.51.100.{i}:44010"),
               "connector": {"type": "relay"}, "dialer": {"type": "tls"}})
    };
    let forwarder = json!({
        "nodes": targets.iter().enumerate()
            .map(|(i, t)| json!({"name": format!("node_{}", i + 1), "addr": t}))
            .collect::<Vec<_>>(),
        "selector": {"strategy": "fifo", "maxFails": 1, "failTimeout": "600s"}
    });
    let service = |proto: &str| {
        json!({
            "name": format!("12_5_3_{proto}"), "addr": "[::]:40001",
            "listener": {"type": proto},
            "handler": {"type": proto, "chain": "chains_7"},
            "forwarder": forwarder.clone(),
        })
    };
    json!({
        "services": [service("tcp"), service("udp")],
        "chains": [{
            "name": "chains_7",
            "hops": [{"name": "hop_7",
                      "selector": {"strategy": "fifo", "maxFails": 1, "failTimeout": 600000000000u64},
                      "nodes": (1..=hop_nodes).map(node).collect::<Vec<_>>()}]
        }]
    })
}

// ---------- FO001 on forward services ----------

/// One target over a first hop of three: the handler's one try reaches one
/// candidate, so the first connection after it dies fails.
#[test]
fn fo001_a_forward_with_one_target_over_a_wide_first_hop() {
    let r = run(&entry_config(3, &["203.0.113.50:443"]));
    let f = found(&r, "FO001");
    assert_eq!(f.len(), 2, "{:#?}", r.findings);
    assert_eq!(f[0].path, "/services/0/handler");
    assert_eq!(f[0].severity, Severity::Error);
    assert!(f[0].message.contains("forward service \"12_5_3_tcp\""));
    assert!(f[0]
        .message
        .contains("the first connection after the chosen node dies fails"));
    assert!(f[0].message.contains("The repair is the server's"));
    assert!(f[0].message_zh.contains("转发服务"));
    let fix = f[0].fix.as_ref().expect("a fix");
    assert_eq!(fix.path, "/services/0/handler/retries");
    assert_eq!(fix.value, json!(2));

    // The fix applied: clean.
    let mut doc = entry_config(3, &["203.0.113.50:443"]);
    doc["services"][0]["handler"]["retries"] = json!(2);
    doc["services"][1]["handler"]["retries"] = json!(2);
    assert!(found(&run(&doc), "FO001").is_empty());
}

/// The handler's target tries count: three targets, one try each, reach
/// all three first-hop candidates (no FO001; FO006 instead); two targets
/// over three candidates need one router retry (ceil(3 / 2) - 1).
#[test]
fn fo001_counts_the_handlers_target_tries() {
    let r = run(&entry_config(
        3,
        &["203.0.113.50:443", "203.0.113.51:443", "203.0.113.52:443"],
    ));
    assert!(found(&r, "FO001").is_empty(), "{:#?}", r.findings);
    let r = run(&entry_config(3, &["203.0.113.50:443", "203.0.113.51:443"]));
    let f = found(&r, "FO001");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].fix.as_ref().unwrap().value, json!(1));
    // maxRetries 1 limits the handler to one target.
    let mut doc = entry_config(
        3,
        &["203.0.113.50:443", "203.0.113.51:443", "203.0.113.52:443"],
    );
    doc["services"][0]["handler"]["metadata"] = json!({"maxRetries": 1});
    let f = found(&run(&doc), "FO001").len();
    assert_eq!(f, 1);
}

/// Near miss: a first hop of one node has no backup to reach.
#[test]
fn fo001_not_on_a_single_node_first_hop() {
    let r = run(&entry_config(1, &["203.0.113.50:443"]));
    assert!(found(&r, "FO001").is_empty(), "{:#?}", r.findings);
}

// ---------- FO006 ----------

#[test]
fn fo006_two_targets_over_a_tunnel_are_blacked_out_by_a_dead_node() {
    let r = run(&entry_config(1, &["203.0.113.50:443", "203.0.113.51:443"]));
    let f = found(&r, "FO006");
    assert_eq!(f.len(), 2, "{:#?}", r.findings);
    assert_eq!(f[0].severity, Severity::Warning);
    assert_eq!(f[0].path, "/services/0/forwarder");
    let m = &f[0].message;
    assert!(m.contains("203.0.113.50:443, 203.0.113.51:443"), "{m}");
    // The hop's only node, named by its address (a config has no node table).
    assert!(m.contains("when 198.51.100.1:44010 dies"), "{m}");
    assert!(m.contains("failTimeout 10m0s"), "{m}");
    assert!(f[0].message_zh.contains("10m0s"));
}

/// The seed with two targets: the plan's node table names the federated
/// middle, the only node of its hop.
#[test]
fn fo006_names_tunnel_nodes_from_the_plan() {
    let text = std::fs::read_to_string("examples/tunnel-with-forwards.json").unwrap();
    let report = hop_policy::api::check_tunnel_json(&text, None).unwrap();
    let report: Value = serde_json::from_str(&report).unwrap();
    let fo006: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "FO006")
        .collect();
    assert_eq!(fo006.len(), 2);
    let m = fo006[0]["message"].as_str().unwrap();
    assert!(m.contains("when node 2 (198.51.100.12) dies"), "{m}");
    // The tunnel the request does not send is context, not a dangling chain.
    assert!(!report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "FO004"));
}

/// Near misses: one target is never filtered; without a chain (a type-1
/// tunnel) the target's own dial failing is the target's fault.
#[test]
fn fo006_not_for_one_target_or_no_tunnel() {
    let r = run(&entry_config(2, &["203.0.113.50:443"]));
    assert!(found(&r, "FO006").is_empty());
    let mut doc = entry_config(2, &["203.0.113.50:443", "203.0.113.51:443"]);
    for s in doc["services"].as_array_mut().unwrap() {
        s["handler"].as_object_mut().unwrap().remove("chain");
    }
    assert!(found(&run(&doc), "FO006").is_empty());
}

// ---------- LK004 ----------

fn listener(name: &str, addr: &str, kind: &str) -> Value {
    json!({"name": name, "addr": addr, "listener": {"type": kind}, "handler": {"type": "relay"}})
}

fn commands(services: &[(i64, Value)]) -> Value {
    Value::Array(
        services
            .iter()
            .map(|(node, s)| json!({"nodeId": node, "command": "AddService", "data": [s]}))
            .collect(),
    )
}

#[test]
fn lk004_two_services_on_one_port_of_a_node() {
    let doc = commands(&[
        (1, listener("tunnel_7", "[::]:44010", "tls")),
        (1, listener("12_5_3_tcp", "[::]:44010", "tcp")),
    ]);
    let r = run(&doc);
    let f = found(&r, "LK004");
    assert_eq!(f.len(), 1, "{:#?}", r.findings);
    assert_eq!(f[0].path, "/1/data/0/addr");
    assert_eq!(f[0].node_id, Some(1));
    assert!(f[0].message.contains("\"tunnel_7\""));
    // A wildcard clashes with a specific address too.
    let doc = commands(&[
        (1, listener("a", "203.0.113.1:44010", "tls")),
        (1, listener("b", ":44010", "tcp")),
    ]);
    assert_eq!(found(&run(&doc), "LK004").len(), 1);
}

#[test]
fn lk004_near_misses() {
    // TCP and UDP of one forward share the port; kcp binds UDP.
    let pairs = [
        [
            listener("f_tcp", "[::]:40001", "tcp"),
            listener("f_udp", "[::]:40001", "udp"),
        ],
        [
            listener("t", "[::]:40001", "tls"),
            listener("k", "[::]:40001", "kcp"),
        ],
        // Two specific addresses.
        [
            listener("a", "203.0.113.1:40001", "tcp"),
            listener("b", "203.0.113.2:40001", "tcp"),
        ],
        // One service replaced (an update after an add).
        [
            listener("same", "[::]:40001", "tcp"),
            listener("same", "[::]:40001", "tcp"),
        ],
    ];
    for [a, b] in pairs {
        let r = run(&commands(&[(1, a.clone()), (1, b.clone())]));
        assert!(found(&r, "LK004").is_empty(), "{a} {b}: {:#?}", r.findings);
    }
    // Different nodes.
    let doc = commands(&[
        (1, listener("a", "[::]:40001", "tcp")),
        (2, listener("b", "[::]:40001", "tcp")),
    ]);
    assert!(found(&run(&doc), "LK004").is_empty());
}

// ---------- LK005 ----------

/// A plan of one forward pair naming `limiter` and `climiter`, after the
/// limiter commands `sent`.
fn forward_plan(sent: Vec<Value>) -> Value {
    let mut local = sent;
    let mut svc = listener("12_5_3_tcp", "[::]:40001", "tcp");
    svc["limiter"] = json!("2");
    svc["climiter"] = json!("user_conn_limit_5, rule_conn_limit_12");
    local.push(json!({"nodeId": 1, "command": "UpdateService", "data": [svc]}));
    json!({"error": null, "federation": [], "local": local, "mode": "forward-create"})
}

fn limiter_cmd(command: &str, name: &str, failed: Option<&str>) -> Value {
    let data = if command.starts_with("Update") {
        json!({"limiter": name, "data": {"name": name, "limits": ["$ 10"]}})
    } else {
        json!({"name": name, "limits": ["$ 10"]})
    };
    let mut c = json!({"nodeId": 1, "command": command, "data": data});
    if let Some(f) = failed {
        c["failed"] = json!(f);
    }
    c
}

#[test]
fn lk005_a_limiter_the_node_is_never_sent() {
    let r = run(&forward_plan(vec![]));
    let f = found(&r, "LK005");
    assert_eq!(f.len(), 3, "{:#?}", r.findings);
    let traffic = f
        .iter()
        .find(|f| f.path == "/local/0/data/0/limiter")
        .unwrap();
    // A missing numeric traffic limiter becomes a limit of that many bytes.
    assert!(
        traffic.message.contains("2 bytes per second"),
        "{}",
        traffic.message
    );
    let conn: Vec<&str> = f
        .iter()
        .filter(|f| f.path == "/local/0/data/0/climiter")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(conn.len(), 2);
    for name in ["\"user_conn_limit_5\"", "\"rule_conn_limit_12\""] {
        assert!(conn.iter().any(|m| m.contains(name)), "{conn:?}");
    }

    // The relayed remote entry: the provider refuses AddCLimiters.
    let r = run(&forward_plan(vec![
        limiter_cmd("AddLimiters", "2", None),
        limiter_cmd(
            "AddCLimiters",
            "user_conn_limit_5",
            Some("command not allowed"),
        ),
        limiter_cmd(
            "AddCLimiters",
            "rule_conn_limit_12",
            Some("command not allowed"),
        ),
    ]));
    let f = found(&r, "LK005");
    assert_eq!(f.len(), 2, "{:#?}", r.findings);
    assert!(f[0]
        .message
        .contains("connection limit silently does not apply"));
}

#[test]
fn lk005_near_misses() {
    // Sent, updated, or refused because the node already has it.
    let r = run(&forward_plan(vec![
        limiter_cmd("AddLimiters", "2", Some("limiter 2 already exists")),
        limiter_cmd("UpdateLimiters", "2", None),
        limiter_cmd("AddCLimiters", "user_conn_limit_5", None),
        limiter_cmd(
            "AddCLimiters",
            "rule_conn_limit_12",
            Some("conn limiter rule_conn_limit_12 already exists"),
        ),
    ]));
    assert!(found(&r, "LK005").is_empty(), "{:#?}", r.findings);
    // A bare command list may be part of a sync: limiters are not judged.
    let list = forward_plan(vec![])["local"].clone();
    assert!(found(&run(&list), "LK005").is_empty());
    // A node config lists its limiters.
    let config = json!({
        "services": [{"name": "s", "addr": ":1", "limiter": "2", "climiter": "c", "handler": {"type": "tcp"}}],
        "limiters": [{"name": "2", "limits": ["$ 1MB"]}],
        "climiters": [{"name": "c", "limits": ["$ 10"]}],
    });
    assert!(found(&run(&config), "LK005").is_empty());
    let mut config = config;
    config["climiters"] = json!([]);
    assert_eq!(found(&run(&config), "LK005").len(), 1);
}
