//! Shared harness for the hop-policy fuzz targets.
//!
//! Every target runs two things per input:
//!
//! 1. **raw**: the bytes, if they are UTF-8 JSON, go straight into the entry
//!    point (text entry points get the text even when it is not JSON);
//! 2. **structured**: the same bytes drive [`arbitrary::Unstructured`] to pick
//!    a golden vector and apply a handful of JSON mutations (change types, drop
//!    keys, `__proto__`/`constructor`/`prototype` keys, huge and odd numbers,
//!    deep nesting, long strings, duplicated elements, splices from other
//!    vectors, credential fields replaced by a marker).
//!
//! Besides "does not panic", every run checks properties of the output:
//! it is valid JSON, the same input gives byte-identical output twice, and a
//! credential marker planted by the mutator never shows up in the output.

use arbitrary::{Result as ArbResult, Unstructured};
use serde_json::{Map, Number, Value};
use std::sync::OnceLock;

/// The golden vectors of every mode (create, update, redeploy, and the
/// forward modes: input + expected plan), parsed once per process. `plan`
/// reads an input's mode off the input (`before`, `db`, `forward`).
pub fn vectors() -> &'static [Value] {
    static VECTORS: OnceLock<Vec<Value>> = OnceLock::new();
    VECTORS.get_or_init(|| {
        [
            include_str!("../../tests/data/plan-vectors.jsonl"),
            include_str!("../../tests/data/update-vectors.jsonl"),
            include_str!("../../tests/data/redeploy-vectors.jsonl"),
            include_str!("../../tests/data/forward-vectors.jsonl"),
        ]
        .iter()
        .flat_map(|text| text.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
    })
}

/// A mutation of a forward vector's input, with the mode it names.
pub fn mutated_forward_vector(u: &mut Unstructured) -> ArbResult<(Value, String)> {
    let forwards: Vec<&Value> = vectors()
        .iter()
        .filter(|v| v.get("expected").and_then(|e| e.get("warnings")).is_some())
        .collect();
    if forwards.is_empty() {
        return Ok((Value::Null, String::new()));
    }
    let base = forwards[u.choose_index(forwards.len())?];
    let donor = forwards[u.choose_index(forwards.len())?];
    let mode = base["mode"].as_str().unwrap_or_default().to_string();
    let mut doc = base["input"].clone();
    if u.ratio(1u8, 3u8)? {
        plant_secrets(&mut doc);
    }
    for _ in 0..u.int_in_range(0u8..=8)? {
        mutate_once(u, &mut doc, &donor["input"])?;
    }
    Ok((doc, mode))
}

/// Text planted into credential-like fields; it must never reach an output.
/// (It contains none of the credential key parts, so a key that embeds it is plain data.)
pub const SECRET_MARKER: &str = "FUZZ-CANARY-7f3a9c";

// The robustness tests' list of credential-like keys and their planter.
#[path = "../../tests/hostile_common/credentials.rs"]
mod credentials;
pub use credentials::is_credential_key;

const PROTO_KEYS: &[&str] = &[
    "__proto__",
    "constructor",
    "prototype",
    "hasOwnProperty",
    "toString",
    "__defineGetter__",
];

const ODD_STRINGS: &[&str] = &[
    "",
    " ",
    "0",
    "-1",
    "2",
    "1.5",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "null",
    "true",
    "[::]",
    "[::]:",
    ":::44014",
    "::1",
    "[::1]:443",
    "0.0.0.0:0",
    "203.0.113.1:99999",
    "203.0.113.1:-1",
    "a:b:c",
    "host:",
    ":80",
    "%",
    "%00",
    "\u{0}",
    "\u{FEFF}",
    "节点",
    "🦀",
    "\u{202E}rtl",
    "fifo",
    "FIFO",
    "round",
    "rr",
    "rand",
    "random",
    "hash",
    "ha",
    "tls",
    "kcp",
    "relay",
    "40000-40100",
    "40100-40000",
    "0-65535",
    "1-1",
    "a-b",
    "65535-70000",
    "1s",
    "10m",
    "-5s",
    "1h2m3s",
    "999999999999h",
    "__proto__",
    "constructor",
    "{\"shareId\": 9, \"portRangeStart\": 44000, \"portRangeEnd\": 44100}",
    "{\"portRangeStart\": 50000, \"portRangeEnd\": 40000}",
    "{\"__proto__\": {\"polluted\": 1}}",
    "{not json",
    "~0~1/",
];

