//! The same input gives byte-identical JSON output, every time: over all
//! golden vectors and the seed corpus, each entry point runs twice in this
//! thread and once more on another thread (fresh hash seeds), and the three
//! outputs must be the same bytes.

mod hostile_common;
use hostile_common::*;
use serde_json::Value;

fn same_three_times(docs: Vec<(String, Value)>) {
    let docs2 = docs.clone();
    let other = std::thread::spawn(move || {
        docs2
            .iter()
            .map(|(_, d)| outputs_for_value(d))
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    for ((name, doc), third) in docs.iter().zip(other) {
        let first = outputs_for_value(doc);
        let second = outputs_for_value(doc);
        assert_eq!(first.len(), second.len());
        for (((entry, a), (_, b)), (_, c)) in first.iter().zip(&second).zip(&third) {
            assert!(a == b && a == c, "{}: {} differs between runs", name, entry);
        }
    }
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
    same_three_times(docs);
}

#[test]
fn corpus_documents_give_identical_output_every_run() {
    let corpus = corpus();
    assert!(corpus.len() > 300);
    let corpus = sampled(corpus, 6);
    let docs: Vec<(String, Value)> = corpus
        .iter()
        .filter_map(|(n, t)| serde_json::from_str(t).ok().map(|v| (n.clone(), v)))
        .collect();
    assert!(docs.len() > 60);
    same_three_times(docs);
    for (name, text) in corpus {
        assert_eq!(outputs_for_text(&text), outputs_for_text(&text), "{}", name);
    }
}
