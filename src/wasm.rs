//! JavaScript bindings: convert, call the core ([`crate::api`]), convert
//! back. Nothing else.
//!
//! Every entry point has an object form (`planTunnel(input)`: plain JS values)
//! and a text form (`planTunnelJson(text)`: JSON text). The object form goes
//! through the engine's own `JSON.stringify` / `JSON.parse` (one call each way,
//! plain objects, `__proto__` stays data); README lists both forms' times.
//! Nothing traps on bad input: it becomes a thrown `HopPolicyError` with `code`
//! and `path` ([`ApiError`]); the checker reports an unreadable document as an
//! `IN001` finding instead; a JS call on a caller's value (the inline JS)
//! never throws into wasm. Text longer than the byte limit in force is
//! refused before it is copied ([`api::input_bytes`]). TypeScript comes
//! from the types themselves (`crate::encode::shape!`, [`crate::api::input`]).

use crate::api::{self, input_bytes, input_bytes::Reader};
use crate::error::ApiError;
use crate::limits::DEFAULT_MAX_INPUT_BYTES;
use wasm_bindgen::prelude::*;

/// The crate version, which is also the npm package version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Turns an [`ApiError`] into a JS `Error` named `HopPolicyError` with `code`
/// and `path` properties. Out of line: every entry point calls it.
#[cold]
#[inline(never)]
fn throw(e: ApiError) -> JsValue {
    make_error(&e.code, &e.message, &e.path)
}

#[wasm_bindgen(typescript_custom_section)]
const CLOSED_SETS: &str = api::input::CLOSED_SETS_TS;

#[wasm_bindgen(typescript_custom_section)]
const HOP_POLICY_ERROR: &str = api::input::HOP_POLICY_ERROR_TS;
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

/// A string argument read as far as its length allows.
enum Text {
    /// Its text.
    Read(String),
    /// Its length, which alone puts it over the byte limit (UTF-8 takes at
    /// least a byte per UTF-16 unit): it was not copied into wasm memory,
    /// which never shrinks.
    Over(usize),
}

impl Text {
    /// `op` on the text, or what `reader` answers for a text over its limit.
    fn answer(
        self,
        reader: Reader,
        options: Option<&str>,
        op: impl FnOnce(&str) -> Result<String, ApiError>,
    ) -> Result<String, ApiError> {
        match self {
            Text::Read(text) => op(&text),
            Text::Over(bytes) => input_bytes::over_limit(reader, options, bytes),
        }
    }
}

/// A JS string argument as a Rust `String`, or [`Text::Over`] when it has
/// more UTF-16 units than `max` bytes.
///
/// wasm-bindgen copies a `&str` argument one UTF-16 unit at a time in a JS
/// loop, which measured 19% of `checkDocumentJson` on a 4.7 MB config and
/// 6% of `planTunnelJson` on `large` (scripts/bench). The engine's native
/// `TextEncoder.encodeInto` writes the same UTF-8 (lone surrogates become
/// U+FFFD either way) straight into wasm memory.
#[inline(never)]
fn read_string(value: &JsValue, what: &str, max: usize) -> Result<Text, ApiError> {
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
    if units > max {
        return Ok(Text::Over(units));
    }
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
        .map(Text::Read)
        .map_err(|e| ApiError::new("IN001", format!("{what} is not valid UTF-8: {e}"), ""))
}

/// A string argument that is not a document (options, a scenario, a format,
/// a reason): no longer than a document may be by default.
fn read_argument(value: &JsValue, what: &str) -> Result<String, ApiError> {
    match read_string(value, what, DEFAULT_MAX_INPUT_BYTES)? {
        Text::Read(text) => Ok(text),
        Text::Over(units) => Err(ApiError::new(
            "BAD_ARGUMENT",
            format!("{what} is too long: {units} characters > {DEFAULT_MAX_INPUT_BYTES}"),
            "",
        )),
    }
}

#[wasm_bindgen(inline_js = r#"
// Every function here that wasm calls with a caller's value answers instead
// of throwing: an exception unwinding through wasm leaves its state behind
// (externref table slots, its stack pointer), so that later calls fail.

