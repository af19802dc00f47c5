//! The wasm bindings, run inside a JavaScript engine: `wasm-pack test --node`
//! and, with `WASM_BINDGEN_USE_BROWSER=1`, `wasm-pack test --headless --chrome`
//! (real Chromium). Inputs are built with the engine's own `JSON.parse`, so the
//! object API is exercised exactly as JS callers use it.
#![cfg(target_arch = "wasm32")]

use hop_policy::wasm;
use js_sys::{Array, Object, Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// A JS string, as JavaScript callers pass JSON text to the `...Json` entry points.
fn jstr(text: &str) -> js_sys::JsString {
    js_sys::JsString::from(text)
}

/// A text export's answer as Rust text (`what` names the call if it threw).
fn answer_text(answer: Result<js_sys::JsString, JsValue>, what: &str) -> String {
    answer
        .map(String::from)
        .unwrap_or_else(|_| panic!("{what} threw"))
}

mod golden_vectors;
use golden_vectors::{all_vectors, forward_vectors, vectors};

/// `{mode}` of a vector, as the options object JavaScript passes.
fn options_of(v: &Value) -> Option<JsValue> {
    Some(js(
        &serde_json::json!({"mode": v["mode"].as_str().unwrap_or("create")}),
    ))
}

fn js(v: &Value) -> JsValue {
    JSON::parse(&v.to_string()).expect("JSON.parse")
}

fn rust(v: &JsValue) -> Value {
    let text: String = JSON::stringify(v).expect("JSON.stringify").into();
    serde_json::from_str(&text).expect("JSON")
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("Reflect.get")
}

/// The golden comparison: `error` string vs `plan.error.message` (null vs
/// null), `federation` and `local` as JSON values. Returns a reason on mismatch.
fn compare(name: &str, plan: &Value, expected: &Value) -> Result<(), String> {
    match (&expected["error"], &plan["error"]) {
        (Value::Null, Value::Null) => {}
        (Value::String(want), Value::Object(got))
            if got.get("message") == Some(&Value::String(want.clone())) => {}
        (want, got) => return Err(format!("{name}: error: want {want}, got {got}")),
    }
    for key in ["federation", "local"] {
        if plan[key] != expected[key] {
            return Err(format!("{name}: {key} differs"));
        }
    }
    Ok(())
}

#[wasm_bindgen_test]
fn every_golden_vector_plans_through_plan_tunnel() {
    let vs = all_vectors();
    assert_eq!(vs.len(), 613 + 200 + 309);
    let mut failures = Vec::new();
    for v in &vs {
        let name = v["name"].as_str().unwrap_or("?");
        let plan = wasm::plan_tunnel(js(&v["input"]), options_of(v))
            .unwrap_or_else(|_| panic!("{name}: planTunnel threw"));
        if let Err(e) = compare(name, &rust(&plan), &v["expected"]) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ; first: {:?}",
        failures.len(),
        vs.len(),
        &failures[..failures.len().min(5)]
    );
}

#[wasm_bindgen_test]
fn plan_tunnel_json_gives_the_same_plan() {
    for v in all_vectors().iter().step_by(7) {
        let input = v["input"].to_string();
        let via_text: Value = serde_json::from_str(&answer_text(
            wasm::plan_tunnel_json(&jstr(&input), None),
            "planTunnelJson",
        ))
        .expect("JSON");
        let via_object = rust(&wasm::plan_tunnel(js(&v["input"]), None).expect("planTunnel"));
        assert_eq!(via_text, via_object, "{}", v["name"]);
        assert!(
            compare(v["name"].as_str().unwrap_or("?"), &via_text, &v["expected"]).is_ok(),
            "{}",
            v["name"]
        );
    }
}

/// An answer reaches JavaScript as exactly the text the core wrote, also
/// where the bindings hand it to the engine's decoder in pieces (a
/// non-ASCII name early, a long ASCII stretch after it: the forward
/// vectors' plans).
#[wasm_bindgen_test]
fn answers_reach_javascript_as_the_core_wrote_them() {
    let mut pieced = 0;
    for v in forward_vectors().iter().step_by(5) {
        let input = v["input"].to_string();
        let mode = v["mode"].as_str().unwrap_or("create");
        let options = format!(r#"{{"mode":"{mode}"}}"#);
        let core = hop_policy::api::plan_json(&input, Some(&options)).expect("plan_json");
        let answer = answer_text(
            wasm::plan_tunnel_json(&jstr(&input), Some(JsValue::from_str(&options))),
            "planTunnelJson",
        );
        assert_eq!(answer, core, "{}", v["name"]);
        let last_wide = core.bytes().rposition(|b| !b.is_ascii());
        if last_wide.is_some_and(|at| core.len() - at > 2048) {
            pieced += 1;
        }
    }
    assert!(
        pieced > 10,
        "only {pieced} answers had a long ASCII stretch after a non-ASCII byte"
    );
}

#[wasm_bindgen_test]
fn plans_are_plain_objects_and_arrays() {
    let seed = vectors()
        .into_iter()
        .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
        .expect("seed");
    let plan = wasm::plan_tunnel(js(&seed["input"]), None).expect("planTunnel");
    let proto = Object::get_prototype_of(&plan);
    assert!(
        JsValue::from(proto) == JsValue::from(Object::get_prototype_of(&Object::new())),
        "plan is not a plain object"
    );
    assert!(Array::is_array(&get(&plan, "federation")));
    assert!(Array::is_array(&get(&plan, "local")));
    assert!(!plan.is_instance_of::<js_sys::Map>());
}

fn assert_thrown(result: Result<JsValue, JsValue>, code: &str) {
    assert_thrown_at(result, code, "");
}

/// Like [`assert_thrown`], for an error that points at `path` in the input.
fn assert_thrown_at(result: Result<JsValue, JsValue>, code: &str, path: &str) {
    let err = match result {
        Ok(v) => panic!("expected a throw with {code}, got {:?}", rust(&v)),
        Err(e) => e,
    };
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "thrown value is not an Error"
    );
    assert_eq!(get(&err, "code").as_string().as_deref(), Some(code));
    assert_eq!(get(&err, "path").as_string().as_deref(), Some(path));
    assert_eq!(
        get(&err, "name").as_string().as_deref(),
        Some("HopPolicyError")
    );
    assert!(get(&err, "message")
        .as_string()
        .map(|m| !m.is_empty())
        .unwrap_or(false));
}

#[wasm_bindgen_test]
fn bad_input_throws_structured_errors() {
    assert_thrown(wasm::plan_tunnel(JsValue::UNDEFINED, None), "IN001");
    // A cyclic object cannot become JSON.
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).expect("set");
    assert_thrown(wasm::plan_tunnel(cyclic.clone().into(), None), "IN001");
    // BigInt has no JSON form.
    assert_thrown(
        wasm::plan_tunnel(js_sys::BigInt::from(5u32).into(), None),
        "IN001",
    );
    assert_thrown(
        wasm::plan_tunnel_json(&jstr("{\"tunnel\":"), None).map(JsValue::from),
        "IN001",
    );
    // A wrong option names its field.
    assert_thrown_at(
        wasm::check_document(JsValue::NULL, Some(js(&serde_json::json!({"kind": 7})))),
        "BAD_OPTIONS",
        "/kind",
    );
}

