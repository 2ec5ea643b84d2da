//! Unit tests: the literal and regex matchers, the result bound, snippets and redaction.

use rehydrate_model::{ReductionId, Span, StubKind};

use crate::literal::LiteralMatcher;
use crate::query::{Query, QueryMode};
use crate::redact::{SecretKind, find_secrets, redact};
use crate::result::{SearchMatch, SearchResult};
use crate::snippet::snippets;

/// The snippet of one match.
fn snippet(text: &str, hidden: Span, m: std::ops::Range<usize>) -> String {
    snippets(text, hidden, std::slice::from_ref(&m)).remove(0)
}
use crate::{SearchError, SearchMode, SearchOptions};

fn literal_matches(needle: &str, case_sensitive: bool, hay: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    LiteralMatcher::new(needle, case_sensitive).find_each(hay, |m| out.push((m.start, m.end)));
    out
}

fn query(text: &str, mode: SearchMode, case_sensitive: bool) -> Query {
    let options = SearchOptions {
        mode,
        case_sensitive,
        ..SearchOptions::default()
    };
    Query::new(text, &options).unwrap()
}

fn regex_matches(pattern: &str, hay: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    query(pattern, SearchMode::Regex, true).find_each(hay, |m| out.push((m.start, m.end)));
    out
}

#[test]
fn folded_literal_folds_ascii_only() {
    assert_eq!(
        literal_matches("foo(", false, "FOO(bar) foo("),
        [(0, 4), (9, 13)]
    );
    assert_eq!(literal_matches("foo(", true, "FOO(bar) foo("), [(9, 13)]);
    // Non-ASCII characters match exactly: É is not é, the Kelvin sign is not k.
    assert_eq!(literal_matches("café", false, "CAFÉ Café cafÉ"), [(6, 11)]);
    assert_eq!(
        literal_matches("k", false, "\u{212A} K k"),
        [(4, 5), (6, 7)]
    );
    // Non-overlapping, leftmost first.
    assert_eq!(literal_matches("aa", false, "AaAaa"), [(0, 2), (2, 4)]);
    // A needle longer than the 4-byte window, found at both ends of the haystack.
    assert_eq!(
        literal_matches(
            "connection refused",
            false,
            "Connection Refused; CONNECTION REFUSED"
        ),
        [(0, 18), (20, 38)]
    );
    assert_eq!(literal_matches("needle", false, "need"), []);
    // No ASCII letter: the exact path.
    assert!(matches!(
        LiteralMatcher::new("(é)", false),
        LiteralMatcher::Exact(_)
    ));
}

#[test]
fn regexes_that_cannot_cross_lines_run_on_lines() {
    let confined = |p: &str| query(p, SearchMode::Regex, true).is_line_confined();
    assert!(confined(r"\w+Error\b"));
    assert!(confined(r"(?i)\w+error\b"));
    assert!(confined(r"\bfoo\w*bar"));
    // Can match a line break: the whole text is searched.
    assert!(!confined(r"\w+\sError"));
    assert!(!confined(r"[^x]+Error"));
    // Exact literal sets are searched as literals; no required literal, no lines.
    let literal_set = |p: &str| query(p, SearchMode::Regex, true).is_literal_set();
    assert!(literal_set("error|warning|failed"));
    assert!(literal_set("(?i)ab|cd"));
    assert!(literal_set("(foo)"));
    assert!(!literal_set(r"\bfoo\b"));
    assert!(confined(r"\bfoo\b"));
    assert!(!confined("error|warning|failed"));
    assert_eq!(regex_matches("foo|foobar", "foobar"), [(0, 3)]);
    assert_eq!(regex_matches("foobar|foo", "foobar foo"), [(0, 6), (7, 10)]);
    assert!(!confined(r"\w+"));
    assert!(!confined("x*"));
    // The same matches as a search over the whole text, look-around included.
    let hay = "a ValueError\nxTypeError\n\nError é\nKeyErrorX IOError";
    assert_eq!(
        regex_matches(r"\w+Error\b", hay),
        [(2, 12), (13, 23), (44, 51)]
    );
    assert_eq!(regex_matches(r"^\w+Error", "IOError\nKeyError"), [(0, 7)]);
    assert_eq!(regex_matches(r"\w+Error$", "IOError\nKeyError"), [(8, 16)]);
    assert_eq!(
        regex_matches(r"(?m)\w+Error$", "IOError\nKeyError"),
        [(0, 7), (8, 16)]
    );
}

