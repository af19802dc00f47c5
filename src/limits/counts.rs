//! The count rules: how many nodes, hops and nodes per hop one object
//! holds, run on each object the reader builds and by the walk.

use super::Limits;
use crate::json::node::{Node, Shape};

/// One reference token of a path: in the walk's arena ([`super::walk`]), and of an [`Over`].
pub(super) enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// A count over its limit, found by [`object_counts`]: the path from the
/// object to the array counted.
pub(crate) struct Over {
    pub limit: &'static str,
    pub actual: usize,
    pub max: usize,
    pub path: Vec<String>,
}

/// The count rules of one object (see [`super::check_value`]), in the order they
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
