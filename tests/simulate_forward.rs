//! Known answers: requests entering at a forward service
//! (`examples/tunnel-with-forwards.json`: forward 12 "web" on entry 1 with
//! targets 203.0.113.50:443 and 203.0.113.51:443, `fifo`, maxFails 1,
//! failTimeout 600 s, over chain `chains_7`: federated middle 2 (its only
//! node), then exits 3, 4, 5; every connector waits for the relay reply).

use hop_policy::simulate::{simulate, trace_text, Scenario, Trace};
use serde_json::{json, Value};

const T1: &str = "203.0.113.50:443";
const T2: &str = "203.0.113.51:443";

fn example() -> Value {
    let text = std::fs::read_to_string("examples/tunnel-with-forwards.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

fn plan_in(input: &Value, mode: &str) -> Value {
    let options = json!({ "mode": mode }).to_string();
    let text = hop_policy::api::plan_json(&input.to_string(), Some(&options)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn plan_of(input: &Value) -> Value {
    plan_in(input, "forward-create")
}

/// The example with no middle (entry 1's hop: exits 3, 4, 5) and one target.
fn single_target_plan() -> Value {
    let mut input = example();
    input["tunnel"]["chainNodes"] = json!([]);
    input["forward"]["remoteAddr"] = json!(T1);
    plan_of(&input)
}

fn run(plan: &Value, scenario: Value) -> Trace {
    let sc = Scenario::from_json(&scenario).unwrap();
    simulate(plan, &sc).unwrap()
}

fn error(plan: &Value, scenario: Value) -> (String, String) {
    let sc = Scenario::from_json(&scenario).unwrap();
    let e = simulate(plan, &sc).unwrap_err();
    (e.code.to_string(), e.path.to_string())
}

/// (target, dials, ok, marked, markedUntilMs) of every target try of request `i`.
fn tries(t: &Trace, i: usize) -> Vec<(String, usize, bool, bool, Option<i64>)> {
    let r = &t.requests[i];
    r.target_tries
        .as_ref()
        .unwrap()
        .iter()
        .map(|x| (x.target.clone(), x.dials, x.ok, x.marked, x.marked_until_ms))
        .collect()
}

/// (target, untilMs) of the live targets request `i` left out.
fn skipped(t: &Trace, i: usize) -> Vec<(String, i64)> {
    let r = &t.requests[i];
    let list = r.skipped_healthy.as_ref().unwrap();
    list.iter()
        .map(|s| (s.target.clone(), s.until_ms))
        .collect()
}

#[test]
fn requests_enter_at_the_first_forward_service() {
    let t = run(&plan_of(&example()), json!({"requests": 1}));
    let f = t.forward.as_ref().unwrap();
    assert_eq!(f.service, "12_5_3_tcp");
    assert_eq!((f.forward_id, f.name.as_deref()), (Some(12), Some("web")));
    assert_eq!((f.node_id, f.chain.as_deref()), (Some(1), Some("chains_7")));
    assert_eq!(f.targets, [T1, T2]);
    assert_eq!(
        (f.strategy.as_str(), f.max_fails, f.fail_timeout_ms),
        ("fifo", 1, 600_000)
    );
    assert_eq!((f.tries, f.retries), (2, 0));
    let r = &t.requests[0];
    assert!(r.ok);
    assert_eq!((r.target.as_deref(), r.exit_node_id), (Some(T1), Some(3)));
    assert_eq!(tries(&t, 0), [(T1.into(), 2, true, false, None)]);
}

#[test]
fn a_dead_only_middle_marks_both_targets_and_keeps_them_out_for_600_s() {
    // Node 2 comes back at 500 s; requests at 0, 300, 600 and 900 s.
    let t = run(
        &plan_of(&example()),
        json!({"dead": [2], "requests": 4, "gapMs": 300_000, "reviveAtMs": 500_000}),
    );
    // Request 1: target 1 fails through the dead middle and is marked, then
    // target 2 (the only one not tried: never filtered) fails and is marked.
    assert!(!t.requests[0].ok);
    assert_eq!(
        tries(&t, 0),
        [
            (T1.into(), 1, false, true, Some(600_000)),
            (T2.into(), 1, false, true, Some(600_000)),
        ]
    );
    assert!(skipped(&t, 0).is_empty());
    // Request 2 (node 2 still dead): both marked, both filtered, no dial.
    let r = &t.requests[1];
    assert!(!r.ok && r.attempts.is_empty());
    assert!(
        r.outcome.contains("all 2 nodes filtered out"),
        "{}",
        r.outcome
    );
    assert_eq!(skipped(&t, 1), [(T1.into(), 600_000), (T2.into(), 600_000)]);
    // Request 3 at 600 s: the marks have expired, node 2 is back: target 1.
    let r = &t.requests[2];
    assert!(r.ok);
    assert_eq!(r.target.as_deref(), Some(T1));
    assert!(skipped(&t, 2).is_empty());
    assert!(t.requests[3].ok);
}

#[test]
fn healthy_targets_stay_skipped_after_the_middle_is_revived() {
    let t = run(
        &plan_of(&example()),
        json!({"dead": [2], "requests": 3, "reviveAtMs": 1500}),
    );
    // At 2 s node 2 is alive again, yet both live targets are still marked.
    let r = &t.requests[2];
    assert!(!r.ok && r.attempts.is_empty());
    assert_eq!(skipped(&t, 2), [(T1.into(), 600_000), (T2.into(), 600_000)]);
    let text = trace_text(&t);
    assert!(
        text.contains("live target node_1 (203.0.113.50:443) not tried: marked until t=600000 ms")
    );
}

#[test]
fn a_dead_target_fails_over_to_the_next_and_is_left_out_after() {
    let t = run(
        &plan_of(&example()),
        json!({"deadTargets": [1], "requests": 2}),
    );
    // Try 1: entry -> middle, whose router tries exit 3 three times (retries
    // 2): exit 3 cannot reach the dead target, answers an error, is not
    // marked. The entry's dial fails, target 1 is marked; target 2 carries.
    assert_eq!(
        tries(&t, 0),
        [
            (T1.into(), 4, false, true, Some(600_000)),
            (T2.into(), 2, true, false, None),
        ]
    );
    let first = &t.requests[0].target_tries.as_ref().unwrap()[0];
    assert!(first.dead);
    assert_eq!(t.requests[0].target.as_deref(), Some(T2));
    // Request 2: the fail filter drops target 1 (dead, so not "skipped healthy").
    assert_eq!(tries(&t, 1), [(T2.into(), 2, true, false, None)]);
    assert!(skipped(&t, 1).is_empty());
    // The same target by address.
    let by_addr = run(
        &plan_of(&example()),
        json!({"deadTargets": [T1], "requests": 2}),
    );
    assert_eq!(by_addr, t);
}

#[test]
fn one_target_and_a_dead_primary_fails_without_retries_and_works_with_retries_2() {
    let plan = single_target_plan();
    let t = run(&plan, json!({"dead": [3], "requests": 2}));
    // One target, one router try: exit 3 (fifo's first) is dead.
    assert!(!t.requests[0].ok);
    assert_eq!(tries(&t, 0), [(T1.into(), 1, false, true, Some(600_000))]);
    // A single target is never filtered; exit 3 is, by the chain's own mark.
    let r = &t.requests[1];
    assert!(r.ok);
    assert_eq!((r.exit_node_id, r.target.as_deref()), (Some(4), Some(T1)));
    // What if the service had retries 2: the router's second try takes exit 4.
    let t = run(&plan, json!({"dead": [3], "requests": 1, "retries": 2}));
    let r = &t.requests[0];
    assert!(r.ok);
    assert_eq!(r.exit_node_id, Some(4));
    assert_eq!(tries(&t, 0), [(T1.into(), 2, true, false, None)]);
    assert_eq!(t.forward.as_ref().unwrap().retries, 2);
}

#[test]
fn what_if_fail_timeout_and_max_fails() {
    let plan = plan_of(&example());
    // failTimeout 30 s: the marks of request 1 keep the targets out at 20 s
    // and let them back at 40 s.
    let t = run(
        &plan,
        json!({"dead": [2], "reviveAtMs": 1, "requests": 3, "gapMs": 20_000, "failTimeout": "30s"}),
    );
    assert_eq!(t.forward.as_ref().unwrap().fail_timeout_ms, 30_000);
    assert!(!t.requests[0].ok);
    assert_eq!(skipped(&t, 1), [(T1.into(), 30_000), (T2.into(), 30_000)]);
    assert!(t.requests[2].ok);
    // The same in nanoseconds.
    let ns = run(
        &plan,
        json!({"dead": [2], "reviveAtMs": 1, "requests": 3, "gapMs": 20_000, "failTimeout": 30_000_000_000i64}),
    );
    assert_eq!(ns, t);
    // maxFails 2: one failure does not filter; request 2 tries both again.
    let t = run(&plan, json!({"dead": [2], "requests": 3, "maxFails": 2}));
    assert_eq!(tries(&t, 1).len(), 2);
    assert!(skipped(&t, 1).is_empty());
    assert_eq!(skipped(&t, 2), [(T1.into(), 601_000), (T2.into(), 601_000)]);
}

#[test]
fn the_forward_is_named_by_id_name_base_or_service() {
    let plan = plan_of(&example());
    for name in [
        json!(12),
        json!("12"),
        json!("web"),
        json!("12_5_3"),
        json!("12_5_3_tcp"),
    ] {
        let t = run(&plan, json!({"forward": name, "requests": 1}));
        assert_eq!(t.forward.unwrap().service, "12_5_3_tcp", "{name}");
    }
    let t = run(&plan, json!({"forward": "12_5_3_udp", "requests": 1}));
    assert_eq!(t.forward.unwrap().service, "12_5_3_udp");
    // Forward 11 ("ssh") runs on the agent, but this plan does not deploy it.
    assert_eq!(
        error(&plan, json!({"forward": "ssh"})),
        ("IN001".into(), "/forward".into())
    );
    assert_eq!(
        error(&plan, json!({"deadTargets": [3]})),
        ("IN001".into(), "/deadTargets/0".into())
    );
    assert_eq!(
        error(&plan, json!({"deadTargets": ["203.0.113.52:443"]})),
        ("IN001".into(), "/deadTargets/0".into())
    );
    assert_eq!(
        error(&plan, json!({"failTimeout": "ten minutes"})),
        ("IN001".into(), "/failTimeout".into())
    );
    assert_eq!(
        error(&plan, json!({"entry": 3})),
        ("NO_ENTRY".into(), "/entry".into())
    );
}

#[test]
fn a_dead_entry_never_reaches_the_forward() {
    let t = run(&plan_of(&example()), json!({"dead": ["n1"], "requests": 1}));
    let r = &t.requests[0];
    assert!(!r.ok && r.attempts.is_empty());
    assert_eq!(r.target_tries.as_deref(), Some(&[][..]));
}

#[test]
fn tunnel_only_plans_keep_their_trace() {
    let mut plan = plan_in(&example(), "create");
    // The tunnel's own create: no forward service.
    let t = run(&plan, json!({"dead": [2], "requests": 1}));
    assert!(t.forward.is_none());
    assert!(t.requests[0].target_tries.is_none());
    assert!(!trace_text(&t).contains("target"));
    // A forward scenario needs a forward.
    assert_eq!(
        error(&plan, json!({"deadTargets": [1]})),
        ("IN001".into(), "/deadTargets".into())
    );
    plan["local"] = json!([]);
    assert!(error(&plan, json!({"forward": 12})).1 == "/forward");
}

/// Every forward vector simulates, with the first hop's first node dead:
/// its trace enters at a forward service of the plan when it deploys one,
/// and no request tries more targets than the loop allows.
#[test]
fn every_forward_vector_simulates() {
    let text = std::fs::read_to_string("tests/data/forward-vectors.jsonl").unwrap();
    let (mut entered, mut plans) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let mode = v["mode"].as_str().unwrap_or("forward-create");
        let plan = plan_in(&v["input"], mode);
        if !plan["error"].is_null() {
            continue;
        }
        plans += 1;
        let sc = Scenario::from_json(&json!({"dead": [3], "requests": 3})).unwrap();
        let Ok(t) = simulate(&plan, &sc) else {
            continue;
        };
        let Some(f) = &t.forward else { continue };
        entered += 1;
        assert!(f.tries >= 1 && f.tries <= f.targets.len(), "{}", v["name"]);
        for r in &t.requests {
            let tries = r.target_tries.as_ref().unwrap();
            assert!(tries.len() <= f.tries, "{}", v["name"]);
            assert_eq!(r.ok, r.target.is_some(), "{}", v["name"]);
            let dials: usize = tries.iter().map(|x| x.dials).sum();
            assert_eq!(dials, r.attempts.len(), "{}", v["name"]);
        }
    }
    assert!(
        plans > 100 && entered > 100,
        "{plans} plans, {entered} entered"
    );
}
