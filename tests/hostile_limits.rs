//! Runs the unit tests of `src/limits.rs` (included by path until `lib.rs`
//! declares `pub mod limits;`), plus limit checks on real documents.

mod error {
    pub use hop_policy::error::*;
}
mod finding {
    pub use hop_policy::finding::*;
}
#[path = "../src/limits.rs"]
#[allow(dead_code)]
mod limits;

use limits::{check_text, check_value, Limits};
use serde_json::Value;

fn vectors() -> Vec<Value> {
    include_str!("data/plan-vectors.jsonl").lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn every_golden_input_and_plan_is_within_the_default_limits() {
    let l = Limits::default();
    for v in vectors() {
        for doc in [&v["input"], &v["expected"]] {
            let text = serde_json::to_string(doc).unwrap();
            assert_eq!(check_text(&text, &l), Ok(()), "{}", v["name"]);
            assert_eq!(check_value(doc, &l), Ok(()), "{}", v["name"]);
        }
    }
}

#[test]
fn a_golden_input_at_exactly_its_sizes_passes_and_one_less_fails() {
    let v = &vectors()[0];
    let input = &v["input"];
    let nodes = input["nodes"].as_array().unwrap().len();
    let hops = input["tunnel"]["chainNodes"].as_array().unwrap().len();
    let per_hop = input["tunnel"]["outNodeId"].as_array().unwrap().len();
    let exact = Limits { max_nodes: nodes, max_hops: hops, max_nodes_per_hop: per_hop, max_depth: 6, ..Limits::default() };
    assert_eq!(check_value(input, &exact), Ok(()));
    let e = check_value(input, &Limits { max_nodes: nodes - 1, ..exact }).unwrap_err();
    assert_eq!((e.limit, e.path.as_str()), ("maxNodes", "/nodes"));
    let e = check_value(input, &Limits { max_nodes_per_hop: per_hop - 1, ..exact }).unwrap_err();
    assert_eq!((e.limit, e.path.as_str()), ("maxNodesPerHop", "/tunnel/outNodeId"));
    let e = check_value(input, &Limits { max_hops: hops - 1, ..exact }).unwrap_err();
    assert_eq!((e.limit, e.path.as_str()), ("maxHops", "/tunnel/chainNodes"));
}
