//! Inline images for tests: base64 PNG data whose header gives a pixel size, and the content
//! parts of each provider that carry it.

use base64::Engine as _;

/// Base64 of a PNG signature and IHDR chunk of `width` x `height` pixels (8-bit RGBA), then
/// filler bytes `seed` up to `bytes` bytes in all (at least the 33 of the header): exactly
/// `4 * ceil(bytes / 3)` base64 characters. Different seeds give different data.
pub fn png_base64(width: u32, height: u32, bytes: usize, seed: u8) -> String {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&width.to_be_bytes());
    b.extend_from_slice(&height.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    if b.len() < bytes {
        b.resize(bytes, seed);
    }
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// An Anthropic image block: `{"type":"image","source":{"type":"base64","media_type":…,"data":…}}`.
pub fn image_block(media_type: &str, base64: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": base64},
    })
}

/// An OpenAI chat image part: `{"type":"image_url","image_url":{"url":"data:<type>;base64,<data>"}}`.
pub fn image_url_part(media_type: &str, base64: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "image_url",
        "image_url": {"url": format!("data:{media_type};base64,{base64}")},
    })
}

/// A text part: `{"type":"text","text":…}`.
pub fn text_part(text: &str) -> serde_json::Value {
    serde_json::json!({"type": "text", "text": text})
}
