//! The server's answers on inputs the public golden vectors do not reach,
//! each built from a public vector with one field changed and checked
//! against what the upstream line named in its doc decides.

use serde_json::{json, Value};
mod golden_vectors;
use golden_vectors::{forward_vectors, mode_of, redeploy_vectors};

/// The public vector `name` (any file), its input and its mode.
fn vector(name: &str) -> (Value, &'static str) {
    let all = forward_vectors().into_iter().chain(redeploy_vectors());
    let v = all
        .into_iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"));
    (v["input"].clone(), mode_of(&v).as_str())
}

fn plan_of(input: &Value, mode: &str) -> Value {
    let options = format!(r#"{{"mode":"{mode}"}}"#);
    let text = hop_policy::api::plan_json(&input.to_string(), Some(&options)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The error message of a plan (`null` when it is accepted).
fn error(plan: &Value) -> &Value {
    &plan["error"]["message"]
}

/// `IsSafeRemoteAddr` (security_utils.go:44-65): a target whose host Go's
/// resolver refuses before any query (empty, or no domain name) is refused
/// for a normal user, with the resolver's text; a domain name is assumed.
#[test]
fn a_normal_users_target_with_no_resolvable_host_is_refused() {
    let (base, mode) = vector("fwd-create-00113");
    for (target, message) in [
        (
            ":8080",
            r#"could not resolve address ":8080": lookup : no such host"#,
        ),
        (
            "[::1]",
            r#"could not resolve address "[::1]": lookup [::1]: no such host"#,
        ),
        (
            "1.1.1.1:53, user@10.0.0.1:80",
            r#"could not resolve address "[redacted]@10.0.0.1:80": lookup [redacted]@10.0.0.1: no such host"#,
        ),
    ] {
        let mut input = base.clone();
        input["forward"]["remoteAddr"] = json!(target);
        let plan = plan_of(&input, mode);
        assert_eq!(error(&plan), message, "{target}");
        assert_eq!(plan["error"]["code"], "UNSAFE_TARGET", "{target}");
    }
    let mut input = base;
    input["forward"]["remoteAddr"] = json!("example.com:443");
    let plan = plan_of(&input, mode);
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    assert!(plan["assumed"].to_string().contains("example.com"));
}

/// `forwardCreate` (mutations.go:1898-1903): a pick of port 0 (a range that
/// holds it) becomes 10000, which the node's range then judges
/// (`validateLocalNodePort`, mutations.go:4882: parts starting at 0 are
/// left out of the bounds).
#[test]
fn a_picked_port_0_becomes_10000() {
    let (base, mode) = vector("fwd-create-00113");
    let mut input = base.clone();
    input["forward"]["inPort"] = Value::Null;
    input["nodes"][0]["port"] = json!("0-3");
    let plan = plan_of(&input, mode);
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    assert_eq!(plan["db"]["forward_port"][0]["port"], 10000);
    assert_eq!(plan["local"][0]["data"][0]["addr"], "[::]:10000");

    let mut input = base;
    input["forward"]["inPort"] = Value::Null;
    input["nodes"][0]["port"] = json!("0,40001-40005");
    let plan = plan_of(&input, mode);
    assert_eq!(
        error(&plan),
        "端口 10000 超出节点   padded-1   允许范围 40001-40005"
    );
}

/// `buildTunnelChainConfig` (mutations.go:3828-3835): a redeploy whose rows
/// hold an entry but no exit (the only exit row of another chain type, or
/// none) gives the entry's chain nothing to dial, and the server answers
/// `转发链目标不能为空` (a create or an edit is refused earlier, `出口不能为空`).
#[test]
fn a_redeploy_with_no_exit_row_has_no_chain_targets() {
    let (base, mode) = vector("redeploy-00009");
    assert_eq!(mode, "redeploy");
    let accepted = plan_of(&base, mode);
    assert!(error(&accepted).is_null(), "{}", accepted["error"]);
    for rows in [json!([base["db"]["chain_tunnel"][0]]), {
        let mut rows = base["db"]["chain_tunnel"].clone();
        rows[1]["chain_type"] = json!("4");
        rows
    }] {
        let mut input = base.clone();
        input["db"]["chain_tunnel"] = rows;
        let plan = plan_of(&input, mode);
        assert_eq!(error(&plan), "转发链目标不能为空");
        assert_eq!(plan["error"]["code"], "CHAIN_TARGETS_EMPTY");
        assert_eq!(plan["local"], json!([]));
    }
}

/// A remote middle whose next hop has no node (a redeploy's rows with no
/// exit): its provider refuses the first apply of a middle with no targets
/// (federation.go:96-103, 1186-1188), which the consumer reports as the
/// runtime's failure (mutations.go:3377-3380), before any local chain.
#[test]
fn a_remote_middle_with_nothing_to_dial_is_refused_by_its_provider() {
    let node = |id: i64, remote: bool| {
        json!({"id": id, "name": format!("n{id}"), "secret": "s", "server_ip": format!("10.0.0.{id}"),
               "server_ip_v4": format!("10.0.0.{id}"), "server_ip_v6": null, "port": "40000-40100",
               "interface_name": null, "status": 1, "tcp_listen_addr": "[::]", "udp_listen_addr": "[::]",
               "is_remote": i64::from(remote), "remote_url": if remote { json!("https://p.example.com") } else { Value::Null },
               "remote_token": if remote { json!("tok") } else { Value::Null },
               "remote_config": if remote { json!(r#"{"portRangeStart": 45000, "portRangeEnd": 45100}"#) } else { Value::Null }})
    };
    let row = |id: i64, chain_type: &str, node_id: i64, port: Value| {
        json!({"id": id, "tunnel_id": 7, "chain_type": chain_type, "node_id": node_id, "port": port,
               "strategy": "round", "inx": 1, "protocol": "tls", "connect_ip": null})
    };
    let input = json!({"tunnelId": 7, "db": {
        "tunnel": {"id": 7, "name": "t", "type": 2, "status": 1, "ip_preference": "", "protocol": "tls"},
        "chain_tunnel": [row(1, "1", 1, Value::Null), row(2, "2", 2, json!(45000))],
        "node": [node(1, false), node(2, true)]}});
    let plan = plan_of(&input, "redeploy");
    assert_eq!(
        error(&plan),
        "远程节点 n2 运行时下发失败: remote api error: targets are required for middle role"
    );
    assert_eq!(plan["federation"], json!([]));
}

/// `GetForwardRecord` (repository_flow.go:236) reads a stored forward's
/// blank strategy as `fifo`; `forwardUpdate` keeps the record's strategy
/// when the body gives none, so the edit stores `fifo`.
#[test]
fn an_edit_stores_fifo_for_a_forward_stored_without_a_strategy() {
    let (mut input, mode) = vector("fwd-update-00014");
    assert_eq!(mode, "forward-update");
    let tunnel_id = input["tunnel"]["id"].clone();
    input["forwards"] = json!([{"id": 100, "user_id": 1, "user_name": "admin", "name": "old",
        "tunnel_id": tunnel_id, "remote_addr": "8.8.8.8:53", "strategy": "", "in_flow": 0,
        "out_flow": 0, "status": 1, "inx": 0, "speed_id": null, "max_conn": 0, "ip_max_conn": 0,
        "ip_speed_id": null, "proxy_protocol": 0,
        "ports": [{"node_id": 1, "port": 50001, "in_ip": null}]}]);
    input["forward"] = json!({"id": 100, "name": "renamed"});
    let plan = plan_of(&input, mode);
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    let rows = plan["db"]["forward"].as_array().unwrap();
    let edited = rows.iter().find(|r| r["id"] == 100).unwrap();
    assert_eq!(edited["name"], "renamed");
    assert_eq!(edited["strategy"], "fifo");
}

/// `forwardCreate` decodes its body into a map (mutations.go:1836-1847):
/// a list does not decode (`请求参数错误`); `null` decodes to a nil map, so
/// the first check that reads it answers (`隧道ID不能为空`).
#[test]
fn a_forward_body_that_is_no_object_reads_as_the_server_decodes_it() {
    let (base, mode) = vector("fwd-create-00113");
    for (body, code, message) in [
        (json!([]), "INVALID_INPUT", "请求参数错误"),
        (json!("x"), "INVALID_INPUT", "请求参数错误"),
        (Value::Null, "FORWARD_TUNNEL_ID_MISSING", "隧道ID不能为空"),
    ] {
        let mut input = base.clone();
        input["forward"] = body.clone();
        let plan = plan_of(&input, mode);
        assert_eq!(error(&plan), message, "{body}");
        assert_eq!(plan["error"]["code"], code, "{body}");
    }
}

/// The forward context's own rows (the signed-in `user`, its `userTunnel`
/// grant) are objects, as the server reads them from its tables: a list in
/// their place is refused as any other value that is not an object (it was
/// once filled field by field, as serde_json fills a struct from an array).
#[test]
fn a_context_row_given_as_a_list_is_refused_as_any_non_object() {
    let (base, mode) = vector("fwd-create-00113");
    for (field, row_type) in [("user", "ForwardUser"), ("userTunnel", "UserTunnelRow")] {
        for given in [json!([]), json!(["x", 1]), json!("x")] {
            let mut input = base.clone();
            input[field] = given.clone();
            let plan = plan_of(&input, mode);
            assert_eq!(plan["error"]["code"], "INVALID_INPUT", "{field}: {given}");
            let message = plan["error"]["messageEn"].as_str().unwrap_or("");
            assert!(
                message.ends_with(&format!("expected struct {row_type}")),
                "{field}: {given}: {message}"
            );
        }
    }
}

/// `syncForwardServicesWithWarnings` (control_plane.go:298-345): a traffic
/// limiter that fails on an online node ends the sync with no warnings
/// (`return nil, err`), dropping the offline node skipped before it; a
/// service push that fails keeps them (the public `fwd-create-00285`).
#[test]
fn a_sync_that_fails_on_a_limiter_answers_no_warnings() {
    let (mut input, mode) = vector("fwd-create-00015");
    input["offline"] = json!([1]);
    // Entry node 2 a remote node without its share token.
    input["nodes"][1]["isRemote"] = json!(1);
    input["nodes"][1]["remoteUrl"] = json!("https://peer9.example.com");
    input["forwards"] = json!([]);
    input["forward"]["speedId"] = json!(4);
    input["forward"]["remoteAddr"] = json!("1.2.3.4:80");
    let plan = plan_of(&input, mode);
    assert_eq!(error(&plan), "限速规则下发失败: 远程节点缺少共享配置");
    assert_eq!(plan["warnings"], json!([]));

    let (input, mode) = vector("fwd-create-00285");
    let plan = plan_of(&input, mode);
    assert_eq!(plan["warnings"].as_array().map(Vec::len), Some(1));
}

/// A local node of the panel's list (`port` its range).
fn local_node(id: i64, ports: &str) -> Value {
    json!({"id": id, "inx": 0, "name": format!("node-{id}"), "status": 1, "port": ports,
           "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "interfaceName": "", "isRemote": 0,
           "remoteUrl": null, "remoteToken": null, "remoteConfig": null,
           "serverIp": format!("23.46.217.{id}"), "serverIpV4": format!("23.46.217.{id}"),
           "serverIpV6": null})
}

/// The `addr` of the service the plan sends to `node_id`'s tunnel.
fn tunnel_service_addr(plan: &Value, node_id: i64) -> Value {
    let local = plan["local"].as_array().unwrap();
    let service = local.iter().find(|c| {
        c["nodeId"] == node_id
            && ["AddService", "UpdateService"].contains(&c["command"].as_str().unwrap())
            && c["data"][0]["name"]
                .as_str()
                .unwrap()
                .starts_with("tunnel_")
    });
    service.map_or(Value::Null, |c| c["data"][0]["addr"].clone())
}

/// `pickNodePortTx` (repository_mutations.go:486-566): a tunnel's pick of
/// an exit or hop port passes over every port a `forward_port` row holds on
/// the node: the given forwards' on a create, and on an edit also those of
/// the forwards created on the tunnel as it was (their rows move only after
/// the edit's commit, mutations.go:1014-1017).
#[test]
fn a_tunnel_port_pick_passes_over_the_ports_forwards_hold() {
    let nodes = json!([
        local_node(1, "31000-31005"),
        local_node(2, "31000-31005"),
        local_node(3, "40000-40100"),
        local_node(4, "40000-40100")
    ]);
    let user = json!({"id": 20, "roleId": 0});
    let tunnel = |entries: &[i64], exit: i64| {
        json!({"id": 449, "name": "t0", "type": 2, "ipPreference": "v4",
               "inNodeId": entries.iter().map(|n| json!({"nodeId": n, "protocol": "tls"})).collect::<Vec<_>>(),
               "chainNodes": [], "outNodeId": [{"nodeId": exit, "protocol": "tls", "strategy": "fifo"}]})
    };
    // An edit that makes node 1, which a forward holds 31000 on, the exit.
    let edit = json!({"before": tunnel(&[1, 2], 3), "tunnel": tunnel(&[2, 4], 1),
        "nodes": nodes, "federation": {}, "user": user,
        "createForwards": [{"tunnelId": 449, "name": "setup-0", "remoteAddr": "9.9.9.9:22", "inPort": 31000}]});
    let plan = plan_of(&edit, "update");
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    assert_eq!(tunnel_service_addr(&plan, 1), "[::]:31001");

    // A forward-create whose tunnel's exit, node 3, has two ports, both
    // held by forwards of another tunnel: the tunnel cannot be created.
    let mut nodes = nodes;
    nodes[2]["port"] = json!("40000-40001");
    let held = |id: i64, port: i64| {
        json!({"id": id, "user_id": 20, "name": "other", "tunnel_id": 900, "remote_addr": "8.8.8.8:53",
               "strategy": "fifo", "status": 1, "ports": [{"node_id": 3, "port": port}]})
    };
    let mut create = json!({"tunnel": tunnel(&[1], 3), "nodes": nodes, "federation": {}, "user": user,
        "forwards": [held(100, 40000), held(101, 40001)],
        "forward": {"tunnelId": 449, "name": "f", "remoteAddr": "1.1.1.1:53", "inPort": 31002}});
    let plan = plan_of(&create, "forward-create");
    assert_eq!(error(&plan), "节点端口已满，无可用端口");
    create["forwards"] = json!([held(100, 40000)]);
    let plan = plan_of(&create, "forward-create");
    assert!(error(&plan).is_null(), "{}", plan["error"]);
}

/// `tunnelUpdate` stores the edited tunnel's chain rows and commits before
/// it moves the forwards to added entries (mutations.go:982-1017); a new
/// entry whose range does not take the forward's port gets the first port
/// free among the rows as they are then: the old tunnel's exit port on that
/// node no longer counts.
#[test]
fn a_new_entry_port_is_picked_among_the_edited_tunnels_rows() {
    let nodes = json!([
        local_node(1, "31000-31010"),
        local_node(2, "40000-40003"),
        local_node(3, "50000-50010")
    ]);
    let tunnel = |entries: &[i64], exit: i64| {
        json!({"id": 449, "name": "t0", "type": 2, "ipPreference": "v4",
               "inNodeId": entries.iter().map(|n| json!({"nodeId": n, "protocol": "tls"})).collect::<Vec<_>>(),
               "chainNodes": [], "outNodeId": [{"nodeId": exit, "protocol": "tls", "strategy": "fifo"}]})
    };
    // Node 2, the exit on 40000, becomes an entry; the forward's 31005 is
    // out of its range.
    let edit = json!({"before": tunnel(&[1], 2), "tunnel": tunnel(&[1, 2], 3),
        "nodes": nodes, "federation": {}, "user": {"id": 1, "roleId": 0},
        "createForwards": [{"tunnelId": 449, "name": "setup-0", "remoteAddr": "9.9.9.9:22", "inPort": 31005}]});
    let plan = plan_of(&edit, "update");
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    let rows = plan["db"]["forward_port"].as_array().unwrap();
    let on_2 = rows.iter().find(|r| r["node_id"] == 2).unwrap();
    assert_eq!(on_2["port"], 40000);
}

/// A local node whose row is not online has no agent connected: the
/// forwards' sync after a redeploy gets `节点不在线` from it and skips it
/// with a warning (control_plane.go:281-378), as the tunnel's own apply
/// skips its chain.
#[test]
fn a_redeploy_syncs_no_forward_onto_a_down_entry() {
    let (mut input, mode) = vector("redeploy-fwd-00004");
    input["db"]["node"][0]["status"] = json!(0);
    let plan = plan_of(&input, mode);
    assert!(error(&plan).is_null(), "{}", plan["error"]);
    let to_1: Vec<&Value> = plan["local"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["nodeId"] == 1)
        .collect();
    assert!(to_1.is_empty(), "{to_1:?}");
    let warnings = plan["warnings"].to_string();
    assert!(
        warnings.contains("节点   padded-1   不在线，已跳过下发"),
        "{warnings}"
    );
}

/// `tunnelUpdate` commits the edited rows and moves the forwards to added
/// entries before the local apply (mutations.go:982-1046): an error of the
/// apply (here no IP family in common with the next hop) still leaves the
/// rows moved, each new entry's port picked among the edited rows.
#[test]
fn an_edit_refused_by_its_local_apply_has_moved_the_forward_rows() {
    let (mut input, mode) = vector("fwd-tunnel-update-00009-drop-entry-add-entry");
    // The added entry, node 6, made IPv6-only.
    input["nodes"][5]["serverIp"] = json!("2001:db8::6");
    input["nodes"][5]["serverIpV4"] = Value::Null;
    input["nodes"][5]["serverIpV6"] = json!("2001:db8::6");
    let plan = plan_of(&input, mode);
    assert_eq!(plan["error"]["code"], "LINK_INCOMPATIBLE");
    let ports: Vec<(i64, i64)> = plan["db"]["forward_port"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["node_id"].as_i64().unwrap(), r["port"].as_i64().unwrap()))
        .collect();
    assert_eq!(ports, [(1, 50001), (6, 40000)]);

    // The relay refuses the edit's entry chain (the remote entry 2): node 4,
    // the old exit on 50000, becomes an entry and gets 50000, free among
    // the edited rows.
    let (mut input, mode) = vector("fwd-tunnel-update-00048-drop-entry-add-exit");
    input["tunnel"]["inNodeId"] = json!([{"nodeId": 2, "protocol": "tls", "strategy": "fifo"},
        {"nodeId": 3, "protocol": "tls", "strategy": "fifo"}, {"nodeId": 4, "protocol": "tls", "strategy": "fifo"}]);
    input["tunnel"]["outNodeId"] = json!([{"nodeId": 5, "protocol": "tls", "strategy": "fifo"}]);
    let plan = plan_of(&input, mode);
    assert_eq!(
        error(&plan),
        "入口节点 padded-2 下发转发链失败: remote api error: command not allowed"
    );
    let rows = plan["db"]["forward_port"].as_array().unwrap();
    let on_4 = rows.iter().find(|r| r["node_id"] == 4).unwrap();
    assert_eq!(on_4["port"], 50000);
}
