//! Secret redaction: secret-shaped strings replaced by typed placeholders.
//!
//! Search applies it to every snippet; evidence projection reuses [`redact`].

use std::borrow::Cow;
use std::sync::LazyLock;

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;

use rehydrate_model::Span;

/// The text every placeholder starts with; a placeholder is `[redacted:<kind>]`, where `<kind>`
/// is one of the tokens of [`SecretKind::as_str`].
pub const REDACTED_PREFIX: &str = "[redacted:";

/// What kind of secret a redacted span held; its token names it in the placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SecretKind {
    /// `private-key`: a PEM private key block, `-----BEGIN … PRIVATE KEY-----` through its
    /// `-----END … PRIVATE KEY-----` line (or the end of the text when that is missing).
    PrivateKey,
    /// `anthropic-api-key`: `sk-ant-` and at least 16 more key characters.
    AnthropicApiKey,
    /// `openai-api-key`: `sk-`, optionally `proj-`, `svcacct-` or `admin-`, and at least 20 more
    /// key characters.
    OpenAiApiKey,
    /// `github-token`: `ghp_`, `gho_`, `ghu_`, `ghs_` or `ghr_` and at least 30 letters and
    /// digits, or `github_pat_` and at least 20 more.
    GithubToken,
    /// `aws-access-key`: an AWS access key id, `AKIA`, `ASIA`, `ABIA` or `ACCA` and 16 capital
    /// letters and digits.
    AwsAccessKey,
    /// `slack-token`: `xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-` or `xoxe-` and at
    /// least 10 more characters.
    SlackToken,
    /// `google-api-key`: `AIza` and 35 key characters.
    GoogleApiKey,
    /// `stripe-key`: `sk_live_`, `sk_test_`, `rk_live_` or `rk_test_` and at least 16 letters
    /// and digits.
    StripeKey,
    /// `jwt`: a JSON web token, three dot-separated base64url parts, the first two starting
    /// `eyJ`.
    Jwt,
    /// `authorization`: the credentials of an `Authorization:` or `Proxy-Authorization:` header
    /// (after `Bearer`, `Basic`, `Token`, `Bot`, `Digest` or `ApiKey`).
    Authorization,
    /// `bearer-token`: a token of at least 16 characters after the word `Bearer`.
    BearerToken,
    /// `url-password`: the password of a URL's user info, `scheme://user:PASSWORD@host`.
    UrlPassword,
    /// `secret-value`: the value of a key that names a secret (ending in `password`, `passwd`,
    /// `passphrase`, `secret`, `token`, `api_key`, `access_key`, `private_key`, `auth_key`,
    /// `secret_key`, `signing_key`, `encryption_key`, `master_key` or `credential(s)`, any
    /// case, `_` or `-` or nothing inside the two-word names).
    SecretValue,
}

impl SecretKind {
    /// The kind token: `private-key`, `anthropic-api-key`, `openai-api-key`, `github-token`,
    /// `aws-access-key`, `slack-token`, `google-api-key`, `stripe-key`, `jwt`, `authorization`,
    /// `bearer-token`, `url-password` or `secret-value`.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private-key",
            SecretKind::AnthropicApiKey => "anthropic-api-key",
            SecretKind::OpenAiApiKey => "openai-api-key",
            SecretKind::GithubToken => "github-token",
            SecretKind::AwsAccessKey => "aws-access-key",
            SecretKind::SlackToken => "slack-token",
            SecretKind::GoogleApiKey => "google-api-key",
            SecretKind::StripeKey => "stripe-key",
            SecretKind::Jwt => "jwt",
            SecretKind::Authorization => "authorization",
            SecretKind::BearerToken => "bearer-token",
            SecretKind::UrlPassword => "url-password",
            SecretKind::SecretValue => "secret-value",
        }
    }

    /// The placeholder that replaces a secret of this kind: `[redacted:<kind>]`.
    pub fn placeholder(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "[redacted:private-key]",
            SecretKind::AnthropicApiKey => "[redacted:anthropic-api-key]",
            SecretKind::OpenAiApiKey => "[redacted:openai-api-key]",
            SecretKind::GithubToken => "[redacted:github-token]",
            SecretKind::AwsAccessKey => "[redacted:aws-access-key]",
            SecretKind::SlackToken => "[redacted:slack-token]",
            SecretKind::GoogleApiKey => "[redacted:google-api-key]",
            SecretKind::StripeKey => "[redacted:stripe-key]",
            SecretKind::Jwt => "[redacted:jwt]",
            SecretKind::Authorization => "[redacted:authorization]",
            SecretKind::BearerToken => "[redacted:bearer-token]",
            SecretKind::UrlPassword => "[redacted:url-password]",
            SecretKind::SecretValue => "[redacted:secret-value]",
        }
    }
}

