//! [`Pricing`]: a provider's prices and prompt-cache rules, from the built-in table
//! (`pricing.json`, data with its source and date) or a user's file of the same shape.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Error;

/// The built-in table: one entry per name, each with the page it was read from and the date.
const BUILTIN: &str = include_str!("../pricing.json");

/// A provider's prices, in USD per million tokens, and the rules of its prompt cache
/// (docs/COST.md, "The model").
///
/// The built-in entries ([`Pricing::builtin`]) are data, `pricing.json` in this crate, each
/// with its `source` page and the `date` it was read; [`Pricing::from_json`] reads a user's
/// file of the same shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing {
    /// The entry's name (`anthropic-5m`), or `custom` for a file of one unnamed entry.
    pub name: String,
    /// The model and cache the prices are for, as the table says (may be empty).
    pub model: String,
    /// USD per million input tokens not read from the cache (and, where writes are not
    /// billed, of the tokens the cache stores).
    pub input: f64,
    /// USD per million tokens written to the cache; read only when `writes_billed`.
    pub cache_write: f64,
    /// USD per million tokens read from the cache.
    pub cache_read: f64,
    /// USD per million output tokens.
    pub output: f64,
    /// How long a cached prefix lives after the request that wrote or read it: a later call
    /// after a longer gap finds nothing cached.
    pub ttl: Duration,
    /// A request (and a cached prefix) shorter than this many tokens is never cached.
    pub min_cached_tokens: u64,
    /// Cached tokens are counted in steps of this many after the first `min_cached_tokens`
    /// (OpenAI: 128; Anthropic: 1); at least 1 (a file with 0 is refused).
    pub cached_increment: u64,
    /// Whether writing the cache is billed at `cache_write` (Anthropic) or the written tokens
    /// are plain input at `input` (OpenAI).
    pub writes_billed: bool,
    /// The page the prices and rules were read from (may be empty for a user's file).
    pub source: String,
    /// The date they were read, `YYYY-MM-DD` (may be empty for a user's file).
    pub date: String,
}

/// One entry of a pricing file, as written (docs/COST.md, "Pricing"); a [`Pricing`] is
/// serialized in the same shape.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    model: String,
    input: f64,
    cache_write: f64,
    cache_read: f64,
    output: f64,
    ttl_secs: f64,
    min_cached_tokens: u64,
    cached_increment: u64,
    writes_billed: bool,
    #[serde(default)]
    source: String,
    #[serde(default)]
    date: String,
}

impl Serialize for Pricing {
    /// The pricing as one entry of a pricing file (its `name` included), which
    /// [`Pricing::from_json`] reads back.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Entry {
            name: Some(self.name.clone()),
            model: self.model.clone(),
            input: self.input,
            cache_write: self.cache_write,
            cache_read: self.cache_read,
            output: self.output,
            ttl_secs: self.ttl.as_secs_f64(),
            min_cached_tokens: self.min_cached_tokens,
            cached_increment: self.cached_increment,
            writes_billed: self.writes_billed,
            source: self.source.clone(),
            date: self.date.clone(),
        }
        .serialize(serializer)
    }
}