#[test]
fn empty_regex_matches_count_and_end() {
    assert_eq!(regex_matches("x*", "aé"), [(0, 0), (1, 1), (3, 3)]);
    assert_eq!(regex_matches("(?:)", "ab"), [(0, 0), (1, 1), (2, 2)]);
}

#[test]
fn query_modes_and_errors() {
    let auto = |text: &str| Query::new(text, &SearchOptions::default());
    assert_eq!(auto("foo(").unwrap().mode(), QueryMode::Literal);
    assert_eq!(auto("FO+").unwrap().mode(), QueryMode::Regex);
    assert_eq!(auto(" ").unwrap_err(), SearchError::EmptyQuery);
    let regex = SearchOptions {
        mode: SearchMode::Regex,
        ..SearchOptions::default()
    };
    assert_eq!(
        Query::new("foo(", &regex).unwrap_err().to_string(),
        "invalid regex: unclosed group at byte 3"
    );
    assert_eq!(
        Query::new("[a", &regex).unwrap_err().to_string(),
        "invalid regex: unclosed character class at byte 0"
    );
    let too_large = Query::new(r"\w{300}{300}", &SearchOptions::default()).unwrap_err();
    assert!(
        matches!(too_large, SearchError::RegexTooLarge { .. }),
        "{too_large}"
    );
    let literal = SearchOptions {
        mode: SearchMode::Literal,
        ..SearchOptions::default()
    };
    assert_eq!(
        Query::new("a+", &literal).unwrap().mode(),
        QueryMode::Literal
    );
    // Every message is one line.
    for err in [
        Query::new("(((", &regex).unwrap_err(),
        Query::new(&"(".repeat(100), &regex).unwrap_err(),
        Query::new(&"x".repeat(5000), &literal).unwrap_err(),
        too_large,
    ] {
        assert!(!err.to_string().contains('\n'), "{err}");
    }
}

#[test]
fn options_clamp_to_the_bounds() {
    let options = SearchOptions {
        max_matches: 1000,
        max_result_bytes: 1 << 30,
        ..SearchOptions::default()
    };
    let q = Query::new("x", &options).unwrap();
    assert_eq!((q.max_matches(), q.max_result_bytes()), (50, 65_536));
}

fn result_with(snippets: &[&str]) -> SearchResult {
    SearchResult {
        mode: QueryMode::Literal,
        matches: snippets
            .iter()
            .enumerate()
            .map(|(i, s)| SearchMatch {
                reduction_id: ReductionId::new(i, &rehydrate_model::Digest([7; 32])),
                kind: StubKind::ToolOutput,
                snippet: (*s).to_string(),
            })
            .collect(),
        total_matches: snippets.len(),
        truncated: false,
        unresolvable: 0,
    }
}

#[test]
fn fit_drops_whole_trailing_matches() {
    let big = "\u{1}".repeat(200);
    let mut result = result_with(&[&big, &big, &big]);
    let full = result.json_bytes();
    assert_eq!(full, result.to_json().len());
    result.fit(full);
    assert_eq!((result.matches.len(), result.truncated), (3, false));
    result.fit(full - 1);
    assert_eq!((result.matches.len(), result.truncated), (2, true));
    assert!(result.json_bytes() < full);
    let two = result.json_bytes();
    result.fit(two);
    assert_eq!(result.matches.len(), 2);
    result.fit(10);
    assert_eq!((result.matches.len(), result.truncated), (0, true));
    assert_eq!(
        result.to_json(),
        r#"{"mode":"literal","matches":[],"total_matches":3,"truncated":true,"unresolvable":0}"#
    );
}

#[test]
fn json_field_order_is_fixed() {
    let result = result_with(&["a\nb"]);
    assert_eq!(
        result.to_json(),
        r#"{"mode":"literal","matches":[{"reduction_id":"r0.070707","kind":"tool-output","snippet":"a\nb"}],"total_matches":1,"truncated":false,"unresolvable":0}"#
    );
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start, end).unwrap()
}

#[test]
fn snippet_window_stays_in_the_hidden_span() {
    let text = format!("{}{}{}", "h".repeat(100), "x".repeat(50), "t".repeat(100));
    let hidden = span(100, 150);
    // A match at the start of the hidden bytes shows nothing of the visible head.
    assert_eq!(snippet(&text, hidden, 0..1), "x".repeat(50));
    // Windows widen to char boundaries: 3-byte characters, 80 bytes back is inside one.
    let text = "€".repeat(100);
    let s = snippet(&text, span(0, 300), 150..153);
    assert_eq!(s, "€".repeat(55));
}

