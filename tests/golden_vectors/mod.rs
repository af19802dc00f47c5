//! The golden plan vectors, shared by the integration tests
//! (`mod golden_vectors;` in a test file).
#![allow(dead_code)]

use serde_json::Value;

/// All 606 vectors, in file order.
pub fn vectors() -> Vec<Value> {
    include_str!("../data/plan-vectors.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("vector line is JSON"))
        .collect()
}

/// The vector called `name`.
pub fn vector(name: &str) -> Value {
    vectors()
        .into_iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no golden vector {}", name))
}
