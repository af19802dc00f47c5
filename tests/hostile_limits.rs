//! Limit checks on real documents: golden inputs fit, inputs at the limits
//! are planned in full, inputs over them are refused naming the limit.

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

/// The limit an input is refused at by the planner, and where (the
/// message names both: a refused plan's error has no path of its own).
fn refused_at(input: &Value, limits: Limits) -> Option<(String, String)> {
    use hop_policy::planner::{plan, PlanOptions};
    let options = PlanOptions {
        limits,
        ..PlanOptions::default()
    };
    let error = plan(input, &options).error?;
    assert_eq!(error.code, "LIMIT_EXCEEDED", "{error:?}");
    let message = error.message_en;
    let at = message.split(" at ").nth(1)?.split(':').next()?.to_string();
    let limit = message
        .split("limits.")
        .nth(1)?
        .split(' ')
        .next()?
        .to_string();
    Some((limit, at))
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
    assert_eq!(refused_at(input, exact), None);
    let over = |limits: Limits| refused_at(input, limits).unwrap();
    let named = |limit: &str, at: &str| (limit.to_string(), at.to_string());
    let fewer_nodes = Limits {
        max_nodes: nodes - 1,
        ..exact
    };
    assert_eq!(over(fewer_nodes), named("maxNodes", "/nodes"));
    let narrower = Limits {
        max_nodes_per_hop: per_hop - 1,
        ..exact
    };
    assert_eq!(over(narrower), named("maxNodesPerHop", "/tunnel/outNodeId"));
    let shorter = Limits {
        max_hops: hops - 1,
        ..exact
    };
    assert_eq!(over(shorter), named("maxHops", "/tunnel/chainNodes"));
    // The reader's own limits are all it checks of the text: counts are the planner's.
    let text = serde_json::to_string(input).unwrap();
    assert_eq!(check_text(&text, &fewer_nodes), Ok(()));
}

