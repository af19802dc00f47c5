//! JavaScript bindings: convert, call the core, convert back. Nothing else.
//!
//! Every entry point comes in two forms:
//! * an object form (`planTunnel(input)`) taking and returning plain JS values;
//! * a text form (`planTunnelJson(text)`) taking and returning JSON text.
//!
//! Both run the same path: the object form turns its argument into JSON text
//! with the engine's own `JSON.stringify`, calls the text form, and turns the
//! answer back with `JSON.parse`. The engine's native JSON code builds the
//! whole value in one call each way, instead of one boundary crossing per
//! field (as `serde-wasm-bindgen` would); it gives plain objects (never
//! `Map`s); and keys such as `__proto__` stay ordinary data. The README lists
//! measured times of both forms against a bare `JSON.parse` of the plan.
//!
//! Nothing here traps on bad input: a value that cannot be read becomes a thrown
//! JS `Error` carrying `code` and `path` (see [`ApiError`]), except in the
//! checker, which reports an unreadable document as an `IN001` finding.
//!
//! TypeScript declarations for every input and output come from the mirror
//! types in [`types`] (derived with `tsify-next`); native tests check that the
//! mirrors accept exactly what the core emits, so they cannot drift silently.

use crate::check::{self, CheckOptions, CheckReport};
use crate::encode;
use crate::error::ApiError;
use crate::finding::{Finding, Severity};
use crate::{lifecycle, planner, simulate};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The crate version, which is also the npm package version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

// ---------------------------------------------------------------------------
// Text layer: pure Rust, testable natively. Each function takes JSON text and
// returns JSON text, or an ApiError.
// ---------------------------------------------------------------------------

/// JSON text in, JSON text out: the shared implementation of every binding.
pub mod text {
    use super::*;

    /// Reads a JSON document; anything that is not JSON is `IN001`.
    pub fn parse_document(text: &str, what: &str) -> Result<Value, ApiError> {
        crate::json::from_str(text)
            .map_err(|e| ApiError::new("IN001", format!("{what} is not valid JSON: {e}"), ""))
    }

    fn parse_options<T: Default>(
        text: Option<&str>,
        code: &str,
        what: &str,
        read: fn(&Value) -> Result<T, crate::options::OptionError>,
    ) -> Result<T, ApiError> {
        let text = match text {
            None => return Ok(T::default()),
            Some(t) if t.trim().is_empty() => return Ok(T::default()),
            Some(t) => t,
        };
        let value = crate::json::from_str(text)
            .map_err(|e| ApiError::new(code, format!("{what} are not valid JSON: {e}"), ""))?;
        if value.is_null() {
            return Ok(T::default());
        }
        read(&value).map_err(|e| {
            ApiError::new(
                code,
                format!("{what} have the wrong shape: {}", e.message),
                e.path,
            )
        })
    }

    pub fn plan_options(options: Option<&str>) -> Result<planner::PlanOptions, ApiError> {
        parse_options(
            options,
            "BAD_OPTIONS",
            "the plan options",
            planner::PlanOptions::from_json,
        )
    }

    /// `planTunnelJson`: the plan of one tunnel input. A server rejection is a
    /// normal plan (its `error` is set); only text that is not JSON fails.
    pub fn plan(input: &str, options: Option<&str>) -> Result<String, ApiError> {
        let options = plan_options(options)?;
        Ok(encode::to_string(&planner::plan_text(input, &options)?))
    }

    pub fn check_options(options: Option<&str>) -> Result<CheckOptions, ApiError> {
        parse_options(
            options,
            "BAD_OPTIONS",
            "the check options",
            CheckOptions::from_json,
        )
    }

    /// The report for a document that could not be read at all: the checker's
    /// own IN001 finding for an unreadable document, carrying `reason`.
    pub fn unreadable_report(reason: &str, options: &CheckOptions) -> CheckReport {
        // Ask the checker how it reports a document of the wrong shape, so the
        // summary stays in its format, then put the real reason in the finding.
        let mut report = check::check(&Value::Null, options);
        let finding = Finding {
            code: "IN001".into(),
            rule: "unreadable".into(),
            severity: Severity::Error,
            node_id: None,
            path: String::new(),
            message: format!("cannot read the document: {reason}"),
            message_zh: format!("无法读取文档：{reason}"),
            fix: None,
        };
        match report.findings.iter_mut().find(|f| f.code == "IN001") {
            Some(existing) => {
                existing.message = finding.message;
                existing.message_zh = finding.message_zh;
            }
            None => {
                report.findings = vec![finding];
                report.summary.errors = 1;
                report.summary.warnings = 0;
                report.summary.infos = 0;
            }
        }
        report
    }

    /// `checkDocumentJson`: never fails on the document itself (text that is
    /// not JSON is one IN001 finding); fails only on malformed options.
    pub fn check(doc: &str, options: Option<&str>) -> Result<String, ApiError> {
        let options = check_options(options)?;
        Ok(encode::to_string(&check::check_text(doc, &options)))
    }

    pub fn scenario(text: Option<&str>) -> Result<simulate::Scenario, ApiError> {
        parse_options(
            text,
            "BAD_SCENARIO",
            "the scenario fields",
            simulate::Scenario::from_json,
        )
    }

    /// Reads a document within the default limits, counted while it is read
    /// (the byte count first, so an input far over a limit costs no more
    /// than taking its length).
    pub fn parse_within_limits(text: &str, what: &str) -> Result<Value, ApiError> {
        parse_within(text, what, &crate::limits::Limits::default())
    }

    /// Reads a document within `limits`; text that is not JSON is `IN001`.
    fn parse_within(
        text: &str,
        what: &str,
        limits: &crate::limits::Limits,
    ) -> Result<Value, ApiError> {
        crate::json::from_str_within(text, limits).map_err(|e| match e {
            crate::json::ReadError::Limit(e) => e.to_api_error(),
            crate::json::ReadError::NotJson(e) => {
                ApiError::new("IN001", format!("{what} is not valid JSON: {e}"), "")
            }
        })
    }

    /// `simulateJson`: the failover trace of `doc` under `scenario`.
    pub fn simulate(doc: &str, scenario_text: Option<&str>) -> Result<String, ApiError> {
        let scenario = scenario(scenario_text)?;
        let value = parse_within_limits(doc, "the document")?;
        Ok(encode::to_string(&simulate::simulate(&value, &scenario)?))
    }

    /// `checkTunnelJson`: the plan and its findings in one call.
    pub fn check_tunnel(input: &str, options: Option<&str>) -> Result<String, ApiError> {
        let options = plan_options(options)?;
        let value = parse_within(input, "the tunnel input", &options.limits)?;
        Ok(encode::to_string(&check::check_tunnel_mode(
            &value,
            options.mode_for(&value),
        )))
    }