#[wasm_bindgen_test]
fn any_json_value_plans_without_trapping() {
    for text in [
        "null",
        "0",
        "\"x\"",
        "[]",
        "{}",
        "{\"tunnel\":null,\"nodes\":7}",
        "{\"tunnel\":{\"inNodeId\":[{\"nodeId\":\"1e999\"}]},\"nodes\":[]}",
    ] {
        let plan = wasm::plan_tunnel(JSON::parse(text).expect("JSON"), None)
            .unwrap_or_else(|_| panic!("planTunnel threw on {text}"));
        assert!(!get(&plan, "error").is_null(), "{text} should be rejected");
    }
}

#[wasm_bindgen_test]
fn proto_keys_stay_data() {
    let seed = vectors()
        .into_iter()
        .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
        .expect("seed");
    let mut input = seed["input"].clone();
    input["__proto__"] = serde_json::json!({"polluted": true});
    let text = input.to_string();
    let object = JSON::parse(&text).expect("JSON");
    assert!(Reflect::get(&object, &"polluted".into())
        .expect("get")
        .is_undefined());
    let via_object = rust(&wasm::plan_tunnel(object, None).expect("planTunnel"));
    let via_text: Value = serde_json::from_str(&answer_text(
        wasm::plan_tunnel_json(&jstr(&text), None),
        "planTunnelJson",
    ))
    .expect("JSON");
    assert_eq!(via_object, via_text);
    assert!(
        Reflect::get(&Object::new(), &"polluted".into())
            .expect("get")
            .is_undefined(),
        "Object.prototype was polluted"
    );
}

#[wasm_bindgen_test]
fn unreadable_documents_are_findings_not_throws() {
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).expect("set");
    let report = rust(
        &wasm::check_document(cyclic.into(), None)
            .expect("checkDocument never throws on the document"),
    );
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert_eq!(codes, vec!["IN001"]);
    let report: Value = serde_json::from_str(&answer_text(
        wasm::check_document_json(&jstr("{not json"), None),
        "checkDocumentJson",
    ))
    .expect("JSON");
    assert_eq!(report["findings"][0]["code"], "IN001");
}

#[wasm_bindgen_test]
fn version_is_the_crate_version() {
    assert_eq!(wasm::version(), env!("CARGO_PKG_VERSION"));
}

