//! AC rules: would the agent accept it. Walks service and chain configs the
//! way Go's `encoding/json` decodes them into GOST's config structs
//! (`go-gost/x/config/config.go`): unknown keys are ignored, field names match
//! case-insensitively, a wrong JSON type for a typed field fails the command.

use super::rules::Sink;
use super::tree::{TreeObject, TreeValue};
use super::util::{
    dial_addr_problem, json_type, json_type_zh, listen_addr_problem, AddrProblem, Pointer,
};
use crate::go::duration::parse_duration;
use crate::go::strings::key_eq_ci;

/// The Go type a config field decodes into.
#[derive(Clone, Copy)]
pub(crate) enum GoType {
    Str,
    Int,
    /// `time.Duration` (int64 nanoseconds).
    Dur,
    /// `map[string]any`.
    Map,
    /// A struct pointer with these fields (unlisted keys are ignored).
    Struct(&'static Fields),
    /// A slice.
    Arr(&'static GoType),
    /// A string that is a service listen address (AC005).
    ListenAddr,
    /// A string that is a dial address (AC006).
    DialAddr,
    /// A selector strategy string (AC004).
    Strategy,
}

#[derive(Clone, Copy)]
pub(crate) struct Field(&'static str, GoType);

/// The fields of one Go struct, with a small index built at compile time:
/// a key's length and folded first and last bytes pick one of 64 slots, so
/// a key is compared with at most one field instead of a scan of the list.
/// Decoding a large config looks up every key.
pub(crate) struct Fields {
    list: &'static [Field],
    /// Per slot: 0 for no field, `i + 1` for the one field `list[i]`, or
    /// [`SHARED`] when several fields land there (then the list is scanned).
    slots: [u8; 64],
}

const SHARED: u8 = u8::MAX;

/// The slot of a key; keys equal but for ASCII case share it.
const fn slot(key: &[u8]) -> usize {
    match key {
        [] => 0,
        [first, .., last] | [first @ last] => {
            (key.len() * 7 + (*first | 0x20) as usize * 3 + (*last | 0x20) as usize) & 63
        }
    }
}

// Runs at compile time only (every table is a `static`): an index out of
// range would fail the build, not the program.
#[allow(clippy::indexing_slicing)]
const fn fields(list: &'static [Field]) -> Fields {
    assert!(list.len() < SHARED as usize);
    let mut slots = [0u8; 64];
    let mut i = 0;
    while i < list.len() {
        let s = slot(list[i].0.as_bytes());
        slots[s] = if slots[s] == 0 { i as u8 + 1 } else { SHARED };
        i += 1;
    }
    Fields { list, slots }
}

/// A struct's fields from its groups, in order (`N` is their total; a wrong
/// count fails the build).
#[allow(clippy::indexing_slicing)]
const fn join<const N: usize>(groups: &[&[Field]]) -> [Field; N] {
    let mut out = [Field("", GoType::Str); N];
    let (mut at, mut g) = (0, 0);
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            out[at] = groups[g][i];
            at += 1;
            i += 1;
        }
        g += 1;
    }
    assert!(at == N);
    out
}

impl Fields {
    /// The field `key` decodes into, matched as Go matches struct fields
    /// (ASCII case folded); the first such field when the list is scanned.
    fn find(&self, key: &str) -> Option<&'static Field> {
        let list: &'static [Field] = self.list;
        match self
            .slots
            .get(slot(key.as_bytes()))
            .copied()
            .unwrap_or(SHARED)
        {
            0 => None,
            SHARED => list.iter().find(|f| key_eq_ci(f.0, key)),
            i => list.get(usize::from(i) - 1).filter(|f| key_eq_ci(f.0, key)),
        }
    }
}

/// Where a config is decoded: services get the agent's duration step for
/// `selector.failTimeout` strings, chains do not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Service,
    Chain,
}

const STRS: GoType = GoType::Arr(&GoType::Str);
const NO_FIELDS: Fields = fields(&[]);
const ANY_OBJ: GoType = GoType::Struct(&NO_FIELDS);

