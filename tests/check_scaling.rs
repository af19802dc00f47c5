//! The LK and PA rules grow linearly with the services that share a port
//! and the nodes that share an address: each chain node gets at most one LK
//! finding, an owner list is cut after a few ids, and the report stays a
//! small multiple of the document (README, Limits).

use hop_policy::check::{check_text, CheckOptions, CheckReport};
use serde_json::{json, Value};

/// README's bound: a report of the LK and PA rules is at most this many
/// times its document.
const REPORT_PER_INPUT: usize = 3;

fn options() -> CheckOptions {
    let mut o = CheckOptions::default();
    o.limits.max_nodes = 100_000;
    o.limits.max_input_bytes = 64 << 20;
    o
}

fn run(doc: &Value) -> (usize, CheckReport) {
    let text = doc.to_string();
    (text.len(), check_text(&text, &options()))
}

fn report_len(r: &CheckReport) -> usize {
    serde_json::to_string(r).expect("a report serialises").len()
}

fn add_service(node: i64, name: &str, addr: &str, ltype: &str, mux: i64) -> Value {
    json!({"nodeId": node, "command": "AddService", "data": [{
        "name": name, "addr": addr,
        "listener": {"type": ltype},
        "handler": {"type": "relay", "metadata": {"mux.version": mux}}
    }]})
}

/// A chain of one hop whose nodes dial `addrs` (address, dialer type, connector mux.version).
fn add_chain(node: i64, name: &str, dials: &[(&str, &str, i64)]) -> Value {
    let nodes: Vec<Value> = dials
        .iter()
        .enumerate()
        .map(|(i, (addr, dtype, mux))| {
            json!({"name": format!("node_{}", i), "addr": addr,
                   "connector": {"type": "relay", "metadata": {"mux.version": mux}},
                   "dialer": {"type": dtype}})
        })
        .collect();
    json!({"nodeId": node, "command": "AddChains", "data": {
        "name": name,
        "hops": [{"name": "hop_0", "selector": {"strategy": "fifo", "maxFails": 1, "failTimeout": 600000000000u64},
                  "nodes": nodes}]
    }})
}

/// `n` services on port 7000 (nodes 10000..), and `n` chains (nodes
/// 20000..) each dialing 10.0.0.1: port 7000 with the wrong mux (LK003),
/// port 7000 with the wrong protocol (LK002) and port 7001, where nothing
/// listens (LK001 in a plan).
fn commands(n: i64) -> Vec<Value> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(add_service(
            10_000 + i,
            &format!("svc_{}", i),
            ":7000",
            "tls",
            2,
        ));
    }
    for i in 0..n {
        out.push(add_chain(
            20_000 + i,
            &format!("chain_{}", i),
            &[
                ("10.0.0.1:7000", "tls", 1),
                ("10.0.0.1:7000", "wss", 2),
                ("10.0.0.1:7001", "tls", 2),
            ],
        ));
    }
    out
}

/// [`commands`] as a plan whose `n` service nodes all have address 10.0.0.1.
fn plan(n: i64) -> Value {
    let nodes: Vec<Value> = (0..n)
        .map(|i| json!({"nodeId": 10_000 + i, "addresses": ["10.0.0.1"]}))
        .collect();
    json!({"local": commands(n), "federation": [], "nodes": nodes})
}

fn count(r: &CheckReport, code: &str) -> usize {
    r.findings.iter().filter(|f| f.code == code).count()
}

fn timed(doc: &Value) -> (usize, CheckReport) {
    let start = std::time::Instant::now();
    let out = run(doc);
    eprintln!(
        "{} bytes in, {} findings, {} bytes out, {:?}",
        out.0,
        out.1.findings.len(),
        report_len(&out.1),
        start.elapsed()
    );
    out
}

#[test]
fn shared_ports_and_addresses_grow_linearly() {
    let list = |n| Value::Array(commands(n));
    let docs: [(&str, &dyn Fn(i64) -> Value); 2] = [("commands", &list), ("plan", &plan)];
    for (what, doc) in docs {
        let (in_small, small) = timed(&doc(1000));
        let (in_large, large) = timed(&doc(4000));
        // One LK finding per chain node (three per chain).
        for (n, r) in [(1000, &small), (4000, &large)] {
            assert_eq!(count(r, "LK002"), n, "{what}");
            assert_eq!(count(r, "LK003"), n, "{what}");
            let dangling = if what == "plan" { n } else { 0 };
            assert_eq!(count(r, "LK001"), dangling, "{what}");
        }
        assert!(
            large.findings.len() * 2 <= small.findings.len() * 9,
            "{what}"
        );
        let (out_small, out_large) = (report_len(&small), report_len(&large));
        assert!(
            out_large * 2 <= out_small * 9,
            "{what}: {out_small} -> {out_large}"
        );
        assert!(
            out_small <= REPORT_PER_INPUT * in_small,
            "{what}: {in_small} -> {out_small}"
        );
        assert!(
            out_large <= REPORT_PER_INPUT * in_large,
            "{what}: {in_large} -> {out_large}"
        );
    }
}

