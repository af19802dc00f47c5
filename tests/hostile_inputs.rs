//! No entry point panics on hostile input: the whole fuzz seed corpus, deep
//! nesting, 10 MB strings, odd and huge numbers, wrong types at every place of
//! real documents; results are errors or findings. Prototype-ish keys
//! (`__proto__`, `constructor`, `prototype`) are plain data and survive.

mod hostile_common;
use hop_policy::check::{self, CheckOptions};
use hop_policy::simulate::{self, Scenario};
use hostile_common::*;
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};

/// Runs `f` on a thread with a 1 MiB stack (the default stack of a wasm
/// instance), so deep recursion shows up here as it would in the browser.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no panic")
}

fn plan_error_code(plan_json: &str) -> Option<String> {
    let v: Value = serde_json::from_str(plan_json).expect("a plan is JSON");
    v["error"]["code"].as_str().map(str::to_string)
}

/// What the text entry point (`planTunnelJson`) answers `text`: its plan's
/// error code, or the code of the refusal of text that is not JSON.
fn text_answer_code(text: &str) -> Option<String> {
    match hop_policy::api::plan(text, None) {
        Ok(plan) => plan_error_code(&plan),
        Err(e) => Some(e.code),
    }
}

fn in001(report: &check::CheckReport) -> bool {
    report.findings.iter().any(|f| f.code == "IN001")
}

/// Each entry point's answer has its documented shape, whatever the input:
/// a plan has `error`, `federation`, `local`, and a refused one deploys
/// nothing; a report's summary counts its findings; a trace has requests.
fn assert_output_shape(name: &str, entry: &str, v: &Value) {
    let plan_shape = |p: &Value| {
        for key in ["error", "federation", "local", "nodes", "mode"] {
            assert!(
                p.get(key).is_some(),
                "{name}: {entry}: the plan has no {key}"
            );
        }
        if !p["error"].is_null() {
            assert_eq!(
                p["local"],
                json!([]),
                "{name}: {entry}: a refused plan deploys"
            );
            assert_eq!(
                p["federation"],
                json!([]),
                "{name}: {entry}: a refused plan deploys"
            );
        }
    };
    let report_shape = |r: &Value| {
        let findings = r["findings"].as_array();
        assert!(findings.is_some(), "{name}: {entry}: no findings list");
        let n = findings.map_or(0, Vec::len) as u64;
        assert_eq!(
            r["summary"]["total"].as_u64(),
            Some(n),
            "{name}: {entry}: summary total"
        );
        let by_severity: u64 = ["errors", "warnings", "infos"]
            .iter()
            .filter_map(|k| r["summary"][k].as_u64())
            .sum();
        assert_eq!(by_severity, n, "{name}: {entry}: summary by severity");
    };
    match entry {
        "plan" | "api::plan" => plan_shape(v),
        "check_tunnel" => {
            plan_shape(&v["plan"]);
            assert!(
                v["findings"].is_array(),
                "{name}: {entry}: no findings list"
            );
        }
        e if e.starts_with("check") => report_shape(v),
        e if e.starts_with("simulate") => {
            assert!(
                v["requests"].is_array(),
                "{name}: {entry}: a trace without requests"
            )
        }
        _ => {}
    }
}

#[test]
fn the_whole_seed_corpus_runs_through_every_entry_point() {
    let corpus = corpus();
    assert!(corpus.len() > 300, "corpus has {} files", corpus.len());
    let corpus = sampled(corpus, 5);
    let started = Instant::now();
    let n = corpus.len();
    on_small_stack(move || {
        for (name, text) in corpus {
            let outs = outputs_for_text(&text);
            for (entry, out) in &outs {
                assert!(!out.is_empty(), "{}: {} gave nothing", name, entry);
            }
            // JSON outputs are JSON.
            for (entry, out) in outs
                .iter()
                .filter(|(e, _)| !e.contains("text") && !e.contains("err") && !e.contains("report"))
            {
                let v: Value = serde_json::from_str(out)
                    .unwrap_or_else(|e| panic!("{name}: {entry} is not JSON: {e}"));
                assert_output_shape(&name, entry, &v);
            }
        }
    });
    eprintln!(
        "corpus: {} files through every entry point in {:?}",
        n,
        started.elapsed()
    );
}

#[test]
fn hundred_thousand_brackets_are_an_error_not_a_crash() {
    on_small_stack(|| {
        for text in [
            "[".repeat(100_000),
            "{\"a\":".repeat(100_000),
            "[".repeat(100_000) + &"]".repeat(100_000),
        ] {
            let t = Instant::now();
            assert_eq!(text_answer_code(&text).as_deref(), Some("LIMIT_EXCEEDED"));
            assert!(in001(&check::check_text(&text, &CheckOptions::default())));
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "took {:?}",
                t.elapsed()
            );
        }
    });
}

