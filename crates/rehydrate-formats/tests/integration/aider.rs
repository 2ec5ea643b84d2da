//! Exact values of the Aider fixtures' imports (a chat history of several sessions, a
//! documentation page) and their errors.

use std::path::Path;

use rehydrate_formats::{
    Error, Format, Import, SessionEntry, detect, import_session, keys, list_sessions,
};
use rehydrate_model::{Role, ToolDetails};

use crate::{fixture_dir, import_fixture};

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture_dir().join(name)).unwrap()
}

fn session(name: &str, n: usize) -> Import {
    import_session(Path::new(name), &bytes(name), None, Some(n)).unwrap_or_else(|e| panic!("{e}"))
}

/// Role, observation, text and command of each message.
fn shape(import: &Import) -> Vec<(Role, bool, &str, Option<&str>)> {
    import
        .messages
        .iter()
        .map(|m| {
            (
                m.role,
                m.observation,
                m.content_text().unwrap(),
                m.metadata.get(keys::AIDER_COMMAND).map(String::as_str),
            )
        })
        .collect()
}

fn write(path: &str, content: &str) -> ToolDetails {
    ToolDetails::Write {
        path: path.into(),
        content: content.into(),
    }
}

fn unproven(path: &str) -> ToolDetails {
    ToolDetails::UnprovenChange {
        path: path.into(),
        reason: "an Aider edit is applied to text the log does not show".into(),
    }
}

#[test]
fn a_history_lists_its_sessions_and_is_imported_one_at_a_time() {
    let name = "aider-history.md";
    assert_eq!(detect(&bytes(name)), Some(Format::Aider));
    let (format, sessions) = list_sessions(Path::new(name), &bytes(name), None).unwrap();
    assert_eq!(format, Format::Aider);
    let entry = |number, line, label: &str| SessionEntry {
        number,
        line,
        label: label.into(),
    };
    assert_eq!(
        sessions,
        [
            entry(1, 3, "2025-03-01 09:00:00"),
            entry(2, 40, "2025-03-02 14:30:05"),
            entry(3, 119, "2025-03-03 08:00:00"),
        ]
    );
    assert_eq!(
        import_fixture(name).unwrap_err().to_string(),
        "aider-history.md: holds 3 aider sessions; import one by its number, 1 to 3 (`rehydrate inspect` lists them, `--session N` picks one)"
    );
    let four = import_session(Path::new(name), &bytes(name), None, Some(4)).unwrap_err();
    assert!(matches!(
        four,
        Error::NoSuchSession {
            number: 4,
            count: 3,
            ..
        }
    ));
}

#[test]
fn inputs_replies_commands_and_output_blocks() {
    let import = session("aider-history.md", 1);
    use Role::*;
    assert_eq!(
        shape(&import),
        [
            (
                User,
                true,
                "aider --model gpt-4o-mini hello.py\nAider v0.50.1\nModel: gpt-4o-mini with whole edit format\nGit repo: .git with 2 files\nAdded hello.py to the chat.",
                None
            ),
            (
                User,
                false,
                "make hello.py print a greeting\nand exit with status 0",
                None
            ),
            (
                Assistant,
                false,
                "Here is the updated file:\n\nhello.py\n```python\nimport sys\n\nprint(\"hello\")\nsys.exit(0)\n```",
                None
            ),
            (
                User,
                true,
                "Tokens: 612 sent, 40 received.\nApplied edit to hello.py\nCommit 1a2b3c4 feat: print a greeting",
                None
            ),
            (
                User,
                true,
                "/add notes.txt\nAdded notes.txt to the chat",
                Some("/add")
            ),
            (User, true, "/undo", Some("/undo")),
            (User, false, "", None),
            (User, false, "what does hello.py do?", Some("/ask")),
            (
                Assistant,
                false,
                "It prints `hello` and exits with status 0.",
                None
            ),
        ]
    );
    let first = &import.messages[0].metadata;
    let meta = |k: &str| first.get(k).map(String::as_str);
    assert_eq!(meta(keys::AIDER_STARTED), Some("2025-03-01 09:00:00"));
    assert_eq!(meta(keys::AIDER_VERSION), Some("0.50.1"));
    assert_eq!(meta(keys::AIDER_MODEL), Some("gpt-4o-mini"));
    assert_eq!(meta(keys::AIDER_EDIT_FORMAT), Some("whole"));
    let lines: Vec<&str> = import
        .messages
        .iter()
        .map(|m| m.metadata[keys::AIDER_LINE].as_str())
        .collect();
    assert_eq!(lines, ["5", "11", "14", "24", "28", "31", "33", "35", "37"]);
    // A whole-format reply followed by its applied-edit notice proves the file.
    assert_eq!(
        import.messages[3].details.as_deref(),
        Some(&write(
            "hello.py",
            "import sys\n\nprint(\"hello\")\nsys.exit(0)\n"
        ))
    );
    assert!(import.warnings.is_empty());
}