/// The LK findings of `r`: (code, path, message).
fn lk(r: &CheckReport) -> Vec<(String, String, String)> {
    r.findings
        .iter()
        .filter(|f| f.code.starts_with("LK"))
        .map(|f| (f.code.clone(), f.path.clone(), f.message.clone()))
        .collect()
}

#[test]
fn shared_addresses_exact_findings() {
    let dials = [
        ("10.0.0.1:7000", "tls", 2),  // node 1's service: fine
        ("10.0.0.1:7001", "tls", 2),  // 7001 is node 3's port, not 10.0.0.1's
        ("10.0.0.2:7001", "tls", 2),  // node 3: fine
        ("10.0.0.1:7002", "tls", 1),  // node 2 listens with "TLS": fine
        ("10.0.0.1:7000", "wss", 2),  // protocol differs
        ("10.0.0.1:7000", "tls", 1),  // mux differs
        ("192.0.2.1:7000", "tls", 2), // not a tunnel node
        ("10.0.0.9:7000", "tls", 2),  // seven owners, none listening
    ];
    let mut rows = vec![
        json!({"nodeId": 1, "addresses": ["10.0.0.1"]}),
        json!({"nodeId": 2, "addresses": ["10.0.0.1"]}),
        json!({"nodeId": 3, "addresses": ["10.0.0.2"]}),
    ];
    rows.extend((11..=17).map(|id| json!({"nodeId": id, "addresses": ["10.0.0.9"]})));
    let doc = json!({"federation": [], "nodes": rows, "local": [
        add_service(1, "svc_1", ":7000", "tls", 2),
        add_service(3, "svc_3", ":7001", "tls", 2),
        add_service(2, "svc_2", ":7002", "TLS", 1),
        add_chain(5, "chain_5", &dials),
    ]});
    let (_, r) = run(&doc);
    let at = |i: usize, leaf: &str| format!("/local/3/data/hops/0/nodes/{}/{}", i, leaf);
    let want = [
        ("LK001", at(1, "addr"), "10.0.0.1:7001 belongs to tunnel node 1, 2 but no planned service listens on port 7001 there".to_string()),
        ("LK002", at(4, "dialer/type"), "dialer type \"wss\" does not match listener type \"tls\" of the service on node 1 (/local/0/data/0): the handshake fails".to_string()),
        ("LK003", at(5, "connector"), "connector mux settings differ from the handler of 10.0.0.1:7000 (/local/0/data/0): mux.version".to_string()),
        ("LK001", at(7, "addr"), "10.0.0.9:7000 belongs to tunnel node 11, 12, 13, 14, 15 and 2 more but no planned service listens on port 7000 there".to_string()),
    ];
    let want: Vec<_> = want
        .into_iter()
        .map(|(c, p, m)| (c.to_string(), p, m))
        .collect();
    let mut got = lk(&r);
    got.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(got, want);
    let long = r
        .findings
        .iter()
        .find(|f| f.path == at(7, "addr"))
        .expect("LK001");
    assert!(
        long.message_zh.contains("11, 12, 13, 14, 15 等 7 个"),
        "{}",
        long.message_zh
    );

    // Without a node table every service on the port is a candidate: one
    // with the dialer's mux is enough, else the first of the dialer's type.
    let list = json!([
        add_service(1, "svc_a", ":7000", "wss", 3),
        add_service(2, "svc_b", ":7000", "tls", 1),
        add_service(3, "svc_c", ":7000", "tls", 2),
        add_chain(
            5,
            "chain_5",
            &[
                ("10.0.0.1:7000", "tls", 2),
                ("10.0.0.1:7000", "tls", 3),
                ("10.0.0.1:7000", "mtls", 3)
            ]
        ),
    ]);
    let (_, r) = run(&list);
    let at = |i: usize, leaf: &str| format!("/3/data/hops/0/nodes/{}/{}", i, leaf);
    let mut got = lk(&r);
    got.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        got,
        [
            ("LK003".to_string(), at(1, "connector"), "connector mux settings differ from the handler of 10.0.0.1:7000 (/1/data/0): mux.version".to_string()),
            ("LK002".to_string(), at(2, "dialer/type"), "dialer type \"mtls\" does not match listener type \"wss\" of the service on node 1 (/0/data/0): the handshake fails".to_string()),
        ]
    );
}
