//! No entry point panics on hostile input: the whole fuzz seed corpus, deep
//! nesting, 10 MB strings, odd and huge numbers, wrong types at every place of
//! real documents; results are errors or findings. Prototype-ish keys
//! (`__proto__`, `constructor`, `prototype`) are plain data and survive.

mod hostile_common;
use hop_policy::check::{self, CheckOptions};
use hop_policy::simulate::{self, Scenario};
use hostile_common::*;
use serde_json::{json, Map, Value};
use std::time::Instant;

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
    match hop_policy::api::plan_json(text, None) {
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

/// The JSON Pointer of the first array or object (in document order, keys
/// in `serde_json`'s order) nested deeper than `max_depth` (`[]` is depth 1),
/// found without recursion: where the limits say a document is refused.
fn first_too_deep(v: &Value, max_depth: usize) -> Option<String> {
    let mut stack = vec![(v, String::new(), 0usize)];
    while let Some((cur, path, above)) = stack.pop() {
        let children: Vec<(String, &Value)> = match cur {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, c)| (i.to_string(), c))
                .collect(),
            Value::Object(m) => m
                .iter()
                .map(|(k, c)| (k.replace('~', "~0").replace('/', "~1"), c))
                .collect(),
            _ => continue,
        };
        if above + 1 > max_depth {
            return Some(path);
        }
        for (token, child) in children.into_iter().rev() {
            stack.push((child, format!("{path}/{token}"), above + 1));
        }
    }
    None
}

/// The English message of a limit error names the place, the sizes and the
/// option to raise (README, "Limits").
fn names_limit(message: &str, option: &str, at: &str, actual: usize, max: usize) -> bool {
    let place = if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    };
    message.contains(&format!("{place}: {actual} > {max}"))
        && message.contains(&format!("limits.{option}"))
}

#[test]
fn hundred_thousand_brackets_are_an_error_not_a_crash() {
    on_small_stack(|| {
        // The reader stops at the first array or object deeper than maxDepth (64).
        let arrays = "/0".repeat(64);
        let objects = "/a".repeat(64);
        for (text, at) in [
            ("[".repeat(100_000), &arrays),
            ("{\"a\":".repeat(100_000), &objects),
            ("[".repeat(100_000) + &"]".repeat(100_000), &arrays),
        ] {
            let plan =
                hop_policy::api::plan_json(&text, None).expect("a refused plan, not a throw");
            let error = &serde_json::from_str::<Value>(&plan).expect("a plan is JSON")["error"];
            assert_eq!(error["code"], "LIMIT_EXCEEDED");
            let message = error["messageEn"].as_str().unwrap_or_default();
            assert!(names_limit(message, "maxDepth", at, 65, 64), "{message}");
            let report = check::check_text(&text, &CheckOptions::default());
            assert_eq!(code_paths(&report), [("IN001", at.as_str())]);
            let f = &report.findings[0];
            assert!(
                names_limit(&f.message, "maxDepth", at, 65, 64),
                "{}",
                f.message
            );
        }
    });
}

/// Values nested as deep as JSON text can bring them (serde_json stops at 128)
/// in the places each entry point reads, on a wasm-sized stack. (Deeper values
/// can only come from a JavaScript object; the object forms pass it through
/// the engine's `JSON.stringify`, and the reader refuses its text past
/// `maxDepth`: see `src/json/read.rs`.)
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
            let mut refused = 0;
            for doc in [d["input"].clone(), d["expected"].clone(), d.clone()] {
                let outs = outputs_for_value(&doc);
                if let Some(at) = first_too_deep(&doc, 64) {
                    assert_refused_as_too_deep(what, &doc, &at, &outs);
                    refused += 1;
                }
                drop_deep(doc);
            }
            // The whole vector holds the deep value, and so does its input or plan.
            let want = if what == "root" { 1 } else { 2 };
            assert_eq!(refused, want, "{what}");
            drop_deep(d);
        }
    });
}

