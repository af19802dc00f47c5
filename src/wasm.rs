//! JavaScript bindings: convert, call the core ([`crate::api`]), convert
//! back. Nothing else.
//!
//! Each operation has an object form (`planTunnel(input)`, through the
//! engine's `JSON.stringify` / `JSON.parse`) and a text form
//! (`planTunnelJson(text)`). A bad argument (wrong type, options of the wrong
//! shape, text over its byte limit, no JSON form) throws a `HopPolicyError`
//! with `code` and `path`; what the operation finds about the document is a
//! value (a server rejection in `plan.error`, findings, `IN001` for an
//! unreadable document). Conversions and the
//! export macros: [`args`]; JS side: `src/wasm/glue.js`.

#[macro_use]
mod args;

use crate::api::{self, input_bytes::Reader};
use args::{object_form, parse, text_form};
use wasm_bindgen::prelude::*;

// TypeScript written beside the code it describes (aliases, open closed
// sets, the thrown error), copied into the declarations at compile time.
typescript_sections! {
    crate::planner::request::INPUT_ALIASES_TS,
    crate::model::PAYLOAD_SETS_TS,
    crate::plan::PLAN_SETS_TS,
    crate::finding::FINDING_CODE_TS,
    crate::lifecycle::LIFECYCLE_STEP_TS,
    crate::error::HOP_POLICY_ERROR_TS,
    crate::simulate::NODE_SELECTOR_TS,
}

/// Runs once when the module is instantiated: the forward paths' expiry
/// checks take the page's clock (`Date.now()`) when an input gives no `now`,
/// and the hash maps keyed by input take random keys ([`crate::lookup`]).
#[wasm_bindgen(start)]
fn start() {
    crate::forward::set_clock(|| js_sys::Date::now() as i64);
    crate::lookup::set_key_source(args::hash_keys);
}

object_export! {
    #[doc = " Plans one tunnel: exactly what the server deploys, locally and through"]
    #[doc = " federation. A server rejection is returned in `plan.error`; only an input"]
    #[doc = " that cannot be turned into JSON throws."]
    plan_tunnel = planTunnel("PlanInput", options: "PlanOptions") -> "Plan";
    "the tunnel input", "the plan options", api::plan_json, Reader::Plan
}

text_export! {
    #[doc = " [`plan_tunnel`] over JSON text: the same plan, as JSON text."]
    plan_tunnel_json = planTunnelJson(optionsJson); "the tunnel input", api::plan_json, Reader::Plan
}

object_export! {
    #[doc = " `checkTunnel`: plans a tunnel input and checks the plan in one call"]
    #[doc = " (the panel's pre-submit check): `{plan, findings}`."]
    check_tunnel = checkTunnel("PlanInput", options: "PlanOptions") -> "TunnelCheck";
    "the tunnel input", "the plan options", api::check_tunnel_json, Reader::CheckTunnel
}

text_export! {
    #[doc = " `checkTunnel` over JSON text."]
    check_tunnel_json = checkTunnelJson(optionsJson); "the tunnel input", api::check_tunnel_json, Reader::CheckTunnel
}

/// Checks a tunnel input, a plan, one node's GOST config or a command list.
/// Never throws on the document: an unreadable one is an `IN001` finding.
/// Throws only when `options` has the wrong shape.
#[wasm_bindgen(js_name = checkDocument, unchecked_return_type = "CheckReport")]
pub fn check_document(
    #[wasm_bindgen(unchecked_param_type = "CheckDocument")] doc: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "CheckOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    args::check_object(&doc, options)
}

text_export! {
    #[doc = " [`check_document`] over JSON text (`optionsJson` is JSON text too)."]
    check_document_json = checkDocumentJson(optionsJson) => args::check_text
}

/// The checker's report for a document that could not be read at all (for
/// example a file that could not be opened): one `IN001` finding with `reason`.
#[wasm_bindgen(js_name = checkUnreadableJson)]
pub fn check_unreadable_json(
    #[wasm_bindgen(unchecked_param_type = "string")] reason: JsValue,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    args::check_unreadable(&reason, options_json)
}

