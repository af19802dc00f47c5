//! A GOST config as agents receive it: services, and chains -> hops -> nodes,
//! read once from the JSON tree ([`crate::json::tree`]) for both the checker
//! and the simulator.
//!
//! Fields are found as the agent's decoder (Go's `encoding/json`) finds
//! struct fields: the exact key, else a case variant ([`Field`]). The
//! simulator reads a field only under its exact name, so each [`Field`] also
//! says which it was. Values stay as decoded where the two readers coerce
//! them differently (an integer, a duration): each applies its own rule to
//! the one value found here. Addresses are parsed by [`crate::go::net`].

use crate::go::coerce::{float64_to_int64, json_float64, json_int64, parse_bool, parse_int};
use crate::go::duration::parse_duration;
use crate::go::net::{normalize_host, port_number, split_host_port};
use crate::json::tree::{TreeObject, TreeValue};

/// A field of a config object as the agent's decoder finds it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Field<'a> {
    found: Option<(&'a str, &'a TreeValue<'a>)>,
    /// Found under its own name, and so was every field above it (the
    /// simulator counts a field only then; the checker reads case variants).
    exact: bool,
}

impl<'a> Field<'a> {
    /// The field `name` of `obj` (absent when there is no object).
    pub fn of(obj: Option<&TreeObject<'a>>, name: &str) -> Field<'a> {
        let found = obj.and_then(|o| o.get_ci_case(name));
        Field {
            found: found.map(|(k, v, _)| (k, v)),
            exact: matches!(found, Some((_, _, crate::go::strings::Case::Exact))),
        }
    }

    /// The field `name` of this field's object: exact only when this field
    /// is exact too.
    pub fn within(self, name: &str) -> Field<'a> {
        let inner = Field::of(self.object(), name);
        Field {
            exact: inner.exact && self.exact,
            ..inner
        }
    }

    /// The key that matched.
    pub fn key(self) -> Option<&'a str> {
        self.found.map(|(k, _)| k)
    }

    /// The value, as the agent decodes it.
    pub fn value(self) -> Option<&'a TreeValue<'a>> {
        self.found.map(|(_, v)| v)
    }

    /// The value when it is an object.
    pub fn object(self) -> Option<&'a TreeObject<'a>> {
        self.value()?.as_object()
    }

    /// The items of the value when it is an array.
    pub fn items(self) -> Option<&'a [TreeValue<'a>]> {
        self.value()?.as_array()
    }

    /// The value, only when found under its own name.
    pub fn exact(self) -> Option<&'a TreeValue<'a>> {
        self.value().filter(|_| self.exact)
    }
}

/// A field both readers read as a string only (absent when it is not
/// one), kept by copy: a rule reading it after the whole document was read
/// does not go back to the tree, which by then has left the cache.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Text<'a> {
    value: Option<&'a str>,
    exact: bool,
}

impl<'a> Text<'a> {
    pub fn of(obj: Option<&TreeObject<'a>>, name: &str) -> Text<'a> {
        Text::from(Field::of(obj, name))
    }

    /// The string, as the agent decodes it.
    pub fn str(self) -> Option<&'a str> {
        self.value
    }

    /// The string, only when found under its own name.
    pub fn exact_str(self) -> Option<&'a str> {
        self.value.filter(|_| self.exact)
    }
}

impl<'a> From<Field<'a>> for Text<'a> {
    fn from(f: Field<'a>) -> Text<'a> {
        Text {
            value: f.value().and_then(|v| v.as_str()),
            exact: f.exact,
        }
    }
}

/// A dialed or listening address as Go's `net.SplitHostPort` reads the
/// trimmed text: the host normalised ([`normalize_host`]) and a numeric port
/// ([`port_number`]). `None` when it has no such port.
pub fn host_and_port(addr: &str) -> Option<(String, i64)> {
    split_addr(addr.trim())
}

