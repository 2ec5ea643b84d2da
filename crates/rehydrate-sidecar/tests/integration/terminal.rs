//! Terminal normalization: exact screens for the shapes real tools write (fixtures written here,
//! plausible rather than copied), what passes through, when the function refuses to guess, and
//! properties over random mixes of text, control chars and sequences.

use proptest::prelude::*;
use rehydrate_sidecar::normalize_terminal;

fn screen(text: &str) -> Option<String> {
    normalize_terminal(text)
}

#[test]
fn cargo_progress_bar_leaves_the_status_lines() {
    let output = concat!(
        "\x1b[1m\x1b[32m   Compiling\x1b[0m libc v0.2.150\n",
        "\x1b[1m\x1b[36m    Building\x1b[0m [=====>                  ] 12/40: libc(build), serde\r",
        "\x1b[1m\x1b[36m    Building\x1b[0m [=========>              ] 20/40: serde, syn\r",
        "\x1b[K\x1b[1m\x1b[32m   Compiling\x1b[0m syn v2.0.39\n",
        "\x1b[1m\x1b[36m    Building\x1b[0m [=======================>] 39/40: rehydrate\r",
        "\x1b[K\x1b[1m\x1b[32m    Finished\x1b[0m `dev` profile [unoptimized + debuginfo] target(s) in 4.20s\n",
    );
    assert_eq!(
        screen(output).as_deref(),
        Some(concat!(
            "   Compiling libc v0.2.150\n",
            "   Compiling syn v2.0.39\n",
            "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.20s\n",
        ))
    );
}

#[test]
fn a_shorter_redraw_leaves_the_end_of_the_longer_line() {
    // What a terminal shows: `\r` moves the cursor, it erases nothing.
    assert_eq!(
        screen("Building 10/10\rDone").as_deref(),
        Some("Doneding 10/10")
    );
    assert_eq!(screen("50%\r100%\n").as_deref(), Some("100%\n"));
    assert_eq!(screen("abc\r").as_deref(), Some("abc"));
    assert_eq!(screen(&"\r".repeat(10)).as_deref(), Some(""));
}

#[test]
fn npm_spinner_with_column_1_and_erase_line() {
    let output = concat!(
        "\x1b[?25l\x1b[1G\x1b[0K⠋ idealTree:rehydrate: sill idealTree buildDeps",
        "\x1b[1G\x1b[0K⠙ reify:serde: timing reifyNode:node_modules/serde",
        "\x1b[1G\x1b[0K⠹ reify: timing build",
        "\x1b[1G\x1b[0K\n",
        "added 3 packages, and audited 4 packages in 2s\n",
        "\n",
        "found \x1b[32m\x1b[1m0\x1b[22m\x1b[39m vulnerabilities\n",
        "\x1b[?25h",
    );
    assert_eq!(
        screen(output).as_deref(),
        Some("\nadded 3 packages, and audited 4 packages in 2s\n\nfound 0 vulnerabilities\n")
    );
    // Cut while spinning: the last frame is what shows.
    let spinning = "\x1b[1G\x1b[0K⠋ idealTree: timing\x1b[1G\x1b[0K⠙ reify";
    assert_eq!(screen(spinning).as_deref(), Some("⠙ reify"));
}

#[test]
fn pip_progress_with_hidden_cursor() {
    let output = concat!(
        "Collecting requests\n",
        "  Downloading requests-2.31.0-py3-none-any.whl (62 kB)\n",
        "\x1b[?25l     \x1b[90m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[32m 0.0/62.6 kB\x1b[0m \x1b[31m?\x1b[0m eta \x1b[36m-:--:--\x1b[0m\r",
        "     \x1b[38;2;249;38;114m━━━━━━━━━━\x1b[0m\x1b[38;5;237m╺━━━━━━━━━\x1b[0m \x1b[32m30.7/62.6 kB\x1b[0m \x1b[31m1\x1b[0m eta \x1b[36m0:00:01\x1b[0m\r",
        "     \x1b[38;2;114;156;31m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[32m62.6/62.6 kB\x1b[0m \x1b[31m2\x1b[0m eta \x1b[36m0:00:00\x1b[0m\n",
        "\x1b[?25hInstalling collected packages: requests\n",
    );
    assert_eq!(
        screen(output).as_deref(),
        Some(concat!(
            "Collecting requests\n",
            "  Downloading requests-2.31.0-py3-none-any.whl (62 kB)\n",
            "     ━━━━━━━━━━━━━━━━━━━━ 62.6/62.6 kB 2 eta 0:00:00\n",
            "Installing collected packages: requests\n",
        ))
    );
}

