//! Canonical JSONL: one canonical message (docs/FORMATS.md, "Canonical message") per line,
//! metadata and details included, each line ended by `\n`; the lossless record of a session.
//! Also the one reading of a canonical content part's inline image, for the writers that
//! give it in another API's shape ([`inline_image`]).

use std::borrow::Borrow;

use rehydrate_model::Message;
use serde_json::Value;

/// Canonical JSONL of `messages`: each message's canonical serde form, then `\n`.
pub(crate) fn write_jsonl<M: Borrow<Message>>(messages: &[M]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        serde_json::to_writer(&mut out, m.borrow())
            .expect("a message serializes: string keys only, and a Vec cannot fail to grow");
        out.push(b'\n');
    }
    out
}

/// The media type and base64 data of a content part holding an inline image: an OpenAI
/// `image_url` part of a `data:<type>;base64,<data>` URL (the URL as the object's `url` or the
/// string itself), or an Anthropic `image` block with a `base64` source. `None` for any other
/// part, an image given by another URL included. (`rehydrate_sidecar::image_data`, a layer up,
/// reads the Responses `input_image` too, for measuring an image.)
pub(crate) fn inline_image(part: &Value) -> Option<(&str, &str)> {
    match part.get("type")?.as_str()? {
        "image_url" => {
            let url = part.get("image_url")?;
            url.as_str()
                .or_else(|| url.get("url")?.as_str())?
                .strip_prefix("data:")?
                .split_once(";base64,")
        }
        "image" if part.pointer("/source/type")?.as_str()? == "base64" => Some((
            part.pointer("/source/media_type")?.as_str()?,
            part.pointer("/source/data")?.as_str()?,
        )),
        _ => None,
    }
}
