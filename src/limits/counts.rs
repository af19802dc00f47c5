//! The count rules: how many node rows, hops and nodes in one hop a tunnel
//! input holds, checked by the planner on the types it reads the input
//! into (`planner::request`), on a redeploy's rows as they are grouped
//! (`planner::stored`) and on a panel's rows (`api::backup`).

use super::{LimitError, Limits};

/// Each rule on a count its reader made: node rows (`maxNodes`), hops
/// (`maxHops`) and the nodes of one hop (`maxNodesPerHop`); `path`, the
/// JSON Pointer of what was counted, is built only for an error.
impl Limits {
    pub(crate) fn nodes_within(
        &self,
        count: usize,
        path: impl FnOnce() -> String,
    ) -> Result<(), LimitError> {
        within("maxNodes", count, self.max_nodes, path)
    }

    pub(crate) fn hops_within(
        &self,
        count: usize,
        path: impl FnOnce() -> String,
    ) -> Result<(), LimitError> {
        within("maxHops", count, self.max_hops, path)
    }

    pub(crate) fn hop_nodes_within(
        &self,
        count: usize,
        path: impl FnOnce() -> String,
    ) -> Result<(), LimitError> {
        within("maxNodesPerHop", count, self.max_nodes_per_hop, path)
    }
}

fn within(
    limit: &'static str,
    count: usize,
    max: usize,
    path: impl FnOnce() -> String,
) -> Result<(), LimitError> {
    if count > max {
        return Err(LimitError::new(limit, count, max, path()));
    }
    Ok(())
}
