//! Unit tests of the fenced-code-block rule.

use crate::fence::omit_large_code_blocks;

fn omit(text: &str) -> (String, usize) {
    let (out, n) = omit_large_code_blocks(text);
    (out.into_owned(), n)
}

#[test]
fn blocks_over_the_limit_become_placeholders() {
    let big = "b".repeat(4096) + "\n"; // 4097 bytes of body
    let small = "s".repeat(4095) + "\n"; // 4096
    assert_eq!(
        omit(&format!("a\n```rust\n{big}```\nz")),
        ("a\n[code block: 4097 bytes omitted]\nz".to_string(), 1)
    );
    assert_eq!(
        omit(&format!("```\n{small}```")),
        (format!("```\n{small}```"), 0)
    );
    // An unclosed fence runs to the end of the text.
    assert_eq!(
        omit(&format!("x\n~~~\n{big}")),
        ("x\n[code block: 4097 bytes omitted]".to_string(), 1)
    );
    // A closing fence may be longer and indented up to 3 spaces; CRLF stays outside the
    // placeholder.
    assert_eq!(
        omit(&format!("```\r\n{big}   `````\r\nend")),
        ("[code block: 4097 bytes omitted]\r\nend".to_string(), 1)
    );
    // A shorter run, or another character, does not close; 4 spaces make no fence at all.
    assert_eq!(
        omit(&format!("````\n{big}```\n~~~~\n````\nafter")),
        ("[code block: 4106 bytes omitted]\nafter".to_string(), 1)
    );
    assert_eq!(
        omit(&format!("    ```\n{big}    ```\n")),
        (format!("    ```\n{big}    ```\n"), 0)
    );
    // A backtick fence's info string cannot hold a backtick (that is inline code).
    assert_eq!(
        omit(&format!("``` a`b\n{big}```\n")),
        (format!("``` a`b\n{big}```\n"), 0)
    );
}
