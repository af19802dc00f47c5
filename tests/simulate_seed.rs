//! Known answers on the seed topology
//! (`seed-federated-middle-fifo-3-exits`: entry 1 -> federated middle 2 ->
//! exits 3, 4, 5, `fifo`, middle retries 2 as the fixed upstream deploys it).

use hop_policy::simulate::{simulate, trace_text, Scenario, Trace};
use serde_json::{json, Value};
mod golden_vectors;
use golden_vectors::vector;

fn seed_plan() -> Value {
    vector("seed-federated-middle-fifo-3-exits")["expected"].clone()
}

/// The middle's service (`fed_svc_31`) handler.
fn middle_handler(plan: &mut Value) -> &mut Value {
    &mut plan["federation"][0]["commands"][1]["data"][0]["handler"]
}

fn with_retries(retries: Option<i64>) -> Value {
    let mut plan = seed_plan();
    let h = middle_handler(&mut plan);
    match retries {
        Some(r) => h["retries"] = json!(r),
        None => {
            h.as_object_mut().unwrap().remove("retries");
        }
    }
    plan
}

fn with_strategy(mut plan: Value, strategy: &str) -> Value {
    plan["federation"][0]["commands"][0]["data"]["hops"][0]["selector"]["strategy"] =
        json!(strategy);
    plan
}

fn run(plan: &Value, scenario: Value) -> Trace {
    let sc = Scenario::from_json(&scenario).unwrap();
    simulate(plan, &sc).unwrap()
}

/// (from, to, ok) of every dial of request `i` (0-based).
fn dials(t: &Trace, i: usize) -> Vec<(Option<i64>, Option<i64>, bool)> {
    t.requests[i]
        .attempts
        .iter()
        .map(|a| (a.from_node_id, a.to_node_id, a.ok))
        .collect()
}

#[test]
fn retries_2_first_exit_dead_every_request_succeeds_request_1_on_exit_2() {
    let plan = seed_plan();
    assert_eq!(middle_handler(&mut plan.clone())["retries"], json!(2));
    let t = run(&plan, json!({"dead": [3]}));
    assert_eq!(t.entry_node_id, Some(1));
    assert_eq!(t.requests.len(), 3);
    assert!(t.requests.iter().all(|r| r.ok && !r.direct));
    assert_eq!(t.requests[0].exit_node_id, Some(4));
    // entry -> middle carries; middle -> exit 3 refused and marked; middle -> exit 4 carries.
    assert_eq!(
        dials(&t, 0),
        vec![
            (Some(1), Some(2), true),
            (Some(2), Some(3), false),
            (Some(2), Some(4), true)
        ]
    );
    let a = &t.requests[0].attempts[1];
    assert!(!a.alive && a.marked && a.failures == 1 && a.round == 0 && a.rounds == 3);
    // Next requests: exit 3 is filtered while its mark lasts (600 s), fifo picks exit 4 at once.
    for i in 1..3 {
        assert_eq!(t.requests[i].exit_node_id, Some(4));
        assert_eq!(
            dials(&t, i),
            vec![(Some(1), Some(2), true), (Some(2), Some(4), true)]
        );
        let c = &t.requests[i].attempts[1].candidates;
        assert!(!c[0].kept && c[1].kept && c[2].kept, "{c:?}");
    }
}

#[test]
fn retries_0_request_1_fails_request_2_succeeds() {
    let plan = with_retries(None);
    let t = run(&plan, json!({"dead": ["3"]}));
    let r1 = &t.requests[0];
    assert!(!r1.ok);
    assert_eq!(r1.exit_node_id, None);
    assert!(!r1.direct);
    // The middle accepts but cannot reach exit 3: the entry's dial fails without marking the middle.
    assert_eq!(
        dials(&t, 0),
        vec![(Some(1), Some(2), false), (Some(2), Some(3), false)]
    );
    assert!(r1.attempts[0].alive && !r1.attempts[0].marked);
    assert!(r1.attempts[1].marked);
    let r2 = &t.requests[1];
    assert!(r2.ok && !r2.direct);
    assert_eq!(r2.exit_node_id, Some(4));
    assert_eq!(
        dials(&t, 1),
        vec![(Some(1), Some(2), true), (Some(2), Some(4), true)]
    );
}

#[test]
fn all_exits_dead_request_1_fails_after_three_attempts_then_direct_egress() {
    let plan = seed_plan();
    let t = run(&plan, json!({"dead": [3, 4, 5], "requests": 4}));
    let r1 = &t.requests[0];
    assert!(!r1.ok && !r1.direct);
    assert_eq!(
        dials(&t, 0),
        vec![
            (Some(1), Some(2), false),
            (Some(2), Some(3), false),
            (Some(2), Some(4), false),
            (Some(2), Some(5), false)
        ]
    );
    let at_exits: Vec<_> = r1
        .attempts
        .iter()
        .filter(|a| a.from_node_id == Some(2))
        .collect();
    assert_eq!(at_exits.len(), 3);
    assert!(at_exits.iter().all(|a| a.marked && !a.alive));
    // While the marks last: no exit is selected, the middle dials the destination itself.
    for r in &t.requests[1..] {
        assert!(r.ok, "request {}", r.index);
        assert!(r.direct);
        assert_eq!(r.direct_from_node_id, Some(2));
        assert_eq!(r.exit_node_id, None);
        assert_eq!(r.attempts.len(), 1);
        assert_eq!(
            (
                r.attempts[0].from_node_id,
                r.attempts[0].to_node_id,
                r.attempts[0].ok
            ),
            (Some(1), Some(2), true)
        );
        assert!(r.outcome.contains("bypassing the exits"), "{}", r.outcome);
    }
    let text = trace_text(&t);
    assert!(text.contains("DIRECT egress from node 2"), "{text}");
}