/// Values nested as deep as JSON text can bring them (serde_json stops at 128)
/// in the places each entry point reads, on a wasm-sized stack. (Deeper values
/// can only come from a JavaScript object; serde's own conversion, `clone`,
/// `drop` and serialization all recurse on those, so the binding has to bound
/// depth before converting: see `src/limits.rs`.)
#[test]
fn deep_values_in_every_place_do_not_overflow_a_wasm_sized_stack() {
    on_small_stack(|| {
        let deep = || {
            let mut v = json!("leaf");
            for i in 0..118 {
                v = if i % 2 == 0 {
                    Value::Array(vec![v])
                } else {
                    json!({ "a": v })
                };
            }
            v
        };
        let base = vectors()[0].clone();
        type Place<'a> = (&'a str, Box<dyn Fn(&mut Value) + 'a>);
        let places: Vec<Place> = vec![
            ("root", Box::new(|d: &mut Value| *d = deep())),
            (
                "tunnel",
                Box::new(|d: &mut Value| d["input"]["tunnel"] = deep()),
            ),
            (
                "node name",
                Box::new(|d: &mut Value| d["input"]["nodes"][0]["name"] = deep()),
            ),
            (
                "chainNodes",
                Box::new(|d: &mut Value| d["input"]["tunnel"]["chainNodes"][0][0] = deep()),
            ),
            (
                "federation",
                Box::new(|d: &mut Value| d["input"]["federation"]["2"] = deep()),
            ),
            (
                "plan metadata",
                Box::new(|d: &mut Value| {
                    d["expected"]["local"][0]["data"]["hops"][0]["nodes"][0]["connector"]
                        ["metadata"] = deep()
                }),
            ),
            (
                "plan service",
                Box::new(|d: &mut Value| {
                    d["expected"]["federation"][0]["commands"][1]["data"][0]["handler"] = deep()
                }),
            ),
        ];
        for (what, set) in places {
            let mut d = base.clone();
            set(&mut d);
            for doc in [d["input"].clone(), d["expected"].clone(), d.clone()] {
                let outs = outputs_for_value(&doc);
                assert!(!outs.is_empty(), "{}", what);
                drop_deep(doc);
            }
            drop_deep(d);
        }
    });
}

#[test]
fn ten_megabyte_strings_are_handled() {
    let big = "a".repeat(10 * 1024 * 1024);
    let base = vectors()[0]["input"].clone();
    let mut cases = Vec::new();
    for set in [
        |d: &mut Value, s: &str| d["nodes"][0]["name"] = json!(s),
        |d: &mut Value, s: &str| d["nodes"][0]["serverIp"] = json!(s),
        |d: &mut Value, s: &str| d["nodes"][1]["remoteConfig"] = json!(s),
        |d: &mut Value, s: &str| d["tunnel"]["inNodeId"][0]["protocol"] = json!(s),
        |d: &mut Value, s: &str| d["tunnel"]["outNodeId"][0]["strategy"] = json!(s),
        |d: &mut Value, s: &str| d["nodes"][2]["port"] = json!(s),
    ] {
        let mut d = base.clone();
        set(&mut d, &big);
        cases.push(d);
    }
    let t = Instant::now();
    for d in &cases {
        let _ = hop_policy::plan(d);
        let _ = check::check(d, &CheckOptions::default());
    }
    // as text, and as a bare string document
    let text = serde_json::to_string(&json!(big)).unwrap();
    assert!(text_answer_code(&text).is_some());
    assert!(in001(&check::check_text(&text, &CheckOptions::default())));
    // a dead entry and a lifecycle op of 10 MB
    let sc = Scenario::from_json(&json!({"dead": [big.clone()]})).unwrap();
    let _ = simulate::simulate(&vectors()[0]["expected"], &sc);
    let _ = hop_policy::lifecycle::lifecycle(&json!([{"op": big}]));
    assert!(
        t.elapsed() < Duration::from_secs(60),
        "10 MB strings took {:?}",
        t.elapsed()
    );
}

