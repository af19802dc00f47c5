//! Keeps credentials out of every output. Documents pasted by operators may
//! carry GOST `auth` blocks, tokens in metadata or share tokens; anything the
//! core echoes back from its input passes through here first.

use crate::json::tree::TreeValue;
use serde_json::Value;

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Keys whose values are credentials: GOST's `auth` (a service's, a
/// metadata's) and an auther's `auths` list whole, and any key naming a
/// token, password, secret, credential or private/API key (case-insensitive,
/// by substring). `auther` is only the name of an auther and stays visible.
pub fn is_secret_key(key: &str) -> bool {
    if ["auth", "auths", "userinfo"]
        .iter()
        .any(|k| key.eq_ignore_ascii_case(k))
    {
        return true;
    }
    const PARTS: [&str; 9] = [
        "token",
        "password",
        "passwd",
        "secret",
        "credential",
        "apikey",
        "api_key",
        "privatekey",
        "private_key",
    ];
    // One pass over the key, comparing a part only where its first letter
    // stands, and no lowered copy: every key of every echoed config is asked.
    let bytes = key.as_bytes();
    (0..bytes.len()).any(|at| {
        let rest = bytes.get(at..).unwrap_or_default();
        PARTS.iter().any(|part| {
            let part = part.as_bytes();
            rest.first()
                .zip(part.first())
                .is_some_and(|(a, b)| a.eq_ignore_ascii_case(b))
                && rest
                    .get(..part.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(part))
        })
    })
}

/// One URL (`scheme://user:pass@host:port/path?query#fragment`; the scheme
/// may be missing) with its userinfo and the values of its secret parameters
/// (`token`, `key`, `password`, ... in the query or the fragment) replaced by
/// [`REDACTED`]; scheme, host, port, path and other parameters are kept.
/// `None` when there is nothing to replace. The same URL always gives the
/// same text.
pub fn scrub_url(url: &str) -> Option<String> {
    scrub_url_as(url, REDACTED)
}

/// [`scrub_url`] with `mark` in place of [`REDACTED`] (to keep apart two
/// URLs that differ only in what is replaced).
pub fn scrub_url_as(url: &str, mark: &str) -> Option<String> {
    if !may_hold_credential(url) {
        return None;
    }
    scrub_url_whole(url, mark)
}

/// [`scrub_url_as`] without its early answer for text it cannot change.
fn scrub_url_whole(url: &str, mark: &str) -> Option<String> {
    let (scheme, rest) = match url.find("://") {
        Some(i) if !url[..i].contains(['/', '?', '#', '@']) => url.split_at(i + 3),
        _ => ("", url),
    };
    let whole = scrub_after_scheme(rest, mark).map(|s| format!("{scheme}{s}"));
    // A value holding more than one URL: each of the others as in text.
    scrub_urls_as(whole.as_deref().unwrap_or(url), mark).or(whole)
}

/// Whether a URL scrub could replace anything in `text`: it replaces a
/// userinfo, which ends at an `@`, and a parameter's value, after an `=`.
/// Most addresses have neither and are left without a copy.
fn may_hold_credential(text: &str) -> bool {
    text.contains(['@', '='])
}