    /// `backupTunnelsJson`: every tunnel of a panel backup as a redeploy
    /// input. A backup of a whole panel is larger than one tunnel input, so
    /// its node count and byte size have their own, wider bounds.
    pub fn backup_tunnels(text: &str) -> Result<String, ApiError> {
        // Bytes, depth and string lengths only: a backup's tables are not
        // tunnel inputs, so no count applies.
        let limits = crate::limits::Limits {
            max_input_bytes: 256 << 20,
            max_nodes: usize::MAX,
            max_hops: usize::MAX,
            max_nodes_per_hop: usize::MAX,
            ..Default::default()
        };
        let value = parse_within(text, "the backup", &limits)?;
        Ok(encode::to_string(&planner::backup::read_panel(&value)?))
    }

    /// `lifecycleJson`: the replay of a list of lifecycle steps.
    pub fn lifecycle(steps: &str) -> Result<String, ApiError> {
        let value = parse_within_limits(steps, "the step list")?;
        Ok(encode::to_string(&lifecycle::lifecycle(&value)?))
    }
}

// ---------------------------------------------------------------------------
// JS glue.
// ---------------------------------------------------------------------------

/// Turns an [`ApiError`] into a JS `Error` named `HopPolicyError` with `code`
/// and `path` properties.
fn throw(e: ApiError) -> JsValue {
    make_error(&e.code, &e.message, &e.path)
}

#[wasm_bindgen(typescript_custom_section)]
const CLOSED_SETS_TS: &str = r#"
/**
 * Closed sets, each with an escape for values this version does not know:
 * `(string & {})` accepts any other string without losing the suggestions.
 */
export type Protocol = 'tls' | 'mtls' | 'wss' | 'mwss' | 'ws' | 'mws' | 'tcp' | 'mtcp' | 'kcp' | 'quic' | 'grpc' | 'h2' | 'http2' | (string & {});
/** GOST's selector strategies (`best` is the panel's; the agent runs it as `fifo`). */
export type Strategy = 'round' | 'rr' | 'rand' | 'random' | 'fifo' | 'ha' | 'hash' | 'best' | (string & {});
/** 1 = port forward, 2 = tunnel forward (anything but 2 acts as 1). */
export type TunnelType = 1 | 2 | '1' | '2' | (number & {});
/** The checker's rule codes (see `rules()`). */
export type FindingCode =
  | 'AC001' | 'AC002' | 'AC003' | 'AC004' | 'AC005' | 'AC006'
  | 'FO001' | 'FO002' | 'FO003' | 'FO004' | 'FO005'
  | 'LK001' | 'LK002' | 'LK003'
  | 'PA001' | 'PA002' | 'PA003' | 'PA004' | 'PA005'
  | 'LC001' | 'LC002' | 'LC003'
  | 'IN001' | 'IN002' | 'IN003' | 'IN004'
  | (string & {});
/** Why the server refuses a tunnel (`plan.error.code`). */
export type PlanErrorCode =
  | 'INVALID_INPUT' | 'CONNECT_IP_MULTI_EXIT' | 'CONNECT_IP_MULTI_NODE_HOP' | 'NAME_EMPTY' | 'TUNNEL_ID_MISSING'
  | 'TUNNEL_NOT_FOUND' | 'PROBE_TARGET_INVALID' | 'NO_ENTRIES' | 'NO_EXITS' | 'PORTS_EXHAUSTED' | 'PORT_RANGE_MISSING'
  | 'DUPLICATE_NODE' | 'NODE_NOT_FOUND' | 'NODE_OFFLINE' | 'REMOTE_PORT_OUT_OF_RANGE' | 'REMOTE_SHARE_MISSING'
  | 'REMOTE_RESERVE_FAILED' | 'REMOTE_APPLY_FAILED' | 'LINK_INCOMPATIBLE' | 'PORT_MISSING'
  | 'REMOTE_ENTRY_UPDATE_REFUSED' | 'BEFORE_REJECTED' | 'LIMIT_EXCEEDED'
  | (string & {});
/** What a `HopPolicyError` says went wrong. */
export type ErrorCode = 'IN001' | 'BAD_ARGUMENT' | 'BAD_OPTIONS' | 'BAD_SCENARIO' | 'LIMIT_EXCEEDED' | 'NOT_INITIALISED' | (string & {});
"#;

#[wasm_bindgen(typescript_custom_section)]
const HOP_POLICY_ERROR_TS: &str = r#"
/**
 * What every function throws when it cannot produce its result (a server
 * rejection is not thrown: it is the plan's `error`). `code` is stable:
 * `IN001` (unreadable input), `BAD_ARGUMENT`, `BAD_OPTIONS`, `BAD_SCENARIO`,
 * `LIMIT_EXCEEDED`, `NOT_INITIALISED` (web build: `init()` not awaited yet),
 * or a code from the core. `path` is a JSON Pointer into the input.
 */
export class HopPolicyError extends Error {
  readonly name: 'HopPolicyError';
  readonly code: ErrorCode;
  readonly path: string;
  constructor(code: ErrorCode, message: string, path?: string);
}
"#;
/// What a thrown JS value says, for error messages.
fn describe(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    "unknown error".into()
}

#[wasm_bindgen]
extern "C" {
    /// The engine's `TextEncoder` (global in Node and in browsers).
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(
        this: &TextEncoder,
        source: &js_sys::JsString,
        destination: &js_sys::Uint8Array,
    ) -> EncodeIntoResult;
    type EncodeIntoResult;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeIntoResult) -> f64;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeIntoResult) -> f64;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// Encodes `source` into `dest` with the engine's native `encodeInto`:
/// (UTF-16 units read, bytes written).
fn encode_into(source: &js_sys::JsString, dest: &mut [u8]) -> (usize, usize) {
    ENCODER.with(|encoder| {
        // A view of exactly `dest`, made after the encoder exists so that
        // nothing can grow the memory between making the view and using it.
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            dest.as_mut_ptr() as u32,
            dest.len() as u32,
        );
        let done = encoder.encode_into(source, &view);
        (done.read() as usize, done.written() as usize)
    })
}

/// A JS string argument as a Rust `String`.
///
/// wasm-bindgen copies a `&str` argument one UTF-16 unit at a time in a JS
/// loop, which measured 19% of `checkDocumentJson` on a 4.7 MB config and
/// 6% of `planTunnelJson` on `large` (scripts/bench). The engine's native
/// `TextEncoder.encodeInto` writes the same UTF-8 (lone surrogates become
/// U+FFFD either way) straight into wasm memory.
fn read_string(value: &JsValue, what: &str) -> Result<String, ApiError> {
    let Some(source) = value.dyn_ref::<js_sys::JsString>() else {
        return Err(ApiError::new(
            "BAD_ARGUMENT",
            format!(
                "{what} must be a string of JSON text, not {}",
                type_name_of(value)
            ),
            "",
        ));
    };
    let units = source.length() as usize;
    // ASCII fits exactly; anything else continues into a tail sized for the
    // worst case (3 bytes per remaining UTF-16 unit).
    let mut buf = vec![0u8; units];
    let (read, mut len) = encode_into(source, &mut buf);
    if read < units {
        let rest = source.slice(read as u32, units as u32);
        buf.resize(len + (units - read) * 3, 0);
        if let Some(tail) = buf.get_mut(len..) {
            len += encode_into(&rest, tail).1;
        }
    }
    buf.truncate(len);
    String::from_utf8(buf)
        .map_err(|e| ApiError::new("IN001", format!("{what} is not valid UTF-8: {e}"), ""))
}

