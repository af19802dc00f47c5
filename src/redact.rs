//! Keeps credentials out of every output. Documents pasted by operators may
//! carry GOST `auth` blocks, tokens in metadata or share tokens; anything the
//! core echoes back from its input passes through here first.

use serde_json::{Map, Value};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Keys whose values are credentials (case-insensitive, by substring).
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "token",
        "password",
        "passwd",
        "secret",
        "credential",
        "apikey",
        "api_key",
        "privatekey",
        "private_key",
    ]
    .iter()
    .any(|s| k.contains(s))
}

/// A copy of `v` with the value of every credential-like key replaced.
pub fn redact(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map {
                let val = if is_secret_key(k) && !x.is_null() {
                    Value::String(REDACTED.into())
                } else {
                    redact(x)
                };
                out.insert(k.clone(), val);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// A short rendering of an input value for an error message: redacted and
/// cut to 80 characters.
pub fn describe(v: &Value) -> String {
    let text = crate::json::to_text(&redact(v));
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{}...", cut)
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_replaced_and_the_rest_kept() {
        let v = json!({"auth": {"username": "u", "password": "p"}, "remoteToken": "t", "x": [{"apiKey": "k"}], "name": "n", "__proto__": 1});
        assert_eq!(
            redact(&v),
            json!({"auth": {"username": "u", "password": REDACTED}, "remoteToken": REDACTED, "x": [{"apiKey": REDACTED}], "name": "n", "__proto__": 1})
        );
        assert!(!describe(&json!({"remoteToken": "secret-123"})).contains("secret-123"));
        assert!(describe(&json!("x".repeat(200))).len() <= 80);
    }
}
