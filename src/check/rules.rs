//! The rule table (README.md, section "Rules", describes each rule): code,
//! rule name, severity and a short description in English and Chinese, plus
//! the finding builder.

use crate::encode::shape;
use crate::finding::{Finding, Fix, Severity};

shape! {
    #[doc = " One rule of the checker (`rules()`; also SARIF's rule table)."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct RuleInfo {
        pub code: String => "code",
        pub rule: String => "rule",
        pub severity: Severity => "severity",
        pub description: String => "description",
        pub description_zh: String => "descriptionZh",
    }
}

use Severity::{Error as E, Info as I, Warning as W};

pub(crate) const RULES: &[(&str, &str, Severity, &str, &str)] = &[
    ("AC001", "decode-type", E,
     "A typed field has a JSON type the agent's decoder rejects, so the command fails.",
     "字段的 JSON 类型与节点解码器要求不符，命令会被拒绝。"),
    ("AC002", "chain-duration-string", E,
     "A chain hop's selector.failTimeout is a string; AddChains has no duration conversion, so it fails.",
     "链路跳点的 selector.failTimeout 是字符串；AddChains 不做时长转换，命令会失败。"),
    ("AC003", "bad-duration", E,
     "A service selector's failTimeout string is not a Go duration.",
     "服务选择器的 failTimeout 字符串不是合法的 Go 时长。"),
    ("AC004", "unknown-strategy", W,
     "The agent does not know this strategy (case-sensitive) and silently uses round robin.",
     "节点不认识该负载策略（区分大小写），会静默改用轮询。"),
    ("AC005", "bad-listen-addr", E,
     "A service addr the agent cannot listen on.",
     "服务监听地址无法被节点监听。"),
    ("AC006", "bad-dial-addr", E,
     "A chain node addr that is not host:port.",
     "链路节点地址不是 host:port 形式。"),
    ("FO001", "missing-retries", E,
     "The service's chain has n > 1 first-hop nodes but fewer than n - 1 router retries (for a forward service, counting its handler's one try per target): a failed primary is not retried.",
     "服务链路首跳有 n > 1 个节点但路由重试次数少于 n - 1（转发服务计入处理器对每个目标的一次尝试）：主节点失败时不会重试备用节点。"),
    ("FO002", "retries-without-chain", W,
     "retries > 0 on a service without a chain has no effect.",
     "没有链路的服务设置 retries > 0 没有效果。"),
    ("FO003", "excess-retries", I,
     "retries > n - 1: extra dial rounds add latency and reach no new node.",
     "retries > n - 1：多余的重试只会增加延迟，不会到达新节点。"),
    ("FO004", "dangling-chain", E,
     "handler.chain names a chain the node does not have.",
     "handler.chain 引用的链路在该节点上不存在。"),
    ("FO005", "direct-egress", I,
     "A known risk of GOST's design (no setting turns it off): when every node of a hop of two or more is marked failed, the node running the chain dials the destination itself, bypassing the rest of the chain, until a mark expires (failTimeout). Mitigation: let that node connect out only to its next hop's nodes (a firewall rule), so such a dial fails instead of leaving from it.",
     "GOST 设计上的已知风险（没有配置可以关闭）：当一跳（两个及以上节点）的所有节点都被标记为失败时，运行该链路的节点会直接连接目标地址、绕过链路其余部分，直到标记过期（failTimeout）。缓解：只允许该节点向下一跳的节点发起连接（防火墙规则），这样的直连会失败而不会从该节点出站。"),
    ("FO006", "target-blackout", W,
     "A forward with two or more targets over a tunnel: when a tunnel node dies, each target's dial fails and marks that healthy target failed, so it is skipped for failTimeout (10 minutes as the panel sets it), also after the node is back.",
     "经隧道转发且有两个及以上目标的转发：隧道节点故障时，每个目标的拨号都会失败并把健康的目标标记为失败，在 failTimeout（面板设置为 10 分钟）内被跳过，即使节点已恢复。"),
    ("LK001", "dangling-target", E,
     "A chain node dials a tunnel node's port where no planned service listens.",
     "链路节点拨号的隧道节点端口上没有计划中的服务监听。"),
    ("LK002", "protocol-mismatch", E,
     "The dialer type differs from the listener type of the service it dials.",
     "拨号器类型与被拨号服务的监听器类型不一致。"),
    ("LK003", "mux-mismatch", I,
     "The connector's mux settings differ from the handler's on the other end.",
     "连接器的多路复用设置与对端处理器不一致。"),
    ("LK004", "port-clash", E,
     "Two services of one node listen on one port (the same address, or one of them on every address): the agent cannot bind the second.",
     "同一节点的两个服务监听同一端口（地址相同，或其中一个监听所有地址）：节点无法绑定第二个。"),
    ("LK005", "unsent-limiter", E,
     "A service names a limiter or connection limiter its node is never sent: the agent runs the service without it, so the limit silently does not apply.",
     "服务引用的限速器或连接限制器从未下发到该节点：节点在没有它的情况下运行服务，限制静默失效。"),
    ("PA001", "retries-parity", E,
     "The federated service's retries differ from what the local builder would emit.",
     "联邦服务的 retries 与本地构建结果不一致。"),
    ("PA002", "selector-parity", E,
     "The federated hop's strategy, maxFails or failTimeout differ from the local builder's.",
     "联邦跳点的策略、maxFails 或 failTimeout 与本地构建结果不一致。"),
    ("PA003", "metadata-parity", I,
     "Handler, connector, dialer or listener metadata differ from the local builder's: no effect on routing or retries (a mismatch that breaks a link is LK003).",
     "处理器、连接器、拨号器或监听器的元数据与本地构建结果不一致：不影响路由和重试（会断开链路的不一致见 LK003）。"),
    ("PA004", "listen-addr-parity", W,
     "The federated addr is not normalised where the local builder's is.",
     "联邦地址未规范化，而本地构建结果是规范化的。"),
    ("PA005", "interface-parity", W,
     "The outgoing interface is placed differently from the local builder's.",
     "出口网卡（interface）的位置与本地构建结果不同。"),
    ("LC001", "stale-retries-after-edit", E,
     "An edit re-applies a federated middle whose release never reached its provider: the service keeps stale retries.",
     "编辑时重新应用的联邦中转节点此前的释放未送达提供方：服务保留了旧的 retries。"),
    ("LC002", "release-leak", E,
     "Something the plan creates has no matching delete in its release plan.",
     "计划创建的资源在释放计划中没有对应的删除。"),
    ("LC003", "rollback-leak", E,
     "The local rollback after a failed apply misses something it created.",
     "应用失败后的本地回滚遗漏了已创建的资源。"),
    ("LC004", "cleanup-deletes-in-use", E,
     "The panel that owns a node deletes, at the node's next config report, a chain or limiter a service still uses (its cleanup goes by name): the service then dials destinations itself, or runs without its limit.",
     "节点所属面板在节点下一次上报配置时删除了仍被服务使用的链路或限速器（清理只看名称）：服务之后直接连接目标地址，或在没有限速的情况下运行。"),
    ("IN001", "unreadable", E,
     "The document cannot be read: not JSON, wrong shape or over a size limit.",
     "文档无法读取：不是 JSON、结构不对或超出大小限制。"),
    ("IN002", "server-rejects", E,
     "The server would refuse the tunnel.",
     "服务器会拒绝该隧道。"),
    ("IN003", "assumed-values", I,
     "The preview assumed values only the server or a provider panel knows (an id, a provider's port, runtime id, listen address or interface).",
     "预览假定了只有服务器或提供方面板才知道的值（ID、提供方端口、运行时 ID、监听地址或网卡）。"),
    ("IN004", "remote-entry-edit-fails", E,
     "An edit of a tunnel whose entry is a remote node fails upstream: the provider's relay does not allow UpdateChains. Delete and re-create the tunnel, or edit it on the provider panel.",
     "入口为远程节点的隧道在上游无法编辑：提供方的转发接口不允许 UpdateChains。请删除后重新创建，或在提供方面板上修改。"),
];