#[test]
fn only_a_create_of_an_empty_file_is_proven_in_the_diff_format() {
    // The file created by its absolute path and edited by its relative one gives the
    // repository's root: every relative path of the session is resolved against it.
    let import = session("aider-history.md", 2);
    let details: Vec<(usize, &ToolDetails)> = import
        .messages
        .iter()
        .enumerate()
        .filter_map(|(k, m)| Some((k, m.details.as_deref()?)))
        .collect();
    assert_eq!(
        details,
        [
            (
                3,
                &ToolDetails::Patch {
                    files: vec![
                        write(
                            "/home/me/proj/src/util.py",
                            "def double(x):\n    return 2 * x\n"
                        ),
                        unproven("/home/me/proj/src/app.py"),
                    ]
                }
            ),
            // The file has been edited since it was created: the block is relative to text
            // the log does not show.
            (8, &unproven("/home/me/proj/src/util.py")),
        ]
    );
    // A failed block's reflection is an observation; a reply cut short is the text kept.
    use Role::*;
    let roles: Vec<(Role, bool)> = import
        .messages
        .iter()
        .map(|m| (m.role, m.observation))
        .collect();
    assert_eq!(
        roles,
        [
            (User, true),
            (User, false),
            (Assistant, false),
            (User, true),
            (User, false),
            (Assistant, false),
            (User, true),
            (Assistant, false),
            (User, true),
            (User, false),
            (Assistant, false),
            (User, true),
        ]
    );
    assert_eq!(
        import.messages[6].content_text(),
        Some(
            "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: The SEARCH section must exactly match an existing block of lines\n<<<<<<< SEARCH\ndef doubel(x):\n======="
        )
    );
    assert_eq!(
        import.messages[11].content_text(),
        Some("\n^C KeyboardInterrupt")
    );
    assert_eq!(import.messages[0].metadata[keys::AIDER_EDIT_FORMAT], "diff");
    assert_eq!(
        import.messages[0].metadata[keys::AIDER_MODEL],
        "claude-3-5-sonnet"
    );
}

#[test]
fn a_session_without_messages_is_warned() {
    let import = session("aider-history.md", 3);
    assert!(import.messages.is_empty());
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings, ["line 119: the session has no messages"]);
}

#[test]
fn a_page_reads_only_its_transcripts() {
    let import = import_fixture("aider-page.md").unwrap();
    assert_eq!(import.format, Format::Aider);
    use Role::*;
    assert_eq!(
        shape(&import),
        [
            (
                User,
                true,
                "$ aider greet.py\nAdded greet.py to the chat",
                None
            ),
            (User, false, "add a docstring to greet", None),
            (
                Assistant,
                false,
                "```python\ngreet.py\n<<<<<<< ORIGINAL\ndef greet(name):\n=======\ndef greet(name):\n    \"\"\"Return a greeting for name.\"\"\"\n>>>>>>> UPDATED\n```",
                None
            ),
            (
                User,
                true,
                "Applied edit to greet.py\nCommit 0f0e0d0 aider: added a docstring",
                None
            ),
        ]
    );
    assert_eq!(
        import.messages[3].details.as_deref(),
        Some(&unproven("greet.py"))
    );
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "the page's front matter and 3 lines of text outside its chat transcripts are not part of the session"
        ]
    );
}

#[test]
fn text_that_is_not_a_history_is_not_detected() {
    assert_eq!(detect(b"# Notes\n\nsome markdown\n"), None);
    // A history quoting a transcript wrapper inside a session is still a history.
    let quoted = "# aider chat started at 2025-01-01 00:00:00\n\n#### show <div class=\"chat-transcript\">  \n";
    assert_eq!(detect(quoted.as_bytes()), Some(Format::Aider));
    assert_eq!(
        detect(b"<div class=\"chat-transcript\" markdown=\"1\">\n#### hi  \n</div>\n"),
        Some(Format::Aider)
    );
}