static SOCKOPTS: Fields = fields(&[Field("mark", GoType::Int)]);
static SELECTOR: Fields = fields(&[
    Field("strategy", GoType::Strategy),
    Field("maxFails", GoType::Int),
    Field("failTimeout", GoType::Dur),
]);
static CHAIN_GROUP: Fields = fields(&[
    Field("chains", STRS),
    Field("selector", GoType::Struct(&SELECTOR)),
]);
static PLUGIN: Fields = fields(&[
    Field("type", GoType::Str),
    Field("auth", ANY_OBJ),
    Field("tls", ANY_OBJ),
    Field("metadata", GoType::Map),
]);
// Field groups several of GOST's config structs declare alike (each struct
// repeats them in go-gost/x/config/config.go); a struct's table joins its
// groups.

/// `chain`, `chainGroup`, auth, TLS and metadata: a listener's fields, which
/// a handler has too.
const PLUGIN_CHAIN: &[Field] = &[
    Field("type", GoType::Str),
    Field("chain", GoType::Str),
    Field("chainGroup", GoType::Struct(&CHAIN_GROUP)),
    Field("auther", GoType::Str),
    Field("authers", STRS),
    Field("auth", ANY_OBJ),
    Field("tls", ANY_OBJ),
    Field("metadata", GoType::Map),
];
/// The name and dial address of a chain node or forwarder node, and its bypasses.
const DIAL: &[Field] = &[
    Field("name", GoType::Str),
    Field("addr", GoType::DialAddr),
    Field("network", GoType::Str),
    Field("bypass", GoType::Str),
    Field("bypasses", STRS),
];
/// A chain node's or forwarder node's filter, matcher, HTTP and TLS settings.
const NODE_TAIL: &[Field] = &[
    Field("filter", ANY_OBJ),
    Field("matcher", ANY_OBJ),
    Field("http", ANY_OBJ),
    Field("tls", ANY_OBJ),
    Field("metadata", GoType::Map),
];
/// The outgoing interface, socket options, bypasses and resolution of a
/// service or a hop.
const ROUTING: &[Field] = &[
    Field("interface", GoType::Str),
    Field("sockopts", GoType::Struct(&SOCKOPTS)),
    Field("bypass", GoType::Str),
    Field("bypasses", STRS),
    Field("resolver", GoType::Str),
    Field("hosts", GoType::Str),
];

static LISTENER: Fields = fields(PLUGIN_CHAIN);
static HANDLER_LIST: [Field; 11] = join(&[
    PLUGIN_CHAIN,
    &[
        Field("retries", GoType::Int),
        Field("limiter", GoType::Str),
        Field("observer", GoType::Str),
    ],
]);
static HANDLER: Fields = fields(&HANDLER_LIST);
static FORWARD_NODE_LIST: [Field; 14] = join(&[
    DIAL,
    &[
        Field("protocol", GoType::Str),
        Field("host", GoType::Str),
        Field("path", GoType::Str),
        Field("auth", ANY_OBJ),
    ],
    NODE_TAIL,
]);
static FORWARD_NODE: Fields = fields(&FORWARD_NODE_LIST);
static FORWARDER: Fields = fields(&[
    Field("name", GoType::Str),
    Field("hop", GoType::Str),
    Field("selector", GoType::Struct(&SELECTOR)),
    Field("nodes", GoType::Arr(&GoType::Struct(&FORWARD_NODE))),
]);
static SERVICE_LIST: [Field; 22] = join(&[
    &[
        Field("name", GoType::Str),
        Field("addr", GoType::ListenAddr),
        Field("admission", GoType::Str),
        Field("admissions", STRS),
    ],
    ROUTING,
    &[
        Field("limiter", GoType::Str),
        Field("climiter", GoType::Str),
        Field("rlimiter", GoType::Str),
        Field("logger", GoType::Str),
        Field("loggers", STRS),
        Field("observer", GoType::Str),
        Field("recorders", GoType::Arr(&ANY_OBJ)),
        Field("handler", GoType::Struct(&HANDLER)),
        Field("listener", GoType::Struct(&LISTENER)),
        Field("forwarder", GoType::Struct(&FORWARDER)),
        Field("metadata", GoType::Map),
        Field("status", ANY_OBJ),
    ],
]);
pub(crate) static SERVICE: Fields = fields(&SERVICE_LIST);
static NODE_LIST: [Field; 17] = join(&[
    DIAL,
    &[
        Field("resolver", GoType::Str),
        Field("hosts", GoType::Str),
        Field("connector", GoType::Struct(&PLUGIN)),
        Field("dialer", GoType::Struct(&PLUGIN)),
        Field("interface", GoType::Str),
        Field("netns", GoType::Str),
        Field("sockopts", GoType::Struct(&SOCKOPTS)),
    ],
    NODE_TAIL,
]);
static NODE: Fields = fields(&NODE_LIST);
static HOP_LIST: [Field; 15] = join(&[
    &[
        Field("name", GoType::Str),
        Field("selector", GoType::Struct(&SELECTOR)),
    ],
    ROUTING,
    &[
        Field("nodes", GoType::Arr(&GoType::Struct(&NODE))),
        Field("reload", GoType::Dur),
        Field("file", ANY_OBJ),
        Field("redis", ANY_OBJ),
        Field("http", ANY_OBJ),
        Field("plugin", ANY_OBJ),
        Field("metadata", GoType::Map),
    ],
]);
static HOP: Fields = fields(&HOP_LIST);
pub(crate) static CHAIN: Fields = fields(&[
    Field("name", GoType::Str),
    Field("hops", GoType::Arr(&GoType::Struct(&HOP))),
    Field("metadata", GoType::Map),
]);