#[test]
fn odd_numbers_and_numeric_text() {
    let texts = [
        r#"{"tunnel":{"id":1e400},"nodes":[]}"#,
        r#"{"tunnel":{"id":NaN},"nodes":[]}"#,
        r#"{"tunnel":{"id":Infinity},"nodes":[]}"#,
        r#"{"tunnel":{"id":-0.0,"type":1e308,"inNodeId":[{"nodeId":18446744073709551616}]},"nodes":[]}"#,
        r#"{"tunnel":{"id":99999999999999999999999999999,"type":2},"nodes":[{"id":-9223372036854775809}]}"#,
    ];
    for text in texts {
        let code = text_answer_code(text);
        assert!(code.is_some(), "{} -> {:?}", text, code);
        let _ = check::check_text(text, &CheckOptions::default());
    }
    let odd = [
        json!(null),
        json!(true),
        json!(-1),
        json!(0),
        json!(1.5),
        json!(-0.0),
        json!(1e308),
        json!(-1e308),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(4.9e-324),
        json!("NaN"),
        json!("Infinity"),
        json!("-1"),
        json!("1e999"),
        json!("0x10"),
        json!(" 7 "),
    ];
    let v = &vectors()[0];
    for o in &odd {
        for path in [
            "/tunnel/id",
            "/tunnel/type",
            "/nodes/0/id",
            "/tunnel/chainNodes/0/0/port",
            "/tunnel/outNodeId/0/nodeId",
            "/nodes/1/port",
            "/federation/2/allocatedPort",
            "/federation/2/runtimeId",
            "/nodes/0/status",
            "/nodes/1/isRemote",
        ] {
            let mut d = v["input"].clone();
            if let Some(slot) = d.pointer_mut(path) {
                *slot = o.clone();
            }
            let _ = outputs_for_value(&d);
        }
    }
    // simulate scenarios with odd numbers, and a request count that cannot be honoured
    for sc in [
        json!({"requests": 4294967295u32, "gapMs": 0}),
        json!({"startMs": i64::MAX, "gapMs": i64::MAX, "requests": 5}),
        json!({"startMs": i64::MIN, "gapMs": i64::MIN, "requests": 5}),
        json!({"seed": u64::MAX, "entryRetries": i64::MAX, "requests": 5}),
        json!({"entryRetries": i64::MIN, "entry": 1e308, "dead": [1e308, -0.0, u64::MAX, "NaN"]}),
    ] {
        let sc = Scenario::from_json(&sc).unwrap();
        let t = Instant::now();
        let _ = simulate::simulate(&v["expected"], &sc);
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{:?} took {:?}",
            sc,
            t.elapsed()
        );
    }
}

/// Every value of real documents, one at a time, replaced by each JSON type.
#[test]
fn wrong_types_everywhere() {
    let replacements = [
        json!(null),
        json!(true),
        json!(0),
        json!(-7),
        json!(2.5),
        json!(""),
        json!("x:y:z"),
        json!([]),
        json!({}),
        json!([{}]),
        json!({"__proto__": 1}),
    ];
    let vectors = vectors();
    let mut runs = 0usize;
    for name in [
        "seed-federated-middle-fifo-3-exits",
        "two-remote-hops-kcp-v6",
        "port-forward-type-1",
    ] {
        let v = vectors
            .iter()
            .find(|v| v["name"] == name)
            .expect("named vector");
        for doc in [&v["input"], &v["expected"]] {
            for path in sampled(all_pointers(doc), 5) {
                for r in &replacements {
                    let mut d = doc.clone();
                    if let Some(slot) = d.pointer_mut(&path) {
                        *slot = r.clone();
                    }
                    let p = hop_policy::plan(&d);
                    // A refused plan deploys nothing; an accepted one lists its nodes.
                    if p.error.is_some() {
                        assert!(
                            p.local.is_empty() && p.federation.is_empty() && p.nodes.is_empty(),
                            "{name} {path}"
                        );
                    }
                    assert_eq!(
                        to_json(&p),
                        hop_policy::api::plan(&d.to_string(), None).unwrap(),
                        "{name} {path}: object and text plans differ"
                    );
                    let c = check::check(&d, &CheckOptions::default());
                    assert_eq!(c.summary.total, c.findings.len(), "{name} {path}");
                    assert_eq!(
                        c.summary.errors + c.summary.warnings + c.summary.infos,
                        c.findings.len(),
                        "{name} {path}"
                    );
                    if let Ok(t) = simulate::simulate(&d, &Scenario::default()) {
                        assert!(!simulate::trace_text(&t).is_empty(), "{name} {path}");
                    }
                    let _ = hop_policy::lifecycle::lifecycle(&json!([{"op": "apply", "plan": d}]));
                    runs += 1;
                }
            }
        }
    }
    eprintln!("wrong types: {} documents", runs);
    assert!(runs > 700, "{runs}");
}

fn all_pointers(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(v, String::new())];
    while let Some((cur, p)) = stack.pop() {
        match cur {
            Value::Object(m) => {
                for (k, c) in m {
                    stack.push((
                        c,
                        format!("{}/{}", p, k.replace('~', "~0").replace('/', "~1")),
                    ));
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    stack.push((c, format!("{}/{}", p, i)));
                }
            }
            _ => {}
        }
        out.push(p);
    }
    out
}

