//! Structure-aware inputs: sessions and policies drawn from the fuzzer's bytes, so that a
//! mutation of a few bytes changes a message, a call or a decision instead of breaking the
//! JSON a byte fuzzer would have to get past first.

use arbitrary::{Result, Unstructured};
use rehydrate::model::{Content, Message, Role, ToolCall};
use rehydrate::{Minting, ReductionPolicy};

/// Pieces that texts are made of: lines a terminal, a compiler, a file read or an agent
/// writes, stub-like text, escapes and multi-byte characters. Drawn with repetition, they make
/// the duplicates, re-runs and long outputs the reducer looks for.
const PIECES: &[&str] = &[
    "compiling crate-1 v0.1.0\n",
    "error[E0308]: mismatched types\n",
    "test result: ok. 12 passed; 0 failed\n",
    "fn main() {\n    println!(\"hi\");\n}\n",
    "\u{1b}[32mok\u{1b}[0m\n",
    "progress 10%\rprogress 50%\rprogress 100%\n",
    "\u{1b}[2K\u{1b}[1A\u{1b}[1Gline\n",
    "[rehydrate:truncated r0.abcdef | 1 line hidden]\n",
    "é€😀 ",
    "\t  \n",
    "{\"k\": [1, 2, 3]}",
    "a",
    "",
];

/// Tool names a session's calls use: file tools whose results carry details, and shells.
const TOOLS: &[&str] = &[
    "bash",
    "Read",
    "Write",
    "Edit",
    "str_replace_editor",
    "run tests",
];

/// A text of up to `max` pieces; each piece repeated up to 40 times.
pub(crate) fn text(u: &mut Unstructured<'_>, max: usize) -> Result<String> {
    let mut out = String::new();
    for _ in 0..u.int_in_range(0..=max)? {
        let piece = u.choose(PIECES)?;
        let times = if u.ratio(1, 4)? {
            u.int_in_range(1..=40)?
        } else {
            1
        };
        out.push_str(&piece.repeat(times));
    }
    if u.ratio(1, 8)? {
        // Some text of the fuzzer's own, as far as it is UTF-8.
        let raw: &str = u.arbitrary()?;
        out.push_str(raw);
    }
    Ok(out)
}

/// The arguments of a call: a JSON object with a command or a path and content, or (rarely)
/// text that is not JSON at all.
fn arguments(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 16)? {
        return text(u, 2);
    }
    let mut args = serde_json::Map::new();
    match u.int_in_range(0..=2)? {
        0 => {
            args.insert("command".into(), text(u, 3)?.into());
        }
        1 => {
            args.insert(
                "file_path".into(),
                format!("/w/f{}.rs", u.int_in_range(0..=3)?).into(),
            );
        }
        _ => {
            args.insert(
                "path".into(),
                format!("/w/f{}.rs", u.int_in_range(0..=3)?).into(),
            );
            args.insert("content".into(), text(u, 6)?.into());
        }
    }
    Ok(serde_json::Value::Object(args).to_string())
}

/// An inline image part (Anthropic's shape) whose base64 data is one of four small images,
/// so that copies recur.
fn image(u: &mut Unstructured<'_>) -> Result<serde_json::Value> {
    let seed = u.int_in_range(0u8..=3)?;
    // A PNG signature and IHDR (8x8) in base64, then filler that differs per seed.
    let data = format!(
        "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAYAAADED76LAAAA{}",
        char::from(b'A' + seed)
            .to_string()
            .repeat(300 + usize::from(seed) * 100)
    );
    Ok(serde_json::json!({
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": data},
    }))
}

