//! No snippet shows a planted secret, wherever the match falls around it.

use rehydrate_model::{Message, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_search::{SearchMode, SearchOptions, sidecar_search};

/// Secrets of every kind, each with the part that must never appear in a snippet.
const PLANTED: &[(&str, &str)] = &[
    (
        "OPENAI_API_KEY=sk-proj-Zq81LmN0pQ7rStUvWxYz0123456789",
        "Zq81LmN0pQ7r",
    ),
    ("key sk-ant-api03-Hj7Kl9Mn1Op3Qr5St7Uv9Wx", "Hj7Kl9Mn1Op3"),
    (
        "GITHUB_TOKEN ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "A1b2C3d4E5f6",
    ),
    ("aws AKIAZ7Y6X5W4V3U2T1S0 ok", "Z7Y6X5W4V3U2"),
    ("slack xoxb-1234567890-abcdefghij", "1234567890-abc"),
    (
        "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0'",
        "9f8e7d6c5b4a",
    ),
    (
        "DATABASE_URL=postgres://app:Sup3rS3cret!@db:5432/app",
        "Sup3rS3cret",
    ),
    ("DB_PASSWORD=hunter2-correct-horse", "hunter2-correct"),
    ("{\"client_secret\": \"q1w2e3r4t5y6u7i8\"}", "q1w2e3r4t5y6"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQAAACDx\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXkt",
    ),
];

#[test]
fn no_snippet_contains_a_planted_secret() {
    // One tool output per secret, with filler around it, so matches fall before, on, inside
    // and after the secret; the output is old enough to be truncated (its middle hidden).
    let mut history = vec![Message::text(Role::User, "deploy")];
    for (i, (secret, _)) in PLANTED.iter().enumerate() {
        let mut output = String::new();
        for line in 0..40 {
            output.push_str(&format!("line {line} of step {i} marker\n"));
            if line == 20 {
                output.push_str(secret);
                output.push('\n');
            }
        }
        history.push(Message::tool_result(format!("c{i}"), output));
    }
    for i in 0..3 {
        history.push(Message::tool_result(format!("tail{i}"), "ok"));
    }
    let policy = ReductionPolicy {
        head_bytes: 64,
        tail_bytes: 64,
        ..ReductionPolicy::aggressive()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert!(out.log.len() >= PLANTED.len());
    let queries = [
        "marker",
        "line 20",
        "line 21",
        "=",
        "sk-",
        "ghp_",
        "AKIA",
        "xoxb",
        "Bearer",
        "postgres",
        "PASSWORD",
        "secret",
        "PRIVATE KEY",
        "b3Blbn",
        "Zq81",
        r"\w{3}",
        r"\d",
        "e",
    ];
    let mut snippets = 0;
    for query in queries {
        for mode in [SearchMode::Literal, SearchMode::Regex] {
            let options = SearchOptions {
                mode,
                ..SearchOptions::default()
            };
            let Ok(result) = sidecar_search(&out.log, &history, query, &options) else {
                continue;
            };
            for m in &result.matches {
                snippets += 1;
                for (_, part) in PLANTED {
                    assert!(
                        !m.snippet.contains(part),
                        "query {query:?} ({mode:?}): snippet {:?} shows {part:?}",
                        m.snippet
                    );
                }
            }
        }
    }
    assert!(snippets > 100, "only {snippets} snippets checked");
}
