//! The agents as the forward paths meet them: what each node already holds
//! (services, limiters), how it answers (go-gost `x/socket`: service.go,
//! limiter.go), and, for a remote node, the provider panel that relays the
//! command (`federationRuntimeCommand`, federation.go:1360-1405). Every
//! command that reaches an agent or a provider is recorded, with the
//! refusal it got.

use super::input::{AgentState, Entries};
use crate::model::{FederationAnswers, NodeRecord, NodeTable};
use crate::plan::{Command, CommandData, CommandName};
use crate::planner::provider::share_of;
use litemap::LiteMap;
use std::collections::BTreeSet;

/// What the websocket layer answers for a node that is not connected.
pub const OFFLINE: &str = "节点不在线";

/// One agent's registries.
#[derive(Debug, Default, Clone)]
struct Agent {
    legacy: bool,
    services: BTreeSet<String>,
    limiters: BTreeSet<String>,
    climiters: BTreeSet<String>,
}

/// Every node's agent, the nodes that are offline, and the commands sent.
pub struct Agents<'a> {
    nodes: &'a NodeTable,
    federation: &'a FederationAnswers,
    agents: LiteMap<i64, Agent>,
    /// Sorted.
    offline: Vec<i64>,
    /// Commands sent while recording, in order.
    pub log: Vec<Command>,
    /// Off while the forwards an input says already exist are created.
    pub recording: bool,
}

impl<'a> Agents<'a> {
    pub fn new(
        nodes: &'a NodeTable,
        federation: &'a FederationAnswers,
        given: &Entries<AgentState>,
        offline: &[i64],
    ) -> Agents<'a> {
        let agents: Vec<(i64, Agent)> = given
            .0
            .iter()
            .filter_map(|(id, a)| {
                let id = crate::go::coerce::parse_int(id.trim())?;
                // Inserted one by one: `collect` would sort them first,
                // one more sort compiled for strings.
                let set = |names: &[String]| {
                    let mut set = BTreeSet::new();
                    set.extend(names.iter().cloned());
                    set
                };
                Some((
                    id,
                    Agent {
                        legacy: a.legacy,
                        services: set(&a.services),
                        limiters: set(&a.limiters),
                        climiters: set(&a.climiters),
                    },
                ))
            })
            .collect();
        // A local node whose row is not online has no agent connected: it
        // answers `节点不在线` as a listed one does (the tunnel's own apply
        // skips it too, `planner::local`).
        let mut offline = offline.to_vec();
        let down = nodes
            .rows()
            .iter()
            .filter(|n| !n.is_remote && n.status != 1);
        offline.extend(down.map(|n| n.id));
        offline.sort_unstable();
        offline.dedup();
        Agents {
            nodes,
            federation,
            agents: crate::sorting::sorted_map(agents),
            offline,
            log: Vec::new(),
            recording: true,
        }
    }

    pub fn is_offline(&self, node_id: i64) -> bool {
        self.offline.binary_search(&node_id).is_ok()
    }

    /// `sendNodeCommand` without its tolerances: the error text the panel
    /// sees, or `Ok`. A local node's agent answers itself; a remote node's
    /// command goes through its provider, whose refusals come back as
    /// `remote api error: ...`.
    pub fn send(
        &mut self,
        node_id: i64,
        command: CommandName,
        data: CommandData,
    ) -> Result<(), String> {
        let nodes = self.nodes;
        let node = nodes.get(node_id);
        match node {
            Some(node) if node.is_remote => self.relay(node, command, data),
            // No agent ever connected for a node the panel does not have.
            None => Err(OFFLINE.into()),
            Some(_) => {
                if self.is_offline(node_id) {
                    return Err(OFFLINE.into());
                }
                let answer = self.agent(node_id).apply(command, &data);
                self.record(node_id, command, data, None, answer.as_ref().err());
                answer
            }
        }
    }

    /// The provider's `/runtime/command`: its allow-list, its port range for
    /// services, then its own agent.
    fn relay(
        &mut self,
        node: &NodeRecord,
        command: CommandName,
        data: CommandData,
    ) -> Result<(), String> {
        if node.remote_url.is_empty() || !node.has_remote_token {
            return Err("远程节点缺少共享配置".into());
        }
        let answer = if !command.provider_relays() {
            Err("command not allowed".to_string())
        } else if matches!(
            command,
            CommandName::AddService | CommandName::UpdateService
        ) {
            self.share_ports(node, &data)
        } else {
            Ok(())
        };
        let answer = match answer {
            Ok(()) if self.is_offline(node.id) => {
                return Err(format!("remote api error: {OFFLINE}"))
            }
            Ok(()) => self.agent(node.id).apply(command, &data),
            refused => refused,
        };
        self.record(node.id, command, data, Some(true), answer.as_ref().err());
        answer.map_err(|why| format!("remote api error: {why}"))
    }

    /// `validateFederationCommandPorts`: every service's port inside the share's range.
    fn share_ports(&self, node: &NodeRecord, data: &CommandData) -> Result<(), String> {
        let (start, end) = share_of(node, self.nodes.rows(), self.federation).range;
        if start <= 0 && end <= 0 {
            return Ok(());
        }
        let CommandData::ForwardServices(services) = data else {
            return Ok(());
        };
        for s in services {
            if s.addr.is_empty() {
                continue;
            }
            let Ok((_, port)) = crate::go::net::split_host_port(&s.addr) else {
                return Err(format!("invalid service address: {}", s.addr));
            };
            match crate::go::coerce::parse_int(port) {
                Some(p) if p > 0 && (p < start || p > end) => {
                    return Err(format!("port {p} out of allowed range {start}-{end}"))
                }
                Some(p) if p > 0 => {}
                _ => return Err(format!("invalid port in service address: {}", s.addr)),
            }
        }
        Ok(())
    }

    fn agent(&mut self, node_id: i64) -> &mut Agent {
        self.agents.entry(node_id).or_default()
    }

    fn record(
        &mut self,
        node_id: i64,
        command: CommandName,
        data: CommandData,
        relay: Option<bool>,
        failed: Option<&String>,
    ) {
        if self.recording {
            let mut c = Command::new(node_id, command, data);
            c.relay = relay;
            c.failed = failed.cloned();
            self.log.push(c);
        }
    }
}

