//! The provider panels a preview talks to, answering as fresh panels would
//! (federation.go): one panel per base URL, one share per
//! token, every share active and unlimited, every agent accepting.
//!
//! A panel keeps its runtimes (reservations) across the steps of one request
//! path: an edit first creates the tunnel as it was, releases its bindings,
//! then reserves again, and a released key is re-reserved in place.

use crate::model::{FederationAnswers, FederationInfo, NodeRecord, ShareIdentity};

/// One reservation on a provider panel (`peer_share_runtime`).
#[derive(Debug, Clone)]
pub struct Runtime {
    pub id: i64,
    share: ShareIdentity,
    pub resource_key: String,
    pub port: i64,
    pub active: bool,
    pub applied: bool,
    /// What the consumer's apply asked of it; kept by a replay over time.
    pub usage: Usage,
}

/// What a runtime serves: recorded by the lifecycle replay once an apply
/// deployed it (a single request never looks back at it).
#[derive(Debug, Clone, Default)]
pub struct Usage {
    /// The consumer's node row the provider shares.
    pub node_id: i64,
    pub tunnel_id: i64,
    /// `"exit"` or `"middle"`, as the apply said.
    pub role: String,
    /// How many next-hop targets its chain dials (a middle).
    pub targets: usize,
}

impl Runtime {
    /// The service the provider's agent runs for it.
    pub fn service_name(&self) -> String {
        format!("fed_svc_{}", self.id)
    }

    /// The chain the provider's agent runs for it: a middle's only.
    pub fn chain_name(&self) -> Option<String> {
        (self.usage.role == "middle").then(|| format!("fed_chain_{}", self.id))
    }
}

#[derive(Debug, Default)]
struct Panel {
    runtimes: Vec<Runtime>,
}

/// What a reservation answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    pub runtime_id: i64,
    pub port: i64,
}

/// What an apply has to do on the provider's agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyKind {
    /// First apply: `AddChains` (middle) and `AddService`.
    Deploy,
    /// The runtime is still applied: a middle only gets `UpdateChains`.
    AlreadyApplied,
}

/// What a `release-role` did.
#[derive(Debug, Clone)]
pub enum Released {
    /// The panel could not be reached: the consumer ignores the error and the
    /// runtime stays as it was, applied.
    Lost,
    /// The panel has no runtime for the binding: success, nothing to do.
    Unknown,
    /// The runtime as it was before the release (its agent loses what it ran
    /// when it was applied).
    Runtime(Runtime),
}

/// The share a consumer node row points at, as the provider sees it.
#[derive(Debug, Clone)]
pub struct Share {
    /// Which share (the URL picks the panel).
    pub key: ShareIdentity,
    pub url: String,
    /// `portRangeStart`/`portRangeEnd` (0 when unset).
    pub range: (i64, i64),
    /// The provider's own record of the shared node.
    pub listen_addr: String,
    pub interface_name: String,
}

impl Share {
    /// The share of a remote node known by its id alone (a plan names no
    /// panel URLs): a panel of its own, without a port range.
    pub fn of_node(node_id: i64) -> Share {
        Share {
            key: ShareIdentity::of(node_id, &crate::coerce::TokenCell::Absent),
            url: format!("node {node_id}"),
            range: (0, 0),
            listen_addr: String::new(),
            interface_name: String::new(),
        }
    }
}

#[derive(Debug, Default)]
pub struct Providers {
    /// By base URL.
    panels: std::collections::BTreeMap<String, Panel>,
    /// Base URLs of the panels that cannot be reached now.
    unreachable: Vec<String>,
}

/// `remote api error: {msg}`: how the consumer's client reports a provider's refusal.
#[inline(never)]
pub(super) fn api_error(msg: &str) -> String {
    format!("remote api error: {}", msg)
}

impl Providers {
    fn panel(&mut self, url: &str) -> &mut Panel {
        self.panels.entry(url.to_string()).or_default()
    }

    /// The panels of these shares cannot be reached until the next call.
    pub fn set_unreachable(&mut self, shares: impl IntoIterator<Item = Share>) {
        self.unreachable = shares.into_iter().map(|s| s.url).collect();
    }

