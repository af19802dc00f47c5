//! The forward paths' answers: one variant per refusal, with a stable code,
//! the server's exact text and an English one.

use crate::plan::PlanError;
use crate::planner::rejection::plan_error;

/// Why the server refuses (or fails) a forward request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardRejection {
    /// The body is not an object: `请求参数错误`.
    InvalidInput(String),
    TunnelIdMissing,
    ForwardIdMissing,
    ForwardNotFound,
    NoTunnelPermission,
    TunnelNotFound,
    /// `update`: whether the refusal is for an update (its text differs).
    TunnelDisabled {
        update: bool,
    },
    /// A user or grant state that forbids forwards (`ensureUserTunnelForwardAllowed`).
    UserState(UserState),
    NameOrTargetEmpty,
    /// `IsSafeRemoteAddr`'s text (code 403).
    UnsafeTarget(String),
    /// A normal user setting (`change` false) or changing a speed limit.
    SpeedLimitForbidden {
        per_ip: bool,
        change: bool,
    },
    InIpMultiEntry,
    RemotePortOutOfRange {
        port: i64,
        start: i64,
        end: i64,
    },
    PortOutOfRange {
        port: i64,
        node: String,
        min: i64,
        max: i64,
    },
    PortTaken {
        node: String,
        port: i64,
    },
    /// A tunnel edit adds an entry node where a forward's port is taken.
    EntryPortConflict {
        forward: String,
        node: String,
        port: i64,
    },
    /// The sync failed; its text is the server's answer.
    SyncFailed(String),
}

/// The user and grant checks of `ensureUserTunnelForwardAllowed`
/// (flow_policy.go:338), in the server's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserState {
    UserMissing,
    UserDisabled,
    UserExpired,
    UserFlowExceeded,
    UserForwardLimit,
    GrantDisabled,
    GrantExpired,
    GrantFlowExceeded,
    GrantForwardLimit,
}

impl UserState {
    fn texts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            UserState::UserMissing => ("USER_NOT_FOUND", "用户不存在", "the user does not exist"),
            UserState::UserDisabled => ("USER_DISABLED", "账号已禁用", "the account is disabled"),
            UserState::UserExpired => ("USER_EXPIRED", "账号已过期", "the account has expired"),
            UserState::UserFlowExceeded => (
                "USER_FLOW_EXCEEDED",
                "流量已超额，禁止开启转发",
                "the account's traffic quota is used up, so no forward may start",
            ),
            UserState::UserForwardLimit => (
                "USER_FORWARD_LIMIT",
                "转发数量已达上限",
                "the account has as many active forwards as it may",
            ),
            UserState::GrantDisabled => (
                "USER_TUNNEL_DISABLED",
                "该隧道已禁用",
                "the user's grant of this tunnel is disabled",
            ),
            UserState::GrantExpired => (
                "USER_TUNNEL_EXPIRED",
                "该隧道已过期",
                "the user's grant of this tunnel has expired",
            ),
            UserState::GrantFlowExceeded => (
                "USER_TUNNEL_FLOW_EXCEEDED",
                "该隧道流量已超额，禁止开启转发",
                "the grant's traffic quota on this tunnel is used up",
            ),
            UserState::GrantForwardLimit => (
                "USER_TUNNEL_FORWARD_LIMIT",
                "该隧道转发数量已达上限",
                "the user has as many active forwards on this tunnel as the grant allows",
            ),
        }
    }
}

