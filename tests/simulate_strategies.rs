//! Selector behaviour on single node configs (`{services, chains}`): strategy
//! names, fail filter parameters, backup nodes, time truncation, input errors.

use hop_policy::simulate::{simulate, Scenario, Trace};
use serde_json::{json, Value};
mod golden_vectors;

const A: &str = "10.0.0.1:1001";
const B: &str = "10.0.0.2:1002";
const C: &str = "10.0.0.3:1003";

fn node(name: &str, addr: &str, md: Value) -> Value {
    let mut n = json!({"name": name, "addr": addr, "connector": {"type": "relay", "metadata": {"nodelay": true}}, "dialer": {"type": "tls"}});
    if !md.is_null() {
        n["metadata"] = md;
    }
    n
}

/// One relay service with `retries` over chain `c` whose single hop has `nodes`.
fn config(selector: Value, nodes: Vec<Value>, retries: Option<i64>) -> Value {
    let mut handler = json!({"type": "relay", "chain": "c"});
    if let Some(r) = retries {
        handler["retries"] = json!(r);
    }
    let mut hop = json!({"name": "h", "nodes": nodes});
    if !selector.is_null() {
        hop["selector"] = selector;
    }
    json!({"services": [{"name": "s", "addr": ":8080", "handler": handler, "listener": {"type": "tls"}}],
           "chains": [{"name": "c", "hops": [hop]}]})
}

fn three(selector: Value, retries: Option<i64>) -> Value {
    config(
        selector,
        vec![
            node("n1", A, Value::Null),
            node("n2", B, Value::Null),
            node("n3", C, Value::Null),
        ],
        retries,
    )
}

fn run(doc: &Value, sc: Value) -> Trace {
    simulate(doc, &Scenario::from_json(&sc).unwrap()).unwrap()
}

/// Addresses dialed by each request.
fn picks(t: &Trace) -> Vec<Vec<String>> {
    t.requests
        .iter()
        .map(|r| r.attempts.iter().map(|a| a.addr.clone()).collect())
        .collect()
}

fn sel(strategy: &str) -> Value {
    json!({"strategy": strategy, "maxFails": 1, "failTimeout": 600_000_000_000i64})
}

#[test]
fn round_and_rr_rotate_and_unknown_names_fall_back_to_round_robin() {
    for s in ["round", "rr", "FIFO", "Round", "best", ""] {
        let t = run(&three(sel(s), None), json!({"requests": 4}));
        assert_eq!(picks(&t), vec![vec![A], vec![B], vec![C], vec![A]], "{s}");
        assert!(t.requests.iter().all(|r| r.ok && r.exit_addr.is_some()));
    }
    let t = run(&three(sel("FIFO"), None), json!({"requests": 1}));
    assert!(
        t.requests[0].attempts[0]
            .selection
            .contains("unknown strategy"),
        "{}",
        t.requests[0].attempts[0].selection
    );
}

#[test]
fn fifo_and_ha_stick_to_the_first_node() {
    for s in ["fifo", "ha"] {
        let t = run(&three(sel(s), None), json!({"requests": 3}));
        assert_eq!(picks(&t), vec![vec![A], vec![A], vec![A]], "{s}");
    }
}

#[test]
fn no_selector_means_round_robin_max_fails_1_timeout_10s() {
    let t = run(
        &three(Value::Null, None),
        json!({"requests": 3, "dead": [A]}),
    );
    assert_eq!(picks(&t), vec![vec![A], vec![C], vec![B]]);
    assert_eq!(
        t.requests.iter().map(|r| r.ok).collect::<Vec<_>>(),
        vec![false, true, true]
    );
}

#[test]
fn unset_fail_timeout_is_10s_and_marks_keep_whole_seconds() {
    // Mark at t = 0.5 s is stored as second 0; at t = 10.0 s it is 10 s old: expired.
    let doc = three(json!({"strategy": "fifo", "maxFails": 1}), None);
    let t = run(
        &doc,
        json!({"requests": 2, "dead": [A], "startMs": 500, "gapMs": 9500}),
    );
    assert_eq!(picks(&t), vec![vec![A], vec![A]]);
    // At t = 9.999 s it is still filtered.
    let t = run(
        &doc,
        json!({"requests": 2, "dead": [A], "startMs": 500, "gapMs": 9499}),
    );
    assert_eq!(picks(&t), vec![vec![A], vec![B]]);
}

