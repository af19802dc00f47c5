//! Parity with the upstream server: every golden vector's plan (create,
//! update, redeploy) must equal the expected one, compared as JSON values.

use hop_policy::planner::{plan, PlanMode, PlanOptions};
use serde_json::Value;
mod golden_vectors;
use golden_vectors::{all_vectors, mode_of, redeploy_vectors, update_vectors, vectors};

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

fn run(vectors: &[Value], count: usize, what: &str) {
    assert_eq!(
        vectors.len(),
        count,
        "the {} file has {} vectors",
        what,
        count
    );
    let mut failures = Vec::new();
    for v in vectors {
        // The shipped JSON text (`planTunnelJson`), read back by serde_json.
        let plan = plan(&v["input"], &PlanOptions::along(mode_of(v)));
        let plan: Value = serde_json::from_str(&hop_policy::encode::to_string(&plan)).unwrap();
        assert_eq!(plan["mode"], mode_of(v).as_str(), "{}", v["name"]);
        if let Some(why) = mismatch(&plan, &v["expected"]) {
            failures.push(format!("{}: {}", v["name"], why));
        }
    }
    eprintln!(
        "{} vectors: {} passed, {} failed",
        what,
        vectors.len() - failures.len(),
        failures.len()
    );
    for f in failures.iter().take(5) {
        eprintln!("{}\n", f);
    }
    assert!(
        failures.is_empty(),
        "{} of {} {} vectors differ",
        failures.len(),
        vectors.len(),
        what
    );
}

#[test]
fn all_create_vectors_match() {
    run(&vectors(), 613, "create");
}

#[test]
fn all_update_vectors_match() {
    let v = update_vectors();
    assert!(v.iter().all(|v| mode_of(v) == PlanMode::Update));
    run(&v, 200, "update");
}

#[test]
fn all_redeploy_vectors_match() {
    let v = redeploy_vectors();
    assert!(v.iter().all(|v| mode_of(v) == PlanMode::Redeploy));
    run(&v, 309, "redeploy");
}

/// The text API prints, byte for byte, what serde's derived serializer
/// prints for the same plan (`crate::encode` replaces it in the `.wasm`).
#[test]
fn text_api_prints_what_serde_prints() {
    for v in all_vectors().iter().step_by(3) {
        let plan = plan(&v["input"], &PlanOptions::along(mode_of(v)));
        assert_eq!(
            hop_policy::encode::to_string(&plan),
            serde_json::to_string(&plan).unwrap(),
            "{}",
            v["name"]
        );
    }
    for v in vectors().iter().step_by(7) {
        let text = serde_json::to_string(&v["input"]).unwrap();
        assert_eq!(
            hop_policy::api::plan_json(&text, None).unwrap(),
            hop_policy::encode::to_string(&hop_policy::plan(&v["input"], &Default::default())),
            "{}",
            v["name"]
        );
    }
}

/// Share tokens and node secrets of the inputs never reach a plan, in any
/// mode (the forward modes relay to remote entries with the token, and
/// never print it).
#[test]
fn credentials_never_appear_in_plans() {
    let mut checked = 0;
    let mut vectors = all_vectors();
    vectors.extend(golden_vectors::forward_vectors());
    for v in vectors {
        let mut secrets: Vec<String> = Vec::new();
        let rows = v["input"]["nodes"]
            .as_array()
            .or_else(|| v["input"]["db"]["node"].as_array())
            .cloned()
            .unwrap_or_default();
        for n in rows {
            for key in ["remoteToken", "remote_token", "secret"] {
                if let Some(t) = n[key].as_str().map(str::trim).filter(|t| !t.is_empty()) {
                    secrets.push(t.to_string());
                }
            }
        }
        let text =
            hop_policy::encode::to_string(&plan(&v["input"], &PlanOptions::along(mode_of(&v))));
        for t in &secrets {
            assert!(
                !text.contains(&format!("\"{}\"", t)) && !text.contains(&format!("{}\"", t)),
                "{} leaks a credential",
                v["name"]
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "{} credentials checked", checked);
}

/// A create without an id names its placeholders; remote nodes without a
/// provider answer list what was assumed, each with a pointer into the input.
#[test]
fn assumed_values_are_listed() {
    let v = golden_vectors::vector("seed-federated-middle-as-the-form-sends-it");
    let plan = hop_policy::plan(&v["input"], &Default::default()).to_json_value();
    let assumed = plan["assumed"].as_array().unwrap();
    let paths: Vec<&str> = assumed
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"/federation/2/allocatedPort"),
        "{:?}",
        paths
    );
    let port = assumed
        .iter()
        .find(|a| a["path"] == "/federation/2/allocatedPort")
        .unwrap();
    // The first port of the share's range (remoteConfig 44000-44100), which the entry's chain dials.
    assert_eq!(port["value"], 44000);
    assert_eq!(
        plan["local"][0]["data"]["hops"][0]["nodes"][0]["addr"],
        "198.51.100.12:44000"
    );
    assert_eq!(port["nodeId"], 2);

    let mut no_id = v["input"].clone();
    no_id["tunnel"].as_object_mut().unwrap().remove("id");
    let plan = hop_policy::plan(&no_id, &Default::default()).to_json_value();
    assert!(plan["error"].is_null());
    assert_eq!(plan["assumed"][0]["path"], "/tunnel/id");
    assert_eq!(plan["assumed"][0]["value"], 1);
    assert_eq!(plan["local"][0]["data"]["name"], "chains_1");

    // With every provider value given, nothing is assumed.
    let seed = golden_vectors::vector("seed-federated-middle-fifo-3-exits");
    let plan = hop_policy::plan(&seed["input"], &Default::default()).to_json_value();
    assert_eq!(plan["assumed"], serde_json::json!([]));
}