/// Every item of a counted list counts, whatever it holds (the server
/// reads only its objects, but the list was given whole), and a hop's
/// nodes are named by the hop's place.
#[test]
fn counts_are_of_the_lists_as_given() {
    use serde_json::json;
    let mut input = vectors()[0]["input"].clone();
    let one = Limits {
        max_nodes_per_hop: 1,
        ..Limits::default()
    };
    input["tunnel"]["inNodeId"] = json!([{"nodeId": 1}]);
    input["tunnel"]["chainNodes"] = json!([[{"nodeId": 2}], [{"nodeId": 3}, 7]]);
    let at = refused_at(&input, one).unwrap();
    assert_eq!(
        (at.0.as_str(), at.1.as_str()),
        ("maxNodesPerHop", "/tunnel/chainNodes/1")
    );
    input["tunnel"]["chainNodes"] = json!([]);
    input["tunnel"]["inNodeId"] = json!([{"nodeId": 1}, null]);
    let at = refused_at(&input, one).unwrap();
    assert_eq!(
        (at.0.as_str(), at.1.as_str()),
        ("maxNodesPerHop", "/tunnel/inNodeId")
    );
    let rows = input["nodes"].as_array().unwrap().len();
    input["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!("not a row"));
    let tight = Limits {
        max_nodes: rows,
        ..Limits::default()
    };
    let at = refused_at(&input, tight).unwrap();
    assert_eq!((at.0.as_str(), at.1.as_str()), ("maxNodes", "/nodes"));
    // An edit creates the tunnel as it was first: its lists count too.
    input["nodes"].as_array_mut().unwrap().pop();
    let mut before = input["tunnel"].clone();
    before["outNodeId"] = json!([{"nodeId": 1}, {"nodeId": 2}]);
    input["before"] = before;
    let at = refused_at(&input, one).unwrap();
    assert_eq!(
        (at.0.as_str(), at.1.as_str()),
        ("maxNodesPerHop", "/tunnel/inNodeId")
    );
    input["tunnel"]["inNodeId"] = json!([{"nodeId": 1}]);
    input["tunnel"]["outNodeId"] = json!([{"nodeId": 2}]);
    let at = refused_at(&input, one).unwrap();
    assert_eq!(
        (at.0.as_str(), at.1.as_str()),
        ("maxNodesPerHop", "/before/inNodeId")
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

/// The commands of a plan: `local`, then each federation step's.
fn all_commands(plan: &Value) -> Vec<&Value> {
    let local = plan["local"].as_array().into_iter().flatten();
    let federated = plan["federation"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|step| step["commands"].as_array().into_iter().flatten());
    local.chain(federated).collect()
}

/// The widest tunnel the limits let in is planned in full, and its size
/// follows from its counts: every node of a group dials every node of the
/// next (README, Limits: at most 14 x 64 x 64 dials), so the limits bound
/// the work whatever the input.
#[test]
fn inputs_at_the_limits_are_planned_in_full() {
    use hop_policy::check::{check, CheckOptions};
    let l = Limits::default();
    // widest hops the node budget allows: maxNodes / maxNodesPerHop groups, some remote
    let hops = (l.max_nodes / l.max_nodes_per_hop - 2).min(l.max_hops);
    let width = l.max_nodes_per_hop;
    assert_eq!((hops, width), (13, 64));
    let input = tunnel_at_limits(width, hops, 7);
    assert_eq!(check_value(&input, &l), Ok(()));
    let n = input["nodes"].as_array().unwrap().len();
    assert!(n <= l.max_nodes && n + width > l.max_nodes, "{} nodes", n);
    let text = serde_json::to_string(&input).unwrap();
    assert_eq!(check_text(&text, &l), Ok(()));
    let plan = hop_policy::plan(&input, &Default::default());
    assert!(plan.error.is_none(), "{:?}", plan.error);
    let plan_json = serde_json::to_string(&plan).unwrap();
    let plan_value: Value = serde_json::from_str(&plan_json).unwrap();

    // Node ids 1.. fill the groups in order: entries, the hops, the exits;
    // after the entries every seventh id is a remote (federated) node.
    let remote = |id: usize| id > width && id.is_multiple_of(7);
    let group_of = |id: usize| (id - 1) / width;
    let (mut local_middles, mut remote_middles, mut local_exits, mut remote_exits) = (0, 0, 0, 0);
    for id in width + 1..=n {
        match (group_of(id) == hops + 1, remote(id)) {
            (false, false) => local_middles += 1,
            (false, true) => remote_middles += 1,
            (true, false) => local_exits += 1,
            (true, true) => remote_exits += 1,
        }
    }
    assert_eq!((remote_middles, remote_exits), (119, 9));
    // Locally (`planner::local`): a chain on every entry and local middle, a
    // service on every local middle and exit; through federation
    // (`planner::federation`): a step per remote node.
    let count = |list: &Value, what: &str, value: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|x| x[what] == value)
            .count()
    };
    let local = &plan_value["local"];
    assert_eq!(count(local, "command", "AddChains"), width + local_middles);
    assert_eq!(
        count(local, "command", "AddService"),
        local_middles + local_exits
    );
    assert_eq!(
        local.as_array().unwrap().len(),
        width + 2 * local_middles + local_exits
    );
    let federation = &plan_value["federation"];
    assert_eq!(count(federation, "role", "middle"), remote_middles);
    assert_eq!(count(federation, "role", "exit"), remote_exits);
    assert_eq!(plan_value["nodes"].as_array().unwrap().len(), n);
    // Every chain's one hop lists all 64 nodes of the next group, and every
    // middle's service retries the other 63 (`builders::service`).
    let mut dials = 0;
    let mut middle_services = 0;
    for c in all_commands(&plan_value) {
        match c["command"].as_str() {
            Some("AddChains") => {
                let hops = c["data"]["hops"].as_array().unwrap();
                assert_eq!(hops.len(), 1);
                let nodes = hops[0]["nodes"].as_array().unwrap().len();
                assert_eq!(nodes, width, "{}", c["data"]["name"]);
                dials += nodes;
            }
            Some("AddService") => {
                let handler = &c["data"][0]["handler"];
                if handler.get("chain").is_some() {
                    assert_eq!(handler["retries"], width - 1);
                    middle_services += 1;
                } else {
                    assert!(handler.get("retries").is_none(), "an exit retries");
                }
            }
            other => panic!("unexpected command {other:?}"),
        }
    }
    assert_eq!(dials, (hops + 1) * width * width);
    assert_eq!(dials, 14 * 64 * 64);
    // Its text grows with its dials: at least the 64 bytes of a chain
    // node's keys each (`planner::state::PLAN_BYTES_PER_DIAL`), and about
    // 250 with their values (README, Limits).
    let per_dial = plan_json.len() / dials;
    let floor = hop_policy::planner::state::PLAN_BYTES_PER_DIAL;
    assert!(
        (floor..512).contains(&per_dial),
        "{per_dial} bytes per dial"
    );
    assert_eq!(middle_services, local_middles + remote_middles);

    // Checked as a plan: the only errors are LC004, one per federated middle
    // (its provider's cleanup deletes fed_chain_R, README Rules), so no
    // failover error (every middle retries its whole next hop); one IN003
    // per remote node for the values a preview assumes.
    let report = check(&plan_value, &CheckOptions::default());
    let by_code = |code: &str| report.summary.by_code.get(code).copied().unwrap_or(0);
    assert_eq!(
        report.summary.errors, remote_middles,
        "{:?}",
        report.summary
    );
    assert_eq!(by_code("LC004"), remote_middles);
    assert_eq!(by_code("IN003"), remote_middles + remote_exits);
    eprintln!(
        "at limits ({} nodes, {} hops of {}): {} dials, plan {} bytes, {} findings",
        n,
        hops,
        width,
        dials,
        plan_json.len(),
        report.findings.len()
    );
    // whatever the limits let in, its plan can be checked again as text within them
    assert_eq!(
        check_text(&plan_json, &l),
        Ok(()),
        "plan of {} bytes",
        plan_json.len()
    );

    // The longest chain the hop limit allows, two nodes per hop: nodes 1, 2
    // are the entries, 3 and 4 the first hop. With both of those dead the
    // entry's router (no retries) fails request 1 on node 3 and request 2 on
    // node 4 (fifo, node 3 marked); from request 3 on the fail filter leaves
    // no candidate and the entry dials the destination itself (go-gost
    // x/chain/router.go:129-130) until a mark expires (600 s; the requests span 19 s).
    let long = tunnel_at_limits(2, l.max_hops, 5);
    assert_eq!(check_value(&long, &l), Ok(()));
    let plan = hop_policy::plan(&long, &Default::default());
    assert!(plan.error.is_none(), "{:?}", plan.error);
    let sc = hop_policy::simulate::Scenario::from_json(
        &serde_json::json!({"dead": [3, 4, 7], "requests": 20}),
    )
    .unwrap();
    let trace = hop_policy::simulate::simulate(&long, &sc).expect("a trace");
    assert_eq!(trace.entry_node_id, Some(1));
    let dialed: Vec<(bool, Vec<Option<i64>>)> = trace
        .requests
        .iter()
        .map(|r| (r.ok, r.attempts.iter().map(|a| a.to_node_id).collect()))
        .collect();
    assert_eq!(
        dialed[..2],
        [(false, vec![Some(3)]), (false, vec![Some(4)])]
    );
    assert_eq!(dialed.len(), 20);
    for r in &trace.requests[2..] {
        assert!(
            r.ok && r.direct && r.attempts.is_empty(),
            "request {}: {}",
            r.index,
            r.outcome
        );
        assert_eq!((r.direct_from_node_id, r.exit_node_id), (Some(1), None));
    }
}

/// A document handed over built gets the report its JSON text gets, over
/// limits at and below its own sizes, and over documents that are over
/// several limits at once (a count and a long string or key after it, a
/// long key after a deep sibling): the first one the reader meets is named.
#[test]
fn a_built_document_is_checked_as_its_text() {
    use hop_policy::check::{check, check_text, CheckOptions};
    let mut docs: Vec<Value> = vectors()
        .iter()
        .take(60)
        .flat_map(|v| [v["input"].clone(), v["expected"].clone()])
        .collect();
    let long = "x".repeat(40);
    docs.push(serde_json::json!({"nodes": [1, 2, 3, 4, 5], "tunnel": {"name": long}}));
    docs.push(serde_json::json!({"a": [[[[1]]]], "b": {long.clone(): 1}}));
    docs.push(serde_json::json!({"hops": [{"nodes": [1, 2, 3]}], long.clone(): [[[[[]]]]]}));
    let mut tries = vec![Limits::default()];
    for n in [0usize, 1, 2, 3, 4, 8, 30] {
        tries.push(Limits {
            max_depth: n,
            ..Limits::default()
        });
        tries.push(Limits {
            max_string_len: n,
            ..Limits::default()
        });
        tries.push(Limits {
            max_nodes: n,
            max_hops: n,
            max_nodes_per_hop: n,
            max_string_len: 30,
            ..Limits::default()
        });
    }
    let mut over = 0;
    for doc in &docs {
        let text = hop_policy::json::to_text(doc);
        for limits in &tries {
            let options = CheckOptions {
                limits: *limits,
                ..CheckOptions::default()
            };
            let built = serde_json::to_string(&check(doc, &options)).unwrap();
            let read = serde_json::to_string(&check_text(&text, &options)).unwrap();
            assert_eq!(built, read, "{limits:?} {}", &text[..text.len().min(120)]);
            over += usize::from(built.contains("raise option limits."));
        }
    }
    assert!(over > 200, "{over} reports over a limit");
}

/// A tunnel input over a count is refused by every entry point that plans
/// it, each in its own way: a plan refused with `LIMIT_EXCEEDED` (so
/// `checkTunnel`'s and `checkDocument`'s IN001), a thrown `LIMIT_EXCEEDED`
/// from the simulator and from the lifecycle replay, whose step list
/// carries no limits of its own.
#[test]
fn a_tunnel_over_a_count_is_refused_wherever_it_is_planned() {
    use hop_policy::api;
    use serde_json::json;
    let mut input = vectors()[0]["input"].clone();
    let rows = input["nodes"].as_array().unwrap().len();
    let options = json!({"limits": {"maxNodes": rows - 1}}).to_string();
    let text = input.to_string();
    let message = format!("too many nodes at /nodes: {rows} > {}", rows - 1);
    let plan: Value =
        serde_json::from_str(&api::plan_json(&text, Some(&options)).unwrap()).unwrap();
    assert_eq!(plan["error"]["code"], "LIMIT_EXCEEDED");
    assert!(plan["error"]["messageEn"]
        .as_str()
        .unwrap()
        .starts_with(&message));
    let checked: Value =
        serde_json::from_str(&api::check_tunnel_json(&text, Some(&options)).unwrap()).unwrap();
    assert_eq!(checked["plan"], plan);
    assert_eq!(checked["findings"][0]["code"], "IN001");
    let report: Value =
        serde_json::from_str(&api::check_json(&text, Some(&options)).unwrap()).unwrap();
    assert_eq!(report["summary"]["kind"], "tunnel");
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with(&message));
    let scenario = json!({"limits": {"maxNodes": rows - 1}}).to_string();
    let e = api::simulate_json(&text, Some(&scenario)).unwrap_err();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("LIMIT_EXCEEDED", ""));
    assert!(e.message.starts_with(&message), "{}", e.message);
    // The replay plans within the default limits.
    let extra = (rows..=1000).map(|i| json!({"id": 9000 + i, "name": format!("x{i}")}));
    input["nodes"].as_array_mut().unwrap().extend(extra);
    let steps = json!([{"op": "apply", "input": input}]).to_string();
    let e = api::lifecycle_json(&steps).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("LIMIT_EXCEEDED", "/0/input")
    );
    assert!(
        e.message
            .starts_with("too many nodes at /nodes: 1001 > 1000"),
        "{}",
        e.message
    );
}

