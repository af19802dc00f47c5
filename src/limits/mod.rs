//! Input limits: every entry point checks its document against these before
//! doing any work, so a hostile document (megabytes of text, 100 000 nested
//! brackets, thousands of nodes) is refused quickly with an error that names
//! the limit, instead of exhausting the stack, memory or the caller's patience.
//!
//! Where each is counted:
//! * JSON text, while it is read ([`from_str_within`], [`read_tree_within`]):
//!   the byte count first, depth and string lengths as the reader reads them
//!   (so deep input never nests further than `maxDepth`).
//! * A document handed over already built (a `serde_json::Value` given to
//!   a native function): [`check_value`] walks it, without recursion, before
//!   it is encoded into a tree.
//! * Node rows, hops and the nodes of one hop: by the planner, on the types
//!   it reads a tunnel input, a redeploy's rows or a panel's rows into, before
//!   it plans ([`counts`]); an input over one is a plan refused with
//!   `LIMIT_EXCEEDED`. They bound what the planner multiplies; a document the
//!   checker or the simulator reads is read in time linear in its size.
//!
//! Defaults (all settable, camelCase, any field may be omitted):
//!
//! | option           | default   | what it bounds |
//! | ---------------- | --------- | -------------- |
//! | `maxInputBytes`  | 16 MiB    | length of JSON text in bytes |
//! | `maxNodes`       | 1000      | a tunnel input's node rows (`nodes`), a redeploy's or a panel's node and forward rows |
//! | `maxHops`        | 32        | a tunnel's hops: `tunnel.chainNodes` entries, a redeploy's chain rows grouped |
//! | `maxNodesPerHop` | 64        | nodes of one hop: each `chainNodes[i]`, `inNodeId`, `outNodeId` |
//! | `maxStringLen`   | 65536     | characters of any string or object key |
//! | `maxDepth`       | 64        | nested arrays/objects (`[]` is depth 1, a scalar depth 0) |
//! | `maxOutputBytes` | 64 MiB    | length of the JSON text of a result |
//!
//! The defaults leave room for real tunnels (the golden vectors' inputs and
//! plans are a small fraction of each), lifecycle step lists that carry
//! several plans, and the `{doc, options}` wrappers. They are also chosen so
//! that the worst tunnel they let in with ordinary addresses (every hop
//! full, each node dialing every node of the next hop) plans to a document
//! that is itself within `maxInputBytes`, so that it can be checked again:
//! a plan grows with nodes x nodes-per-hop. The measurements: BENCH.md,
//! "the limits' defaults, measured again".
//!
//! Its parts: the limits and their options here, the error ([`error`]),
//! reading text within them ([`read`]), walking a built value ([`walk`]),
//! and the count rules the planner runs on what it read ([`counts`]).

mod counts;
mod error;
mod read;
mod walk;

pub(crate) use counts::Count;
pub use error::{LimitError, ReadError};
pub use read::{check_text, from_str, from_str_within};
pub(crate) use read::{read_tree, read_tree_within};
pub use walk::check_value;
pub(crate) use walk::check_value_as_read;
#[cfg(test)]
pub(crate) use walk::check_value_counting;

use crate::json::ReadLimits;
use crate::options::field;
use serde::{Deserialize, Serialize};

pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
pub const DEFAULT_MAX_NODES: usize = 1000;
pub const DEFAULT_MAX_HOPS: usize = 32;
pub const DEFAULT_MAX_NODES_PER_HOP: usize = 64;
pub const DEFAULT_MAX_STRING_LEN: usize = 65536;
pub const DEFAULT_MAX_DEPTH: usize = 64;
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024 * 1024;

/// Size limits for one document; each one left out keeps its default
/// (README lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, tsify_next::Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// JSON text longer than this many bytes is refused.
    pub max_input_bytes: usize,
    /// More node rows than this (a tunnel input's `nodes`, a redeploy's or a
    /// panel's rows) are refused.
    pub max_nodes: usize,
    /// More hops than this (`tunnel.chainNodes`, a redeploy's chain rows) are refused.
    pub max_hops: usize,
    /// More nodes than this in one hop (entries, exits, one middle hop) is refused.
    pub max_nodes_per_hop: usize,
    /// A string or key longer than this many characters is refused.
    pub max_string_len: usize,
    /// Deeper nesting of arrays/objects than this is refused.
    pub max_depth: usize,
    /// A result whose JSON text would be longer than this many bytes is
    /// refused; where the result's size is known from counts before it is
    /// built (a plan: its dialed node pairs) it is refused before that.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_nodes: DEFAULT_MAX_NODES,
            max_hops: DEFAULT_MAX_HOPS,
            max_nodes_per_hop: DEFAULT_MAX_NODES_PER_HOP,
            max_string_len: DEFAULT_MAX_STRING_LEN,
            max_depth: DEFAULT_MAX_DEPTH,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// The limits an options object names (camelCase, each a whole number),
