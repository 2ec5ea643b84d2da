//! Tool-call arguments as a JSON object: the string fields a tool-input elision hides, and the
//! arguments text its view form carries (docs/FORMATS.md, "View").

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// One top-level field of a tool call's arguments object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentField<'a> {
    /// The field name, unescaped.
    pub name: String,
    /// The field's string value, unescaped, or `None` when the value is not a JSON string.
    pub value: Option<String>,
    /// The value's JSON text as written.
    pub raw: &'a str,
    /// Byte range `[start, end)` of the value's JSON token within the arguments text.
    token: std::ops::Range<usize>,
}

/// The top-level fields of `arguments`, in the order written, when it is one JSON object with
/// no field named twice; `None` otherwise (not JSON, another JSON value, a duplicate name).
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::argument_fields;
///
/// let fields = argument_fields(r#"{"path": "a.rs", "n": 1}"#).unwrap();
/// assert_eq!(fields[0].name, "path");
/// assert_eq!(fields[0].value.as_deref(), Some("a.rs"));
/// assert_eq!(fields[1].value, None);
/// assert!(argument_fields("[1]").is_none());
/// ```
pub fn argument_fields(arguments: &str) -> Option<Vec<ArgumentField<'_>>> {
    let Fields(raw) = serde_json::from_str::<Fields<'_>>(arguments).ok()?;
    let base = arguments.as_ptr() as usize;
    let mut fields: Vec<ArgumentField<'_>> = Vec::with_capacity(raw.len());
    for (name, value) in raw {
        if fields.iter().any(|f| f.name == name) {
            return None;
        }
        let text = value.get();
        // A borrowed RawValue is a slice of the input; the check keeps that an asserted fact.
        let start = (text.as_ptr() as usize).checked_sub(base)?;
        let token = start..start + text.len();
        if arguments.get(token.clone()) != Some(text) {
            return None;
        }
        let value = if text.starts_with('"') {
            serde_json::from_str::<String>(text).ok()
        } else {
            None
        };
        fields.push(ArgumentField {
            name,
            value,
            raw: text,
            token,
        });
    }
    Some(fields)
}

/// `arguments` with the value of its top-level field `field` replaced by `replacement` as a
/// JSON string; every other byte is kept. `None` when `arguments` is not a JSON object with
/// one such field (see [`argument_fields`]).
pub fn replace_argument(arguments: &str, field: &str, replacement: &str) -> Option<String> {
    let fields = argument_fields(arguments)?;
    let token = &fields.iter().find(|f| f.name == field)?.token;
    let quoted = serde_json::to_string(replacement).expect("a string always serializes");
    let mut out = String::with_capacity(arguments.len() - token.len() + quoted.len());
    out.push_str(&arguments[..token.start]);
    out.push_str(&quoted);
    out.push_str(&arguments[token.end..]);
    Some(out)
}

/// The fields of a JSON object, in order, each value as its raw JSON text.
struct Fields<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = Fields<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    out.push(entry);
                }
                Ok(Fields(out))
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
    }
}