/// A session of up to `max_turns` turns: user messages (some with images), assistant messages
/// with text and calls, and tool results, with the defects real sessions have drawn in: a
/// result dropped, repeated or moved, a call id reused, a message between a call and its
/// result, a conversation that opens with the assistant.
pub(crate) fn session(u: &mut Unstructured<'_>, max_turns: usize) -> Result<Vec<Message>> {
    let mut out = Vec::new();
    if u.ratio(1, 4)? {
        out.push(Message::text(Role::System, text(u, 2)?));
    }
    let mut next_id = 0usize;
    for _ in 0..u.int_in_range(1..=max_turns)? {
        if !(out.is_empty() && u.ratio(1, 16)?) {
            let mut user = Message::text(Role::User, text(u, 3)?);
            if u.ratio(1, 6)? {
                let mut parts = vec![serde_json::json!({"type": "text", "text": "look"})];
                for _ in 0..u.int_in_range(1..=2)? {
                    parts.push(image(u)?);
                }
                user.content = Some(Content::Parts(parts));
            }
            out.push(user);
        }
        for _ in 0..u.int_in_range(0..=4)? {
            let mut calls = Vec::new();
            for _ in 0..u.int_in_range(1..=3)? {
                // Mostly fresh ids; sometimes one already used.
                let id = if next_id > 0 && u.ratio(1, 12)? {
                    u.int_in_range(0..=next_id - 1)?
                } else {
                    next_id += 1;
                    next_id - 1
                };
                calls.push(ToolCall {
                    id: format!("call_{id}"),
                    name: (*u.choose(TOOLS)?).to_string(),
                    arguments: arguments(u)?,
                });
            }
            let mut assistant = Message::text(Role::Assistant, text(u, 2)?);
            if u.ratio(1, 3)? {
                assistant.content = None;
            }
            assistant.tool_calls = calls.clone();
            out.push(assistant);
            if u.ratio(1, 10)? {
                out.push(Message::text(
                    Role::User,
                    "Summary of the conversation so far.",
                ));
            }
            let mut results: Vec<Message> = Vec::new();
            for call in &calls {
                if u.ratio(1, 10)? {
                    continue;
                }
                let mut result = Message::tool_result(call.id.clone(), text(u, 12)?);
                if u.ratio(1, 12)? {
                    let mut parts = vec![serde_json::json!({"type": "text", "text": "shot"})];
                    parts.push(image(u)?);
                    result.content = Some(Content::Parts(parts));
                }
                if u.ratio(1, 12)? {
                    results.push(result.clone());
                }
                results.push(result);
            }
            if results.len() > 1 && u.ratio(1, 8)? {
                results.rotate_left(1);
            }
            out.extend(results);
        }
        if u.ratio(3, 4)? {
            out.push(Message::text(Role::Assistant, text(u, 4)?));
        }
    }
    Ok(out)
}

/// A reduction policy: either preset, or the aggressive one with its triggers and windows
/// drawn small, so that reductions happen in small sessions.
pub(crate) fn policy(u: &mut Unstructured<'_>) -> Result<ReductionPolicy> {
    Ok(match u.int_in_range(0..=3)? {
        0 => ReductionPolicy::default(),
        1 => ReductionPolicy::aggressive(),
        _ => ReductionPolicy {
            tool_output_trigger_bytes: u.int_in_range(0..=600)?,
            head_bytes: u.int_in_range(0..=80)?,
            tail_bytes: u.int_in_range(0..=80)?,
            protect_last_n_tool_results: u.int_in_range(0..=3)?,
            clear_turns_older_than: if u.arbitrary()? {
                Some(u.int_in_range(0..=3)?)
            } else {
                None
            },
            min_saved_bytes: u.int_in_range(0..=64)?,
            assistant_text_trigger_bytes: Some(u.int_in_range(0..=400)?),
            protect_last_n_assistant_messages: u.int_in_range(0..=2)?,
            tool_input_trigger_bytes: Some(u.int_in_range(0..=400)?),
            image_trigger_bytes: Some(u.int_in_range(0..=500)?),
            protect_last_n_image_messages: u.int_in_range(0..=2)?,
            minting: if u.arbitrary()? {
                Minting::PerTurn
            } else {
                ReductionPolicy::default().minting
            },
            ..ReductionPolicy::aggressive()
        },
    })
}
