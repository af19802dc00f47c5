//! Inputs that are small but ask for a large result: stored rows that no
//! count of the input covers, plans that grow as entries x exits, traces that
//! list every candidate of every dial. Each is bounded by a limit that names
//! itself, before the result is built.

use hop_policy::api;
use hop_policy::planner::state::PLAN_BYTES_PER_DIAL;
use serde_json::{json, Value};
mod golden_vectors;

/// A redeploy input of one type-2 tunnel stored as rows: `groups` groups of
/// `per_group` nodes (entries, middle hops, exits), each node a local row.
fn redeploy_rows(per_group: usize, groups: usize) -> Value {
    let mut nodes = Vec::new();
    let mut chains = Vec::new();
    let mut id = 1i64;
    for g in 0..groups {
        let chain_type = match g {
            0 => "1",
            g if g + 1 == groups => "3",
            _ => "2",
        };
        for _ in 0..per_group {
            let ip = format!("10.{}.{}.{}", id / 65536, (id / 256) % 256, id % 256);
            nodes.push(json!({"id": id, "name": format!("n{id}"), "secret": "s", "server_ip": ip,
                "server_ip_v4": ip, "server_ip_v6": null, "port": "10000-60000", "interface_name": null,
                "status": 1, "tcp_listen_addr": "[::]", "udp_listen_addr": "[::]", "is_remote": 0,
                "remote_url": null, "remote_token": null, "remote_config": null}));
            chains.push(
                json!({"id": id, "tunnel_id": 7, "chain_type": chain_type, "node_id": id,
                "port": if g == 0 { Value::Null } else { json!(20000 + id) }, "strategy": "fifo",
                "inx": g, "protocol": "tls", "connect_ip": null}),
            );
            id += 1;
        }
    }
    json!({"tunnelId": 7, "db": {
        "tunnel": {"id": 7, "name": "wide", "type": 2, "status": 1, "ip_preference": ""},
        "chain_tunnel": chains, "node": nodes}})
}

fn plan(input: &Value, options: Value) -> Value {
    let text = api::plan_json(&input.to_string(), Some(&options.to_string())).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn limit_of(plan: &Value) -> (&str, &str) {
    let error = &plan["error"];
    assert_eq!(error["code"], "LIMIT_EXCEEDED", "{error}");
    let message = error["messageEn"].as_str().unwrap();
    let limit = ["maxNodes", "maxHops", "maxNodesPerHop", "maxOutputBytes"]
        .into_iter()
        .find(|l| message.contains(&format!("limits.{l} ")))
        .unwrap_or("");
    (limit, message)
}

#[test]
fn stored_rows_are_counted_against_the_tunnel_limits() {
    let input = redeploy_rows(4, 5); // 20 node rows, groups of 4, 3 middle hops
    let within =
        json!({"mode": "redeploy", "limits": {"maxNodes": 20, "maxNodesPerHop": 4, "maxHops": 3}});
    assert_eq!(plan(&input, within)["error"], Value::Null);
    for (limits, want, text) in [
        (
            json!({"maxNodes": 19}),
            "maxNodes",
            "too many nodes at /db/node: 20 > 19",
        ),
        (
            json!({"maxNodesPerHop": 3}),
            "maxNodesPerHop",
            "too many nodes in one hop at /db/chain_tunnel: 4 > 3",
        ),
        (
            json!({"maxHops": 2}),
            "maxHops",
            "too many hops at /db/chain_tunnel: 3 > 2",
        ),
    ] {
        let p = plan(&input, json!({"mode": "redeploy", "limits": limits}));
        let (limit, message) = limit_of(&p);
        assert_eq!(limit, want, "{message}");
        assert!(message.starts_with(text), "{message}");
        assert_eq!(p["mode"], "redeploy");
    }
}

#[test]
fn a_redeploy_that_would_amplify_is_refused_by_default() {
    // 300 entries and 300 exits in 600 small rows: before the rows were
    // counted, this planned to tens of megabytes.
    let input = redeploy_rows(300, 2);
    let p = plan(&input, json!({"mode": "redeploy"}));
    assert_eq!(limit_of(&p).0, "maxNodesPerHop");
    // Allowed through the node counts, the plan's size is refused from its
    // dial count (90,000 dials) before any command is built.
    let wide =
        json!({"mode": "redeploy", "limits": {"maxNodesPerHop": 300, "maxOutputBytes": 4_000_000}});
    let refused = plan(&input, wide);
    let (limit, message) = limit_of(&refused);
    assert_eq!(limit, "maxOutputBytes");
    let floor = 90_000 * PLAN_BYTES_PER_DIAL;
    assert!(
        message.contains(&format!(": {floor} > 4000000")),
        "{message}"
    );
}

/// The number of node-to-node dials a plan's chains list, from its node table.
fn dials_of(plan: &Value) -> usize {
    let mut groups: Vec<(u8, i64, usize)> = Vec::new();
    for n in plan["nodes"].as_array().unwrap() {
        let rank = match n["role"].as_str().unwrap() {
            "entry" => 0,
            "exit" => 2,
            _ => 1,
        };
        let key = (rank, n["hop"].as_i64().unwrap_or(0));
        match groups.iter_mut().find(|g| (g.0, g.1) == key) {
            Some(g) => g.2 += 1,
            None => groups.push((key.0, key.1, 1)),
        }
    }
    groups.sort();
    groups.windows(2).map(|w| w[0].2 * w[1].2).sum()
}

#[test]
fn the_plan_size_floor_holds_for_every_golden_plan_and_a_wide_one() {
    let mut checked = 0;
    let all = [
        golden_vectors::vectors(),
        golden_vectors::update_vectors(),
        golden_vectors::redeploy_vectors(),
    ];
    for v in all.iter().flatten() {
        let options = json!({"mode": v["mode"].as_str().unwrap_or("create")});
        let text = api::plan_json(&v["input"].to_string(), Some(&options.to_string())).unwrap();
        let p: Value = serde_json::from_str(&text).unwrap();
        if !p["error"].is_null() || p["nodes"].as_array().is_none_or(Vec::is_empty) {
            continue;
        }
        let dials = dials_of(&p);
        assert!(
            text.len() >= dials * PLAN_BYTES_PER_DIAL,
            "{}: {} bytes for {dials} dials",
            v["name"],
            text.len()
        );
        checked += 1;
    }
    assert!(checked > 500, "{checked}");
    let options = json!({"mode": "redeploy", "limits": {"maxNodesPerHop": 100}});
    let text = api::plan_json(
        &redeploy_rows(100, 3).to_string(),
        Some(&options.to_string()),
    )
    .unwrap();
    let p: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(p["error"], Value::Null);
    assert_eq!(dials_of(&p), 20_000);
    eprintln!("wide plan: {} bytes per dial", text.len() / 20_000);
    assert!(text.len() >= 20_000 * PLAN_BYTES_PER_DIAL, "{}", text.len());
}

#[test]
fn every_result_is_refused_over_the_output_limit() {
    let seed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/seed-federated-middle.json"
    ))
    .unwrap();
    let small = r#"{"limits": {"maxOutputBytes": 1000}}"#;
    let p: Value = serde_json::from_str(&api::plan_json(&seed, Some(small)).unwrap()).unwrap();
    assert_eq!(limit_of(&p).0, "maxOutputBytes");
    let e = api::check_tunnel_json(&seed, Some(small)).unwrap_err();
    assert_eq!(e.code, "LIMIT_EXCEEDED");
    assert!(e.message.contains("limits.maxOutputBytes"), "{}", e.message);
    let plan_text = api::plan_json(&seed, None).unwrap();
    let report: Value = serde_json::from_str(
        &api::check_json(&plan_text, Some(r#"{"limits": {"maxOutputBytes": 100}}"#)).unwrap(),
    )
    .unwrap();
    assert_eq!(report["findings"][0]["code"], "IN001");
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("limits.maxOutputBytes"));
    // A trace lists every candidate of every dial: counted as it is recorded.
    let scenario = r#"{"dead": [3], "requests": 10000, "limits": {"maxOutputBytes": 200000}}"#;
    let e = api::simulate_json(&seed, Some(scenario)).unwrap_err();
    assert_eq!(e.code, "LIMIT_EXCEEDED");
    assert!(e.message.contains("limits.maxOutputBytes"), "{}", e.message);
    let e = api::simulate_text(&seed, &api::scenario(Some(scenario)).unwrap()).unwrap_err();
    assert_eq!(e.code, "LIMIT_EXCEEDED");
    // The same scenario within the default limit answers.
    let fine = r#"{"dead": [3], "requests": 50}"#;
    assert!(api::simulate_json(&seed, Some(fine)).is_ok());
}