impl Agent {
    /// One command on this agent's registries, answered as go-gost's
    /// `x/socket` handlers answer it.
    fn apply(&mut self, command: CommandName, data: &CommandData) -> Result<(), String> {
        match (command, data) {
            (CommandName::UpdateService, CommandData::ForwardServices(list)) => {
                let names = list.iter().map(|s| s.name.as_str());
                if self.legacy {
                    if let Some(missing) = names.clone().find(|n| !self.services.contains(*n)) {
                        return Err(format!("service {missing} not found"));
                    }
                }
                self.services.extend(names.map(String::from));
                Ok(())
            }
            (CommandName::AddService, CommandData::ForwardServices(list)) => {
                if let Some(s) = list.iter().find(|s| self.services.contains(&s.name)) {
                    return Err(format!("service {} already exists", s.name));
                }
                self.services.extend(list.iter().map(|s| s.name.clone()));
                Ok(())
            }
            (CommandName::DeleteService, CommandData::DeleteServices(d)) => {
                for n in &d.services {
                    self.services.remove(n);
                }
                Ok(())
            }
            // Both refuse a service the agent lacks (go-gost x/socket/service.go:264-267, :375-378).
            (
                CommandName::PauseService | CommandName::ResumeService,
                CommandData::DeleteServices(d),
            ) => match d.services.iter().find(|n| !self.services.contains(*n)) {
                Some(missing) => Err(format!("service {missing} not found")),
                None => Ok(()),
            },
            (CommandName::AddLimiters, CommandData::Limiter(l)) => {
                add(&mut self.limiters, &l.name, "limiter")
            }
            (CommandName::AddCLimiters, CommandData::Limiter(l)) => {
                add(&mut self.climiters, &l.name, "conn limiter")
            }
            (CommandName::UpdateLimiters, CommandData::UpdateLimiter(u)) => {
                self.limiters.insert(u.limiter.clone());
                Ok(())
            }
            (CommandName::UpdateCLimiters, CommandData::UpdateLimiter(u)) => {
                self.climiters.insert(u.limiter.clone());
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

fn add(registry: &mut BTreeSet<String>, name: &str, what: &str) -> Result<(), String> {
    if registry.insert(name.to_string()) {
        Ok(())
    } else {
        Err(format!("{what} {name} already exists"))
    }
}