/// each over a default; unknown keys are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LimitFields {
    #[serde(deserialize_with = "field::size")]
    max_input_bytes: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_nodes: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_hops: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_nodes_per_hop: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_string_len: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_depth: Option<usize>,
    #[serde(deserialize_with = "field::size")]
    max_output_bytes: Option<usize>,
}

impl LimitFields {
    /// `base` with each limit named here in its place.
    pub fn onto(self, base: Limits) -> Limits {
        Limits {
            max_input_bytes: self.max_input_bytes.unwrap_or(base.max_input_bytes),
            max_nodes: self.max_nodes.unwrap_or(base.max_nodes),
            max_hops: self.max_hops.unwrap_or(base.max_hops),
            max_nodes_per_hop: self.max_nodes_per_hop.unwrap_or(base.max_nodes_per_hop),
            max_string_len: self.max_string_len.unwrap_or(base.max_string_len),
            max_depth: self.max_depth.unwrap_or(base.max_depth),
            max_output_bytes: self.max_output_bytes.unwrap_or(base.max_output_bytes),
        }
    }
}

impl Limits {
    /// `deserialize_with` reader of an options object's `limits`: the
    /// limits it names over the defaults (`null`: the defaults).
    pub fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Limits, D::Error> {
        field::group::<D, LimitFields>(d).map(|given| given.onto(Limits::default()))
    }
}

impl Limits {
    /// No limit at all.
    pub const NONE: Limits = Limits {
        max_input_bytes: usize::MAX,
        max_nodes: usize::MAX,
        max_hops: usize::MAX,
        max_nodes_per_hop: usize::MAX,
        max_string_len: usize::MAX,
        max_depth: usize::MAX,
        max_output_bytes: usize::MAX,
    };

    /// The bounds the JSON reader itself checks.
    pub(crate) fn read_limits(&self) -> ReadLimits {
        ReadLimits {
            max_bytes: self.max_input_bytes,
            max_string_len: self.max_string_len,
            max_depth: self.max_depth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;
    use serde_json::{json, Value};

    fn small() -> Limits {
        Limits {
            max_input_bytes: 1000,
            max_nodes: 3,
            max_hops: 2,
            max_nodes_per_hop: 2,
            max_string_len: 8,
            max_depth: 4,
            max_output_bytes: 1000,
        }
    }

    #[test]
    fn defaults_are_documented_values() {
        let l = Limits::default();
        assert_eq!(l.max_input_bytes, 16 * 1024 * 1024);
        assert_eq!(l.max_nodes, 1000);
        assert_eq!(l.max_hops, 32);
        assert_eq!(l.max_nodes_per_hop, 64);
        assert_eq!(l.max_string_len, 65536);
        assert_eq!(l.max_depth, 64);
    }

    #[test]
    fn options_override_some_fields_and_reject_bad_ones() {
        #[derive(Debug, Default, Deserialize)]
        struct Options {
            #[serde(default, deserialize_with = "Limits::given")]
            limits: Limits,
        }
        let read = |limits: Value| {
            crate::options::read_value::<Options>(&json!({ "limits": limits })).map(|o| o.limits)
        };
        let l = read(json!({"maxNodes": 5, "maxDepth": 9, "other": 1})).unwrap();
        assert_eq!(
            (l.max_nodes, l.max_depth, l.max_hops),
            (5, 9, DEFAULT_MAX_HOPS)
        );
        assert_eq!(read(json!({})).unwrap(), Limits::default());
        assert_eq!(read(Value::Null).unwrap(), Limits::default());
        let e = read(json!({"maxNodes": -1})).unwrap_err();
        assert_eq!(e.path, "/limits/maxNodes");
        assert!(read(json!({"maxNodes": "5"})).is_err());
        assert!(read(json!({"maxNodes": 1.5})).is_err());
        assert_eq!(read(json!(7)).unwrap_err().path, "/limits");
        let panel = LimitFields {
            max_nodes: Some(3),
            ..LimitFields::default()
        };
        assert_eq!(panel.onto(Limits::NONE).max_nodes, 3);
        assert_eq!(
            LimitFields::default().onto(Limits::NONE).max_hops,
            usize::MAX
        );
    }

    #[test]
    fn text_over_byte_limit() {
        let e = check_text(&"x".repeat(1001), &small()).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.max, e.path.as_str()),
            ("maxInputBytes", 1001, 1000, "")
        );
        assert!(e.message.contains("maxInputBytes"), "{}", e.message);
        assert!(check_text(&"x".repeat(1000), &small()).is_ok());
    }