/// Strategies the agent's selector parser knows (matched case-sensitively).
pub(crate) const KNOWN_STRATEGIES: &[&str] =
    &["round", "rr", "rand", "random", "fifo", "ha", "hash"];

pub(crate) struct Decoder<'s> {
    pub sink: &'s mut Sink,
    pub node_id: Option<i64>,
    pub mode: Mode,
}

impl Decoder<'_> {
    /// Raises `msg` at `path`.
    fn say(&mut self, msg: Msg<'_>, path: &Pointer) {
        msg.say(self.sink, self.node_id, &path.render());
    }

    fn type_error(&mut self, ty: GoType, v: &TreeValue<'_>, path: &Pointer, what: &str) {
        self.say(Msg::Type { what, ty, found: v }, path);
    }

    /// Decodes `v` as `ty`. `key` is the JSON key it sits under and
    /// `parent_key` the key of its enclosing object (for the duration step).
    fn value(
        &mut self,
        ty: GoType,
        v: &TreeValue<'_>,
        path: &Pointer,
        key: &str,
        parent_key: &str,
    ) {
        if v.is_null() {
            return; // Go leaves the zero value
        }
        match ty {
            GoType::Str | GoType::Int | GoType::Map => {
                let decodes = match ty {
                    GoType::Str => v.is_string(),
                    GoType::Int => v.as_i64().is_some(),
                    _ => v.is_object(),
                };
                if !decodes {
                    self.type_error(ty, v, path, key);
                }
            }
            GoType::Strategy | GoType::ListenAddr | GoType::DialAddr => match v.as_str() {
                None => self.type_error(ty, v, path, key),
                Some(s) => self.read_string(ty, s, path),
            },
            GoType::Dur => self.duration(v, path, key, parent_key),
            GoType::Struct(fields) => match v.as_object() {
                None => self.type_error(ty, v, path, key),
                Some(obj) => self.object_at(fields, obj, path, key),
            },
            GoType::Arr(elem) => match v.as_array() {
                None => self.type_error(ty, v, path, key),
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.value(*elem, item, &Pointer::Index(path, i), key, parent_key);
                    }
                }
            },
        }
    }

    /// AC004-AC006: a string the agent reads further (a strategy, a listen
    /// or a dial address).
    fn read_string(&mut self, ty: GoType, s: &str, path: &Pointer) {
        let msg = match ty {
            GoType::Strategy => {
                (!s.is_empty() && !KNOWN_STRATEGIES.contains(&s)).then_some(Msg::Strategy(s))
            }
            GoType::ListenAddr => {
                listen_addr_problem(s).map(|why| Msg::ListenAddr { addr: s, why })
            }
            GoType::DialAddr => dial_addr_problem(s).map(|why| Msg::DialAddr { addr: s, why }),
            _ => None,
        };
        if let Some(msg) = msg {
            self.say(msg, path);
        }
    }

    fn duration(&mut self, v: &TreeValue<'_>, path: &Pointer, key: &str, parent_key: &str) {
        if v.as_i64().is_some() {
            return;
        }
        let Some(s) = v.as_str() else {
            self.type_error(GoType::Dur, v, path, key);
            return;
        };
        let is_fail_timeout = key == "failTimeout" && parent_key == "selector";
        match (self.mode, is_fail_timeout) {
            (Mode::Service, true) => self.service_duration(s, path),
            (Mode::Chain, _) if key_eq_ci(key, "failTimeout") => {
                let ns = parse_duration(s).ok();
                self.say(Msg::ChainDuration { text: s, ns }, path);
            }
            _ => self.type_error(GoType::Dur, v, path, key),
        }
    }

    fn service_duration(&mut self, s: &str, path: &Pointer) {
        if parse_duration(s).is_err() {
            self.say(Msg::Duration(s), path);
        }
    }

    /// The agent's duration step for services runs over every `selector`
    /// object in the service, wherever it sits; an unparsable string is
    /// reported even where the typed walk does not reach (metadata excepted).
    pub(crate) fn scan_selectors_at(&mut self, v: &TreeValue<'_>, path: &Pointer, depth: usize) {
        if depth > 32 {
            return;
        }
        match v {
            TreeValue::Object(o) => {
                // Findings are sorted at the end: any order will do.
                for (k, child) in o.iter_any() {
                    if k == "metadata" {
                        continue;
                    }
                    let p = Pointer::Key(path, k);
                    if k == "selector" {
                        if let Some(TreeValue::Str(ft)) =
                            child.as_object().and_then(|sel| sel.get("failTimeout"))
                        {
                            self.service_duration(ft, &Pointer::Key(&p, "failTimeout"));
                        }
                    }
                    self.scan_selectors_at(child, &p, depth + 1);
                }
            }
            TreeValue::Arr(a) => {
                for (i, child) in a.iter().enumerate() {
                    self.scan_selectors_at(child, &Pointer::Index(path, i), depth + 1);
                }
            }
            _ => {}
        }
    }

    pub fn object(
        &mut self,
        fields: &'static Fields,
        obj: &TreeObject<'_>,
        path: &str,
        own_key: &str,
    ) {
        self.object_at(fields, obj, &Pointer::Base(path), own_key)
    }

    pub(crate) fn object_at(
        &mut self,
        fields: &'static Fields,
        obj: &TreeObject<'_>,
        path: &Pointer,
        own_key: &str,
    ) {
        // Findings are sorted at the end: the stored order will do.
        for (k, v) in obj.iter_any() {
            if let Some(f) = fields.find(k) {
                // A value that plainly decodes is settled here, without a
                // call into `value`: the walk visits every field of the document.
                match (f.1, v) {
                    (_, TreeValue::Null)
                    | (GoType::Str, TreeValue::Str(_))
                    | (GoType::Map, TreeValue::Object(_)) => {}
                    // Nested structs, and slices of them, recurse here.
                    (GoType::Struct(inner), TreeValue::Object(o)) => {
                        self.object_at(inner, o, &Pointer::Key(path, k), k)
                    }
                    (GoType::Arr(GoType::Struct(inner)), TreeValue::Arr(items)) => {
                        let p = Pointer::Key(path, k);
                        for (i, item) in items.iter().enumerate() {
                            match item {
                                TreeValue::Object(o) => {
                                    self.object_at(inner, o, &Pointer::Index(&p, i), k)
                                }
                                TreeValue::Null => {}
                                _ => self.value(
                                    GoType::Struct(inner),
                                    item,
                                    &Pointer::Index(&p, i),
                                    k,
                                    own_key,
                                ),
                            }
                        }
                    }
                    (ty, v) => self.value(ty, v, &Pointer::Key(path, k), k, own_key),
                }
            }
        }
    }
}