    pub fn is_unreachable(&self, share: &Share) -> bool {
        self.unreachable.contains(&share.url)
    }

    /// The runtime a panel holds for a key of a share.
    pub fn runtime(&self, share: &Share, resource_key: &str) -> Option<&Runtime> {
        self.panels
            .get(&share.url)?
            .runtimes
            .iter()
            .find(|r| r.share == share.key && r.resource_key == resource_key)
    }

    pub fn runtime_mut(&mut self, share: &Share, resource_key: &str) -> Option<&mut Runtime> {
        self.panels
            .get_mut(&share.url)?
            .runtimes
            .iter_mut()
            .find(|r| r.share == share.key && r.resource_key == resource_key)
    }

    /// Every runtime of every panel, in no particular order (a list: the
    /// map walk is compiled once, not at every caller).
    pub fn runtimes(&self) -> Vec<&Runtime> {
        let mut out = Vec::new();
        for panel in self.panels.values() {
            for r in &panel.runtimes {
                out.push(r);
            }
        }
        out
    }

    /// Puts a key of a share back as it was before a failed apply: `before`,
    /// or no runtime at all.
    pub fn restore(&mut self, share: &Share, resource_key: &str, before: Option<Runtime>) {
        let panel = self.panel(&share.url);
        let at = panel
            .runtimes
            .iter()
            .position(|r| r.share == share.key && r.resource_key == resource_key);
        match (at, before) {
            (Some(i), Some(r)) => {
                if let Some(slot) = panel.runtimes.get_mut(i) {
                    *slot = r;
                }
            }
            (Some(i), None) => {
                panel.runtimes.remove(i);
            }
            (None, Some(r)) => panel.runtimes.push(r),
            (None, None) => {}
        }
    }

    /// Records a runtime that is already applied (a stored binding), so that a
    /// release can find it and a later reservation of its key reuses its id.
    pub fn record_applied(
        &mut self,
        share: &Share,
        resource_key: &str,
        runtime_id: i64,
        port: i64,
    ) {
        let panel = self.panel(&share.url);
        panel.runtimes.push(Runtime {
            id: runtime_id,
            share: share.key.clone(),
            resource_key: resource_key.to_string(),
            port,
            active: true,
            applied: true,
            usage: Usage::default(),
        });
    }

    /// `release-role` by binding id, else by key; unknown is success.
    pub fn release(&mut self, share: &Share, binding_id: i64, resource_key: &str) -> Released {
        if self.is_unreachable(share) {
            return Released::Lost;
        }
        let panel = self.panel(&share.url);
        let found = panel
            .runtimes
            .iter()
            .position(|r| r.share == share.key && binding_id > 0 && r.id == binding_id && r.applied)
            .or_else(|| {
                panel
                    .runtimes
                    .iter()
                    .position(|r| r.share == share.key && r.resource_key == resource_key)
            });
        match found.and_then(|i| panel.runtimes.get_mut(i)) {
            Some(r) => {
                let before = r.clone();
                r.active = false;
                r.applied = false;
                Released::Runtime(before)
            }
            None => Released::Unknown,
        }
    }

