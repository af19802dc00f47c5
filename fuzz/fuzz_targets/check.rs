//! Checker: raw bytes as a document (with options when given as
//! `{"doc":…, "options":…}`), and mutated golden inputs, plans and node configs
//! under every document kind.
#![no_main]

use arbitrary::Unstructured;
use hop_policy::check::{check, check_text, CheckOptions};
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
    // The checker's own reader (text in) against the `Value` route: the same
    // report for any text serde_json reads (its one special key left out).
    if let Ok(text) = std::str::from_utf8(data) {
        if let (Ok(v), false) = (
            serde_json::from_str::<Value>(text),
            text.contains("$serde_json::private::RawValue"),
        ) {
            let opts = CheckOptions::default();
            assert_eq!(
                to_json(&check_text(text, &opts)),
                to_json(&check(&v, &opts)),
                "{text:?}"
            );
        }
    }
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
