//! The checker never panics: golden plans, configs and tunnel inputs with
//! values swapped for every JSON type at pseudo-random places; each report
//! counts its findings, renders every one of them as text and SARIF, and a
//! document of the wrong shape for its kind is one IN001.

use hop_policy::check::{
    check, check_text, check_tunnel, report_sarif, report_text, CheckOptions, CheckReport,
};
use serde_json::{json, Value};
mod hostile_common;
use hostile_common::{code_paths, vectors};

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn replacement(r: &mut Lcg) -> Value {
    match r.below(12) {
        0 => Value::Null,
        1 => json!("x"),
        2 => json!(1.5),
        3 => json!(-1),
        4 => json!([]),
        5 => json!({}),
        6 => json!(true),
        7 => json!(":::44014"),
        8 => json!(u64::MAX),
        9 => json!([[{"a": null}]]),
        10 => json!("fed_chain_31"),
        _ => json!(" 0.0.0.0 "),
    }
}

/// Replaces one value somewhere inside `v` (a random child at each level).
fn mutate(v: &mut Value, r: &mut Lcg) {
    let stop = r.below(4) == 0;
    let len = match v {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => 0,
    };
    if stop || len == 0 {
        *v = replacement(r);
        return;
    }
    let i = r.below(len);
    match v {
        Value::Array(a) => {
            if let Some(c) = a.get_mut(i) {
                mutate(c, r)
            }
        }
        Value::Object(o) => {
            if let Some(c) = o.values_mut().nth(i) {
                mutate(c, r)
            }
        }
        _ => {}
    }
}

