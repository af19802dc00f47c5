//! `backupTunnelsJson`.

use crate::encode;
use crate::error::ApiError;
use crate::limits::Limits;

/// Every tunnel of a panel, from its backup export or its database tables'
/// rows, as a redeploy input. A whole panel is larger than one tunnel input:
/// bytes, depth and string lengths are bounded, and no count applies (its
/// tables are not tunnel inputs).
pub fn backup_tunnels(text: &str) -> Result<String, ApiError> {
    let limits = Limits {
        max_input_bytes: 256 << 20,
        max_nodes: usize::MAX,
        max_hops: usize::MAX,
        max_nodes_per_hop: usize::MAX,
        ..Default::default()
    };
    let value = super::parse_within(text, "the backup", &limits)?;
    Ok(encode::to_string(&crate::planner::backup::read_panel(
        &value,
    )?))
}
