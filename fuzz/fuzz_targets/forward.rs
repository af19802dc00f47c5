//! The forward modes: `api::plan_json` and `api::check_tunnel_json` with each forward
//! vector's mode on structure-aware mutations of its input (forwards, rows,
//! agents, users), and on raw bytes with a mode picked from the data.
#![no_main]

use arbitrary::Unstructured;
use hop_policy_fuzz::{assert_output, mutated_forward_vector};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const MODES: [&str; 4] = ["forward-create", "forward-update", "update", "redeploy"];

fn run(text: &str, mode: &str, planted: Option<&Value>) {
    let options = format!(r#"{{"mode":"{mode}"}}"#);
    let a = hop_policy::api::plan_json(text, Some(&options)).expect("JSON text is planned");
    let b = hop_policy::api::plan_json(text, Some(&options)).expect("JSON text is planned");
    assert_output(planted, &a, &b, "forward plan");
    if let Ok(out) = hop_policy::api::check_tunnel_json(text, Some(&options)) {
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "check_tunnel returned invalid JSON"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    if let (Some((&pick, rest)), true) = (data.split_first(), data.len() > 1) {
        if let Ok(text) = std::str::from_utf8(rest) {
            if serde_json::from_str::<Value>(text).is_ok() {
                run(text, MODES[pick as usize % MODES.len()], None);
            }
        }
    }
    let mut u = Unstructured::new(data);
    if let Ok((doc, mode)) = mutated_forward_vector(&mut u) {
        if let (Ok(text), false) = (serde_json::to_string(&doc), mode.is_empty()) {
            run(&text, &mode, Some(&doc));
        }
    }
});
