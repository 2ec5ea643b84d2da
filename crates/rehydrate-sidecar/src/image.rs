//! Images in content parts: where a part's image data is, the image's pixel size read from its
//! header, and the tokens a provider bills for it (docs/FORMATS.md, "Images").
//!
//! A base64 image is billed by its pixel size, not by the length of its text: counted as text,
//! a 24 MB session of six screenshots would be millions of tokens. Nothing here decodes more
//! than the header: the size of a PNG, GIF or WebP image is in its first 30 bytes, and a JPEG's
//! in the segment headers before its first frame, which are walked without reading pixel data.

use base64::Engine as _;
use serde_json::Value;

use rehydrate_formats::Api;

/// The base64 image data a content part carries, and its media type when the part names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageData<'a> {
    /// The media type (`image/png`), from the data URL or the source block; `None` when the
    /// part names none.
    pub media_type: Option<&'a str>,
    /// The base64 text of the image (standard alphabet, as the part holds it).
    pub base64: &'a str,
}

/// The image data of a content part, when the part is an image given inline as base64:
///
/// - OpenAI chat: `{"type":"image_url","image_url":{"url":"data:<type>;base64,<data>"}}` (or
///   `image_url` as the string itself);
/// - OpenAI Responses: `{"type":"input_image","image_url":"data:<type>;base64,<data>"}`;
/// - Anthropic: `{"type":"image","source":{"type":"base64","media_type":…,"data":…}}`.
///
/// `None` for any other part, and for an image given by URL or file id (nothing inline to
/// measure or hide).
pub fn image_data(part: &Value) -> Option<ImageData<'_>> {
    let kind = part.get("type")?.as_str()?;
    match kind {
        "image_url" | "input_image" => {
            let url = part.get("image_url")?;
            let url = url.as_str().or_else(|| url.get("url")?.as_str())?;
            data_url(url)
        }
        "image" => {
            let source = part.get("source")?;
            if source.get("type")?.as_str()? != "base64" {
                return None;
            }
            Some(ImageData {
                media_type: source.get("media_type").and_then(Value::as_str),
                base64: source.get("data")?.as_str()?,
            })
        }
        _ => None,
    }
}

/// Empties the base64 data of an inline image part ([`image_data`]) in place, keeping every
/// other field (a data URL keeps its `data:<type>;base64,` head): the part as it would be
/// written without its pixels, for counting the text around an image. Returns whether `part`
/// was an inline image.
pub fn strip_image_data(part: &mut Value) -> bool {
    let Some(data) = image_data(part) else {
        return false;
    };
    let kept = data.base64.len();
    let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
    let target = if kind == "image" {
        part.get_mut("source").and_then(|s| s.get_mut("data"))
    } else {
        match part.get_mut("image_url") {
            Some(Value::Object(url)) => url.get_mut("url"),
            other => other,
        }
    };
    if let Some(Value::String(text)) = target {
        let head = text.len() - kept;
        text.truncate(head);
        return true;
    }
    false
}

/// A `data:<type>;base64,<data>` URL split into its parts; `None` for another URL.
fn data_url(url: &str) -> Option<ImageData<'_>> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let media_type = header.strip_suffix(";base64")?;
    Some(ImageData {
        media_type: (!media_type.is_empty()).then_some(media_type),
        base64: data,
    })
}

/// The base64 characters decoded at first: a PNG, GIF or WebP header, and the first segments
/// of most JPEGs.
const FIRST_BASE64_CHARS: usize = 4 * 1024;

/// The most base64 characters decoded to find a JPEG's frame header (3 MiB of image bytes:
/// thumbnails and metadata segments come before it).
const MAX_BASE64_CHARS: usize = 4 * 1024 * 1024;

/// The pixel size `(width, height)` of a base64 PNG, GIF, JPEG or WebP image, read from its
/// header; `None` when the data is not base64, not one of these formats, or its header is cut
/// off or malformed (a side of 0 pixels, or over 2^31 - 1, is malformed). At most the first 4 MiB of base64 text are decoded, and only as far as the
/// header needs.
pub fn image_size(base64: &str) -> Option<(u32, u32)> {
    let head = decode_prefix(base64, FIRST_BASE64_CHARS)?;
    let size = match header_size(&head) {
        Some(size) => Some(size),
        None if head.starts_with(&[0xFF, 0xD8]) && base64.len() > FIRST_BASE64_CHARS => {
            jpeg_size(&decode_prefix(base64, MAX_BASE64_CHARS)?)
        }
        None => None,
    };
    // No format allows an empty side; PNG allows at most 2^31 - 1 (the others less).
    size.filter(|&(w, h)| (1..=MAX_SIDE).contains(&w) && (1..=MAX_SIDE).contains(&h))
}

/// The largest side any of the formats allows, in pixels (PNG's 2^31 - 1).
const MAX_SIDE: u32 = (1 << 31) - 1;

/// The bytes of the first `chars` base64 characters of `base64` (rounded down to whole
/// 4-character groups, or all of it), or `None` when they are not base64.
fn decode_prefix(base64: &str, chars: usize) -> Option<Vec<u8>> {
    let end = if base64.len() <= chars {
        base64.len()
    } else {
        chars - chars % 4
    };
    let prefix = base64.get(..end)?;
    base64::engine::general_purpose::STANDARD
        .decode(prefix)
        .ok()
}