/// Every rule the checker (and the lifecycle replay) can report.
pub fn rules() -> Vec<RuleInfo> {
    RULES
        .iter()
        .map(|(code, rule, sev, en, zh)| RuleInfo {
            code: code.to_string(),
            rule: rule.to_string(),
            severity: *sev,
            description: en.to_string(),
            description_zh: zh.to_string(),
        })
        .collect()
}

pub(crate) fn lookup(code: &str) -> (&'static str, Severity) {
    RULES
        .iter()
        .find(|r| r.0 == code)
        .map(|r| (r.1, r.2))
        .unwrap_or(("unknown", Severity::Error))
}

/// Collects findings while a document is checked.
#[derive(Default)]
pub(crate) struct Sink {
    pub findings: Vec<Finding>,
}

impl Sink {
    /// [`Sink::add`] with messages still to be formatted: the rules raise
    /// findings from many sites, and formatting them here, in one place,
    /// keeps each site a call instead of two inlined `format!`s. A rule with
    /// a fix adds it next ([`Sink::fix_last`]).
    #[inline(never)]
    pub fn say(
        &mut self,
        code: &str,
        node_id: Option<i64>,
        path: &str,
        en: std::fmt::Arguments<'_>,
        zh: std::fmt::Arguments<'_>,
    ) {
        self.add(code, node_id, path, en.to_string(), zh.to_string());
    }

    /// The fix of the finding just raised.
    pub fn fix_last(&mut self, fix: Fix) {
        if let Some(last) = self.findings.last_mut() {
            last.fix = Some(fix);
        }
    }

    pub fn add(&mut self, code: &str, node_id: Option<i64>, path: &str, en: String, zh: String) {
        let (rule, severity) = lookup(code);
        self.findings.push(Finding {
            code: code.to_string(),
            rule: rule.to_string(),
            severity,
            node_id,
            path: path.to_string(),
            message: en,
            message_zh: zh,
            fix: None,
        });
    }
}
