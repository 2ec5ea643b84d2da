//! Reading untrusted JSON field by field: typed accessors that name the field's path in errors,
//! JSON error messages, and compact JSON text.
//!
//! The importers are the wire boundary of the workspace: they read session files as
//! `serde_json::Value` (content parts must be kept exactly, unknown keys ignored, and errors
//! must name the field), one line or entry at a time, walking what they do not keep with
//! [`Skip`], and hand canonical `Message`s to everything else.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::Error;

/// A missing or malformed field, before the file and line are known.
#[derive(Debug)]
pub(crate) struct FieldError {
    /// The field's path from the document root, such as `history[3].role`.
    pub(crate) field: String,
    /// What is wrong.
    pub(crate) message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The crate error for this field of `path` (at `line` for JSONL).
    pub(crate) fn into_error(self, path: &Path, line: Option<usize>) -> Error {
        Error::Field {
            path: path.to_path_buf(),
            line,
            field: self.field,
            message: self.message,
        }
    }
}

/// `prefix.key`, or `key` at the root.
pub(crate) fn child(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// `prefix[index]`.
pub(crate) fn item(prefix: &str, index: usize) -> String {
    format!("{prefix}[{index}]")
}

/// The JSON type of `v` with its article, for messages: `a string`, `an object`, ...
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `v` as an object, or an error naming `field`.
pub(crate) fn into_object(v: Value, field: &str) -> Result<Map<String, Value>, FieldError> {
    match v {
        Value::Object(map) => Ok(map),
        other => Err(FieldError::new(
            field,
            format!("expected an object, got {}", kind(&other)),
        )),
    }
}

/// Removes `key` from `obj`: a string, or `None` when absent or null.
pub(crate) fn take_opt_string(
    obj: &mut Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Result<Option<String>, FieldError> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(FieldError::new(
            child(prefix, key),
            format!("expected a string, got {}", kind(&other)),
        )),
    }
}

/// Removes `key` from `obj`: a string, or an error when absent, null or of another type.
pub(crate) fn take_string(
    obj: &mut Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Result<String, FieldError> {
    take_opt_string(obj, key, prefix)?
        .ok_or_else(|| FieldError::new(child(prefix, key), "missing (expected a string)"))
}

/// Removes `key` from `obj`: an array, or empty when absent or null.
pub(crate) fn take_opt_array(
    obj: &mut Map<String, Value>,
    key: &str,
    prefix: &str,
) -> Result<Vec<Value>, FieldError> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(FieldError::new(
            child(prefix, key),
            format!("expected an array, got {}", kind(&other)),
        )),
    }
}

/// A metadata value for `v`: a string as it is, anything else as compact JSON, `None` for null.
pub(crate) fn metadata_text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// The crate error for a serde_json parse failure in `path`.
///
/// `line` is the 1-based JSONL line that was parsed on its own; `None` takes the line from the
/// parser (whole-document formats). The message keeps the column and drops serde_json's own
/// `at line L column C` suffix, since the line is part of the location.
pub(crate) fn invalid_json(path: &Path, line: Option<usize>, e: &serde_json::Error) -> Error {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let (message, line) = match full.strip_suffix(&suffix) {
        Some(bare) if e.line() > 0 => (
            format!("{bare} at column {}", e.column()),
            line.or(Some(e.line())),
        ),
        _ => (full.clone(), line),
    };
    Error::InvalidJson {
        path: path.to_path_buf(),
        line,
        message,
    }
}

/// `raw` JSON text with the whitespace between tokens removed; strings are kept byte for byte
/// and key order is kept.
///
/// `raw` must be valid JSON (it comes from a `RawValue`); on other text the result is
/// unspecified but the function still does not panic.
pub(crate) fn minify(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        if c != b'"' {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                // ASCII outside strings: a structural byte, digit or letter of a literal.
                out.push(char::from(c));
            }
            i += 1;
            continue;
        }
        // A string, copied whole: jump from quote or backslash to the next one.
        let start = i;
        i += 1;
        loop {
            match bytes
                .get(i..)
                .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
            {
                Some(k) if bytes.get(i + k) == Some(&b'\\') => i += k + 2,
                Some(k) => {
                    i += k + 1;
                    break;
                }
                None => {
                    i = bytes.len();
                    break;
                }
            }
        }
        let end = i.min(bytes.len());
        out.push_str(raw.get(start..end).unwrap_or_default());
    }
    out
}

/// Cuts `text` to at most 80 bytes on a char boundary, for error messages.
pub(crate) fn clip(text: &str) -> String {
    let mut end = text.len().min(80);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default().to_string()
}

