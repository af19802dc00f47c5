//! Secrets: `remoteToken` and every other credential-like input field
//! (token, password, secret, …) never reach any output — plans, findings,
//! text and SARIF reports, traces, lifecycle state, error messages — over
//! all golden vectors and the whole fuzz seed corpus.

mod hostile_common;
use hostile_common::*;
use serde_json::{json, Value};

fn assert_absent(outputs: &[(&'static str, String)], secrets: &[String], what: &str) {
    for (entry, out) in outputs {
        for s in secrets {
            assert!(
                !out.contains(s.as_str()),
                "{}: {} echoes the credential {:?}: {}",
                what,
                entry,
                s,
                excerpt(out, s)
            );
        }
    }
}

fn excerpt(out: &str, s: &str) -> String {
    match out.find(s) {
        Some(i) => {
            let from = out.floor_char_boundary(i.saturating_sub(200));
            let to = out.ceil_char_boundary((i + s.len() + 50).min(out.len()));
            format!("...{}...", &out[from..to])
        }
        None => String::new(),
    }
}

/// Adds more credential-looking fields to every node row and to the tunnel.
fn add_credential_fields(input: &mut Value) {
    if let Some(nodes) = input.get_mut("nodes").and_then(Value::as_array_mut) {
        for n in nodes {
            if let Some(o) = n.as_object_mut() {
                o.insert("password".into(), json!("x"));
                o.insert("secret".into(), json!("x"));
                o.insert("apiToken".into(), json!("x"));
                o.insert("remote_token".into(), json!("x"));
                o.insert("remoteToken".into(), json!("x"));
            }
        }
    }
    if let Some(t) = input.get_mut("tunnel").and_then(Value::as_object_mut) {
        t.insert("accessToken".into(), json!("x"));
    }
}

#[test]
fn golden_vectors_never_echo_their_tokens() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 613);
    let mut checked = 0;
    for v in &vectors {
        let input = &v["input"];
        let secrets: Vec<String> = credential_values(input)
            .into_iter()
            .filter(|s| s.len() >= 4)
            .collect();
        if secrets.is_empty() {
            continue;
        }
        checked += 1;
        assert_absent(
            &outputs_for_value(input),
            &secrets,
            v["name"].as_str().unwrap_or("?"),
        );
    }
    assert!(checked > 100, "only {} vectors carry a token", checked);
}

#[test]
fn planted_credentials_never_reach_any_output() {
    for (i, v) in sampled(all_vectors(), 5).iter().enumerate() {
        let mut input = v["input"].clone();
        add_credential_fields(&mut input);
        let canaries = plant_canaries(&mut input, &i.to_string());
        assert!(!canaries.is_empty());
        assert_absent(
            &outputs_for_value(&input),
            &canaries,
            v["name"].as_str().unwrap_or("?"),
        );
    }
}

#[test]
fn corpus_documents_never_echo_planted_credentials() {
    let corpus = corpus();
    assert!(corpus.len() > 300, "corpus has {} files", corpus.len());
    let corpus = sampled(corpus, 3);
    let mut planted_files = 0;
    for (i, (name, text)) in corpus.iter().enumerate() {
        let Ok(mut v) = serde_json::from_str::<Value>(text) else {
            // Not JSON: the text entry points still must not echo anything secret-shaped.
            outputs_for_text(text);
            continue;
        };
        let canaries = plant_canaries(&mut v, &format!("c{}", i));
        if canaries.is_empty() {
            continue;
        }
        planted_files += 1;
        let text = serde_json::to_string(&v).unwrap();
        assert_absent(&outputs_for_text(&text), &canaries, name);
        drop_deep(v);
    }
    assert!(
        planted_files > 50,
        "only {} corpus files carry credentials",
        planted_files
    );
}