    /// `reserve-port`. `wanted_id` is the runtime id a new row gets unless
    /// the panel already has it; `fixed_port` an allocation the caller supplied.
    pub fn reserve(
        &mut self,
        share: &Share,
        resource_key: &str,
        requested: i64,
        wanted_id: i64,
        fixed_port: Option<i64>,
    ) -> Result<Reservation, String> {
        let panel = self.panel(&share.url);
        let existing = panel
            .runtimes
            .iter()
            .position(|r| r.share == share.key && r.resource_key == resource_key);
        if let Some(r) = existing
            .and_then(|i| panel.runtimes.get(i))
            .filter(|r| r.active)
        {
            return Ok(Reservation {
                runtime_id: r.id,
                port: r.port,
            });
        }
        let port = match fixed_port {
            Some(p) => p,
            None => pick_port(
                share.range,
                requested,
                panel
                    .runtimes
                    .iter()
                    .filter(|r| r.share == share.key && r.active)
                    .map(|r| r.port),
            )?,
        };
        if let Some(r) = existing.and_then(|i| panel.runtimes.get_mut(i)) {
            r.port = port;
            r.active = true;
            r.applied = false;
            return Ok(Reservation {
                runtime_id: r.id,
                port,
            });
        }
        let taken = |id: i64| panel.runtimes.iter().any(|r| r.id == id);
        let id = if wanted_id > 0 && !taken(wanted_id) {
            wanted_id
        } else {
            panel
                .runtimes
                .iter()
                .map(|r| r.id)
                .max()
                .unwrap_or(0)
                .saturating_add(1)
        };
        panel.runtimes.push(Runtime {
            id,
            share: share.key.clone(),
            resource_key: resource_key.to_string(),
            port,
            active: true,
            applied: false,
            usage: Usage::default(),
        });
        Ok(Reservation {
            runtime_id: id,
            port,
        })
    }

    /// `apply-role`: the port check, then what the agent gets.
    pub fn apply(
        &mut self,
        share: &Share,
        resource_key: &str,
    ) -> Result<(ApplyKind, Reservation), String> {
        let panel = self.panel(&share.url);
        let Some(r) = panel
            .runtimes
            .iter_mut()
            .find(|r| r.share == share.key && r.resource_key == resource_key && r.active)
        else {
            return Err(api_error("Reservation not found"));
        };
        let answer = Reservation {
            runtime_id: r.id,
            port: r.port,
        };
        if r.applied {
            return Ok((ApplyKind::AlreadyApplied, answer));
        }
        let (start, end) = share.range;
        if start > 0 && end > 0 && r.port > 0 && (r.port < start || r.port > end) {
            return Err(api_error(&format!(
                "port {} out of allowed range {}-{}",
                r.port, start, end
            )));
        }
        r.applied = true;
        Ok((ApplyKind::Deploy, answer))
    }
}

/// The provider's `pickPeerSharePort`, with the preview's one extension: a
/// requested port is granted when the share has no range.
fn pick_port(
    range: (i64, i64),
    requested: i64,
    used: impl Iterator<Item = i64>,
) -> Result<i64, String> {
    let (start, end) = range;
    let used: Vec<i64> = used.collect();
    let unset = start <= 0 || end <= 0 || end < start;
    if unset {
        return if requested > 0 {
            Ok(requested)
        } else {
            Err(api_error("No available port"))
        };
    }
    if requested > 0 {
        if requested < start || requested > end {
            return Err(api_error("Port out of range"));
        }
        if used.contains(&requested) {
            return Err(api_error("No available port"));
        }
        return Ok(requested);
    }
    (start..=end)
        .find(|p| !used.contains(p))
        .ok_or_else(|| api_error("No available port"))
}

