//! Go's case-insensitive string comparisons, as the server and the agent
//! apply them to short ASCII words (protocols, strategies, field names).

use crate::json::tree::{TreeObject, TreeValue};

/// Go's `strings.EqualFold(s, word)` for an ASCII lowercase `word`: ASCII
/// case is ignored, and the two non-ASCII letters that fold onto ASCII ones
/// (Kelvin sign for k, long s for s) count as those letters. No other rune
/// folds onto ASCII, so no Unicode tables are needed.
pub fn equal_fold(s: &str, word: &str) -> bool {
    debug_assert!(!word
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii()));
    chars_match(s, word, |x, y| {
        x.to_ascii_lowercase() == y || (x == '\u{212A}' && y == 'k') || (x == '\u{17F}' && y == 's')
    })
}

/// Go's `strings.ToLower(s) == word` for an ASCII lowercase `word`. Go
/// lowers rune by rune (simple case mapping); the only non-ASCII rune it
/// lowers to an ASCII letter is the Kelvin sign (to `k`).
pub fn to_lower_equals(s: &str, word: &str) -> bool {
    debug_assert!(!word
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii()));
    chars_match(s, word, |x, y| {
        (if x == '\u{212A}' {
            'k'
        } else {
            x.to_ascii_lowercase()
        }) == y
    })
}

/// Same length in chars, and `same` holds for each pair.
fn chars_match(s: &str, word: &str, same: impl Fn(char, char) -> bool) -> bool {
    let mut a = s.chars();
    word.chars().all(|y| a.next().is_some_and(|x| same(x, y))) && a.next().is_none()
}

/// `x == y` for slices of equal length, byte by byte in place: keys are
/// short, and wasm's `memcmp` is a byte loop behind a call.
#[inline(always)]
pub(crate) fn bytes_eq(x: &[u8], y: &[u8]) -> bool {
    x.iter().zip(y).all(|(p, q)| p == q)
}

/// How two keys match, when they do.
pub(crate) use crate::json::tree::KeyMatch as Case;

/// A JSON key against a struct field name as `encoding/json` matches them
/// (exact, else case-insensitive), folding ASCII case only: Go also folds
/// the Kelvin sign and long s onto `k` and `s`, which the checker does not
/// model. Cheap on the usual outcomes (different lengths or first letters,
/// or the same spelling); one compare tells an exact match, so callers need
/// no second `==` (a `memcmp` call in wasm).
#[inline(always)]
pub(crate) fn key_match(a: &str, b: &str) -> Option<Case> {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() != y.len() || x.first().map(|c| c | 0x20) != y.first().map(|c| c | 0x20) {
        None
    } else if bytes_eq(x, y) {
        Some(Case::Exact)
    } else {
        x.eq_ignore_ascii_case(y).then_some(Case::Folded)
    }
}

/// `a.eq_ignore_ascii_case(b)`, by [`key_match`].
#[inline(always)]
pub(crate) fn key_eq_ci(a: &str, b: &str) -> bool {
    key_match(a, b).is_some()
}

/// Go's `%q` (`strconv.Quote`) of plain text: quotes, backslash escapes
/// for quote, backslash and ASCII control characters; other text as is
/// (its `\u` escapes of unprintable Unicode are not reproduced).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Fields looked up in a JSON object the way Go's `encoding/json` matches
/// struct fields (go/src/encoding/json/decode.go, `object`: the exact name,
/// else the first case-insensitive one in key order).
impl<'a> TreeObject<'a> {
    /// The key actually used and its value.
    pub fn get_ci(&self, name: &str) -> Option<(&'a str, &'a TreeValue<'a>)> {
        self.get_ci_case(name).map(|(k, v, _)| (k, v))
    }

    /// [`TreeObject::get_ci`], and whether the key matched exactly or folded.
    pub fn get_ci_case(&self, name: &str) -> Option<(&'a str, &'a TreeValue<'a>, Case)> {
        self.get_matching(name, key_match)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `EqualFoldTests` of Go's `src/strings/strings_test.go` (golang/go),
    /// each row whose one side folds to ASCII lowercase checked with that
    /// side as the word (`αβδ`/`ΑΒΔ` has no ASCII side and is left out).
    #[test]
    fn equal_fold_go_table() {
        let table = [
            ("abc", "abc", true),
            ("ABcd", "ABcd", true),
            ("123abc", "123ABC", true),
            ("abc", "xyz", false),
            ("abc", "XYZ", false),
            ("abcdefghijk", "abcdefghijX", false),
            ("abcdefghijk", "abcdefghij\u{212A}", true),
            ("abcdefghijK", "abcdefghij\u{212A}", true),
            ("abcdefghijkz", "abcdefghij\u{212A}y", false),
            ("abcdefghijKz", "abcdefghij\u{212A}y", false),
            ("1", "2", false),
            ("utf-8", "US-ASCII", false),
        ];
        for (s, t, out) in table {
            for (text, other) in [(s, t), (t, s)] {
                if other.is_ascii() {
                    let word = other.to_ascii_lowercase();
                    assert_eq!(equal_fold(text, &word), out, "{text:?} {word:?}");
                }
            }
        }
        assert!(equal_fold("BE\u{17F}T", "best"));
        assert!(!equal_fold("kcpx", "kcp"));
    }

    #[test]
    fn to_lower() {
        assert!(to_lower_equals("TLS", "tls"));
        assert!(to_lower_equals("mTls", "mtls"));
        assert!(to_lower_equals("\u{212A}cp", "kcp"));
        // ToLower does not map long s to s (EqualFold does).
        assert!(!to_lower_equals("be\u{17F}t", "best"));
        assert!(!to_lower_equals("tlsx", "tls"));
        assert!(!to_lower_equals("tl", "tls"));
        assert!(!to_lower_equals("tl\u{0130}", "tli"));
    }

    #[test]
    fn key_eq_ci_is_eq_ignore_ascii_case() {
        let words = [
            "",
            "a",
            "A",
            "name",
            "NAME",
            "nAmE",
            "nam",
            "names",
            "retries",
            "Retries",
            "retrieS",
            "retriez",
            "mux.keepaliveInterval",
            "MUX.KEEPALIVEINTERVAL",
            "mux.keepaliveIntervaL",
            "mux\x0ekeepaliveInterval",
            "failTimeout",
            "FAILTIMEOUT",
            "failtimeout_",
            "é",
            "É",
            "ü12345678",
            "Ü12345678",
            "12345678",
            "1234567\x18",
            "@",
            "`",
            "[x]",
            "{x}",
            "chainGroup",
            "CHAINGROUP",
            "chain\x00roup",
        ];
        for a in words {
            for b in words {
                assert_eq!(key_eq_ci(a, b), a.eq_ignore_ascii_case(b), "{a:?} {b:?}");
                assert_eq!(key_match(a, b) == Some(Case::Exact), a == b, "{a:?} {b:?}");
            }
        }
    }
}
