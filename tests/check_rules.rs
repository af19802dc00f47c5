//! Every rule: one document that must raise it and a near miss that must not.

use hop_policy::check::{check, check_text, CheckOptions, CheckReport};
use hop_policy::finding::Severity;
use serde_json::{json, Value};
mod golden_vectors;
use golden_vectors::vector;

/// Seed: local entry 1 -> federated middle 2 (runtime 31, port 44010) -> local exits 3, 4, 5.
fn seed_plan() -> Value {
    vector("seed-federated-middle-fifo-3-exits")["expected"].clone()
}

fn run(doc: &Value) -> CheckReport {
    check(doc, &CheckOptions::default())
}

fn codes(r: &CheckReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

fn has(r: &CheckReport, code: &str) -> bool {
    r.findings.iter().any(|f| f.code == code)
}

fn at<'r>(r: &'r CheckReport, code: &str, path: &str) -> &'r hop_policy::Finding {
    r.findings
        .iter()
        .find(|f| f.code == code && f.path == path)
        .unwrap_or_else(|| panic!("{} at {} in {:#?}", code, path, r.findings))
}

/// One node's config: a middle service with a three-node chain.
fn middle_config() -> Value {
    let node = |i: u32, port: u32| {
        json!({"name": format!("node_{}", i), "addr": format!("203.0.113.{}:{}", i, port),
               "connector": {"type": "relay"}, "dialer": {"type": "tls"}})
    };
    json!({
        "services": [{
            "name": "tunnel_7", "addr": "[::]:44010",
            "listener": {"type": "tls"},
            "handler": {"type": "relay", "chain": "chains_7", "retries": 2}
        }],
        "chains": [{
            "name": "chains_7",
            "hops": [{"name": "hop_7",
                      "selector": {"strategy": "fifo", "maxFails": 1, "failTimeout": 600000000000u64},
                      "nodes": [node(3, 45001), node(4, 45002), node(5, 45003)]}]
        }]
    })
}

/// Clean but for FO005: a middle with several exits can always fail open
/// (every exit marked failed), which the checker says once per such hop.
#[test]
fn clean_documents_have_only_the_direct_egress_warning() {
    let r = run(&middle_config());
    assert_eq!(r.summary.kind, "config");
    assert_eq!(codes(&r), ["FO005"], "{:#?}", r.findings);
    let r = run(&vector("seed-local-middle-fifo-3-exits")["expected"]);
    assert_eq!(codes(&r), ["FO005"], "{:#?}", r.findings);
}

// ---------- AC ----------

#[test]
fn ac001_decode_type() {
    let mut doc = middle_config();
    doc["services"][0]["handler"]["retries"] = json!("2");
    let r = run(&doc);
    let f = at(&r, "AC001", "/services/0/handler/retries");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.rule, "decode-type");

    let mut doc = middle_config();
    doc["chains"][0]["hops"][0]["selector"]["maxFails"] = json!(1.5);
    doc["services"][0]["name"] = json!(3);
    let r = run(&doc);
    at(&r, "AC001", "/chains/0/hops/0/selector/maxFails");
    at(&r, "AC001", "/services/0/name");

    // Near miss: integers and strings where Go expects them; unknown keys ignored.
    let mut doc = middle_config();
    doc["services"][0]["handler"]["retries"] = json!(2);
    doc["services"][0]["unknownKey"] = json!([1, "x"]);
    doc["services"][0]["handler"]["metadata"] = json!({"anything": [1.5, "x"]});
    assert!(!has(&run(&doc), "AC001"));
}

#[test]
fn ac001_in_commands_and_plans() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]["retries"] = json!(2.0);
    let r = run(&plan);
    let f = at(
        &r,
        "AC001",
        "/federation/0/commands/1/data/0/handler/retries",
    );
    assert_eq!(f.node_id, Some(2));
    // AddService data must be a list.
    let cmds = json!([{"nodeId": 9, "command": "AddService", "data": {"name": "x", "addr": ":1"}}]);
    let r = run(&cmds);
    assert_eq!(r.summary.kind, "commands");
    at(&r, "AC001", "/0/data");
}

