//! Input limits: every entry point checks its document against these before
//! doing any work, so a hostile document (megabytes of text, 100 000 nested
//! brackets, thousands of nodes) is refused quickly with an error that names
//! the limit, instead of exhausting the stack, memory or the caller's patience.
//!
//! Counted once per document:
//! * JSON text, while it is read ([`from_str_within`], [`read_tree_within`]):
//!   the byte count first, depth and string lengths as the reader reads them
//!   (so deep input never nests further than `maxDepth`), the count rules
//!   ([`object_counts`]) on every object with one of their keys, as the
//!   reader hands it to the builder ([`Counting`]).
//! * A document handed over already built (a `serde_json::Value` given to
//!   a native function): [`check_value`] walks it, without recursion, before
//!   it is encoded into a tree.
//!
//! Defaults (all settable, camelCase, any field may be omitted):
//!
//! | option           | default   | what it bounds |
//! | ---------------- | --------- | -------------- |
//! | `maxInputBytes`  | 16 MiB    | length of JSON text in bytes |
//! | `maxNodes`       | 1000      | entries of a `nodes` array (panel node rows, a plan's node table) |
//! | `maxHops`        | 32        | `tunnel.chainNodes` entries; `hops` of a GOST chain |
//! | `maxNodesPerHop` | 64        | nodes of one hop: each `chainNodes[i]`, `inNodeId`, `outNodeId`, a chain hop's `nodes` |
//! | `maxStringLen`   | 65536     | characters of any string or object key |
//! | `maxDepth`       | 64        | nested arrays/objects (`[]` is depth 1, a scalar depth 0) |
//! | `maxOutputBytes` | 64 MiB    | length of the JSON text of a result |
//!
//! The largest golden input is 7 KB with depth 6; the largest plan 19 KB with
//! depth 11, so the defaults leave room for real tunnels, lifecycle step lists
//! that carry several plans, and the `{doc, options}` wrappers. They are also
//! chosen so that the worst tunnel they let in (about 1000 nodes in 31 hops of
//! 32, every node dialing all 32 of the next hop) plans to a document that is
//! itself within `maxInputBytes` and can be checked again: a plan grows with
//! nodes x nodes-per-hop (100 per hop gave a 22 MB plan, 32 gives about 7 MB).

use crate::encode::Encode;
use crate::error::ApiError;
use crate::finding::{pointer_token, Finding, Severity};
use crate::json::node::{Node, Shape};
use crate::json::read::Build;
use crate::json::tree::{Arena, TreeBuilder, TreeValue};
use crate::json::{Bound, JsonError, ReadLimits, TooLarge};
use crate::options::field;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

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
    /// A `nodes` array longer than this is refused.
    pub max_nodes: usize,
    /// More hops than this (`tunnel.chainNodes`, a chain's `hops`) is refused.
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
    fn read_limits(&self) -> ReadLimits {
        ReadLimits {
            max_bytes: self.max_input_bytes,
            max_string_len: self.max_string_len,
            max_depth: self.max_depth,
        }
    }
}

/// A document over one limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitError {
    /// The option that was exceeded: `"maxInputBytes"`, `"maxNodes"`, `"maxHops"`,
    /// `"maxNodesPerHop"`, `"maxStringLen"`, `"maxDepth"` or `"maxOutputBytes"`.
    pub limit: &'static str,
    /// What the document has (for depth and string length: at least this much;
    /// scanning stops at the first value over the limit).
    pub actual: usize,
    /// The limit in force.
    pub max: usize,
    /// JSON Pointer to the offending value (`""` = the whole document).
    pub path: String,
    /// English text naming the limit, the sizes and how to raise it.
    pub message: String,
}

