//! A panel's backup export (`POST /backup/export`: `{version, exportedAt,
//! nodes, tunnels, ...}`, json tags of model.go's `BackupData`) read as the
//! stored rows a redeploy rebuilds each tunnel from.
//!
//! The export leaves out chain rows' `connect_ip` and every federation
//! binding: a tunnel read from it redeploys with no connect IPs and nothing to
//! release, which each tunnel's `assumed` list says. Credentials are not
//! carried over: node secrets are dropped and a share token becomes the
//! presence marker `true`.

use crate::coerce::{go_int, go_string, map_slice};
use crate::error::ApiError;
use serde_json::{Map, Value};

crate::encode::shape! {
    #[doc = " One tunnel of a backup: its redeploy input and what the backup could not say."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct BackupTunnel {
        pub id: i64 => "id",
        pub name: String => "name",
        pub kind: i64 => "type",
        #[doc = " `{db: {tunnel, chain_tunnel, node}, tunnelId}`, for `planTunnel(input, {mode: 'redeploy'})`."]
        pub input: Value => "input": "RedeployInput",
        #[doc = " What the redeploy assumes because the export does not carry it."]
        pub assumed: Vec<String> => "assumed",
    }
}

fn text_or_null(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => Value::String(s.clone()),
        None | Some(Value::Null) => Value::Null,
        Some(other) => Value::String(go_string(Some(other))),
    }
}

/// An `omitempty` integer: absent (or 0) was NULL in the database.
fn int_or_null(v: Option<&Value>) -> Value {
    match go_int(v, 0) {
        0 => Value::Null,
        n => Value::from(n),
    }
}

fn node_row(n: &Map<String, Value>) -> Value {
    let token = go_string(n.get("remoteToken"));
    let mut row = Map::new();
    row.insert("id".into(), Value::from(go_int(n.get("id"), 0)));
    row.insert("name".into(), text_or_null(n.get("name")));
    row.insert("server_ip".into(), text_or_null(n.get("serverIp")));
    row.insert("server_ip_v4".into(), text_or_null(n.get("serverIpV4")));
    row.insert("server_ip_v6".into(), text_or_null(n.get("serverIpV6")));
    row.insert("port".into(), text_or_null(n.get("port")));
    row.insert(
        "interface_name".into(),
        text_or_null(n.get("interfaceName")),
    );
    row.insert("status".into(), Value::from(go_int(n.get("status"), 0)));
    row.insert(
        "tcp_listen_addr".into(),
        text_or_null(n.get("tcpListenAddr")),
    );
    row.insert(
        "udp_listen_addr".into(),
        text_or_null(n.get("udpListenAddr")),
    );
    row.insert(
        "is_remote".into(),
        Value::from(go_int(n.get("isRemote"), 0)),
    );
    row.insert("remote_url".into(), text_or_null(n.get("remoteUrl")));
    // Only whether a share token is configured matters; it never leaves here.
    row.insert("remote_token".into(), Value::Bool(!token.is_empty()));
    row.insert("remote_config".into(), text_or_null(n.get("remoteConfig")));
    Value::Object(row)
}

fn chain_row(c: &Map<String, Value>, tunnel_id: i64) -> Value {
    let mut row = Map::new();
    row.insert("id".into(), Value::from(go_int(c.get("id"), 0)));
    row.insert("tunnel_id".into(), Value::from(tunnel_id));
    row.insert("chain_type".into(), text_or_null(c.get("chainType")));
    row.insert("node_id".into(), Value::from(go_int(c.get("nodeId"), 0)));
    row.insert("port".into(), int_or_null(c.get("port")));
    row.insert("strategy".into(), text_or_null(c.get("strategy")));
    row.insert("inx".into(), int_or_null(c.get("inx")));
    row.insert("protocol".into(), text_or_null(c.get("protocol")));
    row.insert("connect_ip".into(), Value::Null);
    Value::Object(row)
}