#[test]
fn snippets_redact_secrets_cut_by_their_edges() {
    let key = "AKIAZ7Y6X5W4V3U2T1S0";
    // The window starts 80 bytes before the match, inside the key; the key is still found.
    let text = format!("{key}{} needle {}", "-".repeat(70), "-".repeat(10));
    let at = text.find("needle").unwrap();
    let s = snippet(&text, span(0, text.len()), at..at + 6);
    assert!(s.starts_with("[redacted:aws-access-key]---"), "{s}");
    assert!(!s.contains("T1S0"));
    // The hidden span starts inside the key: the visible part completes it.
    let s = snippet(&text, span(10, text.len()), at - 10..at - 4);
    assert!(s.starts_with("[redacted:aws-access-key]"), "{s}");
    // A placeholder is never cut: it is left out when it does not fit in 200 bytes.
    let text = format!("{} {key} {}", "a".repeat(204), "b".repeat(100));
    let s = snippet(&text, span(0, text.len()), 100..200);
    assert_eq!(s, format!("{} ", "a".repeat(184)));
    let text = format!("{} {key} {}", "a".repeat(194), "b".repeat(100));
    let s = snippet(&text, span(0, text.len()), 100..200);
    assert_eq!(s, format!("{} [redacted:aws-access-key]", "a".repeat(174)));
}

#[test]
fn redact_replaces_each_kind() {
    let cases = [
        (
            "key sk-ant-api03-AbCdEf0123456789xyz end",
            "key [redacted:anthropic-api-key] end",
        ),
        (
            "sk-proj-Abc123Def456Ghi789Jkl012",
            "[redacted:openai-api-key]",
        ),
        ("sk-AbCdEfGhIjKlMnOpQrSt1234", "[redacted:openai-api-key]"),
        (
            "t=ghp_0123456789abcdefghijABCDEFGHIJ012345;",
            "t=[redacted:github-token];",
        ),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghij",
            "[redacted:github-token]",
        ),
        ("id AKIAIOSFODNN7EXAMPLE.", "id [redacted:aws-access-key]."),
        (
            "glued:xAKIAIOSFODNN7EXAMPLEyz",
            "glued:x[redacted:aws-access-key]yz",
        ),
        ("xoxb-123456789012-abcdefghij", "[redacted:slack-token]"),
        (
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "[redacted:google-api-key]",
        ),
        ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[redacted:stripe-key]"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz",
            "[redacted:jwt]",
        ),
        (
            "https://deploy:s3cr3t@example.com/x",
            "https://deploy:[redacted:url-password]@example.com/x",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNz",
            "Authorization: Basic [redacted:authorization]",
        ),
        (
            "-H 'bearer abcdef0123456789abcdef'",
            "-H 'bearer [redacted:bearer-token]'",
        ),
        (
            "DB_PASSWORD=hunter2 next",
            "DB_PASSWORD=[redacted:secret-value] next",
        ),
        (
            r#"{"api_key": "abc", "client_secret":"x\"y"}"#,
            r#"{"api_key": "[redacted:secret-value]", "client_secret":"[redacted:secret-value]"}"#,
        ),
        ("token='abc def'", "token='[redacted:secret-value]'"),
        (
            "password: hunter2\nuser: bob",
            "password: [redacted:secret-value]\nuser: bob",
        ),
        (
            "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabcd\n-----END RSA PRIVATE KEY-----\nb",
            "a\n[redacted:private-key]\nb",
        ),
        (
            "x -----BEGIN PRIVATE KEY-----\nMIIE cut",
            "x [redacted:private-key]",
        ),
        (
            "glab glpat-z_sxgtrfAxKr8q1TPY8Y.",
            "glab [redacted:gitlab-token].",
        ),
        ("sk_test_4eC39HqLyjWDarjtT1zdp7dc", "[redacted:stripe-key]"),
    ];
    for (text, expected) in cases {
        assert_eq!(redact(text), expected, "{text}");
    }
}

#[test]
fn redact_needs_no_digit_in_prefixed_tokens() {
    let cases = [
        ("id AKIAQWERTYUIOPASDFGH.", "id [redacted:aws-access-key]."),
        ("ASIAZZZZZZZZZZZZZZZZ", "[redacted:aws-access-key]"),
        (
            "t=ghp_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj;",
            "t=[redacted:github-token];",
        ),
        (
            "github_pat_AbCdEfGhIjKlMnOpQrStUv_wXyZaBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPqRsTuVwXyZaBc end",
            "[redacted:github-token] end",
        ),
        (
            "key sk-ant-api-AbCdEf_GhIjKl-MnOpQrStUvWxYz end",
            "key [redacted:anthropic-api-key] end",
        ),
        (
            "sk-AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIjKlMnOpQrStUv",
            "[redacted:openai-api-key]",
        ),
        ("xoxb-AbCdEfGhIj-KlMnOpQrSt", "[redacted:slack-token]"),
        (
            "key=AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz_AbCdEf&x",
            "key=[redacted:google-api-key]&x",
        ),
        ("glpat-AbCdEfGhIjKlMnOpQrSt", "[redacted:gitlab-token]"),
        ("rk_live_AbCdEfGhIjKlMnOpQrStUvWx", "[redacted:stripe-key]"),
    ];
    for (text, expected) in cases {
        assert_eq!(redact(text), expected, "{text}");
    }
}