/// A tunnel input of `entries` entries, hops of the sizes in `hops`, `exits`
/// exits and `nodes` node rows, with nothing else (no name: within every
/// count, the server's own checks refuse it).
fn skeleton(entries: usize, hops: &[usize], exits: usize, nodes: usize) -> Value {
    use serde_json::json;
    let members = |n: usize| Value::Array((0..n).map(|i| json!({"nodeId": i})).collect());
    json!({
        "tunnel": {"inNodeId": members(entries), "chainNodes": hops.iter().map(|&n| members(n)).collect::<Vec<_>>(), "outNodeId": members(exits)},
        "nodes": (0..nodes).map(|i| json!({"id": i})).collect::<Vec<_>>()
    })
}

/// The planner counts node rows first, then the payload's lists in order,
/// and names the limit, the count and the place.
#[test]
fn the_planner_counts_in_order_and_names_the_count() {
    use hop_policy::planner::{plan, PlanOptions};
    let l = Limits {
        max_nodes: 3,
        max_hops: 2,
        max_nodes_per_hop: 2,
        ..Limits::default()
    };
    let options = PlanOptions {
        limits: l,
        ..PlanOptions::default()
    };
    let message = |input: Value| plan(&input, &options).error.map(|e| e.message_en);
    let over = |limit: &str, n: usize, max: usize, at: &str| {
        Some(format!(
            "{} at {at}: {n} > {max} (raise option limits.{limit} to allow it)",
            match limit {
                "maxNodes" => "too many nodes",
                "maxHops" => "too many hops",
                _ => "too many nodes in one hop",
            }
        ))
    };
    assert_eq!(
        message(skeleton(2, &[2, 2], 2, 3)).as_deref(),
        Some("the tunnel name is empty")
    );
    assert_eq!(
        message(skeleton(1, &[1], 1, 4)),
        over("maxNodes", 4, 3, "/nodes")
    );
    assert_eq!(
        message(skeleton(1, &[1, 1, 1], 1, 1)),
        over("maxHops", 3, 2, "/tunnel/chainNodes")
    );
    assert_eq!(
        message(skeleton(1, &[1, 3], 1, 1)),
        over("maxNodesPerHop", 3, 2, "/tunnel/chainNodes/1")
    );
    assert_eq!(
        message(skeleton(3, &[], 1, 1)),
        over("maxNodesPerHop", 3, 2, "/tunnel/inNodeId")
    );
    assert_eq!(
        message(skeleton(1, &[], 3, 1)),
        over("maxNodesPerHop", 3, 2, "/tunnel/outNodeId")
    );
    assert_eq!(
        message(skeleton(3, &[3, 3, 3], 3, 4)),
        over("maxNodes", 4, 3, "/nodes")
    );
    // The reader and the walk do not count: only the planner does.
    assert_eq!(check_value(&skeleton(3, &[3, 3, 3], 3, 4), &l), Ok(()));
}
