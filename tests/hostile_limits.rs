//! Limit checks on real documents: golden inputs fit, inputs at the limits
//! finish, inputs over them are refused naming the limit.

use hop_policy::limits::{check_text, check_value, Limits};
use serde_json::Value;
mod golden_vectors;
use golden_vectors::vectors;

#[test]
fn every_golden_input_and_plan_is_within_the_default_limits() {
    let l = Limits::default();
    for v in vectors() {
        for doc in [&v["input"], &v["expected"]] {
            let text = serde_json::to_string(doc).unwrap();
            assert_eq!(check_text(&text, &l), Ok(()), "{}", v["name"]);
            assert_eq!(check_value(doc, &l), Ok(()), "{}", v["name"]);
        }
    }
}

#[test]
fn a_golden_input_at_exactly_its_sizes_passes_and_one_less_fails() {
    let v = &vectors()[0];
    let input = &v["input"];
    let nodes = input["nodes"].as_array().unwrap().len();
    let hops = input["tunnel"]["chainNodes"].as_array().unwrap().len();
    let per_hop = input["tunnel"]["outNodeId"].as_array().unwrap().len();
    let exact = Limits {
        max_nodes: nodes,
        max_hops: hops,
        max_nodes_per_hop: per_hop,
        max_depth: 6,
        ..Limits::default()
    };
    assert_eq!(check_value(input, &exact), Ok(()));
    let e = check_value(
        input,
        &Limits {
            max_nodes: nodes - 1,
            ..exact
        },
    )
    .unwrap_err();
    assert_eq!((e.limit, e.path.as_str()), ("maxNodes", "/nodes"));
    let e = check_value(
        input,
        &Limits {
            max_nodes_per_hop: per_hop - 1,
            ..exact
        },
    )
    .unwrap_err();
    assert_eq!(
        (e.limit, e.path.as_str()),
        ("maxNodesPerHop", "/tunnel/outNodeId")
    );
    let e = check_value(
        input,
        &Limits {
            max_hops: hops - 1,
            ..exact
        },
    )
    .unwrap_err();
    assert_eq!(
        (e.limit, e.path.as_str()),
        ("maxHops", "/tunnel/chainNodes")
    );
}

/// A tunnel input exactly at the default limits (in the shape the limits allow:
/// `maxNodes` node rows spread over entries, `hops` middle hops and exits, each
/// group at most `maxNodesPerHop`). Returns the input and the node count used.
fn tunnel_at_limits(per_hop: usize, hops: usize, remote_every: usize) -> Value {
    use serde_json::json;
    let groups = hops + 2;
    let mut nodes = Vec::new();
    let mut group_members: Vec<Vec<Value>> = vec![Vec::new(); groups];
    let mut id = 1i64;
    for (g, members) in group_members.iter_mut().enumerate() {
        for _ in 0..per_hop {
            let remote = remote_every > 0 && g > 0 && (id as usize).is_multiple_of(remote_every);
            nodes.push(json!({
                "id": id, "name": format!("n{}", id), "serverIp": format!("10.{}.{}.{}", id / 65536, (id / 256) % 256, id % 256),
                "serverIpV4": format!("10.{}.{}.{}", id / 65536, (id / 256) % 256, id % 256), "serverIpV6": null,
                "port": "10000-60000", "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "interfaceName": "", "status": 1,
                "isRemote": if remote { 1 } else { 0 },
                "remoteUrl": if remote { json!("https://p.example") } else { Value::Null },
                "remoteToken": if remote { json!(format!("tok-{}", id)) } else { Value::Null },
                "remoteConfig": if remote { json!("{\"shareId\": 1, \"portRangeStart\": 10000, \"portRangeEnd\": 60000}") } else { Value::Null }
            }));
            let mut m = json!({"nodeId": id, "protocol": "tls", "strategy": "fifo"});
            if g > 0 {
                m["port"] = json!(20000 + id);
            }
            members.push(m);
            id += 1;
        }
    }
    let exits = group_members.pop().unwrap();
    let entries = group_members.remove(0);
    json!({"tunnel": {"id": 5, "name": "wide", "type": 2, "ipPreference": "", "inNodeId": entries, "chainNodes": group_members, "outNodeId": exits}, "nodes": nodes})
}

#[test]
fn inputs_at_the_limits_finish_fast() {
    use hop_policy::check::{check, CheckOptions};
    use std::time::Instant;
    let l = Limits::default();
    // widest hops the node budget allows: maxNodes / maxNodesPerHop groups, some remote
    let hops = (l.max_nodes / l.max_nodes_per_hop - 2).min(l.max_hops);
    let input = tunnel_at_limits(l.max_nodes_per_hop, hops, 7);
    assert_eq!(check_value(&input, &l), Ok(()));
    let n = input["nodes"].as_array().unwrap().len();
    assert!(
        n <= l.max_nodes && n + l.max_nodes_per_hop > l.max_nodes,
        "{} nodes",
        n
    );
    let text = serde_json::to_string(&input).unwrap();
    assert_eq!(check_text(&text, &l), Ok(()));
    let t = Instant::now();
    let plan = hop_policy::plan(&input);
    let plan_time = t.elapsed();
    assert!(plan.error.is_none(), "{:?}", plan.error);
    let plan_json = serde_json::to_string(&plan).unwrap();
    let t = Instant::now();
    let report = check(
        &serde_json::to_value(&plan).unwrap(),
        &CheckOptions::default(),
    );
    let check_time = t.elapsed();
    eprintln!(
        "at limits ({} nodes, {} hops of {}): plan {:?} ({} bytes), check {:?} ({} findings)",
        l.max_nodes,
        hops,
        l.max_nodes_per_hop,
        plan_time,
        plan_json.len(),
        check_time,
        report.findings.len()
    );
    // debug build on a shared machine: generous bounds, far below "hangs"
    assert!(plan_time.as_secs() < 20, "plan took {:?}", plan_time);
    assert!(check_time.as_secs() < 60, "check took {:?}", check_time);
    // whatever the limits let in, its plan can be checked again as text within them
    assert_eq!(
        check_text(&plan_json, &l),
        Ok(()),
        "plan of {} bytes",
        plan_json.len()
    );
    // the longest chain the hop limit allows, two nodes per hop
    let long = tunnel_at_limits(2, l.max_hops, 5);
    assert_eq!(check_value(&long, &l), Ok(()));
    let t = Instant::now();
    let plan = hop_policy::plan(&long);
    assert!(plan.error.is_none(), "{:?}", plan.error);
    let sc = hop_policy::simulate::Scenario::from_json(
        &serde_json::json!({"dead": [3, 4, 7], "requests": 20}),
    )
    .unwrap();
    let trace = hop_policy::simulate::simulate(&long, &sc);
    eprintln!(
        "{} hops: plan + simulate {:?} (ok: {})",
        l.max_hops,
        t.elapsed(),
        trace.is_ok()
    );
    assert!(t.elapsed().as_secs() < 20);
}