// JSON.stringify: the JSON text; "\u0002" when the value has no JSON form;
// "\u0001" and what went wrong; "\u0003" and the text's length when that is
// over `max` (JSON text never starts with a control character).
export function jsonTextOf(value, max) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return '\u0001' + whatWentWrong(e);
  }
  if (typeof text !== 'string') return '\u0002';
  return text.length > max ? '\u0003' + text.length : text;
}
function whatWentWrong(e) {
  try {
    return e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
  } catch (_) {
    return 'an exception that cannot be described';
  }
}
// Errors made here (not a caller's or the engine's): what a guarded export
// passes on as they are.
const made = new WeakSet();
// What every entry point throws; the package exports the class.
export class HopPolicyError extends Error {
  constructor(code, message, path) {
    super(message);
    this.name = 'HopPolicyError';
    this.code = code;
    this.path = path === undefined ? '' : path;
    made.add(this);
  }
}
export function makeError(code, message, path) {
  return new HopPolicyError(code, message, path);
}
// The type of an argument, for messages.
export function typeNameOf(value) {
  if (value === null) return 'null';
  const t = typeof value;
  if (t !== 'object') return t === 'undefined' ? 'undefined' : `a ${t}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch (_) {
    return 'a revoked Proxy';
  }
}
// Thrown when even a new error cannot be made (no stack left).
const noStack = new HopPolicyError('STACK_EXHAUSTED', 'the call was abandoned: the JavaScript stack is exhausted; the next call starts afresh', '');
// A guard for the exports of one instance: a call that fails with anything
// but a HopPolicyError (a trap, stack exhaustion inside wasm, an exception
// thrown through it) may have left the instance broken, so `reset` makes a
// new one from the same module before the next call, and the failure is a
// HopPolicyError saying so. Near the stack limit any call can fail, so the
// catch block falls back on errors made in advance.
export function guardWith(reset) {
  let broken = false;
  return (f) => {
    const guarded = function (...args) {
      try {
        if (broken) {
          reset();
          broken = false;
        }
        return f.apply(this, args);
      } catch (e) {
        let own = false;
        try {
          own = made.has(e);
        } catch (_) {
          broken = true;
          throw noStack;
        }
        if (own) throw e;
        broken = true;
        try {
          reset();
          broken = false;
        } catch (_) {
          // Tried again before the next call.
        }
        let error = noStack;
        try {
          error = abandoned(e, broken);
        } catch (_) {
          // noStack says what happened.
        }
        throw error;
      }
    };
    Object.defineProperty(guarded, 'name', { value: f.name.replace(/^__guarded_/, '') });
    return guarded;
  };
}
function abandoned(e, broken) {
  const why = whatWentWrong(e);
  const code = e instanceof RangeError && /call stack/i.test(why) ? 'STACK_EXHAUSTED' : 'INTERNAL';
  const after = broken ? 'the module will be reset before the next call' : 'the module was reset';
  const error = new HopPolicyError(code, `the call was abandoned (${why}); ${after}`, '');
  error.cause = e;
  return error;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = jsonTextOf)]
    fn json_text_of(value: &JsValue, max: usize) -> js_sys::JsString;
    #[wasm_bindgen(js_name = typeNameOf)]
    fn type_name_of(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, path: &str) -> JsValue;
}

/// A JS value as JSON text, via the engine's `JSON.stringify`, or
/// [`Text::Over`] when that is longer than `max` bytes.
#[inline(never)]
fn stringify(value: &JsValue, what: &str, max: usize) -> Result<Text, ApiError> {
    if value.is_undefined() {
        return Err(ApiError::new(
            "IN001",
            format!("{what} is missing (undefined)"),
            "",
        ));
    }
    let text = match read_string(&json_text_of(value, max), what, max)? {
        Text::Read(text) => text,
        over => return Ok(over),
    };
    if let Some(why) = text.strip_prefix('\u{1}') {
        return Err(ApiError::new(
            "IN001",
            format!("{what} cannot be converted to JSON: {why}"),
            "",
        ));
    }
    if text == "\u{2}" {
        return Err(ApiError::new(
            "IN001",
            format!("{what} has no JSON form (a function or symbol?)"),
            "",
        ));
    }
    match text.strip_prefix('\u{3}').map(str::parse) {
        Some(Ok(units)) => Ok(Text::Over(units)),
        _ => Ok(Text::Read(text)),
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
    read_argument(value, what)
}

/// An optional argument read by `read` (a string, or a value as JSON text):
/// `undefined` and `null` mean "not given".
fn optional(
    value: Option<JsValue>,
    what: &str,
    read: fn(&JsValue, &str) -> Result<String, ApiError>,
) -> Result<Option<String>, ApiError> {
    match value {
        Some(v) if !v.is_undefined() && !v.is_null() => read(&v, what).map(Some),
        _ => Ok(None),
    }
}

/// An optional string argument.
#[inline(never)]
fn optional_text(value: Option<JsValue>, what: &str) -> Result<Option<String>, ApiError> {
    optional(value, what, required_text)
}

/// An optional JS argument as JSON text (options: no longer than a document
/// may be by default).
#[inline(never)]
fn stringify_optional(value: Option<JsValue>, what: &str) -> Result<Option<String>, ApiError> {
    optional(value, what, |value, what| {
        match stringify(value, what, DEFAULT_MAX_INPUT_BYTES)? {
            Text::Read(text) => Ok(text),
            Text::Over(units) => Err(ApiError::new(
                "BAD_ARGUMENT",
                format!(
                    "{what} are too long as JSON: {units} characters > {DEFAULT_MAX_INPUT_BYTES}"
                ),
                "",
            )),
        }
    })
}

/// JSON text produced by the core, as a plain JS value.
#[inline(never)]
fn parse(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text).map_err(|e| {
        throw(ApiError::new(
            "INTERNAL",
            format!("cannot decode the result: {}", describe(&e)),
            "",
        ))
    })
}

/// An operation of the text layer ([`crate::api`]): the main JSON text and
/// an optional second one (options or scenario).
type TextOp = fn(&str, Option<&str>) -> Result<String, ApiError>;

/// The page's (or Node's) clock, `Date.now()`: the request time of a forward
/// plan whose input gives no `now` (user and grant expiry).
fn date_now() -> i64 {
    js_sys::Date::now() as i64
}

/// Runs once when the module is instantiated: the forward paths' expiry
/// checks take the page's clock when an input gives no `now`.
#[wasm_bindgen(start)]
fn start() {
    crate::forward::set_clock(date_now);
}

/// A text-form entry point: the optional text is read first, then as much
/// of the main text as its limit there allows, then `op` runs.
/// One function for all of them, so that each export is only its own
/// wasm-bindgen glue.
#[inline(never)]
fn text_form(
    text: &js_sys::JsString,
    what: &str,
    extra: Option<JsValue>,
    extra_what: &str,
    reader: Reader,
    op: TextOp,
) -> Result<String, JsValue> {
    let extra = optional_text(extra, extra_what).map_err(throw)?;
    let extra = extra.as_deref();
    let max = input_bytes::max_input_bytes(reader, extra);
    read_string(text, what, max)
        .and_then(|text| text.answer(reader, extra, |text| op(text, extra)))
        .map_err(throw)
}

/// An object-form entry point: the optional value is stringified first,
/// then the main one (as far as its limit allows); `op` runs on their JSON
/// text and its answer is parsed.
#[inline(never)]
fn object_form(
    value: &JsValue,
    what: &str,
    extra: Option<JsValue>,
    extra_what: &str,
    reader: Reader,
    op: TextOp,
) -> Result<JsValue, JsValue> {
    let extra = stringify_optional(extra, extra_what).map_err(throw)?;
    let extra = extra.as_deref();
    let max = input_bytes::max_input_bytes(reader, extra);
    let out = stringify(value, what, max)
        .and_then(|text| text.answer(reader, extra, |text| op(text, extra)))
        .map_err(throw)?;
    parse(&out)
}

/// A tunnel operation's two exports, declared once: `$object` takes and
/// returns JS values (`$input`/`PlanOptions` in TypeScript, `$output` out),
/// `$text` takes and returns JSON text; both run `$op` on the input's text.
macro_rules! tunnel_exports {
    (
        $(#[doc = $doc:literal])*
        $object:ident = $object_js:ident ($input:literal) -> $output:literal;
        $(#[doc = $text_doc:literal])*
        $text:ident = $text_js:ident;
        $op:path, $reader:expr
    ) => {
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $object_js, unchecked_return_type = $output)]
        pub fn $object(
            #[wasm_bindgen(unchecked_param_type = $input)] input: JsValue,
            #[wasm_bindgen(unchecked_optional_param_type = "PlanOptions")] options: Option<JsValue>,
        ) -> Result<JsValue, JsValue> {
            object_form(&input, "the tunnel input", options, "the plan options", $reader, $op)
        }

        $(#[doc = $text_doc])*
        #[wasm_bindgen(js_name = $text_js)]
        pub fn $text(
            text: &js_sys::JsString,
            #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
            options_json: Option<JsValue>,
        ) -> Result<String, JsValue> {
            text_form(text, "the tunnel input", options_json, "optionsJson", $reader, $op)
        }
    };
}

tunnel_exports! {
    #[doc = " Plans one tunnel: exactly what the server deploys, locally and through"]
    #[doc = " federation. A server rejection is returned in `plan.error`; only an input"]
    #[doc = " that cannot be turned into JSON throws."]
    plan_tunnel = planTunnel("PlanInput") -> "Plan";
    #[doc = " [`plan_tunnel`] over JSON text: the same plan, as JSON text."]
    plan_tunnel_json = planTunnelJson;
    api::plan, Reader::Plan
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
    let options = options.as_deref();
    let max = input_bytes::max_input_bytes(Reader::Check, options);
    let out = match stringify(&doc, "the document", max) {
        Ok(doc) => doc.answer(Reader::Check, options, |doc| api::check(doc, options)),
        Err(e) => api::check_unreadable(&e.message, options),
    };
    parse(&out.map_err(throw)?)
}

/// [`check_document`] over JSON text (`optionsJson` is JSON text too).
#[wasm_bindgen(js_name = checkDocumentJson)]
pub fn check_document_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let options = optional_text(options_json, "optionsJson").map_err(throw)?;
    let options = options.as_deref();
    let max = input_bytes::max_input_bytes(Reader::Check, options);
    match read_string(text, "the document", max) {
        Ok(text) => text.answer(Reader::Check, options, |text| api::check(text, options)),
        // Like any unreadable document: one IN001 finding, not a throw.
        Err(e) => api::check_unreadable(&e.message, options),
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
    api::check_unreadable(&reason, options.as_deref()).map_err(throw)
}

tunnel_exports! {
    #[doc = " `checkTunnel`: plans a tunnel input and checks the plan in one call"]
    #[doc = " (the panel's pre-submit check): `{plan, findings}`."]
    check_tunnel = checkTunnel("PlanInput") -> "TunnelCheck";
    #[doc = " `checkTunnel` over JSON text."]
    check_tunnel_json = checkTunnelJson;
    api::check_tunnel, Reader::CheckTunnel
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
    options_json: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "string")] uri: Option<JsValue>,
    #[wasm_bindgen(js_name = readError, unchecked_optional_param_type = "string")]
    read_error: Option<JsValue>,
) -> Result<String, JsValue> {
    let format = required_text(&format, "format").map_err(throw)?;
    let uri = optional_text(uri, "uri").map_err(throw)?;
    let read_error = optional_text(read_error, "readError").map_err(throw)?;
    let options = optional_text(options_json, "optionsJson").map_err(throw)?;
    let (options, uri) = (options.as_deref(), uri.as_deref());
    let max = input_bytes::max_input_bytes(Reader::Check, options);
    let document = match read_error {
        Some(reason) => Err(reason),
        None => match read_string(text, "the document", max) {
            Ok(Text::Read(text)) => Ok(text),
            Ok(Text::Over(bytes)) => {
                return input_bytes::over_limit_formatted(&format, options, uri, bytes)
                    .map_err(throw)
            }
            Err(e) => Err(e.message),
        },
    };
    let document = document.as_deref().map_err(String::as_str);
    api::check_formatted(document, &format, options, uri).map_err(throw)
}

/// Simulates and renders the trace as a readable report.
#[wasm_bindgen(js_name = simulateText)]
pub fn simulate_text(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = scenarioJson, unchecked_optional_param_type = "string")]
    scenario_json: Option<JsValue>,
) -> Result<String, JsValue> {
    let scenario_text = optional_text(scenario_json, "scenarioJson").map_err(throw)?;
    let scenario_text = scenario_text.as_deref();
    let scenario = api::scenario(scenario_text).map_err(throw)?;
    let max = input_bytes::max_input_bytes(Reader::Simulate, scenario_text);
    read_string(text, "the document", max)
        .and_then(|text| {
            text.answer(Reader::Simulate, scenario_text, |text| {
                api::simulate_text(text, &scenario)
            })
        })
        .map_err(throw)
}

/// Replays requests through a plan (or one node's config, or a tunnel input,
/// planned first) with some nodes dead, the way GOST fails over.
#[wasm_bindgen(js_name = simulate, unchecked_return_type = "Trace")]
pub fn simulate_js(
    #[wasm_bindgen(unchecked_param_type = "SimulateDocument")] doc: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Scenario")] scenario: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    // The document first, as before; its limit does not depend on the scenario.
    let max = input_bytes::max_input_bytes(Reader::Simulate, None);
    let doc = stringify(&doc, "the document", max).map_err(throw)?;
    let scenario = stringify_optional(scenario, "the scenario").map_err(throw)?;
    let scenario = scenario.as_deref();
    let out = doc
        .answer(Reader::Simulate, scenario, |doc| {
            api::simulate(doc, scenario)
        })
        .map_err(throw)?;
    parse(&out)
}

/// [`simulate_js`] over JSON text.
#[wasm_bindgen(js_name = simulateJson)]
pub fn simulate_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = scenarioJson, unchecked_optional_param_type = "string")] scenario_json: Option<JsValue>,
) -> Result<String, JsValue> {
    text_form(
        text,
        "the document",
        scenario_json,
        "scenarioJson",
        Reader::Simulate,
        api::simulate,
    )
}

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
        |steps, _| api::lifecycle(steps),
    )
}

/// [`lifecycle_js`] over JSON text.
#[wasm_bindgen(js_name = lifecycleJson)]
pub fn lifecycle_json(text: &js_sys::JsString) -> Result<String, JsValue> {
    text_form(
        text,
        "the step list",
        None,
        "",
        Reader::Lifecycle,
        |steps, _| api::lifecycle(steps),
    )
}

/// Every tunnel of a panel, from its backup export (`{version, exportedAt,
/// nodes, tunnels}`) or its database tables' rows (`{node, tunnel,
/// chain_tunnel, federation_tunnel_binding}`), as `[{id, name, type, input,
/// assumed}]`, `input` a redeploy input for `planTunnel(input, {mode:
/// 'redeploy'})`. Node secrets are dropped and share tokens become pseudonyms.
/// `optionsJson`: `{limits}` over the panel defaults (README, "Limits").
#[wasm_bindgen(js_name = backupTunnelsJson)]
pub fn backup_tunnels_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    panel_form(text, options_json, api::backup_tunnels)
}

/// Every tunnel of a panel (what [`backup_tunnels_json`] reads) planned as a
/// redeploy pushes it and checked, in one call: `[{id, name, type, assumed,
/// plan, findings}]`. `optionsJson` as for [`backup_tunnels_json`].
#[wasm_bindgen(js_name = auditPanelJson)]
pub fn audit_panel_json(
    text: &js_sys::JsString,
    #[wasm_bindgen(js_name = optionsJson, unchecked_optional_param_type = "string")]
    options_json: Option<JsValue>,
) -> Result<String, JsValue> {
    panel_form(text, options_json, api::audit_panel)
}

/// A whole-panel entry point: the backup text and its `{limits}` options.
fn panel_form(
    text: &js_sys::JsString,
    options_json: Option<JsValue>,
    op: TextOp,
) -> Result<String, JsValue> {
    text_form(
        text,
        "the backup",
        options_json,
        "optionsJson",
        Reader::Panel,
        op,
    )
}

/// The package version (the crate's version).
#[wasm_bindgen]
pub fn version() -> String {
    VERSION.to_string()
}
