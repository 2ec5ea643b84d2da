//! [`Error`]: why a pricing cannot be had (an unknown built-in name, a pricing file that does
//! not parse or names a price that cannot be).

/// The one error type of the crate: a pricing that cannot be read. The replay itself cannot
/// fail (a message without a timestamp is a call of unknown time, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`crate::Pricing::builtin`] was given a name the built-in table does not hold.
    #[error("unknown pricing `{name}`: the built-in ones are {known}")]
    UnknownPricing {
        /// The name asked for.
        name: String,
        /// The built-in names, comma-separated.
        known: String,
    },
    /// The pricing text is not JSON of the pricing shape (docs/COST.md, "Pricing"): the
    /// message is serde_json's, naming the field and the line and column.
    #[error("invalid pricing{}: {message}", entry_suffix(entry.as_deref()))]
    Parse {
        /// The entry of a map whose value is wrong, if the text is a map.
        entry: Option<String>,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A field parsed but its value cannot be a price or a cache rule.
    #[error("invalid pricing{}: field `{field}` {reason}", entry_suffix(entry.as_deref()))]
    Field {
        /// The entry of a map, if the text is a map.
        entry: Option<String>,
        /// The field's name.
        field: &'static str,
        /// What the value must be, and what it is.
        reason: String,
    },
    /// A map of pricings holds none, or more than one: a file must name the one to use.
    #[error(
        "a pricing file holds one entry, or a map of one entry; this one holds {count}{}",
        names_suffix(names)
    )]
    EntryCount {
        /// How many entries the map holds.
        count: usize,
        /// Their names, in order.
        names: Vec<String>,
    },
}

impl Error {
    /// Whether this is an unknown built-in name (a CLI then tries the name as a file).
    pub fn is_unknown_pricing(&self) -> bool {
        matches!(self, Error::UnknownPricing { .. })
    }
}

fn entry_suffix(entry: Option<&str>) -> String {
    entry.map_or_else(String::new, |e| format!(" (entry `{e}`)"))
}

fn names_suffix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    }
}