/// A forward's target list (targets apart by `,`, line breaks), each target
/// scrubbed as [`scrub_url`] scrubs one (its scheme may be missing); `None`
/// when there is nothing to replace.
pub fn scrub_targets(text: &str) -> Option<String> {
    if !may_hold_credential(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for piece in text.split_inclusive([',', '\n', '\r']) {
        let (target, sep) = piece.split_at(piece.trim_end_matches([',', '\n', '\r']).len());
        match scrub_url(target) {
            Some(clean) => {
                out.push_str(&clean);
                changed = true;
            }
            None => out.push_str(target),
        }
        out.push_str(sep);
    }
    changed.then_some(out)
}

/// `text` with every URL in it (`scheme://...`, up to a space or a quote)
/// scrubbed as [`scrub_url`] does; `None` when there is nothing to replace.
pub fn scrub_urls(text: &str) -> Option<String> {
    scrub_urls_as(text, REDACTED)
}

fn scrub_urls_as(text: &str, mark: &str) -> Option<String> {
    if !text.contains("://") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '<' | '>' | '`'))
            .unwrap_or(tail.len());
        let (url, after) = tail.split_at(end);
        match scrub_after_scheme(url, mark) {
            Some(clean) => {
                out.push_str(&clean);
                changed = true;
            }
            None => out.push_str(url),
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// A URL after its `scheme://`: userinfo, then secret parameter values.
fn scrub_after_scheme(rest: &str, mark: &str) -> Option<String> {
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let mut out = String::with_capacity(rest.len());
    let mut changed = false;
    match authority.rfind('@') {
        Some(at) => {
            out.push_str(mark);
            out.push_str(&authority[at..]);
            changed = true;
        }
        None => out.push_str(authority),
    }
    let (path, mut params) = tail.split_at(tail.find(['?', '#']).unwrap_or(tail.len()));
    out.push_str(path);
    // Each parameter follows one separator; `;` and a `?` inside the query
    // are taken as separators too, so a secret is never read as part of the
    // value before it.
    while let Some(sep) = params.chars().next() {
        out.push(sep);
        let body = &params[sep.len_utf8()..];
        let (param, next) = body.split_at(body.find(['?', '&', ';', '#']).unwrap_or(body.len()));
        match param.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_secret_param(name) => {
                out.push_str(name);
                out.push('=');
                out.push_str(mark);
                changed = true;
            }
            _ => out.push_str(param),
        }
        params = next;
    }
    changed.then_some(out)
}

/// A URL parameter that carries a credential: a secret key's name
/// ([`is_secret_key`]), or one of the names URLs use for keys, passwords and
/// signatures (`key`, `api-key`, `pwd`, `sig`, ...), which as JSON keys
/// would name ordinary fields (`resourceKey`).
fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_secret_key(&n)
        || n.ends_with("key")
        || n.ends_with("signature")
        || matches!(n.as_str(), "pwd" | "pass" | "sig")
}

/// A text field that holds a JSON document (a remote node's
/// `remoteConfig`): the document redacted, re-written only when that
/// replaced something. Text that is not a JSON object or list cannot be read
/// by key, so it is replaced whole. `None` when the text is kept (blank, or
/// nothing in it is secret).
pub fn redact_json_text(text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return None;
    }
    // Read as every document is, into the tree; redacted as a value.
    let arena = crate::json::tree::Arena::new();
    match crate::limits::read_tree(text, &arena) {
        Ok(tree @ (TreeValue::Object(_) | TreeValue::Arr(_))) => {
            let doc = crate::encode::to_value(&tree);
            let clean = redact(&doc);
            (clean != doc).then(|| crate::json::to_text(&clean))
        }
        _ => Some(REDACTED.to_string()),
    }
}

/// A copy of `v` with the value of every credential-like key replaced, and
/// every URL in its text scrubbed ([`scrub_urls`]).
pub fn redact(v: &Value) -> Value {
    let mut out = v.clone();
    redact_in_place(&mut out);
    out
}

