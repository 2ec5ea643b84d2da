//! A small Rust lexer for the tidy checks: the identifiers and punctuation of a source file with
//! comments and literals left out, which code is test code, and the Rust examples of its doc
//! comments (the code rustdoc compiles as doctests).
//!
//! It is not a full lexer: it knows enough to tell code from comments, strings (plain, byte, C
//! and raw), char literals and lifetimes, and to find the item a `#[cfg(test)]` attribute
//! covers. Non-ASCII identifiers are skipped.

/// One token: an identifier (keywords included; raw identifiers without `r#`) or punctuation
/// (`::` is one token, any other punctuation one ASCII character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Ident(&'a str),
    Punct(&'a str),
}

/// A lexed source file.
#[derive(Debug, Default)]
pub(crate) struct Lexed<'a> {
    /// The code's tokens, in order.
    pub(crate) tokens: Vec<Token<'a>>,
    /// The text of every doc comment (`///`, `//!`, `/** */`, `/*! */`), one line per comment
    /// line, without the comment markers.
    pub(crate) doc: String,
}

/// Lexes `text` as Rust source.
pub(crate) fn lex(text: &str) -> Lexed<'_> {
    let bytes = text.as_bytes();
    let mut lexed = Lexed::default();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'/' && next == Some(b'/') {
            let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            let line = &text[i..end];
            let outer_doc = line.starts_with("///") && !line.starts_with("////");
            if outer_doc || line.starts_with("//!") {
                lexed.doc.push_str(&line[3..]);
                lexed.doc.push('\n');
            }
            i = end;
        } else if b == b'/' && next == Some(b'*') {
            let end = block_comment_end(bytes, i);
            let comment = &text[i..end];
            let is_doc =
                (comment.starts_with("/**") && !comment.starts_with("/***") && comment != "/**/")
                    || comment.starts_with("/*!");
            if is_doc && comment.len() >= 5 {
                for line in comment[3..comment.len() - 2].lines() {
                    let line = line.trim_start();
                    lexed.doc.push_str(line.strip_prefix('*').unwrap_or(line));
                    lexed.doc.push('\n');
                }
            }
            i = end;
        } else if b == b'"' {
            i = string_end(bytes, i + 1);
        } else if b == b'\'' {
            i = quote_end(text, i);
        } else if b.is_ascii_digit() {
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let after = bytes.get(i).copied();
            match (word, after) {
                ("b" | "c", Some(b'"')) => i = string_end(bytes, i + 1),
                ("b", Some(b'\'')) => i = quote_end(text, i),
                ("r" | "br" | "cr", Some(b'"' | b'#')) => {
                    if let Some(end) = raw_string_end(bytes, i) {
                        i = end;
                    } else if word == "r" && after == Some(b'#') {
                        // A raw identifier, `r#type`.
                        let start = i + 1;
                        i = start;
                        while i < bytes.len()
                            && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                        {
                            i += 1;
                        }
                        if i > start {
                            lexed.tokens.push(Token::Ident(&text[start..i]));
                        }
                    } else {
                        lexed.tokens.push(Token::Ident(word));
                    }
                }
                _ => lexed.tokens.push(Token::Ident(word)),
            }
        } else if b == b':' && next == Some(b':') {
            lexed.tokens.push(Token::Punct("::"));
            i += 2;
        } else if b.is_ascii() {
            lexed.tokens.push(Token::Punct(&text[i..=i]));
            i += 1;
        } else {
            // A non-ASCII character outside literals and comments: skip its bytes.
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    lexed
}

/// The end (exclusive) of the block comment starting at `start` (`/*`), nesting included;
/// the end of the text when it is not closed.
fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end (exclusive) of a string whose contents start at `start` (after the opening `"`).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end (exclusive) of the raw string whose `#`s or `"` start at `start` (after `r`), or
/// `None` when no `"` follows the `#`s (a raw identifier).
fn raw_string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let hashes = bytes[start..].iter().take_while(|&&b| b == b'#').count();
    let open = start + hashes;
    if bytes.get(open) != Some(&b'"') {
        return None;
    }
    let mut i = open + 1;
    while i < bytes.len() {
        if bytes[i] == b'"'
            && bytes.len() >= i + 1 + hashes
            && bytes[i + 1..i + 1 + hashes].iter().all(|&b| b == b'#')
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(bytes.len())
}

