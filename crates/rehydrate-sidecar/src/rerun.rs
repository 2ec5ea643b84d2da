//! Re-runs: which tool call a tool result answers, and when two calls are the same call (same
//! tool, same canonical arguments), the one definition a superseded result is minted and
//! verified by (docs/FORMATS.md, "Superseded results").

use rehydrate_model::{Digest, Message, Role, ToolCall, write_json_value};
use serde_json::Value;

use rehydrate_formats::{call_defect, left_out_of_bodies};

/// Which top-level string fields of a call's arguments are commands, whose runs of spaces and
/// tabs [`canonical_arguments`] collapses (outside quotes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandFields<'a> {
    /// The top-level fields with these names (the policy's `superseded_command_fields`).
    Named(&'a [String]),
    /// Every top-level string field: the loosest sameness any list of names gives, which
    /// verification checks, since a log does not record the names it was minted with.
    Every,
}

impl CommandFields<'_> {
    fn holds(self, key: &str) -> bool {
        match self {
            CommandFields::Named(names) => names.iter().any(|n| n == key),
            CommandFields::Every => true,
        }
    }
}

/// The canonical form of a tool call's arguments text: compact JSON with object keys sorted,
/// and the string values of the command fields (`command_fields`, top-level keys only) trimmed
/// of leading and trailing whitespace, with each run of spaces and tabs that follows other text
/// on its line written as one space, outside single and double quotes (a backslash escapes the
/// next character outside single quotes; a command with a quote left open, ending in a
/// backslash or holding `<<` is only trimmed). Every other string is kept exactly: whitespace
/// at the ends of an edit's text or a file's content is part of what the call does. Two calls
/// of one tool are the same call when their canonical arguments are equal (docs/FORMATS.md,
/// "Superseded results").
///
/// `None` when the arguments are not one JSON object, an object anywhere in them repeats a key
/// (which member a tool reads is then a guess), or a number in them is not written as JSON
/// writes it back (`5e0`, `1.50`, an integer too large for 64 bits: parsing would make
/// `5.0` and `5e0`, or two large integers, the same number): such a call is the same as no
/// other.
///
/// # Example
///
/// ```
/// use rehydrate_sidecar::{CommandFields, canonical_arguments};
///
/// let fields = ["command".to_string()];
/// let canonical = |a: &str| canonical_arguments(a, CommandFields::Named(&fields));
/// assert_eq!(canonical(r#"{"command":"cargo  test "}"#), canonical(r#"{"command":"cargo test"}"#));
/// assert_ne!(canonical(r#"{"command":"ls -la"}"#), canonical(r#"{"command":"ls -al"}"#));
/// assert_ne!(canonical(r#"{"text":"    return x"}"#), canonical(r#"{"text":"return x"}"#));
/// assert_eq!(canonical(r#"{"command":"ls","command":"rm -r x"}"#), None);
/// assert_eq!(canonical("not json"), None);
/// assert_eq!(canonical(r#"{"amount":5e0}"#), None);
/// assert_eq!(canonical(r#"{"n":12345678901234567890123}"#), None);
/// ```
pub fn canonical_arguments(arguments: &str, command_fields: CommandFields<'_>) -> Option<String> {
    let mut value: Value = serde_json::from_str(arguments).ok()?;
    if !value.is_object()
        || members(&value) != colons_outside_strings(arguments)
        || !numbers_as_written(&value, arguments)
    {
        return None;
    }
    if let Value::Object(map) = &mut value {
        for (key, v) in map.iter_mut() {
            if let Value::String(s) = v
                && command_fields.holds(key)
            {
                let trimmed = s.trim();
                *s = collapse_command(trimmed).unwrap_or_else(|| trimmed.to_string());
            }
        }
    }
    let mut out = Vec::with_capacity(arguments.len());
    write_json_value(&value, &mut out);
    String::from_utf8(out).ok()
}

/// A digest of a call's tool name and canonical arguments ([`canonical_arguments`]): two
/// calls have the same key exactly when they are the same call (up to a blake3 collision).
/// `None` when the arguments have no canonical form.
pub fn rerun_key(call: &ToolCall, command_fields: CommandFields<'_>) -> Option<Digest> {
    let canonical = canonical_arguments(&call.arguments, command_fields)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&(call.name.len() as u64).to_le_bytes());
    hasher.update(call.name.as_bytes());
    hasher.update(canonical.as_bytes());
    Some(Digest(*hasher.finalize().as_bytes()))
}