#[test]
fn docker_pull_updates_layers_in_place() {
    let output = concat!(
        "latest: Pulling from library/alpine\n",
        "4abcf2066143: Pulling fs layer\n",
        "8a49fdb3b6a5: Pulling fs layer\n",
        "\x1b[2A\x1b[2K\r4abcf2066143: Downloading [=>         ]  1.2MB/3.4MB\r\x1b[2B",
        "\x1b[1A\x1b[2K\r8a49fdb3b6a5: Downloading [====>      ]  0.5MB/1.1MB\r\x1b[1B",
        "\x1b[2A\x1b[2K\r4abcf2066143: Pull complete\r\x1b[2B",
        "\x1b[1A\x1b[2K\r8a49fdb3b6a5: Pull complete\r\x1b[1B",
        "Digest: sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b\n",
        "Status: Downloaded newer image for alpine:latest\n",
    );
    assert_eq!(
        screen(output).as_deref(),
        Some(concat!(
            "latest: Pulling from library/alpine\n",
            "4abcf2066143: Pull complete\n",
            "8a49fdb3b6a5: Pull complete\n",
            "Digest: sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b\n",
            "Status: Downloaded newer image for alpine:latest\n",
        ))
    );
    // The other shape: up over both layers, each rewritten and ended by a line feed.
    let rewritten = concat!(
        "a: Waiting\nb: Waiting\n",
        "\x1b[2A\x1b[2Ka: Downloading\n\x1b[2Kb: Waiting\n",
        "\x1b[2A\x1b[2Ka: Done\n\x1b[2Kb: Done\n",
    );
    assert_eq!(screen(rewritten).as_deref(), Some("a: Done\nb: Done\n"));
}

#[test]
fn colored_cargo_test_loses_its_styles_only() {
    let output = concat!(
        "\nrunning 3 tests\n",
        "test tests::parses ... \x1b[32mok\x1b[0m\n",
        "test tests::rejects ... \x1b[31mFAILED\x1b[0m\n",
        "test tests::slow ... \x1b[33mignored\x1b[0m\n",
        "\nfailures:\n\n---- tests::rejects stdout ----\n",
        "\ntest result: \x1b[31mFAILED\x1b[0m. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n",
    );
    assert_eq!(
        screen(output).as_deref(),
        Some(concat!(
            "\nrunning 3 tests\n",
            "test tests::parses ... ok\n",
            "test tests::rejects ... FAILED\n",
            "test tests::slow ... ignored\n",
            "\nfailures:\n\n---- tests::rejects stdout ----\n",
            "\ntest result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n",
        ))
    );
    // Every SGR form: empty, several parameters, 256 colors, truecolor with colons.
    assert_eq!(
        screen("\x1b[mA\x1b[0;1;4mB\x1b[38;5;208mC\x1b[38:2::255:0:0mD\x1b[;m").as_deref(),
        Some("ABCD")
    );
}

#[test]
fn an_escape_cut_off_at_the_end_stays_at_the_end() {
    assert_eq!(
        screen("\x1b[1mwarning\x1b[0m: unused variable\x1b").as_deref(),
        Some("warning: unused variable\x1b")
    );
    assert_eq!(screen("\x1b[32mok\x1b[0").as_deref(), Some("ok\x1b[0"));
    assert_eq!(
        screen("\x1b[1mlink\x1b[0m \x1b]8;;https://exa").as_deref(),
        Some("link \x1b]8;;https://exa")
    );
    // Even where the cursor stood inside a row: the cut-off sequence goes at the very end.
    assert_eq!(
        screen("Building 10/10\rDone\x1b[").as_deref(),
        Some("Doneding 10/10\x1b[")
    );
    // Nothing else to normalize: the text stays as it is.
    assert_eq!(screen("done\x1b"), None);
    assert_eq!(screen("\x1b[12;"), None);
}

