//! The checker's arena tree (`json/tree.rs`) against the `serde_json::Value`
//! route and the limit walk: tests that need the crate's encoder and limits,
//! so they live outside `json/`, which uses nothing of the crate.

use crate::json::tree::{read, Arena, TreeValue};
use crate::limits::Limits;
use serde_json::Value;

/// What the `serde_json::Value` route makes of `text`: the tree built
/// from the value (its `Debug` text), and the value.
fn value_route(text: &str) -> Result<(String, Value), String> {
    let v: Value = crate::json::from_str(text).map_err(|e| e.to_string())?;
    let arena = Arena::new();
    Ok((format!("{:?}", crate::encode::to_tree(&v, &arena)), v))
}

/// The tree the reader builds of `text`, as [`value_route`] gives it.
fn tree_route(text: &str) -> Result<(String, Value), String> {
    let arena = Arena::new();
    let t = read(text, &arena).map_err(|e| e.to_string())?;
    Ok((format!("{t:?}"), crate::encode::to_value(&t)))
}

fn same(text: &str) {
    let v: Value = serde_json::from_str(text).unwrap();
    let arena = Arena::new();
    let t = read(text, &arena).unwrap();
    assert_eq!(crate::encode::to_value(&t), v, "{}", text);
    assert_eq!(t.to_string(), v.to_string(), "{}", text);
    assert_eq!(tree_route(text), value_route(text), "{}", text);
}

