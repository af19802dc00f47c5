//! The tree as a serde `Deserializer`: typed inputs (a tunnel request, a
//! redeploy's tables, a forward's context) are read straight from the
//! document tree the reader built, with no `serde_json::Value` between.
//!
//! It answers every call as serde_json's `Deserializer for &Value` does
//! (`serde_json/src/value/de.rs`), errors included: the same message (in
//! [`Error`], worded as `serde_json::Error` words it), the same `Unexpected`
//! for each kind of value, the same "fewer elements in array/map" when a
//! visitor leaves items unread, numbers handed over as
//! `serde_json::Number`'s own `deserialize_any` hands them. Two
//! differences: an object key is always read as a string (serde_json's
//! `Value` parses a key as a number when an integer key is asked for; no
//! input type of the crate has integer keys), and a struct is read only
//! from an object. serde_json also fills a struct from an array, field by
//! field in declaration order: no input of the panel is written that way
//! (the server reads these rows and bodies as objects), so an array is
//! refused as any other value that is not an object, and the `.wasm` does
//! not carry every input type's array reader (BENCH.md).

use super::tree::{TreeObject, TreeValue};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, EnumAccess, Error as _, MapAccess, SeqAccess, Unexpected, VariantAccess,
    Visitor,
};
use std::fmt;

/// Why a typed input could not be read from the tree: serde_json's message
/// for the same value and type, word for word (`serde_json/src/error.rs`,
/// `JsonUnexpected`; serde's `Unexpected` text for the rest). Its own type
/// rather than `serde_json::Error` because serde's `Display` of an
/// `Unexpected` prints a float through core's float formatter, which then
/// lands in the `.wasm` though serde_json never takes that branch.
///
/// Boxed once more, as serde_json boxes its own: one pointer keeps every
/// `Result` a reader returns small.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::box_collection)]
pub struct Error(Box<String>);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error(Box::new(msg.to_string()))
    }

    #[cold]
    fn invalid_type(unexpected: Unexpected, expected: &dyn de::Expected) -> Error {
        Error::not_expected("type", unexpected, expected)
    }

    #[cold]
    fn invalid_value(unexpected: Unexpected, expected: &dyn de::Expected) -> Error {
        Error::not_expected("value", unexpected, expected)
    }
}

impl Error {
    /// "invalid type: ..." or "invalid value: ...", `what` being the word.
    fn not_expected(what: &str, unexpected: Unexpected, expected: &dyn de::Expected) -> Error {
        Error::custom(format_args!(
            "invalid {what}: {}, expected {expected}",
            Shown(unexpected)
        ))
    }
}

/// An unexpected value as serde_json names it: `null`, a float by its
/// shortest digits (`zmij`, as serde_json prints it), the rest as serde does.
struct Shown<'a>(Unexpected<'a>);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Unexpected::*;
        match self.0 {
            Unit => f.write_str("null"),
            Float(v) => write!(f, "floating point `{}`", zmij::Buffer::new().format(v)),
            Bool(b) => write!(f, "boolean `{b}`"),
            Unsigned(i) => write!(f, "integer `{i}`"),
            Signed(i) => write!(f, "integer `{i}`"),
            Char(c) => write!(f, "character `{c}`"),
            Str(s) => write!(f, "string {s:?}"),
            Bytes(_) => f.write_str("byte array"),
            Option => f.write_str("Option value"),
            NewtypeStruct => f.write_str("newtype struct"),
            Seq => f.write_str("sequence"),
            Map => f.write_str("map"),
            Enum => f.write_str("enum"),
            UnitVariant => f.write_str("unit variant"),
            NewtypeVariant => f.write_str("newtype variant"),
            TupleVariant => f.write_str("tuple variant"),
            StructVariant => f.write_str("struct variant"),
            Other(other) => f.write_str(other),
        }
    }
}

/// A number to its visitor as serde_json's `Number::deserialize_any` hands
/// it over, with this module's error.
fn visit_number<'de, V: Visitor<'de>>(
    n: &serde_json::Number,
    visitor: V,
) -> Result<V::Value, Error> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