#[test]
fn ac002_chain_duration_string() {
    let mut doc = middle_config();
    doc["chains"][0]["hops"][0]["selector"]["failTimeout"] = json!("600s");
    let r = run(&doc);
    let f = at(&r, "AC002", "/chains/0/hops/0/selector/failTimeout");
    assert!(f.message.contains("600000000000"), "{}", f.message);
    assert!(!has(&r, "AC001"));
    // Near miss: the same string on a service selector is converted by the agent.
    let mut doc = middle_config();
    doc["services"][0]["forwarder"] = json!({"selector": {"strategy": "fifo", "failTimeout": "600s"},
                                             "nodes": [{"name": "a", "addr": "203.0.113.9:80"}]});
    let r = run(&doc);
    assert!(
        !has(&r, "AC002") && !has(&r, "AC001") && !has(&r, "AC003"),
        "{:#?}",
        r.findings
    );
}

#[test]
fn ac003_bad_duration() {
    let mut doc = middle_config();
    doc["services"][0]["forwarder"] = json!({"selector": {"failTimeout": "10 minutes"}});
    let r = run(&doc);
    at(&r, "AC003", "/services/0/forwarder/selector/failTimeout");
    let mut doc = middle_config();
    doc["services"][0]["forwarder"] = json!({"selector": {"failTimeout": "1m30s"}});
    assert!(!has(&run(&doc), "AC003"));
}

#[test]
fn ac004_unknown_strategy() {
    for bad in ["FIFO", "best", " fifo", "roundrobin"] {
        let mut doc = middle_config();
        doc["chains"][0]["hops"][0]["selector"]["strategy"] = json!(bad);
        let r = run(&doc);
        let f = at(&r, "AC004", "/chains/0/hops/0/selector/strategy");
        assert_eq!(f.severity, Severity::Warning);
    }
    for good in ["round", "rr", "rand", "random", "fifo", "ha", "hash"] {
        let mut doc = middle_config();
        doc["chains"][0]["hops"][0]["selector"]["strategy"] = json!(good);
        assert!(!has(&run(&doc), "AC004"), "{}", good);
    }
}

#[test]
fn ac005_bad_listen_addr() {
    for bad in [
        ":::44014",
        "0.0.0.0",
        "0.0.0.0:70000",
        "[::]:port",
        "2001:db8::9:44010",
        "",
    ] {
        let mut doc = middle_config();
        doc["services"][0]["addr"] = json!(bad);
        let r = run(&doc);
        at(&r, "AC005", "/services/0/addr");
    }
    for good in [
        "[::]:44014",
        ":44014",
        "0.0.0.0:44014",
        "[2001:db8::9]:1",
        "10.0.0.9:65535",
    ] {
        let mut doc = middle_config();
        doc["services"][0]["addr"] = json!(good);
        assert!(!has(&run(&doc), "AC005"), "{}", good);
    }
}

#[test]
fn ac006_bad_dial_addr() {
    for bad in [
        "203.0.113.3",
        "203.0.113.3:443:45001",
        ":45001",
        "203.0.113.3:0",
        "2001:db8::3:45001",
    ] {
        let mut doc = middle_config();
        doc["chains"][0]["hops"][0]["nodes"][0]["addr"] = json!(bad);
        let r = run(&doc);
        at(&r, "AC006", "/chains/0/hops/0/nodes/0/addr");
    }
    for good in [
        "[2001:db8::3]:45001",
        "relay.example.com:443",
        "203.0.113.3:45001",
    ] {
        let mut doc = middle_config();
        doc["chains"][0]["hops"][0]["nodes"][0]["addr"] = json!(good);
        assert!(!has(&run(&doc), "AC006"), "{}", good);
    }
}

// ---------- FO ----------