/// Every tunnel of a backup export, in export order, as a redeploy input.
pub fn read_backup(backup: &Value) -> Result<Vec<BackupTunnel>, ApiError> {
    let Some(obj) = backup.as_object() else {
        return Err(ApiError::new(
            "IN001",
            "a panel backup must be a JSON object {version, exportedAt, nodes, tunnels, ...}",
            "",
        ));
    };
    for key in ["version", "nodes", "tunnels"] {
        if !obj.contains_key(key) {
            return Err(ApiError::new("IN001", format!("not a panel backup: the key {key:?} is missing (a backup export has version, exportedAt, nodes, tunnels)"), ""));
        }
    }
    for key in ["nodes", "tunnels"] {
        if !matches!(obj.get(key), Some(Value::Array(_)) | Some(Value::Null)) {
            return Err(ApiError::new(
                "IN001",
                format!("not a panel backup: {key} must be a list"),
                format!("/{key}"),
            ));
        }
    }
    let nodes: Vec<(i64, Value)> = map_slice(obj.get("nodes"))
        .into_iter()
        .map(|n| (go_int(n.get("id"), 0), node_row(n)))
        .collect();
    let mut out = Vec::new();
    for t in map_slice(obj.get("tunnels")) {
        let id = go_int(t.get("id"), 0);
        let chains: Vec<&Map<String, Value>> = map_slice(t.get("chainTunnels"));
        let chain_rows: Vec<Value> = chains.iter().map(|c| chain_row(c, id)).collect();
        let used: Vec<i64> = chains.iter().map(|c| go_int(c.get("nodeId"), 0)).collect();
        let node_rows: Vec<Value> = nodes
            .iter()
            .filter(|(nid, _)| used.contains(nid))
            .map(|(_, row)| row.clone())
            .collect();
        let mut tunnel = Map::new();
        tunnel.insert("id".into(), Value::from(id));
        tunnel.insert("name".into(), text_or_null(t.get("name")));
        tunnel.insert("type".into(), Value::from(go_int(t.get("type"), 0)));
        tunnel.insert("status".into(), Value::from(go_int(t.get("status"), 0)));
        tunnel.insert(
            "ip_preference".into(),
            Value::String(go_string(t.get("ipPreference"))),
        );
        let mut db = Map::new();
        db.insert("tunnel".into(), Value::Object(tunnel));
        db.insert("chain_tunnel".into(), Value::Array(chain_rows));
        db.insert("node".into(), Value::Array(node_rows));
        db.insert("federation_tunnel_binding".into(), Value::Array(vec![]));
        let mut input = Map::new();
        input.insert("db".into(), Value::Object(db));
        input.insert("tunnelId".into(), Value::from(id));
        let mut assumed = vec![
            "no chain row has a custom connect IP (the export leaves connect_ip out)".to_string(),
        ];
        if used.iter().any(|nid| {
            nodes.iter().any(|(id2, row)| {
                id2 == nid && row.get("is_remote").and_then(Value::as_i64) == Some(1)
            })
        }) {
            assumed.push("no federation binding to release, and each provider answers as a fresh one would (the export leaves bindings out)".into());
        }
        out.push(BackupTunnel {
            id,
            name: go_string(t.get("name")),
            kind: go_int(t.get("type"), 0),
            input: Value::Object(input),
            assumed,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_backup_tunnel_redeploys_as_its_rows_would() {
        let backup = json!({"version": "1", "exportedAt": 1, "nodes": [
            {"id": 1, "name": "a", "secret": "node-secret-1", "serverIp": "10.0.0.1", "port": "40000-40010", "status": 1, "tcpListenAddr": "[::]", "udpListenAddr": "[::]", "inx": 0, "isRemote": 0},
            {"id": 2, "name": "b", "secret": "node-secret-2", "serverIp": "10.0.0.2", "port": "40000-40010", "status": 1, "tcpListenAddr": "", "udpListenAddr": "[::]", "inx": 0, "isRemote": 1, "remoteUrl": "https://p", "remoteToken": "share-token-2", "remoteConfig": "{\"portRangeStart\": 45000, \"portRangeEnd\": 45010}"}
        ], "tunnels": [{"id": 5, "name": "t5", "type": 2, "status": 1, "chainTunnels": [
            {"id": 1, "tunnelId": 5, "chainType": "1", "nodeId": 1, "strategy": "round", "inx": 1, "protocol": "tls"},
            {"id": 2, "tunnelId": 5, "chainType": "3", "nodeId": 2, "strategy": "fifo", "inx": 1, "protocol": "tls"}
        ]}]});
        let tunnels = read_backup(&backup).unwrap();
        assert_eq!(tunnels.len(), 1);
        let text = crate::encode::to_string(&tunnels);
        assert!(
            !text.contains("node-secret") && !text.contains("share-token-2"),
            "{text}"
        );
        let plan = crate::planner::plan_with(
            &tunnels[0].input,
            crate::planner::Mode::Redeploy,
            &Default::default(),
        );
        assert!(plan.error.is_none(), "{:?}", plan.error);
        assert_eq!(plan.federation.len(), 1);
        // The remote exit requests no port and gets the first of the share's range.
        assert_eq!(plan.federation[0].reserve.requested_port, 0);
        assert_eq!(tunnels[0].assumed.len(), 2);
        assert!(read_backup(&json!({"nodes": []}))
            .unwrap_err()
            .message
            .contains("\"version\""));
    }
}
