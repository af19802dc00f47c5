//! Reading the exports' JS arguments into Rust text and turning answers and
//! errors back into JS values: the conversions of the bindings
//! ([`super`]), in one place.

use crate::api::input_bytes::{self, Reader, Text};
use crate::error::ApiError;
use crate::limits::DEFAULT_MAX_INPUT_BYTES;
use wasm_bindgen::prelude::*;

/// An export over JSON text: `$op` on the text and, when `$extra` is
/// named, a second optional text (options or scenario).
macro_rules! text_export {
    (@extra) => { (None, "") };
    (@extra $extra:ident) => { ($extra, stringify!($extra)) };
    ($(#[doc = $doc:literal])* $name:ident = $js:ident($extra:ident) => $handler:path) => {
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $js)]
        #[allow(non_snake_case)]
        pub fn $name(
            text: &js_sys::JsString,
            #[wasm_bindgen(js_name = $extra, unchecked_optional_param_type = "string")] $extra: Option<JsValue>,
        ) -> Result<js_sys::JsString, JsValue> {
            $handler(text, $extra)
        }
    };
    ($(#[doc = $doc:literal])* $name:ident = $js:ident($($extra:ident)?); $what:literal, $op:expr, $reader:expr) => {
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $js)]
        #[allow(non_snake_case)]
        pub fn $name(
            text: &js_sys::JsString,
            $(#[wasm_bindgen(js_name = $extra, unchecked_optional_param_type = "string")] $extra: Option<JsValue>,)?
        ) -> Result<js_sys::JsString, JsValue> {
            let (extra, what): (Option<JsValue>, &str) = text_export!(@extra $($extra)?);
            text_form(text, $what, extra, what, $reader, $op)
        }
    };
}

/// Each hand-written TypeScript text as a custom section of the declarations.
macro_rules! typescript_sections {
    ($($text:path),* $(,)?) => {
        $(
            const _: () = {
                #[wasm_bindgen(typescript_custom_section)]
                const TS: &str = $text;
            };
        )*
    };
}

/// An export over JS values (`$input` and `$extra_ts` in TypeScript,
/// `$output` out): `$op` on their JSON text, its answer parsed.
macro_rules! object_export {
    ($(#[doc = $doc:literal])* $name:ident = $js:ident($input:literal, $extra:ident: $extra_ts:literal) -> $output:literal; $what:literal, $extra_what:literal, $op:expr, $reader:expr) => {
        $(#[doc = $doc])*
        #[wasm_bindgen(js_name = $js, unchecked_return_type = $output)]
        pub fn $name(
            #[wasm_bindgen(unchecked_param_type = $input)] input: JsValue,
            #[wasm_bindgen(unchecked_optional_param_type = $extra_ts)] $extra: Option<JsValue>,
        ) -> Result<JsValue, JsValue> {
            object_form(&input, $what, $extra, $extra_what, $reader, $op)
        }
    };
}

/// Turns an [`ApiError`] into a JS `Error` named `HopPolicyError` with `code`
/// and `path` properties. Out of line: every entry point calls it.
#[cold]
#[inline(never)]
fn throw(e: ApiError) -> JsValue {
    make_error(&e.code, &e.message, &e.path)
}

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

/// A JS string argument as a Rust `String`, or [`Text::Over`] when it has
/// more UTF-16 units than `max` bytes.
///
/// wasm-bindgen copies a `&str` argument one UTF-16 unit at a time in a JS
/// loop, a large share of a call on big inputs (BENCH.md); the engine's
/// native `TextEncoder.encodeInto` writes the same UTF-8 (lone surrogates
/// become U+FFFD either way) straight into wasm memory.
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

#[wasm_bindgen(module = "/src/wasm/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = jsonTextOf)]
    fn json_text_of(value: &JsValue, max: usize) -> js_sys::JsString;
    #[wasm_bindgen(js_name = typeNameOf)]
    fn type_name_of(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, path: &str) -> JsValue;
    #[wasm_bindgen(js_name = randomWords)]
    fn random_words() -> Vec<u32>;
    #[wasm_bindgen(js_name = textAt)]
    fn text_at(memory: &JsValue, ptr: u32, ends: &[u32]) -> JsValue;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &js_sys::JsString) -> Result<JsValue, JsValue>;
}