#[test]
fn fo001_missing_retries_with_fix() {
    let mut doc = middle_config();
    doc["services"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&doc);
    let f = at(&r, "FO001", "/services/0/handler");
    assert_eq!(f.severity, Severity::Error);
    let fix = f.fix.as_ref().expect("fix");
    assert_eq!(
        (fix.op.as_str(), fix.path.as_str(), &fix.value),
        ("set", "/services/0/handler/retries", &json!(2))
    );
    // retries 1 of 3 is still short.
    let mut doc = middle_config();
    doc["services"][0]["handler"]["retries"] = json!(1);
    assert_eq!(
        at(&run(&doc), "FO001", "/services/0/handler")
            .fix
            .as_ref()
            .map(|f| f.value.clone()),
        Some(json!(2))
    );
    // Near miss: enough retries; a single-node hop needs none.
    assert!(!has(&run(&middle_config()), "FO001"));
    let mut doc = middle_config();
    doc["services"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    if let Some(n) = doc["chains"][0]["hops"][0]["nodes"].as_array_mut() {
        n.truncate(1);
    }
    assert!(!has(&run(&doc), "FO001"));
}

#[test]
fn fo001_on_the_seed_plan_without_retries() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&plan);
    let f = at(&r, "FO001", "/federation/0/commands/1/data/0/handler");
    assert_eq!(f.node_id, Some(2));
    assert_eq!(
        f.fix.as_ref().map(|x| x.path.as_str()),
        Some("/federation/0/commands/1/data/0/handler/retries")
    );
    assert_eq!(f.fix.as_ref().map(|x| x.value.clone()), Some(json!(2)));
    assert!(!f.message_zh.is_empty() && f.message_zh != f.message);
}

#[test]
fn fo002_retries_without_chain() {
    let doc = json!({"services": [{"name": "exit", "addr": ":45001", "listener": {"type": "tls"},
                                   "handler": {"type": "relay", "retries": 1}}]});
    let r = run(&doc);
    assert_eq!(
        at(&r, "FO002", "/services/0/handler/retries").severity,
        Severity::Warning
    );
    let doc = json!({"services": [{"name": "exit", "addr": ":45001", "handler": {"type": "relay", "retries": 0}}]});
    assert!(!has(&run(&doc), "FO002"));
}

#[test]
fn fo003_excess_retries() {
    let mut doc = middle_config();
    doc["services"][0]["handler"]["retries"] = json!(5);
    let r = run(&doc);
    assert_eq!(
        at(&r, "FO003", "/services/0/handler/retries").severity,
        Severity::Info
    );
    assert!(!has(&run(&middle_config()), "FO003"));
}

#[test]
fn fo004_dangling_chain() {
    let mut doc = middle_config();
    doc["services"][0]["handler"]["chain"] = json!("chains_8");
    let r = run(&doc);
    at(&r, "FO004", "/services/0/handler/chain");
    assert!(!has(&r, "FO001"));
    assert!(!has(&run(&middle_config()), "FO004"));
    // In a plan the chain must come to the same node: move the federated chain to another node.
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][0]["nodeId"] = json!(99);
    at(
        &run(&plan),
        "FO004",
        "/federation/0/commands/1/data/0/handler/chain",
    );
}

