//! Error location: where each key of a YAML document is (line and column), from a second,
//! location-only parse of the same text, so that checks made after parsing can point at
//! the key they refuse.
use super::*;

/// Where each key of a YAML document is: a second, location-only parse used to place errors
/// found after parsing.
pub struct Locator {
    root: Option<Spanned<Node>>,
}

enum Node {
    Map(Vec<(String, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Leaf,
}

impl Locator {
    pub fn new(text: &str) -> Locator {
        Locator {
            root: serde_saphyr::from_str::<Spanned<Node>>(text).ok(),
        }
    }

    /// The line and column of the dotted `path` (`training.lr.base`, `evaluation.opponents.2`),
    /// or of its deepest ancestor written in the file; `(1, 1)` when nothing of it is.
    pub fn find(&self, path: &str) -> (u64, u64) {
        self.lookup(path).0
    }

    /// Whether the dotted `path` is written in the text.
    pub fn contains(&self, path: &str) -> bool {
        self.lookup(path).1
    }

    /// The location of `path` or of its deepest written ancestor, and whether `path` itself
    /// is written.
    fn lookup(&self, path: &str) -> ((u64, u64), bool) {
        let Some(mut node) = self.root.as_ref() else {
            return ((1, 1), false);
        };
        // A mapping value is located at its key (where the reader looks for it).
        let mut found = (1, 1);
        for segment in path.split('.') {
            let next = match &node.value {
                Node::Map(entries) => entries
                    .iter()
                    .find(|(key, _)| key == segment)
                    .map(|(_, v)| v),
                Node::Seq(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                Node::Leaf => None,
            };
            match next {
                Some(child) => {
                    found = (child.referenced.line(), child.referenced.column());
                    node = child;
                }
                None => return (found, false),
            }
        }
        (found, true)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<KeyText>()? {
                    entries.push((key.0, map.next_value::<Spanned<Node>>()?));
                }
                Ok(Node::Map(entries))
            }
        }
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// A mapping key of any scalar type, as text.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText(String::new()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