/// An AC finding, with what its message names.
enum Msg<'m> {
    /// AC001: `what` (a key) has a JSON type `ty` does not decode from.
    Type {
        what: &'m str,
        ty: GoType,
        found: &'m TreeValue<'m>,
    },
    /// AC002: a chain's failTimeout string, and its nanoseconds when it is
    /// a Go duration.
    ChainDuration { text: &'m str, ns: Option<i64> },
    /// AC003: a service's failTimeout string that is not a Go duration.
    Duration(&'m str),
    /// AC004: a strategy the agent does not know.
    Strategy(&'m str),
    /// AC005.
    ListenAddr { addr: &'m str, why: AddrProblem },
    /// AC006.
    DialAddr { addr: &'m str, why: AddrProblem },
}

impl Msg<'_> {
    /// Raises the finding: its code, and its message in English and Chinese.
    fn say(&self, sink: &mut Sink, node_id: Option<i64>, path: &str) {
        match self {
            Msg::Type { what, ty, found } => {
                let (expected, expected_zh) = expected(*ty);
                sink.say(
                    "AC001",
                    node_id,
                    path,
                    format_args!(
                        "`{}` must be {} for the agent's decoder, but it is {}: the command is rejected",
                        what,
                        expected,
                        json_type(found)
                    ),
                    format_args!(
                        "`{}` 必须是{}，实际是 {}：节点解码失败，命令被拒绝",
                        what,
                        expected_zh,
                        json_type_zh(found)
                    ),
                )
            }
            Msg::ChainDuration { text, ns } => {
                let (use_ns, use_ns_zh) = match ns {
                    Some(n) => (
                        format!("; use the integer {} (nanoseconds)", n),
                        format!("；请改用整数 {}（纳秒）", n),
                    ),
                    None => (String::new(), String::new()),
                };
                sink.say(
                    "AC002",
                    node_id,
                    path,
                    format_args!(
                        "chain selector failTimeout is the string {:?}: AddChains has no duration step, so the agent rejects the chain{}",
                        text, use_ns
                    ),
                    format_args!("链路选择器 failTimeout 是字符串 {:?}：AddChains 不做时长转换，节点会拒绝该链路{}", text, use_ns_zh),
                )
            }
            Msg::Duration(text) => sink.say(
                "AC003",
                node_id,
                path,
                format_args!(
                    "failTimeout {:?} is not a Go duration (e.g. \"600s\", \"1m30s\"): the agent cannot convert it and rejects the service",
                    text
                ),
                format_args!("failTimeout {:?} 不是合法的 Go 时长（如 \"600s\"、\"1m30s\"）：节点无法转换，服务被拒绝", text),
            ),
            Msg::Strategy(s) => {
                let known = KNOWN_STRATEGIES.join(", ");
                sink.say(
                    "AC004",
                    node_id,
                    path,
                    format_args!(
                        "strategy {:?} is unknown to the agent (known, case-sensitive: {}); it silently becomes round robin",
                        s, known
                    ),
                    format_args!(
                        "节点不认识策略 {:?}（区分大小写，可用：{}），会静默改用轮询（round）",
                        s, known
                    ),
                )
            }
            Msg::ListenAddr { addr, why } => sink.say(
                "AC005",
                node_id,
                path,
                format_args!("the agent cannot listen on {:?}: {}", addr, why.en()),
                format_args!("节点无法监听地址 {:?}：{}", addr, why.zh()),
            ),
            Msg::DialAddr { addr, why } => sink.say(
                "AC006",
                node_id,
                path,
                format_args!(
                    "chain node addr {:?} is not a dialable host:port: {}",
                    addr,
                    why.en()
                ),
                format_args!(
                    "链路节点地址 {:?} 不是可拨号的 host:port：{}",
                    addr,
                    why.zh()
                ),
            ),
        }
    }
}

/// What a Go type decodes from, as AC001 names it in English and Chinese.
fn expected(ty: GoType) -> (&'static str, &'static str) {
    match ty {
        GoType::Str | GoType::ListenAddr | GoType::DialAddr | GoType::Strategy => {
            ("a string", "字符串")
        }
        GoType::Int => ("an integer", "整数"),
        GoType::Dur => ("an integer (nanoseconds)", "整数（纳秒）"),
        GoType::Map | GoType::Struct(&_) => ("an object", "对象"),
        GoType::Arr(_) => ("an array", "数组"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(mode: Mode, fields: &'static Fields, v: serde_json::Value) -> Vec<String> {
        let arena = crate::check::tree::Arena::new();
        let v = crate::encode::to_tree(&v, &arena);
        let mut sink = Sink::default();
        let mut d = Decoder {
            sink: &mut sink,
            node_id: None,
            mode,
        };
        if let Some(o) = v.as_object() {
            d.object(fields, o, "", "");
        }
        sink.findings.into_iter().map(|f| f.code).collect()
    }

    /// The slot index finds exactly what a scan of the list finds, for
    /// every field name in any case and for keys that are not fields.
    #[test]
    fn field_index_matches_a_scan() {
        let tables: [&Fields; 12] = [
            &SOCKOPTS,
            &SELECTOR,
            &CHAIN_GROUP,
            &PLUGIN,
            &HANDLER,
            &LISTENER,
            &FORWARD_NODE,
            &FORWARDER,
            &SERVICE,
            &NODE,
            &HOP,
            &CHAIN,
        ];
        let mut keys: Vec<String> = vec![
            "".into(),
            "x".into(),
            "é".into(),
            "nam".into(),
            "names".into(),
            "retriez".into(),
            "mux.keepaliveInterval".into(),
        ];
        for t in tables {
            for f in t.list {
                keys.extend([
                    f.0.to_string(),
                    f.0.to_uppercase(),
                    f.0.to_lowercase(),
                    format!("{}_", f.0),
                    f.0[1..].to_string(),
                ]);
                let mut flipped: String =
                    f.0.chars()
                        .map(|c| {
                            if c.is_ascii_lowercase() {
                                c.to_ascii_uppercase()
                            } else {
                                c.to_ascii_lowercase()
                            }
                        })
                        .collect();
                keys.push(flipped.clone());
                flipped.insert(0, 'k');
                keys.push(flipped);
            }
        }
        for t in tables {
            for k in &keys {
                let scan = t
                    .list
                    .iter()
                    .find(|f| f.0.eq_ignore_ascii_case(k))
                    .map(|f| f.0);
                assert_eq!(t.find(k).map(|f| f.0), scan, "{k}");
            }
        }
    }

    #[test]
    fn service_types() {
        assert_eq!(
            codes(
                Mode::Service,
                &SERVICE,
                json!({"name": "a", "addr": ":1", "handler": {"retries": 2}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(Mode::Service, &SERVICE, json!({"name": 3, "addr": ":1"})),
            vec!["AC001"]
        );
        assert_eq!(
            codes(
                Mode::Service,
                &SERVICE,
                json!({"addr": ":1", "handler": {"Retries": "2"}})
            ),
            vec!["AC001"]
        );
        assert_eq!(
            codes(
                Mode::Service,
                &SERVICE,
                json!({"addr": ":1", "handler": {"retries": 1.0}})
            ),
            vec!["AC001"]
        );
        assert_eq!(
            codes(
                Mode::Service,
                &SERVICE,
                json!({"addr": ":1", "forwarder": {"selector": {"failTimeout": "1m30s", "maxFails": 1}}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            codes(
                Mode::Service,
                &SERVICE,
                json!({"addr": ":1", "forwarder": {"selector": {"failTimeout": "10 min"}}})
            ),
            vec!["AC003"]
        );
    }

    #[test]
    fn chain_types() {
        let ok = json!({"name": "c", "hops": [{"name": "h", "selector": {"strategy": "fifo", "maxFails": 1, "failTimeout": 600000000000u64},
            "nodes": [{"name": "n", "addr": "1.2.3.4:5", "connector": {"type": "relay"}, "dialer": {"type": "tls"}}]}]});
        assert_eq!(codes(Mode::Chain, &CHAIN, ok), Vec::<String>::new());
        let bad = json!({"name": "c", "hops": [{"selector": {"strategy": "FIFO", "maxFails": 1.5, "failTimeout": "600s"},
            "nodes": [{"addr": "1.2.3.4"}]}]});
        let mut c = codes(Mode::Chain, &CHAIN, bad);
        crate::sorting::sort(&mut c);
        assert_eq!(c, vec!["AC001", "AC002", "AC004", "AC006"]);
    }
}
