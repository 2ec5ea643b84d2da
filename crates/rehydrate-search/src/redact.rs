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
    /// `anthropic-api-key`: `sk-ant-` and at least 16 more key characters (`A`–`Z`, `a`–`z`,
    /// `0`–`9`, `_`, `-`), the whole run of them, holding at least one capital letter or digit.
    /// Real keys are `sk-ant-api03-` (or `sk-ant-admin01-`, `sk-ant-oat01-`) and about 95
    /// key characters. Anything may come before `sk-` (`M000sk-ant-…` is found); a run of small
    /// letters, `-` and `_` (`task-ant-colony-simulation`) is prose.
    AnthropicApiKey,
    /// `openai-api-key`: `sk-` and at least 20 more key characters (`A`–`Z`, `a`–`z`, `0`–`9`,
    /// `_`, `-`; so `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…` too), the whole run of them,
    /// holding a run of letters and digits (no `-` or `_` inside) that has a small letter and,
    /// after its first character, a capital letter. Real keys are `sk-` and 48 mixed-case
    /// letters and digits, or `sk-proj-` and about 156 key characters. Anything may come
    /// before `sk-` (`xyzsk-proj-…` is found), so `task-`, `disk-` and `risk-` contain the
    /// prefix: kebab-case, Title-Case and digit-bearing names (`task-1234-fix-the-login-flow`,
    /// `Risk-Assessment-Report-2024`) are not keys, camelCase ones after `sk-` may be taken
    /// for one. A body with a run of 32 or more small hex digits holding a digit and a letter
    /// is a key too (`sk-` and 32 hex digits; OpenRouter's `sk-or-v1-` and 64).
    OpenAiApiKey,
    /// `github-token`: `ghp_`, `gho_`, `ghu_`, `ghs_` or `ghr_` and at least 30 letters and
    /// digits (real tokens have 36), the whole run of them; or `github_pat_` and at least 20
    /// letters, digits and `_` (real tokens have 82: 22, `_`, 59), the whole run of them,
    /// holding at least one capital letter or digit (`github_pat_expiry_warning_days` is a
    /// name). Anything may come before the prefix.
    GithubToken,
    /// `aws-access-key`: an AWS access key id, `AKIA`, `ASIA`, `ABIA` or `ACCA` and exactly 16
    /// capital letters and digits, not followed by another capital letter or digit (a longer
    /// run is a name, not an id). Real ids use only `A`–`Z` and `2`–`7` after the prefix; the
    /// other digits are accepted so made-up ids are caught too. Anything may come before the
    /// prefix and anything but a capital letter or digit after the id.
    AwsAccessKey,
    /// `slack-token`: `xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-` or `xoxe-` and at
    /// least 10 more letters, digits and `-`, the whole run of them, holding at least one
    /// capital letter or digit (`xoxo-gossip-girl` is prose). Real tokens are numeric ids and
    /// letters joined by `-`, such as `xoxb-` digits `-` digits `-` 24 letters and digits.
    /// Anything may come before the prefix.
    SlackToken,
    /// `google-api-key`: `AIza` and exactly 35 key characters (`A`–`Z`, `a`–`z`, `0`–`9`, `_`,
    /// `-`), 39 in all, not followed by another key character. Anything may come before
    /// `AIza`.
    GoogleApiKey,
    /// `gitlab-token`: a GitLab personal access token, `glpat-` and at least 20 key characters
    /// (`A`–`Z`, `a`–`z`, `0`–`9`, `_`, `-`), the whole run of them (classic tokens have 20),
    /// and, for routable tokens, a `.`, digits, a `.` and letters and digits after them.
    /// Anything may come before `glpat-`.
    GitlabToken,
    /// `npm-token`: an npm access token, `npm_` and exactly 36 letters and digits, not followed
    /// by another, holding a capital or a digit. Anything may come before `npm_`.
    NpmToken,
    /// `huggingface-token`: a Hugging Face access token, `hf_` and exactly 34 letters, not
    /// followed by a letter, digit or `_`, with small and capital letters in it. Anything may
    /// come before `hf_`.
    HuggingfaceToken,
    /// `stripe-key`: `sk_live_`, `sk_test_`, `rk_live_` or `rk_test_` and at least 16 letters
    /// and digits (real keys have 24 or 99), the whole run of them. Anything may come before
    /// the prefix (so `disk_test_` and a word of 16 or more letters is taken for a key).
    StripeKey,
    /// `jwt`: a JSON web token, three dot-separated base64url parts, the first two starting
    /// `eyJ`.
    Jwt,
    /// `authorization`: the credentials of an `Authorization:` or `Proxy-Authorization:` header
    /// (after `Bearer`, `Basic`, `Token`, `Bot`, `Digest` or `ApiKey`).
    Authorization,
    /// `bearer-token`: a token after the word `Bearer` (any case, a word boundary before it)
    /// and spaces or tabs: at least 16 letters, digits, `.`, `_`, `~`, `+`, `/` or `-`, then
    /// any `=`, holding at least one digit (so prose such as
    /// `Bearer authentication-and-authorization` is left).
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
    /// `aws-access-key`, `slack-token`, `google-api-key`, `npm-token`, `huggingface-token`, `gitlab-token`, `stripe-key`, `jwt`,
    /// `authorization`, `bearer-token`, `url-password` or `secret-value`.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private-key",
            SecretKind::AnthropicApiKey => "anthropic-api-key",
            SecretKind::OpenAiApiKey => "openai-api-key",
            SecretKind::GithubToken => "github-token",
            SecretKind::AwsAccessKey => "aws-access-key",
            SecretKind::SlackToken => "slack-token",
            SecretKind::GoogleApiKey => "google-api-key",
            SecretKind::NpmToken => "npm-token",
            SecretKind::HuggingfaceToken => "huggingface-token",
            SecretKind::GitlabToken => "gitlab-token",
            SecretKind::StripeKey => "stripe-key",
            SecretKind::Jwt => "jwt",
            SecretKind::Authorization => "authorization",
            SecretKind::BearerToken => "bearer-token",
            SecretKind::UrlPassword => "url-password",
            SecretKind::SecretValue => "secret-value",
        }
    }

    /// The placeholder that replaces a secret of this kind: `[redacted:<kind>]`, `<kind>` being
    /// [`SecretKind::as_str`] (for example `[redacted:gitlab-token]`).
    pub fn placeholder(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "[redacted:private-key]",
            SecretKind::AnthropicApiKey => "[redacted:anthropic-api-key]",
            SecretKind::OpenAiApiKey => "[redacted:openai-api-key]",
            SecretKind::GithubToken => "[redacted:github-token]",
            SecretKind::AwsAccessKey => "[redacted:aws-access-key]",
            SecretKind::SlackToken => "[redacted:slack-token]",
            SecretKind::GoogleApiKey => "[redacted:google-api-key]",
            SecretKind::NpmToken => "[redacted:npm-token]",
            SecretKind::HuggingfaceToken => "[redacted:huggingface-token]",
            SecretKind::GitlabToken => "[redacted:gitlab-token]",
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
    /// key of `KEY=value` or the byte that ends a fixed-length token); otherwise it is the
    /// whole match.
    group: bool,
    /// What the secret's bytes must hold besides the pattern.
    shape: Shape,
}