#[test]
fn unknown_sequences_pass_through_as_text() {
    assert_eq!(
        screen("\x1b[31merror\x1b[0m: \x1b[3~gone").as_deref(),
        Some("error: \x1b[3~gone")
    );
    // CUP and HVP address a screen whose height the text does not say.
    assert_eq!(
        screen("\x1b[2J\x1b[Hhello\x1b[2;5f").as_deref(),
        Some("\x1b[Hhello\x1b[2;5f")
    );
    // Intermediate bytes, private markers, other escapes, too many parameters.
    assert_eq!(
        screen("\x1b[1ma\x1b[2 qb\x1b[?1049hc\x1b(Bd\x1b7e\x1b[1;2Af\x1b[3Kg").as_deref(),
        Some("a\x1b[2 qb\x1b[?1049hc\x1b(Bd\x1b7e\x1b[1;2Af\x1b[3Kg")
    );
    // Other control chars are text too.
    assert_eq!(
        screen("\x1b[1mbell\x07\x00\x7f\u{9b}\x1b[0m").as_deref(),
        Some("bell\x07\x00\x7f\u{9b}")
    );
    // Unknown on its own: nothing to normalize.
    assert_eq!(screen("a\x1b[3~b"), None);
}

#[test]
fn malformed_sequences_keep_their_bytes_and_the_rest_is_read() {
    // `é` cannot continue a CSI: `ESC [ 1` is kept, `é` written, the SGR after it dropped.
    assert_eq!(screen("\x1b[1é\x1b[0mx").as_deref(), Some("\x1b[1éx"));
    // Cut off by a line feed, an OSC and a CSI stay on their line.
    assert_eq!(
        screen("\x1b]0;title\nnext\x1b[0m").as_deref(),
        Some("\x1b]0;title\nnext")
    );
    assert_eq!(screen("\x1b[12\n\x1b[1mb").as_deref(), Some("\x1b[12\nb"));
    // Cut off by an ESC: the sequence that ESC begins is kept too, so the malformed one is still
    // cut off there (dropping `ESC[1m` would give `ESC[1m` again, and a second pass would differ).
    assert_eq!(
        screen("\x1b[\x1b[1m1m\x1b[0m").as_deref(),
        Some("\x1b[\x1b[1m1m")
    );
    assert_eq!(
        screen("\x1b\x1b]0;t\x07x\x1b[0m").as_deref(),
        Some("\x1b\x1b]0;t\x07x")
    );
}

#[test]
fn absurd_parameters_are_unrecognized() {
    assert_eq!(
        screen("\x1b[1mup\x1b[0m\x1b[99999999999A").as_deref(),
        Some("up\x1b[99999999999A")
    );
    assert_eq!(
        screen("\x1b[1ma\x1b[10000Cb\x1b[0m").as_deref(),
        Some("a\x1b[10000Cb")
    );
    assert_eq!(
        screen("\x1b[1ma\x1b[100000mb").as_deref(),
        Some("a\x1b[100000mb")
    );
    // 9999 is recognized, but padding 9999 columns for 10 bytes is over the work bound.
    assert_eq!(screen("\x1b[9999Cx"), None);
    assert_eq!(screen("\x1b[3Cx").as_deref(), Some("   x"));
}

#[test]
fn osc_sequences_are_dropped_and_hyperlink_text_stays() {
    assert_eq!(
        screen("see \x1b]8;;https://example.com/docs\x1b\\the docs\x1b]8;;\x1b\\ for details\n")
            .as_deref(),
        Some("see the docs for details\n")
    );
    assert_eq!(
        screen("\x1b]0;cargo build\x07   Compiling x\n").as_deref(),
        Some("   Compiling x\n")
    );
    assert_eq!(
        screen("\x1b]8;id=7;file:///tmp/é\x07é\x1b]8;;\x07").as_deref(),
        Some("é")
    );
}