/// The share of a remote node row: the first row in input order with the
/// same URL and token stands for the share (its range and the provider's
/// record of the node come from that row).
pub fn share_of(node: &NodeRecord, rows: &[NodeRecord], federation: &FederationAnswers) -> Share {
    let first = rows
        .iter()
        .find(|r| {
            r.is_remote
                && r.remote_url == node.remote_url
                && r.share_identity == node.share_identity
        })
        .unwrap_or(node);
    let fed = FederationInfo::lookup(federation, first.id);
    let range = if fed.port_range.0 > 0 || fed.port_range.1 > 0 {
        fed.port_range
    } else {
        first.remote_port_range()
    };
    Share {
        key: node.share_identity.clone(),
        url: node.remote_url.clone(),
        range,
        listen_addr: fed.tcp_listen_addr,
        interface_name: fed.interface_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(range: (i64, i64)) -> Share {
        Share {
            key: ShareIdentity::test("t"),
            url: "https://p".into(),
            range,
            listen_addr: "[::]".into(),
            interface_name: String::new(),
        }
    }

    #[test]
    fn first_free_port_then_the_next_for_a_second_key() {
        let mut p = Providers::default();
        let s = share((45000, 45002));
        assert_eq!(
            p.reserve(&s, "a", 0, 20, None),
            Ok(Reservation {
                runtime_id: 20,
                port: 45000
            })
        );
        assert_eq!(
            p.reserve(&s, "b", 0, 20, None),
            Ok(Reservation {
                runtime_id: 21,
                port: 45001
            })
        );
        assert_eq!(
            p.reserve(&s, "c", 45001, 30, None),
            Err("remote api error: No available port".into())
        );
        assert_eq!(
            p.reserve(&s, "c", 44000, 30, None),
            Err("remote api error: Port out of range".into())
        );
    }

    #[test]
    fn a_released_key_is_reserved_again_in_place() {
        let mut p = Providers::default();
        let s = share((45000, 45100));
        p.record_applied(&s, "k", 31, 45050);
        p.release(&s, 31, "k");
        assert_eq!(
            p.reserve(&s, "k", 0, 99, None),
            Ok(Reservation {
                runtime_id: 31,
                port: 45000
            })
        );
        assert_eq!(p.apply(&s, "k").map(|a| a.0), Ok(ApplyKind::Deploy));
    }

    #[test]
    fn a_release_to_an_unreachable_panel_is_lost_and_keeps_the_runtime_applied() {
        let mut p = Providers::default();
        let s = share((45000, 45100));
        p.record_applied(&s, "k", 31, 45050);
        p.set_unreachable([s.clone()]);
        assert!(matches!(p.release(&s, 31, "k"), Released::Lost));
        assert!(p.runtime(&s, "k").is_some_and(|r| r.active && r.applied));
        p.set_unreachable([]);
        match p.release(&s, 31, "k") {
            Released::Runtime(r) => assert!(r.applied && r.id == 31),
            other => panic!("{other:?}"),
        }
        assert!(p.runtime(&s, "k").is_some_and(|r| !r.active && !r.applied));
        assert!(matches!(p.release(&s, 0, "other"), Released::Unknown));
    }

    #[test]
    fn restore_undoes_a_reservation() {
        let mut p = Providers::default();
        let s = share((45000, 45100));
        p.reserve(&s, "new", 0, 20, None).unwrap();
        p.restore(&s, "new", None);
        assert!(p.runtime(&s, "new").is_none());
        p.record_applied(&s, "old", 31, 45050);
        p.release(&s, 31, "old");
        let before = p.runtime(&s, "old").cloned();
        p.reserve(&s, "old", 0, 99, Some(45001)).unwrap();
        p.restore(&s, "old", before);
        let r = p.runtime(&s, "old").unwrap();
        assert_eq!((r.id, r.port, r.active), (31, 45050, false));
    }

    #[test]
    fn a_runtime_names_its_service_and_a_middle_its_chain() {
        let mut p = Providers::default();
        let s = Share::of_node(2);
        p.reserve(&s, "k", 0, 21, Some(0)).unwrap();
        let r = p.runtime_mut(&s, "k").unwrap();
        assert_eq!(
            (r.service_name(), r.chain_name()),
            ("fed_svc_21".into(), None)
        );
        r.usage.role = "middle".into();
        assert_eq!(r.chain_name().as_deref(), Some("fed_chain_21"));
        // Another node is another panel: the same id is free there.
        assert_eq!(
            p.reserve(&Share::of_node(3), "k", 0, 21, Some(0))
                .map(|r| r.runtime_id),
            Ok(21)
        );
    }

    #[test]
    fn no_range_grants_the_requested_port_or_none() {
        let mut p = Providers::default();
        let s = share((0, 0));
        assert_eq!(
            p.reserve(&s, "a", 44010, 20, None).map(|r| r.port),
            Ok(44010)
        );
        assert_eq!(
            p.reserve(&s, "b", 0, 30, None),
            Err("remote api error: No available port".into())
        );
    }

    #[test]
    fn an_allocation_outside_the_range_fails_the_apply() {
        let mut p = Providers::default();
        let s = share((45000, 45100));
        p.reserve(&s, "a", 0, 20, Some(40000)).unwrap();
        assert_eq!(
            p.apply(&s, "a"),
            Err("remote api error: port 40000 out of allowed range 45000-45100".into())
        );
    }
}
