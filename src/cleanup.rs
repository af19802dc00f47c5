//! The panel's periodic cleanup (flow_policy.go:505-670): every 10 minutes an
//! agent reports its whole config and the panel that owns the node deletes
//! what it takes for orphans, by name only (go-gost
//! `x/service/traffic_reporter.go:328`; `handler/flow_policy.go:505-670`).
//! The checker's LC004 and the lifecycle's `report` step both ask it.

/// How often, in minutes, an agent reports its config, and so how soon
/// the cleanup runs after an apply.
pub const REPORT_INTERVAL_MINUTES: u32 = 10;

/// What the panel cleaning a node holds: the rows its name tests look up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PanelRows {
    /// `tunnel` ids (sorted).
    pub tunnels: Vec<i64>,
    /// `forward` ids (sorted).
    pub forwards: Vec<i64>,
    /// `speed_limit` ids (sorted).
    pub speed_limits: Vec<i64>,
}

impl PanelRows {
    pub fn new(mut tunnels: Vec<i64>, mut forwards: Vec<i64>, mut speed_limits: Vec<i64>) -> Self {
        for ids in [&mut tunnels, &mut forwards, &mut speed_limits] {
            ids.sort_unstable();
            ids.dedup();
        }
        PanelRows {
            tunnels,
            forwards,
            speed_limits,
        }
    }

    fn has_tunnel(&self, id: i64) -> bool {
        self.tunnels.binary_search(&id).is_ok()
    }

    fn has_forward(&self, id: i64) -> bool {
        self.forwards.binary_search(&id).is_ok()
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)` result when positive.
fn positive_id(text: &str) -> Option<i64> {
    crate::go::coerce::parse_int(text).filter(|id| *id > 0)
}

/// `cleanOrphanedChains` (flow_policy.go:607-624): the number after the
/// last `_` is read as a tunnel id, and the chain is deleted when this
/// panel has no such tunnel. So a provider deletes `fed_chain_<R>` unless
/// it happens to hold a tunnel R.
pub fn deletes_chain(name: &str, rows: &PanelRows) -> bool {
    let name = name.trim();
    let Some((head, id)) = name.rsplit_once('_') else {
        return false;
    };
    !head.is_empty() && positive_id(id).is_some_and(|id| !rows.has_tunnel(id))
}

/// `cleanOrphanedLimiters` (flow_policy.go:626-634, :663-675): a traffic
/// limiter survives only when its name is the id of a speed limit this
/// panel holds, so every per-IP limiter `rule_traffic_limit_<F>` goes.
/// Connection limiters are never deleted.
pub fn deletes_limiter(name: &str, rows: &PanelRows) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    positive_id(name).is_none_or(|id| rows.speed_limits.binary_search(&id).is_err())
}

/// `cleanOrphanedServices` (flow_policy.go:523-605), for a panel with no
/// forward peer-share runtimes: the names it deletes when the node reports
/// service `name` (empty when it keeps it).
pub fn deleted_services(name: &str, rows: &PanelRows) -> Vec<String> {
    let name = name.trim();
    if name.is_empty() || name == "web_api" || name.starts_with("fed_svc_") {
        return vec![];
    }
    let parts: Vec<&str> = name.split('_').collect();
    let first = parts.first().copied().unwrap_or("");
    if let ["tunnel", id] = parts.as_slice() {
        return match positive_id(id) {
            Some(id) if !rows.has_tunnel(id) => vec![name.to_string()],
            _ => vec![],
        };
    }
    if let Some(base) = parts.get(..3) {
        if positive_id(first).is_some_and(|id| !rows.has_forward(id)) {
            let base = base.join("_");
            return vec![
                name.to_string(),
                base.clone(),
                format!("{base}_tcp"),
                format!("{base}_udp"),
            ];
        }
    }
    let suffix = parts.last().copied().unwrap_or("");
    let tunnel_gone = || positive_id(first).is_some_and(|id| !rows.has_tunnel(id));
    match suffix {
        "tls" | "kcp" | "wss" | "mtls" | "mwss" | "mtcp" if tunnel_gone() => vec![name.to_string()],
        "tcp" if parts.len() < 4 && tunnel_gone() => vec![name.to_string()],
        // A forward's `_tcp` with its forward present is kept (:590-601).
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_by_their_last_number() {
        let provider = PanelRows::default();
        assert!(deletes_chain("fed_chain_31", &provider));
        assert!(deletes_chain("chains_7", &provider));
        let consumer = PanelRows::new(vec![7], vec![], vec![]);
        assert!(!deletes_chain("chains_7", &consumer));
        // A provider that happens to hold a tunnel 31 keeps it.
        assert!(!deletes_chain(
            "fed_chain_31",
            &PanelRows::new(vec![31], vec![], vec![])
        ));
        // No number after the last `_`, or nothing before it: kept.
        for name in [
            "chains",
            "chains_",
            "_7",
            "chains_x",
            "chains_0",
            "chains_-3",
        ] {
            assert!(!deletes_chain(name, &provider), "{name}");
        }
    }

    #[test]
    fn limiters_survive_only_as_speed_limit_ids() {
        let rows = PanelRows::new(vec![], vec![], vec![2]);
        assert!(!deletes_limiter("2", &rows));
        assert!(deletes_limiter("3", &rows));
        assert!(deletes_limiter("rule_traffic_limit_12", &rows));
        assert!(!deletes_limiter("  ", &rows));
    }

    #[test]
    fn services_by_name() {
        let rows = PanelRows::new(vec![7], vec![12], vec![]);
        assert!(deleted_services("fed_svc_31", &rows).is_empty());
        assert!(deleted_services("web_api", &rows).is_empty());
        assert!(deleted_services("tunnel_7", &rows).is_empty());
        assert_eq!(deleted_services("tunnel_8", &rows), ["tunnel_8"]);
        assert!(deleted_services("12_5_3_tcp", &rows).is_empty());
        assert_eq!(
            deleted_services("13_5_3_udp", &rows),
            ["13_5_3_udp", "13_5_3", "13_5_3_tcp", "13_5_3_udp"]
        );
        assert_eq!(deleted_services("8_tls", &rows), ["8_tls"]);
        assert!(deleted_services("7_tls", &rows).is_empty());
    }
}