#[wasm_bindgen(inline_js = r#"
// JSON.stringify that never throws into wasm: an exception caught by
// wasm-bindgen's `catch` glue left one externref table slot behind per call.
// Answers the JSON text, "\u0002" when the value has no JSON form, or
// "\u0001" and what went wrong (JSON text never starts with a control character).
export function jsonTextOf(value) {
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? text : '\u0002';
  } catch (e) {
    let why;
    try {
      why = e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
    } catch (_) {
      why = 'an exception that cannot be described';
    }
    return '\u0001' + why;
  }
}
// What every entry point throws; the package exports the class.
export class HopPolicyError extends Error {
  constructor(code, message, path) {
    super(message);
    this.name = 'HopPolicyError';
    this.code = code;
    this.path = path === undefined ? '' : path;
  }
}
export function makeError(code, message, path) {
  return new HopPolicyError(code, message, path);
}
// The type of an argument, for messages.
export function typeNameOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : t === 'undefined' ? 'undefined' : `a ${t}`;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = jsonTextOf)]
    fn json_text_of(value: &JsValue) -> js_sys::JsString;
    #[wasm_bindgen(js_name = typeNameOf)]
    fn type_name_of(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, path: &str) -> JsValue;
}

/// A JS value as JSON text, via the engine's `JSON.stringify`.
fn stringify(value: &JsValue, what: &str) -> Result<String, ApiError> {
    if value.is_undefined() {
        return Err(ApiError::new(
            "IN001",
            format!("{what} is missing (undefined)"),
            "",
        ));
    }
    let text = read_string(&json_text_of(value), what)?;
    match text.strip_prefix('\u{1}') {
        Some(why) => Err(ApiError::new(
            "IN001",
            format!("{what} cannot be converted to JSON: {why}"),
            "",
        )),
        None if text == "\u{2}" => Err(ApiError::new(
            "IN001",
            format!("{what} has no JSON form (a function or symbol?)"),
            "",
        )),
        None => Ok(text),
    }
}

/// A string argument (`what` names it); any other type is `BAD_ARGUMENT`.
fn required_text(value: &JsValue, what: &str) -> Result<String, ApiError> {
    if value.dyn_ref::<js_sys::JsString>().is_none() {
        return Err(ApiError::new(
            "BAD_ARGUMENT",
            format!("{what} must be a string, not {}", type_name_of(value)),
            "",
        ));
    }
    read_string(value, what)
}

/// An optional string argument: `undefined` and `null` mean "not given".
fn optional_text(value: Option<JsValue>, what: &str) -> Result<Option<String>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if v.is_undefined() || v.is_null() => Ok(None),
        Some(v) => required_text(&v, what).map(Some),
    }
}

/// Optional JS argument as JSON text: `undefined` and `null` mean "not given".
fn stringify_optional(value: Option<JsValue>, what: &str) -> Result<Option<String>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if v.is_undefined() || v.is_null() => Ok(None),
        Some(v) => stringify(&v, what).map(Some),
    }
}

/// JSON text produced by the core, as a plain JS value.
fn parse(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text).map_err(|e| {
        throw(ApiError::new(
            "INTERNAL",
            format!("cannot decode the result: {}", describe(&e)),
            "",
        ))
    })
}

/// Plans one tunnel: exactly what the server deploys, locally and through
/// federation. A server rejection is returned in `plan.error`; only an input
/// that cannot be turned into JSON throws.
#[wasm_bindgen(js_name = planTunnel, unchecked_return_type = "Plan")]
pub fn plan_tunnel(
    #[wasm_bindgen(unchecked_param_type = "PlanInput")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "PlanOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = stringify_optional(options, "the plan options").map_err(throw)?;
    let text = stringify(&input, "the tunnel input").map_err(throw)?;
    parse(&text::plan(&text, options.as_deref()).map_err(throw)?)
}

/// [`plan_tunnel`] over JSON text: the same plan, as JSON text.
#[wasm_bindgen(js_name = planTunnelJson)]
pub fn plan_tunnel_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let options = optional_text(options_json, "optionsJson").map_err(throw)?;
    let text = read_string(text, "the tunnel input").map_err(throw)?;
    text::plan(&text, options.as_deref()).map_err(throw)
}

/// Checks a tunnel input, a plan, one node's GOST config or a command list.
/// Never throws on the document: an unreadable one is an `IN001` finding.
/// Throws only when `options` has the wrong shape.
#[wasm_bindgen(js_name = checkDocument, unchecked_return_type = "CheckReport")]
pub fn check_document(
    #[wasm_bindgen(unchecked_param_type = "CheckDocument")] doc: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "CheckOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options = stringify_optional(options, "the check options").map_err(throw)?;
    let out = match stringify(&doc, "the document") {
        Ok(doc) => text::check(&doc, options.as_deref()),
        Err(e) => text::check_options(options.as_deref())
            .map(|o| encode::to_string(&text::unreadable_report(&e.message, &o))),
    }
    .map_err(throw)?;
    parse(&out)
}

/// [`check_document`] over JSON text (`optionsJson` is JSON text too).
#[wasm_bindgen(js_name = checkDocumentJson)]
pub fn check_document_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let options = optional_text(options_json, "optionsJson").map_err(throw)?;
    match read_string(text, "the document") {
        Ok(text) => text::check(&text, options.as_deref()),
        // Like any unreadable document: one IN001 finding, not a throw.
        Err(e) => text::check_options(options.as_deref())
            .map(|o| encode::to_string(&text::unreadable_report(&e.message, &o))),
    }
    .map_err(throw)
}

/// The checker's report for a document that could not be read at all (for
/// example a file that could not be opened): one `IN001` finding with `reason`.
#[wasm_bindgen(js_name = checkUnreadableJson)]
pub fn check_unreadable_json(
    #[wasm_bindgen(unchecked_param_type = "string")] reason: JsValue,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let reason = required_text(&reason, "reason").map_err(throw)?;
    let options = optional_text(options_json, "optionsJson").map_err(throw)?;
    let options = text::check_options(options.as_deref()).map_err(throw)?;
    Ok(encode::to_string(&text::unreadable_report(
        &reason, &options,
    )))
}

mod check_extras {
    use super::*;