#[test]
fn fo005_direct_egress() {
    let r = run(&middle_config());
    let f = at(&r, "FO005", "/chains/0/hops/0");
    // A known risk of GOST's design, with its mitigation: it does not make
    // the verdict worse.
    assert_eq!(f.severity, hop_policy::Severity::Info);
    assert!(f
        .message
        .contains("mitigation: let that node connect out only to the hop's nodes"));
    assert!(
        f.message
            .contains("all 3 nodes of hop \"hop_7\" of chain \"chains_7\"")
            && f.message.contains("this node dials the destination itself")
            && f.message.contains("until failTimeout 10m0s passes"),
        "{}",
        f.message
    );
    assert!(f.message_zh.contains("10m0s"), "{}", f.message_zh);
    // No selector timeout: GOST's default, said as such.
    let mut doc = middle_config();
    doc["chains"][0]["hops"][0]["selector"]
        .as_object_mut()
        .unwrap()
        .remove("failTimeout");
    let f = at(&run(&doc), "FO005", "/chains/0/hops/0").message.clone();
    assert!(f.contains("failTimeout 10s, GOST's default"), "{f}");
    // A hop of one node is never filtered empty.
    let mut doc = middle_config();
    let first = doc["chains"][0]["hops"][0]["nodes"][0].clone();
    doc["chains"][0]["hops"][0]["nodes"] = json!([first]);
    doc["services"][0]["handler"]["retries"] = json!(0);
    assert!(!has(&run(&doc), "FO005"));
    // A chain no service routes through is not a route.
    let mut doc = middle_config();
    doc["services"][0]["handler"]["chain"] = json!("chains_8");
    assert!(!has(&run(&doc), "FO005"));
    // A tunnel's plan has a node table: the node is named with its address
    // (the federated middle, node 2).
    let r = run(&vector("seed-federated-middle-fifo-3-exits")["input"]);
    let f = r
        .findings
        .iter()
        .find(|f| f.code == "FO005")
        .expect("the seed's middle can fail open");
    assert_eq!(f.node_id, Some(2));
    assert!(f.message.contains("node 2 ("), "{}", f.message);
}

// ---------- LK ----------

#[test]
fn lk001_dangling_target_by_port() {
    let mut plan = seed_plan();
    // The entry's chain dials the federated middle on a port nothing listens on.
    plan["local"][0]["data"]["hops"][0]["nodes"][0]["addr"] = json!("198.51.100.12:44999");
    let r = run(&plan);
    let f = at(&r, "LK001", "/local/0/data/hops/0/nodes/0/addr");
    assert_eq!(f.node_id, Some(1));
    assert!(!has(&run(&seed_plan()), "LK001"));
}

#[test]
fn lk001_dangling_target_by_node_table() {
    let mut plan = seed_plan();
    plan["nodes"] = json!([
        {"nodeId": 2, "addresses": ["198.51.100.12"], "port": 44010},
        {"nodeId": 3, "addresses": ["203.0.113.3"], "port": 45001},
        {"nodeId": 4, "addresses": ["203.0.113.4"], "port": 45002},
        {"nodeId": 5, "addresses": ["203.0.113.5"], "port": 45003}
    ]);
    assert!(!has(&run(&plan), "LK001"));
    // Node 3's host at node 4's port: a service listens on that port, but not on node 3.
    plan["federation"][0]["commands"][0]["data"]["hops"][0]["nodes"][0]["addr"] =
        json!("203.0.113.3:45002");
    let r = run(&plan);
    let f = at(
        &r,
        "LK001",
        "/federation/0/commands/0/data/hops/0/nodes/0/addr",
    );
    assert_eq!(f.node_id, Some(2));
    // A host outside the tunnel is not this plan's business.
    plan["federation"][0]["commands"][0]["data"]["hops"][0]["nodes"][0]["addr"] =
        json!("192.0.2.1:45002");
    assert!(!has(&run(&plan), "LK001"));
}

#[test]
fn lk002_protocol_mismatch() {
    let mut plan = seed_plan();
    plan["local"][1]["data"][0]["listener"]["type"] = json!("mtls"); // exit 3
    let r = run(&plan);
    let f = at(
        &r,
        "LK002",
        "/federation/0/commands/0/data/hops/0/nodes/0/dialer/type",
    );
    assert_eq!(f.node_id, Some(2));
    assert_eq!(r.findings.iter().filter(|f| f.code == "LK002").count(), 1);
    assert!(!has(&run(&seed_plan()), "LK002"));
}

#[test]
fn lk003_mux_mismatch() {
    // The federated middle's short connector metadata vs the local exits' full handler metadata.
    let r = run(&seed_plan());
    let f = at(
        &r,
        "LK003",
        "/federation/0/commands/0/data/hops/0/nodes/0/connector",
    );
    assert_eq!(f.severity, Severity::Info);
    assert!(f.message.contains("mux.maxFrameSize"), "{}", f.message);
    // Near miss: local to local, same builder on both ends.
    let r = run(&vector("seed-local-middle-fifo-3-exits")["expected"]);
    assert!(!has(&r, "LK003"));
}