/// Two random 64-bit keys for the module's hash maps ([`crate::lookup`]).
pub(super) fn hash_keys() -> (u64, u64) {
    let words = random_words();
    let word = |i: usize| u64::from(words.get(i).copied().unwrap_or(0));
    (word(0) << 32 | word(1), word(2) << 32 | word(3))
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

/// Text the core produced, as a JS string, handed to the engine's decoder
/// in pieces ([`crate::text_pieces`]) rather than whole, as wasm-bindgen would.
#[inline(never)]
fn js_text(text: &str) -> Result<js_sys::JsString, JsValue> {
    let ends = crate::text_pieces::piece_ends(text.as_bytes());
    let value = text_at(&wasm_bindgen::memory(), text.as_ptr() as u32, &ends);
    if !value.is_string() {
        let len = text.len();
        let why = format!("the result ({len} bytes) is too long for a JavaScript string");
        return Err(throw(ApiError::new("INTERNAL", why, "")));
    }
    Ok(value.unchecked_into())
}

/// A text operation's answer as a JS string; its error thrown.
fn text_answer(result: Result<String, ApiError>) -> Result<js_sys::JsString, JsValue> {
    js_text(&result.map_err(throw)?)
}

/// JSON text produced by the core, as a plain JS value.
#[inline(never)]
pub(super) fn parse(text: &str) -> Result<JsValue, JsValue> {
    json_parse(&js_text(text)?).map_err(|e| {
        throw(ApiError::new(
            "INTERNAL",
            format!("cannot decode the result: {}", describe(&e)),
            "",
        ))
    })
}

/// An operation of the text layer ([`crate::api`]): the main JSON text and
/// an optional second one (options or scenario).
pub(super) type TextOp = fn(&str, Option<&str>) -> Result<String, ApiError>;

/// A text-form entry point: the optional text is read first, then as much
/// of the main text as its limit there allows, then `op` runs
/// ([`input_bytes::within`]). One function for all of them, so that each
/// export is only its own wasm-bindgen glue.
#[inline(never)]
pub(super) fn text_form(
    text: &js_sys::JsString,
    what: &str,
    extra: Option<JsValue>,
    extra_what: &str,
    reader: Reader,
    op: TextOp,
) -> Result<js_sys::JsString, JsValue> {
    let extra = optional_text(extra, extra_what).map_err(throw)?;
    let extra = extra.as_deref();
    let read = |max| read_string(text, what, max);
    text_answer(input_bytes::within(reader, extra, read, |text| {
        op(text, extra)
    }))
}

/// An object-form entry point: the optional value is stringified first,
/// then the main one (as far as its limit allows); `op` runs on their JSON
/// text and its answer is parsed.
#[inline(never)]
pub(super) fn object_form(
    value: &JsValue,
    what: &str,
    extra: Option<JsValue>,
    extra_what: &str,
    reader: Reader,
    op: TextOp,
) -> Result<JsValue, JsValue> {
    let extra = stringify_optional(extra, extra_what).map_err(throw)?;
    let extra = extra.as_deref();
    let read = |max| stringify(value, what, max);
    parse(&input_bytes::within(reader, extra, read, |text| op(text, extra)).map_err(throw)?)
}

/// `checkDocument`: a document that cannot be made JSON is an `IN001`
/// finding ([`input_bytes::check_within`]); only bad options throw.
pub(super) fn check_object(doc: &JsValue, options: Option<JsValue>) -> Result<JsValue, JsValue> {
    let options = stringify_optional(options, "the check options").map_err(throw)?;
    let read = |max| stringify(doc, "the document", max);
    parse(&input_bytes::check_within(options.as_deref(), read).map_err(throw)?)
}

/// `checkDocumentJson`: as [`check_object`], over text.
pub(super) fn check_text(
    text: &js_sys::JsString,
    options: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    let options = optional_text(options, "optionsJson").map_err(throw)?;
    let read = |max| read_string(text, "the document", max);
    text_answer(input_bytes::check_within(options.as_deref(), read))
}

/// `checkDocumentFormatted`: with `read_error` the document could not be
/// read at all; a text that cannot be read is reported, not thrown.
pub(super) fn check_formatted(
    text: &js_sys::JsString,
    format: JsValue,
    options: Option<JsValue>,
    uri: Option<JsValue>,
    read_error: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    let format = required_text(&format, "format").map_err(throw)?;
    let uri = optional_text(uri, "uri").map_err(throw)?;
    let read_error = optional_text(read_error, "readError").map_err(throw)?;
    let options = optional_text(options, "optionsJson").map_err(throw)?;
    let read = |max| read_string(text, "the document", max);
    let (options, uri, read_error) = (options.as_deref(), uri.as_deref(), read_error.as_deref());
    text_answer(input_bytes::check_formatted_within(
        &format, options, uri, read_error, read,
    ))
}

/// `simulateText`: the scenario is read (and must be valid) before the
/// document.
pub(super) fn simulate_text(
    text: &js_sys::JsString,
    scenario: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    let scenario_text = optional_text(scenario, "scenarioJson").map_err(throw)?;
    let scenario_text = scenario_text.as_deref();
    let scenario = crate::api::scenario(scenario_text).map_err(throw)?;
    let read = |max| read_string(text, "the document", max);
    let op = |text: &str| crate::api::simulate_text(text, &scenario);
    text_answer(input_bytes::within(
        Reader::Simulate,
        scenario_text,
        read,
        op,
    ))
}

/// `simulate`: the document is stringified first (its limit does not
/// depend on the scenario), then the scenario.
pub(super) fn simulate_object(
    doc: &JsValue,
    scenario: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let max = input_bytes::max_input_bytes(Reader::Simulate, None);
    let doc = stringify(doc, "the document", max).map_err(throw)?;
    let scenario = stringify_optional(scenario, "the scenario").map_err(throw)?;
    let scenario = scenario.as_deref();
    let op = |doc: &str| crate::api::simulate_json(doc, scenario);
    parse(&input_bytes::answer(Reader::Simulate, scenario, doc, op).map_err(throw)?)
}

/// `checkUnreadableJson`: the report for a document that could not be read.
pub(super) fn check_unreadable(
    reason: &JsValue,
    options: Option<JsValue>,
) -> Result<js_sys::JsString, JsValue> {
    let reason = required_text(reason, "reason").map_err(throw)?;
    let options = optional_text(options, "optionsJson").map_err(throw)?;
    text_answer(crate::api::check_unreadable(&reason, options.as_deref()))
}