/// The tool call that the tool result at `index` of `minted_view` answers in place: walking
/// back over the tool results before it (none answering the same id) and the assistant
/// messages both request bodies leave out, the first other message must be an assistant
/// message whose first call with the result's `tool_call_id` is one the APIs accept as written
/// ([`call_defect`]). Returns the assistant message's index and the call.
///
/// `None` for a message that is not a `tool` result with a call id, for a second answer, and
/// for a result separated from its call (a moved or orphan result): their call is not known
/// for certain.
pub fn answered_call(minted_view: &[Message], index: usize) -> Option<(usize, &ToolCall)> {
    let result = minted_view.get(index)?;
    if result.role != Role::Tool {
        return None;
    }
    let id = result.tool_call_id.as_deref()?;
    for j in (0..index).rev() {
        let m = &minted_view[j];
        match m.role {
            Role::Tool if m.tool_call_id.as_deref() == Some(id) => return None,
            Role::Tool => {}
            Role::Assistant if left_out_of_bodies(m) => {}
            Role::Assistant => {
                let k = m.tool_calls.iter().position(|c| c.id == id)?;
                return call_defect(&m.tool_calls, k)
                    .is_none()
                    .then(|| (j, &m.tool_calls[k]));
            }
            Role::System | Role::User => return None,
        }
    }
    None
}

/// `command` with each run of spaces and tabs that follows other text on its line written as
/// one space, outside single and double quotes (a backslash escapes the next character outside
/// single quotes); indentation at the start of a line and line breaks are kept. `None` (the
/// command is compared as it is) when a quote is left open, the command ends in a backslash, or
/// it holds `<<` (a here-document, whose body is not shell words).
fn collapse_command(command: &str) -> Option<String> {
    if command.contains("<<") {
        return None;
    }
    let mut out = String::with_capacity(command.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    // Whether a character other than a space or tab came before on this line.
    let mut after_text = false;
    // Whether the last character written is a collapsed space.
    let mut in_run = false;
    for ch in command.chars() {
        if escaped {
            escaped = false;
            out.push(ch);
            (after_text, in_run) = (ch != '\n', false);
            continue;
        }
        if let Some(q) = quote {
            out.push(ch);
            if ch == q {
                quote = None;
            } else if ch == '\\' && q == '"' {
                escaped = true;
            }
            after_text = ch != '\n';
            continue;
        }
        match ch {
            ' ' | '\t' if after_text => {
                if !in_run {
                    out.push(' ');
                    in_run = true;
                }
                continue;
            }
            ' ' | '\t' => out.push(ch),
            '\n' => {
                out.push(ch);
                (after_text, in_run) = (false, false);
                continue;
            }
            '\'' | '"' => {
                quote = Some(ch);
                out.push(ch);
            }
            '\\' => {
                escaped = true;
                out.push(ch);
            }
            _ => out.push(ch),
        }
        after_text = !matches!(ch, ' ' | '\t');
        in_run = false;
    }
    (quote.is_none() && !escaped).then_some(out)
}

/// The number of object members in `v`, at every depth.
fn members(v: &Value) -> usize {
    match v {
        Value::Array(items) => items.iter().map(members).sum(),
        Value::Object(map) => map.len() + map.values().map(members).sum::<usize>(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => 0,
    }
}

/// Whether every number of `value` is written in `text` as JSON writes it back, so parsing lost
/// nothing of it. Compared as multisets (object keys are sorted in `value`): every rendering is
/// written as JSON writes it, so the two agree exactly when every token of `text` is one.
fn numbers_as_written(value: &Value, text: &str) -> bool {
    let mut parsed = Vec::new();
    rendered_numbers(value, &mut parsed);
    let mut written = number_tokens(text);
    if parsed.len() != written.len() {
        return false;
    }
    parsed.sort_unstable();
    written.sort_unstable();
    parsed.iter().zip(&written).all(|(p, w)| p == w)
}

/// How JSON writes each number of `v` back, in any order.
fn rendered_numbers(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| rendered_numbers(i, out)),
        Value::Object(map) => map.values().for_each(|i| rendered_numbers(i, out)),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// The number tokens of JSON text, outside string literals, as written.
fn number_tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut tokens, mut in_string, mut escaped, mut i) = (Vec::new(), false, false, 0);
    while let Some(&b) = bytes.get(i) {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while bytes.get(i + 1).is_some_and(|c| {
                c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')
            }) {
                i += 1;
            }
            tokens.push(&text[start..=i]);
        }
        i += 1;
    }
    tokens
}

/// The number of `:` outside string literals in JSON text: one per object member written, so
/// fewer members after parsing means a repeated key.
fn colons_outside_strings(text: &str) -> usize {
    let (mut in_string, mut escaped, mut colons) = (false, false, 0);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b':' {
            colons += 1;
        }
    }
    colons
}
