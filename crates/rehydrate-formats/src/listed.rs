//! Reading a JSON document whose session is one array (a request body's `messages`, a
//! Responses `input`) in one pass: each element is read typed, and its raw text is kept beside
//! it, where reading the raw texts first (`serde_json::value::RawValue`) and then each element
//! again would scan every string twice or more.
//!
//! The typed reads here are fast paths: whatever they cannot read (another shape, a repeated
//! top-level key, invalid JSON) they leave to the importer's field-by-field read, which gives
//! every error. serde_json says where a value ends only for the values of a stream
//! (`StreamDeserializer::byte_offset`), so each element is read as a stream of one value
//! starting at its first byte, and the brackets, commas and keys around the elements are read
//! here.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The top level of a document read by [`read_listed`].
pub(crate) enum Top<'a> {
    /// A bare array.
    Array,
    /// An object: its members but the array, each as its raw text (as a `RawValue` holds it:
    /// no whitespace around it), by key.
    Object(BTreeMap<String, &'a RawValue>),
}

/// What takes each element of the array, in order: its raw text (without the whitespace
/// around it) and the element read as `T` (`None` when `T` does not read it; its raw text is
/// valid JSON); `false` stops the read.
pub(crate) type Each<'e, 'a, T> = dyn FnMut(&'a str, Option<T>) -> bool + 'e;

/// The whitespace JSON allows between tokens, as serde_json skips it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r')
}

/// The index of the first byte at or after `at` that is not whitespace (`text.len()` at the
/// end).
fn skip_space(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while bytes.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// The JSON value that starts at byte `at` of `text` read as `T`, and the index of the byte
/// after it; `None` when it does not read as `T` (or is not JSON).
fn value_at<'a, T: Deserialize<'a>>(text: &'a str, at: usize) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text.get(at..)?).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, at + stream.byte_offset()))
}

/// Reads `text`, a bare JSON array or an object with an array under `key`, in one pass: each
/// element of the array goes to `each` as soon as it is read, as `T` with its raw text (an
/// element `T` does not read as raw text only), and the object's other members are kept as raw
/// texts.
///
/// `None` when `each` stops the read, or when the text is not such a document: not JSON, a
/// top-level value of another kind, no `key` or a `key` that is not an array, or a top-level
/// key given twice (the field-by-field read, which keeps the last one, reads such a
/// document). Elements already handed to `each` then count for nothing. Depths are counted
/// from each element and member, not from the document (serde_json refuses nesting deeper
/// than 128 containers from where it starts): a caller that reads the whole document as one
/// value checks the depth of what it keeps.
pub(crate) fn read_listed<'a, T: Deserialize<'a>>(
    text: &'a str,
    key: &str,
    each: &mut Each<'_, 'a, T>,
) -> Option<Top<'a>> {
    let bytes = text.as_bytes();
    let mut at = skip_space(text, 0);
    let top = match bytes.get(at)? {
        b'[' => {
            at = elements(text, at, each)?;
            Top::Array
        }
        b'{' => {
            let mut members = BTreeMap::new();
            let mut listed = false;
            at = skip_space(text, at + 1);
            if bytes.get(at) == Some(&b'}') {
                return None; // no `key`
            }
            loop {
                let (name, end) = value_at::<String>(text, at)?;
                if name == crate::json::RAW_VALUE_TOKEN {
                    return None; // a key a parse into a `Value` reads another way
                }
                at = skip_space(text, end);
                if bytes.get(at) != Some(&b':') {
                    return None;
                }
                at = skip_space(text, at + 1);
                if name == key {
                    if listed || bytes.get(at) != Some(&b'[') {
                        return None;
                    }
                    listed = true;
                    at = elements(text, at, each)?;
                } else {
                    let (raw, end) = value_at::<&RawValue>(text, at)?;
                    if members.insert(name, raw).is_some() {
                        return None;
                    }
                    at = end;
                }
                at = skip_space(text, at);
                match bytes.get(at) {
                    Some(b',') => at = skip_space(text, at + 1),
                    Some(b'}') => {
                        at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
            if !listed {
                return None;
            }
            Top::Object(members)
        }
        _ => return None,
    };
    (skip_space(text, at) == text.len()).then_some(top)
}

/// Hands each element of the array whose `[` is at byte `at` to `each`; the index after its
/// `]`.
fn elements<'a, T: Deserialize<'a>>(
    text: &'a str,
    at: usize,
    each: &mut Each<'_, 'a, T>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = skip_space(text, at + 1);
    if bytes.get(at) == Some(&b']') {
        return Some(at + 1);
    }
    loop {
        let (read, end) = match value_at::<T>(text, at) {
            Some((read, end)) => (Some(read), end),
            None => (None, value_at::<&RawValue>(text, at)?.1),
        };
        if !each(text.get(at..end)?, read) {
            return None;
        }
        at = skip_space(text, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(text, at + 1),
            Some(b']') => return Some(at + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests;
