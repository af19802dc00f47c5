//! The crate's JSON reader (`hop_policy::json`) against `serde_json::from_str`,
//! which it replaces on every entry point: the same `Value` (numbers in the
//! same form, compared through their text too, so `1` and `1.0`, `0.0` and
//! `-0.0` differ) or the same error message, line and column; and its writer
//! (`json::to_text`) against serde_json's `Display` on every value read; and
//! the limits it counts while reading (`limits::from_str_within`) against the
//! walk over the value read (`limits::check_value`).
//!
//! Inputs: every document the tests and fuzz seeds ship (whole files and each
//! line of a JSON-lines file), every prefix of the smaller ones, byte-level
//! mutations of all of them, and generated numbers and strings.

use serde_json::Value;
use std::path::Path;

fn answer(text: &str) -> Result<(String, Value), String> {
    hop_policy::json::from_str(text)
        .map(|v| (v.to_string(), v))
        .map_err(|e| e.to_string())
}

fn expected(text: &str) -> Result<(String, Value), String> {
    serde_json::from_str::<Value>(text)
        .map(|v| (v.to_string(), v))
        .map_err(|e| e.to_string())
}

/// Compares one text; returns whether it was JSON.
fn compare(text: &str, what: &str) -> bool {
    // serde_json's `raw_value` reading of this one key is the documented difference.
    if text.contains("$serde_json::private::RawValue") {
        return false;
    }
    let want = expected(text);
    // A surrogate escape outside a pair is the other documented difference:
    // serde_json refuses it, the crate reads U+FFFD as Go does
    // (src/json/read.rs tests that reading).
    if want
        .as_ref()
        .is_err_and(|e| e.contains("surrogate") || e.contains("hex escape"))
    {
        return false;
    }
    assert_eq!(answer(text), want, "{what}: {text:?}");
    // And the crate's writer prints it back as serde_json does.
    if let Ok((printed, value)) = &want {
        assert_eq!(
            &hop_policy::json::to_text(value),
            printed,
            "{what}: written back"
        );
    }
    want.is_ok()
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    // The committed seeds only: fuzz/corpus/<target>/ grows with local runs.
    let seeds = std::fs::read_dir(root.join("fuzz/corpus"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("seed-"))
        });
    let mut stack: Vec<_> = ["tests/data", "tests/golden_vectors", "www/examples"]
        .iter()
        .map(|d| root.join(d))
        .chain(seeds)
        .collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut docs = Vec::new();
    for p in files {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        if text.lines().count() > 1 {
            for (i, line) in text.lines().enumerate() {
                docs.push((format!("{name}:{}", i + 1), line.to_string()));
            }
        }
        docs.push((name, text));
    }
    docs
}

#[test]
fn every_shipped_document_reads_the_same() {
    let docs = documents();
    let valid = docs
        .iter()
        .filter(|(name, text)| compare(text, name))
        .count();
    println!("{} documents, {valid} of them JSON", docs.len());
    assert!(
        docs.len() > 3000 && valid > 800,
        "the corpus went missing: {} documents, {valid} JSON",
        docs.len()
    );
}

#[test]
fn truncated_and_mutated_documents_fail_or_read_the_same() {
    const BYTES: &[u8] = b"\"\\,:[]{}0-+e.E 9\nxu\x01/tfn";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut cases, mut valid) = (0, 0);
    for (name, text) in documents() {
        let bytes = text.as_bytes();
        // Every small document; one in six of the larger ones (the whole
        // corpus takes minutes in a debug build).
        if bytes.is_empty() || (bytes.len() > 600 && rng.below(6) != 0) {
            continue;
        }
        // Every prefix of the smallest documents, some of the others.
        let cuts: Vec<usize> = if bytes.len() <= 200 {
            (0..bytes.len()).collect()
        } else {
            (0..12).map(|_| rng.below(bytes.len())).collect()
        };
        for cut in cuts {
            if let Some(prefix) = text.get(..cut) {
                cases += 1;
                valid += usize::from(compare(prefix, &format!("{name} cut at {cut}")));
            }
        }
        // Replaced, inserted and deleted bytes at random places.
        for _ in 0..if bytes.len() <= 600 { 24 } else { 8 } {
            let at = rng.below(bytes.len());
            let b = BYTES[rng.below(BYTES.len())];
            let mut m = bytes.to_vec();
            match rng.below(3) {
                0 => m[at] = b,
                1 => m.insert(at, b),
                _ => {
                    m.remove(at);
                }
            }
            if let Ok(s) = String::from_utf8(m) {
                cases += 1;
                valid += usize::from(compare(&s, &format!("{name} mutated at {at}")));
            }
        }
    }
    println!("{cases} truncated or mutated texts, {valid} of them still JSON");
    assert!(
        cases > 60_000 && valid > 1000,
        "{cases} cases, {valid} valid"
    );
}