/// The end (exclusive) of the char literal, or of the lifetime's `'`, starting at `start`.
fn quote_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(start + 1) {
        Some(b'\\') => {
            // An escape: `'\n'`, `'\''`, `'\u{1F600}'`.
            let mut i = start + 3;
            while i < bytes.len() && bytes[i] != b'\'' {
                i += 1;
            }
            (i + 1).min(bytes.len())
        }
        Some(_) => {
            let width = text[start + 1..].chars().next().map_or(1, char::len_utf8);
            if bytes.get(start + 1 + width) == Some(&b'\'') {
                start + 2 + width
            } else {
                // A lifetime or label: the identifier after it is lexed as one.
                start + 1
            }
        }
        None => bytes.len(),
    }
}

/// Which of `tokens` are test code: the items under a `#[cfg(test)]` attribute (the attribute
/// included, up to the `;` or the closing `}` of the item), every inline `mod tests { … }`, and
/// all of them after a `#![cfg(test)]` inner attribute.
pub(crate) fn test_code(tokens: &[Token<'_>]) -> Vec<bool> {
    let mut is_test = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        if matches_at(tokens, i, &CFG_TEST_INNER) {
            is_test[i..].fill(true);
            break;
        }
        let start = i;
        let item = if matches_at(tokens, i, &CFG_TEST) {
            Some(i + CFG_TEST.len())
        } else if matches_at(tokens, i, &MOD_TESTS) {
            Some(i)
        } else {
            None
        };
        match item {
            Some(item) => {
                let end = item_end(tokens, item);
                is_test[start..end].fill(true);
                i = end;
            }
            None => i += 1,
        }
    }
    is_test
}

/// `#[cfg(test)]`.
const CFG_TEST: [Token<'static>; 7] = [
    Token::Punct("#"),
    Token::Punct("["),
    Token::Ident("cfg"),
    Token::Punct("("),
    Token::Ident("test"),
    Token::Punct(")"),
    Token::Punct("]"),
];

/// `#![cfg(test)]`.
const CFG_TEST_INNER: [Token<'static>; 8] = [
    Token::Punct("#"),
    Token::Punct("!"),
    Token::Punct("["),
    Token::Ident("cfg"),
    Token::Punct("("),
    Token::Ident("test"),
    Token::Punct(")"),
    Token::Punct("]"),
];

/// `mod tests {`.
const MOD_TESTS: [Token<'static>; 3] = [
    Token::Ident("mod"),
    Token::Ident("tests"),
    Token::Punct("{"),
];

/// Whether `tokens[at..]` starts with `pattern`.
fn matches_at(tokens: &[Token<'_>], at: usize, pattern: &[Token<'_>]) -> bool {
    tokens.get(at..at + pattern.len()) == Some(pattern)
}

/// The end (exclusive) of the item starting at `start`: after its `;` or its body's closing
/// `}`, outside any brackets (so `fn f() -> [u8; 2] { … }` ends at the `}`).
fn item_end(tokens: &[Token<'_>], start: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(start) {
        match token {
            Token::Punct("(" | "[") => depth += 1,
            Token::Punct(")" | "]") => depth = depth.saturating_sub(1),
            Token::Punct(";") if depth == 0 => return i + 1,
            Token::Punct("{") if depth == 0 => return block_end(tokens, i),
            _ => {}
        }
    }
    tokens.len()
}

