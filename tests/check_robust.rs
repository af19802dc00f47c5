//! The checker never panics: golden plans, configs and tunnel inputs with
//! values swapped for every JSON type at pseudo-random places.

use hop_policy::check::{check, check_text, check_tunnel, report_sarif, report_text, CheckOptions};
use serde_json::{json, Value};
mod golden_vectors;
use golden_vectors::vectors;

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
            let _ = report_text(&rep);
            let _ = report_sarif(&rep, "plan.json");
            let local = plan.get("local").cloned().unwrap_or(Value::Null);
            let _ = check(
                &local,
                &CheckOptions {
                    kind: Some("commands".into()),
                    ..Default::default()
                },
            );
            let _ = check(
                &plan,
                &CheckOptions {
                    kind: Some("config".into()),
                    ..Default::default()
                },
            );
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
            let tc = check_tunnel(&input);
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
    for d in &docs {
        let rep = check(d, &CheckOptions::default());
        let _ = report_text(&rep);
        let _ = report_sarif(&rep, "doc.json");
    }
    for text in [
        "",
        " ",
        "[",
        "{\"a\":",
        "\u{0}",
        "1e999",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    ] {
        let _ = check_text(text, &CheckOptions::default());
    }
    let deep = "[".repeat(5000) + &"]".repeat(5000);
    let rep = check_text(&deep, &CheckOptions::default());
    assert_eq!(rep.findings.len(), 1);
    assert_eq!(rep.findings[0].code, "IN001");
}