/// Every rule the checker knows: code, name, severity and descriptions.
#[wasm_bindgen(unchecked_return_type = "RuleInfo[]")]
pub fn rules() -> Result<JsValue, JsValue> {
    parse(&crate::encode::to_string(&crate::check::rules()))
}

/// Checks a document and renders the report: `format` is `text` (readable,
/// grouped by node), `sarif` (SARIF 2.1.0, `uri` names the artifact) or
/// `json`. With `readError` the document could not be read at all and
/// the report is the `IN001` finding carrying that reason.
#[wasm_bindgen(js_name = checkDocumentFormatted)]
pub fn check_document_formatted(
    text: &js_sys::JsString,
    #[wasm_bindgen(unchecked_param_type = "string")] format: JsValue,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "string")] uri: Option<JsValue>,
    #[wasm_bindgen(js_name = readError, unchecked_optional_param_type = "string")]
    read_error: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    args::check_formatted(text, format, options, uri, read_error)
}

text_export! {
    #[doc = " Simulates and renders the trace as a readable report."]
    simulate_text = simulateText(scenarioJson) => args::simulate_text
}

/// Replays requests through a plan (or one node's config, or a tunnel input,
/// planned first) with some nodes dead, the way GOST fails over.
#[wasm_bindgen(js_name = simulate, unchecked_return_type = "Trace")]
pub fn simulate_js(
    #[wasm_bindgen(unchecked_param_type = "SimulateDocument")] doc: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Scenario")] scenario: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    args::simulate_object(&doc, scenario)
}

text_export! {
    #[doc = " [`simulate_js`] over JSON text."]
    simulate_json = simulateJson(scenarioJson); "the document", api::simulate_json, Reader::Simulate
}

/// The lifecycle replay as a text operation (it takes no options).
const LIFECYCLE: args::TextOp = |steps, _| api::lifecycle_json(steps);

/// Replays applies, releases and failures and reports what they leave behind.
#[wasm_bindgen(js_name = lifecycle, unchecked_return_type = "LifecycleReport")]
pub fn lifecycle_js(
    #[wasm_bindgen(unchecked_param_type = "LifecycleStep[]")] steps: JsValue,
) -> Result<JsValue, JsValue> {
    object_form(
        &steps,
        "the step list",
        None,
        "",
        Reader::Lifecycle,
        LIFECYCLE,
    )
}

text_export! {
    #[doc = " [`lifecycle_js`] over JSON text."]
    lifecycle_json = lifecycleJson(); "the step list", LIFECYCLE, Reader::Lifecycle
}

text_export! {
    #[doc = " Every tunnel of a panel, from its backup export (`{version, exportedAt,"]
    #[doc = " nodes, tunnels}`) or its database tables' rows (`{node, tunnel,"]
    #[doc = " chain_tunnel, federation_tunnel_binding}`), as `[{id, name, type, input,"]
    #[doc = " assumed}]`, `input` a redeploy input for `planTunnel(input, {mode:"]
    #[doc = " 'redeploy'})`. Node secrets are dropped and share tokens become pseudonyms."]
    #[doc = " `optionsJson`: `{limits}` over the panel defaults (README, 'Limits')."]
    backup_tunnels_json = backupTunnelsJson(optionsJson); "the backup", api::backup_tunnels_json, Reader::Panel
}

text_export! {
    #[doc = " Every tunnel of a panel (what [`backup_tunnels_json`] reads) planned as a"]
    #[doc = " redeploy pushes it and checked, in one call: `[{id, name, type, assumed,"]
    #[doc = " plan, findings}]`. `optionsJson` as for [`backup_tunnels_json`]."]
    audit_panel_json = auditPanelJson(optionsJson); "the backup", api::audit_panel_json, Reader::Panel
}

/// The package version (the crate's version).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