/// [`host_and_port`] of the text as it is (the checker's reading of a
/// dialed address, which it reports untrimmed).
pub fn split_addr(addr: &str) -> Option<(String, i64)> {
    let (host, port) = split_host_port(addr).ok()?;
    let port = port_number(port).ok()?;
    Some((normalize_host(host), i64::from(port)))
}

/// A metadata map as GOST's `metadata.Get` reads it: keys compared without
/// ASCII case, the first match in key order.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Metadata<'a>(Option<&'a TreeObject<'a>>);

impl<'a> Metadata<'a> {
    /// The map `v` holds (empty for anything but an object).
    pub fn of(v: Option<&'a TreeValue<'a>>) -> Metadata<'a> {
        Metadata(v.and_then(|v| v.as_object()))
    }

    pub fn get(self, key: &str) -> Option<&'a TreeValue<'a>> {
        self.0?
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// `mdutil.GetInt`: bool true -> 1, a number converted as Go's `int(v)`
    /// (an integer literal exactly), a string by `strconv.Atoi`, else 0.
    pub fn int(self, key: &str) -> Option<i64> {
        self.get(key).map(|v| match v {
            TreeValue::Bool(b) => i64::from(*b),
            TreeValue::Num(n) => json_int64(n).unwrap_or_else(|| float64_to_int64(json_float64(n))),
            TreeValue::Str(s) => parse_int(s).unwrap_or(0),
            _ => 0,
        })
    }

    /// `mdutil.GetBool`: a bool, or a string `strconv.ParseBool` reads as
    /// true. JSON numbers decode as floats, which GOST does not read as bools.
    pub fn bool(self, key: &str) -> Option<bool> {
        self.get(key).map(|v| match v {
            TreeValue::Bool(b) => *b,
            TreeValue::Str(s) => parse_bool(s) == Some(true),
            _ => false,
        })
    }

    /// `mdutil.GetDuration` in nanoseconds: numbers are whole seconds (Go's
    /// `int(v)`), strings are Go durations (surrounding spaces ignored) or
    /// else whole seconds by `strconv.Atoi`.
    pub fn duration_ns(self, key: &str) -> Option<i128> {
        self.get(key).map(|v| match v {
            TreeValue::Num(n) => i128::from(float64_to_int64(json_float64(n))) * 1_000_000_000,
            TreeValue::Str(s) => match parse_duration(s.trim()) {
                Ok(d) if d != 0 => i128::from(d),
                _ => parse_int(s)
                    .map(|n| i128::from(n) * 1_000_000_000)
                    .unwrap_or(0),
            },
            _ => 0,
        })
    }
}

/// One service (`ServiceConfig`). The fields both readers use are read
/// with it, the simulator's others on call ([`Service::addr`], ...): the
/// checker reads every service of a large config and needs none of them.
#[derive(Debug)]
pub(crate) struct Service<'a> {
    /// The whole object, for the checker's rules that read more of it.
    pub obj: &'a TreeObject<'a>,
    pub name: Text<'a>,
    /// `handler` (its key and object), when it is an object.
    pub handler: Option<(&'a str, &'a TreeObject<'a>)>,
    handler_field: Field<'a>,
    /// `handler.chain` and `handler.retries`.
    pub chain: Text<'a>,
    pub retries: Field<'a>,
}

