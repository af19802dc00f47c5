//! The count rules: how many node rows, hops and nodes in one hop a tunnel
//! input holds, checked by the planner on the types it reads the input
//! into (`planner::request`), on a redeploy's rows as they are grouped
//! (`planner::stored`), on the forward rows a forward mode creates or moves
//! (`forward::modes`) and on a panel's rows (`api::backup`).

use super::{LimitError, Limits};

/// What a count rule counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Count {
    /// Node rows (`maxNodes`).
    Nodes,
    /// Hops (`maxHops`).
    Hops,
    /// The nodes of one hop (`maxNodesPerHop`).
    HopNodes,
}

impl Limits {
    /// `n` of `what`, counted by its reader, within its limit; `path`, the
    /// JSON Pointer of what was counted, is built only for an error.
    pub(crate) fn count_within(
        &self,
        what: Count,
        n: usize,
        path: impl FnOnce() -> String,
    ) -> Result<(), LimitError> {
        let (limit, max) = match what {
            Count::Nodes => ("maxNodes", self.max_nodes),
            Count::Hops => ("maxHops", self.max_hops),
            Count::HopNodes => ("maxNodesPerHop", self.max_nodes_per_hop),
        };
        if n > max {
            return Err(LimitError::new(limit, n, max, path()));
        }
        Ok(())
    }
}