/// [`redact`] of a value the caller gives up: only what is secret is
/// rewritten, nothing is copied.
pub fn redact_in_place(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                if is_secret_key(k) && !x.is_null() {
                    *x = Value::String(REDACTED.into());
                } else {
                    redact_in_place(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_in_place),
        Value::String(s) => {
            if let Some(clean) = scrub_urls(s) {
                *s = clean;
            }
        }
        _ => {}
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

    /// Text without an `@` or an `=` is text the whole scrub leaves as it
    /// is, which the early answer takes for granted: every string of up to
    /// four pieces of URLs, target lists and secret parameters' names.
    #[test]
    fn text_without_at_or_equals_has_nothing_to_scrub() {
        let pieces = [
            "http://", "tcp://", "://", "a", ":", "/", "?", "#", "&", ";", "token", "key",
            "password", ",", "\n", " ", "[::1]", "1", "%40", "@", "=",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer.into_iter().filter(|t| t.len() <= 24));
            texts.sort();
            texts.dedup();
        }
        let mut changed_with_mark = 0;
        for t in &texts {
            let whole = scrub_url_whole(t, REDACTED);
            if may_hold_credential(t) {
                changed_with_mark += usize::from(whole.is_some());
            } else {
                assert_eq!(whole, None, "{t:?}");
                assert_eq!(scrub_url(t), None, "{t:?}");
                assert_eq!(scrub_targets(t), None, "{t:?}");
            }
        }
        // The corpus does reach what the scrub replaces.
        assert!(changed_with_mark > 1000, "{changed_with_mark}");
    }

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
        assert_eq!(scrub_urls("tcp://10.0.0.1:80"), None);
        assert_eq!(
            scrub_urls("a http://u:p@h:1/p b https://h2").as_deref(),
            Some("a http://[redacted]@h:1/p b https://h2")
        );
        assert!(describe(&json!("x".repeat(200))).len() <= 80);
    }

    #[test]
    fn a_url_keeps_all_but_userinfo_and_secret_parameters() {
        let cases = [
            (
                "https://user:pw@panel.example:8443/api/v1?token=abc&region=eu",
                Some("https://[redacted]@panel.example:8443/api/v1?token=[redacted]&region=eu"),
            ),
            (
                "https://p.example/x?access_token=a1;key=k2&Secret=s3&password=p4&page=2#id_token=t5",
                Some("https://p.example/x?access_token=[redacted];key=[redacted]&Secret=[redacted]&password=[redacted]&page=2#id_token=[redacted]"),
            ),
            (
                "http://h?keyword=k&Api-Key=2&sig=3&pwd=4&resource_key=5",
                Some("http://h?keyword=k&Api-Key=[redacted]&sig=[redacted]&pwd=[redacted]&resource_key=[redacted]"),
            ),
            // No scheme: the value is still one URL.
            ("u:p@10.0.0.1:80/p", Some("[redacted]@10.0.0.1:80/p")),
            // An empty value and a name without one have nothing to hide.
            ("https://h/p?token=&token&x=1#top", None),
            ("https://panel.example:8443/api", None),
            ("", None),
            // A second URL in the value is scrubbed too.
            (
                "https://a/x https://u:p@b?token=t",
                Some("https://a/x https://[redacted]@b?token=[redacted]"),
            ),
        ];
        for (url, want) in cases {
            assert_eq!(scrub_url(url).as_deref(), want, "{url}");
        }
        assert_eq!(
            scrub_url_as("https://u:p@h?token=t", "[redacted-2]").as_deref(),
            Some("https://[redacted-2]@h?token=[redacted-2]")
        );
        // In text, a URL ends at a space or a quote.
        assert_eq!(
            scrub_urls(r#"see "https://h/?token=abc" and wss://h2/s?tok=1&password=x y?token=z"#)
                .as_deref(),
            Some(
                r#"see "https://h/?token=[redacted]" and wss://h2/s?tok=1&password=[redacted] y?token=z"#
            )
        );
        assert_eq!(
            redact(&json!({"remoteUrl": "https://u:p@h?token=t&x=1"})),
            json!({"remoteUrl": "https://[redacted]@h?token=[redacted]&x=1"})
        );
    }

    #[test]
    fn json_held_in_text_is_redacted_by_key() {
        assert_eq!(
            redact_json_text(r#"{"token":"t-1","portRangeStart":45000,"nested":{"apiKey":"k","url":"https://u:p@h"}}"#)
                .as_deref(),
            Some(r#"{"nested":{"apiKey":"[redacted]","url":"https://[redacted]@h"},"portRangeStart":45000,"token":"[redacted]"}"#)
        );
        // Nothing secret: the text is kept as written.
        assert_eq!(
            redact_json_text(r#"{"portRangeStart": 45000, "portRangeEnd": 45010}"#),
            None
        );
        assert_eq!(redact_json_text("  "), None);
        // Not a JSON object or list: it cannot be read by key.
        assert_eq!(redact_json_text("token=abc").as_deref(), Some(REDACTED));
        assert_eq!(redact_json_text("\"abc\"").as_deref(), Some(REDACTED));
    }
    #[test]
    fn each_target_of_a_list_is_scrubbed_apart() {
        assert_eq!(scrub_targets("1.1.1.1:80,example.com:443"), None);
        assert_eq!(
            scrub_targets("1.1.1.1:80,bob:pw@x/y?key=abc\nc.d:9?token=t,https://u:p@h:1").as_deref(),
            Some("1.1.1.1:80,[redacted]@x/y?key=[redacted]\nc.d:9?token=[redacted],https://[redacted]@h:1")
        );
    }
}