    /// `checkTunnel`: plans a tunnel input and checks the plan in one call
    /// (the panel's pre-submit check): `{plan, findings}`.
    #[wasm_bindgen(js_name = checkTunnel, unchecked_return_type = "TunnelCheck")]
    pub fn check_tunnel(
        #[wasm_bindgen(unchecked_param_type = "PlanInput")] input: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PlanOptions")] options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let options = stringify_optional(options, "the plan options").map_err(throw)?;
        let text = stringify(&input, "the tunnel input").map_err(throw)?;
        parse(&text::check_tunnel(&text, options.as_deref()).map_err(throw)?)
    }

    /// `checkTunnel` over JSON text.
    #[wasm_bindgen(js_name = checkTunnelJson)]
    pub fn check_tunnel_json(
        text: &js_sys::JsString,
        #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
        options_json: Option<JsValue>,
    ) -> Result<String, JsValue> {
        let options = optional_text(options_json, "optionsJson").map_err(throw)?;
        let text = read_string(text, "the tunnel input").map_err(throw)?;
        text::check_tunnel(&text, options.as_deref()).map_err(throw)
    }

    /// Every rule the checker knows: code, name, severity and descriptions.
    #[wasm_bindgen(unchecked_return_type = "RuleInfo[]")]
    pub fn rules() -> Result<JsValue, JsValue> {
        parse(&encode::to_string(&check::rules()))
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
        options_json: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] uri: Option<JsValue>,
        #[wasm_bindgen(js_name = readError, unchecked_optional_param_type = "string")]
        read_error: Option<JsValue>,
    ) -> Result<String, JsValue> {
        let format = required_text(&format, "format").map_err(throw)?;
        let uri = optional_text(uri, "uri").map_err(throw)?;
        let read_error = optional_text(read_error, "readError").map_err(throw)?;
        let options = optional_text(options_json, "optionsJson").map_err(throw)?;
        let options = text::check_options(options.as_deref()).map_err(throw)?;
        let report = match read_error {
            Some(reason) => text::unreadable_report(&reason, &options),
            None => match read_string(text, "the document") {
                Ok(text) => check::check_text(&text, &options),
                Err(e) => text::unreadable_report(&e.message, &options),
            },
        };
        match format.as_str() {
            "text" => Ok(check::report_text(&report)),
            "sarif" => Ok(encode::to_string(&check::report_sarif(
                &report,
                uri.as_deref().unwrap_or("document.json"),
            ))),
            "json" => Ok(encode::to_string(&report)),
            other => Err(throw(ApiError::new(
                "BAD_OPTIONS",
                format!("unknown report format {other:?}: use text, json or sarif"),
                "",
            ))),
        }
    }
}

mod sim_extras {
    use super::*;

    /// Simulates and renders the trace as a readable report.
    #[wasm_bindgen(js_name = simulateText)]
    pub fn simulate_text(
        text: &js_sys::JsString,
        #[wasm_bindgen(js_name = scenarioJson, unchecked_optional_param_type = "string")]
        scenario_json: Option<JsValue>,
    ) -> Result<String, JsValue> {
        let scenario = optional_text(scenario_json, "scenarioJson").map_err(throw)?;
        let scenario = text::scenario(scenario.as_deref()).map_err(throw)?;
        let text = read_string(text, "the document").map_err(throw)?;
        let value = text::parse_within_limits(&text, "the document").map_err(throw)?;
        let trace = simulate::simulate(&value, &scenario).map_err(throw)?;
        Ok(simulate::trace_text(&trace))
    }
}

/// Replays requests through a plan (or one node's config, or a tunnel input,
/// planned first) with some nodes dead, the way GOST fails over.
#[wasm_bindgen(js_name = simulate, unchecked_return_type = "Trace")]
pub fn simulate_js(
    #[wasm_bindgen(unchecked_param_type = "SimulateDocument")] doc: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Scenario")] scenario: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let doc = stringify(&doc, "the document").map_err(throw)?;
    let scenario = stringify_optional(scenario, "the scenario").map_err(throw)?;
    parse(&text::simulate(&doc, scenario.as_deref()).map_err(throw)?)
}

/// [`simulate_js`] over JSON text.
#[wasm_bindgen(js_name = simulateJson)]
pub fn simulate_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = scenarioJson, unchecked_optional_param_type = "string")] scenario_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let scenario = optional_text(scenario_json, "scenarioJson").map_err(throw)?;
    let text = read_string(text, "the document").map_err(throw)?;
    text::simulate(&text, scenario.as_deref()).map_err(throw)
}

/// Replays applies, releases and failures and reports what they leave behind.
#[wasm_bindgen(js_name = lifecycle, unchecked_return_type = "LifecycleReport")]
pub fn lifecycle_js(
    #[wasm_bindgen(unchecked_param_type = "LifecycleStep[]")] steps: JsValue,
) -> Result<JsValue, JsValue> {
    let steps = stringify(&steps, "the step list").map_err(throw)?;
    parse(&text::lifecycle(&steps).map_err(throw)?)
}

/// [`lifecycle_js`] over JSON text.
#[wasm_bindgen(js_name = lifecycleJson)]
pub fn lifecycle_json(text: &js_sys::JsString) -> Result<String, JsValue> {
    let text = read_string(text, "the step list").map_err(throw)?;
    text::lifecycle(&text).map_err(throw)
}

/// Every tunnel of a panel backup export (`{version, exportedAt, nodes,
/// tunnels}`) as `[{id, name, type, input, assumed}]`, `input` a redeploy
/// input for `planTunnel(input, {mode: 'redeploy'})`. Node secrets are
/// dropped and share tokens become the presence marker.
#[wasm_bindgen(js_name = backupTunnelsJson)]
pub fn backup_tunnels_json(text: &js_sys::JsString) -> Result<String, JsValue> {
    let text = read_string(text, "the backup").map_err(throw)?;
    text::backup_tunnels(&text).map_err(throw)
}

/// The package version (the crate's version).
#[wasm_bindgen]
pub fn version() -> String {
    VERSION.to_string()
}

// ---------------------------------------------------------------------------
// TypeScript types.
// ---------------------------------------------------------------------------

/// Mirror types that exist to generate the TypeScript declarations of the
/// package. They describe the JSON the core reads and writes; the native tests
/// below deserialize real core output into them with unknown fields denied and
/// compare the round trip, so a field added to or dropped from the core makes
/// a test fail here.
// Mirror types for the TypeScript declarations, never built on a hot path.
#[allow(clippy::large_enum_variant)]
pub mod types {
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;
    use tsify_next::Tsify;

