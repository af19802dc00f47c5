//! The simulator over the 613 create golden vectors: topology resolution and basic
//! failover invariants, for the upstream plans (no node table) and for the
//! planner's plans (with the node table).

use hop_policy::simulate::{simulate, Scenario, Trace};
use serde_json::{json, Value};
use std::collections::BTreeSet;
mod golden_vectors;
use golden_vectors::vectors;

fn sc(v: Value) -> Scenario {
    Scenario::from_json(&v).unwrap()
}

/// Node ids of the tunnel's exits, from the input.
fn exits(input: &Value) -> BTreeSet<i64> {
    input["tunnel"]["outNodeId"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|o| {
                    o["nodeId"]
                        .as_i64()
                        .or_else(|| o["nodeId"].as_str().and_then(|s| s.trim().parse().ok()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// True when every request reached an exit; otherwise each failure must come
/// from a chain address no service answers (a real defect of that vector).
fn check_all_alive(name: &str, t: &Trace, exit_ids: &BTreeSet<i64>) -> bool {
    let broken = t.requests.iter().any(|r| {
        r.exit_addr.is_some()
            || r.attempts.iter().any(|a| {
                !a.ok
                    && (a.reason.contains("nothing listens")
                        || a.reason.contains("not host:port")
                        || a.reason.contains("cannot listen"))
            })
    });
    if broken {
        for r in &t.requests {
            for a in r.attempts.iter().filter(|a| !a.alive) {
                assert!(
                    a.reason.contains("nothing listens")
                        || a.reason.contains("not host:port")
                        || a.reason.contains("cannot listen"),
                    "{name}: {}",
                    a.reason
                );
            }
        }
        return false;
    }
    for r in &t.requests {
        assert!(r.ok, "{name}: request {} failed: {}", r.index, r.outcome);
        assert!(!r.direct, "{name}: request {} direct", r.index);
        let exit = r
            .exit_node_id
            .unwrap_or_else(|| panic!("{name}: request {} has no exit: {}", r.index, r.outcome));
        assert!(
            exit_ids.contains(&exit),
            "{name}: exit {exit} not in {exit_ids:?}"
        );
        assert!(
            r.attempts
                .iter()
                .all(|a| a.ok && a.alive && a.to_node_id.is_some()),
            "{name}: {:?}",
            r.attempts
        );
    }
    true
}

#[test]
fn every_vector_carries_all_requests_to_an_exit_when_nothing_is_dead() {
    let mut checked = 0;
    let mut clean_count = 0;
    for v in vectors() {
        let name = v["name"].as_str().unwrap().to_string();
        if !v["expected"]["error"].is_null() {
            let e = simulate(&v["expected"], &Scenario::default()).unwrap_err();
            assert_eq!(e.code, "PLAN_ERROR", "{name}");
            continue;
        }
        if v["input"]["tunnel"]["type"] != json!(2) {
            // Port forward: no chain; the entry itself dials the destination.
            let t = simulate(&v["input"], &sc(json!({"requests": 1}))).unwrap();
            let e = &v["input"]["tunnel"]["inNodeId"][0]["nodeId"];
            let entry = e
                .as_i64()
                .or_else(|| e.as_str().and_then(|s| s.trim().parse().ok()));
            assert!(
                t.requests[0].ok
                    && t.requests[0].attempts.is_empty()
                    && t.requests[0].exit_node_id == entry,
                "{name}"
            );
            continue;
        }
        checked += 1;
        let exit_ids = exits(&v["input"]);
        let t = simulate(&v["expected"], &sc(json!({"requests": 4})))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let clean = check_all_alive(&name, &t, &exit_ids);
        let t2 = simulate(&v["input"], &sc(json!({"requests": 4})))
            .unwrap_or_else(|e| panic!("{name} (input): {e}"));
        let clean2 = check_all_alive(&name, &t2, &exit_ids);
        if clean && clean2 {
            clean_count += 1;
        } else {
            continue;
        }
        // Both documents describe the same deployment: same dials.
        let dials = |t: &Trace| -> Vec<Vec<(Option<i64>, Option<i64>)>> {
            t.requests
                .iter()
                .map(|r| {
                    r.attempts
                        .iter()
                        .map(|a| (a.from_node_id, a.to_node_id))
                        .collect()
                })
                .collect()
        };
        // `hash` keys on the peer's address, which only the node table knows.
        if !v["input"]["tunnel"].to_string().contains("\"hash\"") {
            assert_eq!(dials(&t), dials(&t2), "{name}");
        }
    }
    assert!(checked > 250, "{checked}");
    eprintln!("{checked} type-2 vectors, {clean_count} with every chain address answered");
    assert!(clean_count * 2 > checked, "{clean_count} of {checked}");
}

#[test]
fn every_vector_with_all_exits_dead_never_reaches_an_exit() {
    for v in vectors() {
        if !v["expected"]["error"].is_null() {
            continue;
        }
        let name = v["name"].as_str().unwrap();
        if v["input"]["tunnel"]["type"] != json!(2) {
            continue;
        }
        let exit_ids: Vec<i64> = exits(&v["input"]).into_iter().collect();
        let t = simulate(&v["input"], &sc(json!({"dead": exit_ids, "requests": 3}))).unwrap();
        for r in &t.requests {
            assert_eq!(r.exit_node_id, None, "{name}");
            // A request succeeds only as direct egress.
            assert_eq!(
                r.ok,
                r.direct || r.exit_addr.is_some(),
                "{name}: {}",
                r.outcome
            );
            for a in &r.attempts {
                if a.to_node_id
                    .map(|id| exit_ids.contains(&id))
                    .unwrap_or(false)
                {
                    assert!(!a.ok && !a.alive && a.marked, "{name}");
                }
            }
        }
    }
}

#[test]
fn invariants_hold_for_many_death_patterns() {
    let mut requests = 0;
    for v in vectors() {
        if !v["expected"]["error"].is_null() || v["input"]["tunnel"]["type"] != json!(2) {
            continue;
        }
        let name = v["name"].as_str().unwrap();
        let ids: Vec<i64> = v["input"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["id"].as_i64())
            .collect();
        for k in 0..3 {
            let dead: Vec<i64> = ids.iter().copied().filter(|id| id % 3 == k).collect();
            for doc in [&v["input"], &v["expected"]] {
                let t = simulate(
                    doc,
                    &sc(json!({"dead": dead, "requests": 5, "gapMs": 200_000, "seed": k})),
                )
                .unwrap();
                for r in &t.requests {
                    requests += 1;
                    if r.ok {
                        assert!(
                            r.direct ^ (r.exit_node_id.is_some() || r.exit_addr.is_some()),
                            "{name}: {r:?}"
                        );
                    } else {
                        assert!(!r.direct && r.exit_node_id.is_none(), "{name}");
                    }
                    if let Some(e) = r.exit_node_id {
                        assert!(!dead.contains(&e), "{name}: dead exit {e} carried");
                    }
                    for (i, a) in r.attempts.iter().enumerate() {
                        assert_eq!(a.seq, i);
                        assert!(a.round < a.rounds);
                        if !a.alive {
                            assert!(a.marked && !a.ok && !a.carried, "{name}");
                        }
                        if a.to_node_id.map(|id| dead.contains(&id)).unwrap_or(false) {
                            assert!(!a.alive, "{name}: dead node {:?} answered", a.to_node_id);
                        }
                        if a.carried {
                            assert!(a.ok && a.alive);
                        }
                    }
                }
            }
        }
    }
    assert!(requests > 10_000, "{requests}");
}
