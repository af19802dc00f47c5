//! Data-driven cases in `tests/data/check/cases.json`: each document with the
//! codes it must and must not raise (the same shape the CLI is judged by).

use hop_policy::check::{check, CheckOptions};
use serde_json::Value;

#[test]
fn documented_cases() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/check/cases.json"
    ))
    .expect("cases present");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("cases are JSON");
    assert!(cases.len() >= 10);
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let options = CheckOptions {
            kind: case["kind"].as_str().map(str::to_string),
            ..Default::default()
        };
        let report = check(&case["doc"], &options);
        let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
        for must in case["must"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str())
        {
            assert!(
                codes.contains(&must),
                "{}: must raise {}, got {:?}",
                name,
                must,
                codes
            );
        }
        for not in case["mustNot"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str())
        {
            assert!(
                !codes.contains(&not),
                "{}: must not raise {}, got {:?}",
                name,
                not,
                codes
            );
        }
    }
}
