//! Simulator: raw bytes as `[doc, scenario]` (or a bare doc with the default
//! scenario), and mutated golden plans, inputs and node configs with generated scenarios.
#![no_main]

use arbitrary::Unstructured;
use hop_policy::simulate::{simulate, Scenario};
use hop_policy_fuzz::{assert_output, mutated_vector, node_config, raw_json, scenario, to_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Request counts above this are skipped: the count is the caller's run-time knob,
/// and a fuzzer that asks for four billion requests only measures patience.
const MAX_REQUESTS: u64 = 64;

fn run(doc: &Value, scenario: &Value, planted: bool) {
    if scenario
        .get("requests")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > MAX_REQUESTS)
    {
        return;
    }
    let sc = match Scenario::from_json(scenario) {
        Ok(s) => s,
        Err(_) => return, // the binding reports a bad scenario as an error before simulating
    };
    let once = |d: &Value| match simulate(d, &sc) {
        Ok(trace) => to_json(&trace),
        Err(e) => to_json(&e),
    };
    let a = once(doc);
    let b = once(doc);
    // The scenario may carry a copy of a planted value (a `dead` entry copied from the
    // document); echoing the caller's own scenario is not a leak, so it counts as input.
    let both = Value::Array(vec![doc.clone(), scenario.clone()]);
    assert_output(planted.then_some(&both), &a, &b, "simulate");
}

fuzz_target!(|data: &[u8]| {
    if let Some(v) = raw_json(data) {
        match v.as_array().map(Vec::as_slice) {
            Some([doc, sc]) => run(doc, sc, false),
            _ => run(&v, &Value::Object(Default::default()), false),
        }
    }
    let mut u = Unstructured::new(data);
    let doc = match u.int_in_range(0u8..=3) {
        Ok(0) => mutated_vector(&mut u, "input"),
        Ok(3) => node_config(&mut u),
        _ => mutated_vector(&mut u, "expected"),
    };
    if let Ok(doc) = doc {
        if let Ok(sc) = scenario(&mut u, &doc) {
            run(&doc, &sc, true);
        }
    }
});
