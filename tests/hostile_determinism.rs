//! The same input gives byte-identical output, every time: over sampled
//! golden vectors and the seed corpus, every entry point runs in this process
//! twice (the second time over the documents in reverse order, so that a call
//! sees whatever state other calls left behind) and once in a child process
//! (another address space, heap layout, clock reading and hash keys: the
//! keyed maps of `lookup.rs` draw theirs per process), and all three
//! outputs must be the same bytes. Object keys in any order read the same:
//! the text entry points answer a document written with its keys reversed
//! as they answer it written in order.

mod hostile_common;
use hostile_common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Set in the child process: where it writes the outputs of its run.
const CHILD_OUT: &str = "HOP_POLICY_DETERMINISM_OUT";

/// FNV-1a: a digest of an output, the same in every process.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One line per output of `outputs(doc)`, for each document in the order
/// given by `order`, then put back in document order.
fn run<D>(
    docs: &[(String, D)],
    order: impl Iterator<Item = usize>,
    outputs: impl Fn(&D) -> Vec<(&'static str, String)>,
) -> Vec<Vec<String>> {
    let mut per_doc = vec![Vec::new(); docs.len()];
    for i in order {
        let (name, doc) = &docs[i];
        per_doc[i] = outputs(doc)
            .iter()
            .map(|(entry, out)| format!("{name}\t{entry}\t{:016x}\t{}", fnv(out), out.len()))
            .collect();
    }
    per_doc
}

/// The child's run of test `test`, which writes it to a file when it sees
/// [`CHILD_OUT`].
fn child_run(test: &str) -> Vec<Vec<String>> {
    let out: PathBuf = std::env::temp_dir().join(format!(
        "hop-policy-determinism-{}-{test}.txt",
        std::process::id()
    ));
    let child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([test, "--exact", "--test-threads=1", "--quiet"])
        .env(CHILD_OUT, &out)
        .output()
        .expect("the child process starts");
    assert!(
        child.status.success(),
        "the child run of {test} failed: {}\n{}{}",
        child.status,
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    let text = std::fs::read_to_string(&out).expect("the child wrote its outputs");
    let _ = std::fs::remove_file(&out);
    text.split("\n\n")
        .map(|doc| doc.lines().map(str::to_string).collect())
        .collect()
}

/// In the child: writes `per_doc` for the parent and returns true.
fn wrote_as_child(per_doc: impl FnOnce() -> Vec<Vec<String>>) -> bool {
    let Some(out) = std::env::var_os(CHILD_OUT) else {
        return false;
    };
    let text: Vec<String> = per_doc().iter().map(|lines| lines.join("\n")).collect();
    std::fs::write(out, text.join("\n\n")).expect("write the outputs");
    true
}

/// Runs `outputs` over `docs` here (in order, then in reverse) and in a
/// child process running `test`; all three must agree, output by output.
fn same_three_times<D>(
    test: &str,
    docs: &[(String, D)],
    outputs: impl Fn(&D) -> Vec<(&'static str, String)> + Copy,
) {
    if wrote_as_child(|| run(docs, 0..docs.len(), outputs)) {
        return;
    }
    let child = std::thread::scope(|s| {
        let child = s.spawn(|| child_run(test));
        let first = run(docs, 0..docs.len(), outputs);
        let second = run(docs, (0..docs.len()).rev(), outputs);
        assert_eq!(first, second, "a second run, in reverse order, differs");
        (first, child.join().expect("the child run"))
    });
    let (here, there) = child;
    assert_eq!(here.len(), there.len(), "documents run in the child");
    for (a, b) in here.iter().zip(&there) {
        assert!(!a.is_empty(), "a document without outputs");
        assert_eq!(a, b, "this process and the child differ");
    }
}

/// `v` as JSON text with every object's keys in reverse order.
fn reversed_keys(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let fields: Vec<String> = m
                .iter()
                .rev()
                .map(|(k, c)| format!("{}:{}", Value::from(k.as_str()), reversed_keys(c)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(reversed_keys).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The text entry points on `doc` written with its keys in order and reversed.
fn assert_key_order_does_not_matter(name: &str, doc: &Value) {
    let sorted = doc.to_string();
    let reversed = reversed_keys(doc);
    if sorted == reversed {
        return;
    }
    assert_eq!(
        serde_json::from_str::<Value>(&reversed).ok().as_ref(),
        Some(doc),
        "{name}: the reversed text reads back as the document"
    );
    assert_eq!(
        hop_policy::api::plan_json(&reversed, None),
        hop_policy::api::plan_json(&sorted, None),
        "{name}: planTunnelJson"
    );
    assert_eq!(
        hop_policy::api::check_json(&reversed, None),
        hop_policy::api::check_json(&sorted, None),
        "{name}: checkDocumentJson"
    );
}

#[test]
fn golden_vectors_give_identical_output_every_run() {
    let all = all_vectors();
    assert_eq!(all.len(), 613 + 200 + 309);
    let docs: Vec<(String, Value)> = sampled(all, 8)
        .into_iter()
        .flat_map(|v| {
            let name = v["name"].as_str().unwrap_or("?").to_string();
            [
                (name.clone() + "/input", v["input"].clone()),
                (name + "/expected", v["expected"].clone()),
            ]
        })
        .collect();
    assert!(docs.len() >= 2 * 139, "{} documents", docs.len());
    same_three_times(
        "golden_vectors_give_identical_output_every_run",
        &docs,
        outputs_for_value,
    );
    if std::env::var_os(CHILD_OUT).is_none() {
        for (name, doc) in &docs {
            assert_key_order_does_not_matter(name, doc);
        }
    }
}

#[test]
fn corpus_documents_give_identical_output_every_run() {
    let corpus = corpus();
    assert!(corpus.len() > 300);
    let corpus = sampled(corpus, 6);
    let json = corpus
        .iter()
        .filter(|(_, t)| serde_json::from_str::<Value>(t).is_ok())
        .count();
    assert!(json > 60, "{json} of the sampled files are JSON");
    // The text entry points, and every value entry point on what parses.
    same_three_times(
        "corpus_documents_give_identical_output_every_run",
        &corpus,
        |text: &String| outputs_for_text(text),
    );
}
