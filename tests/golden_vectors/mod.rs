//! The golden vectors of the upstream request path, shared by the
//! integration tests (`mod golden_vectors;` in a test file): `plan` (create),
//! `update` and `redeploy`, byte-identical copies of `shared/golden/`.
#![allow(dead_code)]

use hop_policy::planner::PlanMode;
use serde_json::Value;

fn read(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("vector line is JSON"))
        .collect()
}

/// The 613 create vectors, in file order.
pub fn vectors() -> Vec<Value> {
    read(include_str!("../data/plan-vectors.jsonl"))
}

/// The 200 update vectors.
pub fn update_vectors() -> Vec<Value> {
    read(include_str!("../data/update-vectors.jsonl"))
}

/// The 309 redeploy vectors.
pub fn redeploy_vectors() -> Vec<Value> {
    read(include_str!("../data/redeploy-vectors.jsonl"))
}

/// The 650 forward vectors (forward-create, forward-update, and redeploys
/// and edits of tunnels with forwards).
pub fn forward_vectors() -> Vec<Value> {
    read(include_str!("../data/forward-vectors.jsonl"))
}

/// Every vector of every mode: create, update, redeploy.
pub fn all_vectors() -> Vec<Value> {
    let mut all = vectors();
    all.extend(update_vectors());
    all.extend(redeploy_vectors());
    all
}

/// The request path a vector follows (its `mode`, default create).
pub fn mode_of(v: &Value) -> PlanMode {
    PlanMode::parse(v["mode"].as_str().unwrap_or("create")).expect("known mode")
}

/// The create vector called `name`.
pub fn vector(name: &str) -> Value {
    vectors()
        .into_iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no golden vector {}", name))
}

/// Every `stride`-th item (from a fixed offset), or all of them with
/// `HOP_POLICY_FULL=1`: the heavy fan-outs (every entry point on every
/// document) sample by default to keep `cargo test` quick; fuzzing and the
/// opt-in run cover the rest.
pub fn sampled<T>(items: Vec<T>, stride: usize) -> Vec<T> {
    if std::env::var_os("HOP_POLICY_FULL").is_some_and(|v| v == "1") {
        return items;
    }
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % stride.max(1) == 3 % stride.max(1))
        .map(|(_, v)| v)
        .collect()
}
