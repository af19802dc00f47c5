//! Keeps credentials out of every output. Documents pasted by operators may
//! carry GOST `auth` blocks, tokens in metadata or share tokens; anything the
//! core echoes back from its input passes through here first.

use serde_json::{Map, Value};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Keys whose values are credentials: GOST's `auth` (a service's, a
/// metadata's) and an auther's `auths` list whole, and any key naming a
/// token, password, secret, credential or private/API key (case-insensitive,
/// by substring). `auther` is only the name of an auther and stays visible.
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    if k == "auth" || k == "auths" || k == "userinfo" {
        return true;
    }
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

/// `text` with the userinfo of every URL in it (`scheme://user:pass@host`)
/// replaced; `None` when there is none.
pub fn scrub_userinfo(text: &str) -> Option<String> {
    if !text.contains("://") || !text.contains('@') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_end = tail.find(['/', '?', '#', ' ', '"']).unwrap_or(tail.len());
        let authority = &tail[..authority_end];
        match authority.rfind('@') {
            Some(user_end) => {
                out.push_str(REDACTED);
                out.push_str(&authority[user_end..]);
                changed = true;
            }
            None => out.push_str(authority),
        }
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    changed.then_some(out)
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
        Value::String(s) => match scrub_userinfo(s) {
            Some(clean) => Value::String(clean),
            None => Value::String(s.clone()),
        },
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
            json!({"auth": REDACTED, "remoteToken": REDACTED, "x": [{"apiKey": REDACTED}], "name": "n", "__proto__": 1})
        );
        assert!(!describe(&json!({"remoteToken": "secret-123"})).contains("secret-123"));
        // GOST's credential carriers: auth blocks whole, authers' auths, metadata.auth, URL userinfo.
        let gost = json!({"handler": {"auther": "a1", "auth": {"username": "admin", "password": "pw"}, "metadata": {"auth": "user:pass"}},
                          "authers": [{"name": "a1", "auths": [{"username": "u2", "password": "p2"}]}],
                          "forwarder": {"nodes": [{"addr": "socks5://bob:hunter2@10.0.0.1:1080/x"}]}});
        let out = crate::json::to_text(&redact(&gost));
        for secret in ["admin", "pw", "user:pass", "u2", "p2", "bob", "hunter2"] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(
            out.contains("\"auther\":\"a1\"") && out.contains("10.0.0.1:1080/x"),
            "{out}"
        );
        assert_eq!(scrub_userinfo("tcp://10.0.0.1:80"), None);
        assert_eq!(
            scrub_userinfo("a http://u:p@h:1/p b https://h2").as_deref(),
            Some("a http://[redacted]@h:1/p b https://h2")
        );
        assert!(describe(&json!("x".repeat(200))).len() <= 80);
    }
}