impl LimitError {
    pub(crate) fn new(limit: &'static str, actual: usize, max: usize, path: String) -> LimitError {
        let what = match limit {
            "maxInputBytes" => "the input is larger than the byte limit",
            "maxNodes" => "too many nodes",
            "maxHops" => "too many hops",
            "maxNodesPerHop" => "too many nodes in one hop",
            "maxStringLen" => "a string is longer than the length limit",
            "maxDepth" => "arrays/objects are nested deeper than the depth limit",
            "maxOutputBytes" => "the result would be larger than the output limit",
            _ => "a size limit is exceeded",
        };
        let at = if path.is_empty() {
            String::new()
        } else {
            format!(" at {}", path)
        };
        let message = format!(
            "{}{}: {} > {} (raise option limits.{} to allow it)",
            what, at, actual, max, limit
        );
        LimitError {
            limit,
            actual,
            max,
            path,
            message,
        }
    }

    /// Chinese text for the same error.
    pub fn message_zh(&self) -> String {
        let what = match self.limit {
            "maxInputBytes" => "输入超过字节数上限",
            "maxNodes" => "节点数量超过上限",
            "maxHops" => "跳数超过上限",
            "maxNodesPerHop" => "单跳节点数量超过上限",
            "maxStringLen" => "字符串长度超过上限",
            "maxDepth" => "嵌套层数超过上限",
            "maxOutputBytes" => "结果超过输出字节数上限",
            _ => "超过大小限制",
        };
        let at = if self.path.is_empty() {
            String::new()
        } else {
            format!("（位置 {}）", self.path)
        };
        format!(
            "{}{}：{} > {}（可通过选项 limits.{} 调整）",
            what, at, self.actual, self.max, self.limit
        )
    }

    /// The error for entry points that return [`ApiError`]: code `LIMIT_EXCEEDED`.
    pub fn to_api_error(&self) -> ApiError {
        ApiError::new("LIMIT_EXCEEDED", self.message.clone(), self.path.clone())
    }

    /// The finding for the checker: `IN001 unreadable`, an error, no fix.
    pub fn to_finding(&self) -> Finding {
        Finding {
            code: "IN001".to_string(),
            rule: "unreadable".to_string(),
            severity: Severity::Error,
            node_id: None,
            path: self.path.clone(),
            message: self.message.clone(),
            message_zh: self.message_zh(),
            fix: None,
        }
    }
}

impl std::fmt::Display for LimitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LimitError {}

impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> ApiError {
        e.to_api_error()
    }
}

/// The reader's bound, as the option that sets it.
impl From<TooLarge> for LimitError {
    fn from(e: TooLarge) -> LimitError {
        let limit = match e.bound {
            Bound::Bytes => "maxInputBytes",
            Bound::StringLen => "maxStringLen",
            Bound::Depth => "maxDepth",
        };
        LimitError::new(limit, e.actual, e.max, e.path)
    }
}

// ---------------------------------------------------------------------------
// Reading within limits
// ---------------------------------------------------------------------------

/// Why a text was not read within limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The text is not JSON.
    NotJson(JsonError),
    /// The document is over a limit.
    Limit(LimitError),
}

/// Reads one JSON document with no limit but serde_json's recursion limit
/// (through the same reader as [`from_str_within`], so the `.wasm` carries
/// one reader for `Value`s).
pub fn from_str(text: &str) -> Result<Value, JsonError> {
    match from_str_within(text, &Limits::NONE) {
        Ok(v) => Ok(v),
        Err(ReadError::NotJson(e)) => Err(e),
        // No bound is finite: only the reader's recursion limit stops it.
        Err(ReadError::Limit(_)) => Err(JsonError::recursion_limit()),
    }
}

/// [`from_str`] into a document tree in `arena`.
pub(crate) fn read_tree<'a>(text: &'a str, arena: &'a Arena) -> Result<TreeValue<'a>, JsonError> {
    match read_tree_within(text, &Limits::NONE, arena) {
        Ok((tree, _)) => Ok(tree),
        Err(ReadError::NotJson(e)) => Err(e),
        Err(ReadError::Limit(_)) => Err(JsonError::recursion_limit()),
    }
}