#[test]
fn max_fails_counts_failures_and_zero_means_one() {
    let doc = three(
        json!({"strategy": "fifo", "maxFails": 2, "failTimeout": 600_000_000_000i64}),
        None,
    );
    let t = run(&doc, json!({"requests": 3, "dead": [A]}));
    assert_eq!(picks(&t), vec![vec![A], vec![A], vec![B]]);
    let doc = three(
        json!({"strategy": "fifo", "maxFails": 0, "failTimeout": 600_000_000_000i64}),
        None,
    );
    let t = run(&doc, json!({"requests": 2, "dead": [A]}));
    assert_eq!(picks(&t), vec![vec![A], vec![B]]);
}

#[test]
fn node_metadata_overrides_selector_fail_settings() {
    let nodes = vec![
        node("n1", A, json!({"maxFails": 3, "failTimeout": "2s"})),
        node("n2", B, Value::Null),
    ];
    let doc = config(sel("fifo"), nodes, None);
    let t = run(&doc, json!({"requests": 6, "dead": [A]}));
    // 3 failures needed (third mark at second 2); filtered at 3 s (1 s old), back at 4 s (2 s old).
    assert_eq!(
        picks(&t),
        vec![vec![A], vec![A], vec![A], vec![B], vec![A], vec![B]]
    );
}

#[test]
fn backup_nodes_are_used_only_when_no_other_is_left() {
    let nodes = vec![
        node("n1", A, json!({"backup": true})),
        node("n2", B, Value::Null),
        node("n3", C, Value::Null),
    ];
    let doc = config(sel("fifo"), nodes, Some(2));
    let t = run(&doc, json!({"requests": 1}));
    assert_eq!(picks(&t), vec![vec![B]]);
    assert!(!t.requests[0].attempts[0].candidates[0].kept);
    let t = run(&doc, json!({"requests": 2, "dead": [B, C]}));
    // Request 1: B fails, C fails, then only the backup is left.
    assert_eq!(picks(&t), vec![vec![B, C, A], vec![A]]);
    assert!(t.requests.iter().all(|r| r.ok));
}