#[test]
fn redact_finds_tokens_glued_to_other_characters() {
    let cases = [
        (
            "M000sk-ant-api03-AbCdEf0123456789xyz end",
            "M000[redacted:anthropic-api-key] end",
        ),
        (
            "xyzsk-proj-Abc123Def456Ghi789Jkl012",
            "xyz[redacted:openai-api-key]",
        ),
        (
            "tasksk-AbCdEfGhIjKlMnOpQrSt",
            "task[redacted:openai-api-key]",
        ),
        (
            "x9ghp_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGhIj_y",
            "x9[redacted:github-token]_y",
        ),
        (
            "AKIAIOSFODNN7EXAMPLE_AKIAIOSFODNN7EXAMPLE",
            "[redacted:aws-access-key]_[redacted:aws-access-key]",
        ),
        ("zzxoxp-1234-5678-9abcdef_", "zz[redacted:slack-token]_"),
        (
            "QAIzaSyA1234567890abcdefghijklmnopqrstuv)",
            "Q[redacted:google-api-key])",
        ),
        (
            "tokglpat-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789a.01.1a2b3c4d5 ok",
            "tok[redacted:gitlab-token] ok",
        ),
        ("disk_live_AbCdEfGhIjKlMnOp_q", "di[redacted:stripe-key]_q"),
    ];
    for (text, expected) in cases {
        assert_eq!(redact(text), expected, "{text}");
    }
    // The exact spans of the glued key.
    let text = "M000sk-ant-api03-AbCdEf0123456789xyz end";
    let secrets = find_secrets(text);
    assert_eq!(secrets.len(), 1);
    assert_eq!(secrets[0].kind, SecretKind::AnthropicApiKey);
    assert_eq!((secrets[0].span.start(), secrets[0].span.end()), (4, 36));
}

#[test]
fn redact_leaves_look_alikes_alone() {
    for text in [
        "task-list-items-and-more-things",
        "sk-some-long-kebab-case-identifier",
        "max_tokens: 4096",
        "tokenizer=bpe",
        "pub password: String,",
        "let token = tokens.next();",
        "Bearer authentication is described in RFC",
        "https://example.com:8080/path",
        "AKIA is a prefix",
        "ghp_ alone",
        "PWD=/home/user",
        // Words joined by `-` or `_` after a word holding the prefix (`task-`, `disk-`).
        "task-list-manager-for-the-app",
        "see task-1234-fix-the-login-flow-again",
        "risk-assessment-2024-q3-quarterly-report",
        "Risk-Assessment-Report-2024-Final-Version",
        "disk-HTTP-CLIENT-RETRY-POLICY-V2",
        "task-ant-colony-simulation-project",
        "sk-ant-placeholder-for-your-key",
        "github_pat_expiry_warning_days_default",
        "xoxo-gossip-girl-forever-and-ever",
        // Too short, or longer than a fixed-length token.
        "AKIAbcd",
        "AKIAIOSFODNN7EXAMPL",
        "AKIAIOSFODNN7EXAMPLEX",
        "CONFIG_ASIAPACIFICDATACENTERS",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYzAbC",
        "glpat-AbCdEfGhIjKlMnOpQrS",
        "AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz_AbCdE",
        "AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz_AbCdEfG",
        "sk_live_AbCdEfGhIjKlMnO",
        "sk-AbCdEfGhIjKlMnOpQrS",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn secrets_are_sorted_and_merged() {
    let text = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz";
    let secrets = find_secrets(text);
    assert_eq!(secrets.len(), 1);
    assert_eq!(secrets[0].kind, SecretKind::Jwt);
    assert_eq!(secrets[0].span.start(), 22);
    assert_eq!(secrets[0].span.end(), text.len());
    for kind in [
        SecretKind::PrivateKey,
        SecretKind::GitlabToken,
        SecretKind::SecretValue,
    ] {
        assert_eq!(kind.placeholder(), format!("[redacted:{}]", kind.as_str()));
    }
}
