//! Where the robustness tests and the fuzz targets plant credentials: one
//! list of credential-like key parts, and one planter. The list is the
//! tests' own (the code under test has `redact::is_secret_key`), so a key the
//! redactor forgot is still planted and its leak caught.

use serde_json::Value;

/// Keys whose values are credentials (lower-case, `_`/`-` ignored, substring).
pub fn is_credential_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace(['_', '-'], "");
    "token password passwd secret credential apikey privatekey"
        .split(' ')
        .any(|p| k.contains(p))
}

/// Replaces every credential-like field's value with `marker(n)` for the
/// n-th field planted (iteratively), and returns what was planted.
pub fn plant_with(v: &mut Value, mut marker: impl FnMut(usize) -> String) -> Vec<String> {
    let mut planted = Vec::new();
    let mut stack = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Object(m) => {
                for (k, child) in m.iter_mut() {
                    if is_credential_key(k) {
                        let c = marker(planted.len());
                        *child = Value::from(c.clone());
                        planted.push(c);
                    } else {
                        stack.push(child);
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
    planted
}
