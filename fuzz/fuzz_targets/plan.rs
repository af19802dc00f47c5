//! Planner: `api::plan_json` on the raw bytes (as text), `plan` on them when they
//! are JSON, and `plan` on a structure-aware mutation of a golden input.
#![no_main]

use arbitrary::Unstructured;
use hop_policy_fuzz::{assert_output, mutated_vector, to_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(input: &Value, planted: bool) {
    let a = to_json(&hop_policy::plan(input, &Default::default()));
    let b = to_json(&hop_policy::plan(input, &Default::default()));
    assert_output(planted.then_some(input), &a, &b, "plan");
    // The text entry point must agree with the value entry point.
    if let Ok(text) = serde_json::to_string(input) {
        let via_text = hop_policy::api::plan_json(&text, None).expect("JSON text is planned");
        assert_eq!(via_text, a, "api::plan_json and plan disagree");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(out) = hop_policy::api::plan_json(text, None) {
            assert!(
                serde_json::from_str::<Value>(&out).is_ok(),
                "api::plan_json returned invalid JSON"
            );
        }
        // checkTunnel: the same input planned and checked in one call.
        if let Ok(out) = hop_policy::api::check_tunnel_json(text, None) {
            assert!(
                serde_json::from_str::<Value>(&out).is_ok(),
                "api::check_tunnel_json returned invalid JSON"
            );
        }
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            run(&v, false);
        }
    }
    let mut u = Unstructured::new(data);
    if let Ok(doc) = mutated_vector(&mut u, "input") {
        run(&doc, true);
    }
});
