//! The checker on the forward modes: a forward input is checked as its plan
//! (`checkTunnel` with `mode`), never refused as an unknown shape, and the
//! report carries the forward commands' nodes.

use serde_json::Value;
mod golden_vectors;
use golden_vectors::{forward_vectors, mode_of};

#[test]
fn every_forward_vector_checks_with_its_mode() {
    let mut checked = 0;
    for v in forward_vectors().iter().step_by(7) {
        let text = serde_json::to_string(&v["input"]).unwrap();
        let options = format!(r#"{{"mode":"{}"}}"#, mode_of(v).as_str());
        let report = hop_policy::api::check_tunnel(&text, Some(&options))
            .unwrap_or_else(|e| panic!("{}: {:?}", v["name"], e));
        let report: Value = serde_json::from_str(&report).unwrap();
        let plan = &report["plan"];
        assert_eq!(plan["mode"], mode_of(v).as_str(), "{}", v["name"]);
        assert_eq!(
            plan["error"]["message"], v["expected"]["error"],
            "{}",
            v["name"]
        );
        checked += 1;
    }
    assert!(checked > 80);
}
