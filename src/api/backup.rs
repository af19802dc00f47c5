//! `backupTunnelsJson`.

use crate::encode;
use crate::error::ApiError;
use crate::limits::{check_text, Limits};

/// Every tunnel of a panel backup as a redeploy input. A backup of a whole
/// panel is larger than one tunnel input, so its node count and byte size
/// have their own, wider bounds.
pub fn backup_tunnels(text: &str) -> Result<String, ApiError> {
    let limits = Limits {
        max_input_bytes: 256 << 20,
        max_nodes: 100_000,
        max_nodes_per_hop: 100_000,
        ..Default::default()
    };
    check_text(text, &limits).map_err(|e| e.to_api_error())?;
    let value = super::parse_document(text, "the backup")?;
    Ok(encode::to_string(&crate::planner::backup::read_backup(
        &value,
    )?))
}