fn odd_number(u: &mut Unstructured) -> ArbResult<Value> {
    // A float that JSON can hold (NaN and the infinities cannot): null otherwise.
    let float = |f: f64| Number::from_f64(f).map_or(Value::Null, Value::Number);
    Ok(match u.int_in_range(0u8..=21)? {
        0 => Value::from(0),
        1 => Value::from(-1),
        2 => Value::from(1),
        3 => Value::from(65535),
        4 => Value::from(65536),
        5 => Value::from(i64::MAX),
        6 => Value::from(i64::MIN),
        7 => Value::from(u64::MAX),
        8 => Value::from(i32::MAX as i64 + 1),
        9 => Value::from(u32::MAX as i64 + 1),
        10 => float(1.5),
        11 => float(-0.0),
        12 => float(1e308),
        13 => float(-1e308),
        14 => float(f64::MIN_POSITIVE),
        15 => float(9.007_199_254_740_993e15),
        16 => float(1e19),
        17 => Value::from(u.arbitrary::<i64>()?),
        18 => Value::from(u.arbitrary::<u64>()?),
        19 => float(u.arbitrary::<f64>()?),
        20 => Value::from(u.int_in_range(-3i64..=70000)?),
        _ => Value::from(u.int_in_range(0i64..=20)?),
    })
}

fn odd_string(u: &mut Unstructured) -> ArbResult<Value> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 | 1 | 2 => Value::from(*u.choose(ODD_STRINGS)?),
        3 => Value::from(String::arbitrary_take(u)?),
        4 => {
            // A long string: up to 64 KiB of one repeated piece.
            let piece = *u.choose(&["a", "节", ":", "[", "\\", "0"])?;
            let n = u.int_in_range(1000usize..=65536)?;
            Value::from(piece.repeat(n))
        }
        _ => Value::from(format!(
            "{}:{}",
            u.choose(ODD_STRINGS)?,
            u.int_in_range(-1i64..=70000)?
        )),
    })
}

trait TakeString {
    fn arbitrary_take(u: &mut Unstructured) -> ArbResult<String>;
}
impl TakeString for String {
    fn arbitrary_take(u: &mut Unstructured) -> ArbResult<String> {
        let len = u.int_in_range(0usize..=32)?;
        let bytes = u.bytes(len.min(u.len()))?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Nested arrays/objects `depth` deep around `leaf` (built iteratively).
fn nested(depth: usize, objects: bool, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        v = if objects {
            let mut m = Map::new();
            m.insert("a".into(), v);
            Value::Object(m)
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

/// A replacement value of some (usually different) type.
fn any_value(u: &mut Unstructured, donor: &Value) -> ArbResult<Value> {
    Ok(match u.int_in_range(0u8..=11)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 | 3 => odd_number(u)?,
        4 | 5 => odd_string(u)?,
        6 => Value::Array(vec![]),
        7 => Value::Object(Map::new()),
        8 => {
            // Deep nesting: past serde_json's 128 text limit, kept well inside the stack.
            let depth = u.int_in_range(1usize..=300)?;
            nested(depth, u.arbitrary()?, Value::Null)
        }
        9 => {
            let mut m = Map::new();
            m.insert((*u.choose(PROTO_KEYS)?).to_string(), odd_number(u)?);
            Value::Object(m)
        }
        10 => random_subvalue(u, donor)?.clone(),
        _ => Value::Array(vec![odd_number(u)?, odd_string(u)?]),
    })
}

/// Picks a sub-value of `v` by a random walk.
fn random_subvalue<'a>(u: &mut Unstructured, v: &'a Value) -> ArbResult<&'a Value> {
    let mut cur = v;
    for _ in 0..12 {
        if u.ratio(1u8, 4u8)? {
            break;
        }
        let next = match cur {
            Value::Object(m) if !m.is_empty() => m.values().nth(u.choose_index(m.len())?),
            Value::Array(a) if !a.is_empty() => a.get(u.choose_index(a.len())?),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => break,
        }
    }
    Ok(cur)
}

/// Mutable random walk: picks a path of child indices first, then follows it.
fn random_slot<'a>(u: &mut Unstructured, v: &'a mut Value) -> ArbResult<&'a mut Value> {
    let mut path = Vec::new();
    {
        let mut cur: &Value = v;
        for _ in 0..12 {
            let len = match cur {
                Value::Object(m) => m.len(),
                Value::Array(a) => a.len(),
                _ => 0,
            };
            if len == 0 || u.ratio(1u8, 5u8)? {
                break;
            }
            let i = u.choose_index(len)?;
            let next = match cur {
                Value::Object(m) => m.values().nth(i),
                Value::Array(a) => a.get(i),
                _ => None,
            };
            match next {
                Some(n) => {
                    path.push(i);
                    cur = n;
                }
                None => break,
            }
        }
    }
    let mut cur = v;
    for i in path {
        let ok = match &*cur {
            Value::Object(m) => i < m.len(),
            Value::Array(a) => i < a.len(),
            _ => false,
        };
        if !ok {
            break;
        }
        cur = match cur {
            Value::Object(m) => m.values_mut().nth(i).expect("index checked above"),
            Value::Array(a) => &mut a[i],
            _ => unreachable!("checked above"),
        };
    }
    Ok(cur)
}