impl Pricing {
    /// The built-in entry `name`: `anthropic-5m` and `anthropic-1h` (Claude Sonnet 4.5 with a
    /// 5-minute or 1-hour cache) or `openai` (GPT-5).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownPricing`] when the table has no such entry.
    ///
    /// # Example
    ///
    /// ```
    /// let pricing = rehydrate_cost::Pricing::builtin("anthropic-5m")?;
    /// assert_eq!((pricing.input, pricing.cache_write, pricing.cache_read), (3.0, 3.75, 0.3));
    /// assert_eq!(pricing.ttl.as_secs(), 300);
    /// # Ok::<(), rehydrate_cost::Error>(())
    /// ```
    pub fn builtin(name: &str) -> Result<Pricing, Error> {
        let map = builtin_map();
        match map.get(name) {
            Some(value) => entry_pricing(Some(name), value.clone()),
            None => Err(Error::UnknownPricing {
                name: name.to_owned(),
                known: map.keys().cloned().collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The names of the built-in entries, sorted.
    pub fn builtin_names() -> Vec<String> {
        builtin_map().keys().cloned().collect()
    }

    /// A pricing from JSON text: one entry (an object with the fields `input`, `cache_write`,
    /// `cache_read`, `output` (USD per million tokens), `ttl_secs`, `min_cached_tokens`,
    /// `cached_increment`, `writes_billed`, and optionally `name`, `model`, `source` and
    /// `date`), or a map from a name to one such entry, as `pricing.json` is, holding exactly
    /// one entry. An entry's name is its key in a map, else its `name`, else `custom`.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] when the text is not JSON of that shape (serde_json's message names
    /// the missing, unknown or mistyped field), [`Error::Field`] when a price or the TTL is
    /// negative, over 10^6 USD per million tokens or not finite, a TTL over 10^9 seconds, or
    /// the increment is 0, and [`Error::EntryCount`] for a map of
    /// no entry or several.
    ///
    /// # Example
    ///
    /// ```
    /// let text = r#"{"name": "mine", "input": 2, "cache_write": 2.5, "cache_read": 0.2,
    ///     "output": 10, "ttl_secs": 300, "min_cached_tokens": 1024, "cached_increment": 1,
    ///     "writes_billed": true}"#;
    /// let pricing = rehydrate_cost::Pricing::from_json(text)?;
    /// assert_eq!((pricing.name.as_str(), pricing.input), ("mine", 2.0));
    /// let err = rehydrate_cost::Pricing::from_json(r#"{"input": 2}"#).unwrap_err();
    /// assert!(err.to_string().contains("missing field `cache_write`"));
    /// # Ok::<(), rehydrate_cost::Error>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Pricing, Error> {
        let parse = |entry: Option<String>, e: serde_json::Error| Error::Parse {
            entry,
            message: e.to_string(),
        };
        let map: Map<String, Value> = serde_json::from_str(text).map_err(|e| parse(None, e))?;
        if map.contains_key("input") {
            // One entry: parsed again from the text, so an error has its line and column.
            let entry: Entry = serde_json::from_str(text).map_err(|e| parse(None, e))?;
            return validated(None, entry);
        }
        if map.len() != 1 {
            return Err(Error::EntryCount {
                count: map.len(),
                names: map.keys().cloned().collect(),
            });
        }
        let (name, value) = map.into_iter().next().expect("the map holds one entry");
        entry_pricing(Some(&name), value)
    }

    /// The cost in USD of `uncached` input tokens, `write` tokens written to the cache, `read`
    /// tokens read from it and `output` tokens: each count times its price per million,
    /// divided by a million (writes at `input` when they are not billed).
    pub fn cost_usd(&self, uncached: u64, write: u64, read: u64, output: u64) -> f64 {
        let write_price = if self.writes_billed {
            self.cache_write
        } else {
            self.input
        };
        (uncached as f64 * self.input
            + write as f64 * write_price
            + read as f64 * self.cache_read
            + output as f64 * self.output)
            / 1e6
    }
}

/// The built-in table as a map (checked by the crate's tests to parse whole).
fn builtin_map() -> Map<String, Value> {
    serde_json::from_str(BUILTIN).unwrap_or_default()
}

/// The pricing of the map entry `name` holding `value`.
fn entry_pricing(name: Option<&str>, value: Value) -> Result<Pricing, Error> {
    let entry: Entry = serde_json::from_value(value).map_err(|e| Error::Parse {
        entry: name.map(str::to_owned),
        message: e.to_string(),
    })?;
    let mut pricing = validated(name, entry)?;
    if let Some(name) = name {
        name.clone_into(&mut pricing.name);
    }
    Ok(pricing)
}

/// The highest price an entry may name, in USD per million tokens: far above any provider's,
/// low enough that a session's cost stays a finite number.
const MAX_PRICE: f64 = 1e6;

/// The longest cache lifetime an entry may name, in seconds (about 31 years).
const MAX_TTL_SECS: f64 = 1e9;

/// `value` as an error line shows it: plain when short, in exponent form when huge.
fn compact(value: f64) -> String {
    if value.is_finite() && value.abs() < 1e15 {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// The pricing of `entry`, its values checked.
fn validated(map_name: Option<&str>, entry: Entry) -> Result<Pricing, Error> {
    let field = |field: &'static str, reason: String| Error::Field {
        entry: map_name.map(str::to_owned),
        field,
        reason,
    };
    for (name, value) in [
        ("input", entry.input),
        ("cache_write", entry.cache_write),
        ("cache_read", entry.cache_read),
        ("output", entry.output),
    ] {
        if !value.is_finite() || !(0.0..=MAX_PRICE).contains(&value) {
            return Err(field(
                name,
                format!(
                    "must be a price from 0 to {MAX_PRICE:e} USD per million tokens, got {}",
                    compact(value)
                ),
            ));
        }
    }
    let ttl = Duration::try_from_secs_f64(entry.ttl_secs)
        .ok()
        .filter(|ttl| ttl.as_secs_f64() <= MAX_TTL_SECS)
        .ok_or_else(|| {
            field(
                "ttl_secs",
                format!(
                    "must be a number of seconds from 0 to {MAX_TTL_SECS:e}, got {}",
                    compact(entry.ttl_secs)
                ),
            )
        })?;
    if entry.cached_increment == 0 {
        return Err(field(
            "cached_increment",
            "must be at least 1 token, got 0".to_owned(),
        ));
    }
    Ok(Pricing {
        name: entry.name.unwrap_or_else(|| "custom".to_owned()),
        model: entry.model,
        input: entry.input,
        cache_write: entry.cache_write,
        cache_read: entry.cache_read,
        output: entry.output,
        ttl,
        min_cached_tokens: entry.min_cached_tokens,
        cached_increment: entry.cached_increment,
        writes_billed: entry.writes_billed,
        source: entry.source,
        date: entry.date,
    })
}