#[test]
fn behaves_like_serde_json_value() {
    same(
        r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0.1e-5,"x\u00e9\n",null,true,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#,
    );
    // A repeated key keeps its last value, in small and large objects.
    same(r#"[{"k":1,"k":2,"j":{"k":3},"k":4}]"#);
    let wide: Vec<String> = (0..40).rev().map(|i| format!("\"k{i}\":{i}")).collect();
    same(&format!("{{{},\"k7\":\"last\"}}", wide.join(",")));
    same(&format!("{{\"k7\":\"first\",{}}}", wide.join(",")));
    same(&format!("{{{}}}", wide.join(",")));
    let arena = Arena::new();
    let t = read(r#"{"a":1,"b":2,"a":3}"#, &arena).unwrap();
    let o = t.as_object().unwrap();
    assert_eq!(
        (o.len(), o.get("a").and_then(TreeValue::as_i64)),
        (2, Some(3))
    );
    same(r#""plain""#);
    same("18446744073709551615");
    // An ordinary key, as for the Go server (serde_json alone reads it as raw JSON text).
    let raw = read(r#"{"$serde_json::private::RawValue":"[1]"}"#, &arena).unwrap();
    assert_eq!(
        raw.get("$serde_json::private::RawValue")
            .and_then(TreeValue::as_str),
        Some("[1]")
    );
    assert_eq!(
        read("[1,]", &arena).unwrap_err().to_string(),
        "trailing comma at line 1 column 4"
    );
    let v: Value = serde_json::from_str(r#"{"b":1,"c":2,"a":3}"#).unwrap();
    let t = read(r#"{"b":1,"c":2,"a":3}"#, &arena).unwrap();
    let o = t.as_object().unwrap();
    assert_eq!(
        o.keys().collect::<Vec<_>>(),
        v.as_object().unwrap().keys().collect::<Vec<_>>()
    );
    assert_eq!(o.get("a").and_then(TreeValue::as_i64), Some(3));
}

#[test]
fn escapes_decode_as_serde_json_does() {
    for text in [
        r#""a\nb\t\"q\" \\ \/ \b\f\r""#,
        r#""\u00e9\u4e2d\uD83D\uDE00 end""#,
        r#"{"k\u0042":"v","kA":1,"\u006b":[]}"#,
        r#"["\u0000", "x\u001f"]"#,
        r#""ünïcödé \u00fc mixed 12345678901234567890""#,
        // A key repeated only after decoding is still a repeat.
        r#"{"a":1,"\u0061":2}"#,
    ] {
        same(text);
    }
    // A surrogate outside a pair: U+FFFD, as Go reads it, on both routes.
    for (text, want) in [
        (r#""\uD83D""#, "\u{fffd}"),
        (r#""\uD83Dx""#, "\u{fffd}x"),
        (r#""\uDE00""#, "\u{fffd}"),
        (r#""\uD83D\u0041""#, "\u{fffd}A"),
    ] {
        assert_eq!(
            tree_route(text).map(|t| t.1),
            Ok(Value::from(want)),
            "{text}"
        );
        assert_eq!(tree_route(text), value_route(text), "{text}");
    }
    for bad in [r#""\x""#, r#""\u12G4""#, "\"a\u{1}b\"", r#""\"#, r#""abc"#] {
        let want = serde_json::from_str::<Value>(bad).unwrap_err().to_string();
        assert_eq!(tree_route(bad), Err(want), "{bad}");
    }
}

/// Texts: the tests' documents, golden inputs and plans, and edge cases.
fn texts() -> Vec<String> {
    let mut texts: Vec<String> = vec![
        r#"{"b":1,"a":[1,-2,3.5,1e300,-0,0,0.1e-5,"x",null,true,false,{}],"c":{"z":0,"y":[]},"A":"Ü"}"#.into(),
        " [ 1 , 2 ]\n".into(), "[]".into(), "{}".into(), "0".into(), "-0".into(), "18446744073709551615".into(),
        "18446744073709551616".into(), "1234567890123456789".into(), "-9223372036854775808".into(), "1e400".into(),
        "01".into(), "1.".into(), ".5".into(), "-".into(), "1e".into(), "[1,]".into(), "{\"a\":1,}".into(), "[1 2]".into(),
        "{\"a\" 1}".into(), "{1:2}".into(), "tru".into(), "nul".into(), "[true,false,null]".into(), "\"a\\nb\"".into(),
        "\"tab\there\"".into(), "{\"k\":1,\"k\":2}".into(), r#"{"$serde_json::private::RawValue":"[1]"}"#.into(),
        "[1] x".into(), "\u{feff}[1]".into(), "".into(), "  ".into(), "[1e5, 2E-3, -1.5e+2, 1.0]".into(),
        r#"["\u00e9", "\ud83d\ude00", "a\\b", "\ud83d", "\udc00"]"#.into(),
        "\"1234567\\\"\"".into(), "\"12345678\\n\"".into(), "\"123456789abcdef\u{7f}\u{80}\"".into(),
        r#"{ "a" : "x" , "b" :[ "y" ,"z" ] ,"c": "w"}"#.into(), "{\n\t\"a\"\r\n:\n\"b\"\n}".into(), r#"{"a" 1}"#.into(),
        r#"{"a":"x" "b":1}"#.into(), r#"[ "x" , "y" ]"#.into(), r#"["x" "y"]"#.into(), r#"{"a": }"#.into(), r#"{ }"#.into(),
        r#"{"tunnel":{"chainNodes":[[1,2],[1,2,3]],"inNodeId":[1,2,3,4]},"nodes":[1,2,3],"x":{"hops":[{"nodes":[1,2,3]},{}]}}"#.into(),
        r#"[{"nodes":[1,2,3,4],"hops":[1,2,3]},{"tunnel":{},"nodes":[1,2,3,4]}]"#.into(),
    ];
    // Small and large objects, sorted, reversed and with a repeated key.
    for n in [2usize, 3, 16, 17, 40] {
        let keys: Vec<String> = (0..n).map(|i| format!("\"k{i:03}\":{i}")).collect();
        texts.push(format!("{{{}}}", keys.join(",")));
        texts.push(format!(
            "{{{}}}",
            keys.iter().rev().cloned().collect::<Vec<_>>().join(",")
        ));
        texts.push(format!("{{{},\"k001\":0}}", keys.join(",")));
        texts.push(format!(
            "{{\"k001\":0,{}}}",
            keys.iter().rev().cloned().collect::<Vec<_>>().join(",")
        ));
    }
    for depth in [99, 100, 101, 127, 128, 129, 200] {
        texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        texts.push(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
    }
    for dir in [
        "tests/data",
        "tests/data/check",
        "tests/data/hostile",
        "tests/data/sim",
        "fuzz/corpus/seed-check",
        "fuzz/corpus/seed-plan",
        "fuzz/corpus/seed-simulate",
        "fuzz/corpus/seed-lifecycle",
    ] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if let Ok(t) = std::fs::read_to_string(entry.path()) {
                // The golden vectors: each line, and its input and expected plan.
                for line in t.lines().filter(|l| l.starts_with('{')) {
                    if let Ok(v) = serde_json::from_str::<Value>(line) {
                        texts.push(v["input"].to_string());
                        texts.push(serde_json::to_string_pretty(&v["expected"]).unwrap());
                    }
                }
                texts.push(t);
            }
        }
    }
    texts
}

/// The tree builder and the `Value` builder of the one reader agree:
/// the same tree (the `Value` written into a tree by [`build`]) or the
/// same error.
#[test]
fn tree_matches_the_value_route() {
    let (mut hits, mut with_escapes) = (0, 0);
    for t in &texts() {
        let tree = tree_route(t);
        hits += usize::from(tree.is_ok());
        with_escapes += usize::from(tree.is_ok() && t.contains('\\'));
        assert_eq!(tree, value_route(t), "{}", t.get(..200).unwrap_or(t));
    }
    assert!(hits > 1000 && with_escapes > 10, "{hits} {with_escapes}");
}

/// Limits counted while reading agree with the walk over the `Value`
/// (`crate::limits::check_value_counting`): over a limit exactly when
/// it is, with an error that points at a value of the document, and the
/// same number of values. Neither counts nodes or hops (the planner does).
#[test]
fn limits_read_agree_with_the_walk() {
    let mut tries = vec![Limits::default()];
    for n in [0usize, 1, 2, 3, 5, 8, 40] {
        tries.push(Limits {
            max_depth: n,
            ..Limits::default()
        });
        tries.push(Limits {
            max_string_len: n,
            ..Limits::default()
        });
        tries.push(Limits {
            max_nodes: n,
            max_hops: n,
            max_nodes_per_hop: n,
            ..Limits::default()
        });
    }
    let mut over = 0;
    for t in texts().iter().filter(|t| t.len() < 50_000) {
        let Ok(v) = crate::json::from_str(t) else {
            continue;
        };
        for limits in &tries {
            let arena = Arena::new();
            let read = crate::limits::read_tree_within(t, limits, &arena);
            let walk = crate::limits::check_value_counting(&v, limits);
            let what = format!("{limits:?} {}", t.get(..120).unwrap_or(t));
            match (read, walk) {
                (Ok((_, values)), Ok(n)) => {
                    if !t.contains("\"k001\":0") && !t.contains("\"k\":") {
                        assert_eq!(values, n, "{what}");
                    }
                }
                (Err(crate::limits::ReadError::Limit(r)), Err(w)) => {
                    over += 1;
                    assert!(r.actual > r.max, "{what}");
                    let readers = ["maxDepth", "maxStringLen"];
                    assert!(
                        readers.contains(&r.limit) && readers.contains(&w.limit),
                        "{what}"
                    );
                    assert!(v.pointer(&r.path).is_some(), "{what} {}", r.path);
                }
                (r, w) => panic!("{what}: read {r:?}, walk {w:?}"),
            }
        }
    }
    assert!(over > 1000, "{over}");
}

/// A value as deep as the reader takes builds the tree its text reads
/// into, down to the last level.
#[test]
fn a_deep_value_builds_the_tree_its_text_reads_into() {
    let text = format!("{}{{\"k\":1}}{}", "[".repeat(126), "]".repeat(126));
    let v: Value = serde_json::from_str(&text).unwrap();
    let arena = Arena::new();
    let built = crate::encode::to_tree(&v, &arena);
    assert_eq!(
        format!("{built:?}"),
        format!("{:?}", read(&text, &arena).unwrap())
    );
    let mut cur = built;
    for level in 0..126 {
        match cur.as_array() {
            Some([inner]) => cur = *inner,
            _ => panic!("level {level} is not an array of one"),
        }
    }
    assert_eq!(cur.get("k").and_then(TreeValue::as_i64), Some(1));
}

/// The tree's serde `Deserializer` (`json/de.rs`) hands every document the
/// tests ship to a visitor as serde_json's `&Value` does: read into a
/// `Value` through either, each is the same (the value itself, but for the
/// one object key serde_json's visitor reads as raw JSON text).
#[test]
fn the_tree_deserializes_as_serde_json_value_does() {
    use serde::Deserialize;
    let mut read = 0;
    for t in &texts() {
        let Ok(v) = crate::json::from_str(t) else {
            continue;
        };
        let arena = Arena::new();
        let tree = crate::encode::to_tree(&v, &arena);
        let (from_tree, from_value) = (Value::deserialize(&tree), Value::deserialize(&v));
        assert_eq!(from_tree.ok(), from_value.ok(), "{t}");
        read += 1;
    }
    assert!(read > 1000, "{read} documents");
}