/// Replaces every credential-like field's value with [`SECRET_MARKER`] (iterative).
pub fn plant_secrets(v: &mut Value) {
    credentials::plant_with(v, |_| SECRET_MARKER.to_string());
}

/// Applies one random mutation somewhere in `v`.
pub fn mutate_once(u: &mut Unstructured, v: &mut Value, donor: &Value) -> ArbResult<()> {
    let op = u.int_in_range(0u8..=10)?;
    let slot = random_slot(u, v)?;
    match op {
        // change the type / value
        0 | 1 | 2 => *slot = any_value(u, donor)?,
        // drop a key or an element
        3 => match slot {
            Value::Object(m) if !m.is_empty() => {
                let i = u.choose_index(m.len())?;
                if let Some(k) = m.keys().nth(i).cloned() {
                    m.remove(&k);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                let i = u.choose_index(a.len())?;
                a.remove(i);
            }
            _ => *slot = Value::Null,
        },
        // prototype-ish keys, carrying data or a copy of a sibling
        4 => {
            let key = (*u.choose(PROTO_KEYS)?).to_string();
            let val = any_value(u, donor)?;
            match slot {
                Value::Object(m) => {
                    m.insert(key, val);
                }
                other => {
                    let mut m = Map::new();
                    m.insert(key, val);
                    *other = Value::Object(m);
                }
            }
        }
        // rename a key to a prototype-ish one (keeps the value)
        5 => {
            if let Value::Object(m) = slot {
                if !m.is_empty() {
                    let i = u.choose_index(m.len())?;
                    if let Some(k) = m.keys().nth(i).cloned() {
                        if let Some(val) = m.remove(&k) {
                            m.insert((*u.choose(PROTO_KEYS)?).to_string(), val);
                        }
                    }
                }
            }
        }
        // duplicate an element (duplicate nodes, hops, exits)
        6 => {
            if let Value::Array(a) = slot {
                if !a.is_empty() {
                    let i = u.choose_index(a.len())?;
                    let copies = u.int_in_range(1usize..=4)?;
                    if let Some(e) = a.get(i).cloned() {
                        for _ in 0..copies {
                            a.push(e.clone());
                        }
                    }
                }
            }
        }
        // numbers: odd values in place
        7 => *slot = odd_number(u)?,
        // strings: odd values in place
        8 => *slot = odd_string(u)?,
        // splice a piece of another vector in
        9 => *slot = random_subvalue(u, donor)?.clone(),
        // wrap in nesting
        _ => {
            let depth = u.int_in_range(1usize..=200)?;
            let inner = std::mem::take(slot);
            *slot = nested(depth, u.arbitrary()?, inner);
        }
    }
    Ok(())
}

/// A mutated golden document. `which`: 0 = input, 1 = expected plan.
pub fn mutated_vector(u: &mut Unstructured, which: &str) -> ArbResult<Value> {
    let vs = vectors();
    if vs.is_empty() {
        return Ok(Value::Null);
    }
    let base = vs
        .get(u.choose_index(vs.len())?)
        .map(|v| v[which].clone())
        .unwrap_or(Value::Null);
    let donor = vs
        .get(u.choose_index(vs.len())?)
        .map(|v| v[which].clone())
        .unwrap_or(Value::Null);
    let mut doc = base;
    if u.ratio(1u8, 3u8)? {
        plant_secrets(&mut doc);
    }
    let n = u.int_in_range(0u8..=8)?;
    for _ in 0..n {
        mutate_once(u, &mut doc, &donor)?;
    }
    Ok(doc)
}

/// One node's GOST config `{services, chains}` taken from a (mutated) golden plan.
pub fn node_config(u: &mut Unstructured) -> ArbResult<Value> {
    let plan = mutated_vector(u, "expected")?;
    let mut services = Vec::new();
    let mut chains = Vec::new();
    let mut cmds: Vec<&Value> = Vec::new();
    if let Some(local) = plan.get("local").and_then(Value::as_array) {
        cmds.extend(local.iter());
    }
    if let Some(fed) = plan.get("federation").and_then(Value::as_array) {
        for f in fed {
            if let Some(c) = f.get("commands").and_then(Value::as_array) {
                cmds.extend(c.iter());
            }
        }
    }
    let want = cmds
        .get(if cmds.is_empty() {
            0
        } else {
            u.choose_index(cmds.len())?
        })
        .and_then(|c| c.get("nodeId"))
        .cloned();
    for c in cmds {
        if c.get("nodeId") != want.as_ref() {
            continue;
        }
        match (c.get("command").and_then(Value::as_str), c.get("data")) {
            (Some("AddService"), Some(Value::Array(list))) => services.extend(list.iter().cloned()),
            (Some("AddService"), Some(other)) => services.push(other.clone()),
            (Some(_), Some(d)) => chains.push(d.clone()),
            _ => {}
        }
    }
    let mut cfg = Map::new();
    cfg.insert("services".into(), Value::Array(services));
    cfg.insert("chains".into(), Value::Array(chains));
    let mut cfg = Value::Object(cfg);
    let donor = Value::Null;
    for _ in 0..u.int_in_range(0u8..=4)? {
        mutate_once(u, &mut cfg, &donor)?;
    }
    Ok(cfg)
}

/// A simulation scenario: dead node ids / addresses, request count, times, seed.
pub fn scenario(u: &mut Unstructured, doc: &Value) -> ArbResult<Value> {
    let mut dead = Vec::new();
    for _ in 0..u.int_in_range(0u8..=4)? {
        dead.push(match u.int_in_range(0u8..=5)? {
            0 | 1 => Value::from(u.int_in_range(0i64..=16)?),
            2 => Value::from(u.int_in_range(0i64..=16)?.to_string()),
            3 => Value::from(format!(
                "203.0.113.{}:{}",
                u.int_in_range(0u8..=16)?,
                u.int_in_range(40000u32..=45100)?
            )),
            // A piece of the document, objects included (a node row with its
            // `remoteToken`): the simulator once echoed such an entry whole in an
            // error; fixed on main (src/redact.rs), kept as a case here.
            4 => random_subvalue(u, doc)?.clone(),
            _ => any_value(u, &Value::Null)?,
        });
    }
    let mut m = Map::new();
    m.insert("dead".into(), Value::Array(dead));
    if u.arbitrary()? {
        // Bounded: the request count is the caller's knob for run time.
        m.insert("requests".into(), Value::from(u.int_in_range(0u32..=12)?));
    }
    if u.arbitrary()? {
        m.insert(
            "startMs".into(),
            Value::from(u.int_in_range(0i64..=10_000_000)?),
        );
    }
    if u.arbitrary()? {
        m.insert("gapMs".into(), Value::from(u.int_in_range(0i64..=700_000)?));
    }
    if u.arbitrary()? {
        m.insert("seed".into(), Value::from(u.arbitrary::<u32>()?));
    }
    if u.ratio(1u8, 4u8)? {
        m.insert("entry".into(), Value::from(u.int_in_range(0i64..=16)?));
    }
    if u.ratio(1u8, 4u8)? {
        m.insert(
            "entryRetries".into(),
            Value::from(u.int_in_range(-2i64..=5)?),
        );
    }
    if u.ratio(1u8, 5u8)? {
        m.insert("clientIp".into(), odd_string(u)?);
    }
    if u.ratio(1u8, 5u8)? {
        m.insert("destination".into(), odd_string(u)?);
    }
    let mut s = Value::Object(m);
    if u.ratio(1u8, 6u8)? {
        mutate_once(u, &mut s, &Value::Null)?;
    }
    Ok(s)
}

/// A lifecycle step list built from (mutated) golden inputs and plans.
pub fn lifecycle_steps(u: &mut Unstructured) -> ArbResult<Value> {
    let mut steps = Vec::new();
    for _ in 0..u.int_in_range(0u8..=5)? {
        let mut m = Map::new();
        let op = *u.choose(&[
            "apply",
            "apply",
            "edit",
            "release",
            "delete",
            "applyError",
            "",
            "APPLY",
        ])?;
        m.insert("op".into(), Value::from(op));
        let ids = |u: &mut Unstructured| -> ArbResult<Value> {
            let mut ids = Vec::new();
            for _ in 0..u.int_in_range(0u8..=3)? {
                ids.push(Value::from(u.int_in_range(0i64..=16)?));
            }
            Ok(Value::Array(ids))
        };
        if matches!(op, "apply" | "edit" | "applyError" | "APPLY") {
            if u.arbitrary()? {
                m.insert("input".into(), mutated_vector(u, "input")?);
            } else {
                m.insert("plan".into(), mutated_vector(u, "expected")?);
            }
        }
        if op == "applyError" || u.ratio(1u8, 8u8)? {
            let fail_at = match u.int_in_range(0u8..=2)? {
                0 => Value::from(u.int_in_range(-1i64..=8)?),
                1 => {
                    serde_json::json!({"nodeId": u.int_in_range(0i64..=16)?, "command": *u.choose(&["AddService", "AddChains", "x"])?})
                }
                _ => any_value(u, &Value::Null)?,
            };
            m.insert("failAt".into(), fail_at);
        }
        if u.arbitrary()? {
            m.insert("unreachable".into(), ids(u)?);
        }
        if u.ratio(1u8, 4u8)? {
            m.insert("releaseUnreachable".into(), ids(u)?);
        }
        if u.ratio(1u8, 5u8)? {
            m.insert(
                "timeouts".into(),
                Value::Array(vec![Value::from(u.int_in_range(0i64..=6)?)]),
            );
        }
        if u.ratio(1u8, 6u8)? {
            m.insert("tunnelId".into(), odd_number(u)?);
        }
        steps.push(Value::Object(m));
    }
    let mut v = Value::Array(steps);
    if u.ratio(1u8, 5u8)? {
        mutate_once(u, &mut v, &Value::Null)?;
    }
    Ok(v)
}

/// Parses fuzz bytes as JSON text (`None` when they are not UTF-8 JSON).
pub fn raw_json(data: &[u8]) -> Option<Value> {
    std::str::from_utf8(data)
        .ok()
        .and_then(|t| serde_json::from_str(t).ok())
}

/// True when any string or key of `v` (recursively, iteratively walked) contains the marker.
pub fn contains_marker(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::String(s) if s.contains(SECRET_MARKER) => return true,
            Value::Object(m) => {
                for (k, c) in m {
                    if k.contains(SECRET_MARKER) {
                        return true;
                    }
                    stack.push(c);
                }
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    false
}

/// The properties every output must have: the two runs are byte-identical,
/// and a credential marker planted by the mutator never appears in them.
/// `planted` is the input when the marker was planted by [`plant_secrets`]
/// (structured mode); raw bytes only get the determinism check, since the
/// fuzzer may write any key or value it likes.
pub fn assert_output(planted: Option<&Value>, first: &str, second: &str, what: &str) {
    assert_eq!(
        first, second,
        "{}: the same input gave different output",
        what
    );
    let Some(input) = planted else { return };
    if contains_marker(input) {
        // The marker may only come from credential fields; anything else carrying it
        // (a splice copied it somewhere else) makes the check meaningless.
        let mut probe = input.clone();
        strip_credentials(&mut probe);
        if !contains_marker(&probe) {
            if let Some(at) = first.find(SECRET_MARKER) {
                let from = first.floor_char_boundary(at.saturating_sub(300));
                panic!(
                    "{}: a credential value leaked into the output: ...{}...",
                    what,
                    &first[from..at + SECRET_MARKER.len()]
                );
            }
        }
    }
}

fn strip_credentials(v: &mut Value) {
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Object(m) => {
                m.retain(|k, _| !is_credential_key(k));
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// Serializes any result as the JSON text a caller would see.
pub fn to_json<T: serde::Serialize>(t: &T) -> String {
    serde_json::to_string(t).unwrap_or_else(|e| panic!("an output failed to serialize: {}", e))
}

/// Check options with a `kind` that is absent, one of the four known kinds, or junk.
pub fn any_kind(u: &mut Unstructured) -> ArbResult<Value> {
    Ok(match u.int_in_range(0u8..=6)? {
        0 => Value::Null,
        1 => serde_json::json!({"kind": "tunnel"}),
        2 => serde_json::json!({"kind": "plan"}),
        3 => serde_json::json!({"kind": "config"}),
        4 => serde_json::json!({"kind": "commands"}),
        5 => serde_json::json!({"kind": odd_string(u)?}),
        _ => serde_json::json!({"kind": any_value(u, &Value::Null)?}),
    })
}
