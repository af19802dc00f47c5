//! Parity with the upstream server: every golden vector's plan must equal
//! the expected one, compared as JSON values.

use serde_json::Value;
mod golden_vectors;
use golden_vectors::vectors;

/// Compares a plan with a golden `expected`: `error` as the server's text
/// (`expected.error` string == `plan.error.message`), the two lists as JSON values.
fn mismatch(plan: &Value, expected: &Value) -> Option<String> {
    let got_error = plan["error"]["message"].clone();
    let want_error = expected["error"].clone();
    if got_error != want_error {
        return Some(format!("error: got {} want {}", got_error, want_error));
    }
    for key in ["federation", "local"] {
        if plan[key] != expected[key] {
            return Some(format!(
                "{}:\n got  {}\n want {}",
                key,
                serde_json::to_string(&plan[key]).unwrap(),
                serde_json::to_string(&expected[key]).unwrap()
            ));
        }
    }
    None
}

#[test]
fn all_golden_vectors_match() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 606, "the golden file has 606 vectors");
    let mut failures = Vec::new();
    for v in &vectors {
        // The shipped JSON text (`plan_json`, `planTunnelJson`), read back.
        let plan = hop_policy::plan(&v["input"]).to_json_value().unwrap();
        if let Some(why) = mismatch(&plan, &v["expected"]) {
            failures.push(format!("{}: {}", v["name"], why));
        }
    }
    let passed = vectors.len() - failures.len();
    eprintln!("golden vectors: {} passed, {} failed", passed, failures.len());
    for f in failures.iter().take(5) {
        eprintln!("{}\n", f);
    }
    assert!(failures.is_empty(), "{} of {} vectors differ", failures.len(), vectors.len());
}

/// The text API prints, byte for byte, what serde's derived serializer
/// prints for the same plan (`crate::encode` replaces it in the `.wasm`).
#[test]
fn text_api_prints_what_serde_prints() {
    for v in vectors() {
        let text = serde_json::to_string(&v["input"]).unwrap();
        let shipped = hop_policy::plan_json(&text);
        let plan = hop_policy::plan(&v["input"]);
        assert_eq!(shipped, serde_json::to_string(&plan).unwrap(), "{}", v["name"]);
        assert_eq!(shipped, hop_policy::encode::to_string(&plan), "{}", v["name"]);
    }
}

#[test]
fn remote_token_never_appears_in_plans() {
    for v in vectors() {
        let tokens: Vec<String> = v["input"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["remoteToken"].as_str().map(str::trim).filter(|t| !t.is_empty()).map(String::from))
            .collect();
        let text = hop_policy::encode::to_string(&hop_policy::plan(&v["input"]));
        for t in tokens {
            assert!(!text.contains(&t), "{} leaks a remoteToken", v["name"]);
        }
    }
}