impl<'a> Service<'a> {
    pub fn read(obj: &'a TreeObject<'a>) -> Service<'a> {
        let handler = Field::of(Some(obj), "handler");
        Service {
            obj,
            name: Text::of(Some(obj), "name"),
            handler: handler.key().zip(handler.object()),
            handler_field: handler,
            chain: Text::from(handler.within("chain")),
            retries: handler.within("retries"),
        }
    }

    /// `name`, when it is a string.
    pub fn name(&self) -> Option<&'a str> {
        self.name.str()
    }

    /// The listen address `addr`.
    pub fn addr(&self) -> Text<'a> {
        Text::of(Some(self.obj), "addr")
    }

    pub fn metadata(&self) -> Field<'a> {
        Field::of(Some(self.obj), "metadata")
    }

    /// `listener.type`.
    pub fn listener_type(&self) -> Text<'a> {
        Text::from(Field::of(Some(self.obj), "listener").within("type"))
    }

    /// `handler.metadata`.
    pub fn handler_metadata(&self) -> Field<'a> {
        self.handler_field.within("metadata")
    }

    /// `handler.type`.
    pub fn handler_type(&self) -> Text<'a> {
        Text::from(self.handler_field.within("type"))
    }

    /// The targets of GOST's local port-forward handler (handler type `tcp`,
    /// `udp` or `forward` with a `forwarder`), as it tries them; `None` for
    /// any other service.
    pub fn forwarder(&self) -> Option<Forwarder<'a>> {
        let kind = self.handler_type().str()?;
        if !["tcp", "udp", "forward"].contains(&kind) {
            return None;
        }
        let forwarder = Field::of(Some(self.obj), "forwarder");
        forwarder.object()?;
        let targets: Vec<&'a str> = items(forwarder.within("nodes"))
            .iter()
            .filter_map(|n| Text::of(n.as_object(), "addr").str())
            .collect();
        let selector = Metadata::of(forwarder.within("selector").value());
        let handler_md = Metadata::of(self.handler_metadata().value());
        Some(Forwarder {
            max_retries: handler_md
                .int("maxRetries")
                .or_else(|| handler_md.int("retry.max"))
                .filter(|m| *m > 0),
            targets,
            max_fails: selector.int("maxFails").filter(|m| *m > 0).unwrap_or(1),
            fail_timeout_ns: selector
                .duration_ns("failTimeout")
                .and_then(|ns| i64::try_from(ns).ok())
                .filter(|ns| *ns > 0),
        })
    }
}

/// A forward service's targets and how its handler walks them (go-gost
/// `x/handler/forward/local/handler.go:181-275`).
#[derive(Debug)]
pub(crate) struct Forwarder<'a> {
    /// `forwarder.nodes[].addr`, in order.
    pub targets: Vec<&'a str>,
    /// `handler.metadata.maxRetries` when positive.
    pub max_retries: Option<i64>,
    /// The target selector's fail filter: marks before a target is skipped,
    /// and for how long (`None`: GOST's default).
    pub max_fails: i64,
    pub fail_timeout_ns: Option<i64>,
}

impl Forwarder<'_> {
    /// How many targets one connection tries: `maxRetries`, else every
    /// target, each at most once (a try excludes the targets tried before).
    pub fn tries(&self) -> usize {
        let all = self.targets.len().max(1);
        match self.max_retries {
            Some(m) => usize::try_from(m).unwrap_or(usize::MAX).min(all),
            None => all,
        }
    }
}

/// One chain (`ChainConfig`), read on call: the checker needs its name and
/// [`Chain::first_hop_nodes`] (its rules walk the rest by their paths), the
/// simulator its hops ([`Chain::hops`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chain<'a> {
    pub obj: &'a TreeObject<'a>,
}

/// One hop of a chain (an item of `hops`, which may not be an object).
#[derive(Debug)]
pub(crate) struct Hop<'a> {
    pub name: Text<'a>,
    pub selector: Field<'a>,
    /// `selector.strategy`, `selector.maxFails`, `selector.failTimeout`
    /// (absent when the selector is not an object).
    pub strategy: Text<'a>,
    pub max_fails: Field<'a>,
    pub fail_timeout: Field<'a>,
    /// `nodes`; its items are [`Hop::nodes`].
    pub nodes_field: Field<'a>,
}

/// One node of a hop (an item of `nodes`, which may not be an object).
#[derive(Debug)]
pub(crate) struct Node<'a> {
    pub name: Text<'a>,
    pub addr: Text<'a>,
    /// [`host_and_port`] of `addr` under its own name.
    pub dial: Option<(String, i64)>,
    /// `connector.type` and `connector.metadata`.
    pub connector_type: Text<'a>,
    pub connector_metadata: Field<'a>,
    pub metadata: Field<'a>,
}

