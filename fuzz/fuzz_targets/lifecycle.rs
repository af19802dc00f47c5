//! Lifecycle replay: raw bytes as a step list, and generated step lists over
//! mutated golden inputs and plans.
#![no_main]

use arbitrary::Unstructured;
use hop_policy::lifecycle::lifecycle;
use hop_policy_fuzz::{assert_output, lifecycle_steps, raw_json, to_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(steps: &Value, planted: bool) {
    let once = || match lifecycle(steps) {
        Ok(report) => to_json(&report),
        Err(e) => to_json(&e),
    };
    let a = once();
    let b = once();
    assert_output(planted.then_some(steps), &a, &b, "lifecycle");
}

fuzz_target!(|data: &[u8]| {
    if let Some(v) = raw_json(data) {
        run(&v, false);
    }
    let mut u = Unstructured::new(data);
    if let Ok(steps) = lifecycle_steps(&mut u) {
        run(&steps, true);
    }
});
