//! Parity with the upstream server on forwards: every vector of
//! `forward-vectors.jsonl` (created, edited, and synced by a tunnel's edit or
//! redeploy) must give the expected error, commands, warnings and rows.

use hop_policy::planner::{plan, PlanOptions};
use serde_json::Value;
mod golden_vectors;
use golden_vectors::{forward_vectors, mode_of};

/// What differs between a plan and a forward vector's `expected`, if anything.
fn mismatch(plan: &Value, expected: &Value) -> Option<String> {
    if plan["error"]["message"] != expected["error"] {
        return Some(format!(
            "error: got {} want {}",
            plan["error"]["message"], expected["error"]
        ));
    }
    for key in ["federation", "local", "warnings", "db"] {
        let Some(want) = expected.get(key) else {
            continue;
        };
        if &plan[key] != want {
            return Some(format!(
                "{key}:\n got  {}\n want {}",
                serde_json::to_string(&plan[key]).unwrap(),
                serde_json::to_string(want).unwrap()
            ));
        }
    }
    None
}

#[test]
fn all_forward_vectors_match() {
    let vectors = forward_vectors();
    assert_eq!(vectors.len(), 650);
    let mut failures: Vec<String> = Vec::new();
    let mut by_mode: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for v in &vectors {
        let mode = mode_of(v);
        let plan = plan(&v["input"], &PlanOptions::along(mode));
        let plan: Value = serde_json::from_str(&hop_policy::encode::to_string(&plan)).unwrap();
        let entry = by_mode.entry(mode.as_str().to_string()).or_default();
        entry.0 += 1;
        if let Some(why) = mismatch(&plan, &v["expected"]) {
            entry.1 += 1;
            failures.push(format!("{}: {}", v["name"], why));
        }
    }
    for (mode, (n, failed)) in &by_mode {
        eprintln!("{mode}: {} of {n} match", n - failed);
    }
    let shown: usize = std::env::var("SHOW")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    for f in failures.iter().take(shown) {
        eprintln!("{f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} of 650 forward vectors differ",
        failures.len()
    );
}
