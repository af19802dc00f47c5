//! A whole panel: `api::backup_tunnels_json` and `api::audit_panel_json` on the raw
//! bytes (as text), and on a structure-aware mutation of the shipped backup
//! export (and of its database-rows form, the tables the CLI reads), with
//! credentials planted: both answer valid JSON or an error, twice the same,
//! and never echo a planted credential.
#![no_main]

use arbitrary::Unstructured;
use hop_policy_fuzz::{assert_output, mutate_once, plant_secrets};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;

fn backup() -> &'static Value {
    static BACKUP: OnceLock<Value> = OnceLock::new();
    BACKUP.get_or_init(|| {
        serde_json::from_str(include_str!("../../examples/panel-backup.json"))
            .expect("the shipped backup is JSON")
    })
}

/// Both panel entry points on `text`; `planted` is the input when credentials
/// were planted in it.
fn run(text: &str, planted: Option<&Value>) {
    type PanelCall = fn(&str, Option<&str>) -> Result<String, hop_policy::error::ApiError>;
    let calls: [(&str, PanelCall); 2] = [
        ("backupTunnels", hop_policy::api::backup_tunnels_json),
        ("auditPanel", hop_policy::api::audit_panel_json),
    ];
    for (what, op) in calls {
        let first = op(text, None);
        let second = op(text, None);
        match (first, second) {
            (Ok(a), Ok(b)) => {
                assert!(
                    serde_json::from_str::<Value>(&a).is_ok(),
                    "{what} returned invalid JSON"
                );
                assert_output(planted, &a, &b, what);
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{what}: the same input gave different errors"),
            (a, b) => panic!("{what}: the same input answered {a:?} then {b:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        run(text, None);
    }
    let mut u = Unstructured::new(data);
    let mut doc = backup().clone();
    plant_secrets(&mut doc);
    let donor = backup();
    let Ok(rounds) = u.int_in_range(0u8..=8) else {
        return;
    };
    for _ in 0..rounds {
        if mutate_once(&mut u, &mut doc, donor).is_err() {
            break;
        }
    }
    if let Ok(text) = serde_json::to_string(&doc) {
        run(&text, Some(&doc));
    }
});