/// The size in a PNG, GIF, WebP or JPEG header at the start of `bytes`.
fn header_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        // The IHDR chunk comes first: width and height, big-endian, at bytes 16 and 20.
        if bytes.get(12..16)? != b"IHDR" {
            return None;
        }
        return Some((be32(bytes, 16)?, be32(bytes, 20)?));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some((u32::from(le16(bytes, 6)?), u32::from(le16(bytes, 8)?)));
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12)? == b"WEBP" {
        return webp_size(bytes);
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        return jpeg_size(bytes);
    }
    None
}

/// The size of a WebP image: from its `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended)
/// chunk, the first after the RIFF header.
fn webp_size(bytes: &[u8]) -> Option<(u32, u32)> {
    match bytes.get(12..16)? {
        b"VP8 " => {
            // The frame header: a 3-byte tag, the start code 9d 01 2a, then 14-bit sizes.
            if bytes.get(23..26)? != [0x9d, 0x01, 0x2a] {
                return None;
            }
            let width = u32::from(le16(bytes, 26)? & 0x3fff);
            let height = u32::from(le16(bytes, 28)? & 0x3fff);
            Some((width, height))
        }
        b"VP8L" => {
            // The signature byte 0x2f, then 14-bit width - 1 and height - 1, little-endian.
            if *bytes.get(20)? != 0x2f {
                return None;
            }
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        b"VP8X" => {
            // 24-bit canvas width - 1 and height - 1, little-endian, at bytes 24 and 27.
            let width = le24(bytes, 24)? + 1;
            let height = le24(bytes, 27)? + 1;
            Some((width, height))
        }
        _ => None,
    }
}

/// The size of a JPEG image: walks the segments after the SOI marker to the first frame header
/// (SOF0 to SOF15 but DHT `C4`, JPG `C8` and DAC `CC`), which holds height then width.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    loop {
        // A marker is 0xFF (possibly repeated as fill) and a code.
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        while *bytes.get(at)? == 0xFF {
            at += 1;
        }
        let code = *bytes.get(at)?;
        at += 1;
        match code {
            // Markers without a length: TEM, RST0-7.
            0x01 | 0xD0..=0xD7 => continue,
            // Start of scan or end of image before any frame header.
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let len = usize::from(be16(bytes, at)?);
        if len < 2 {
            return None;
        }
        if matches!(code, 0xC0..=0xCF) && !matches!(code, 0xC4 | 0xC8 | 0xCC) {
            // Length, precision, then height and width, big-endian.
            let height = u32::from(be16(bytes, at + 3)?);
            let width = u32::from(be16(bytes, at + 5)?);
            return Some((width, height));
        }
        at += len;
    }
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn le16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

/// The tokens an image of `width` x `height` pixels is billed as, estimated from the
/// providers' published rules (docs/FORMATS.md, "Images"):
///
/// - [`Api::OpenAi`] and [`Api::Responses`] (high detail): the image is scaled to fit in 2048 x 2048, then so that its
///   short side is at most 768; it costs 85 tokens plus 170 per 512 x 512 tile it covers.
/// - [`Api::Anthropic`]: the image is scaled so that its long side is at most 1568 pixels and
///   its area at most 1.15 megapixels; it costs `width * height / 750` tokens, rounded up.
///
/// A 0-pixel side costs the base (85 for OpenAI, 0 for Anthropic). Scaling never enlarges.
pub fn image_tokens(width: u32, height: u32, api: Api) -> usize {
    let (w, h) = (f64::from(width), f64::from(height));
    if w == 0.0 || h == 0.0 {
        return match api {
            Api::OpenAi | Api::Responses => 85,
            Api::Anthropic => 0,
        };
    }
    match api {
        Api::OpenAi | Api::Responses => {
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let short = (768.0 / w.min(h)).min(1.0);
            let (w, h) = ((w * short).round(), (h * short).round());
            let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
            85 + 170 * tiles as usize
        }
        Api::Anthropic => {
            let long = (1568.0 / w.max(h)).min(1.0);
            let area = (1_150_000.0 / (w * h)).sqrt().min(1.0);
            let scale = long.min(area);
            let (w, h) = ((w * scale).round(), (h * scale).round());
            (w * h / 750.0).ceil() as usize
        }
    }
}

/// The bytes an image redaction hides and hashes: each of `parts[k]` for `k` in `hidden` (in
/// that order), written as canonical compact JSON ([`rehydrate_model::write_json_value`]:
/// keys sorted, no spaces) followed by `\n`. What `expand_reduction` gives for it: each line
/// parses back to exactly the part it was. `None` when a position is not in `parts`.
pub fn hidden_images_text(parts: &[Value], hidden: &[usize]) -> Option<String> {
    let mut out = Vec::new();
    for &k in hidden {
        rehydrate_model::write_json_value(parts.get(k)?, &mut out);
        out.push(b'\n');
    }
    // Compact JSON of valid strings is UTF-8.
    String::from_utf8(out).ok()
}

/// The content parts of an image redaction's view form: `parts` with the part at the first of
/// `hidden` replaced by the text part `{"type":"text","text":<stub>}` and the parts at the other
/// positions of `hidden` left out; every other part is kept as it is, in order. `hidden` is
/// ascending.
pub fn redacted_parts(parts: &[Value], hidden: &[usize], stub: &str) -> Vec<Value> {
    let first = hidden.first().copied();
    parts
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            if Some(k) == first {
                Some(serde_json::json!({"type": "text", "text": stub}))
            } else if hidden.contains(&k) {
                None
            } else {
                Some(p.clone())
            }
        })
        .collect()
}
