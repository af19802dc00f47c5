//! Go's rules that the panel server and the GOST agent apply to the values
//! this crate reads: address splitting and IP literals (`net`), URL hosts
//! (`net/url`), duration strings (`time`), number and string conversions
//! (`strconv`, `encoding/json`, conversions between Go's numeric types) and
//! case folding (`strings`).
//! Each rule is written once here and tested against Go's own test tables.

pub mod coerce;
pub mod duration;
pub mod net;
pub mod strings;
pub mod url;