    /// Reads a field that is present (even as `null`) as `Some`, so a round
    /// trip keeps explicit nulls; an absent field stays `None` via `default`.
    fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        T::deserialize(d).map(Some)
    }

    /// Any JSON value.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum JsonValue {
        Null(()),
        Bool(bool),
        Number(#[tsify(type = "number")] serde_json::Number),
        String(String),
        Array(Vec<JsonValue>),
        Object(#[tsify(type = "{ [key: string]: JsonValue }")] BTreeMap<String, JsonValue>),
    }

    /// A share token, or the presence marker `true` (`false` or `null`: none).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum Token {
        Marker(bool),
        Value(Loose),
    }

    /// A loosely typed panel value: the server coerces numbers given as
    /// strings and trims strings; null means empty.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum Loose {
        Number(#[tsify(type = "number")] serde_json::Number),
        String(String),
        Null(()),
    }

    // ----- input -----

    /// One node of a tunnel as the panel's tunnel payload lists it.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TunnelNodeRef {
        pub node_id: Loose,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        #[tsify(type = "Protocol | null")]
        pub protocol: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        #[tsify(type = "Strategy | null")]
        pub strategy: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub port: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub connect_ip: Option<Loose>,
    }

    /// The panel's tunnel mutation payload.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TunnelPayload {
        /// The tunnel id; a create may leave it out (the server assigns one,
        /// the preview assumes 1 and says so in `plan.assumed`).
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub id: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub name: Option<Loose>,
        /// 1 = port forward, 2 = tunnel forward.
        #[tsify(optional, type = "TunnelType | null")]
        #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<Loose>,
        /// `""`, `"v4"` or `"v6"`.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub ip_preference: Option<Loose>,
        /// Entries.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub in_node_id: Option<Vec<TunnelNodeRef>>,
        /// Middle hops, each a list of nodes.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub chain_nodes: Option<Vec<Vec<TunnelNodeRef>>>,
        /// Exits.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub out_node_id: Option<Vec<TunnelNodeRef>>,
        /// The tunnel's probe target; validated when either field is present.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub probe_target_host: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub probe_target_port: Option<Loose>,
    }

    /// A row of the panel's node list API. Unknown keys are ignored by the planner.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct NodeRow {
        pub id: Loose,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub name: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub server_ip: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub server_ip_v4: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub server_ip_v6: Option<Loose>,
        /// Port range spec such as `"40000-40100,50000"`.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub port: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub tcp_listen_addr: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub udp_listen_addr: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub interface_name: Option<Loose>,
        /// 1 = online.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub status: Option<Loose>,
        /// 1 = shared by another panel (federated).
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub is_remote: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub remote_url: Option<Loose>,
        /// The share token, or `true`: a token is configured but the browser
        /// does not see it. Only its presence counts; never copied into any output.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub remote_token: Option<Token>,
        /// JSON text; `portRangeStart`/`portRangeEnd` bound a share's ports.
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub remote_config: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub inx: Option<Loose>,
    }

    /// What a provider panel allocates for one remote node (preview input).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct FederationAllocation {
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub runtime_id: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub allocated_port: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub tcp_listen_addr: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub interface_name: Option<Loose>,
        /// The share's port range (default: the row's `remoteConfig`).
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub port_range_start: Option<Loose>,
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub port_range_end: Option<Loose>,
    }

    /// The input of a create (`{tunnel, nodes, federation?}`) or an edit
    /// (the same plus `before`, the payload the tunnel was created with).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TunnelInput {
        pub tunnel: TunnelPayload,
        /// Edit only: the tunnel as it was (default: `tunnel`).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub before: Option<TunnelPayload>,
        pub nodes: Vec<NodeRow>,
        /// Keyed by node id.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub federation: Option<BTreeMap<String, FederationAllocation>>,
    }

    /// A row of a table as the panel's database stores it: column names of
    /// model.go, SQL NULL as `null`. Columns the server does not read are allowed.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(transparent)]
    pub struct DbRow(
        #[tsify(type = "{ [column: string]: JsonValue }")] pub BTreeMap<String, JsonValue>,
    );

    /// The tables a redeploy reads (`db.tunnel` may also be a list of rows).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct StoredTables {
        /// `{id, name, type, ip_preference, ...}` (`null`: no such tunnel).
        #[tsify(type = "DbRow | DbRow[] | null")]
        pub tunnel: JsonValue,
        /// `{id, tunnel_id, chain_type, node_id, port, strategy, inx, protocol, connect_ip}`.
        pub chain_tunnel: Vec<DbRow>,
        /// `{id, name, server_ip, server_ip_v4, server_ip_v6, port, tcp_listen_addr, interface_name, status, is_remote, remote_url, remote_token, remote_config, ...}`.
        pub node: Vec<DbRow>,
        /// `{tunnel_id, node_id, chain_type, hop_inx, remote_url, resource_key, remote_binding_id, allocated_port, status}`.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub federation_tunnel_binding: Option<Vec<DbRow>>,
    }

    /// The input of a redeploy: the tunnel as the database stores it.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct RedeployInput {
        pub db: StoredTables,
        /// Default: `db.tunnel.id`.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tunnel_id: Option<Loose>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub federation: Option<BTreeMap<String, FederationAllocation>>,
    }

    /// What `planTunnel` and `checkTunnel` take.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum PlanInput {
        Tunnel(TunnelInput),
        Redeploy(RedeployInput),
    }

    /// The request path a plan follows.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum PlanMode {
        /// `tunnelCreate` (the default for an input without `before` or `db`).
        Create,
        /// `tunnelUpdate`: the input carries `before`.
        Update,
        /// `redeployTunnelAndForwards`: the input is `{db, tunnelId?}`.
        Redeploy,
    }

    /// Options of `planTunnel` and `checkTunnel`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct PlanOptions {
        /// Default: `update` when the input has `before`, `redeploy` when it
        /// has `db`, else `create`.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<PlanMode>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limits: Option<Limits>,
    }

    // ----- plan -----

    /// A server rejection: `message` is the server's exact text.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct PlanError {
        #[tsify(type = "PlanErrorCode")]
        pub code: String,
        pub message: String,
        pub message_en: String,
        /// JSON Pointer into the input where the server's check looked.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub path: Option<String>,
    }

    /// A value the preview assumed, where the input can give it, and why.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Assumption {
        /// `null` for the tunnel itself.
        pub node_id: Option<i64>,
        /// JSON Pointer into the input: `/tunnel/id`, `/federation/2/allocatedPort`, ...
        pub path: String,
        pub value: MetaValue,
        pub reason: String,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Reserve {
        pub resource_key: String,
        pub protocol: String,
        pub requested_port: i64,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Target {
        pub host: String,
        pub port: i64,
        pub protocol: String,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Apply {
        pub resource_key: String,
        pub role: Role,
        pub protocol: String,
        pub strategy: String,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub targets: Option<Vec<Target>>,
    }

    /// The role of a federated node.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum Role {
        Exit,
        Middle,
    }

    /// The role of any tunnel node.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum NodeRole {
        Entry,
        Middle,
        Exit,
    }

    /// One federated node: what this panel asks its provider, and what the
    /// provider sends to its agent.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct FederationStep {
        pub node_id: i64,
        pub role: Role,
        pub resource_key: String,
        pub reserve: Reserve,
        pub apply: Apply,
        pub commands: Vec<Command>,
    }

    /// A metadata value in a GOST config.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum MetaValue {
        Bool(bool),
        Int(i64),
        Str(String),
    }

    /// A connector, dialer or listener.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Plugin {
        #[serde(rename = "type")]
        pub kind: String,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub metadata: Option<BTreeMap<String, MetaValue>>,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Selector {
        pub strategy: String,
        pub max_fails: i64,
        /// Nanoseconds.
        pub fail_timeout: i64,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct ChainNode {
        pub name: String,
        pub addr: String,
        pub connector: Plugin,
        pub dialer: Plugin,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Hop {
        pub name: String,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub interface: Option<String>,
        pub selector: Selector,
        pub nodes: Vec<ChainNode>,
    }

    /// A GOST chain.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Chain {
        pub name: String,
        pub hops: Vec<Hop>,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Handler {
        #[serde(rename = "type")]
        pub kind: String,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub chain: Option<String>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retries: Option<i64>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub metadata: Option<BTreeMap<String, MetaValue>>,
    }

    /// A GOST service.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Service {
        pub name: String,
        pub addr: String,
        pub handler: Handler,
        pub listener: Plugin,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub metadata: Option<BTreeMap<String, MetaValue>>,
    }

    /// `data` of `UpdateChains`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct UpdateChainData {
        pub chain: String,
        pub data: Chain,
    }

    /// `data` of `DeleteService`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct DeleteServicesData {
        pub services: Vec<String>,
    }

    /// `data` of `DeleteChains`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct DeleteChainData {
        pub chain: String,
    }

    /// The payload of one command, by command.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum CommandData {
        Chain(Chain),
        Services(Vec<Service>),
        UpdateChain(UpdateChainData),
        DeleteServices(DeleteServicesData),
        DeleteChain(DeleteChainData),
    }

    /// The command names the agent knows.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub enum CommandName {
        AddChains,
        AddService,
        UpdateChains,
        UpdateService,
        DeleteService,
        DeleteChains,
    }

    /// One command to one agent.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Command {
        pub node_id: i64,
        pub command: CommandName,
        pub data: CommandData,
    }

    /// One node of the tunnel as the plan sees it (never carries credentials).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct PlanNode {
        pub node_id: i64,
        pub name: String,
        pub role: NodeRole,
        /// 1-based hop number for middles, 0 otherwise.
        pub hop: i64,
        /// Shared by another panel (federated).
        pub remote: bool,
        pub protocol: String,
        pub strategy: String,
        /// The port its service listens on (0 for entries).
        pub port: i64,
        /// Hosts other nodes may dial it by.
        pub addresses: Vec<String>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub runtime_id: Option<i64>,
    }

    /// Everything the server would deploy for one tunnel input.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Plan {
        /// `null` when the server accepts the tunnel.
        pub error: Option<PlanError>,
        /// Remote nodes, in the order the server contacts their providers.
        pub federation: Vec<FederationStep>,
        /// Commands this panel sends to its own nodes, in order.
        pub local: Vec<Command>,
        /// The node table (empty when `error` is set).
        pub nodes: Vec<PlanNode>,
        pub mode: PlanMode,
        /// Values only the server or a provider knows, assumed by the preview.
        pub assumed: Vec<Assumption>,
    }

    /// A plan as a document to check or simulate: the node table is optional
    /// (golden vectors and plans captured elsewhere have none).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct PlanDocument {
        #[tsify(optional)]
        #[serde(
            default,
            deserialize_with = "present",
            skip_serializing_if = "Option::is_none"
        )]
        pub error: Option<JsonValue>,
        pub federation: Vec<FederationStep>,
        pub local: Vec<Command>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub nodes: Option<Vec<PlanNode>>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<PlanMode>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub assumed: Option<Vec<Assumption>>,
    }

    /// One node's GOST config.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct NodeConfig {
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub services: Option<Vec<Service>>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub chains: Option<Vec<Chain>>,
    }

    /// What the checker accepts (it may also be any other JSON value, which it
    /// reports as unreadable).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum CheckDocument {
        Tunnel(TunnelInput),
        Plan(Plan),
        PlanDocument(PlanDocument),
        Config(NodeConfig),
        Commands(Vec<Command>),
        Other(JsonValue),
    }

    /// What the simulator accepts.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum SimulateDocument {
        Tunnel(TunnelInput),
        Plan(Plan),
        PlanDocument(PlanDocument),
        Config(NodeConfig),
    }

    // ----- findings -----

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum Severity {
        Error,
        Warning,
        Info,
    }

    /// One edit that repairs a finding.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Fix {
        /// Always `"set"` today.
        pub op: String,
        /// JSON Pointer into the checked document.
        pub path: String,
        pub value: JsonValue,
    }

    /// One problem found in a document.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Finding {
        /// Stable code such as `FO001`.
        #[tsify(type = "FindingCode")]
        pub code: String,
        /// Rule name such as `missing-retries`.
        pub rule: String,
        pub severity: Severity,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub node_id: Option<i64>,
        /// JSON Pointer into the checked document.
        pub path: String,
        pub message: String,
        pub message_zh: String,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fix: Option<Fix>,
    }

    /// Options of `checkDocument`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct CheckOptions {
        /// Forces the document kind instead of detecting it.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<DocumentKind>,
        /// The request path a tunnel input is planned along.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<PlanMode>,
        /// Size limits for the document; omitted fields keep their defaults.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limits: Option<Limits>,
    }

    /// Input size limits (see the README for the defaults).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct Limits {
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_input_bytes: Option<u32>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_nodes: Option<u32>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_hops: Option<u32>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_nodes_per_hop: Option<u32>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_string_len: Option<u32>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_depth: Option<u32>,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum DocumentKind {
        Tunnel,
        Plan,
        Config,
        Commands,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Summary {
        /// The detected (or forced) document kind: `tunnel`, `plan`, `config`,
        /// `commands`, or `unknown` when unreadable.
        pub kind: String,
        /// What finding paths point into: `document`, or `plan` for a tunnel
        /// input (which is planned first).
        pub paths_into: String,
        pub errors: i64,
        pub warnings: i64,
        pub infos: i64,
        pub total: i64,
        /// Number of findings per code.
        pub by_code: BTreeMap<String, i64>,
    }

    /// One rule of the checker (`rules()`).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct RuleInfo {
        pub code: String,
        pub rule: String,
        pub severity: Severity,
        pub description: String,
        pub description_zh: String,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct CheckReport {
        pub findings: Vec<Finding>,
        pub summary: Summary,
    }

    /// `checkTunnel`: the plan and the findings of checking it.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TunnelCheck {
        pub plan: Plan,
        pub findings: Vec<Finding>,
    }

    // ----- simulation and lifecycle -----

    /// A dead node: a node id (number or numeric string), a node name or `"host:port"`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum NodeSelector {
        Id(#[tsify(type = "number")] serde_json::Number),
        Text(String),
    }

    /// The failover scenario: every field is optional.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct Scenario {
        /// Dead nodes.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub dead: Option<Vec<NodeSelector>>,
        /// Number of requests (default 3).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub requests: Option<u32>,
        /// Time of the first request in milliseconds (default 0).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub start_ms: Option<i64>,
        /// Time between requests in milliseconds (default 1000).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub gap_ms: Option<i64>,
        /// Seed for `rand` and `hash` (default 1).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub seed: Option<u64>,
        /// Entry node (default: the first entry).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub entry: Option<NodeSelector>,
        /// Retries of the entry's forward service (default 0, as flvx deploys it).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub entry_retries: Option<i64>,
        /// Client address the entry sees (the `hash` strategy's source there).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub client_ip: Option<String>,
        /// Requested destination (`hash: host` source).
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub destination: Option<String>,
    }

    /// One candidate of a hop when a route was built.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Candidate {
        pub node: String,
        pub addr: String,
        pub to_node_id: Option<i64>,
        /// Still selectable after the filters.
        pub kept: bool,
        pub reason: String,
    }

    /// One dial: `fromNodeId` dials `toNodeId` at `addr`.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Attempt {
        /// Order of the dial within the request (0-based).
        pub seq: i64,
        /// 0 for the entry's dials, 1 for the next node's, ...
        pub depth: i64,
        pub from_node_id: Option<i64>,
        pub to_node_id: Option<i64>,
        pub addr: String,
        /// Chain node name (`node_2`).
        pub node: String,
        pub chain: String,
        pub hop: String,
        /// Which try of the dialing router (0-based) and how many it may make.
        pub round: i64,
        pub rounds: i64,
        /// The dialing router counted this try as a success.
        pub ok: bool,
        /// The dialed node accepted the connection.
        pub alive: bool,
        /// The request went through this dial to the destination.
        pub carried: bool,
        /// The dialed node was marked failed by this dial.
        pub marked: bool,
        /// Its failure count after this dial.
        pub failures: i64,
        /// How the node was chosen.
        pub selection: String,
        pub candidates: Vec<Candidate>,
        pub reason: String,
    }

    /// One request from the entry to the destination.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct RequestTrace {
        /// 1-based.
        pub index: i64,
        pub time_ms: i64,
        pub ok: bool,
        /// The exit that carried the request to the destination, or null.
        pub exit_node_id: Option<i64>,
        /// Address of the last hop when it is outside the document.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub exit_addr: Option<String>,
        /// A node dialed the destination itself because its hop had no candidate left.
        pub direct: bool,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub direct_from_node_id: Option<i64>,
        pub attempts: Vec<Attempt>,
        pub outcome: String,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct TraceSummary {
        pub requests: i64,
        pub ok: i64,
        pub failed: i64,
        pub direct: i64,
        pub attempts: i64,
        pub failed_attempts: i64,
    }

    /// The whole simulation.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Trace {
        pub entry_node_id: Option<i64>,
        pub requests: Vec<RequestTrace>,
        pub summary: TraceSummary,
        /// Assumptions and document problems worth knowing when reading the trace.
        pub notes: Vec<String>,
        /// The attempt budget ran out; later dials are missing.
        pub truncated: bool,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub enum LifecycleOp {
        #[serde(rename = "apply")]
        Apply,
        #[serde(rename = "edit")]
        Edit,
        #[serde(rename = "applyError")]
        ApplyError,
        #[serde(rename = "release")]
        Release,
        #[serde(rename = "delete")]
        Delete,
    }

    /// A local command picked by index into the plan's `local`, or by node
    /// (and command name).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(untagged)]
    pub enum CommandSelector {
        Index(i64),
        Node {
            #[serde(rename = "nodeId")]
            node_id: i64,
            #[tsify(optional)]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            command: Option<CommandName>,
        },
    }

    /// One lifecycle step (see the lifecycle module docs for the semantics).
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct LifecycleStep {
        pub op: LifecycleOp,
        /// The plan applied (`apply`, `edit`, `applyError`)...
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub plan: Option<PlanDocument>,
        /// ...or the tunnel input, planned first.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input: Option<TunnelInput>,
        /// Remote nodes whose provider panel cannot be reached during this step.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub unreachable: Option<Vec<i64>>,
        /// Providers that miss only this step's releases.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub release_unreachable: Option<Vec<i64>>,
        /// Local commands that time out at the panel but still take effect.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeouts: Option<Vec<CommandSelector>>,
        /// `applyError`: the local command that fails.
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fail_at: Option<CommandSelector>,
        #[tsify(optional)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tunnel_id: Option<i64>,
    }

    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct LifecycleReport {
        /// Every command and decision, in order.
        pub log: Vec<JsonValue>,
        /// What each node runs at the end, provider runtimes and tunnel bindings.
        pub state: JsonValue,
        pub findings: Vec<Finding>,
    }

    /// What every function throws when it cannot produce its result: a JS
    /// `Error` named `HopPolicyError` with these extra properties.
    #[derive(Tsify, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct HopPolicyErrorFields {
        /// Stable identifier: `IN001` (unreadable input), `BAD_OPTIONS`,
        /// `BAD_SCENARIO`, or a code from the core.
        pub code: String,
        pub message: String,
        /// JSON Pointer into the input (`""` = the whole input).
        pub path: String,
    }
}