impl<'a> TreeValue<'a> {
    /// What a type error names this value as (serde_json's own choice per
    /// kind of value).
    fn unexpected(&self) -> Unexpected<'a> {
        match *self {
            TreeValue::Null => Unexpected::Unit,
            TreeValue::Bool(b) => Unexpected::Bool(b),
            TreeValue::Num(n) => number_unexpected(n),
            TreeValue::Str(s) => Unexpected::Str(s),
            TreeValue::Arr(_) => Unexpected::Seq,
            TreeValue::Object(_) => Unexpected::Map,
        }
    }

    fn invalid_type(&self, expected: &dyn de::Expected) -> Error {
        Error::invalid_type(self.unexpected(), expected)
    }
}

fn number_unexpected(n: &serde_json::Number) -> Unexpected<'static> {
    if let Some(u) = n.as_u64() {
        Unexpected::Unsigned(u)
    } else if let Some(i) = n.as_i64() {
        Unexpected::Signed(i)
    } else {
        Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// A number field: the number's own reading, anything else a type error.
macro_rules! number_field {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self {
                TreeValue::Num(n) => visit_number(n, visitor),
                _ => Err(self.invalid_type(&visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &'de TreeValue<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Null => visitor.visit_unit(),
            TreeValue::Bool(b) => visitor.visit_bool(*b),
            TreeValue::Num(n) => visit_number(n, visitor),
            TreeValue::Str(s) => visitor.visit_borrowed_str(s),
            TreeValue::Arr(items) => visit_items(items, visitor),
            TreeValue::Object(o) => visit_entries(o, visitor),
        }
    }

    number_field! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            TreeValue::Str(variant) => visitor.visit_enum(Variant {
                name: variant,
                value: None,
            }),
            TreeValue::Object(o) => {
                let mut entries = o.iter();
                match (entries.next(), entries.next()) {
                    (Some((name, value)), None) => visitor.visit_enum(Variant {
                        name,
                        value: Some(value),
                    }),
                    _ => Err(Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            other => Err(Error::invalid_type(other.unexpected(), &"string or map")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Bool(b) => visitor.visit_bool(*b),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Str(s) => visitor.visit_borrowed_str(s),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Str(s) => visitor.visit_borrowed_str(s),
            TreeValue::Arr(items) => visit_items(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Arr(items) => visit_items(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            TreeValue::Object(o) => visit_entries(o, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            TreeValue::Object(o) => visit_entries(o, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// An array's items to `visitor`; items it leaves unread are an error.
fn visit_items<'de, V: Visitor<'de>>(
    items: &'de [TreeValue<'de>],
    visitor: V,
) -> Result<V::Value, Error> {
    let mut seq = Items(items.iter());
    let out = visitor.visit_seq(&mut seq)?;
    match seq.0.len() {
        0 => Ok(out),
        _ => Err(Error::invalid_length(
            items.len(),
            &"fewer elements in array",
        )),
    }
}

/// An object's entries, in key order, to `visitor`; entries it leaves
/// unread are an error.
fn visit_entries<'de, V: Visitor<'de>>(
    object: &TreeObject<'de>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut map = Entries {
        entries: object.iter(),
        left: object.len(),
        value: None,
    };
    let out = visitor.visit_map(&mut map)?;
    match map.left {
        0 => Ok(out),
        _ => Err(Error::invalid_length(
            object.len(),
            &"fewer elements in map",
        )),
    }
}

struct Items<'de>(std::slice::Iter<'de, TreeValue<'de>>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(v)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries<'de, I> {
    entries: I,
    /// Entries not yet read.
    left: usize,
    /// The value of the key just read.
    value: Option<&'de TreeValue<'de>>,
}

impl<'de, I> MapAccess<'de> for Entries<'de, I>
where
    I: Iterator<Item = (&'de str, &'de TreeValue<'de>)>,
{
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.left -= 1;
        self.value = Some(value);
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// An enum's variant: its name, and its content when it was `{name: content}`.
struct Variant<'de> {
    name: &'de str,
    value: Option<&'de TreeValue<'de>>,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.name))?;
        Ok((name, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(value) => serde::Deserialize::deserialize(value),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(value),
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(TreeValue::Arr([])) => visitor.visit_unit(),
            Some(TreeValue::Arr(items)) => visit_items(items, visitor),
            Some(other) => Err(Error::invalid_type(other.unexpected(), &"tuple variant")),
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(TreeValue::Object(o)) => visit_entries(o, visitor),
            Some(other) => Err(Error::invalid_type(other.unexpected(), &"struct variant")),
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}

#[cfg(test)]
use super::tree::{read, Arena};

#[cfg(test)]
mod tests {
    use super::{read, Arena};
    use serde::Deserialize;
    use serde_json::Value;
    use std::collections::BTreeMap;
    use std::fmt::Debug;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Row {
        id: i64,
        #[serde(default)]
        in_ip: Option<String>,
        #[serde(default)]
        ports: Vec<u16>,
        #[serde(default)]
        kind: Option<Kind>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Kind {
        Plain,
        Weighted(u8),
        Pair(i8, i8),
        Named { name: String },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Unit;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Wrapped(f64);

    /// `T` read from the tree of `text` and from serde_json's `Value` of it:
    /// the same value, or the same error message.
    fn same<T: for<'de> Deserialize<'de> + PartialEq + Debug>(text: &str) -> Result<T, String> {
        let arena = Arena::new();
        let tree = read(text, &arena).unwrap();
        let from_tree = T::deserialize(&tree).map_err(|e| e.to_string());
        let value: Value = serde_json::from_str(text).unwrap();
        let from_value = T::deserialize(&value).map_err(|e| e.to_string());
        assert_eq!(from_tree, from_value, "{text}");
        from_tree
    }

    #[test]
    fn reads_what_serde_json_value_reads() {
        let row = same::<Row>(r#"{"id":7,"inIp":"1.2.3.4","ports":[80,443],"extra":[{}]}"#);
        assert_eq!(
            row,
            Ok(Row {
                id: 7,
                in_ip: Some("1.2.3.4".into()),
                ports: vec![80, 443],
                kind: None
            })
        );
        let kinds = [
            r#""Plain""#,
            r#"{"Weighted":3}"#,
            r#"{"Pair":[1,-2]}"#,
            r#"{"Named":{"name":"n"}}"#,
        ];
        for text in kinds {
            assert!(same::<Kind>(text).is_ok(), "{text}");
        }
        assert_eq!(same::<Unit>("null"), Ok(Unit));
        assert_eq!(same::<Wrapped>("1.5"), Ok(Wrapped(1.5)));
        assert_eq!(same::<Option<bool>>("null"), Ok(None));
        assert_eq!(same::<(i64, String)>(r#"[-1,"x"]"#), Ok((-1, "x".into())));
        let map = same::<BTreeMap<String, Option<u64>>>(r#"{"b":null,"a":18446744073709551615}"#);
        assert_eq!(
            map.map(|m| m.into_keys().collect::<Vec<_>>()),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(same::<char>(r#""é""#), Ok('é'));
        assert!(same::<serde::de::IgnoredAny>("[1,{}]").is_ok());
    }

    #[test]
    fn refuses_as_serde_json_value_refuses() {
        let refused = [
            (r#"{"id":"7"}"#, "invalid type: string \"7\", expected i64"),
            (
                r#"{"id":1.5}"#,
                "invalid type: floating point `1.5`, expected i64",
            ),
            (
                r#"{"id":-1,"ports":[70000]}"#,
                "invalid value: integer `70000`, expected u16",
            ),
            (r#"{"ports":[]}"#, "missing field `id`"),
            ("true", "invalid type: boolean `true`, expected struct Row"),
            (
                r#"{"id":1,"kind":{"Plain":null,"Weighted":1}}"#,
                "invalid value: map, expected map with a single key",
            ),
            (
                r#"{"id":1,"kind":7}"#,
                "invalid type: integer `7`, expected string or map",
            ),
            (
                r#"{"id":1,"kind":"Weighted"}"#,
                "invalid type: unit variant, expected newtype variant",
            ),
            (
                r#"{"id":1,"kind":{"Pair":{}}}"#,
                "invalid type: map, expected tuple variant",
            ),
            (
                r#"{"id":1,"kind":{"Named":[]}}"#,
                "invalid type: sequence, expected struct variant",
            ),
        ];
        for (text, message) in refused {
            assert_eq!(
                same::<Row>(text).map(|_| ()),
                Err(message.to_string()),
                "{text}"
            );
        }
        assert_eq!(
            same::<(i64,)>("[1,2]"),
            Err("invalid length 2, expected fewer elements in array".into())
        );
        assert_eq!(
            same::<Unit>("0"),
            Err("invalid type: integer `0`, expected unit struct Unit".into())
        );
        assert_eq!(
            same::<Vec<i64>>(r#"{"a":1}"#),
            Err("invalid type: map, expected a sequence".into())
        );
        assert!(same::<BTreeMap<String, i64>>(r#"[1]"#).is_err());
        assert!(same::<String>("-5").is_err());
        assert!(same::<bool>(r#""true""#).is_err());
    }

    /// Every kind of unexpected value is named as serde_json names it, in
    /// both messages that name one.
    #[test]
    fn names_each_unexpected_value_as_serde_json_does() {
        use serde::de::{Error as _, Unexpected::*};
        let floats = [
            1.5,
            -0.0,
            1e100,
            1.5e-7,
            123456789.0,
            f64::NAN,
            f64::INFINITY,
        ];
        let mut kinds = vec![Bool(true), Unsigned(u64::MAX), Signed(-3), Char('é')];
        kinds.extend(floats.map(Float));
        kinds.extend([
            Str("a \"b\"\n"),
            Bytes(b"x"),
            Unit,
            Option,
            NewtypeStruct,
            Seq,
        ]);
        kinds.extend([Map, Enum, UnitVariant, NewtypeVariant, TupleVariant]);
        kinds.extend([StructVariant, Other("something else")]);
        for kind in kinds {
            let ours = super::Error::invalid_type(kind, &"a row").to_string();
            let theirs = serde_json::Error::invalid_type(kind, &"a row").to_string();
            assert_eq!(ours, theirs);
            let ours = super::Error::invalid_value(kind, &"a row").to_string();
            let theirs = serde_json::Error::invalid_value(kind, &"a row").to_string();
            assert_eq!(ours, theirs);
        }
        let custom = "bad row at line 3 column 4";
        assert_eq!(
            super::Error::custom(custom).to_string(),
            serde_json::Error::custom(custom).to_string()
        );
    }

    /// The one refusal serde_json's `Value` does not make: a struct given as
    /// an array (which it fills field by field) is refused as any other
    /// value that is not an object; an enum's struct variant too, as before.
    #[test]
    fn a_struct_is_read_only_from_an_object() {
        let arena = Arena::new();
        let refused = |text: &str| {
            let tree = read(text, &arena).unwrap();
            Row::deserialize(&tree).map_err(|e| e.to_string())
        };
        for text in [
            r#"[3, null, [], "Plain"]"#,
            "[]",
            r#"[1, null, [], "Plain", 5]"#,
        ] {
            assert_eq!(
                refused(text),
                Err("invalid type: sequence, expected struct Row".to_string()),
                "{text}"
            );
            let value: Value = serde_json::from_str(text).unwrap();
            assert_ne!(
                Row::deserialize(&value).map_err(|e| e.to_string()),
                refused(text)
            );
        }
        assert_eq!(
            refused(r#"{"id":1,"kind":{"Named":["n"]}}"#),
            Err("invalid type: sequence, expected struct variant".to_string())
        );
        // Tuples and sequences are still read from arrays.
        assert_eq!(same::<(i64, String)>(r#"[-1,"x"]"#), Ok((-1, "x".into())));
    }
}