#[test]
fn windows_line_ends_alone_are_left_alone() {
    assert_eq!(screen("a\r\nb\r\n"), None);
    assert_eq!(screen("a\r\nb\x1b"), None);
    assert_eq!(
        screen("a\r\n\x1b[1mb\x1b[0m\r\n").as_deref(),
        Some("a\nb\n")
    );
    // `\r\r\n`: a carriage return, then a line break.
    assert_eq!(screen("a\r\r\n").as_deref(), Some("a\n"));
}

#[test]
fn tabs_are_one_char_and_never_overwritten() {
    assert_eq!(
        screen("\x1b[1mname\x1b[0m\tvalue").as_deref(),
        Some("name\tvalue")
    );
    // A terminal would write `Y` and `Z` past the tab stop: refused, not guessed.
    assert_eq!(screen("a\tb\rXYZ"), None);
    assert_eq!(screen("key\tvalue\r\x1b[K"), None);
    // Overwriting before the tab is exact.
    assert_eq!(screen("ab\tc\rX").as_deref(), Some("Xb\tc"));
}

#[test]
fn redraws_over_kept_text_are_refused() {
    assert_eq!(screen("50%\x1b[3~\r100%"), None);
    assert_eq!(screen("ab\x1b[3~cd\x1b[2D"), None);
    assert_eq!(screen("ab\x1b[3~\x1b[2K"), None);
    assert_eq!(screen("ab\x1b[3~\nx\x1b[2J"), None);
    // Kept text landing inside a row.
    assert_eq!(screen("abcdef\r\x1b[3~"), None);
    // Moving away from kept text by column is not exact.
    assert_eq!(screen("ab\x1b[3~\x1b[1B\x1b[1Ax"), None);
    // Column moves that stay before the kept text are exact.
    assert_eq!(
        screen("abcd\x1b[3~\rxy\x1b[1Dz").as_deref(),
        Some("xzcd\x1b[3~")
    );
}

#[test]
fn backspace_moves_left_and_overstrike_shows_the_last_char() {
    assert_eq!(screen("_\x08a").as_deref(), Some("a"));
    assert_eq!(screen("abc\x08\x08X").as_deref(), Some("aXc"));
    assert_eq!(screen("\x08x").as_deref(), Some("x"));
    assert_eq!(screen("ab\x08").as_deref(), Some("ab"));
}

#[test]
fn erase_line_and_screen() {
    assert_eq!(screen("abcdef\rab\x1b[1K").as_deref(), Some("   def"));
    assert_eq!(screen("abcdef\x1b[3D\x1b[K").as_deref(), Some("abc"));
    assert_eq!(screen("abcdef\x1b[3D\x1b[0K").as_deref(), Some("abc"));
    assert_eq!(screen("abc\x1b[2Kx").as_deref(), Some("   x"));
    // Trailing spaces the text wrote are kept; erased ones are not.
    assert_eq!(screen("ab  \x1b[0m").as_deref(), Some("ab  "));
    assert_eq!(screen("abc\x1b[1K").as_deref(), Some(""));
    // ED 2 erases every row and keeps them, the cursor where it was.
    assert_eq!(
        screen("one\ntwo\x1b[2Jthree").as_deref(),
        Some("\n   three")
    );
    // ED 0 from the cursor to the end; ED 1 from the start through the cursor.
    assert_eq!(screen("a\nbb\ncc\x1b[2A\x1b[J").as_deref(), Some("a\n\n"));
    assert_eq!(
        screen("aaa\nbbb\nccc\x1b[1A\x1b[1J").as_deref(),
        Some("\n\nccc")
    );
    assert_eq!(
        screen("aaa\nbbbb\nccc\x1b[1A\x1b[2D\x1b[1J").as_deref(),
        Some("\n  bb\nccc")
    );
}

#[test]
fn cursor_moves_stop_at_the_rows_written() {
    assert_eq!(screen("a\x1b[5Ab").as_deref(), Some("ab"));
    assert_eq!(screen("a\nb\x1b[A\x1b[9Bc").as_deref(), Some("a\nbc"));
    assert_eq!(screen("abcdef\x1b[3GX").as_deref(), Some("abXdef"));
    assert_eq!(screen("abcdef\x1b[GX\x1b[0GY").as_deref(), Some("Ybcdef"));
    assert_eq!(screen("ab\x1b[2Cx").as_deref(), Some("ab  x"));
    assert_eq!(screen("abc\x1b[0DX").as_deref(), Some("abX"));
    assert_eq!(screen("abc\x1b[1000DX").as_deref(), Some("Xbc"));
    // Moving up keeps the column, past the end of a shorter row.
    assert_eq!(screen("a\nbcdef\x1b[Ax").as_deref(), Some("a    x\nbcdef"));
}