/// `text` with every lone UTF-16 surrogate escape (`\ud800`-`\udfff` not part of a valid
/// high-low pair) replaced by `\ufffd`, and the 1-based lines where that happened; `None` when
/// there is none, which is the common case (one scan, no copy).
///
/// JavaScript writers emit such escapes when they cut a string between the two halves of an
/// emoji; serde_json rightly rejects them, which would lose the whole session. Only escapes are
/// touched: raw bytes and every other escape (including `\\u…`, an escaped backslash) are kept.
pub(crate) fn repair_lone_surrogates(text: &str) -> Option<(String, Vec<usize>)> {
    let bytes = text.as_bytes();
    let hex4 = |at: usize| -> Option<u16> {
        let digits = bytes.get(at..at + 4)?;
        let digits = std::str::from_utf8(digits).ok()?;
        u16::from_str_radix(digits, 16).ok()
    };
    let mut lone: Vec<usize> = Vec::new(); // byte offsets of lone `\uXXXX` escapes
    // Only `\u` followed by `d` or `D` can start a surrogate escape; each candidate counts as
    // an escape when an even number of backslashes comes before it.
    let escape_starts = |at: usize| {
        let before = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        before % 2 == 0
    };
    let finder = memchr::memmem::Finder::new(b"\\u");
    let mut i = 0;
    while let Some(offset) = bytes.get(i..).and_then(|rest| finder.find(rest)) {
        let at = i + offset;
        i = at + 2;
        if !matches!(bytes.get(at + 2), Some(b'd' | b'D')) || !escape_starts(at) {
            continue;
        }
        match hex4(at + 2) {
            Some(0xD800..=0xDBFF) => {
                let paired = bytes.get(at + 6) == Some(&b'\\')
                    && bytes.get(at + 7) == Some(&b'u')
                    && matches!(hex4(at + 8), Some(0xDC00..=0xDFFF));
                if paired {
                    i = at + 12;
                } else {
                    lone.push(at);
                    i = at + 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                lone.push(at);
                i = at + 6;
            }
            _ => {}
        }
    }
    if lone.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut lines = Vec::new();
    let mut last = 0;
    let mut line = 1;
    let mut counted_to = 0;
    for at in lone {
        line += memchr::memchr_iter(b'\n', &bytes[counted_to..at]).count();
        counted_to = at;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
        out.push_str(&text[last..at]);
        out.push_str("\\ufffd");
        last = at + 6;
    }
    out.push_str(&text[last..]);
    Some((out, lines))
}

/// Walks the rest of an array, dropping its elements.
pub(crate) fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element_seed(Skip)?.is_some() {}
    Ok(())
}

/// Walks the rest of an object, dropping its entries.
pub(crate) fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_key_seed(Skip)?.is_some() {
        map.next_value_seed(Skip)?;
    }
    Ok(())
}

/// Implements `DeserializeSeed` for a visitor type (each listed) by entering the value through
/// `deserialize_any` with the visitor itself, as every seed of the importers does.
macro_rules! seed_via_any {
    ($($seed:ty),+ $(,)?) => {$(
        impl<'de> serde::de::DeserializeSeed<'de> for $seed {
            type Value = <$seed as serde::de::Visitor<'de>>::Value;

            fn deserialize<D: serde::de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    )+};
}
pub(crate) use seed_via_any;

/// Implements the visitor methods of the scalar values but strings (booleans, numbers, null)
/// as returning `$value`.
macro_rules! scalars_return {
    ($value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}
pub(crate) use scalars_return;

/// A value walked and dropped, allocating nothing. It is entered through `deserialize_any`,
/// as a `Value` parse enters it, so the same text fails with the same error at the same place
/// (syntax, nesting deeper than 128, a number out of range), which serde's `IgnoredAny` does
/// not promise.
#[derive(Clone, Copy)]
pub(crate) struct Skip;

seed_via_any!(Skip);

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        skip_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        skip_map(map)
    }
}