/// Reads one JSON document within `limits`.
pub fn from_str_within(text: &str, limits: &Limits) -> Result<Value, ReadError> {
    read_within(text, limits, crate::json::read::ValueBuilder).map(|(v, _)| v)
}

/// Reads JSON text into the checker's tree in `arena`, within `limits`;
/// also returns how many JSON values it holds. Strings without escapes are
/// borrowed from the text.
pub(crate) fn read_tree_within<'a>(
    text: &'a str,
    limits: &Limits,
    arena: &'a Arena,
) -> Result<(TreeValue<'a>, usize), ReadError> {
    read_within(text, limits, TreeBuilder::new(arena))
}

/// The value the reader builds into `build` within `limits`, and how many
/// JSON values it holds. The reader checks its own bounds; the count rules
/// run on each object as it is built ([`Counting`]); only when one is over
/// does [`check_value_counting`] walk the value, to name the first in
/// document order.
fn read_within<'t, B>(
    text: &'t str,
    limits: &Limits,
    build: B,
) -> Result<(B::Value, usize), ReadError>
where
    B: Build<'t>,
    B::Value: Node,
{
    let mut counting = Counting {
        inner: build,
        limits,
        depth: 0,
        over: false,
    };
    let (v, values) = crate::json::read_into(text, &limits.read_limits(), &mut counting).map_err(
        |e| match e {
            crate::json::ReadError::NotJson(e) => ReadError::NotJson(e),
            crate::json::ReadError::TooLarge(e) => ReadError::Limit(e.into()),
        },
    )?;
    if counting.over {
        check_value_counting(&v, limits).map_err(ReadError::Limit)?;
    }
    Ok((v, values))
}

/// A builder that runs the count rules ([`object_counts`]) on every object
/// with a `nodes`, `tunnel` or `hops` key as it is finished, until one is
/// over (`over`, read once the reader is done).
struct Counting<'l, B> {
    inner: B,
    limits: &'l Limits,
    /// Containers open.
    depth: usize,
    over: bool,
}

impl<'t, B> Build<'t> for &mut Counting<'_, B>
where
    B: Build<'t>,
    B::Value: Node,
{
    type Value = B::Value;
    type Items = B::Items;
    /// An object's entries, and whether a key the count rules read is there.
    type Entries = (B::Entries, bool);
    fn null(&mut self) -> Self::Value {
        self.inner.null()
    }
    fn bool(&mut self, b: bool) -> Self::Value {
        self.inner.bool(b)
    }
    fn number(&mut self, n: serde_json::Number) -> Self::Value {
        self.inner.number(n)
    }
    fn string(&mut self, s: Cow<'t, str>) -> Self::Value {
        self.inner.string(s)
    }
    fn own(&mut self, s: &str) -> Cow<'t, str> {
        self.inner.own(s)
    }
    fn array(&mut self) -> Self::Items {
        self.depth += 1;
        self.inner.array()
    }
    fn push(&mut self, items: &mut Self::Items, v: Self::Value) {
        self.inner.push(items, v)
    }
    fn end_array(&mut self, items: Self::Items) -> Self::Value {
        self.depth = self.depth.saturating_sub(1);
        self.inner.end_array(items)
    }
    fn object(&mut self) -> Self::Entries {
        self.depth += 1;
        (self.inner.object(), false)
    }
    fn insert(&mut self, entries: &mut Self::Entries, key: Cow<'t, str>, v: Self::Value) {
        entries.1 |= matches!(key.as_ref(), "nodes" | "tunnel" | "hops");
        self.inner.insert(&mut entries.0, key, v)
    }
    fn end_object(&mut self, (entries, counted): Self::Entries) -> Self::Value {
        let root = self.depth == 1;
        self.depth = self.depth.saturating_sub(1);
        let v = self.inner.end_object(entries);
        if counted && !self.over {
            self.over = object_counts(&v, root, self.limits).is_err();
        }
        v
    }
}