#[test]
fn generated_numbers_read_the_same() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let digits = |rng: &mut Rng, n: usize| {
        (0..n)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect::<String>()
    };
    let mut valid = 0;
    for i in 0..60_000 {
        let mut t = String::new();
        if rng.below(3) == 0 {
            t.push('-');
        }
        let int_len = [1, 1, 2, 5, 15, 19, 20, 21, 25, 40, 330][rng.below(11)];
        t.push_str(&digits(&mut rng, int_len));
        if rng.below(2) == 0 {
            t.push('.');
            let n = [0, 1, 3, 10, 17, 20, 30, 400][rng.below(8)];
            t.push_str(&digits(&mut rng, n));
        }
        if rng.below(2) == 0 {
            t.push(['e', 'E'][rng.below(2)]);
            t.push_str(["", "+", "-"][rng.below(3)]);
            let n = [0, 1, 2, 3, 4, 10, 11][rng.below(7)];
            t.push_str(&digits(&mut rng, n));
        }
        let t = match i % 3 {
            0 => t,
            1 => format!("[{t}]"),
            _ => format!("{{\"n\":{t} }}"),
        };
        valid += usize::from(compare(&t, "generated number"));
    }
    assert!(valid > 20_000, "{valid}");
}

#[test]
fn generated_strings_read_the_same() {
    const PIECES: &[&str] = &[
        "a",
        "é",
        "中",
        "😀",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b",
        "\\u0041",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud83d",
        "\\ude00",
        "\\ud83d\\u0041",
        "\\ud83dx",
        "\\u12",
        "\\uZZZZ",
        "\\x",
        "\t",
        "\u{1}",
        " ",
        "        ",
    ];
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut valid = 0;
    for _ in 0..30_000 {
        let mut t = String::from("\"");
        for _ in 0..rng.below(12) {
            t.push_str(PIECES[rng.below(PIECES.len())]);
        }
        if rng.below(8) != 0 {
            t.push('"');
        }
        valid += usize::from(compare(&t, "generated string"));
        valid += usize::from(compare(&format!("{{{t}:1}}"), "generated key"));
    }
    assert!(valid > 5_000, "{valid}");
}

/// The limits counted while reading (`limits::from_str_within`) against the
/// walk over the value read (`limits::check_value`), on every shipped
/// document, at the defaults and at limits small enough for most of them to
/// be over one: over a limit exactly when the walk is, with a path into the
/// document. Neither counts nodes or hops (the planner does, on its types).
#[test]
fn limits_read_agree_with_the_walk() {
    use hop_policy::limits::{check_value, Limits};
    use hop_policy::limits::{from_str_within, ReadError};
    let mut tries = vec![Limits::default()];
    for n in [1usize, 2, 4, 8] {
        tries.push(Limits {
            max_depth: n,
            max_string_len: n * 4,
            ..Limits::default()
        });
    }
    // Counts are the planner's: limits of 1 node, hop and node per hop
    // leave every document readable.
    let counts = Limits {
        max_nodes: 1,
        max_hops: 1,
        max_nodes_per_hop: 1,
        ..Limits::default()
    };
    let mut over = 0;
    for (what, text) in documents() {
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        assert_eq!(
            from_str_within(&text, &counts).ok(),
            Some(v.clone()),
            "{what}"
        );
        assert_eq!(check_value(&v, &counts), Ok(()), "{what}");
        for limits in &tries {
            match (from_str_within(&text, limits), check_value(&v, limits)) {
                (Ok(read), Ok(())) => assert_eq!(read, v, "{what}"),
                (Err(ReadError::Limit(r)), Err(w)) => {
                    over += 1;
                    assert!(r.actual > r.max, "{what}: {r:?}");
                    let readers = ["maxDepth", "maxStringLen"];
                    assert!(
                        readers.contains(&r.limit) && readers.contains(&w.limit),
                        "{what}"
                    );
                    assert!(v.pointer(&r.path).is_some(), "{what}: {r:?}");
                }
                (r, w) => panic!("{what} {limits:?}: read {r:?}, walk {w:?}"),
            }
        }
    }
    assert!(over > 500, "{over}");
}