#[test]
fn unreadable_documents_are_in001_or_errors() {
    for doc in [
        json!(null),
        json!(1),
        json!("tunnel"),
        json!([]),
        json!({}),
        json!({"tunnel": []}),
        json!({"__proto__": {"tunnel": {}}}),
    ] {
        let p = hop_policy::plan(&doc);
        assert!(p.error.is_some(), "{}", doc);
        let r = check::check(&doc, &CheckOptions::default());
        if doc == json!([]) {
            // an empty command list is a readable (empty) document
            assert_eq!(r.summary.kind, "commands");
        } else {
            assert!(in001(&r), "{} -> {:?}", doc, r.findings);
        }
        assert!(
            simulate::simulate(&doc, &Scenario::default()).is_err(),
            "{}",
            doc
        );
    }
    assert!(
        hop_policy::lifecycle::lifecycle(&json!("steps")).is_err()
            || hop_policy::lifecycle::lifecycle(&json!("steps"))
                .is_ok_and(|r| !r.findings.is_empty())
    );
    for text in ["", " ", "nul", "{", "[1,]", "\u{FEFF}{}", "{\"a\":1}{}"] {
        assert_eq!(
            text_answer_code(text).as_deref(),
            Some("IN001"),
            "{:?}",
            text
        );
        assert!(
            in001(&check::check_text(text, &CheckOptions::default())),
            "{:?}",
            text
        );
    }
    // A lone surrogate escape reads as U+FFFD, as Go reads it: the text is
    // JSON, a string, so the server's own refusal of a non-object body.
    assert_eq!(
        text_answer_code("\"\\ud800\"").as_deref(),
        Some("INVALID_INPUT")
    );
}

/// `__proto__`, `constructor` and `prototype` as names and keys are data: they
/// come back unchanged wherever the output carries them.
#[test]
fn prototype_keys_survive_as_plain_data() {
    let v = vectors()
        .into_iter()
        .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
        .unwrap();
    // node names are echoed in the plan's node table
    let mut input = v["input"].clone();
    for (i, name) in [
        "__proto__",
        "constructor",
        "prototype",
        "hasOwnProperty",
        "__defineGetter__",
    ]
    .iter()
    .enumerate()
    {
        input["nodes"][i]["name"] = json!(name);
    }
    let plan = serde_json::to_value(hop_policy::plan(&input)).unwrap();
    assert!(plan["error"].is_null(), "{}", plan["error"]);
    let names: Vec<&str> = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["name"].as_str())
        .collect();
    for name in [
        "__proto__",
        "constructor",
        "prototype",
        "hasOwnProperty",
        "__defineGetter__",
    ] {
        assert!(
            names.contains(&name),
            "node table lost {}: {:?}",
            name,
            names
        );
    }
    // extra keys in the input never change the plan
    let mut noisy = v["input"].clone();
    noisy
        .as_object_mut()
        .unwrap()
        .insert("__proto__".into(), json!({"tunnel": {"id": 999}}));
    noisy["tunnel"]
        .as_object_mut()
        .unwrap()
        .insert("constructor".into(), json!({"prototype": {"id": 1}}));
    noisy["nodes"][0]
        .as_object_mut()
        .unwrap()
        .insert("__proto__".into(), json!({"isRemote": 1, "status": 0}));
    assert_eq!(
        serde_json::to_value(hop_policy::plan(&noisy)).unwrap(),
        serde_json::to_value(hop_policy::plan(&v["input"])).unwrap()
    );
    // keys inside a plan's metadata survive a lifecycle replay into its deployed state
    let mut plan = v["expected"].clone();
    let mut meta = Map::new();
    meta.insert("__proto__".into(), json!({"polluted": true}));
    meta.insert(
        "constructor".into(),
        json!({"prototype": {"polluted": true}}),
    );
    meta.insert("prototype".into(), json!(7));
    plan["local"][1]["data"][0]["handler"]["metadata"] = Value::Object(meta.clone());
    let report = serde_json::to_value(
        hop_policy::lifecycle::lifecycle(&json!([{"op": "apply", "plan": plan}])).unwrap(),
    )
    .unwrap();
    let text = serde_json::to_string(&report["state"]).unwrap();
    assert!(
        text.contains(r#""__proto__":{"polluted":true}"#),
        "{}",
        text
    );
    assert!(
        text.contains(r#""constructor":{"prototype":{"polluted":true}}"#),
        "{}",
        text
    );
    // checker paths name such keys as ordinary pointer tokens
    let mut cfg = json!({"services": [{"name": "s", "addr": ":1", "handler": {"type": "relay", "retries": "2"}, "listener": {"type": "tcp"}}], "chains": []});
    cfg["services"][0]["handler"]
        .as_object_mut()
        .unwrap()
        .insert("__proto__".into(), json!({"retries": 5}));
    let r = check::check(
        &cfg,
        &CheckOptions {
            kind: Some("config".into()),
            ..Default::default()
        },
    );
    assert!(
        r.findings
            .iter()
            .any(|f| f.code == "AC001" && f.path.ends_with("/handler/retries")),
        "{:?}",
        r.findings
    );
}