/// Every entry point refuses `doc`, whose first value over `maxDepth` is at
/// `at`, naming the limit and the place: `outs` are its outputs.
fn assert_refused_as_too_deep(what: &str, doc: &Value, at: &str, outs: &[(&str, String)]) {
    let plan = hop_policy::plan(doc, &Default::default());
    let error = plan.error.as_ref().expect("refused");
    assert_eq!(error.code, "LIMIT_EXCEEDED", "{what}");
    assert!(
        names_limit(&error.message_en, "maxDepth", at, 65, 64),
        "{what}: {}",
        error.message_en
    );
    let as_text = outs.iter().find(|(e, _)| *e == "api::plan");
    assert_eq!(
        as_text.map(|(_, p)| p.as_str()),
        Some(to_json(&plan).as_str()),
        "{what}"
    );
    let report = check::check(doc, &CheckOptions::default());
    let found = code_paths(&report);
    assert_eq!(found, [("IN001", at)], "{what}");
    let tc = check::check_tunnel(doc, &Default::default());
    assert_eq!(tc.plan, plan, "{what}");
    assert_eq!(
        tc.findings
            .iter()
            .map(|f| f.code.as_str())
            .collect::<Vec<_>>(),
        ["IN001"],
        "{what}"
    );
    let e = simulate::simulate(doc, &Scenario::default()).expect_err("refused");
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("LIMIT_EXCEEDED", at),
        "{what}"
    );
    // In a step list the document sits two levels deeper.
    let steps = json!([{"op": "apply", "plan": doc}]);
    let at_in_steps = first_too_deep(&steps, 64).expect("deeper still");
    assert!(at_in_steps.starts_with("/0/plan/"), "{what}: {at_in_steps}");
    let e = hop_policy::lifecycle::lifecycle(&steps).expect_err("refused");
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("LIMIT_EXCEEDED", at_in_steps.as_str()),
        "{what}"
    );
    drop_deep(steps);
}

#[test]
fn ten_megabyte_strings_are_handled() {
    const LEN: usize = 10 * 1024 * 1024;
    let big = "a".repeat(LEN);
    let base = vectors()[0]["input"].clone();
    for at in [
        "/nodes/0/name",
        "/nodes/0/serverIp",
        "/nodes/1/remoteConfig",
        "/tunnel/inNodeId/0/protocol",
        "/tunnel/outNodeId/0/strategy",
        "/nodes/2/port",
    ] {
        let mut d = base.clone();
        *d.pointer_mut(at).expect("a field of the seed") = json!(big);
        let plan = hop_policy::plan(&d, &Default::default());
        let error = plan.error.as_ref().expect("refused");
        assert_eq!(error.code, "LIMIT_EXCEEDED", "{at}");
        assert!(
            names_limit(&error.message_en, "maxStringLen", at, LEN, 65536),
            "{}",
            error.message_en
        );
        assert!(plan.local.is_empty() && plan.federation.is_empty(), "{at}");
        let report = check::check(&d, &CheckOptions::default());
        assert_eq!(code_paths(&report), [("IN001", at)]);
        let f = &report.findings[0];
        assert!(
            names_limit(&f.message, "maxStringLen", at, LEN, 65536),
            "{}",
            f.message
        );
    }
    // as text, and as a bare string document
    let text = serde_json::to_string(&json!(big)).unwrap();
    let plan: Value =
        serde_json::from_str(&hop_policy::api::plan_json(&text, None).unwrap()).unwrap();
    assert_eq!(plan["error"]["code"], "LIMIT_EXCEEDED");
    let message = plan["error"]["messageEn"].as_str().unwrap_or_default();
    assert!(
        names_limit(message, "maxStringLen", "", LEN, 65536),
        "{message}"
    );
    let report = check::check_text(&text, &CheckOptions::default());
    assert_eq!(code_paths(&report), [("IN001", "")]);
    let f = &report.findings[0];
    assert!(
        names_limit(&f.message, "maxStringLen", "", LEN, 65536),
        "{}",
        f.message
    );
    // A dead entry of 10 MB names no node and no address: refused where it
    // is, and not echoed whole.
    let sc = Scenario::from_json(&json!({"dead": [big.clone()]})).unwrap();
    let e = simulate::simulate(&vectors()[0]["expected"], &sc).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("IN001", "/dead/0"));
    assert!(
        e.message.ends_with("is neither a node id nor host:port"),
        "{}",
        e.message
    );
    assert!(e.message.len() < 200, "{} bytes", e.message.len());
    // A lifecycle op of 10 MB is over the string limit where it is.
    let e = hop_policy::lifecycle::lifecycle(&json!([{"op": big}])).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("LIMIT_EXCEEDED", "/0/op")
    );
    assert!(
        names_limit(&e.message, "maxStringLen", "/0/op", LEN, 65536),
        "{}",
        e.message
    );
}

