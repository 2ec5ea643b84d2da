//! Unit tests of the token counter and byte counts against their naive oracles.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::collections::BTreeMap;

use base64::Engine as _;

use rehydrate::model::{Content, Message};

use crate::tokens::TokenCounter;

fn session() -> Vec<Message> {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/cli/build-session.json"
    ))
    .unwrap();
    let path = std::path::Path::new("build-session.json");
    rehydrate::formats::import(path, &bytes, None)
        .unwrap()
        .messages
}

/// The naive count: every message tokenized on its own.
fn naive_tokens(messages: &[Message]) -> usize {
    let bpe = bpe_openai::o200k_base();
    messages.iter().map(|m| bpe.count(&m.wire_json())).sum()
}

#[test]
fn token_counts_equal_counting_every_message() {
    let messages = session();
    let mut counter = TokenCounter::new();
    let before = counter.count(&messages);
    assert_eq!(before, naive_tokens(&messages));
    // The fixture's figures in the README.
    assert_eq!(before, 16071);
    // Counting again, or with repeats, tokenizes nothing new and gives the same totals.
    assert_eq!(counter.count(&messages), before);
    let twice: Vec<&Message> = messages.iter().chain(&messages).collect();
    assert_eq!(counter.count(twice), 2 * before);
    let mut other = messages[1..4].to_vec();
    other[0].metadata = BTreeMap::from([("x".to_string(), "y".to_string())]);
    other[1].content = Some(Content::Text("changed".to_string()));
    assert_eq!(counter.count(&other), naive_tokens(&other));
    assert_eq!(TokenCounter::new().count(&[]), 0);
}

#[test]
fn wire_bytes_of_the_fixture() {
    let messages = session();
    assert_eq!(crate::checks::wire_bytes(&messages), 42798);
}

#[test]
fn an_inline_image_counts_as_billed_not_as_its_base64_text() {
    // A 1024 x 1024 PNG header and 300 KB of zeros: 400 KB of base64 in the wire form.
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&1024u32.to_be_bytes());
    png.extend_from_slice(&1024u32.to_be_bytes());
    png.resize(300_000, 0);
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let part = |data: &str| serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}});
    let text = serde_json::json!({"type": "text", "text": "the screenshot"});
    let with_image = Message {
        content: Some(Content::Parts(vec![text.clone(), part(&data)])),
        ..Message::tool_result("call_1", "")
    };
    let without = Message {
        content: Some(Content::Parts(vec![text, part("")])),
        ..Message::tool_result("call_1", "")
    };
    // OpenAI's high-detail rule: scaled to 768 x 768, four tiles.
    assert_eq!(
        TokenCounter::new().count([&with_image]),
        naive_tokens(std::slice::from_ref(&without)) + 85 + 170 * 4
    );
    // An image whose header says nothing is counted as its text.
    let unknown = Message {
        content: Some(Content::Parts(vec![part("AAAA")])),
        ..Message::tool_result("call_1", "")
    };
    assert_eq!(
        TokenCounter::new().count([&unknown]),
        naive_tokens(std::slice::from_ref(&unknown))
    );
}