/// One secret found in a text: its byte range and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Secret {
    /// The secret's bytes, half-open, on char boundaries.
    pub span: Span,
    /// What it is.
    pub kind: SecretKind,
}

/// One detection rule.
struct Rule {
    kind: SecretKind,
    pattern: &'static str,
    /// Whether the secret is capture group 1 (the rest of the match is context, such as the
    /// key of `KEY=value`); otherwise it is the whole match.
    group: bool,
    /// Whether the secret must hold an ASCII digit: random tokens practically always do, and
    /// prose or identifiers of the same shape (`sk-some-long-identifier`) mostly do not.
    needs_digit: bool,
}

/// The names a secret-valued key ends with (case-insensitive).
macro_rules! secret_key_words {
    () => {
        "(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|(?:secret|signing|encryption|master)[_-]?key|credentials?)"
    };
}

/// The rules, in priority order (an earlier rule wins where two find secrets starting at the
/// same byte). Distinctive prefixes (`AKIA`, `ghp_`, `xoxb-`, `AIza`, `sk_live_`) match even
/// glued to other characters; `sk-`, JWTs and keys need a word boundary before them, so
/// `task-list-…` is not a key. Word boundaries are ASCII (`(?-u:\b)`), which keeps every rule
/// on the DFA.
const RULES: &[Rule] = &[
    Rule {
        kind: SecretKind::PrivateKey,
        pattern: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        group: false,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::AnthropicApiKey,
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{16,}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::OpenAiApiKey,
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::GithubToken,
        pattern: r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::AwsAccessKey,
        pattern: r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::SlackToken,
        pattern: r"xox[abposre]-[A-Za-z0-9-]{10,}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::GoogleApiKey,
        pattern: r"AIza[A-Za-z0-9_-]{35}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::StripeKey,
        pattern: r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        group: false,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::Jwt,
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        group: false,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::UrlPassword,
        pattern: r"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]+:([^\s/?#@]+)@",
        group: true,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::Authorization,
        pattern: r#"(?i)(?-u:\b)(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|bot|digest|apikey)[ \t]+([A-Za-z0-9._~+/=-]+)"#,
        group: true,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::BearerToken,
        pattern: r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
        group: true,
        needs_digit: true,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?i)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*"((?:[^"\\\r\n]|\\.)+)""#
        ),
        group: true,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?i)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*'((?:[^'\\\r\n]|\\.)+)'"#
        ),
        group: true,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!("(?i)", secret_key_words!(), r#"=([^\s"'`,;&]+)"#),
        group: true,
        needs_digit: false,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?im)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*([^\s"'`,;&(){}\[\]<>]+)[ \t]*\r?$"#
        ),
        group: true,
        needs_digit: false,
    },
];

/// The rules, compiled once.
static COMPILED: LazyLock<Vec<(&'static Rule, Regex)>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|rule| {
            let regex = Regex::new(rule.pattern).expect("the built-in secret patterns compile");
            (rule, regex)
        })
        .collect()
});

/// All the rules in one regex, to tell quickly that a text holds no secret at all (most do not),
/// before the rules run one by one.
static ANY: LazyLock<Regex> = LazyLock::new(|| {
    let patterns: Vec<&str> = RULES.iter().map(|rule| rule.pattern).collect();
    Regex::new_many(&patterns).expect("the built-in secret patterns compile")
});

