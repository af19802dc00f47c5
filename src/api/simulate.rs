//! `simulate` / `simulateJson` and `simulateText`.

use crate::encode;
use crate::error::ApiError;
use crate::json::tree::Arena;
use crate::simulate::{self, Scenario, Trace};
use serde_json::Value;

pub fn scenario(text: Option<&str>) -> Result<Scenario, ApiError> {
    super::parse_options(text, "BAD_SCENARIO", "the scenario fields")
}

/// The failover trace of `doc` (a plan, a tunnel input, a node config or a
/// lifecycle state) under `scenario`.
pub fn simulate(doc: &Value, scenario: &Scenario) -> Result<Trace, ApiError> {
    simulate::simulate(doc, scenario)
}

/// [`simulate()`] on JSON text, the scenario as JSON text too.
pub fn simulate_json(doc: &str, scenario_text: Option<&str>) -> Result<String, ApiError> {
    let scenario = scenario(scenario_text)?;
    let arena = Arena::new();
    let tree = super::read_within(doc, "the document", &scenario.limits, &arena)?;
    let trace = simulate::simulate_within(&tree, &scenario)?;
    Ok(super::within_output(
        encode::to_string(&trace),
        &scenario.limits,
    )?)
}

/// The trace of `doc` under `scenario`, as a readable report.
#[inline]
pub fn simulate_text(doc: &str, scenario: &Scenario) -> Result<String, ApiError> {
    let arena = Arena::new();
    let tree = super::read_within(doc, "the document", &scenario.limits, &arena)?;
    let trace = simulate::simulate_within(&tree, scenario)?;
    Ok(super::within_output(
        simulate::trace_text(&trace),
        &scenario.limits,
    )?)
}
