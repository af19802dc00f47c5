//! Placeholder planner: replaced by the real builder.
use crate::plan::{Plan, PlanError};
use serde_json::Value;

pub fn plan(_input: &Value) -> Plan {
    Plan { error: Some(PlanError { code: "UNIMPLEMENTED".into(), message: String::new(), message_en: String::new() }), federation: vec![], local: vec![], nodes: vec![] }
}

pub fn plan_json(text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    serde_json::to_string(&plan(&v)).unwrap_or_default()
}
