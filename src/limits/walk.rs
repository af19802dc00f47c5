//! Walking a value already built (a `serde_json::Value` given to a native
//! function, or a tree) against the limits, with an explicit stack: no
//! recursion, whatever the depth.

use super::{LimitError, Limits, ReadError};
use crate::encode::Encode;
use crate::finding::pointer_token;
use crate::json::node::{Node, Shape};
use crate::json::JsonError;
use serde_json::Value;

/// One reference token of a path in the walk's arena.
enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// Checks a parsed document against the reader's own limits (depth, string
/// and key length; not the byte count: it has no text), walking it with an
/// explicit stack (no recursion, whatever the depth). The count rules are
/// the planner's, on the types it reads ([`super::counts`]).
pub fn check_value(v: &Value, limits: &Limits) -> Result<(), LimitError> {
    check_value_counting(v, limits).map(|_| ())
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
            return Err(self.over("maxDepth", depth + 1, limits.max_depth, at));
        }
        match shape {
            // A string has at most as many characters as bytes: count only when it may be over.
            Shape::Str(s) if s.len() > limits.max_string_len => {
                let n = s.chars().count();
                if n > limits.max_string_len {
                    return Err(self.over("maxStringLen", n, limits.max_string_len, at));
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

    /// Queues an object's children; a key over the length limit is reported.
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
        match long_key {
            Some(n) => Err(self.over("maxStringLen", n, limits.max_string_len, at)),
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

    /// The error for the value at arena index `at`.
    #[cold]
    fn over(&self, limit: &'static str, actual: usize, max: usize, at: usize) -> LimitError {
        limit_at(&self.arena, (limit, actual, max), at)
    }
}

/// The error for the value at index `at` of a path arena (parent index,
/// token; index 0 the root).
#[cold]
fn limit_at(
    arena: &[(usize, Token<'_>)],
    (limit, actual, max): (&'static str, usize, usize),
    mut at: usize,
) -> LimitError {
    let mut parts: Vec<String> = Vec::new();
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

/// What [`super::read_tree_within`] says of a built value's text, without the
/// text, in one walk: the first of the reader's bounds (depth, string and
/// key length) it is over, in the order the reader meets them (keys in
/// order, each before its value), or the reader's refusal of a container
/// nested past serde_json's recursion limit, at the column its compact text
/// would put it in; else how many values it holds.
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
    };
    while let Some(next) = walk.stack.pop() {
        walk.step(next)?;
    }
    Ok(walk.count)
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
            Some(n) if n > max => Err(self.limit(("maxStringLen", n, max), at)),
            _ => Ok(()),
        }
    }

    fn limit(&self, over: (&'static str, usize, usize), at: usize) -> ReadError {
        ReadError::Limit(limit_at(&self.arena, over, at))
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
            return Err(self.limit(("maxDepth", depth + 1, self.limits.max_depth), at));
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