#[test]
fn all_exits_dead_marks_expire_after_fail_timeout() {
    // gap 300 s: request 3 is 600 s after request 1, so the 600 s marks have expired.
    let plan = seed_plan();
    let t = run(
        &plan,
        json!({"dead": [3, 4, 5], "requests": 3, "gapMs": 300000}),
    );
    assert!(!t.requests[0].ok);
    assert!(t.requests[1].ok && t.requests[1].direct);
    let r3 = &t.requests[2];
    assert!(!r3.ok && !r3.direct);
    assert_eq!(r3.attempts.len(), 4);
    assert_eq!(r3.attempts[1].failures, 2);
}

#[test]
fn round_one_dead_of_three_retries_0_only_first_pick_of_dead_fails_until_expiry() {
    let plan = with_strategy(with_retries(None), "round");
    // Exit 3 (node_1) is dead; round robin starts with node_1.
    let t = run(&plan, json!({"dead": [3], "requests": 6}));
    let oks: Vec<bool> = t.requests.iter().map(|r| r.ok).collect();
    assert_eq!(oks, vec![false, true, true, true, true, true]);
    let exits: Vec<Option<i64>> = t.requests.iter().map(|r| r.exit_node_id).collect();
    // counter 1 -> 1 mod 2 -> exit 5; counter 2 -> exit 4; ...
    assert_eq!(
        exits,
        vec![None, Some(5), Some(4), Some(5), Some(4), Some(5)]
    );

    // Dead exit 4 (node_2): request 1 (counter 0) picks exit 3 fine, request 2 picks exit 4 and fails.
    let t = run(&plan, json!({"dead": [4], "requests": 5}));
    let oks: Vec<bool> = t.requests.iter().map(|r| r.ok).collect();
    assert_eq!(oks, vec![true, false, true, true, true]);

    // With marks expiring (failTimeout 600 s, one request every 200 s) the dead node fails again.
    let t = run(&plan, json!({"dead": [3], "requests": 8, "gapMs": 200000}));
    let fails: Vec<u32> = t
        .requests
        .iter()
        .filter(|r| !r.ok)
        .map(|r| r.index)
        .collect();
    // r1 (t=0) fails, mark at 0 s; r2..r3 filter it; r4 at 600 s: expired, counter 3 mod 3 = 0 -> dead again.
    assert_eq!(fails[0], 1);
    assert!(fails.len() >= 2, "{fails:?}");
    assert_eq!(fails[1], 4);
}

#[test]
fn single_node_hop_is_never_filtered() {
    // The entry's hop has only the middle: even marked, it is selected again.
    let plan = seed_plan();
    let t = run(&plan, json!({"dead": [2], "requests": 3}));
    for r in &t.requests {
        assert!(!r.ok);
        assert!(!r.direct);
        assert_eq!(r.attempts.len(), 1);
        assert_eq!(
            (r.attempts[0].from_node_id, r.attempts[0].to_node_id),
            (Some(1), Some(2))
        );
        assert!(r.attempts[0].candidates[0].kept);
    }
    assert_eq!(t.requests[2].attempts[0].failures, 3);

    // A middle with a single exit: the exit stays selectable after it was marked.
    let mut plan = seed_plan();
    let hop = &mut plan["federation"][0]["commands"][0]["data"]["hops"][0];
    hop["nodes"].as_array_mut().unwrap().truncate(1);
    let t = run(&plan, json!({"dead": [3], "requests": 2}));
    for r in &t.requests {
        assert!(!r.ok && !r.direct);
        // retries 2 on a one-node hop: three tries, all on the same exit.
        let tos: Vec<_> = r
            .attempts
            .iter()
            .filter(|a| a.from_node_id == Some(2))
            .map(|a| a.to_node_id)
            .collect();
        assert_eq!(tos, vec![Some(3), Some(3), Some(3)]);
    }
}

#[test]
fn dead_by_address_and_text_report() {
    let plan = seed_plan();
    let t = run(&plan, json!({"dead": ["203.0.113.3:45001"], "requests": 1}));
    assert!(t.requests[0].ok);
    assert_eq!(t.requests[0].exit_node_id, Some(4));
    let text = trace_text(&t);
    assert!(
        text.contains("Request 1 at t=0 ms: OK via exit node 4"),
        "{text}"
    );
    assert!(text.contains("FAILED (dead)"), "{text}");
    let json = serde_json::to_value(&t).unwrap();
    let r = &json["requests"][0];
    for key in ["ok", "exitNodeId", "direct", "attempts"] {
        assert!(r.get(key).is_some(), "{key}");
    }
    for key in ["fromNodeId", "toNodeId", "addr", "ok", "alive", "reason"] {
        assert!(r["attempts"][0].get(key).is_some(), "{key}");
    }
}

#[test]
fn dead_by_node_name_with_the_node_table() {
    let input = vector("seed-federated-middle-fifo-3-exits")["input"].clone();
    let t = run(&input, json!({"dead": ["n3"], "requests": 1}));
    assert_eq!(t.requests[0].exit_node_id, Some(4));
    assert!(t.notes.iter().all(|n| !n.contains("dead")), "{:?}", t.notes);
}
