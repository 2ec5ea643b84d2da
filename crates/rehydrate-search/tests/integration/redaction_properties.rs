//! Each prefixed-token rule on random tokens of the real shape: for random bodies of the
//! provider's alphabet and length (bodies without any digit included), glued to random word
//! characters where the rule allows it and embedded in random text, the token's exact span is
//! found with its kind, and the redacted text is the surrounding text with the exact
//! placeholder in the token's place. Words joined by `-` or `_` after a word holding a prefix
//! (`task-…`, `disk-…`) are never redacted.

use proptest::prelude::*;
use proptest::sample::select;
use rehydrate_search::{SecretKind, find_secrets, redact};

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

/// Capital letters and `2`–`7`: the alphabet of an AWS access key id after its prefix.
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The characters between tokens: no prefix, key word or URL can be made of them.
const FILLER: &[&str] = &[
    "the ", "log ", "line", "ok", "run ", "é", "€", "42", "\n", " ", "-", "_", ".", ",", "(", ")",
    "x", "Z", "\t", "ü",
];

/// Characters that end every token: none is a key character of any rule, and none starts a
/// routable GitLab suffix (`.01.`).
const SEPARATORS: &[&str] = &[
    " ", "\n", "\t", ", ", "; ", "\"", "'", ")", "(", "! ", "é", "€", "\r\n", "]",
];

/// One of `items`.
fn one_of(items: &'static [&'static str]) -> BoxedStrategy<&'static str> {
    select(items).boxed()
}

/// `len` characters of `alphabet`, uniformly.
fn chars_of(alphabet: &str, len: impl Into<prop::collection::SizeRange>) -> BoxedStrategy<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(select(chars), len)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

/// Letters and digits (base62), or letters only.
fn base62_or_letters() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("{UPPER}{LOWER}{DIGITS}")),
        Just(format!("{UPPER}{LOWER}")),
    ]
}

/// Letters, digits, `_` and `-` (base64url), or without the digits.
fn base64url_or_no_digits() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("{UPPER}{LOWER}{DIGITS}_-")),
        Just(format!("{UPPER}{LOWER}_-")),
    ]
}

/// Random text from [`FILLER`].
fn filler() -> impl Strategy<Value = String> {
    prop::collection::vec(select(FILLER), 0..12).prop_map(|v| v.concat())
}

/// Up to 6 random word characters (letters, digits, `_`).
fn word_glue() -> BoxedStrategy<String> {
    chars_of(&format!("{UPPER}{LOWER}{DIGITS}_"), 0..=6)
}

/// What may follow a token: a separator, or `glue` when the rule allows word characters there.
fn after(glue: Option<BoxedStrategy<String>>) -> BoxedStrategy<String> {
    let sep = select(SEPARATORS).prop_map(str::to_string);
    match glue {
        Some(glue) => prop_oneof![sep, glue].boxed(),
        None => sep.boxed(),
    }
}

/// `_` and word characters: what may follow a token whose alphabet has no `_`.
fn underscore_glue() -> BoxedStrategy<String> {
    word_glue().prop_map(|w| format!("_{w}")).boxed()
}