/// The text and SARIF renderings of `rep` carry every finding: the text's
/// first line its counts and each finding's code and place, the SARIF run
/// one result per finding, in order, with its rule and JSON Pointer.
fn assert_rendered(rep: &CheckReport, what: &str) {
    let s = &rep.summary;
    let text = report_text(rep);
    let head = format!(
        "hop-policy check: {} ({}): {} error(s), {} warning(s), {} info(s)",
        s.kind, s.paths_into, s.errors, s.warnings, s.infos
    );
    assert_eq!(text.lines().next(), Some(head.as_str()), "{what}");
    for f in &rep.findings {
        let at = if f.path.is_empty() {
            "(whole document)"
        } else {
            f.path.as_str()
        };
        let line = format!(" {} {} at {}", f.code, f.rule, at);
        assert!(text.contains(&line), "{what}: {line} missing from\n{text}");
    }
    let sarif = report_sarif(rep, "plan.json");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let got: Vec<(&str, &str)> = results
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or_default(),
                r["properties"]["path"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(got, code_paths(rep), "{what}");
}

/// A forced kind is the report's kind; a document of the wrong shape for
/// it is one IN001 for the whole document.
fn assert_checked_as(doc: &Value, kind: &str, readable: bool) {
    let rep = check(
        doc,
        &CheckOptions {
            kind: Some(kind.into()),
            ..Default::default()
        },
    );
    assert_eq!(rep.summary.kind, kind);
    assert_eq!(rep.summary.total, rep.findings.len());
    if !readable {
        let found = code_paths(&rep);
        assert_eq!(found, [("IN001", "")], "{kind}: {doc}");
    }
    assert_rendered(&rep, kind);
}

#[test]
fn mutated_plans_and_commands_never_panic() {
    let mut r = Lcg(0x5eed);
    let mut findings = 0usize;
    for v in vectors().iter().step_by(3) {
        for round in 0..6 {
            let mut plan = v["expected"].clone();
            for _ in 0..=round {
                mutate(&mut plan, &mut r);
            }
            let rep = check(&plan, &CheckOptions::default());
            findings += rep.findings.len();
            assert_eq!(rep.summary.total, rep.findings.len());
            assert_rendered(&rep, "plan");
            // Its local commands as a command list, the plan as a config:
            // only an array is a command list, only an object a config.
            let local = plan.get("local").cloned().unwrap_or(Value::Null);
            assert_checked_as(&local, "commands", local.is_array());
            assert_checked_as(&plan, "config", plan.is_object());
        }
    }
    assert!(findings > 0);
}

#[test]
fn mutated_tunnel_inputs_never_panic() {
    let mut r = Lcg(0xfeed);
    for v in vectors().iter().step_by(5) {
        for round in 0..4 {
            let mut input = v["input"].clone();
            for _ in 0..=round {
                mutate(&mut input, &mut r);
            }
            let rep = check(&input, &CheckOptions::default());
            assert!(rep.summary.total == rep.findings.len());
            let tc = check_tunnel(&input, &Default::default());
            // A `null` tunnel is an empty payload to the server (refused by name, IN002).
            if input
                .get("tunnel")
                .is_some_and(|t| t.is_object() || t.is_null())
            {
                assert_eq!(tc.findings, rep.findings);
            } else {
                let codes: Vec<&str> = tc.findings.iter().map(|f| f.code.as_str()).collect();
                assert_eq!(
                    codes,
                    vec!["IN001"],
                    "input {:?}",
                    serde_json::to_string(&input)
                        .unwrap()
                        .chars()
                        .take(300)
                        .collect::<String>()
                );
            }
        }
    }
}

#[test]
fn odd_documents_never_panic() {
    let docs = [
        json!(null),
        json!("text"),
        json!([1, 2, 3]),
        json!([{"command": 5}]),
        json!([{"nodeId": "7", "command": "UpdateChains", "data": {"chain": "c", "data": {"hops": "x"}}}]),
        json!([{"nodeId": 1, "command": "UpdateChains", "data": {"name": "c", "hops": [{"nodes": [{"addr": 5}]}]}}]),
        json!({"services": {"a": 1}, "chains": "x"}),
        json!({"services": [null, 1, {"handler": {"chain": "", "retries": -3}}]}),
        json!({"services": [{"handler": {"chain": "c", "retries": i64::MIN}}], "chains": [{"name": "c", "hops": [{"nodes": []}]}]}),
        json!({"federation": [1, {"role": "middle"}, {"role": "exit", "commands": "x"}], "local": []}),
        json!({"federation": [{"role": "middle", "apply": {"targets": [1, {"port": "x"}]},
               "commands": [{"command": "AddService", "data": [{"addr": "", "handler": {"chain": "a"}}]},
                            {"command": "AddChains", "data": {"name": "a", "hops": [{"selector": null, "nodes": [null, {"addr": "é:1"}]}]}}]}],
               "local": null, "nodes": [1, {"nodeId": 3, "addresses": [null, "::1"]}]}),
        json!({"tunnel": null}),
        json!({"tunnel": {"type": 2}, "nodes": "x"}),
    ];
    // What each is read as, and findings it must have (code, path).
    let want: [(&str, &[(&str, &str)]); 13] = [
        ("unknown", &[("IN001", "")]),
        ("unknown", &[("IN001", "")]),
        (
            "commands",
            &[("IN001", "/0"), ("IN001", "/1"), ("IN001", "/2")],
        ),
        ("commands", &[("IN001", "/0")]),
        ("commands", &[("AC001", "/0/data/data/hops")]),
        ("commands", &[("AC001", "/0/data/hops/0/nodes/0/addr")]),
        ("config", &[("AC001", "/chains"), ("AC001", "/services")]),
        ("config", &[("AC001", "/services/1")]),
        ("config", &[]),
        (
            "plan",
            &[
                ("IN001", "/federation/0"),
                ("IN001", "/federation/2/commands"),
            ],
        ),
        (
            "plan",
            &[
                ("AC005", "/federation/0/commands/0/data/0/addr"),
                ("AC006", "/federation/0/commands/1/data/hops/0/nodes/1/addr"),
            ],
        ),
        // A null tunnel is an empty payload: refused for its empty name.
        ("tunnel", &[("IN002", "/error")]),
        ("tunnel", &[("IN002", "/error")]),
    ];
    for (d, (kind, must)) in docs.iter().zip(want) {
        let rep = check(d, &CheckOptions::default());
        assert_eq!(rep.summary.kind, kind, "{d}");
        let found = code_paths(&rep);
        for m in must {
            assert!(found.contains(m), "{d}: {m:?} not in {found:?}");
        }
        // A well-typed retries, however negative, is no decode error.
        if kind == "config" && must.is_empty() {
            assert!(!found.iter().any(|(c, _)| *c == "AC001"), "{d}: {found:?}");
        }
        if kind == "tunnel" {
            assert!(rep.findings[0].message.contains("隧道名称不能为空"), "{d}");
        }
        assert_rendered(&rep, kind);
    }
    // Text that is not JSON, or no number a float64 holds, is one IN001 for
    // the whole document; 42 nested arrays are a command list whose command
    // is not an object.
    for (text, kind, at) in [
        ("", "unknown", ""),
        (" ", "unknown", ""),
        ("[", "unknown", ""),
        ("{\"a\":", "unknown", ""),
        ("\u{0}", "unknown", ""),
        ("1e999", "unknown", ""),
        (
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
            "commands",
            "/0",
        ),
    ] {
        let rep = check_text(text, &CheckOptions::default());
        assert_eq!(rep.summary.kind, kind, "{text:?}");
        assert_eq!(code_paths(&rep), [("IN001", at)], "{text:?}");
    }
    let deep = "[".repeat(5000) + &"]".repeat(5000);
    let rep = check_text(&deep, &CheckOptions::default());
    assert_eq!(rep.findings.len(), 1);
    assert_eq!(rep.findings[0].code, "IN001");
}