#[test]
fn a_tunnel_over_a_limit_found_while_planning_is_in001_not_a_server_rejection() {
    let input = redeploy_rows(300, 2).to_string();
    let report: Value = serde_json::from_str(
        &api::check_json(&input, Some(r#"{"kind": "tunnel", "mode": "redeploy"}"#)).unwrap(),
    )
    .unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "IN001");
    assert!(findings[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("too many nodes in one hop at /db/chain_tunnel: 65 > 64"));
    let checked: Value = serde_json::from_str(
        &api::check_tunnel_json(&input, Some(r#"{"mode": "redeploy"}"#)).unwrap(),
    )
    .unwrap();
    assert_eq!(checked["plan"]["error"]["code"], "LIMIT_EXCEEDED");
    assert_eq!(checked["findings"][0]["code"], "IN001");
}

/// The counted length of a result is the length of its text, for every
/// golden plan and its check (the plan is refused on the count alone).
#[test]
fn a_counted_text_length_is_the_written_one() {
    use hop_policy::encode::{text_len, to_string};
    use hop_policy::planner::{plan, PlanMode, PlanOptions};
    let all = [
        golden_vectors::vectors(),
        golden_vectors::update_vectors(),
        golden_vectors::redeploy_vectors(),
    ];
    for v in all.iter().flatten() {
        let options = PlanOptions {
            mode: PlanMode::parse(v["mode"].as_str().unwrap_or("create")),
            ..PlanOptions::default()
        };
        let plan = plan(&v["input"], &options);
        assert_eq!(text_len(&plan), to_string(&plan).len(), "{}", v["name"]);
        let (checked, _) = hop_policy::check::check_planned(plan);
        assert_eq!(
            text_len(&checked),
            to_string(&checked).len(),
            "{}",
            v["name"]
        );
    }
    let odd = json!({"a": "\u{1}\"\\é\n", "b": [1.5, -0.0, 1e300, null, true, false, 18446744073709551615u64]});
    assert_eq!(text_len(&odd), to_string(&odd).len());
}