/// The same input gives byte-identical JSON text every time, in this engine,
/// for planning, checking and simulating (a sample of the golden vectors).
#[wasm_bindgen_test]
fn outputs_are_byte_identical_across_calls() {
    for v in all_vectors().iter().step_by(7) {
        let input = v["input"].to_string();
        let a = answer_text(wasm::plan_tunnel_json(&jstr(&input), None), "plan");
        let b = answer_text(wasm::plan_tunnel_json(&jstr(&input), None), "plan");
        assert_eq!(a, b, "{}", v["name"]);
        let c1 = answer_text(wasm::check_document_json(&jstr(&a), None), "check");
        let c2 = answer_text(wasm::check_document_json(&jstr(&a), None), "check");
        assert_eq!(c1, c2, "{}", v["name"]);
        let scenario = || {
            Some(JsValue::from_str(
                r#"{"dead": [3], "requests": 3, "seed": 7}"#,
            ))
        };
        let s1 = wasm::simulate_json(&jstr(&a), scenario()).map(String::from);
        let s2 = wasm::simulate_json(&jstr(&a), scenario()).map(String::from);
        assert_eq!(s1.ok(), s2.ok(), "{}", v["name"]);
    }
}

/// JSON text reaches the core intact through `TextEncoder.encodeInto`: ASCII,
/// non-ASCII (CJK, emoji) and lone surrogates (U+FFFD, as before), and a
/// value that is not a string is an IN001 report, not a throw or a trap.
#[wasm_bindgen_test]
fn json_text_arguments_are_read_exactly() {
    let doc = "{\"services\":[{\"name\":\"节点-😀-\u{e9}\",\"addr\":\":1\",\"handler\":{\"type\":\"relay\"},\"listener\":{\"type\":\"tcp\"}}]}";
    let via_js: Value = serde_json::from_str(&answer_text(
        wasm::check_document_json(&jstr(doc), None),
        "checkDocumentJson",
    ))
    .expect("JSON");
    let native: Value =
        serde_json::from_str(&hop_policy::api::check_json(doc, None).expect("check"))
            .expect("JSON");
    assert_eq!(via_js, native);
    // A long non-ASCII tail after a long ASCII head (the two-step encoding).
    let long = format!(
        "{{\"services\":[],\"pad\":\"{}\",\"名\":\"{}\"}}",
        "a".repeat(100_000),
        "名".repeat(50_000)
    );
    let via_js: Value = serde_json::from_str(&answer_text(
        wasm::check_document_json(&jstr(&long), None),
        "checkDocumentJson",
    ))
    .expect("JSON");
    let native: Value =
        serde_json::from_str(&hop_policy::api::check_json(&long, None).expect("check"))
            .expect("JSON");
    assert_eq!(via_js, native);
    // A lone surrogate inside a JS string becomes U+FFFD.
    let lone: js_sys::JsString = JSON::parse("\"{\\\"services\\\":[],\\\"x\\\":\\\"\\ud800\\\"}\"")
        .expect("string")
        .unchecked_into();
    let report: Value = serde_json::from_str(&answer_text(
        wasm::check_document_json(&lone, None),
        "checkDocumentJson",
    ))
    .expect("JSON");
    let native: Value = serde_json::from_str(
        &hop_policy::api::check_json("{\"services\":[],\"x\":\"\u{fffd}\"}", None).expect("check"),
    )
    .expect("JSON");
    assert_eq!(report, native);
    // Not a string.
    let not_text: js_sys::JsString = JsValue::from_f64(42.0).unchecked_into();
    let report: Value = serde_json::from_str(&answer_text(
        wasm::check_document_json(&not_text, None),
        "no throw",
    ))
    .expect("JSON");
    assert_eq!(report["findings"][0]["code"], "IN001", "{report}");
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("must be a string"),
        "{report}"
    );
    // A wrong argument type is the caller's error, named, before any memory is touched.
    assert_thrown(
        wasm::plan_tunnel_json(&not_text, None).map(JsValue::from),
        "BAD_ARGUMENT",
    );
    let object_options = Some(js(&serde_json::json!({"kind": "plan"})));
    assert_thrown(
        wasm::check_document_json(&jstr("{}"), object_options).map(JsValue::from),
        "BAD_ARGUMENT",
    );
    assert_thrown(
        wasm::simulate_json(&jstr("{}"), Some(JsValue::from_f64(1.0))).map(JsValue::from),
        "BAD_ARGUMENT",
    );
    // An argument JSON.stringify cannot convert, many times over: no slot leaks
    // (wasm-bindgen's exception glue used to keep one per failing call).
    let big = Object::new();
    Reflect::set(
        &big,
        &JsValue::from_str("tunnel"),
        &js_sys::BigInt::from(1u32).into(),
    )
    .expect("set");
    for _ in 0..20_000 {
        assert!(wasm::plan_tunnel(big.clone().into(), None).is_err());
    }
    assert!(wasm::plan_tunnel_json(&jstr("{}"), None).is_ok());
}
