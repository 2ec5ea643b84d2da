//! An agent loop on a [`Session`]: a scripted stand-in model drives a session built from
//! `fixtures/cli/build-session.json` while the session records every message and reduction in
//! its store, projects before each model call, and answers the model's `expand_reduction` and
//! `sidecar_search` calls with [`Session::call`].
//!
//! The script: the model sees a stub and expands it whole (the exact original bytes come
//! back), searches for a word only the hidden bytes hold, expands a byte range of another
//! reduction, then keeps working until its earlier expand result ages out of the protected
//! window and is reduced again; at the end the session exports with every reduction inverted.
//!
//! Run it with `cargo run -p rehydrate --example agent_loop`; the integration test
//! `agent_loop` runs it too.

use std::path::Path;

use rehydrate::{
    EXPAND_REDUCTION, ExportFormat, Message, ReductionPolicy, Role, SIDECAR_SEARCH, Session,
    SyncPolicy, ToolCall,
};
use serde_json::Value;

/// The session the loop starts from.
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/cli/build-session.json"
);

/// The start of every stub line (docs/FORMATS.md, "Stub grammar").
const STUB_PREFIX: &str = "[rehydrate:";

/// A word in the hidden middle of the first build output, nowhere in the view.
const HIDDEN_WORD: &str = "crate-100";

/// The byte range the model asks for in its ranged expand, half-open.
const RANGE: (usize, usize) = (0, 200);

/// The host: its session and the transcript.
struct Host {
    session: Session,
    /// The number of tool calls made so far (for call ids).
    calls: usize,
    transcript: Vec<String>,
}

impl Host {
    /// Pushes `messages` to the session (recorded, projected as before every model call, and
    /// the reductions that minted recorded) and lists those reductions in the transcript.
    fn record(&mut self, messages: Vec<Message>) {
        let minted = self
            .session
            .push(messages)
            .expect("the scratch store accepts appends");
        let log = self.session.log();
        for r in &log.reductions[log.len() - minted..] {
            self.transcript.push(format!(
                "   reduced message {} as {} ({})",
                r.ptr.addr.index,
                r.id.as_str(),
                r.kind.stub_kind().as_str()
            ));
        }
    }

    /// The model calls `name` with `arguments`: the host answers it (an intrinsic through
    /// [`Session::call`], any other tool with `other_output`), records the call and its
    /// result, and returns the result's text.
    fn call(&mut self, name: &str, arguments: &str, other_output: Option<String>) -> String {
        self.calls += 1;
        let call_id = format!("agent_{}", self.calls);
        self.transcript.push(format!("-> {name} {arguments}"));
        let (content, is_error) = match other_output {
            None => {
                let result = self.session.call(name, arguments);
                (result.content, result.is_error)
            }
            Some(output) => (output, false),
        };
        assert!(!is_error, "{name} failed: {content}");
        self.transcript
            .push(format!("<- {}", summarize(name, &content)));
        let assistant = Message {
            role: Role::Assistant,
            tool_calls: vec![ToolCall {
                id: call_id.clone(),
                name: name.to_owned(),
                arguments: arguments.to_owned(),
            }],
            ..Message::default()
        };
        self.record(vec![
            assistant,
            Message::tool_result(call_id, content.clone()),
        ]);
        content
    }
}

