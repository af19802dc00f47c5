//! The server's rejections: one variant per answer the request path can
//! give, each with a stable code, the server's exact text and an English one.

use crate::plan::PlanError;
use std::fmt;

/// Why the server refuses (or fails) a tunnel request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// The body (or the redeploy rows) cannot be read: `请求参数错误`.
    InvalidInput(String),
    /// A custom connect IP on an exit of a multi-exit tunnel.
    ConnectIpMultiExit,
    /// A custom connect IP on a node of hop `hop` (1-based) with several nodes.
    ConnectIpMultiNodeHop {
        hop: usize,
    },
    NameEmpty,
    /// An edit without a tunnel id.
    TunnelIdMissing,
    /// Redeploy: no stored tunnel row for the id.
    TunnelNotFound,
    /// A probe target field the server refuses (`message` is the server's text).
    ProbeTarget {
        message: &'static str,
        english: &'static str,
        field: &'static str,
    },
    NoEntries,
    NoExits,
    PortsExhausted,
    /// The node row has no usable port range at all (the server's text is the
    /// same as for a full range; the code tells the two apart).
    PortRangeMissing {
        name: String,
    },
    DuplicateNode,
    NodeNotFound,
    NodeOffline,
    RemotePortOutOfRange {
        port: i64,
        start: i64,
        end: i64,
    },
    RemoteShareMissing {
        name: String,
    },
    /// A remote entry without share URL or token (the relay's own text has no name).
    EntryShareMissing {
        name: String,
    },
    LinkIncompatible {
        from: String,
        from_v4: bool,
        from_v6: bool,
        to: String,
        to_v4: bool,
        to_v6: bool,
    },
    PortMissing,
    /// A chain with nothing to dial: no exit rows (or an empty next hop)
    /// where the stored rows give the entries or hop nodes a chain.
    ChainTargetsEmpty,
    /// The provider refused the port reservation.
    RemoteReserveFailed {
        name: String,
        reason: String,
    },
    /// The provider refused to apply the runtime.
    RemoteApplyFailed {
        name: String,
        reason: String,
    },
    /// The relay refused the entry's chain command (the upstream edit defect).
    EntryChainRefused {
        name: String,
        reason: String,
    },
    /// Update: the tunnel as it was (`before`) is itself refused on create.
    BeforeRejected(Box<PlanError>),
    /// Two bindings of one apply with the same tunnel, node, chain type and
    /// hop (a remote node stored twice in one role): the database refuses
    /// the second row when the bindings are saved.
    BindingNotUnique,
    /// Stored rows (or another count only known once rows are read) over a
    /// size limit: not the server's answer, the preview's own bound.
    Limit(Box<crate::limits::LimitError>),
}

