//! The lifecycle replay over every golden vector: create, lost release, edit,
//! failed apply, delete. Checks the bookkeeping that must hold for any plan.

use hop_policy::lifecycle::lifecycle;
use serde_json::json;
mod golden_vectors;
use golden_vectors::vectors;

#[test]
fn create_then_delete_leaves_nothing_and_a_lost_release_leaks_exactly_the_remote_objects() {
    let mut with_remote = 0;
    for v in vectors() {
        let name = v["name"].as_str().unwrap();
        let plan = &v["expected"];
        // Clean create + delete: nothing left, no findings (rejected plans give IN002 only).
        let r =
            lifecycle(&json!([{"op": "apply", "input": v["input"]}, {"op": "delete"}])).unwrap();
        if !plan["error"].is_null() {
            assert_eq!(
                r.findings
                    .iter()
                    .map(|f| f.code.as_str())
                    .collect::<Vec<_>>(),
                vec!["IN002"],
                "{name}"
            );
            continue;
        }
        assert!(r.findings.is_empty(), "{name}: {:?}", r.findings);
        assert_eq!(r.state["nodes"], json!({}), "{name}");
        let out = hop_policy::encode::to_string(&r);
        assert!(!out.contains("remoteToken"), "{name}");
        for n in v["input"]["nodes"].as_array().unwrap() {
            if let Some(tok) = n["remoteToken"].as_str().filter(|t| t.len() > 3) {
                assert!(!out.contains(tok), "{name}: token leaked");
            }
        }
        // Delete with every provider unreachable: each federated service (and middle chain) leaks.
        let remote: Vec<i64> = plan["federation"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["nodeId"].as_i64())
            .collect();
        let expected_leaks: usize = plan["federation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| if f["role"] == "middle" { 2 } else { 1 })
            .sum();
        let r = lifecycle(
            &json!([{"op": "apply", "plan": plan}, {"op": "delete", "unreachable": remote}]),
        )
        .unwrap();
        let leaks = r.findings.iter().filter(|f| f.code == "LC002").count();
        assert_eq!(leaks, expected_leaks, "{name}: {:?}", r.findings);
        if !remote.is_empty() {
            with_remote += 1;
        }
        // Re-applying the same plan after a lost release never changes target counts: no LC001.
        let r = lifecycle(&json!([{"op": "apply", "plan": plan}, {"op": "release", "unreachable": remote}, {"op": "apply", "plan": plan}])).unwrap();
        assert!(r.findings.iter().all(|f| f.code != "LC001"), "{name}");
        // A failure on the first local command of a create rolls everything back.
        if plan["local"]
            .as_array()
            .map(|a| !a.is_empty())
            .unwrap_or(false)
        {
            let r = lifecycle(&json!([{"op": "applyError", "plan": plan, "failAt": 0}])).unwrap();
            assert!(r.findings.is_empty(), "{name}: {:?}", r.findings);
            assert_eq!(r.state["nodes"], json!({}), "{name}");
        }
    }
    assert!(with_remote > 50, "{with_remote}");
}