/// Checks JSON text against every limit by reading it ([`from_str_within`]:
/// the limits are counted while reading). Text that is not JSON passes when
/// nothing before its first error is over a limit; its reader reports it.
pub fn check_text(text: &str, limits: &Limits) -> Result<(), LimitError> {
    match from_str_within(text, limits) {
        Err(ReadError::Limit(e)) => Err(e),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Value walk
// ---------------------------------------------------------------------------

/// Checks a parsed document against every limit except the byte count,
/// walking it with an explicit stack (no recursion, whatever the depth).
///
/// Counts are recognised wherever they occur, so wrappers (`{doc, options}`,
/// lifecycle step lists carrying inputs and plans) are covered too:
/// * the document's top-level `nodes` array, and the `nodes` array of any
///   object that also has a `tunnel` (a tunnel input): `maxNodes`;
/// * `tunnel.chainNodes`: `maxHops`; each of its entries, `tunnel.inNodeId`
///   and `tunnel.outNodeId`: `maxNodesPerHop`;
/// * a GOST chain's `hops` (any object with a `hops` array): `maxHops`; each
///   hop's `nodes`: `maxNodesPerHop`.
///
/// The first value over a limit, in document order, is reported.
pub fn check_value(v: &Value, limits: &Limits) -> Result<(), LimitError> {
    check_value_counting(v, limits).map(|_| ())
}

/// One reference token of a path: in [`Walk`]'s arena, and of an [`Over`].
enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// [`check_value`] that also returns how many JSON values (objects, arrays,
/// scalars) the document holds, so callers with a value budget need no second walk.
pub(crate) fn check_value_counting<N: Node>(v: &N, limits: &Limits) -> Result<usize, LimitError> {
    let mut walk = Walk {
        limits,
        arena: vec![(0, Token::Index(0))],
        stack: vec![(v, 0, 0)],
        count: 0,
    };
    while let Some((cur, at, depth)) = walk.stack.pop() {
        walk.count += 1;
        walk.visit(cur, at, depth)?;
    }
    Ok(walk.count)
}

/// The limit walk's state: an explicit stack, so no depth can exhaust the
/// native one.
struct Walk<'n, 'l, N> {
    limits: &'l Limits,
    /// Path pieces, borrowed from the document: (parent index, token).
    /// Index 0 is the root. Pointers are only built for an error.
    arena: Vec<(usize, Token<'n>)>,
    /// (value, arena index of its path, depth of containers above it)
    stack: Vec<(&'n N, usize, usize)>,
    count: usize,
}

impl<'n, N: Node> Walk<'n, '_, N> {
    /// Checks one value and queues its children.
    fn visit(&mut self, cur: &'n N, at: usize, depth: usize) -> Result<(), LimitError> {
        let limits = self.limits;
        let shape = cur.shape();
        if matches!(shape, Shape::Arr(_) | Shape::Object) && depth + 1 > limits.max_depth {
            return Err(self.over("maxDepth", depth + 1, limits.max_depth, at, &[]));
        }
        match shape {
            // A string has at most as many characters as bytes: count only when it may be over.
            Shape::Str(s) if s.len() > limits.max_string_len => {
                let n = s.chars().count();
                if n > limits.max_string_len {
                    return Err(self.over("maxStringLen", n, limits.max_string_len, at, &[]));
                }
            }
            Shape::Arr(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    self.queue(item, at, Token::Index(i), depth);
                }
            }
            Shape::Object => self.visit_object(cur, at, depth)?,
            _ => {}
        }
        Ok(())
    }

    /// Queues an object's children; errors are reported in the order
    /// counts (see [`object_counts`]), keys.
    fn visit_object(&mut self, cur: &'n N, at: usize, depth: usize) -> Result<(), LimitError> {
        let limits = self.limits;
        let mut long_key = None;
        for (k, child) in cur.entries().rev() {
            if long_key.is_none() && k.len() > limits.max_string_len {
                let n = k.chars().count();
                if n > limits.max_string_len {
                    long_key = Some(n);
                }
            }
            self.queue(child, at, Token::Key(k), depth);
        }
        if let Err(over) = object_counts(cur, depth == 0, limits) {
            let extra: Vec<&str> = over.path.iter().map(String::as_str).collect();
            return Err(self.over(over.limit, over.actual, over.max, at, &extra));
        }
        match long_key {
            Some(n) => Err(self.over("maxStringLen", n, limits.max_string_len, at, &[])),
            None => Ok(()),
        }
    }

    /// Queues `child` (at `token` below `at`) when it may be over a limit;
    /// scalars that cannot be are counted without a visit.
    fn queue(&mut self, child: &'n N, at: usize, token: Token<'n>, depth: usize) {
        let visit = match child.shape() {
            Shape::Arr(_) | Shape::Object => true,
            Shape::Str(s) => s.len() > self.limits.max_string_len,
            Shape::Other => false,
        };
        if visit {
            self.arena.push((at, token));
            self.stack.push((child, self.arena.len() - 1, depth + 1));
        } else {
            self.count += 1;
        }
    }

    /// The error for the value at arena index `at`, `extra` tokens below it.
    #[cold]
    fn over(
        &self,
        limit: &'static str,
        actual: usize,
        max: usize,
        at: usize,
        extra: &[&str],
    ) -> LimitError {
        limit_at(&self.arena, (limit, actual, max), at, extra)
    }
}

/// The error for the value at index `at` of a path arena (parent index,
/// token; index 0 the root), `extra` tokens below it.
#[cold]
fn limit_at(
    arena: &[(usize, Token<'_>)],
    (limit, actual, max): (&'static str, usize, usize),
    mut at: usize,
    extra: &[&str],
) -> LimitError {
    let mut parts: Vec<String> = extra.iter().rev().map(|t| pointer_token(t)).collect();
    while at != 0 {
        let Some((parent, tok)) = arena.get(at) else {
            break;
        };
        parts.push(match tok {
            Token::Key(k) => pointer_token(k),
            Token::Index(i) => i.to_string(),
        });
        at = *parent;
    }
    let mut pointer = String::new();
    for t in parts.iter().rev() {
        pointer.push('/');
        pointer.push_str(t);
    }
    LimitError::new(limit, actual, max, pointer)
}

/// Whether a built value nests deeper than the reader reads at all
/// (serde_json's recursion limit): its text would not read.
pub(crate) fn nests_past_reader<N: Node>(v: &N) -> bool {
    let mut stack = vec![(v, 1usize)];
    while let Some((cur, depth)) = stack.pop() {
        let deep = depth >= crate::json::RECURSION_LIMIT;
        match cur.shape() {
            Shape::Arr(_) | Shape::Object if deep => return true,
            Shape::Arr(items) => stack.extend(items.iter().map(|c| (c, depth + 1))),
            Shape::Object => stack.extend(cur.entries().map(|(_, c)| (c, depth + 1))),
            _ => {}
        }
    }
    false
}

/// What [`read_tree_within`] says of a built value's text, without the
/// text, in one walk: the reader's own bounds (depth, string and key
/// length) in the order it meets them (keys in order, each before its
/// value) come first, and the reader's refusal of a container nested past
/// serde_json's recursion limit, at the column its compact text would put
/// it in; then the first count rule over its limit ([`object_counts`],
/// objects in the same order); else how many values it holds.
pub(crate) fn check_value_as_read<N: Node + Encode>(
    v: &N,
    limits: &Limits,
) -> Result<usize, ReadError> {
    let mut walk = AsRead {
        arena: vec![(0, Token::Index(0))],
        stack: vec![Next::Value(v, 0, 0, false)],
        limits,
        offset: nests_past_reader(v).then_some(0),
        count: 0,
        counts_over: None,
    };
    while let Some(next) = walk.stack.pop() {
        walk.step(next)?;
    }
    walk.counts_over
        .map_or(Ok(walk.count), |e| Err(ReadError::Limit(e)))
}

/// What [`check_value_as_read`] meets next, in text order.
enum Next<'n, N> {
    /// A value, where it is, its depth, and whether a comma precedes it.
    Value(&'n N, usize, usize, bool),
    Key(&'n str, usize, bool),
    /// The end of an array or object.
    Close,
}

/// The state of [`check_value_as_read`]'s walk.
struct AsRead<'n, 'l, N> {
    /// Each place met: its parent's place and its token.
    arena: Vec<(usize, Token<'n>)>,
    stack: Vec<Next<'n, N>>,
    limits: &'l Limits,
    /// Bytes of the compact text before what is met: counted only for a
    /// value the reader refuses, to say where.
    offset: Option<usize>,
    count: usize,
    counts_over: Option<LimitError>,
}

impl<'n, N: Node + Encode> AsRead<'n, '_, N> {
    fn advance(&mut self, bytes: impl FnOnce() -> usize) {
        if let Some(o) = self.offset.as_mut() {
            *o += bytes();
        }
    }

    /// A string or key over the length limit, at `at`.
    fn string(&self, s: &str, at: usize) -> Result<(), ReadError> {
        let max = self.limits.max_string_len;
        match (s.len() > max).then(|| s.chars().count()) {
            Some(n) if n > max => Err(self.limit(("maxStringLen", n, max), at, &[])),
            _ => Ok(()),
        }
    }

    fn limit(&self, over: (&'static str, usize, usize), at: usize, extra: &[&str]) -> ReadError {
        ReadError::Limit(limit_at(&self.arena, over, at, extra))
    }

    fn step(&mut self, next: Next<'n, N>) -> Result<(), ReadError> {
        match next {
            Next::Close => self.advance(|| 1),
            Next::Key(k, at, comma) => {
                self.string(k, at)?;
                self.advance(|| usize::from(comma) + crate::json::string_len(k) + 1);
            }
            Next::Value(cur, at, depth, comma) => {
                self.advance(|| usize::from(comma));
                self.value(cur, at, depth)?;
            }
        }
        Ok(())
    }

    fn value(&mut self, cur: &'n N, at: usize, depth: usize) -> Result<(), ReadError> {
        self.count += 1;
        let container = matches!(cur.shape(), Shape::Arr(_) | Shape::Object);
        if container && depth + 1 > self.limits.max_depth {
            return Err(self.limit(("maxDepth", depth + 1, self.limits.max_depth), at, &[]));
        }
        if container && depth + 1 >= crate::json::RECURSION_LIMIT {
            let column = self.offset.map_or(0, |o| o + 1);
            return Err(ReadError::NotJson(JsonError::recursion_limit_at(column)));
        }
        match cur.shape() {
            Shape::Str(s) => {
                self.string(s, at)?;
                self.advance(|| crate::json::string_len(s));
            }
            Shape::Arr(items) => {
                self.advance(|| 1);
                self.stack.push(Next::Close);
                for (i, item) in items.iter().enumerate().rev() {
                    self.arena.push((at, Token::Index(i)));
                    let place = self.arena.len() - 1;
                    self.stack.push(Next::Value(item, place, depth + 1, i > 0));
                }
            }
            Shape::Object => self.object(cur, at, depth),
            Shape::Other => self.advance(|| crate::encode::text_len(cur)),
        }
        Ok(())
    }

    fn object(&mut self, cur: &'n N, at: usize, depth: usize) {
        self.advance(|| 1);
        if self.counts_over.is_none() {
            if let Err(o) = object_counts(cur, depth == 0, self.limits) {
                let extra: Vec<&str> = o.path.iter().map(String::as_str).collect();
                self.counts_over = Some(limit_at(
                    &self.arena,
                    (o.limit, o.actual, o.max),
                    at,
                    &extra,
                ));
            }
        }
        self.stack.push(Next::Close);
        let entries: Vec<(&str, &N)> = cur.entries().collect();
        for (i, (k, child)) in entries.into_iter().enumerate().rev() {
            self.arena.push((at, Token::Key(k)));
            let place = self.arena.len() - 1;
            self.stack.push(Next::Value(child, place, depth + 1, false));
            self.stack.push(Next::Key(k, at, i > 0));
        }
    }
}

/// A count over its limit, found by [`object_counts`]: the path from the
/// object to the array counted.
pub(crate) struct Over {
    pub limit: &'static str,
    pub actual: usize,
    pub max: usize,
    pub path: Vec<String>,
}

/// The count rules of one object (see [`check_value`]), in the order they
/// are reported: its `nodes` (at the top, or beside a `tunnel`), its
/// `tunnel`'s `chainNodes`, each of their entries, `inNodeId` and
/// `outNodeId`, then its `hops` and each hop's `nodes`. Run by the reader on
/// every object it reads with one of those keys, and by the walk.
pub(crate) fn object_counts<N: Node>(obj: &N, root: bool, limits: &Limits) -> Result<(), Over> {
    let wide = limits.max_nodes_per_hop;
    let tunnel = obj
        .field("tunnel")
        .filter(|t| matches!(t.shape(), Shape::Object));
    if let Some(Shape::Arr(nodes)) = obj.field("nodes").map(N::shape) {
        if (root || tunnel.is_some()) && nodes.len() > limits.max_nodes {
            return Err(over(
                "maxNodes",
                nodes.len(),
                limits.max_nodes,
                &[Token::Key("nodes")],
            ));
        }
    }
    if let Some(t) = tunnel {
        if let Some(Shape::Arr(hops)) = t.field("chainNodes").map(N::shape) {
            let at = |i| {
                [
                    Token::Key("tunnel"),
                    Token::Key("chainNodes"),
                    Token::Index(i),
                ]
            };
            if hops.len() > limits.max_hops {
                return Err(over("maxHops", hops.len(), limits.max_hops, &at(0)[..2]));
            }
            for (i, hop) in hops.iter().enumerate() {
                if let Shape::Arr(members) = hop.shape() {
                    if members.len() > wide {
                        return Err(over("maxNodesPerHop", members.len(), wide, &at(i)));
                    }
                }
            }
        }
        for key in ["inNodeId", "outNodeId"] {
            if let Some(Shape::Arr(members)) = t.field(key).map(N::shape) {
                if members.len() > wide {
                    let path = [Token::Key("tunnel"), Token::Key(key)];
                    return Err(over("maxNodesPerHop", members.len(), wide, &path));
                }
            }
        }
    }
    if let Some(Shape::Arr(hops)) = obj.field("hops").map(N::shape) {
        let at = |i| [Token::Key("hops"), Token::Index(i), Token::Key("nodes")];
        if hops.len() > limits.max_hops {
            return Err(over("maxHops", hops.len(), limits.max_hops, &at(0)[..1]));
        }
        for (i, hop) in hops.iter().enumerate() {
            if let Some(Shape::Arr(members)) = hop.field("nodes").map(N::shape) {
                if members.len() > wide {
                    return Err(over("maxNodesPerHop", members.len(), wide, &at(i)));
                }
            }
        }
    }
    Ok(())
}

/// A count over its limit, at `path` below the object (built out of line:
/// [`object_counts`] is compiled once per tree type).
#[cold]
#[inline(never)]
fn over(limit: &'static str, actual: usize, max: usize, path: &[Token]) -> Over {
    Over {
        limit,
        actual,
        max,
        path: path
            .iter()
            .map(|t| match t {
                Token::Key(k) => k.to_string(),
                Token::Index(i) => i.to_string(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    fn tunnel(entries: usize, hops: &[usize], exits: usize, nodes: usize) -> Value {
        let members = |n: usize| Value::Array((0..n).map(|i| json!({"nodeId": i})).collect());
        json!({
            "tunnel": {"inNodeId": members(entries), "chainNodes": hops.iter().map(|&n| members(n)).collect::<Vec<_>>(), "outNodeId": members(exits)},
            "nodes": (0..nodes).map(|i| json!({"id": i})).collect::<Vec<_>>()
        })
    }

    #[test]
    fn value_counts_name_the_limit_and_the_path() {
        let l = Limits {
            max_depth: 10,
            max_string_len: 100,
            ..small()
        };
        assert!(check_value(&tunnel(2, &[2, 2], 2, 3), &l).is_ok());
        let e = check_value(&tunnel(1, &[1], 1, 4), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.max, e.path.as_str()),
            ("maxNodes", 4, 3, "/nodes")
        );
        let e = check_value(&tunnel(1, &[1, 1, 1], 1, 1), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxHops", 3, "/tunnel/chainNodes")
        );
        let e = check_value(&tunnel(1, &[1, 3], 1, 1), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxNodesPerHop", 3, "/tunnel/chainNodes/1")
        );
        let e = check_value(&tunnel(3, &[], 1, 1), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.path.as_str()),
            ("maxNodesPerHop", "/tunnel/inNodeId")
        );
        let e = check_value(&tunnel(1, &[], 3, 1), &l).unwrap_err();
        assert_eq!(
            (e.limit, e.path.as_str()),
            ("maxNodesPerHop", "/tunnel/outNodeId")
        );
    }

    #[test]
    fn value_counts_apply_inside_wrappers_and_gost_chains() {
        let l = Limits {
            max_depth: 12,
            max_string_len: 100,
            ..small()
        };
        let steps = json!([{"op": "apply", "input": tunnel(1, &[1], 1, 1)}, {"op": "apply", "input": tunnel(1, &[1], 1, 5)}]);
        let e = check_value(&steps, &l).unwrap_err();
        assert_eq!((e.limit, e.path.as_str()), ("maxNodes", "/1/input/nodes"));
        let chain =
            json!({"chains": [{"name": "c", "hops": [{"name": "h", "nodes": [{}, {}, {}]}]}]});
        let e = check_value(&chain, &l).unwrap_err();
        assert_eq!(
            (e.limit, e.actual, e.path.as_str()),
            ("maxNodesPerHop", 3, "/chains/0/hops/0/nodes")
        );
        let chain = json!({"hops": [{}, {}, {}]});
        assert_eq!(check_value(&chain, &l).unwrap_err().limit, "maxHops");
        // a nested `nodes` array that is not a tunnel's node table is not a node count
        assert!(check_value(&json!({"x": {"nodes": [1, 2, 3, 4]}}), &l).is_ok());
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
    fn reading_counts_every_limit() {
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
            limit(r#"{"tunnel":{},"nodes":[1,2,3,4]}"#),
            ("maxNodes", 4, "/nodes".into())
        );
        assert_eq!(
            limit(&"1".repeat(1001)),
            ("maxInputBytes", 1001, String::new())
        );
        // The first count over a limit in document order: a parent before
        // its children, keys in order, whatever the text's order.
        assert_eq!(
            limit(r#"{"z":{"hops":[1,2,3]},"a":{"hops":[{"nodes":[1,2,3]}]}}"#),
            ("maxNodesPerHop", 3, "/a/hops/0/nodes".into())
        );
        assert_eq!(
            limit(r#"{"x":{"hops":[1,2,3]},"hops":[{"nodes":[1,2,3]}]}"#),
            ("maxNodesPerHop", 3, "/hops/0/nodes".into())
        );
        // Depth and strings are found as they are read, before any count.
        assert_eq!(
            limit(r#"{"hops":[1,2,3],"b":"123456789"}"#),
            ("maxStringLen", 9, "/b".into())
        );
    }
}