/// The items of a field's array (none for anything else).
fn items<'a>(f: Field<'a>) -> &'a [TreeValue<'a>] {
    f.items().unwrap_or_default()
}

impl<'a> Chain<'a> {
    pub fn read(obj: &'a TreeObject<'a>) -> Chain<'a> {
        Chain { obj }
    }

    /// `name`, when it is a string.
    pub fn name(&self) -> Text<'a> {
        Text::of(Some(self.obj), "name")
    }

    /// The field `hops`; its items are [`Chain::hops`].
    pub fn hops_field(&self) -> Field<'a> {
        Field::of(Some(self.obj), "hops")
    }

    /// Number of nodes (objects) in the first hop, `None` without a hop
    /// (or when the first is not an object).
    pub fn first_hop_nodes(&self) -> Option<usize> {
        let hop = items(self.hops_field()).first()?;
        hop.is_object().then(|| node_count(hop))
    }

    /// The items of `hops`, each read as it comes.
    pub fn hops(&self) -> impl Iterator<Item = Hop<'a>> {
        items(self.hops_field()).iter().map(Hop::read)
    }
}

/// Number of the nodes of hop `v` that are objects (what the agent can
/// dial), without reading the rest of the hop.
pub(crate) fn node_count(v: &TreeValue<'_>) -> usize {
    items(Field::of(v.as_object(), "nodes"))
        .iter()
        .filter(|n| n.is_object())
        .count()
}

impl<'a> Hop<'a> {
    pub fn read(v: &'a TreeValue<'a>) -> Hop<'a> {
        let obj = v.as_object();
        let selector = Field::of(obj, "selector");
        Hop {
            name: Text::of(obj, "name"),
            selector,
            strategy: Text::from(selector.within("strategy")),
            max_fails: selector.within("maxFails"),
            fail_timeout: selector.within("failTimeout"),
            nodes_field: Field::of(obj, "nodes"),
        }
    }

    /// The items of `nodes`, each read as it comes.
    pub fn nodes(&self) -> impl Iterator<Item = Node<'a>> {
        items(self.nodes_field).iter().map(Node::read)
    }
}

