//! Rule table, text report and SARIF output.

use hop_policy::check::{check, report_sarif, report_text, rules, CheckOptions, CheckReport};
use hop_policy::finding::Severity;
use serde_json::{json, Value};

fn seed_plan_without_retries() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/plan-vectors.jsonl"
    ))
    .expect("golden vectors present");
    let v: Value = serde_json::from_str(text.lines().next().expect("first vector")).expect("JSON");
    let mut plan = v["expected"].clone();
    plan["federation"][0]["commands"][1]["data"][0]["handler"]
        .as_object_mut()
        .map(|h| h.remove("retries"));
    plan
}

fn report() -> CheckReport {
    check(&seed_plan_without_retries(), &CheckOptions::default())
}

#[test]
fn rule_table_covers_every_checker_code() {
    let table = rules();
    let expected = [
        ("AC001", "decode-type", Severity::Error),
        ("AC002", "chain-duration-string", Severity::Error),
        ("AC003", "bad-duration", Severity::Error),
        ("AC004", "unknown-strategy", Severity::Warning),
        ("AC005", "bad-listen-addr", Severity::Error),
        ("AC006", "bad-dial-addr", Severity::Error),
        ("FO001", "missing-retries", Severity::Error),
        ("FO002", "retries-without-chain", Severity::Warning),
        ("FO003", "excess-retries", Severity::Info),
        ("FO004", "dangling-chain", Severity::Error),
        ("LK001", "dangling-target", Severity::Error),
        ("LK002", "protocol-mismatch", Severity::Error),
        ("LK003", "mux-mismatch", Severity::Info),
        ("PA001", "retries-parity", Severity::Error),
        ("PA002", "selector-parity", Severity::Error),
        ("PA003", "metadata-parity", Severity::Info),
        ("PA004", "listen-addr-parity", Severity::Warning),
        ("PA005", "interface-parity", Severity::Warning),
        ("IN001", "unreadable", Severity::Error),
        ("IN002", "server-rejects", Severity::Error),
    ];
    for (code, rule, sev) in expected {
        let r = table
            .iter()
            .find(|r| r.code == code)
            .unwrap_or_else(|| panic!("{} in rules()", code));
        assert_eq!((r.rule.as_str(), r.severity), (rule, sev), "{}", code);
        assert!(!r.description.is_empty() && !r.description_zh.is_empty());
    }
    let mut codes: Vec<&str> = table.iter().map(|r| r.code.as_str()).collect();
    let n = codes.len();
    codes.dedup();
    assert_eq!(codes.len(), n, "codes are unique");
}

#[test]
fn text_report_groups_by_node() {
    let r = report();
    let text = report_text(&r);
    assert!(text.starts_with("hop-policy check: plan"), "{}", text);
    let node2 = text.find("Node 2 (").expect("node 2 section");
    let fo = text
        .find("FO001 missing-retries at /federation/0/commands/1/data/0/handler")
        .expect("FO001 line");
    assert!(fo > node2);
    assert!(
        text.contains("fix: set /federation/0/commands/1/data/0/handler/retries = 2"),
        "{}",
        text
    );
    assert!(
        text.contains("Node 1 ("),
        "entry chain findings (LK003) are under node 1"
    );
    let empty = check(&json!({"services": []}), &CheckOptions::default());
    assert!(report_text(&empty).contains("No findings."));
}

#[test]
fn sarif_report_shape() {
    let r = report();
    let s = report_sarif(&r, "plan.json");
    assert_eq!(s["version"], "2.1.0");
    let run = &s["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "hop-policy");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert!(rules
        .iter()
        .any(|x| x["id"] == "FO001" && x["defaultConfiguration"]["level"] == "error"));
    assert!(rules
        .iter()
        .any(|x| x["id"] == "LK003" && x["defaultConfiguration"]["level"] == "note"));
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), r.findings.len());
    for (res, f) in results.iter().zip(&r.findings) {
        assert_eq!(res["ruleId"], f.code.as_str());
        let idx = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], f.code.as_str());
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        };
        assert_eq!(res["level"], level);
        assert_eq!(
            res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            f.path.as_str()
        );
        assert_eq!(
            res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "plan.json"
        );
        assert_eq!(res["message"]["text"], f.message.as_str());
    }
    let fo = results
        .iter()
        .find(|x| x["ruleId"] == "FO001")
        .expect("FO001 result");
    assert_eq!(fo["properties"]["fix"]["value"], 2);
    assert_eq!(fo["properties"]["nodeId"], 2);
}