// ---------- PA ----------

#[test]
fn pa001_retries_parity() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&plan);
    let f = at(&r, "PA001", "/federation/0/commands/1/data/0/handler");
    assert_eq!(f.node_id, Some(2));
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]["retries"] = json!(4);
    at(
        &run(&plan),
        "PA001",
        "/federation/0/commands/1/data/0/handler",
    );
    assert!(!has(&run(&seed_plan()), "PA001"));
}

#[test]
fn pa002_selector_parity() {
    for (field, value) in [
        ("strategy", json!("round")),
        ("maxFails", json!(3)),
        ("failTimeout", json!(10_000_000_000u64)),
    ] {
        let mut plan = seed_plan();
        plan["federation"][0]["commands"][0]["data"]["hops"][0]["selector"][field] = value;
        let r = run(&plan);
        let f = at(&r, "PA002", "/federation/0/commands/0/data/hops/0/selector");
        assert!(f.message.contains(field), "{}", f.message);
    }
    assert!(!has(&run(&seed_plan()), "PA002"));
}

/// The seed plan with the federated commands carrying the local builder's metadata.
fn seed_plan_full_metadata() -> Value {
    let mut plan = seed_plan();
    let full = json!({"nodelay": true, "mux.keepaliveInterval": "15s", "mux.keepaliveTimeout": "45s",
                      "mux.maxFrameSize": 32768, "mux.maxStreamBuffer": 2097152});
    for n in plan["federation"][0]["commands"][0]["data"]["hops"][0]["nodes"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        n["connector"]["metadata"] = full.clone();
    }
    plan["federation"][0]["commands"][1]["data"][0]["handler"]["metadata"] = full;
    plan
}

#[test]
fn pa003_metadata_parity() {
    let r = run(&seed_plan());
    assert_eq!(
        at(&r, "PA003", "/federation/0/commands/1/data/0/handler").severity,
        Severity::Info
    );
    let f = at(
        &r,
        "PA003",
        "/federation/0/commands/0/data/hops/0/nodes/2/connector",
    );
    assert!(
        f.message.contains("mux.maxFrameSize") && f.message.contains("mux.maxStreamBuffer"),
        "{}",
        f.message
    );
    assert_eq!(r.findings.iter().filter(|f| f.code == "PA003").count(), 4);
    // Near miss: same metadata as the local builder.
    let r = run(&seed_plan_full_metadata());
    assert!(!has(&r, "PA003"), "{:#?}", r.findings);
    assert!(!has(&r, "LK003"), "{:#?}", r.findings);
}

#[test]
fn pa004_listen_addr_parity() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["addr"] = json!(":::44010");
    let r = run(&plan);
    let f = at(&r, "PA004", "/federation/0/commands/1/data/0/addr");
    assert!(f.message.contains("[::]:44010"), "{}", f.message);
    at(&r, "AC005", "/federation/0/commands/1/data/0/addr");
    assert!(!has(&r, "LK001"), "the dialed port is still the service's");
    assert!(!has(&run(&seed_plan()), "PA004"));
}

#[test]
fn pa005_interface_parity() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["metadata"] = json!({"interface": "eth1"});
    let r = run(&plan);
    at(&r, "PA005", "/federation/0/commands/0/data/hops/0");
    // Near miss: on the hop, where the local builder puts it for a middle.
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][0]["data"]["hops"][0]["interface"] = json!("eth1");
    assert!(!has(&run(&plan), "PA005"));
    assert!(!has(&run(&seed_plan()), "PA005"));
}

