//! Inline images: where a part's data is, the pixel size from each format's header (built here
//! byte by byte), and the token estimates of both providers.

use base64::Engine as _;
use proptest::prelude::*;
use rehydrate_formats::Api;
use rehydrate_sidecar::{ImageData, image_data, image_size, image_tokens};
use serde_json::json;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A PNG signature and IHDR chunk of `w` x `h`, then `rest` bytes of zeros.
fn png(w: u32, h: u32, rest: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0]);
    b.resize(b.len() + rest, 0);
    b
}

/// A JPEG: SOI, an APP1 segment of `app_bytes` payload bytes, then a baseline frame header of
/// `w` x `h`.
fn jpeg(w: u16, h: u16, app_bytes: u16) -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8, 0xFF, 0xE1];
    b.extend_from_slice(&(app_bytes + 2).to_be_bytes());
    b.resize(b.len() + usize::from(app_bytes), 0x41);
    b.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08]);
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    b.extend_from_slice(&[0xFF, 0xDA, 0, 2, 0xFF, 0xD9]);
    b
}

#[test]
fn the_data_of_each_inline_image_part_shape() {
    let url = json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}});
    assert_eq!(
        image_data(&url),
        Some(ImageData {
            media_type: Some("image/png"),
            base64: "iVBO"
        })
    );
    let responses = json!({"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/"});
    assert_eq!(
        image_data(&responses),
        Some(ImageData {
            media_type: Some("image/jpeg"),
            base64: "/9j/"
        })
    );
    let anthropic = json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}});
    assert_eq!(
        image_data(&anthropic),
        Some(ImageData {
            media_type: Some("image/gif"),
            base64: "R0lG"
        })
    );
    // By URL or file id, or not base64: nothing inline.
    for part in [
        json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}),
        json!({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}),
        json!({"type": "image_url", "image_url": {"url": "data:image/svg+xml,<svg/>"}}),
        json!({"type": "text", "text": "data:image/png;base64,iVBO"}),
        json!("image"),
    ] {
        assert_eq!(image_data(&part), None, "{part}");
    }
}

#[test]
fn the_pixel_size_of_each_format() {
    assert_eq!(image_size(&b64(&png(1920, 1080, 100))), Some((1920, 1080)));
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[0x40, 0x01, 0xF0, 0x00, 0, 0, 0]);
    assert_eq!(image_size(&b64(&gif)), Some((320, 240)));
    // WebP lossy: RIFF, size, WEBP, `VP8 `, chunk size, frame tag, start code, 14-bit sizes.
    let mut vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0".to_vec();
    vp8.extend_from_slice(&[0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a]);
    vp8.extend_from_slice(&640u16.to_le_bytes());
    vp8.extend_from_slice(&(480u16 | 0x4000).to_le_bytes()); // scale bits are not size
    assert_eq!(image_size(&b64(&vp8)), Some((640, 480)));
    // WebP lossless: width - 1 and height - 1 in 14 bits each.
    let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
    let bits: u32 = (100 - 1) | ((50 - 1) << 14);
    vp8l.extend_from_slice(&bits.to_le_bytes());
    assert_eq!(image_size(&b64(&vp8l)), Some((100, 50)));
    // WebP extended: 24-bit canvas width - 1 and height - 1.
    let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
    vp8x.extend_from_slice(&[0xFF, 0x0F, 0x00, 0x37, 0x04, 0x00]);
    assert_eq!(image_size(&b64(&vp8x)), Some((4096, 1080)));
    assert_eq!(image_size(&b64(&jpeg(800, 600, 16))), Some((800, 600)));
    // A frame header past the first 4 KiB of base64 (after a 60 KB metadata segment).
    let deep = jpeg(3024, 4032, 60_000);
    assert!(b64(&deep).len() > 4096);
    assert_eq!(image_size(&b64(&deep)), Some((3024, 4032)));
}