/// Asserts that `before + token + after` (in random filler) has the token as its only secret,
/// of `kind`, at its exact span, and redacts to the same text with the placeholder instead.
fn check(
    head: &str,
    before: &str,
    token: &str,
    after: &str,
    tail: &str,
    kind: SecretKind,
) -> Result<(), TestCaseError> {
    let text = format!("{head}{before}{token}{after}{tail}");
    let start = head.len() + before.len();
    let secrets = find_secrets(&text);
    prop_assert_eq!(secrets.len(), 1, "{:?}: {:?}", text, secrets);
    prop_assert_eq!(secrets[0].kind, kind);
    prop_assert_eq!(
        (secrets[0].span.start(), secrets[0].span.end()),
        (start, start + token.len()),
        "{:?}",
        text
    );
    let expected = format!("{head}{before}{}{after}{tail}", kind.placeholder());
    let redacted = redact(&text);
    prop_assert_eq!(redacted.as_ref(), expected.as_str());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `AKIA`/`ASIA`/`ABIA`/`ACCA` and 16 of `A`–`Z`, `2`–`7` (or capitals only), glued to
    /// word characters before and to small letters and `_` after.
    #[test]
    fn aws_access_key_ids_are_redacted(
        prefix in one_of(&["AKIA", "ASIA", "ABIA", "ACCA"]),
        body in prop_oneof![Just(BASE32), Just(UPPER)].prop_flat_map(|a| chars_of(a, 16)),
        before in word_glue(),
        after in after(Some(chars_of(&format!("{LOWER}_"), 1..=6))),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("{prefix}{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::AwsAccessKey)?;
    }

    /// `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 letters and digits (or letters only).
    #[test]
    fn github_classic_tokens_are_redacted(
        prefix in one_of(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
        body in base62_or_letters().prop_flat_map(|a| chars_of(&a, 36)),
        before in word_glue(),
        after in after(Some(underscore_glue())),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("{prefix}{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::GithubToken)?;
    }

    /// `github_pat_`, 22 letters and digits, `_`, 59 letters and digits (or letters only).
    #[test]
    fn github_fine_grained_tokens_are_redacted(
        (first, second) in base62_or_letters()
            .prop_flat_map(|a| (chars_of(&a, 22), chars_of(&a, 59))),
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("github_pat_{first}_{second}");
        check(&head, &before, &token, &after, &tail, SecretKind::GithubToken)?;
    }

    /// `sk-ant-` with a version tag (or none) and 95 base64url characters (or no digits),
    /// glued to word characters before (`M000sk-ant-…`).
    #[test]
    fn anthropic_keys_are_redacted(
        prefix in one_of(&["sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-", "sk-ant-"]),
        body in base64url_or_no_digits().prop_flat_map(|a| chars_of(&a, 95)),
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("{prefix}{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::AnthropicApiKey)?;
    }

    /// `sk-` and 48 letters and digits (or letters only), or `sk-proj-`, `sk-svcacct-`,
    /// `sk-admin-` and 120 to 170 base64url characters (or no digits), glued to word
    /// characters before (`xyzsk-proj-…`).
    #[test]
    fn openai_keys_are_redacted(
        (prefix, body) in prop_oneof![
            base62_or_letters().prop_flat_map(|a| chars_of(&a, 48)).prop_map(|b| ("sk-", b)),
            (
                one_of(&["sk-proj-", "sk-svcacct-", "sk-admin-"]),
                base64url_or_no_digits().prop_flat_map(|a| chars_of(&a, 120..=170)),
            ),
        ],
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("{prefix}{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::OpenAiApiKey)?;
    }

    /// Slack: `xoxb-` ids and letters (`xoxb-<digits>-<digits>-<24 base62>`), user tokens
    /// (`xoxp-` three ids and 32 hex digits), or any prefix and 40 to 60 letters and `-` with
    /// no digit; glued to word characters before and `_` after.
    #[test]
    fn slack_tokens_are_redacted(
        token in prop_oneof![
            (chars_of(DIGITS, 10..=13), chars_of(DIGITS, 10..=13),
                base62_or_letters().prop_flat_map(|a| chars_of(&a, 24)))
                .prop_map(|(a, b, c)| format!("xoxb-{a}-{b}-{c}")),
            (chars_of(DIGITS, 10..=13), chars_of(DIGITS, 10..=13), chars_of(DIGITS, 10..=13),
                chars_of("0123456789abcdef", 32))
                .prop_map(|(a, b, c, d)| format!("xoxp-{a}-{b}-{c}-{d}")),
            (one_of(&["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"]),
                chars_of(&format!("{UPPER}{LOWER}-"), 40..=60))
                .prop_map(|(p, b)| format!("{p}{b}"))
                // Letters and `-` can spell an OpenAI key's `sk-` inside the token, a second
                // secret that may run on into the glue after it: not this property's case.
                .prop_filter("no `sk-` inside", |t| !t.contains("sk-")),
        ],
        before in word_glue(),
        after in after(Some(underscore_glue())),
        head in filler(),
        tail in filler(),
    ) {
        check(&head, &before, &token, &after, &tail, SecretKind::SlackToken)?;
    }

    /// `AIza` and 35 base64url characters (or no digits), glued to word characters before.
    #[test]
    fn google_api_keys_are_redacted(
        body in base64url_or_no_digits().prop_flat_map(|a| chars_of(&a, 35)),
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("AIza{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::GoogleApiKey)?;
    }

    /// `sk-` and 32 small hex digits, or `sk-or-v1-` and 64 (with a digit and a letter).
    #[test]
    fn hex_keys_are_redacted(
        (prefix, body) in prop_oneof![
            chars_of("0123456789abcdef", 31).prop_map(|b| ("sk-", b)),
            chars_of("0123456789abcdef", 63).prop_map(|b| ("sk-or-v1-", b)),
        ],
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        // One digit and one letter for sure, anywhere in the run.
        let token = format!("{prefix}a{body}7");
        check(&head, &before, &token, &after, &tail, SecretKind::OpenAiApiKey)?;
    }

    /// `npm_` and 36 letters and digits (or letters only, with a capital).
    #[test]
    fn npm_tokens_are_redacted(
        body in base62_or_letters().prop_flat_map(|a| chars_of(&a, 35)),
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("npm_Q{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::NpmToken)?;
    }

    /// `hf_` and 34 letters of both cases.
    #[test]
    fn huggingface_tokens_are_redacted(
        body in chars_of(&format!("{UPPER}{LOWER}"), 32),
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("hf_aB{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::HuggingfaceToken)?;
    }

    /// `glpat-` and 20 base64url characters (or no digits), or a routable token: `glpat-`,
    /// 37 to 60 base64url characters, `.01.` and 8 to 12 small letters and digits.
    #[test]
    fn gitlab_tokens_are_redacted(
        token in prop_oneof![
            base64url_or_no_digits()
                .prop_flat_map(|a| chars_of(&a, 20))
                .prop_map(|b| format!("glpat-{b}")),
            (base64url_or_no_digits().prop_flat_map(|a| chars_of(&a, 37..=60)),
                chars_of(&format!("{LOWER}{DIGITS}"), 8..=12))
                .prop_map(|(b, r)| format!("glpat-{b}.01.{r}")),
        ],
        before in word_glue(),
        after in after(None),
        head in filler(),
        tail in filler(),
    ) {
        check(&head, &before, &token, &after, &tail, SecretKind::GitlabToken)?;
    }

    /// `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` and 24 or 99 letters and digits (or
    /// letters only), glued to word characters before and `_` after.
    #[test]
    fn stripe_keys_are_redacted(
        prefix in one_of(&["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
        body in (base62_or_letters(), prop_oneof![Just(24usize), Just(99usize)])
            .prop_flat_map(|(a, n)| chars_of(&a, n)),
        before in word_glue(),
        after in after(Some(underscore_glue())),
        head in filler(),
        tail in filler(),
    ) {
        let token = format!("{prefix}{body}");
        check(&head, &before, &token, &after, &tail, SecretKind::StripeKey)?;
    }

    /// Words (small, Title-Case, CAPITALS, numbers, `v2`) joined by `-` or `_` after `sk-`,
    /// and small words joined by `-` or `_` after `sk-ant-`, `github_pat_` or a Slack prefix,
    /// glued to a word (`task-`, `disk-`, `risk-`) or not, are left as they are.
    #[test]
    fn words_after_a_prefix_are_not_redacted(
        glue in one_of(&["", "ta", "di", "ri", "ma", "de", "fla", "x"]),
        mixed in prop::collection::vec(
            (one_of(WORDS), 0..5usize, chars_of(DIGITS, 1..=6), one_of(DIGIT_WORDS)).prop_map(
                |(w, case, n, d)| match case {
                    0 => w.to_string(),
                    1 => title(w),
                    2 => w.to_ascii_uppercase(),
                    3 => n,
                    _ => d.to_string(),
                },
            ),
            1..10,
        ),
        small in prop::collection::vec(one_of(WORDS), 1..10),
        joiner in one_of(&["-", "_"]),
        prefix in one_of(&["sk-ant-", "github_pat_", "xoxo-", "xoxb-"]),
        head in filler(),
        tail in filler(),
    ) {
        let text = format!("{head}{glue}sk-{} {tail}", mixed.join(joiner));
        prop_assert_eq!(redact(&text), text.as_str());
        let text = format!("{head}{glue}{prefix}{} {tail}", small.join(joiner));
        prop_assert_eq!(redact(&text), text.as_str());
    }
}

/// Words of identifiers and prose, without digits (and without `ant`, which would start an
/// Anthropic key).
const WORDS: &[&str] = &[
    "list",
    "items",
    "and",
    "more",
    "things",
    "fix",
    "the",
    "login",
    "flow",
    "bug",
    "app",
    "manager",
    "for",
    "report",
    "assessment",
    "final",
    "version",
    "internationalization",
    "configuration",
    "http",
    "client",
    "retry",
    "policy",
    "colony",
    "simulation",
];

/// Words of identifiers with digits.
const DIGIT_WORDS: &[&str] = &["v2", "utf8", "sha256", "q3", "x86", "2024", "base64"];

/// `word` with its first letter capital.
fn title(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}