/// What the server's `asInt` reads from a payload or row value
/// (`src/coerce.rs`): a string that is a plain integer once trimmed, a
/// number whose float64 is integral and within int64; `None` (the field's
/// default) for anything else.
fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => {
            let f = n.as_f64()?;
            let whole = f.is_finite()
                && f.fract() == 0.0
                && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f);
            whole.then_some(f as i64)
        }
        _ => None,
    }
}

/// The field `key` of each of `items`.
fn each<'a>(items: impl IntoIterator<Item = &'a Value>, key: &str) -> Vec<&'a Value> {
    items.into_iter().map(|item| &item[key]).collect()
}

/// The local commands of `plan` whose field `key` is `value`.
fn local_where<'a>(plan: &'a Value, key: &str, value: Value) -> Vec<&'a Value> {
    let local = plan["local"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    local.iter().filter(|c| c[key] == value).collect()
}

/// `plan` is refused with `code` and the server's `message`.
fn assert_refused(plan: &Value, code: &str, message: &str, at: &str) {
    assert_eq!(
        (&plan["error"]["code"], &plan["error"]["message"]),
        (&json!(code), &json!(message)),
        "{at}"
    );
}

/// The plan of the seed tunnel (entry 1 -> federated middle 2, port 44010 in
/// its share's range 44000-44100 -> fifo exits 3, 4, 5) with the field at
/// `path` read as `r` (`as_int`): what the server makes of that reading.
/// `seed` is the seed's golden plan.
fn assert_seed_with(path: &str, r: Option<i64>, plan: &Value, seed: &Value, at: &str) {
    let positive = r.filter(|&n| n > 0);
    let ok = plan["error"].is_null();
    let same_as_seed =
        ok && plan["local"] == seed["local"] && plan["federation"] == seed["federation"];
    let middle = &plan["federation"][0];
    let in_range = |p: i64| (44000..=44100).contains(&p);
    match path {
        // A create without an id > 0 is named after id 1, and says so.
        "/tunnel/id" => {
            assert!(ok, "{at}");
            let id = positive.unwrap_or(1);
            assert_eq!(
                plan["local"][0]["data"]["name"],
                format!("chains_{id}"),
                "{at}"
            );
            let assumed = plan["assumed"].as_array().unwrap();
            let says = assumed.iter().any(|a| a["path"] == "/tunnel/id");
            assert_eq!(says, positive.is_none(), "{at}");
        }
        // Any type but 2 is type 1: nothing is sent (`planner::local`).
        "/tunnel/type" => {
            assert_ne!(r, Some(2), "{at}");
            assert!(ok, "{at}");
            assert_eq!(plan["local"], json!([]), "{at}");
            assert_eq!(plan["federation"], json!([]), "{at}");
        }
        // The entry (node 1) has no row any more.
        "/nodes/0/id" => {
            assert_ne!(r, Some(1), "{at}");
            assert_refused(plan, "NODE_NOT_FOUND", "节点不存在", at);
        }
        // The remote middle's port: given and outside its share's range is
        // refused (`planner::request`); not > 0, it is kept as read (upstream
        // reads `isRemote` and picks nothing), requested so, and the
        // provider allocates (`allocatedPort` 44010).
        "/tunnel/chainNodes/0/0/port" => match positive {
            Some(p) => {
                assert!(!in_range(p), "{at}");
                let message = format!("远程节点端口 {p} 超出允许范围 44000-44100");
                assert_refused(plan, "REMOTE_PORT_OUT_OF_RANGE", &message, at);
            }
            None => {
                assert!(ok, "{at}");
                assert_eq!(plan["local"], seed["local"], "{at}");
                assert_eq!(middle["reserve"]["requestedPort"], r.unwrap_or(0), "{at}");
                assert_eq!(
                    middle["commands"], seed["federation"][0]["commands"],
                    "{at}"
                );
            }
        },
        // The first exit (node 3): not > 0 drops it (`model::TunnelPayload`);
        // another id is a node without a row.
        "/tunnel/outNodeId/0/nodeId" => match positive {
            Some(id) => {
                assert!(!(1..=5).contains(&id), "{at}");
                assert_refused(plan, "NODE_NOT_FOUND", "节点不存在", at);
            }
            None => {
                assert!(ok, "{at}");
                let targets = middle["apply"]["targets"].as_array().unwrap();
                assert_eq!(each(targets, "port"), [45002, 45003], "{at}");
                let service = &middle["commands"][1];
                assert_eq!(service["command"], "AddService", "{at}");
                assert_eq!(service["data"][0]["handler"]["retries"], 1, "{at}");
                let services = local_where(plan, "command", json!("AddService"));
                assert_eq!(each(services, "nodeId"), [4, 5], "{at}");
            }
        },
        // A remote node's own port range is never used: the provider picks.
        "/nodes/1/port" => assert!(same_as_seed, "{at}: {}", plan["error"]),
        // The provider's port, used as is (`planner::federation`): outside the share's
        // range the provider refuses the apply; not > 0, the port the
        // tunnel requests (44010, inside the range).
        "/federation/2/allocatedPort" => match positive {
            Some(p) => {
                assert!(!in_range(p), "{at}");
                let message = format!(
                    "远程节点 n2 运行时下发失败: remote api error: port {p} out of allowed range 44000-44100"
                );
                assert_refused(plan, "REMOTE_APPLY_FAILED", &message, at);
            }
            None => assert!(same_as_seed, "{at}: {}", plan["error"]),
        },
        // The runtime id R names fed_chain_R, hop_R and fed_svc_R; not > 0
        // it is node id x 10.
        "/federation/2/runtimeId" => {
            assert!(ok, "{at}");
            assert_eq!(plan["local"], seed["local"], "{at}");
            let id = positive.unwrap_or(20);
            let (chain, service) = (
                &middle["commands"][0]["data"],
                &middle["commands"][1]["data"],
            );
            assert_eq!(chain["name"], format!("fed_chain_{id}"), "{at}");
            assert_eq!(chain["hops"][0]["name"], format!("hop_{id}"), "{at}");
            assert_eq!(service[0]["name"], format!("fed_svc_{id}"), "{at}");
        }
        // Only status 1 is online: the entry is a local node offline.
        "/nodes/0/status" => {
            assert_ne!(r, Some(1), "{at}");
            assert_refused(plan, "NODE_OFFLINE", "部分节点不在线", at);
        }
        // Only isRemote 1 is remote: node 2 becomes a local middle on its
        // given port, with the retries of its three exits.
        "/nodes/1/isRemote" => {
            assert_ne!(r, Some(1), "{at}");
            assert!(ok, "{at}");
            assert_eq!(plan["federation"], json!([]), "{at}");
            let on_2 = local_where(plan, "nodeId", json!(2));
            let commands = each(on_2.iter().copied(), "command");
            assert_eq!(commands, ["AddChains", "AddService"], "{at}");
            let (chain, service) = (&on_2[0]["data"], &on_2[1]["data"][0]);
            assert_eq!(chain["name"], "chains_7", "{at}");
            let dials = chain["hops"][0]["nodes"].as_array().map(Vec::len);
            assert_eq!(dials, Some(3), "{at}");
            assert_eq!(service["addr"], "[::]:44010", "{at}");
            assert_eq!(service["handler"]["retries"], 2, "{at}");
        }
        _ => unreachable!("{at}"),
    }
}