#[test]
fn cut_malformed_or_unknown_images_have_no_size() {
    let cut = png(10, 10, 0);
    assert_eq!(image_size(&b64(&cut[..20])), None);
    assert_eq!(image_size(&b64(b"BM not a format we read")), None);
    assert_eq!(image_size("not base64 at all!"), None);
    assert_eq!(image_size(""), None);
    // A JPEG whose scan starts before any frame header.
    assert_eq!(image_size(&b64(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2])), None);
    // A JPEG segment length below 2.
    assert_eq!(
        image_size(&b64(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 0, 0])),
        None
    );
}

#[test]
fn token_estimates_follow_the_published_rules() {
    // OpenAI's examples: 1024 x 1024 is scaled to 768 x 768, four tiles; 2048 x 4096 to
    // 768 x 1536, six tiles.
    assert_eq!(image_tokens(1024, 1024, Api::OpenAi), 85 + 170 * 4);
    assert_eq!(image_tokens(2048, 4096, Api::OpenAi), 85 + 170 * 6);
    assert_eq!(image_tokens(512, 512, Api::OpenAi), 85 + 170);
    assert_eq!(image_tokens(0, 100, Api::OpenAi), 85);
    // Anthropic: w * h / 750 after the long side is at most 1568 and the area 1.15 MP.
    assert_eq!(image_tokens(1000, 1000, Api::Anthropic), 1334);
    assert_eq!(image_tokens(200, 200, Api::Anthropic), 54);
    // 1920 x 1080 is scaled to the 1.15 MP area: 1430 x 804.
    assert_eq!(image_tokens(1920, 1080, Api::Anthropic), 1533);
    assert_eq!(image_tokens(100, 0, Api::Anthropic), 0);
}

proptest! {
    /// Any bytes, any text: never a panic, and a size only for a known signature.
    #[test]
    fn image_size_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200), text in ".{0,64}") {
        let size = image_size(&b64(&bytes));
        if size.is_some() {
            prop_assert!(
                bytes.starts_with(b"\x89PNG") || bytes.starts_with(b"GIF8")
                    || bytes.starts_with(b"RIFF") || bytes.starts_with(&[0xFF, 0xD8])
            );
        }
        let _ = image_size(&text);
    }

    /// Scaling never makes an image cost more than a larger one of the same shape.
    #[test]
    fn tokens_grow_with_size(w in 1u32..10_000, h in 1u32..10_000) {
        for api in [Api::OpenAi, Api::Anthropic] {
            prop_assert!(image_tokens(w, h, api) <= image_tokens(w.saturating_mul(2), h.saturating_mul(2), api) + 1);
            prop_assert!(image_tokens(w, h, api) <= 85 + 170 * 12);
        }
    }
}

#[test]
fn stripping_empties_only_the_base64_data() {
    let mut url = json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "high"}});
    assert!(rehydrate_sidecar::strip_image_data(&mut url));
    assert_eq!(
        url,
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,", "detail": "high"}})
    );
    let mut responses = json!({"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/"});
    assert!(rehydrate_sidecar::strip_image_data(&mut responses));
    assert_eq!(
        responses,
        json!({"type": "input_image", "image_url": "data:image/jpeg;base64,"})
    );
    let mut anthropic = json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}});
    assert!(rehydrate_sidecar::strip_image_data(&mut anthropic));
    assert_eq!(
        anthropic,
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": ""}})
    );
    let mut text = json!({"type": "text", "text": "data:image/png;base64,iVBO"});
    assert!(!rehydrate_sidecar::strip_image_data(&mut text));
    assert_eq!(
        text,
        json!({"type": "text", "text": "data:image/png;base64,iVBO"})
    );
}

#[test]
fn a_side_of_no_pixels_or_beyond_png_limit_is_no_size() {
    use rehydrate_test_support::png_base64;
    assert_eq!(image_size(&png_base64(640, 480, 100, 1)), Some((640, 480)));
    assert_eq!(
        image_size(&png_base64((1 << 31) - 1, 1, 100, 1)),
        Some(((1 << 31) - 1, 1))
    );
    assert_eq!(image_size(&png_base64(0, 0, 100, 1)), None);
    assert_eq!(image_size(&png_base64(640, 0, 100, 1)), None);
    assert_eq!(image_size(&png_base64(u32::MAX, u32::MAX, 100, 1)), None);
    assert_eq!(image_size(&png_base64(1 << 31, 480, 100, 1)), None);
}