#[test]
fn pa_in_a_config_recognises_federated_names() {
    let mut doc = middle_config();
    doc["services"][0]["name"] = json!("fed_svc_31");
    doc["services"][0]["handler"]["chain"] = json!("fed_chain_31");
    doc["chains"][0]["name"] = json!("fed_chain_31");
    doc["services"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&doc);
    at(&r, "PA001", "/services/0/handler");
    at(&r, "FO001", "/services/0/handler");
    // A local service of the same shape is not a federated hop.
    let mut doc = middle_config();
    doc["services"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    assert!(!has(&run(&doc), "PA001"));
}

// ---------- IN ----------

#[test]
fn in001_unreadable() {
    let cases = [
        check_text("{not json", &CheckOptions::default()),
        run(&json!(42)),
        run(&json!({"hello": "world"})),
        run(&json!({"local": 5})),
        check(
            &json!([]),
            &CheckOptions {
                kind: Some("config".into()),
                ..Default::default()
            },
        ),
        check(
            &middle_config(),
            &CheckOptions {
                kind: Some("yaml".into()),
                ..Default::default()
            },
        ),
    ];
    for r in &cases {
        assert_eq!(codes(r), vec!["IN001"], "{:#?}", r);
        assert_eq!(r.findings[0].path, "");
        assert_eq!(r.summary.errors, 1);
    }
    let big = "[".to_string() + &"0,".repeat(9_000_000) + "0]";
    assert_eq!(
        codes(&check_text(&big, &CheckOptions::default())),
        vec!["IN001"]
    );
    // Near miss: an empty command list and an empty config are readable.
    assert!(run(&json!([])).findings.is_empty());
    assert!(run(&json!({"services": [], "chains": []}))
        .findings
        .is_empty());
}

#[test]
fn in002_server_rejects() {
    let mut tunnel = vector("seed-federated-middle-fifo-3-exits")["input"].clone();
    tunnel["tunnel"]["outNodeId"][1]["nodeId"] = json!(3); // node 3 twice
    let r = run(&tunnel);
    assert_eq!(codes(&r), vec!["IN002"]);
    assert!(
        r.findings[0].message.contains("节点重复"),
        "{}",
        r.findings[0].message
    );
    assert!(r.findings[0].message_zh.contains("节点重复"));
    // A plan carrying the server's rejection.
    let r = run(&json!({"error": "入口不能为空", "federation": [], "local": []}));
    assert_eq!(codes(&r), vec!["IN002"]);
    // Near miss: the accepted tunnel.
    let r = run(&vector("seed-federated-middle-fifo-3-exits")["input"]);
    assert!(!has(&r, "IN002") && !has(&r, "IN001"));
    assert_eq!(r.summary.kind, "tunnel");
}

// ---------- kinds, options, output ----------

#[test]
fn kind_detection_and_forcing() {
    assert_eq!(run(&seed_plan()).summary.kind, "plan");
    assert_eq!(run(&middle_config()).summary.kind, "config");
    assert_eq!(run(&seed_plan()["local"]).summary.kind, "commands");
    assert_eq!(
        run(&vector("seed-federated-middle-fifo-3-exits")["input"])
            .summary
            .kind,
        "tunnel"
    );
    let forced = check(
        &seed_plan()["local"],
        &CheckOptions {
            kind: Some("commands".into()),
            ..Default::default()
        },
    );
    assert_eq!(forced.summary.kind, "commands");
    let forced = check(
        &seed_plan(),
        &CheckOptions {
            kind: Some("tunnel".into()),
            ..Default::default()
        },
    );
    assert_eq!(forced.summary.paths_into, "plan");
}

#[test]
fn findings_are_sorted_deterministic_and_summarised() {
    let mut plan = seed_plan();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    plan["local"][0]["data"]["hops"][0]["selector"]["strategy"] = json!("FIFO");
    let a = run(&plan);
    let b = run(&plan);
    assert_eq!(a, b);
    let sev: Vec<Severity> = a.findings.iter().map(|f| f.severity).collect();
    let mut sorted = sev.clone();
    sorted.sort();
    assert_eq!(sev, sorted);
    let s = &a.summary;
    assert_eq!(s.total, a.findings.len());
    assert_eq!(s.errors + s.warnings + s.infos, s.total);
    assert_eq!(s.by_code.values().sum::<usize>(), s.total);
    assert_eq!(s.by_code.get("FO001"), Some(&1));
    let v = serde_json::to_value(&a).expect("serialises");
    assert!(v["summary"]["byCode"].is_object() && v["summary"]["pathsInto"] == "document");
    assert!(v["findings"][0]["messageZh"].is_string());
}

#[test]
fn ac003_reported_once_wherever_the_selector_sits() {
    let mut doc = middle_config();
    doc["services"][0]["forwarder"] = json!({"selector": {"failTimeout": "soon"}});
    doc["services"][0]["handler"]["chainGroup"] =
        json!({"chains": ["chains_7"], "selector": {"failTimeout": "later"}});
    let r = run(&doc);
    assert_eq!(
        r.findings.iter().filter(|f| f.code == "AC003").count(),
        2,
        "{:#?}",
        r.findings
    );
    at(
        &r,
        "AC003",
        "/services/0/handler/chainGroup/selector/failTimeout",
    );
    // A duration under metadata is the handler's own business.
    let mut doc = middle_config();
    doc["services"][0]["handler"]["metadata"] = json!({"selector": {"failTimeout": "soon"}});
    assert!(!has(&run(&doc), "AC003"));
}

#[test]
fn command_lists_are_checked_without_claiming_missing_nodes() {
    // The seed's local commands alone: the entry dials the federated middle, which is not in the list.
    let plan = seed_plan();
    let r = run(&plan["local"]);
    assert_eq!(r.summary.kind, "commands");
    assert!(!has(&r, "LK001"), "{:#?}", r.findings);
    // The provider's commands for the federated middle, stripped of retries: caught by name.
    let mut cmds = plan["federation"][0]["commands"].clone();
    cmds[1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&cmds);
    at(&r, "FO001", "/1/data/0/handler");
    at(&r, "PA001", "/1/data/0/handler");
    assert_eq!(
        r.findings
            .iter()
            .find(|f| f.code == "FO001")
            .and_then(|f| f.node_id),
        Some(2)
    );
    assert!(!has(&r, "LK001") && !has(&r, "PA002"), "{:#?}", r.findings);
    // A whole plan still reports a dialed port nobody listens on.
    let mut full = seed_plan();
    full["local"][0]["data"]["hops"][0]["nodes"][0]["addr"] = json!("198.51.100.12:44999");
    assert!(has(&run(&full), "LK001"));
}

#[test]
fn pa_without_apply_uses_the_deployed_chain() {
    // A hand-written plan whose federation entry has no apply/role: the twin comes from the chain.
    let mut plan = seed_plan();
    let entry = plan["federation"][0].as_object_mut().expect("entry");
    entry.remove("apply");
    entry.remove("role");
    let r = run(&plan);
    assert!(!has(&r, "PA001") && !has(&r, "PA002"), "{:#?}", r.findings);
    assert!(has(&r, "PA003"));
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    let r = run(&plan);
    at(&r, "PA001", "/federation/0/commands/1/data/0/handler");
}

#[test]
fn fo001_says_whether_retries_is_absent_or_zero() {
    let plan = {
        let mut v =
            golden_vectors::vector("seed-federated-middle-fifo-3-exits")["expected"].clone();
        let svc = &mut v["federation"][0]["commands"][1]["data"][0]["handler"];
        svc.as_object_mut().unwrap().remove("retries");
        v
    };
    let report = hop_policy::check::check(&plan, &Default::default());
    let f = report
        .findings
        .iter()
        .find(|f| f.code == "FO001")
        .expect("FO001");
    assert!(f.message.contains("retries is absent (0)"), "{}", f.message);
    assert!(f.message_zh.contains("未设置 retries"), "{}", f.message_zh);
    let mut zero = plan.clone();
    zero["federation"][0]["commands"][1]["data"][0]["handler"]["retries"] = serde_json::json!(0);
    let report = hop_policy::check::check(&zero, &Default::default());
    let f = report
        .findings
        .iter()
        .find(|f| f.code == "FO001")
        .expect("FO001");
    assert!(f.message.contains("but retries is 0:"), "{}", f.message);
}