/// Role, observation and text of each message of `text` read as a one-session Aider file.
fn read(text: &str) -> (Vec<(Role, bool, String)>, Vec<String>) {
    let import = rehydrate_formats::import(Path::new("h.md"), text.as_bytes(), None).unwrap();
    let messages = import
        .messages
        .iter()
        .map(|m| (m.role, m.observation, m.content_text().unwrap().to_string()))
        .collect();
    let warnings = import.warnings.iter().map(ToString::to_string).collect();
    (messages, warnings)
}

#[test]
fn odd_layouts_keep_every_line() {
    use Role::*;
    let h = "# aider chat started at 2025-01-01 10:00:00";
    // Old Mac line ends: a carriage return alone ends a line.
    let (messages, _) = read(&format!("{h}\r\r#### hi  \r\rreply\r"));
    assert_eq!(
        messages,
        [
            (User, false, "hi".to_string()),
            (Assistant, false, "reply".to_string())
        ]
    );
    // A blank line inside an output block is an empty line of it.
    let (messages, _) = read(&format!("{h}\n\n> a  \n\n> b  \n"));
    assert_eq!(messages, [(User, true, "a\n\nb".to_string())]);
    // A page whose front matter never closes has none; text beside the tags is the log's.
    let page = "---\ntitle: x\n\n<div class=\"chat-transcript\" markdown=\"1\">#### same line  \n\nreply</div>\n";
    let (messages, warnings) = read(page);
    assert_eq!(
        messages,
        [
            (User, false, "same line".to_string()),
            (Assistant, false, "reply".to_string())
        ]
    );
    assert_eq!(
        warnings,
        ["the page's 2 lines of text outside its chat transcripts are not part of the session"]
    );
    // A closing tag inside a reply's fenced block is the reply's.
    let fenced = "<div class=\"chat-transcript\" markdown=\"1\">\n#### hi  \n\nHere:\n```html\n<div>\n</div>\n```\nmore\n</div>\n";
    let (messages, warnings) = read(fenced);
    assert_eq!(messages[1].2, "Here:\n```html\n<div>\n</div>\n```\nmore");
    assert!(warnings.is_empty());
    // `!command` runs a shell command, like /run; an applied edit without a path proves nothing.
    let import = rehydrate_formats::import(
        Path::new("h.md"),
        format!("{h}\n\n#### !ls  \n> a.py  \n\n#### go  \n\nok\n\n> Applied edit to   \n")
            .as_bytes(),
        None,
    )
    .unwrap();
    let m = &import.messages;
    assert_eq!(m[0].content_text(), Some("!ls\na.py"));
    assert_eq!(m[0].metadata[keys::AIDER_COMMAND], "!");
    assert_eq!(m[3].details, None);
}

#[test]
fn text_read_as_aider_without_a_header_is_warned() {
    let import =
        rehydrate_formats::import(Path::new("x.md"), b"just text\n", Some(Format::Aider)).unwrap();
    let warnings: Vec<String> = import.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "no `# aider chat started at` header and no chat transcript: the whole text is read as one session"
        ]
    );
}

#[test]
fn import_sessions_reads_every_session_as_import_session_does() {
    let mut counts = Vec::new();
    for name in [
        "aider-history.md",
        "aider-page.md",
        "openhands-output.jsonl",
        "openhands-events.json",
    ] {
        let path = fixture_dir().join(name);
        let bytes = std::fs::read(&path).unwrap();
        let (format, all) = rehydrate_formats::import_sessions(&path, &bytes, None).unwrap();
        let (listed_format, listed) = list_sessions(&path, &bytes, None).unwrap();
        assert_eq!(format, listed_format);
        let one_by_one: Vec<Import> = listed
            .iter()
            .map(|s| {
                let number = (listed.len() > 1).then_some(s.number);
                import_session(&path, &bytes, None, number).unwrap()
            })
            .collect();
        assert_eq!(all, one_by_one, "{name}");
        counts.push((name, all.len()));
    }
    assert_eq!(
        counts,
        [
            ("aider-history.md", 3),
            ("aider-page.md", 1),
            ("openhands-output.jsonl", 2),
            ("openhands-events.json", 1),
        ]
    );
}