/// A progress bar of `width` columns at `percent`.
fn bar(percent: usize, width: usize) -> String {
    let done = percent * width / 100;
    format!(
        "[{}{}] {percent:>3}%",
        "#".repeat(done),
        " ".repeat(width - done)
    )
}

#[test]
fn a_megabyte_of_redraws_is_one_pass() {
    // Each redraw overwrites the same 57 columns; the grid never holds more than one row of
    // them, and each byte is looked at a bounded number of times.
    let mut output = String::from("Downloading\n");
    let mut percent = 0;
    while output.len() < 1 << 20 {
        output.push('\r');
        output.push_str(&bar(percent, 50));
        percent = (percent + 1) % 100;
    }
    output.push('\r');
    output.push_str(&bar(100, 50));
    output.push('\n');
    assert_eq!(
        screen(&output),
        Some(format!("Downloading\n{}\n", bar(100, 50)))
    );
    assert_eq!(screen(&"\r".repeat(1 << 20)).as_deref(), Some(""));
}

#[test]
fn work_beyond_one_step_per_byte_is_bounded() {
    // Each of these would be quadratic without the work bound (10^10 steps); with it, the
    // function gives up after about as many steps as the text has bytes.
    let erase_all = format!("{}{}", "\n".repeat(100_000), "\x1b[2J".repeat(100_000));
    assert_eq!(screen(&erase_all), None);
    let carried_padding = format!(
        "{}{}{}",
        "\n".repeat(50_000),
        "x".repeat(50_000),
        "\x1b[Ax".repeat(50_000)
    );
    assert_eq!(screen(&carried_padding), None);
    let blank_prefix = format!(
        "{}{}",
        "x".repeat(100_000),
        "\rx\x1b[9999G\x1b[1K".repeat(60_000)
    );
    assert_eq!(screen(&blank_prefix), None);
    // Within the bound, the same shapes give their screen.
    assert_eq!(
        screen(&format!("{}\x1b[2J", "\n".repeat(3))).as_deref(),
        Some("\n\n\n")
    );
}

/// Naive `\r` overlay of each line: the oracle for text with no other control.
fn overlay(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            let mut row: Vec<char> = Vec::new();
            for part in line.split('\r') {
                for (i, c) in part.chars().enumerate() {
                    if i < row.len() {
                        row[i] = c;
                    } else {
                        row.push(c);
                    }
                }
            }
            row.into_iter().collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A recognized sequence.
fn recognized() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\x1b[0m".to_string()),
        Just("\x1b[1;31m".to_string()),
        Just("\x1b[38;2;1;2;3m".to_string()),
        Just("\x1b[m".to_string()),
        Just("\x1b[?25l".to_string()),
        Just("\x1b[?25h".to_string()),
        Just("\x1b]0;title\x07".to_string()),
        Just("\x1b]8;;https://e.x/é\x1b\\".to_string()),
        (0usize..3).prop_map(|n| format!("\x1b[{n}K")),
        (0usize..3).prop_map(|n| format!("\x1b[{n}J")),
        Just("\x1b[K".to_string()),
        (
            0usize..4,
            prop::sample::select(vec!['A', 'B', 'C', 'D', 'G'])
        )
            .prop_map(|(n, f)| format!("\x1b[{n}{f}")),
    ]
}

/// Printable text: ASCII, spaces and multi-byte chars.
fn printable() -> impl Strategy<Value = String> {
    "[a-z0-9 é━ж]{1,8}"
}