#[cfg(test)]
mod tests {
    use super::types;
    use super::*;
    use serde::de::DeserializeOwned;

    fn read_vectors(text: &str) -> Vec<Value> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("golden vector line is JSON"))
            .collect()
    }

    /// The create vectors.
    fn vectors() -> Vec<Value> {
        read_vectors(include_str!("../tests/data/plan-vectors.jsonl"))
    }

    /// Every vector: create, update, redeploy.
    fn all_vectors() -> Vec<Value> {
        let mut all = vectors();
        all.extend(read_vectors(include_str!(
            "../tests/data/update-vectors.jsonl"
        )));
        all.extend(read_vectors(include_str!(
            "../tests/data/redeploy-vectors.jsonl"
        )));
        all
    }

    fn options_of(v: &Value) -> String {
        format!(
            "{{\"mode\": \"{}\"}}",
            v["mode"].as_str().unwrap_or("create")
        )
    }

    /// `value` must be read by the mirror type `T` with no unknown field and
    /// written back unchanged.
    fn round_trips<T: DeserializeOwned + serde::Serialize>(value: &Value, what: &str) {
        let typed: T = serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("{what}: mirror type rejects it: {e}\n{value}"));
        let back = serde_json::to_value(&typed).expect("serializes");
        assert_eq!(&back, value, "{what}: mirror type changes it");
    }

    #[test]
    fn mirror_types_cover_every_golden_input() {
        let vs = all_vectors();
        assert_eq!(vs.len(), 1113);
        for v in &vs {
            let name = v["name"].as_str().unwrap_or("?");
            if v["mode"] == "redeploy" {
                round_trips::<types::RedeployInput>(&v["input"], name);
            } else {
                round_trips::<types::TunnelInput>(&v["input"], name);
            }
            round_trips::<types::PlanInput>(&v["input"], name);
        }
    }

    #[test]
    fn mirror_plan_type_covers_every_golden_plan() {
        let mut checked = 0;
        for v in vectors() {
            let mut expected = v["expected"].clone();
            if !expected["error"].is_null() {
                continue; // golden errors are bare strings; planner errors are objects
            }
            round_trips::<types::PlanDocument>(&expected, "golden plan document");
            expected["nodes"] = Value::Array(vec![]);
            expected["mode"] = Value::from("create");
            expected["assumed"] = Value::Array(vec![]);
            round_trips::<types::Plan>(&expected, "golden plan");
            checked += 1;
        }
        assert!(checked > 100, "only {checked} accepted vectors");
    }

    #[test]
    fn mirror_plan_type_covers_planner_output() {
        for v in all_vectors() {
            let out: Value = serde_json::from_str(
                &text::plan(&v["input"].to_string(), Some(&options_of(&v))).expect("plans"),
            )
            .expect("plan is JSON");
            round_trips::<types::Plan>(&out, "planner output");
        }
    }

    #[test]
    fn mirror_report_type_covers_checker_output() {
        let seed = vectors()
            .into_iter()
            .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
            .expect("seed vector");
        for doc in [
            seed["input"].to_string(),
            seed["expected"].to_string(),
            "{\"services\":[]}".into(),
            "[1,2".into(),
            "42".into(),
        ] {
            let out: Value = serde_json::from_str(&text::check(&doc, None).expect("checks"))
                .expect("report is JSON");
            round_trips::<types::CheckReport>(&out, "check report");
        }
    }

    #[test]
    fn mirror_types_cover_tunnel_check_rules_trace_and_lifecycle() {
        let seed = vectors()
            .into_iter()
            .find(|v| v["name"] == "seed-federated-middle-fifo-3-exits")
            .expect("seed vector");
        let tc: Value = serde_json::from_str(
            &text::check_tunnel(&seed["input"].to_string(), None).expect("checks"),
        )
        .expect("JSON");
        round_trips::<types::TunnelCheck>(&tc, "checkTunnel");
        let rules = serde_json::to_value(check::rules()).expect("JSON");
        assert!(rules.as_array().map(|r| r.len() > 10).unwrap_or(false));
        round_trips::<Vec<types::RuleInfo>>(&rules, "rules");
        for scenario in [
            "{\"dead\": [3], \"requests\": 3}",
            "{\"dead\": [3, 4, 5], \"requests\": 4}",
            "{\"dead\": [\"203.0.113.4:45002\"], \"seed\": 9}",
        ] {
            let trace: Value = serde_json::from_str(
                &text::simulate(&seed["expected"].to_string(), Some(scenario)).expect("simulates"),
            )
            .expect("JSON");
            round_trips::<types::Trace>(&trace, "trace");
            let _: types::Scenario = serde_json::from_str(scenario).expect("scenario mirror");
        }
        let steps = serde_json::json!([
            {"op": "apply", "input": seed["input"]},
            {"op": "release", "unreachable": [2]},
            {"op": "apply", "input": seed["input"]}
        ]);
        let _: Vec<types::LifecycleStep> =
            serde_json::from_value(steps.clone()).expect("step mirror");
        let report: Value =
            serde_json::from_str(&text::lifecycle(&steps.to_string()).expect("replays"))
                .expect("JSON");
        round_trips::<types::LifecycleReport>(&report, "lifecycle report");
    }

    #[test]
    fn text_plan_rejects_non_json_with_in001() {
        let e = text::plan("{\"tunnel\": ", None).unwrap_err();
        assert_eq!(e.code, "IN001");
        assert!(e.message.contains("not valid JSON"), "{}", e.message);
    }

    #[test]
    fn text_plan_equals_core_plan() {
        for v in vectors().iter().take(50) {
            let via_text: Value =
                serde_json::from_str(&text::plan(&v["input"].to_string(), None).expect("plans"))
                    .expect("JSON");
            let direct = serde_json::to_value(planner::plan(&v["input"])).expect("JSON");
            assert_eq!(via_text, direct);
        }
    }

    #[test]
    fn unreadable_document_is_one_in001_finding() {
        let report: Value = serde_json::from_str(
            &text::check("not json", None).expect("never fails on the document"),
        )
        .expect("JSON");
        let findings = report["findings"].as_array().expect("findings");
        assert_eq!(findings.len(), 1, "{report}");
        assert_eq!(findings[0]["code"], "IN001");
        assert!(
            findings[0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("not JSON"),
            "{report}"
        );
        assert_eq!(report["summary"]["errors"], 1);
    }

    #[test]
    fn malformed_options_are_reported_not_ignored() {
        assert_eq!(
            text::check("{}", Some("{\"kind\": 3}")).unwrap_err().code,
            "BAD_OPTIONS"
        );
        assert_eq!(
            text::check("{}", Some("{")).unwrap_err().code,
            "BAD_OPTIONS"
        );
        assert!(text::check("{}", Some("null")).is_ok());
        assert!(text::check("{}", Some("{\"kind\": \"plan\"}")).is_ok());
        assert_eq!(
            text::simulate("{}", Some("{\"requests\": -1}"))
                .unwrap_err()
                .code,
            "BAD_SCENARIO"
        );
    }

    /// A wrong option names the field, by message and by JSON Pointer.
    #[test]
    fn a_wrong_option_points_at_its_field() {
        let e = text::check("{}", Some(r#"{"limits": {"maxDepth": "5"}}"#)).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("BAD_OPTIONS", "/limits/maxDepth")
        );
        assert!(
            e.message.starts_with(
                "the check options have the wrong shape: `/limits/maxDepth` must be a whole number"
            ),
            "{}",
            e.message
        );
        let e = text::simulate("{}", Some(r#"{"requests": 2, "clientIp": 3}"#)).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("BAD_SCENARIO", "/clientIp")
        );
        assert!(
            e.message
                .ends_with("`/clientIp` must be a string, but it is a number (3)"),
            "{}",
            e.message
        );
        // Unknown keys are ignored and null keeps a default, as before.
        assert!(text::check("{}", Some(r#"{"limits": null, "other": 1}"#)).is_ok());
    }

    #[test]
    fn remote_token_never_reaches_a_plan() {
        for v in vectors() {
            let mut input = v["input"].clone();
            if let Some(nodes) = input["nodes"].as_array_mut() {
                for n in nodes {
                    n["remoteToken"] = Value::String("SECRET-TOKEN-3f9a".into());
                }
            }
            let out = text::plan(&input.to_string(), None).expect("plans");
            assert!(!out.contains("SECRET-TOKEN-3f9a"));
        }
    }
}