/// The end (exclusive) of the `{ … }` block opening at `open`.
fn block_end(tokens: &[Token<'_>], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct("{") => depth += 1,
            Token::Punct("}") => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The code of the Rust examples in `doc` (doc comment text, as in [`Lexed::doc`]): the lines of
/// every fenced code block (```` ``` ```` or `~~~`) rustdoc compiles, that is one whose info
/// string is empty or holds only `rust` and rustdoc's test attributes (not `ignore`).
pub(crate) fn rust_examples(doc: &str) -> String {
    let mut code = String::new();
    // The open fence (its character and length) and whether its block is compiled Rust.
    let mut open: Option<(char, usize, bool)> = None;
    for line in doc.lines() {
        let trimmed = line.trim_start();
        let fence = ['`', '~'].into_iter().find_map(|mark| {
            let len = trimmed.chars().take_while(|&c| c == mark).count();
            (len >= 3).then_some((mark, len))
        });
        match (open, fence) {
            (None, Some((mark, len))) => {
                let info = &trimmed[len..];
                open = Some((mark, len, is_compiled_rust(info)));
            }
            (Some((mark, len, _)), Some((closing, closing_len)))
                if closing == mark
                    && closing_len >= len
                    && trimmed[closing_len..].trim().is_empty() =>
            {
                open = None;
            }
            (Some((_, _, true)), _) => {
                code.push_str(line);
                code.push('\n');
            }
            _ => {}
        }
    }
    code
}

/// Whether rustdoc compiles a code block with this info string.
fn is_compiled_rust(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .all(|word| {
            matches!(
                word,
                "rust"
                    | "should_panic"
                    | "no_run"
                    | "compile_fail"
                    | "test_harness"
                    | "standalone_crate"
            ) || word.starts_with("edition")
        })
}

#[cfg(test)]
mod tests {
    use super::{Token, lex, rust_examples, test_code};

    /// The identifiers of `text`, in order.
    fn idents(text: &str) -> Vec<&str> {
        lex(text)
            .tokens
            .into_iter()
            .filter_map(|token| match token {
                Token::Ident(word) => Some(word),
                Token::Punct(_) => None,
            })
            .collect()
    }

    #[test]
    fn comments_and_literals_are_left_out() {
        let text = r####"
            // serde in a comment
            /* memchr /* nested blake3 */ still a comment */
            let a = "serde_json \" quoted";
            let b = b"bytes"; let c = c"cstr";
            let d = r#"raw "blake3" "#; let e = br##"raw "# bytes"##;
            let f = 'x'; let g = '\''; let h = '\u{1F600}'; let i = 'é';
            fn l<'a>(x: &'a str) -> &'a str { 'outer: loop { break 'outer; } }
            let r#type = 1u8;
        "####;
        assert_eq!(
            idents(text),
            [
                "let", "a", "let", "b", "let", "c", "let", "d", "let", "e", "let", "f", "let", "g",
                "let", "h", "let", "i", "fn", "l", "a", "x", "a", "str", "a", "str", "outer",
                "loop", "break", "outer", "let", "type"
            ]
        );
    }

    #[test]
    fn paths_keep_their_double_colons() {
        assert_eq!(
            lex("serde::Serialize").tokens,
            [
                Token::Ident("serde"),
                Token::Punct("::"),
                Token::Ident("Serialize")
            ]
        );
    }

    #[test]
    fn doc_comments_are_collected() {
        let lexed = lex("//! Inner.\n/// Outer.\n//// Not doc.\n/** Block\n * star */\nfn f() {}");
        assert_eq!(lexed.doc, " Inner.\n Outer.\nBlock\n star \n");
        assert_eq!(idents("/// a::b\nfn f() {}"), ["fn", "f"]);
    }

    #[test]
    fn rust_examples_are_the_compiled_code_blocks() {
        let doc = "\
Text.
```
use a::x;
```
```text
b::y
```
```rust,no_run
c::z();
```
~~~ignore
d::w();
~~~
````
```
e::v();
````
";
        assert_eq!(rust_examples(doc), "use a::x;\nc::z();\n```\ne::v();\n");
    }

    #[test]
    fn cfg_test_items_and_test_modules_are_test_code() {
        let text = "
            use lib::a;
            #[cfg(test)]
            mod tests;
            fn f() -> [u8; 2] { [0; 2] }
            #[cfg(test)]
            fn helper() -> [u8; 2] { dev::b() }
            mod tests { use dev::c; }
            fn g() {}
        ";
        let lexed = lex(text);
        let is_test = test_code(&lexed.tokens);
        let test: Vec<&str> = lexed
            .tokens
            .iter()
            .zip(&is_test)
            .filter_map(|(token, &test)| match token {
                Token::Ident(word) if test => Some(*word),
                _ => None,
            })
            .collect();
        assert_eq!(
            test,
            [
                "cfg", "test", "mod", "tests", "cfg", "test", "fn", "helper", "u8", "dev", "b",
                "mod", "tests", "use", "dev", "c"
            ]
        );
        let inner = lex("//! Tests.\n#![cfg(test)]\nuse dev::x;");
        assert!(test_code(&inner.tokens).iter().all(|&test| test));
    }
}