/// Anything: recognized sequences, text, the controls a terminal acts on, and loose chars that
/// make unknown, malformed and cut-off sequences.
fn chaos() -> impl Strategy<Value = String> {
    let loose = prop::sample::select(vec![
        "\x1b", "[", "]", "0", "1", "2", "9", ";", ":", "?", "\r", "\n", "\x08", "\t", "\x07",
        "\\", "A", "B", "C", "D", "G", "H", "J", "K", "m", "h", "l", "f", "~", "(", " ", "é", "━",
        "中", "\u{9b}", "\r\n",
    ])
    .prop_map(str::to_string);
    let token = prop_oneof![3 => loose, 2 => recognized(), 1 => printable()];
    prop::collection::vec(token, 0..48).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn never_panics_and_a_second_pass_changes_nothing(text in chaos()) {
        if let Some(out) = screen(&text) {
            prop_assert_eq!(screen(&out), None, "second pass over {:?}", out);
            prop_assert!(!out.contains('\r') && !out.contains('\x08'), "{:?}", out);
            let bound = text.chars().count() + text.len() + 4096;
            prop_assert!(out.chars().count() <= bound);
        }
    }

    #[test]
    fn never_panics_on_arbitrary_strings_or_bytes(
        text in any::<String>(),
        bytes in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        // Any string, and any bytes read as text (invalid UTF-8 replaced): a result is a
        // fixed point, whatever the input.
        for input in [text, String::from_utf8_lossy(&bytes).into_owned()] {
            if let Some(out) = screen(&input) {
                prop_assert_eq!(screen(&out), None, "second pass over {:?}", out);
            }
        }
    }

    #[test]
    fn without_column_moves_the_screen_is_never_longer(
        text in chaos().prop_map(|t| t.replace(['A', 'B', 'C', 'G'], "x"))
    ) {
        if let Some(out) = screen(&text) {
            prop_assert!(out.chars().count() <= text.chars().count(), "{:?}", out);
        }
    }

    #[test]
    fn recognized_sequences_never_reach_the_screen(
        parts in prop::collection::vec(
            prop_oneof![
                recognized(),
                printable(),
                prop::sample::select(vec!["\r", "\n", "\x08", "\r\n"]).prop_map(str::to_string),
            ],
            0..40,
        )
    ) {
        let text = parts.concat();
        if let Some(out) = screen(&text) {
            prop_assert!(!out.contains('\x1b'), "{:?} gave {:?}", text, out);
        } else {
            prop_assert!(!text.contains('\x1b'), "{:?} gave None", text);
        }
    }

    #[test]
    fn text_without_esc_cr_or_backspace_is_none(text in "[^\x1b\r\x08]{0,64}") {
        prop_assert_eq!(screen(&text), None);
        prop_assert_eq!(screen(&text.replace('\n', "\r\n")), None);
    }

    #[test]
    fn carriage_returns_overlay_like_the_naive_model(
        text in "[a-z éж]{0,6}([\r\n][a-z éж]{0,6}){0,12}"
    ) {
        let expected = overlay(&text);
        let expected = (expected != text.replace("\r\n", "\n")).then_some(expected);
        prop_assert_eq!(screen(&text), expected);
    }

    #[test]
    fn styles_alone_are_dropped(
        parts in prop::collection::vec((printable(), "\x1b\\[([0-9]{0,4}[;:]){0,3}[0-9]{0,4}m"), 1..12)
    ) {
        let text: String = parts.iter().map(|(t, s)| format!("{t}{s}")).collect();
        let plain: String = parts.iter().map(|(t, _)| t.as_str()).collect();
        prop_assert_eq!(screen(&text), Some(plain));
    }
}

#[test]
fn text_whose_columns_are_a_guess_is_never_normalized() {
    // A terminal shows `end 語日本語日本語` (two columns per CJK character): replaying one
    // column per character would guess, so nothing is normalized.
    assert_eq!(normalize_terminal("日本語日本語日本語\rend\n"), None);
    assert_eq!(normalize_terminal("\x1b[32mend🎉日本語\x1b[0m\n"), None);
    assert_eq!(normalize_terminal("e\u{301}\r\x1b[1mx\x1b[0m\n"), None);
    // One-column characters are replayed: Latin, box drawing, braille spinners, check marks.
    assert_eq!(
        normalize_terminal("⠋ café ━━ 1/2\r✓ café ━━ 2/2\n").as_deref(),
        Some("✓ café ━━ 2/2\n")
    );
}