/// Every secret in `text`, sorted by position; overlapping finds are merged into one secret of
/// the earlier-starting (or, at one start, the higher-priority) kind. See [`redact`] for what
/// is detected.
pub fn find_secrets(text: &str) -> Vec<Secret> {
    if !ANY.is_match(text) {
        return Vec::new();
    }
    let mut found: Vec<(usize, usize, usize, SecretKind)> = Vec::new();
    let digit =
        |range: std::ops::Range<usize>| text.as_bytes()[range].iter().any(u8::is_ascii_digit);
    for (priority, (rule, regex)) in COMPILED.iter().enumerate() {
        if rule.group {
            let mut caps: Captures = regex.create_captures();
            let mut at = 0;
            while at <= text.len() {
                let input = regex_automata::Input::new(text).span(at..text.len());
                regex.search_captures(&input, &mut caps);
                let (Some(whole), Some(secret)) = (caps.get_match(), caps.get_group(1)) else {
                    break;
                };
                if !secret.is_empty() && (!rule.needs_digit || digit(secret.range())) {
                    found.push((secret.start, priority, secret.end, rule.kind));
                }
                at = if whole.is_empty() {
                    whole.end() + 1
                } else {
                    whole.end()
                };
            }
        } else {
            for m in regex.find_iter(text) {
                if !m.is_empty() && (!rule.needs_digit || digit(m.range())) {
                    found.push((m.start(), priority, m.end(), rule.kind));
                }
            }
        }
    }
    found.sort_unstable();
    let mut secrets: Vec<Secret> = Vec::with_capacity(found.len());
    let mut last: Option<(usize, usize, SecretKind)> = None;
    // By start, then priority: at one start the higher-priority kind names the merged secret.
    for (start, _, end, kind) in found {
        match &mut last {
            Some((_, last_end, _)) if start < *last_end => *last_end = (*last_end).max(end),
            _ => {
                if let Some(done) = last.take() {
                    secrets.push(secret(done));
                }
                last = Some((start, end, kind));
            }
        }
    }
    if let Some(done) = last {
        secrets.push(secret(done));
    }
    secrets
}

fn secret((start, end, kind): (usize, usize, SecretKind)) -> Secret {
    Secret {
        span: Span::new(start, end).expect("a match starts before it ends"),
        kind,
    }
}

/// `text` with every secret-shaped string replaced by the placeholder of its kind,
/// `[redacted:<kind>]` ([`SecretKind::placeholder`]); borrowed when nothing was found.
///
/// What is detected ([`SecretKind`] lists each shape): PEM private key blocks; provider API
/// keys (`sk-ant-…`, `sk-…`, `ghp_…`, `github_pat_…`, `AKIA…`, `xoxb-…`, `AIza…`,
/// `sk_live_…`); JSON web tokens; the password in a URL's user info; the credentials of an
/// `Authorization` header and a token after `Bearer`; and the value of a secret-named key:
/// `PASSWORD="…"`, `"api_key": "…"`, `token='…'`, `GITHUB_TOKEN=…` (unquoted, right after
/// `=`), or `password: …` when the unquoted value ends its line. Only the secret is replaced;
/// the key, the header name or the URL around it stay. Token-shaped rules require a digit in
/// the token, so identifiers and prose of the same shape are left alone.
///
/// Placeholder grammar: `[redacted:` + kind token + `]`, kind tokens being lowercase ASCII
/// words joined by `-`. A placeholder never holds any byte of the secret it replaces.
/// Detection is by shape, so it can miss a secret of a shape not listed, and it can redact
/// something that only looks like one.
///
/// # Example
///
/// ```
/// use rehydrate_search::redact;
///
/// assert_eq!(
///     redact("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"),
///     "export AWS_ACCESS_KEY_ID=[redacted:aws-access-key]"
/// );
/// assert_eq!(redact("DB_PASSWORD=hunter2 make test"), "DB_PASSWORD=[redacted:secret-value] make test");
/// assert_eq!(redact("nothing to hide"), "nothing to hide");
/// ```
pub fn redact(text: &str) -> Cow<'_, str> {
    let secrets = find_secrets(text);
    if secrets.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in &secrets {
        out.push_str(&text[at..s.span.start()]);
        out.push_str(s.kind.placeholder());
        at = s.span.end();
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}
