//! No input makes the importers panic (and every Codex import writes back to its input): every
//! prefix and many byte substitutions of each fixture,
//! deep nesting, and odd but valid records.

use std::path::Path;

use rehydrate_formats::{Format, detect, import};

use crate::fixture_dir;

/// Imports `bytes` with detection and with each explicit format; only panics matter. What
/// imports as a Codex rollout is also written back, which must give the bytes again.
fn import_all_ways(bytes: &[u8]) {
    let path = Path::new("fuzz.bin");
    let _ = detect(bytes);
    let _ = import(path, bytes, None);
    for format in Format::ALL {
        let imported = import(path, bytes, Some(format));
        if format == Format::Codex
            && let Ok(imported) = imported
            && !imported.messages.is_empty()
        {
            let text = std::str::from_utf8(bytes).unwrap();
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            assert_eq!(
                String::from_utf8(rehydrate_formats::write_unchecked(
                    &imported.messages,
                    rehydrate_formats::ExportFormat::Codex
                ))
                .unwrap(),
                text
            );
        }
    }
}

#[test]
fn prefixes_and_substitutions_of_fixtures_do_not_panic() {
    let mut files: Vec<_> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.extend(
        std::fs::read_dir(fixture_dir().join("codex"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        for end in (0..=bytes.len()).step_by(13) {
            import_all_ways(&bytes[..end]);
        }
        for (i, replacement) in (0..bytes.len()).step_by(29).zip(
            [b'"', b'{', b']', b'\n', b'0', b'\\', 0xff, b'n']
                .into_iter()
                .cycle(),
        ) {
            let mut mutated = bytes.clone();
            mutated[i] = replacement;
            import_all_ways(&mutated);
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let err = import(Path::new("deep.json"), deep.as_bytes(), None).unwrap_err();
    assert!(
        err.to_string().contains("recursion limit exceeded"),
        "{err}"
    );
    let line = format!(
        "{{\"type\":\"user\",\"uuid\":\"u\",\"message\":{}{}}}\n",
        "{\"a\":".repeat(50_000),
        "1}".repeat(50_000)
    );
    let err = import(
        Path::new("deep.jsonl"),
        line.as_bytes(),
        Some(Format::ClaudeCode),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("deep.jsonl:1: invalid JSON: recursion limit exceeded"),
        "{err}"
    );
}

#[test]
fn odd_claude_code_records_are_warnings() {
    let text = concat!(
        "[1,2]\n",
        "{\"no_type\":true}\n",
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"no uuid\"}}\n",
        "{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"b\",\"message\":{\"content\":\"loop a\"}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"message\":{\"id\":\"m\",\"content\":[7,{\"type\":\"text\"},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"X\"}]}}\n",
        "{\"type\":\"user\",\"uuid\":\"c\",\"parentUuid\":\"b\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":5},{\"type\":\"tool_result\"},\"bare\"]}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"d\",\"parentUuid\":\"c\",\"message\":7}\n",
        "{\"type\":\"user\",\"uuid\":\"e\",\"parentUuid\":\"d\",\"message\":{\"content\":{\"x\":1}}}\n",
    );
    let import = import(
        Path::new("odd.jsonl"),
        text.as_bytes(),
        Some(Format::ClaudeCode),
    )
    .unwrap();
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "line 1: not a JSON object (an array), skipped",
            "line 2: record has no string `type`, skipped",
            "line 3: user line has no uuid, skipped",
            "line 4: parent b makes a cycle; the conversation starts here",
            "line 5: assistant content block is not an object, dropped",
            "line 5: malformed `text` block, dropped",
            "line 5: tool call t has no `input`; arguments set to {}",
            "line 6: tool result content is a number, kept as one content part",
            "line 6: tool_result block has no `tool_use_id`",
            "line 6: user content block has no `type`, kept as a content part",
            "line 7: assistant line has no `message` object, skipped",
            "line 8: user message content is an object, skipped",
        ]
    );
    assert_eq!(import.messages.len(), 5);
}