#[test]
fn credentials_in_error_paths_stay_hidden() {
    // Remote nodes that the server rejects (share missing, port out of range) and
    // inputs that are not even tunnels: the error text names the node, never its token.
    let v = &vectors()[0];
    let mut input = v["input"].clone();
    input["nodes"][1]["remoteUrl"] = Value::Null; // share missing
    input["nodes"][1]["remoteToken"] = json!("CANARY-share-missing");
    let out = outputs_for_value(&input);
    assert!(
        out.iter().any(|(_, o)| o.contains("REMOTE_SHARE_MISSING")),
        "the share-missing path is reached"
    );
    assert_absent(&out, &["CANARY-share-missing".to_string()], "share missing");
    let mut input = v["input"].clone();
    input["nodes"][1]["remoteToken"] = json!("CANARY-port");
    input["tunnel"]["chainNodes"][0][0]["port"] = json!(1);
    assert_absent(
        &outputs_for_value(&input),
        &["CANARY-port".to_string()],
        "port out of range",
    );
    // the token as the only thing given
    let doc = json!({"remoteToken": "CANARY-bare", "tunnel": "x", "nodes": {"remoteToken": "CANARY-bare"}});
    assert_absent(
        &outputs_for_value(&doc),
        &["CANARY-bare".to_string()],
        "bare",
    );
}

/// Found by the `simulate` fuzz target (fuzz/artifacts, 2026-11-29): a
/// scenario `dead` entry that is an object (here a node row copied from the
/// document, `remoteToken` included) is echoed whole in the error
/// "dead entry {..} is neither a node id nor host:port" (src/simulate/engine.rs,
/// the `else` branch of the dead-entry loop; the `host:port` branch quotes
/// it the same way). Fixed on main by f85780e (src/redact.rs); this test keeps it fixed.
#[test]
fn simulate_does_not_echo_a_dead_entry_object_with_a_token() {
    let text = include_str!("data/hostile/regressions/simulate-dead-entry-echoes-token.json");
    let v: Value = serde_json::from_str(text).unwrap();
    let sc = hop_policy::simulate::Scenario::from_json(&v[1]).unwrap();
    let out = match hop_policy::simulate::simulate(&v[0], &sc) {
        Ok(t) => to_json(&t),
        Err(e) => to_json(&e) + &e.to_string(),
    };
    assert!(!out.contains("CANARY-dead-entry"), "{}", out);
}

/// Found while probing for this test suite: the lifecycle report's `state`
/// (what every node runs) carries a plan's service and chain configs verbatim,
/// so credential-like fields of a user-supplied plan (GOST `handler.auth.password`,
/// `connector.auth.password`, a `token` in metadata) come back in the output.
/// The planner never emits such fields, so golden-vector plans are clean; a plan
/// pasted by an operator is not. Owner: lifecycle (src/lifecycle.rs). Suggested
/// fix: redact values under credential-like keys when copying configs into
/// `state`/`log`. Fixed on main by f85780e (src/redact.rs); this test keeps it fixed.
#[test]
fn lifecycle_state_redacts_credentials_of_a_pasted_plan() {
    let steps: Value = serde_json::from_str(include_str!(
        "data/hostile/regressions/lifecycle-state-echoes-credentials.json"
    ))
    .unwrap();
    let out = to_json(&hop_policy::lifecycle::lifecycle(&steps).unwrap());
    for c in ["CANARY-auth-pass", "CANARY-meta-token", "CANARY-conn-pass"] {
        assert!(!out.contains(c), "{} leaked: {}", c, excerpt(&out, c));
    }
}

/// The same fields through the checker and the simulator stay hidden.
#[test]
fn check_and_simulate_do_not_echo_credentials_of_a_pasted_plan() {
    let steps: Value = serde_json::from_str(include_str!(
        "data/hostile/regressions/lifecycle-state-echoes-credentials.json"
    ))
    .unwrap();
    let plan = &steps[0]["plan"];
    let cfg = json!({"services": plan["local"][1]["data"].clone(), "chains": [plan["local"][0]["data"].clone()]});
    let canaries: Vec<String> = ["CANARY-auth-pass", "CANARY-meta-token", "CANARY-conn-pass"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for doc in [plan, &cfg] {
        let outs: Vec<_> = outputs_for_value(doc)
            .into_iter()
            .filter(|(e, _)| !e.starts_with("lifecycle"))
            .collect();
        assert!(outs.len() > 10);
        assert_absent(&outs, &canaries, "pasted plan");
    }
}
