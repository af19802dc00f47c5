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
        let plan = serde_json::to_value(hop_policy::plan(&v["input"])).unwrap();
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

#[test]
fn text_api_gives_the_same_plan() {
    for v in vectors().iter().take(50) {
        let text = serde_json::to_string(&v["input"]).unwrap();
        let from_text: Value = serde_json::from_str(&hop_policy::plan_json(&text)).unwrap();
        let direct = serde_json::to_value(hop_policy::plan(&v["input"])).unwrap();
        assert_eq!(from_text, direct, "{}", v["name"]);
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
        let text = serde_json::to_string(&hop_policy::plan(&v["input"])).unwrap();
        for t in tokens {
            assert!(!text.contains(&t), "{} leaks a remoteToken", v["name"]);
        }
    }
}