impl Rejection {
    /// Stable code, the server's exact text, and an English rendering.
    pub fn to_plan_error(&self) -> PlanError {
        let path = self.input_path();
        let error = |code: &str, message: fmt::Arguments<'_>, english: fmt::Arguments<'_>| {
            plan_error(code, message, english, path)
        };
        match self {
            Rejection::InvalidInput(why) => error(
                "INVALID_INPUT",
                format_args!("请求参数错误"),
                format_args!("invalid input: {}", why),
            ),
            Rejection::ConnectIpMultiExit => error(
                "CONNECT_IP_MULTI_EXIT",
                format_args!("多出口隧道不支持设置自定义连接IP"),
                format_args!("a tunnel with several exits cannot set a custom connect IP on an exit"),
            ),
            Rejection::ConnectIpMultiNodeHop { hop } => error(
                "CONNECT_IP_MULTI_NODE_HOP",
                format_args!("转发链第{}跳有多个节点时不支持设置自定义连接IP", hop),
                format_args!("hop {} has several nodes, so none of them may set a custom connect IP", hop),
            ),
            Rejection::NameEmpty => error(
                "NAME_EMPTY",
                format_args!("隧道名称不能为空"),
                format_args!("the tunnel name is empty"),
            ),
            Rejection::TunnelIdMissing => error(
                "TUNNEL_ID_MISSING",
                format_args!("隧道ID不能为空"),
                format_args!("an edit needs the tunnel id"),
            ),
            Rejection::TunnelNotFound => error(
                "TUNNEL_NOT_FOUND",
                format_args!("隧道不存在"),
                format_args!("no stored tunnel has this id"),
            ),
            Rejection::ProbeTarget { message, english, .. } => error(
                "PROBE_TARGET_INVALID",
                format_args!("{}", message),
                format_args!("{}", english),
            ),
            Rejection::NoEntries => error(
                "NO_ENTRIES",
                format_args!("入口不能为空"),
                format_args!("the tunnel has no entry node"),
            ),
            Rejection::NoExits => error(
                "NO_EXITS",
                format_args!("出口不能为空"),
                format_args!("the tunnel has no exit node"),
            ),
            Rejection::PortsExhausted => error(
                "PORTS_EXHAUSTED",
                format_args!("节点端口已满，无可用端口"),
                format_args!("the node has no free port in its port range"),
            ),
            Rejection::PortRangeMissing { name } => error(
                "PORT_RANGE_MISSING",
                format_args!("节点端口已满，无可用端口"),
                format_args!("node {} has no port range (its row's `port` is empty or unreadable), so no port can be picked", name),
            ),
            Rejection::DuplicateNode => error(
                "DUPLICATE_NODE",
                format_args!("节点重复"),
                format_args!("a node appears more than once in the tunnel"),
            ),
            Rejection::NodeNotFound => error(
                "NODE_NOT_FOUND",
                format_args!("节点不存在"),
                format_args!("a node of the tunnel does not exist"),
            ),
            Rejection::NodeOffline => error(
                "NODE_OFFLINE",
                format_args!("部分节点不在线"),
                format_args!("some local nodes are offline"),
            ),
            Rejection::RemotePortOutOfRange { port, start, end } => error(
                "REMOTE_PORT_OUT_OF_RANGE",
                format_args!("远程节点端口 {} 超出允许范围 {}-{}", port, start, end),
                format_args!("remote node port {} is outside the shared range {}-{}", port, start, end),
            ),
            Rejection::RemoteShareMissing { name } => error(
                "REMOTE_SHARE_MISSING",
                format_args!("远程节点 {} 缺少共享配置", name),
                format_args!("remote node {} has no share URL or token", name),
            ),
            Rejection::EntryShareMissing { name } => error(
                "REMOTE_SHARE_MISSING",
                format_args!("入口节点 {} 下发转发链失败: 远程节点缺少共享配置", name),
                format_args!("entry node {} is remote but has no share URL or token", name),
            ),
            Rejection::LinkIncompatible { from, from_v4, from_v6, to, to_v4, to_v6 } => error(
                "LINK_INCOMPATIBLE",
                format_args!("节点链路不兼容：{}(v4={},v6={}) -> {}(v4={},v6={})", from, from_v4, from_v6, to, to_v4, to_v6),
                format_args!("no common IP family from {} (v4={}, v6={}) to {} (v4={}, v6={})", from, from_v4, from_v6, to, to_v4, to_v6),
            ),
            Rejection::PortMissing => error(
                "PORT_MISSING",
                format_args!("节点端口不能为空"),
                format_args!("a next-hop node has no port"),
            ),
            Rejection::ChainTargetsEmpty => error(
                "CHAIN_TARGETS_EMPTY",
                format_args!("转发链目标不能为空"),
                format_args!("a chain has no targets: its next hop (or the exits) has no node"),
            ),
            Rejection::RemoteReserveFailed { name, reason } => error(
                "REMOTE_RESERVE_FAILED",
                format_args!("远程节点 {} 端口分配失败: {}", name, reason),
                format_args!("the provider panel of remote node {} refused the port reservation: {}", name, reason),
            ),
            Rejection::RemoteApplyFailed { name, reason } => error(
                "REMOTE_APPLY_FAILED",
                format_args!("远程节点 {} 运行时下发失败: {}", name, reason),
                format_args!("the provider panel of remote node {} refused to deploy the runtime: {}", name, reason),
            ),
            Rejection::EntryChainRefused { name, reason } => error(
                "REMOTE_ENTRY_UPDATE_REFUSED",
                format_args!("入口节点 {} 下发转发链失败: {}", name, reason),
                format_args!("the provider panel of remote entry node {} refused the chain update ({}): the relay does not allow UpdateChains, so every edit of a tunnel with a remote entry fails; delete and re-create the tunnel, or edit it on the provider panel",
                    name, reason),
            ),
            Rejection::Limit(e) => limit_error(e),
            // SQLite's text: of the two unique indexes a duplicate breaks, it
            // names the one whose first column comes first in model.go.
            Rejection::BindingNotUnique => error(
                "BINDING_NOT_UNIQUE",
                format_args!("UNIQUE constraint failed: federation_tunnel_binding.tunnel_id, federation_tunnel_binding.node_id, federation_tunnel_binding.chain_type, federation_tunnel_binding.hop_inx"),
                format_args!("a remote node is stored twice in one role of this tunnel, so two federation bindings would have the same tunnel, node, chain type and hop: the database refuses the second when the bindings are saved"),
            ),
            Rejection::BeforeRejected(e) => PlanError {
                code: "BEFORE_REJECTED".into(),
                message: e.message.clone(),
                message_en: format!("the tunnel as it was (`before`) is itself refused on create ({}): {}", e.code, e.message_en),
                path: Some("/before".into()),
            },
        }
    }

    /// Where in the input the server's check looked (a JSON Pointer), when one place can be named.
    pub fn input_path(&self) -> Option<&'static str> {
        match self {
            Rejection::ConnectIpMultiExit => Some("/tunnel/outNodeId"),
            Rejection::ConnectIpMultiNodeHop { .. } => Some("/tunnel/chainNodes"),
            Rejection::NameEmpty => Some("/tunnel/name"),
            Rejection::TunnelIdMissing => Some("/tunnel/id"),
            Rejection::ProbeTarget { field, .. } => Some(field),
            Rejection::NoEntries => Some("/tunnel/inNodeId"),
            Rejection::NoExits => Some("/tunnel/outNodeId"),
            _ => None,
        }
    }
}

/// A rejection's error. Formatting happens here, in one place, so that each
/// variant is a call instead of two inlined `format!`s.
#[inline(never)]
pub(crate) fn plan_error(
    code: &str,
    message: fmt::Arguments<'_>,
    english: fmt::Arguments<'_>,
    path: Option<&str>,
) -> PlanError {
    PlanError {
        code: code.to_string(),
        message: message.to_string(),
        message_en: english.to_string(),
        path: path.map(String::from),
    }
}

/// An input over a size limit: not a server decision, so the Chinese and
/// English texts are this module's own.
pub fn limit_error(e: &crate::limits::LimitError) -> PlanError {
    PlanError {
        code: "LIMIT_EXCEEDED".into(),
        message: e.message_zh(),
        message_en: e.message.clone(),
        path: None,
    }
}

impl From<crate::limits::LimitError> for Rejection {
    fn from(e: crate::limits::LimitError) -> Rejection {
        Rejection::Limit(Box::new(e))
    }
}

pub type Result<T> = std::result::Result<T, Rejection>;