    #[test]
    fn text_depth_is_counted_while_reading_and_points_at_the_place() {
        let l = small();
        assert!(check_text("[[[[1]]]]", &l).is_ok());
        let e = check_text("[[[[[1]]]]]", &l).unwrap_err();
        assert_eq!((e.limit, e.actual, e.max), ("maxDepth", 5, 4));
        assert_eq!(e.path, "/0/0/0/0");
        let e = check_text(r#"{"a":[1,{"b~/":{"c":[[]]}}]}"#, &l).unwrap_err();
        assert_eq!(e.path, "/a/1/b~0~1/c");
        // brackets inside strings do not count, escaped quotes do not end strings
        assert!(check_text(
            r#"["[[[[[[\"[[[", "{{{{{{"]"#,
            &Limits {
                max_string_len: 100,
                ..l
            }
        )
        .is_ok());
    }

    #[test]
    fn hundred_thousand_brackets_are_refused_at_the_first_one_over() {
        let text = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = check_text(&text, &Limits::default()).unwrap_err();
        assert_eq!(e.limit, "maxDepth");
        // Reading stops at bracket 65: the depth it reports and the place.
        assert_eq!(e.actual, DEFAULT_MAX_DEPTH + 1);
        assert_eq!(e.path, "/0".repeat(DEFAULT_MAX_DEPTH));
    }

    #[test]
    fn text_string_length_counts_characters() {
        let l = small();
        assert!(check_text(r#"["12345678"]"#, &l).is_ok());
        assert!(
            check_text(r#"["节节节节节节节节"]"#, &l).is_ok(),
            "8 chars in 24 bytes"
        );
        assert!(
            check_text(r#"["\u00e9\n\t\"\\abc"]"#, &l).is_ok(),
            "escapes count once"
        );
        assert!(
            check_text(r#"["\ud83e\udd80234567"]"#, &l).is_ok(),
            "a surrogate pair is one character"
        );
        let e = check_text(r#"{"k":[1,"123456789"]}"#, &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxStringLen", 9, "/k/1")
        );
        let e = check_text(r#"{"123456789":1}"#, &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxStringLen", 9, "")
        );
        let e = check_text(r#"{"x":{"a":1,"123456789":2}}"#, &l).unwrap_err();
        assert_eq!((e.limit, e.path.as_str()), ("maxStringLen", "/x"));
    }

    #[test]
    fn text_that_is_not_json_is_left_to_the_reader() {
        assert!(check_text("]]]}}{", &small()).is_ok());
        assert!(check_text("", &small()).is_ok());
        // A limit is found as the text is read, up to its first syntax error.
        assert!(check_text("\"unterminated", &small()).is_ok());
        let e = check_text(r#"["123456789" x"#, &small()).unwrap_err();
        assert_eq!((e.limit, e.path.as_str()), ("maxStringLen", "/0"));
        assert_eq!(check_text("[[[[[", &small()).unwrap_err().limit, "maxDepth");
        assert!(matches!(
            from_str_within("\"unterminated", &small()),
            Err(ReadError::NotJson(_))
        ));
    }

    #[test]
    fn documents_are_bounded_by_the_readers_limits_only() {
        let l = Limits {
            max_depth: 12,
            max_string_len: 100,
            ..small()
        };
        // A step's input with more node rows and a longer hop than allowed.
        let input = json!({"tunnel": {"chainNodes": [[{}, {}, {}]]}, "nodes": [{}, {}, {}, {}]});
        let steps = json!([{ "op": "apply", "input": input }]);
        let chain =
            json!({"chains": [{"name": "c", "hops": [{"name": "h", "nodes": [{}, {}, {}]}]}]});
        for doc in [steps, chain, json!({"hops": [{}, {}, {}]})] {
            assert_eq!(check_value(&doc, &l), Ok(()), "{doc}");
            let text = doc.to_string();
            assert_eq!(check_text(&text, &l), Ok(()), "{doc}");
        }
    }

    #[test]
    fn value_strings_keys_and_depth() {
        let l = small();
        let e = check_value(&json!({"a": ["ok", "123456789"]}), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxStringLen", 9, "/a/1")
        );
        let e = check_value(&json!({"a": {"123456789": 1}}), &l).unwrap_err();
        assert_eq!((e.limit, e.path.as_str()), ("maxStringLen", "/a"));
        assert!(check_value(&json!({"a": "节节节节节节节节"}), &l).is_ok());
        assert!(check_value(&json!([[[[1]]]]), &l).is_ok());
        let e = check_value(&json!([[[[[1]]]]]), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxDepth", 5, "/0/0/0/0")
        );
        let e = check_value(&json!({"a/b": {"c": [[{}]]}}), &l).unwrap_err();
        assert_eq!(e.path, "/a~1b/c/0/0");
    }

    #[test]
    fn text_and_value_agree_on_depth_and_strings() {
        let l = small();
        for doc in [
            json!([[[[1]]]]),
            json!([[[[[1]]]]]),
            json!({"a": "123456789"}),
            json!({"a": ["12345678"]}),
            json!({"a": {"b": {"c": {}}}}),
            json!({"a": {"b": {"c": {"d": {}}}}}),
            json!({"x": {"a": 1, "123456789": 2}}),
            json!({"x": [1, {"y": "123456789"}]}),
        ] {
            let text = serde_json::to_string(&doc).unwrap();
            let t = check_text(&text, &l).map_err(|e| (e.limit, e.path));
            let v = check_value(&doc, &l).map_err(|e| (e.limit, e.path));
            assert_eq!(t.is_ok(), v.is_ok(), "{}", text);
            assert_eq!(t, v, "{}", text);
        }
    }

    #[test]
    fn deep_value_walk_does_not_recurse() {
        // 50 000 levels: a recursive walk would overflow the test thread's stack.
        let mut v = Value::Null;
        for _ in 0..50_000 {
            v = Value::Array(vec![v]);
        }
        let e = check_value(
            &v,
            &Limits {
                max_depth: 100_000,
                ..Limits::default()
            },
        );
        assert!(e.is_ok());
        let e = check_value(&v, &Limits::default()).unwrap_err();
        assert_eq!(e.limit, "maxDepth");
        // dropping such a value recursively would overflow too: take it apart by hand
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn errors_become_api_errors_and_in001_findings() {
        let e = check_value(&json!({"a": "123456789"}), &small()).unwrap_err();
        let api = e.to_api_error();
        assert_eq!(
            (api.code.as_str(), api.path.as_str()),
            ("LIMIT_EXCEEDED", "/a")
        );
        assert!(
            api.message.contains("maxStringLen") && api.message.contains("9 > 8"),
            "{}",
            api.message
        );
        let f = e.to_finding();
        assert_eq!(
            (f.code.as_str(), f.rule.as_str(), f.severity),
            ("IN001", "unreadable", Severity::Error)
        );
        assert!(
            f.message_zh.contains("字符串长度超过上限"),
            "{}",
            f.message_zh
        );
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["limit"], "maxStringLen");
        assert_eq!(json["actual"], 9);
    }

    #[test]
    fn reading_counts_its_own_limits() {
        use super::{from_str_within, ReadError};
        let l = Limits {
            max_depth: 5,
            ..small()
        };
        assert_eq!(from_str_within("[1,2]", &l), Ok(json!([1, 2])));
        assert!(matches!(
            from_str_within("[1,", &l),
            Err(ReadError::NotJson(_))
        ));
        let limit = |text: &str| match from_str_within(text, &l) {
            Err(ReadError::Limit(e)) => (e.limit, e.actual, e.path),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(limit("[[[[[[0]]]]]]"), ("maxDepth", 6, "/0/0/0/0/0".into()));
        assert_eq!(
            limit(&"1".repeat(1001)),
            ("maxInputBytes", 1001, String::new())
        );
        // Node rows and hops are not the reader's to count.
        assert!(from_str_within(r#"{"tunnel":{},"nodes":[1,2,3,4]}"#, &l).is_ok());
        assert_eq!(
            limit(r#"{"hops":[1,2,3],"b":"123456789"}"#),
            ("maxStringLen", 9, "/b".into())
        );
    }
}