/// A condition on a secret's bytes that a regex cannot state on the DFA, checked on each
/// match. A condition that fails on a run of token characters fails on every suffix of it
/// too, and a later prefix inside a rejected match can only start such a suffix, so checking
/// only the matches the regex reports (leftmost, longest run) misses no secret.
#[derive(Clone, Copy)]
enum Shape {
    /// No condition.
    Any,
    /// At least one ASCII digit: the rule is a context (`Bearer …`), not a prefix, and prose
    /// after it rarely holds a digit.
    Digit,
    /// At least one ASCII capital letter or digit: not only small letters joined by `-` or `_`
    /// (kebab-case or snake_case words), which a random token of 16 or more characters almost
    /// never is (`(26/62)^16 < 1e-6`).
    NotSmallWords,
    /// A run of ASCII letters and digits (bounded by other bytes or the token's ends) holding a
    /// small letter and, after the run's first character, a capital letter: random mixed-case
    /// tokens have one (48 random letters and digits lack one with probability under `1e-10`),
    /// while kebab-case, Title-Case, CAPITALS and digits (`1234-fix-login`,
    /// `Risk-Assessment-2024`) do not. Or a run of 32 or more small hex digits (`0`–`9`,
    /// `a`–`f`) holding a digit and a letter: a hex key (`sk-` and 32 hex digits, OpenRouter's
    /// `sk-or-v1-` and 64), which words are not.
    MixedCaseRun,
}

