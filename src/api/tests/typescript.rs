//! A reader of the TypeScript the package ships, enough to check JSON values
//! against it: interfaces (and what they extend), aliases, unions, intersections, arrays, literal
//! types, index signatures and `Record`. Objects are closed: a key the
//! declaration does not name is an error, as is a required key left out.

use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub enum TsType {
    Union(Vec<TsType>),
    Both(Vec<TsType>),
    Array(Box<TsType>),
    Object(Vec<Member>, Option<Box<TsType>>),
    Literal(Value),
    Named(String, Vec<TsType>),
}

#[derive(Debug, Clone)]
pub struct Member {
    key: String,
    optional: bool,
    ty: TsType,
}

/// Every declaration by name: interfaces as object types, aliases as theirs.
pub struct Declarations(pub BTreeMap<String, TsType>);

fn tokens(text: &str) -> Vec<String> {
    let mut text = text.to_string();
    while let Some(start) = text.find("/*") {
        let end = text[start..]
            .find("*/")
            .map_or(text.len(), |e| start + e + 2);
        text.replace_range(start..end, " ");
    }
    let mut out = vec![];
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '"' {
            let end = (i + 1..chars.len())
                .find(|&j| chars[j] == c)
                .expect("closed string");
            out.push(chars[i..=end].iter().collect());
            i = end + 1;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let end = (i..chars.len())
                .find(|&j| !(chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '$'))
                .unwrap_or(chars.len());
            out.push(chars[i..end].iter().collect());
            i = end;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &str {
        self.tokens.get(self.at).map_or("", String::as_str)
    }
    fn next(&mut self) -> String {
        self.at += 1;
        self.tokens[self.at - 1].clone()
    }
    fn eat(&mut self, t: &str) -> bool {
        let hit = self.peek() == t;
        if hit {
            self.at += 1;
        }
        hit
    }
    fn expect(&mut self, t: &str) {
        assert_eq!(
            self.next(),
            t,
            "TypeScript: expected {t} at token {}",
            self.at
        );
    }

    fn ty(&mut self) -> TsType {
        self.eat("|");
        let mut options = vec![self.both()];
        while self.eat("|") {
            options.push(self.both());
        }
        if options.len() == 1 {
            options.remove(0)
        } else {
            TsType::Union(options)
        }
    }
    fn both(&mut self) -> TsType {
        let mut parts = vec![self.postfix()];
        while self.eat("&") {
            parts.push(self.postfix());
        }
        if parts.len() == 1 {
            parts.remove(0)
        } else {
            TsType::Both(parts)
        }
    }
    fn postfix(&mut self) -> TsType {
        let mut t = self.primary();
        while self.peek() == "[" && self.tokens.get(self.at + 1).map(String::as_str) == Some("]") {
            self.at += 2;
            t = TsType::Array(Box::new(t));
        }
        t
    }
    fn primary(&mut self) -> TsType {
        let t = self.next();
        match t.as_str() {
            "(" => {
                let inner = self.ty();
                self.expect(")");
                inner
            }
            "{" => self.members(),
            _ if t.starts_with('\'') || t.starts_with('"') => {
                TsType::Literal(Value::from(&t[1..t.len() - 1]))
            }
            _ if t.chars().all(|c| c.is_ascii_digit()) => {
                TsType::Literal(Value::from(t.parse::<i64>().expect("number")))
            }
            _ => {
                let mut args = vec![];
                if self.eat("<") {
                    args.push(self.ty());
                    while self.eat(",") {
                        args.push(self.ty());
                    }
                    self.expect(">");
                }
                TsType::Named(t, args)
            }
        }
    }
    /// The members of an object type, after its `{`, through its `}`.
    fn members(&mut self) -> TsType {
        let (mut members, mut index) = (vec![], None);
        while !self.eat("}") {
            if self.eat("[") {
                self.next();
                self.expect(":");
                self.expect("string");
                self.expect("]");
                self.expect(":");
                index = Some(Box::new(self.ty()));
            } else {
                let key = self.next();
                let optional = self.eat("?");
                self.expect(":");
                members.push(Member {
                    key,
                    optional,
                    ty: self.ty(),
                });
            }
            if !self.eat(";") {
                self.eat(",");
            }
        }
        TsType::Object(members, index)
    }
}

impl Declarations {
    /// Reads `export interface` and `export type` declarations; the class
    /// and anything else exported is skipped.
    pub fn read(texts: &[&str]) -> Declarations {
        let mut all = BTreeMap::new();
        // Interfaces that extend others: their members are merged in once
        // every declaration is read.
        let mut extending: Vec<(String, Vec<String>)> = Vec::new();
        for text in texts {
            let mut p = Parser {
                tokens: tokens(text),
                at: 0,
            };
            while p.at < p.tokens.len() {
                let t = p.next();
                if t == "interface" {
                    let name = p.next();
                    if p.eat("extends") {
                        let mut bases = vec![p.next()];
                        while p.eat(",") {
                            bases.push(p.next());
                        }
                        extending.push((name.clone(), bases));
                    }
                    p.expect("{");
                    assert!(
                        all.insert(name.clone(), p.members()).is_none(),
                        "{name} twice"
                    );
                } else if t == "type" && p.tokens.get(p.at + 1).map(String::as_str) == Some("=") {
                    let name = p.next();
                    p.expect("=");
                    assert!(all.insert(name.clone(), p.ty()).is_none(), "{name} twice");
                    p.eat(";");
                }
            }
        }
        for (name, bases) in extending {
            let mut inherited = Vec::new();
            for base in &bases {
                match all.get(base) {
                    Some(TsType::Object(members, None)) => inherited.extend(members.clone()),
                    other => panic!("{name} extends {base}, not a plain interface: {other:?}"),
                }
            }
            if let Some(TsType::Object(members, _)) = all.get_mut(&name) {
                members.extend(inherited);
            }
        }
        Declarations(all)
    }

    /// Names used by some declaration that none declares.
    pub fn unresolved(&self) -> Vec<String> {
        fn walk(t: &TsType, d: &Declarations, out: &mut Vec<String>) {
            match t {
                TsType::Union(ts) | TsType::Both(ts) => ts.iter().for_each(|t| walk(t, d, out)),
                TsType::Array(t) => walk(t, d, out),
                TsType::Object(ms, index) => {
                    ms.iter().for_each(|m| walk(&m.ty, d, out));
                    index.iter().for_each(|t| walk(t, d, out));
                }
                TsType::Literal(_) => {}
                TsType::Named(n, args) => {
                    let builtin = ["string", "number", "boolean", "null", "Record", "never"];
                    if !builtin.contains(&n.as_str()) && !d.0.contains_key(n) {
                        out.push(n.clone());
                    }
                    args.iter().for_each(|t| walk(t, d, out));
                }
            }
        }
        let mut out = vec![];
        self.0.values().for_each(|t| walk(t, self, &mut out));
        out
    }

    /// Checks `v` against the declared type `name`.
    pub fn check(&self, name: &str, v: &Value) -> Result<(), String> {
        let t = Parser {
            tokens: tokens(name),
            at: 0,
        }
        .ty();
        self.accepts(&t, v, "")
    }

    fn accepts(&self, t: &TsType, v: &Value, at: &str) -> Result<(), String> {
        let wrong = || Err(format!("{at}: {v} is not {t:?}"));
        match t {
            TsType::Union(ts) => {
                if ts.iter().any(|t| self.accepts(t, v, at).is_ok()) {
                    Ok(())
                } else {
                    let why: Vec<String> = ts
                        .iter()
                        .filter_map(|t| self.accepts(t, v, at).err())
                        .collect();
                    Err(format!("{at}: no option of the union accepts {v}: {why:?}"))
                }
            }
            TsType::Both(ts) => ts.iter().try_for_each(|t| self.accepts(t, v, at)),
            TsType::Array(item) => match v {
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, x)| self.accepts(item, x, &format!("{at}/{i}"))),
                _ => wrong(),
            },
            // `{}`: any value but null and undefined.
            TsType::Object(members, None) if members.is_empty() => {
                if v.is_null() {
                    wrong()
                } else {
                    Ok(())
                }
            }
            TsType::Object(members, index) => {
                let Value::Object(map) = v else {
                    return wrong();
                };
                for m in members {
                    match map.get(&m.key) {
                        Some(x) => self.accepts(&m.ty, x, &format!("{at}/{}", m.key))?,
                        None if m.optional => {}
                        None => return Err(format!("{at}: required key {} is missing", m.key)),
                    }
                }
                for (k, x) in map {
                    if members.iter().any(|m| &m.key == k) {
                        continue;
                    }
                    match index {
                        Some(t) => self.accepts(t, x, &format!("{at}/{k}"))?,
                        None => return Err(format!("{at}: key {k} is not declared")),
                    }
                }
                Ok(())
            }
            TsType::Literal(l) => {
                let same = match (l, v) {
                    (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
                    _ => l == v,
                };
                if same {
                    Ok(())
                } else {
                    wrong()
                }
            }
            TsType::Named(n, args) => match (n.as_str(), v) {
                ("string", Value::String(_))
                | ("number", Value::Number(_))
                | ("boolean", Value::Bool(_))
                | ("null", Value::Null) => Ok(()),
                ("string" | "number" | "boolean" | "null" | "never", _) => wrong(),
                ("Record", Value::Object(map)) => map
                    .iter()
                    .try_for_each(|(k, x)| self.accepts(&args[1], x, &format!("{at}/{k}"))),
                ("Record", _) => wrong(),
                _ => match self.0.get(n) {
                    Some(t) => self.accepts(t, v, at).map_err(|e| format!("{n}: {e}")),
                    None => Err(format!("{at}: {n} is not declared")),
                },
            },
        }
    }
}