impl<'a> Node<'a> {
    fn read(v: &'a TreeValue<'a>) -> Node<'a> {
        let obj = v.as_object();
        let addr = Text::of(obj, "addr");
        let connector = Field::of(obj, "connector");
        Node {
            name: Text::of(obj, "name"),
            addr,
            dial: host_and_port(addr.exact_str().unwrap_or("")),
            connector_type: Text::from(connector.within("type")),
            connector_metadata: connector.within("metadata"),
            metadata: Field::of(obj, "metadata"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::tree::Arena;
    use serde_json::json;

    #[test]
    fn host_port() {
        assert_eq!(
            host_and_port("[2001:DB8::1]:443"),
            Some(("2001:db8::1".into(), 443))
        );
        assert_eq!(host_and_port(" 1.2.3.4:80 "), Some(("1.2.3.4".into(), 80)));
        assert_eq!(host_and_port("1.2.3.4"), None);
        assert_eq!(host_and_port(":99999"), None);
        assert_eq!(host_and_port("1.2.3.4:443:45003"), None);
        assert_eq!(host_and_port("::1:80"), None);
    }

    #[test]
    fn metadata_getters() {
        let v = json!({"i": true, "f": 3.9, "s": "7", "sp": " 7", "T": "T", "one": 1,
            "d1": 2.5, "d2": " 1m ", "d3": "5", "d4": "x", "N": 1});
        let arena = Arena::new();
        let tree = crate::encode::to_tree(&v, &arena);
        let md = Metadata::of(Some(&tree));
        assert_eq!(md.int("i"), Some(1));
        assert_eq!(md.int("F"), Some(3));
        assert_eq!(md.int("s"), Some(7));
        assert_eq!(md.int("sp"), Some(0));
        assert_eq!(md.int("missing"), None);
        assert_eq!(md.bool("t"), Some(true));
        assert_eq!(md.bool("one"), Some(false));
        assert_eq!(md.duration_ns("d1"), Some(2_000_000_000));
        assert_eq!(md.duration_ns("d2"), Some(60_000_000_000));
        assert_eq!(md.duration_ns("d3"), Some(5_000_000_000));
        assert_eq!(md.duration_ns("d4"), Some(0));
        // The first match in key order ("N" before "n"), not the exact key.
        let v = json!({"N": 1, "n": 2});
        let tree = crate::encode::to_tree(&v, &arena);
        assert_eq!(Metadata::of(Some(&tree)).int("n"), Some(1));
    }

    /// A field is found as Go's decoder finds it and says whether it was
    /// under its own name; the parse of a chain reads every hop and node.
    #[test]
    fn fields_and_chains() {
        let v = json!({"Name": "c", "hops": [
            {"name": "h", "selector": {"strategy": "fifo", "maxFails": 2},
             "nodes": [{"addr": " 10.0.0.1:80 ", "connector": {"type": "relay"}}, 5, {"Addr": "x:1"}]},
            "not a hop"]});
        let arena = Arena::new();
        let tree = arena.alloc(crate::encode::to_tree(&v, &arena));
        let chain = Chain::read(tree.as_object().expect("an object"));
        assert_eq!(chain.name().str(), Some("c"));
        assert_eq!(chain.name().exact_str(), None);
        assert_eq!(chain.hops_field().key(), Some("hops"));
        assert_eq!(chain.first_hop_nodes(), Some(2));
        let hops: Vec<Hop> = chain.hops().collect();
        assert_eq!(hops.len(), 2);
        let hop = &hops[0];
        assert_eq!(hop.name.exact_str(), Some("h"));
        assert_eq!(hop.strategy.exact_str(), Some("fifo"));
        assert_eq!(hop.max_fails.value().and_then(|v| v.as_i64()), Some(2));
        assert!(hop.fail_timeout.value().is_none());
        let nodes: Vec<Node> = hop.nodes().collect();
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[0].dial, Some(("10.0.0.1".into(), 80)));
        assert_eq!(nodes[0].connector_type.exact_str(), Some("relay"));
        assert!(nodes[1].addr.str().is_none());
        assert_eq!(nodes[2].addr.str(), Some("x:1"));
        assert_eq!(nodes[2].dial, None);
        assert!(hops[1].nodes().next().is_none() && hops[1].name.str().is_none());
    }

    #[test]
    fn services() {
        let v = json!({"name": "s", "addr": "[::]:8080",
            "handler": {"Chain": "c", "retries": 2, "metadata": {"hash": "host"}}});
        let arena = Arena::new();
        let tree = arena.alloc(crate::encode::to_tree(&v, &arena));
        let svc = Service::read(tree.as_object().expect("an object"));
        assert_eq!(svc.name(), Some("s"));
        let listen = host_and_port(svc.addr().exact_str().unwrap_or(""));
        assert_eq!(listen, Some(("::".to_string(), 8080)));
        assert_eq!(svc.handler.map(|(k, _)| k), Some("handler"));
        assert_eq!(svc.chain.str(), Some("c"));
        assert_eq!(svc.chain.exact_str(), None);
        assert_eq!(svc.retries.value().and_then(|v| v.as_i64()), Some(2));
        assert!(svc.retries.exact().is_some());
        // Under a case variant of `handler`, its fields are found but not exact.
        let v = json!({"Handler": {"retries": 2, "metadata": {}}});
        let tree = arena.alloc(crate::encode::to_tree(&v, &arena));
        let variant = Service::read(tree.as_object().expect("an object"));
        assert!(variant.retries.value().is_some() && variant.retries.exact().is_none());
        assert!(variant.handler_metadata().object().is_some());
        assert!(variant.handler_metadata().exact().is_none());
        assert_eq!(
            Metadata::of(svc.handler_metadata().exact())
                .get("HASH")
                .and_then(TreeValue::as_str),
            Some("host")
        );
    }
}