impl Shape {
    fn holds(self, bytes: &[u8]) -> bool {
        match self {
            Shape::Any => true,
            Shape::Digit => bytes.iter().any(u8::is_ascii_digit),
            Shape::NotSmallWords => bytes
                .iter()
                .any(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
            Shape::MixedCaseRun => {
                let (mut hex, mut hex_digit, mut hex_letter) = (0usize, false, false);
                for &b in bytes {
                    if b.is_ascii_digit() || (b'a'..=b'f').contains(&b) {
                        hex += 1;
                        hex_digit |= b.is_ascii_digit();
                        hex_letter |= b.is_ascii_alphabetic();
                        if hex >= 32 && hex_digit && hex_letter {
                            return true;
                        }
                    } else {
                        (hex, hex_digit, hex_letter) = (0, false, false);
                    }
                }
                let (mut run, mut small, mut inner_capital) = (0usize, false, false);
                for &b in bytes {
                    if !b.is_ascii_alphanumeric() {
                        (run, small, inner_capital) = (0, false, false);
                        continue;
                    }
                    small |= b.is_ascii_lowercase();
                    inner_capital |= run > 0 && b.is_ascii_uppercase();
                    if small && inner_capital {
                        return true;
                    }
                    run += 1;
                }
                false
            }
        }
    }
}

/// The names a secret-valued key ends with (case-insensitive).
macro_rules! secret_key_words {
    () => {
        "(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|(?:secret|signing|encryption|master)[_-]?key|credentials?)"
    };
}

/// The rules, in priority order (an earlier rule wins where two find secrets starting at the
/// same byte).
///
/// Prefixed tokens (`sk-ant-`, `sk-`, `ghp_`, `github_pat_`, `AKIA`, `xoxb-`, `AIza`,
/// `glpat-`, `sk_live_`) match wherever the prefix is, glued to other characters or not, and
/// are told from prose by the prefix, the body's alphabet and length and a [`Shape`], never by
/// a digit. A variable-length token is the whole run of its characters (greedy), so nothing of
/// it is left after the placeholder; a fixed-length one (`AKIA…`, `AIza…`) must not be
/// followed by another of its characters, which the pattern states by consuming the next
/// character (or the end) outside group 1. JWTs, URLs, headers and `Bearer` need a word
/// boundary before them. Word boundaries are ASCII (`(?-u:\b)`), and no rule looks ahead,
/// which keeps every rule on the DFA.
const RULES: &[Rule] = &[
    Rule {
        kind: SecretKind::PrivateKey,
        pattern: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        group: false,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::AnthropicApiKey,
        pattern: r"sk-ant-[A-Za-z0-9_-]{16,}",
        group: false,
        shape: Shape::NotSmallWords,
    },
    Rule {
        kind: SecretKind::OpenAiApiKey,
        pattern: r"sk-[A-Za-z0-9_-]{20,}",
        group: false,
        shape: Shape::MixedCaseRun,
    },
    Rule {
        kind: SecretKind::GithubToken,
        pattern: r"gh[pousr]_[A-Za-z0-9]{30,}",
        group: false,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::GithubToken,
        pattern: r"github_pat_[A-Za-z0-9_]{20,}",
        group: false,
        shape: Shape::NotSmallWords,
    },
    Rule {
        kind: SecretKind::AwsAccessKey,
        pattern: r"((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?:[^A-Z0-9]|\z)",
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::SlackToken,
        pattern: r"xox[abposre]-[A-Za-z0-9-]{10,}",
        group: false,
        shape: Shape::NotSmallWords,
    },
    Rule {
        kind: SecretKind::GoogleApiKey,
        pattern: r"(AIza[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|\z)",
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::NpmToken,
        pattern: r"(npm_[A-Za-z0-9]{36})(?:[^A-Za-z0-9]|\z)",
        group: true,
        shape: Shape::NotSmallWords,
    },
    Rule {
        kind: SecretKind::HuggingfaceToken,
        pattern: r"(hf_[A-Za-z]{34})(?:[^A-Za-z0-9_]|\z)",
        group: true,
        shape: Shape::MixedCaseRun,
    },
    Rule {
        kind: SecretKind::GitlabToken,
        pattern: r"glpat-[A-Za-z0-9_-]{20,}(?:\.[0-9]+\.[A-Za-z0-9]+)?",
        group: false,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::StripeKey,
        pattern: r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        group: false,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::Jwt,
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        group: false,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::UrlPassword,
        pattern: r"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]+:([^\s/?#@]+)@",
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::Authorization,
        pattern: r#"(?i)(?-u:\b)(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|bot|digest|apikey)[ \t]+([A-Za-z0-9._~+/=-]+)"#,
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::BearerToken,
        pattern: r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
        group: true,
        shape: Shape::Digit,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?i)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*"((?:[^"\\\r\n]|\\.)+)""#
        ),
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?i)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*'((?:[^'\\\r\n]|\\.)+)'"#
        ),
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!("(?i)", secret_key_words!(), r#"=([^\s"'`,;&]+)"#),
        group: true,
        shape: Shape::Any,
    },
    Rule {
        kind: SecretKind::SecretValue,
        pattern: concat!(
            "(?im)",
            secret_key_words!(),
            r#"["']?[ \t]*(?::=|=>|=|:)[ \t]*([^\s"'`,;&(){}\[\]<>]+)[ \t]*\r?$"#
        ),
        group: true,
        shape: Shape::Any,
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
    let bytes = text.as_bytes();
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
                if !secret.is_empty() && rule.shape.holds(&bytes[secret.range()]) {
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
                if !m.is_empty() && rule.shape.holds(&bytes[m.range()]) {
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
/// keys and tokens (`sk-ant-…`, `sk-…`, `ghp_…`, `github_pat_…`, `AKIA…`, `xoxb-…`, `AIza…`,
/// `glpat-…`, `sk_live_…`); JSON web tokens; the password in a URL's user info; the
/// credentials of an `Authorization` header and a token after `Bearer`; and the value of a
/// secret-named key: `PASSWORD="…"`, `"api_key": "…"`, `token='…'`, `GITHUB_TOKEN=…`
/// (unquoted, right after `=`), or `password: …` when the unquoted value ends its line. Only
/// the secret is replaced; the key, the header name or the URL around it stay.
///
/// Prefixed tokens are found wherever their prefix is, also glued to the characters before
/// it (`M000sk-ant-api03-…`, `xyzsk-proj-…`), and are told from identifiers and prose by the
/// prefix, the alphabet and length of what follows, and for some a shape ([`SecretKind`]
/// states each): no digit is required. A token of variable length is replaced whole (the
/// entire run of its characters); one of fixed length must not be followed by another of its
/// characters.
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