/// A short line for a tool result: its size, its ranged header, or its search matches.
fn summarize(name: &str, content: &str) -> String {
    if name == SIDECAR_SEARCH {
        let result: Value = serde_json::from_str(content).expect("search results are JSON");
        let ids: Vec<&str> = result["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["reduction_id"].as_str())
            .collect();
        return format!("{} matches in {}", result["total_matches"], ids.join(", "));
    }
    match content.split_once('\n') {
        Some((header, rest)) if name == EXPAND_REDUCTION && header.starts_with('[') => {
            format!("{header} + {} bytes", rest.len())
        }
        _ => format!("{} bytes", content.len()),
    }
}

/// The id of the first stub of `kind` in `view`, as the model reads it off the stub line.
fn stub_id(view: &[Message], kind: &str) -> Option<String> {
    let prefix = format!("{STUB_PREFIX}{kind} ");
    view.iter()
        .filter_map(Message::content_text)
        .find_map(|text| {
            let at = text.find(&prefix)?;
            let rest = &text[at + prefix.len()..];
            rest.split_whitespace().next().map(str::to_owned)
        })
}

/// A long test-run output, distinct for each `run`.
fn test_output(run: usize) -> String {
    (0..240)
        .map(|i| format!("test suite_{run}::case_{i:03} ... ok (run {run})\n"))
        .collect()
}

/// Runs the loop with its store at `store_path` (which must not exist) and returns the
/// transcript, one line per tool call, tool result and reduction. Every step is checked as it
/// happens; a failed check panics.
pub fn run(store_path: &Path) -> Vec<String> {
    let bytes = std::fs::read(FIXTURE).expect("the fixture is in the repository");
    let session = rehydrate::formats::import(Path::new(FIXTURE), &bytes, None)
        .expect("the fixture imports")
        .messages;
    let mut host = Host {
        session: Session::create(store_path, ReductionPolicy::default(), SyncPolicy::Never)
            .expect("the store path is new"),
        calls: 0,
        transcript: vec![format!("session: {} messages", session.len())],
    };
    host.record(session);

    // (a) The model sees a stub and asks for everything it hides.
    let view = host.session.view().to_vec();
    let first = stub_id(&view, "tool-output").expect("the first build output is reduced");
    let expanded = host.call(
        EXPAND_REDUCTION,
        &format!(r#"{{"reduction_id":"{first}"}}"#),
        None,
    );
    let expand_index = host.session.history().len() - 1;
    let reduced = host
        .session
        .log()
        .get(&first)
        .expect("the stub's id is in the log");
    let original = host.session.history()[reduced.ptr.addr.index]
        .content_text()
        .expect("a tool output has text");
    assert_eq!(
        expanded, original,
        "the expand is exactly the original bytes"
    );

    // (b) It searches what the stubs hide for a word the view does not show.
    let view = host.session.view().to_vec();
    assert!(
        view[..expand_index]
            .iter()
            .filter_map(Message::content_text)
            .all(|t| !t.contains(HIDDEN_WORD)),
        "{HIDDEN_WORD} is hidden"
    );
    let found = host.call(
        SIDECAR_SEARCH,
        &format!(r#"{{"query":"{HIDDEN_WORD}","mode":"literal"}}"#),
        None,
    );
    let found: Value = serde_json::from_str(&found).expect("search results are JSON");
    let matches = found["matches"].as_array().expect("matches is an array");
    assert!(
        matches.iter().any(|m| m["reduction_id"] == first.as_str()),
        "a match names {first}: {found}"
    );

    // (c) It reads the start of the other reduced output by byte range.
    let view = host.session.view().to_vec();
    let ids: Vec<String> = host
        .session
        .log()
        .reductions
        .iter()
        .map(|r| r.id.as_str().to_owned())
        .collect();
    let second = ids
        .iter()
        .find(|id| {
            **id != first
                && view
                    .iter()
                    .any(|m| m.content_text().is_some_and(|t| t.contains(id.as_str())))
        })
        .expect("a second stub is in the view")
        .clone();
    let total = host
        .session
        .log()
        .get(&second)
        .expect("listed above")
        .kind
        .original_bytes();
    let ranged = host.call(
        EXPAND_REDUCTION,
        &format!(
            r#"{{"reduction_id":"{second}","byte_range":[{},{}]}}"#,
            RANGE.0, RANGE.1
        ),
        None,
    );
    let (header, _) = ranged
        .split_once('\n')
        .expect("a ranged expand has a header");
    assert_eq!(
        header,
        format!("[{second}: bytes {}..{} of {total}]", RANGE.0, RANGE.1)
    );

    // The work goes on: more long outputs push the expand result out of the protected window,
    // and the reducer reduces it again like any other output.
    for run in 1..=3 {
        host.call(
            "bash",
            &format!(r#"{{"cmd":"cargo test --run {run}"}}"#),
            Some(test_output(run)),
        );
    }
    let again = host
        .session
        .log()
        .reductions
        .iter()
        .find(|r| r.ptr.addr.index == expand_index)
        .expect("the expand result is reduced again once it ages out");
    host.transcript.push(format!(
        "expand result (message {expand_index}) is now {} ({})",
        again.id.as_str(),
        again.kind.stub_kind().as_str()
    ));
    host.record(vec![Message::text(
        Role::Assistant,
        "The build passes and the tests are green.",
    )]);

    // The session exports with every reduction inverted: exactly what the store recorded.
    let recorded = &host.session.state().messages;
    assert_eq!(recorded.as_slice(), host.session.history());
    assert_eq!(&host.session.state().log, host.session.log());
    let exported = host
        .session
        .export(ExportFormat::Jsonl)
        .expect("every reduction inverts");
    let exported = String::from_utf8(exported).expect("JSONL is UTF-8");
    let messages: Vec<Message> = exported
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is a message"))
        .collect();
    assert_eq!(&messages, recorded, "the export is the recorded session");
    assert!(!exported.contains(STUB_PREFIX), "no stub text is left");
    host.session.sync().expect("the scratch store syncs");
    host.transcript.push(format!(
        "export: {} messages, {} bytes, {} reductions inverted, no stub left",
        messages.len(),
        exported.len(),
        host.session.log().len()
    ));
    host.transcript
}

#[allow(dead_code)] // the integration test includes this file for `run` alone
fn main() {
    let dir = std::env::temp_dir().join(format!("rehydrate-agent-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    for line in run(&dir.join("session.rhyd")) {
        println!("{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
