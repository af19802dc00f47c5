//! What a lifecycle step does: the closed set of `op` names.

use super::forward::ForwardOp;
use tsify_next::Tsify;

/// A step's `op`. The TypeScript names are the variants in camelCase,
/// as [`LifecycleOp::parse`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum LifecycleOp {
    /// The plan (or the input, planned first) applied as the panel applies it.
    Apply,
    /// `apply` under its older name (logged as given); not declared.
    #[serde(skip)]
    Create,
    /// An apply that must find the tunnel already applied.
    Edit,
    /// An apply whose local command `failAt` fails.
    ApplyError,
    Release,
    Delete,
    /// A node's config report, and the provider panel's cleanup after it.
    Report,
    ForwardCreate,
    ForwardEdit,
    ForwardPause,
    ForwardResume,
    ForwardDelete,
}

impl LifecycleOp {
    const NAMES: [(LifecycleOp, &'static str); 12] = [
        (LifecycleOp::Apply, "apply"),
        (LifecycleOp::Create, "create"),
        (LifecycleOp::Edit, "edit"),
        (LifecycleOp::ApplyError, "applyError"),
        (LifecycleOp::Release, "release"),
        (LifecycleOp::Delete, "delete"),
        (LifecycleOp::Report, "report"),
        (LifecycleOp::ForwardCreate, "forwardCreate"),
        (LifecycleOp::ForwardEdit, "forwardEdit"),
        (LifecycleOp::ForwardPause, "forwardPause"),
        (LifecycleOp::ForwardResume, "forwardResume"),
        (LifecycleOp::ForwardDelete, "forwardDelete"),
    ];

    pub fn parse(name: &str) -> Option<LifecycleOp> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(op, _)| *op)
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(op, _)| *op == self)
            .map_or("", |(_, n)| n)
    }

    /// The forward request this step makes, if it is one.
    pub(super) fn forward(self) -> Option<ForwardOp> {
        match self {
            LifecycleOp::ForwardCreate => Some(ForwardOp::Create),
            LifecycleOp::ForwardEdit => Some(ForwardOp::Edit),
            LifecycleOp::ForwardPause => Some(ForwardOp::Pause),
            LifecycleOp::ForwardResume => Some(ForwardOp::Resume),
            LifecycleOp::ForwardDelete => Some(ForwardOp::Delete),
            _ => None,
        }
    }
}

impl From<ForwardOp> for LifecycleOp {
    fn from(op: ForwardOp) -> LifecycleOp {
        match op {
            ForwardOp::Create => LifecycleOp::ForwardCreate,
            ForwardOp::Edit => LifecycleOp::ForwardEdit,
            ForwardOp::Pause => LifecycleOp::ForwardPause,
            ForwardOp::Resume => LifecycleOp::ForwardResume,
            ForwardOp::Delete => LifecycleOp::ForwardDelete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_and_forward_ops_round_trip() {
        for (op, name) in LifecycleOp::NAMES {
            assert_eq!(LifecycleOp::parse(name), Some(op));
            assert_eq!(op.as_str(), name);
            if let Some(f) = op.forward() {
                assert_eq!(LifecycleOp::from(f), op);
            }
        }
        assert_eq!(LifecycleOp::parse("Apply"), None);
        assert_eq!(LifecycleOp::parse("forward"), None);
    }
}
