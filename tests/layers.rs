//! The crate's foundation is a stack: `src/json/` (reader, writer, tree,
//! pointer), tests included, uses nothing else of the crate, so the domain modules build on
//! it and never the other way round (README, "Architecture").

use std::fs;
use std::path::Path;

/// The code of a Rust source (its tests included), without comments.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every use of another crate module in `text`'s code: `crate::x` with `x`
/// not `json`.
fn crate_uses(text: &str) -> Vec<String> {
    let code = code_of(text);
    code.match_indices("crate::")
        .map(|(at, _)| {
            let rest = &code[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !c.is_alphanumeric() && c != '_')
                .unwrap_or(rest.len());
            rest[..end].to_string()
        })
        .filter(|module| module != "json")
        .collect()
}

#[test]
fn json_uses_nothing_else_of_the_crate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/json");
    let mut files = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            files += 1;
            let uses = crate_uses(&fs::read_to_string(&path).unwrap());
            assert!(uses.is_empty(), "{} uses crate::{:?}", path.display(), uses);
        }
    }
    assert!(files >= 5, "{files} files in src/json");
}

#[test]
fn the_scan_sees_a_use_of_the_crate() {
    let text = "//! docs name crate::limits\nuse crate::limits::Limits;\nfn f() { crate::json::x(); }\n#[cfg(test)]\nmod tests {\n use crate::encode;\n}\n";
    assert_eq!(crate_uses(text), ["limits", "encode"]);
    assert!(crate_uses("use super::read; // crate::encode\n").is_empty());
}
