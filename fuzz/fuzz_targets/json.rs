//! The crate's JSON reader against serde_json's: on any text, the same value
//! (compared through its text too, so number forms count) or the same error
//! message with the same line and column; and the crate's writer
//! (`json::to_text`, floats included) against serde_json's on the value read.
//! The one documented difference, the `$serde_json::private::RawValue` key,
//! is left out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.contains("$serde_json::private::RawValue") {
        return;
    }
    let ours = hop_policy::json::from_str(text).map(|v| (v.to_string(), v)).map_err(|e| e.to_string());
    let theirs = serde_json::from_str::<Value>(text).map(|v| (v.to_string(), v)).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{text:?}");
    if let Ok((printed, v)) = &theirs {
        assert_eq!(&hop_policy::json::to_text(v), printed, "{text:?}");
    }
});