/// The compact JSON `serde_json` writes for the object whose members are `members` (as
/// `Value::to_string` writes a parsed object: keys sorted, no whitespace, strings escaped as
/// serde_json escapes them), written from the raw member texts: a string already escaped that
/// way, `true`, `false` and `null` are copied; anything else is parsed and written again.
pub(crate) fn write_members(members: &BTreeMap<String, &RawValue>) -> String {
    let mut out = Vec::with_capacity(
        2 + members
            .iter()
            .map(|(k, v)| k.len() + v.get().len() + 4)
            .sum::<usize>(),
    );
    out.push(b'{');
    for (k, (key, raw)) in members.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        crate::request::write_str(key, &mut out);
        out.push(b':');
        // A `RawValue`'s text has no whitespace around it.
        let raw = raw.get();
        if matches!(raw, "true" | "false" | "null")
            || (raw.starts_with('"') && canonical_string(raw))
        {
            out.extend_from_slice(raw.as_bytes());
        } else {
            match serde_json::from_str::<Value>(raw) {
                Ok(value) => serde_json::to_writer(&mut out, &value).unwrap_or_default(),
                // Not reached for the text of a `RawValue`, which serde_json checked.
                Err(_) => out.extend_from_slice(raw.as_bytes()),
            }
        }
    }
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `raw` (the text of a JSON string, quotes included) is escaped exactly as serde_json
/// escapes the string it holds: only `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx`
/// (lowercase) for the other control characters.
fn canonical_string(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let mut at = 1;
    while let Some(k) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let escape = at + k + 1;
        match bytes.get(escape) {
            Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => at = escape + 1,
            Some(b'u') => {
                let Some(hex) = bytes.get(escape + 1..escape + 5) else {
                    return false;
                };
                let lower = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
                if !(hex[0] == b'0' && hex[1] == b'0' && hex[2..].iter().all(lower)) {
                    return false;
                }
                let digit = |c: u8| {
                    u32::from(if c.is_ascii_digit() {
                        c - b'0'
                    } else {
                        c - b'a' + 10
                    })
                };
                let code = digit(hex[2]) * 16 + digit(hex[3]);
                // serde_json writes these five short, and escapes nothing else from 0x20 up.
                if code >= 0x20 || matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                    return false;
                }
                at = escape + 5;
            }
            _ => return false,
        }
    }
    true
}

/// A JSON string borrowed from the text it was read from when it holds no escape, else the
/// unescaped copy (what `#[serde(borrow)] Cow<str>` reads, usable in a hand-written visitor).
pub(crate) struct Str<'a>(pub(crate) std::borrow::Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(std::borrow::Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visit)
    }
}

/// serde_json's private key of a raw value: a parse into a `serde_json::Value` (with the
/// `raw_value` feature, which this crate turns on) reads an object whose first key is this as
/// the JSON text its value holds, not as an object.
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A value walked and dropped, failing wherever a parse into a `serde_json::Value` would fail:
/// as [`Skip`], and also on an object whose first key is [`RAW_VALUE_TOKEN`], which such a
/// parse reads another way. For the typed reads that leave any doubtful text to a read as a
/// `Value`.
#[derive(Clone, Copy)]
pub(crate) struct SkipValue;

seed_via_any!(SkipValue);

impl<'de> Visitor<'de> for SkipValue {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    scalars_return!(());
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(SkipValue)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut first = true;
        while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
            if first && key == RAW_VALUE_TOKEN {
                return Err(serde::de::Error::custom("a raw value token"));
            }
            first = false;
            map.next_value_seed(SkipValue)?;
        }
        Ok(())
    }
}

/// Whether the containers of `v` nest at most `max` deep (a scalar is 0 deep, `[]` 1, `[[]]`
/// 2): what a caller that read `v` on its own checks before taking it where a read of the
/// whole document would have counted the containers around it too.
pub(crate) fn depth_within(v: &Value, max: usize) -> bool {
    match v {
        Value::Array(items) => max > 0 && items.iter().all(|v| depth_within(v, max - 1)),
        Value::Object(members) => max > 0 && members.values().all(|v| depth_within(v, max - 1)),
        _ => true,
    }
}

/// Whether `raw`, the text of a JSON value as a `RawValue` holds it (serde_json checked its
/// syntax, but not what only a parse into a value checks), surely parses into a
/// `serde_json::Value` whose containers nest at most `max` deep: no string holds a lone UTF-16
/// surrogate escape, no number has an exponent or more than 300 characters (so none is out of
/// the range of an `f64`), and no object's first key may be [`RAW_VALUE_TOKEN`] (none starts
/// with `$` or holds an escape). `false` is not a verdict, only a reason to parse the value.
///
/// One pass over the bytes, strings skipped eight bytes at a time.
pub(crate) fn surely_parses(raw: &str, max: usize) -> bool {
    let b = raw.as_bytes();
    let mut depth = 0usize;
    // Whether the next string is an object's first key.
    let mut first_key = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                let Some(next) = crate::request::skip_string(b, i) else {
                    return false;
                };
                if first_key
                    && (b.get(i + 1) == Some(&b'$')
                        || b.get(i..next).is_some_and(|s| s.contains(&b'\\')))
                {
                    return false;
                }
                first_key = false;
                i = next;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return false;
                }
                first_key = c == b'{';
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                first_key = false;
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while let Some(&c) = b.get(i)
                    && matches!(c, b'-' | b'+' | b'.' | b'0'..=b'9' | b'e' | b'E')
                {
                    if matches!(c, b'e' | b'E') {
                        return false;
                    }
                    i += 1;
                }
                if i - start > 300 {
                    return false;
                }
            }
            _ => i += 1,
        }
    }
    true
}
