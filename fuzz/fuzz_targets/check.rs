//! Checker: raw bytes as a document (with options when given as
//! `{"doc":…, "options":…}`), and mutated golden inputs, plans and node configs
//! under every document kind.
#![no_main]

use arbitrary::Unstructured;
use hop_policy::check::{check, CheckOptions};
use hop_policy_fuzz::{any_kind, assert_output, mutated_vector, node_config, raw_json, to_json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn run(doc: &Value, options: &Value, planted: bool) {
    // Options that do not deserialize are the binding's error path; check with defaults then.
    let opts = CheckOptions::from_json(options).unwrap_or_default();
    let a = to_json(&check(doc, &opts));
    let b = to_json(&check(doc, &opts));
    // Options are the caller's own input too: an unknown `kind` is quoted back in
    // the IN001 finding, so a canary inside it is not a leak.
    let both = Value::Array(vec![doc.clone(), options.clone()]);
    assert_output(planted.then_some(&both), &a, &b, "check");
}

fuzz_target!(|data: &[u8]| {
    if let Some(v) = raw_json(data) {
        match (v.get("doc"), v.get("options")) {
            (Some(doc), Some(options)) => run(doc, options, false),
            _ => run(&v, &Value::Null, false),
        }
    }
    let mut u = Unstructured::new(data);
    let doc = match u.int_in_range(0u8..=2) {
        Ok(0) => mutated_vector(&mut u, "input"),
        Ok(1) => mutated_vector(&mut u, "expected"),
        _ => node_config(&mut u),
    };
    if let (Ok(doc), Ok(kind)) = (doc, any_kind(&mut u)) {
        run(&doc, &kind, true);
    }
});
