//! Known answers worked out by hand from the GOST source on a two-hop tunnel:
//! `two-remote-hops-kcp-v6` (entries 1, 6 -> hop 1 {2, 3} mtls round -> hop 2
//! {4} kcp -> exits {5, 7} kcp, `best` = fifo), with node 4's provider
//! listening on `[::]` (the vector's `::` is not a valid listen address).
//! Entry -> hop 1 connectors wait for the relay reply (mtls: nodelay); the kcp
//! connectors (to node 4 and to the exits) do not. Node 4 has retries 1.

use hop_policy::simulate::{simulate, Scenario, Trace};
use serde_json::{json, Value};

fn input() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/plan-vectors.jsonl"
    ))
    .unwrap();
    let mut v: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["name"] == "two-remote-hops-kcp-v6")
        .unwrap();
    v["input"]["federation"]["4"]["tcpListenAddr"] = json!("[::]");
    v["input"].clone()
}

fn run(sc: Value) -> Trace {
    simulate(&input(), &Scenario::from_json(&sc).unwrap()).unwrap()
}

type Dial = (i64, i64, bool);

fn dials(t: &Trace, i: usize) -> Vec<Dial> {
    t.requests[i]
        .attempts
        .iter()
        .map(|a| (a.from_node_id.unwrap(), a.to_node_id.unwrap(), a.ok))
        .collect()
}

#[test]
fn first_exit_dead_node_4_retries_to_exit_7() {
    let t = run(json!({"dead": [5], "requests": 2}));
    assert_eq!(
        dials(&t, 0),
        vec![(1, 2, true), (2, 4, true), (4, 5, false), (4, 7, true)]
    );
    assert_eq!(t.requests[0].exit_node_id, Some(7));
    assert_eq!(dials(&t, 1), vec![(1, 3, true), (3, 4, true), (4, 7, true)]);
    assert_eq!(t.requests[1].exit_node_id, Some(7));
}

#[test]
fn both_exits_dead_fails_late_then_goes_direct_from_node_4() {
    let t = run(json!({"dead": [5, 7], "requests": 2}));
    let r1 = &t.requests[0];
    assert!(!r1.ok);
    // Node 4's router fails, but node 2 dialed it over kcp (no nodelay): node 2's
    // router counted a success and answered OK to the entry, so nobody retries.
    assert_eq!(
        dials(&t, 0),
        vec![(1, 2, true), (2, 4, true), (4, 5, false), (4, 7, false)]
    );
    assert!(r1.attempts[..2].iter().all(|a| !a.carried));
    let r2 = &t.requests[1];
    assert!(r2.ok && r2.direct);
    assert_eq!(r2.direct_from_node_id, Some(4));
    assert_eq!(dials(&t, 1), vec![(1, 3, true), (3, 4, true)]);
}

#[test]
fn dead_single_second_hop_fails_every_request_without_direct_egress() {
    let t = run(json!({"dead": [4], "requests": 3}));
    assert_eq!(dials(&t, 0), vec![(1, 2, false), (2, 4, false)]);
    assert_eq!(dials(&t, 1), vec![(1, 3, false), (3, 4, false)]);
    assert_eq!(dials(&t, 2), vec![(1, 2, false), (2, 4, false)]);
    assert!(t.requests.iter().all(|r| !r.ok && !r.direct));
    // The entry's dials reached live nodes: never marked.
    assert!(t
        .requests
        .iter()
        .all(|r| !r.attempts[0].marked && r.attempts[0].alive));
    assert_eq!(t.requests[2].attempts[1].failures, 2);
}

#[test]
fn dead_first_hop_node_is_filtered_after_one_failure() {
    let t = run(json!({"dead": [2], "requests": 3}));
    assert_eq!(dials(&t, 0), vec![(1, 2, false)]);
    assert!(!t.requests[0].ok);
    assert_eq!(dials(&t, 1), vec![(1, 3, true), (3, 4, true), (4, 5, true)]);
    assert_eq!(dials(&t, 2), vec![(1, 3, true), (3, 4, true), (4, 5, true)]);
    assert_eq!(t.requests[2].exit_node_id, Some(5));
}