impl ForwardRejection {
    /// Where in the input the server's check looked.
    fn path(&self) -> Option<&'static str> {
        Some(match self {
            ForwardRejection::TunnelIdMissing | ForwardRejection::TunnelNotFound => {
                "/forward/tunnelId"
            }
            ForwardRejection::ForwardIdMissing | ForwardRejection::ForwardNotFound => "/forward/id",
            ForwardRejection::NoTunnelPermission => "/userTunnel",
            ForwardRejection::UserState(_) => "/user",
            ForwardRejection::NameOrTargetEmpty | ForwardRejection::UnsafeTarget(_) => {
                "/forward/remoteAddr"
            }
            ForwardRejection::SpeedLimitForbidden { per_ip: false, .. } => "/forward/speedId",
            ForwardRejection::SpeedLimitForbidden { per_ip: true, .. } => "/forward/ipSpeedId",
            ForwardRejection::InIpMultiEntry => "/forward/inIp",
            ForwardRejection::RemotePortOutOfRange { .. }
            | ForwardRejection::PortOutOfRange { .. }
            | ForwardRejection::PortTaken { .. } => "/forward/inPort",
            _ => return None,
        })
    }

    /// The answer as a plan error. Texts that quote the input (a target,
    /// a refusal) have any URL's credentials replaced first.
    pub fn to_plan_error(&self) -> PlanError {
        let mut error = self.answer();
        for text in [&mut error.message, &mut error.message_en] {
            if let Some(clean) = crate::redact::scrub_urls(text) {
                *text = clean;
            }
        }
        error
    }

    fn answer(&self) -> PlanError {
        let path = self.path();
        let e = |code: &str, zh: &str, en: &str| {
            plan_error(code, format_args!("{zh}"), format_args!("{en}"), path)
        };
        match self {
            ForwardRejection::InvalidInput(why) => e(
                "INVALID_INPUT",
                "请求参数错误",
                &format!("invalid input: {why}"),
            ),
            ForwardRejection::TunnelIdMissing => e(
                "FORWARD_TUNNEL_ID_MISSING",
                "隧道ID不能为空",
                "the forward names no tunnel",
            ),
            ForwardRejection::ForwardIdMissing => e(
                "FORWARD_ID_MISSING",
                "转发ID不能为空",
                "an edit needs the forward's id",
            ),
            ForwardRejection::ForwardNotFound => e(
                "FORWARD_NOT_FOUND",
                "转发不存在",
                "no stored forward has that id",
            ),
            ForwardRejection::NoTunnelPermission => e(
                "NO_TUNNEL_PERMISSION",
                "你没有该隧道的权限",
                "a normal user needs an active grant (user_tunnel row) of the tunnel",
            ),
            ForwardRejection::TunnelNotFound => e(
                "FORWARD_TUNNEL_NOT_FOUND",
                "隧道不存在",
                "the tunnel does not exist",
            ),
            ForwardRejection::TunnelDisabled { update } => e(
                "TUNNEL_DISABLED",
                if *update {
                    "隧道已禁用，无法更新转发"
                } else {
                    "隧道已禁用，无法创建转发"
                },
                "the tunnel is disabled",
            ),
            ForwardRejection::UserState(s) => {
                let (code, zh, en) = s.texts();
                e(code, zh, en)
            }
            ForwardRejection::NameOrTargetEmpty => e(
                "FORWARD_NAME_OR_TARGET_EMPTY",
                "转发名称和目标地址不能为空",
                "a forward needs a name and a target address",
            ),
            ForwardRejection::UnsafeTarget(text) => e(
                "UNSAFE_TARGET",
                text,
                &format!("a normal user may not forward to an internal address: {text}"),
            ),
            ForwardRejection::SpeedLimitForbidden { per_ip, change } => {
                let zh = match (per_ip, change) {
                    (false, false) => "普通用户无法设置限速规则",
                    (true, false) => "普通用户无法设置每 IP 限速规则",
                    (false, true) => "普通用户无法修改限速规则",
                    (true, true) => "普通用户无法修改每 IP 限速规则",
                };
                e(
                    "SPEED_LIMIT_FORBIDDEN",
                    zh,
                    "only an administrator sets or changes a forward's speed limits",
                )
            }
            ForwardRejection::InIpMultiEntry => e(
                "IN_IP_MULTI_ENTRY",
                "多入口隧道的转发不支持自定义监听IP",
                "a forward on a tunnel with several entries cannot set its listen IP",
            ),
            ForwardRejection::RemotePortOutOfRange { port, start, end } => e(
                "FORWARD_REMOTE_PORT_OUT_OF_RANGE",
                &format!("远程节点端口 {port} 超出允许范围 {start}-{end}"),
                &format!("port {port} is outside the share's range {start}-{end}"),
            ),
            ForwardRejection::PortOutOfRange {
                port,
                node,
                min,
                max,
            } => e(
                "FORWARD_PORT_OUT_OF_RANGE",
                &format!("端口 {port} 超出节点 {node} 允许范围 {min}-{max}"),
                &format!(
                    "port {port} is outside node {}'s range {min}-{max}",
                    node.trim()
                ),
            ),
            ForwardRejection::PortTaken { node, port } => e(
                "FORWARD_PORT_TAKEN",
                &format!("节点 {node} 端口 {port} 已被其他转发占用"),
                &format!("another forward holds port {port} on node {}", node.trim()),
            ),
            ForwardRejection::EntryPortConflict {
                forward,
                node,
                port,
            } => e(
                "FORWARD_ENTRY_PORT_CONFLICT",
                &format!("转发 {forward} 入口端口冲突: 节点 {node} 端口 {port} 已被其他转发占用"),
                &format!(
                    "forward {forward}'s port {port} is taken on the new entry node {}",
                    node.trim()
                ),
            ),
            ForwardRejection::SyncFailed(text) => e(
                "FORWARD_SYNC_FAILED",
                text,
                &format!("an entry node or its provider refused the forward: {text}"),
            ),
        }
    }
}
