//! The finding shape shared by the checker and the lifecycle replay
//! (README, "Rules"): one problem, where it is, and how to repair it.

use crate::encode::{shape, Encode, Writer};
use serde::Serialize;

/// How bad a finding is. The declaration order is the sort order: errors first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(any(test, target_arch = "wasm32"), derive(tsify_next::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

shape! {
    #[doc = " One edit that repairs a finding."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Fix {
        #[doc = " Always `\"set\"` today."]
        pub op: String => "op",
        #[doc = " JSON Pointer into the checked document."]
        pub path: String => "path",
        pub value: serde_json::Value => "value": "JsonValue",
    }
}

shape! {
    #[doc = " One problem found in a document."]
    #[derive(Debug, Clone, PartialEq)]
    pub struct Finding {
        #[doc = " Stable code such as `FO001`."]
        pub code: String => "code": "FindingCode",
        #[doc = " Rule name such as `missing-retries`."]
        pub rule: String => "rule",
        pub severity: Severity => "severity",
        pub node_id: Option<i64> => "nodeId" optional,
        #[doc = " JSON Pointer into the checked document (`\"\"` = the whole document)."]
        pub path: String => "path",
        #[doc = " English text."]
        pub message: String => "message",
        #[doc = " Chinese text."]
        pub message_zh: String => "messageZh",
        pub fix: Option<Fix> => "fix" optional,
    }
}

impl Encode for Severity {
    fn encode(&self, out: &mut Writer<'_>) {
        self.as_str().encode(out)
    }
}

/// Sorts findings the way every output presents them: severity, then path,
/// then code, then message, so the same input always gives the same list.
pub fn sort_findings(findings: &mut [Finding]) {
    crate::sorting::sort_by(findings, |a, b| {
        a.severity
            .cmp(&b.severity)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.node_id.cmp(&b.node_id))
            .then_with(|| a.message.cmp(&b.message))
    });
}

pub use crate::json::pointer_token;

/// The TypeScript of a [`Finding`]'s code: the checker's rule table
/// (`check::rules()`; `tests/node/declarations.test.mjs` compares the two).
pub const FINDING_CODE_TS: &str = r#"
/** The checker's rule codes (see `rules()`). */
export type FindingCode =
  | 'AC001' | 'AC002' | 'AC003' | 'AC004' | 'AC005' | 'AC006'
  | 'FO001' | 'FO002' | 'FO003' | 'FO004' | 'FO005' | 'FO006'
  | 'LK001' | 'LK002' | 'LK003' | 'LK004' | 'LK005'
  | 'PA001' | 'PA002' | 'PA003' | 'PA004' | 'PA005'
  | 'LC001' | 'LC002' | 'LC003' | 'LC004'
  | 'IN001' | 'IN002' | 'IN003' | 'IN004'
  | (string & {});
"#;
