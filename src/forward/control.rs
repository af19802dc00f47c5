//! The forward list's controls (mutations.go:2191-2285): `forwardDelete`,
//! `forwardPause` and `forwardResume`. Each acts on the agents of the
//! forward's entry nodes through `controlForwardServices`
//! (control_plane.go:522-661) before it touches the row.

use super::input::ForwardRow;
use super::rejection::ForwardRejection;
use super::sync::is_offline_error;
use super::Panel;
use crate::plan::CommandName;

impl Panel<'_, '_> {
    /// `forwardDelete` (mutations.go:2191): every name the forward's
    /// services may have had is deleted on each of its nodes, an offline
    /// node skipped (control_plane.go:541-560), then the rows go. No
    /// limiter is deleted.
    pub fn delete(&mut self, id: i64) -> Result<(), ForwardRejection> {
        let forward = self.accessible(id)?;
        let mut seen = Vec::new();
        for port in self.store.ports_of(id) {
            if seen.contains(&port.node_id) {
                continue;
            }
            seen.push(port.node_id);
            match self.delete_on_node(&forward, port.node_id) {
                Err(e) if !is_offline_error(&e) => return Err(ForwardRejection::SyncFailed(e)),
                _ => {}
            }
        }
        self.store.delete_forward(id);
        Ok(())
    }

    /// `forwardPause` (mutations.go:2240): `PauseService` on each node,
    /// then the row's status 0.
    pub fn pause(&mut self, id: i64) -> Result<(), ForwardRejection> {
        let forward = self.accessible(id)?;
        self.control(&forward, CommandName::PauseService)?;
        self.set_status(id, 0);
        Ok(())
    }

    /// `forwardResume` (mutations.go:2262): the owner's and the grant's
    /// checks, `ResumeService` on each node, then the row's status 1.
    pub fn resume(&mut self, id: i64) -> Result<(), ForwardRejection> {
        let forward = self.accessible(id)?;
        self.user_allowed(forward.user_id, forward.tunnel_id)?;
        self.control(&forward, CommandName::ResumeService)?;
        self.set_status(id, 1);
        Ok(())
    }

    /// `controlForwardServices` without its not-found tolerance; its error
    /// is the answer.
    fn control(
        &mut self,
        forward: &ForwardRow,
        command: CommandName,
    ) -> Result<(), ForwardRejection> {
        self.syncer()
            .control(forward, command)
            .map_err(ForwardRejection::SyncFailed)
    }

    fn set_status(&mut self, id: i64, status: i64) {
        if let Some(f) = self.store.forward_mut(id) {
            f.status = status;
        }
    }
}