#[test]
fn retries_rebuild_the_route_and_stop_at_the_first_success() {
    // The round-robin counter advances on every selection, over the nodes the filter left:
    // r1: counter 0 of [A,B,C] -> A dead; counter 1 of [B,C] -> C.
    // r2: counter 2 of [B,C] -> B dead; counter 3 of [C] -> C.
    let t = run(
        &three(sel("round"), Some(2)),
        json!({"requests": 3, "dead": [A, B]}),
    );
    assert_eq!(picks(&t), vec![vec![A, C], vec![B, C], vec![C]]);
    assert_eq!(
        t.requests[0]
            .attempts
            .iter()
            .map(|a| a.round)
            .collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert!(t.requests.iter().all(|r| r.ok));
    // Without retries the same picks fail the request instead.
    let t = run(
        &three(sel("round"), None),
        json!({"requests": 4, "dead": [A, B]}),
    );
    assert_eq!(picks(&t), vec![vec![A], vec![C], vec![B], vec![C]]);
    assert_eq!(
        t.requests.iter().map(|r| r.ok).collect::<Vec<_>>(),
        vec![false, true, false, true]
    );
}

#[test]
fn all_marked_means_direct_egress_from_this_node() {
    let t = run(
        &three(sel("round"), Some(2)),
        json!({"requests": 2, "dead": [A, B, C]}),
    );
    assert!(!t.requests[0].ok && t.requests[0].attempts.len() == 3);
    assert!(t.requests[1].ok && t.requests[1].direct && t.requests[1].attempts.is_empty());
}

#[test]
fn hash_uses_crc32_of_the_client_address() {
    // crc32("192.0.2.10") = 1287461678, mod 3 = 2; crc32("198.51.100.7") mod 3 = 1.
    let t = run(&three(sel("hash"), None), json!({"requests": 2}));
    assert_eq!(picks(&t), vec![vec![C], vec![C]]);
    let t = run(
        &three(sel("hash"), None),
        json!({"requests": 1, "clientIp": "198.51.100.7"}),
    );
    assert_eq!(picks(&t), vec![vec![B]]);
}

#[test]
fn random_is_seeded_and_weighted() {
    let doc = three(sel("rand"), None);
    let a = run(&doc, json!({"requests": 30, "seed": 7}));
    let b = run(&doc, json!({"requests": 30, "seed": 7}));
    assert_eq!(picks(&a), picks(&b));
    let c = run(&doc, json!({"requests": 30, "seed": 8}));
    assert_ne!(picks(&a), picks(&c));
    let used: std::collections::BTreeSet<String> = picks(&a).into_iter().flatten().collect();
    assert_eq!(used.len(), 3);
    let nodes = vec![
        node("n1", A, json!({"weight": 1000})),
        node("n2", B, Value::Null),
    ];
    let t = run(
        &config(sel("random"), nodes, None),
        json!({"requests": 50, "seed": 3}),
    );
    let heavy = picks(&t).into_iter().flatten().filter(|x| x == A).count();
    assert!(heavy >= 45, "{heavy}");
}

#[test]
fn connector_without_nodelay_gives_no_retry_upstream() {
    // Seed plan with the entry's connector lacking nodelay and the middle without retries.
    let v = golden_vectors::vector("seed-federated-middle-fifo-3-exits");
    let mut plan = v["expected"].clone();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .unwrap()
        .remove("retries");
    plan["local"][0]["data"]["hops"][0]["nodes"][0]["connector"]["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("nodelay");
    let t = run(
        &plan,
        json!({"requests": 2, "dead": [3], "entryRetries": 1}),
    );
    let r1 = &t.requests[0];
    assert!(!r1.ok);
    // The entry's router counts the dial as a success and does not use its retry.
    assert_eq!(r1.attempts.len(), 2);
    assert!(r1.attempts[0].ok && !r1.attempts[0].carried);
    assert!(t.requests[1].ok);
    // With nodelay the entry's second try reaches exit 4 through the middle.
    let mut plan2 = v["expected"].clone();
    plan2["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .unwrap()
        .remove("retries");
    let t = run(
        &plan2,
        json!({"requests": 1, "dead": [3], "entryRetries": 1}),
    );
    let tos: Vec<_> = t.requests[0]
        .attempts
        .iter()
        .map(|a| (a.from_node_id, a.to_node_id, a.ok))
        .collect();
    assert_eq!(
        tos,
        vec![
            (Some(1), Some(2), false),
            (Some(2), Some(3), false),
            (Some(1), Some(2), true),
            (Some(2), Some(4), true)
        ]
    );
    assert_eq!(t.requests[0].exit_node_id, Some(4));
}

#[test]
fn entry_choice_and_dead_entry() {
    let v = golden_vectors::vector("two-remote-hops-kcp-v6");
    let t = run(&v["input"], json!({"requests": 1, "entry": "6"}));
    assert_eq!(t.entry_node_id, Some(6));
    assert_eq!(t.requests[0].attempts[0].from_node_id, Some(6));
    let t = run(&v["input"], json!({"requests": 2, "dead": [1]}));
    assert!(t.requests.iter().all(|r| !r.ok && r.attempts.is_empty()));
    let e = simulate(
        &v["input"],
        &Scenario::from_json(&json!({"entry": 99})).unwrap(),
    )
    .unwrap_err();
    assert_eq!(e.code, "NO_ENTRY");
}

#[test]
fn unreadable_documents_and_scenarios_are_errors_not_panics() {
    let sc = Scenario::default();
    for doc in [
        json!(null),
        json!(42),
        json!("x"),
        json!([]),
        json!({}),
        json!({"tunnel": 1}),
    ] {
        assert_eq!(simulate(&doc, &sc).unwrap_err().code, "IN001", "{doc}");
    }
    let rejected = json!({"error": "节点重复", "federation": [], "local": []});
    assert_eq!(simulate(&rejected, &sc).unwrap_err().code, "PLAN_ERROR");
    let doc = three(sel("round"), None);
    let bad = Scenario::from_json(&json!({"dead": [{"x": 1}]})).unwrap();
    assert_eq!(simulate(&doc, &bad).unwrap_err().path, "/dead/0");
    let bad = Scenario::from_json(&json!({"dead": ["host:notaport"]})).unwrap();
    assert_eq!(simulate(&doc, &bad).unwrap_err().code, "IN001");
    // Hostile but valid: huge retries and request counts are capped.
    let doc = three(sel("round"), Some(i64::MAX));
    let t = run(
        &doc,
        json!({"requests": 4_000_000_000u32, "dead": [A, B, C]}),
    );
    assert!(t.requests.len() <= 10_000);
    assert!(t.requests[0].attempts.len() <= 1000);
    // Garbage inside a config does not panic.
    let junk = json!({"services": [1, {"handler": "x"}, {"name": 3, "addr": [], "handler": {"chain": 5, "retries": "2"}}],
                      "chains": [null, {"name": "c", "hops": [{"nodes": [null, {"addr": 7}], "selector": {"failTimeout": "1m", "maxFails": 1.5}}]}]});
    let t = run(&junk, json!({"requests": 2}));
    assert_eq!(t.requests.len(), 2);
}
