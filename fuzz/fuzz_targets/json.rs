//! The crate's JSON reader against serde_json's: on any text, the same value
//! (compared through its text too, so number forms count) or the same error
//! message with the same line and column; and the crate's writer
//! (`json::to_text`, floats included) against serde_json's on the value read.
//! The one documented difference, the `$serde_json::private::RawValue` key,
//! is left out. And the limits counted while reading
//! (`limits::from_str_within`) against the walk over the value read
//! (`limits::check_value`), at the defaults and at small limits: over a limit
//! exactly when the walk is (depth and string length: node and hop counts
//! are the planner's, not the reader's).
#![no_main]

use hop_policy::limits::Limits;
use hop_policy::limits::ReadError;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Whether the text's value, printed again, is the text up to white space:
/// false when a repeated key dropped a value the text carried.
fn reads_the_same_without_repeats(text: &str, v: &Value) -> bool {
    let squeezed = |t: &str| t.chars().filter(|c| !c.is_whitespace()).count();
    squeezed(&v.to_string()) >= squeezed(text)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains("$serde_json::private::RawValue") {
        return;
    }
    let ours = hop_policy::json::from_str(text)
        .map(|v| (v.to_string(), v))
        .map_err(|e| e.to_string());
    let theirs = serde_json::from_str::<Value>(text)
        .map(|v| (v.to_string(), v))
        .map_err(|e| e.to_string());
    // A surrogate escape outside a pair: serde_json refuses it, the crate
    // reads U+FFFD as Go does (src/json/read.rs); nothing to compare.
    if theirs
        .as_ref()
        .is_err_and(|e| e.contains("surrogate") || e.contains("hex escape"))
    {
        return;
    }
    assert_eq!(ours, theirs, "{text:?}");
    if let Ok((printed, v)) = &theirs {
        assert_eq!(&hop_policy::json::to_text(v), printed, "{text:?}");
        let small = Limits {
            max_string_len: 4,
            max_depth: 3,
            ..Limits::default()
        };
        for limits in [Limits::default(), small] {
            let read = hop_policy::limits::from_str_within(text, &limits);
            match (read, hop_policy::limits::check_value(v, &limits)) {
                (Ok(read), Ok(())) => assert_eq!(&read, v, "{text:?}"),
                (Err(ReadError::Limit(r)), Err(w)) => {
                    assert!(r.actual > r.max, "{text:?}");
                    let readers = ["maxStringLen", "maxDepth"];
                    assert!(
                        readers.contains(&r.limit) && readers.contains(&w.limit),
                        "{text:?}"
                    );
                }
                // The reader sees every string and nesting of the text; the
                // walk only what survives a repeated key (the last value),
                // so the reader alone may find a string or depth over.
                (Err(ReadError::Limit(r)), Ok(()))
                    if ["maxStringLen", "maxDepth"].contains(&r.limit)
                        && !reads_the_same_without_repeats(text, v) => {}
                (r, w) => panic!("{text:?}: read {r:?}, walk {w:?}"),
            }
        }
    }
});