#[test]
fn odd_numbers_and_numeric_text() {
    // Each text names its tunnel, so its numbers reach the request path:
    // the server's first refusal (`planner::request`), or IN001 for text
    // that is not JSON (NaN, Infinity) or a number no float64 holds (as
    // serde_json reads it: `number out of range`).
    let tunnel = |fields: &str| format!(r#"{{"tunnel":{{"name":"t",{fields}}},"nodes":[]}}"#);
    let cases: Vec<(String, Result<&str, &str>)> = vec![
        (tunnel(r#""id":1e400"#), Err("number out of range")),
        (tunnel(r#""id":NaN"#), Err("expected value")),
        (tunnel(r#""id":Infinity"#), Err("expected value")),
        (tunnel(r#""id":-Infinity"#), Err("invalid number")),
        // type 1 (anything but 2) needs entries only; an entry nodeId that
        // reads as no integer > 0 is no entry (`model::TunnelPayload`).
        (tunnel(r#""id":-0.0,"type":1e308,"inNodeId":[{"nodeId":18446744073709551616}]"#), Ok("NO_ENTRIES")),
        (tunnel(r#""inNodeId":[{"nodeId":1.5}]"#), Ok("NO_ENTRIES")),
        (tunnel(r#""inNodeId":[{"nodeId":-9223372036854775809}]"#), Ok("NO_ENTRIES")),
        (tunnel(r#""inNodeId":[{"nodeId":"0x1"}]"#), Ok("NO_ENTRIES")),
        // An entry that reads as node 1, which has no row (item 4).
        (tunnel(r#""inNodeId":[{"nodeId":1.0}]"#), Ok("NODE_NOT_FOUND")),
        (tunnel(r#""inNodeId":[{"nodeId":" 1 "}]"#), Ok("NODE_NOT_FOUND")),
        (tunnel(r#""inNodeId":[{"nodeId":1e0}]"#), Ok("NODE_NOT_FOUND")),
        // Type 2 needs exits too (item 2); a type that reads as no integer is 1.
        (tunnel(r#""type":2.0,"inNodeId":[{"nodeId":1}]"#), Ok("NO_EXITS")),
        (tunnel(r#""type":" 2 ","inNodeId":[{"nodeId":1}]"#), Ok("NO_EXITS")),
        (tunnel(r#""type":1e308,"inNodeId":[{"nodeId":1}]"#), Ok("NODE_NOT_FOUND")),
        (tunnel(r#""type":18446744073709551618,"inNodeId":[{"nodeId":1}]"#), Ok("NODE_NOT_FOUND")),
        (tunnel(r#""type":2.5,"inNodeId":[{"nodeId":1}]"#), Ok("NODE_NOT_FOUND")),
        (
            r#"{"tunnel":{"id":99999999999999999999999999999,"name":"t","type":2},"nodes":[{"id":-9223372036854775809}]}"#.to_string(),
            Ok("NO_ENTRIES"),
        ),
    ];
    for (text, want) in &cases {
        let report = check::check_text(text, &CheckOptions::default());
        let found = code_paths(&report);
        match (hop_policy::api::plan_json(text, None), want) {
            (Err(e), Err(why)) => {
                assert_eq!(e.code, "IN001", "{text}");
                assert!(e.message.contains(why), "{text}: {}", e.message);
                assert_eq!(found, [("IN001", "")], "{text}");
            }
            (Ok(plan), Ok(code)) => {
                let plan: Value = serde_json::from_str(&plan).unwrap();
                assert_eq!(plan["error"]["code"], *code, "{text}");
                assert_eq!(plan["local"], json!([]), "{text}");
                // The checker reports the server's refusal.
                assert_eq!(found, [("IN002", "/error")], "{text}");
                let message = plan["error"]["message"].as_str().unwrap_or_default();
                assert!(report.findings[0].message.contains(message), "{text}");
            }
            (got, _) => panic!("{text}: {got:?}, expected {want:?}"),
        }
    }

    // The seed tunnel with one value replaced by an odd number or numeric
    // text: each field is read with `asInt` (`as_int`), and the answer is
    // what the server makes of that reading.
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
    assert_eq!(v["name"], "seed-federated-middle-fifo-3-exits");
    let mut read_as = std::collections::BTreeSet::new();
    for o in &odd {
        let r = as_int(o);
        read_as.insert(r);
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
            *d.pointer_mut(path).expect("a field of the seed") = o.clone();
            let outs = outputs_for_value(&d);
            let plan: Value = serde_json::from_str(&outs[0].1).expect("a plan is JSON");
            assert_eq!(
                Some(outs[0].1.as_str()),
                outs.iter()
                    .find(|(e, _)| *e == "api::plan")
                    .map(|(_, p)| p.as_str()),
                "{path} = {o}: object and text plans differ"
            );
            let at = format!("{path} = {o} (reads as {r:?})");
            assert_seed_with(path, r, &plan, &v["expected"], &at);
        }
    }
    // The odd values cover every kind of reading: none, negative, zero, positive.
    assert_eq!(
        read_as,
        [None, Some(i64::MIN), Some(-1), Some(0), Some(7)]
            .into_iter()
            .collect()
    );

    // Simulation scenarios with odd numbers, on the seed plan (entry 1 ->
    // federated middle 2 -> fifo exits 3, 4, 5; two dials per request).
    let run = |sc: Value| simulate::simulate(&v["expected"], &Scenario::from_json(&sc).unwrap());
    // A request count that cannot be honoured is capped (README, Limits).
    let t = run(json!({"requests": 4294967295u32, "gapMs": 0})).unwrap();
    assert_eq!(
        (t.summary.requests, t.summary.ok, t.summary.attempts),
        (10_000, 10_000, 20_000)
    );
    assert!(
        t.notes.iter().any(|n| n == "requests capped at 10000"),
        "{:?}",
        t.notes
    );
    assert!(t
        .requests
        .iter()
        .all(|r| r.time_ms == 0 && r.exit_node_id == Some(3)));
    // Start times saturate at the ends of the i64 range.
    for (start, want) in [(i64::MAX, i64::MAX), (i64::MIN, i64::MIN)] {
        let t = run(json!({"startMs": start, "gapMs": start, "requests": 5})).unwrap();
        assert_eq!(
            t.requests.iter().map(|r| r.time_ms).collect::<Vec<_>>(),
            [want; 5]
        );
        assert_eq!((t.summary.ok, t.summary.attempts), (5, 10));
    }
    // The entry's router tries `entryRetries + 1` times, at most 1,000
    // (README, Limits) and at least once.
    let t = run(json!({"seed": u64::MAX, "entryRetries": i64::MAX, "requests": 5})).unwrap();
    assert_eq!((t.summary.ok, t.summary.attempts), (5, 10));
    assert!(t
        .requests
        .iter()
        .all(|r| r.attempts[0].rounds == 1000 && r.attempts[1].rounds == 3));
    let t = run(json!({"entryRetries": i64::MIN, "dead": [-0.0]})).unwrap();
    assert!(t.requests.iter().all(|r| r.attempts[0].rounds == 1));
    assert!(
        t.notes
            .iter()
            .any(|n| n == "dead node 0 is not part of this document"),
        "{:?}",
        t.notes
    );
    assert_eq!((t.summary.requests, t.summary.ok), (3, 3));
    // Entries that name no node and no address are refused where they are.
    for (sc, at) in [
        (json!({"entry": 1e308}), "/entry"),
        (json!({"dead": [1e308]}), "/dead/0"),
        (json!({"dead": [-0.0, u64::MAX]}), "/dead/1"),
        (json!({"dead": [3, "NaN"]}), "/dead/1"),
    ] {
        let e = run(sc.clone()).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("IN001", at),
            "{sc}: {}",
            e.message
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
                    let p = hop_policy::plan(&d, &Default::default());
                    // A refused plan deploys nothing; an accepted one lists its nodes.
                    if p.error.is_some() {
                        assert!(
                            p.local.is_empty() && p.federation.is_empty() && p.nodes.is_empty(),
                            "{name} {path}"
                        );
                    }
                    assert_eq!(
                        to_json(&p),
                        hop_policy::api::plan_json(&d.to_string(), None).unwrap(),
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
                    // The replay of an apply of it answers the same as an
                    // object and as text (`lifecycleJson`).
                    let steps = json!([{"op": "apply", "plan": d}]);
                    let replay = hop_policy::lifecycle::lifecycle(&steps);
                    let as_text = hop_policy::api::lifecycle_json(&steps.to_string());
                    match (&replay, &as_text) {
                        (Ok(r), Ok(t)) => assert_eq!(&to_json(r), t, "{name} {path}"),
                        (Err(a), Err(b)) => assert_eq!(a, b, "{name} {path}"),
                        _ => panic!("{name} {path}: {replay:?} but as text {as_text:?}"),
                    }
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
        let p = hop_policy::plan(&doc, &Default::default());
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
    let e = hop_policy::lifecycle::lifecycle(&json!("steps")).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("IN001", ""));
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
    let plan = serde_json::to_value(hop_policy::plan(&input, &Default::default())).unwrap();
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
        serde_json::to_value(hop_policy::plan(&noisy, &Default::default())).unwrap(),
        serde_json::to_value(hop_policy::plan(&v["input"], &Default::default())).unwrap()
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
