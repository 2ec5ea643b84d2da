//! [`ReductionPolicy`]: what the reducer may reduce.

/// What [`crate::project_messages`] may reduce. All sizes are in bytes of message content
/// (UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionPolicy {
    /// A tool result whose content is strictly larger than this is a truncation candidate.
    /// Default 8192 (8 KiB).
    pub tool_output_trigger_bytes: usize,
    /// Bytes kept visible at the start of a truncated tool result (snapped back to a line end
    /// when one lies in its second half). Default 2048.
    pub head_bytes: usize,
    /// Bytes kept visible at the end of a truncated tool result (snapped forward to a line
    /// start when one lies in its first half). Default 2048.
    pub tail_bytes: usize,
    /// The newest this-many tool results are never reduced. Default 3.
    pub protect_last_n_tool_results: usize,
    /// Whether a tool result byte-identical to an earlier visible one becomes a duplicate stub.
    /// Default true.
    pub dedupe_outputs: bool,
    /// When `Some(n)`, every turn older than the newest `n` turns is cleared (one stub for the
    /// whole range). Default `None`.
    pub clear_turns_older_than: Option<usize>,
    /// The summary shown after the turns-cleared stub. Default `None`.
    pub turns_summary: Option<String>,
    /// A reduction is minted only when its view form is smaller than what it hides by at
    /// least this many wire bytes (and always by at least one), so a stub never costs the
    /// model a lookup to save a few bytes. Default 128.
    pub min_saved_bytes: usize,
    /// Whether an older tool result whose call is made again later (same tool, same canonical
    /// arguments; docs/FORMATS.md, "Superseded results") is hidden behind a `superseded` stub
    /// naming the later result. Default false: the conservative preset keeps the older output
    /// (the error a fix was for); the aggressive preset supersedes.
    pub supersede_reruns: bool,
    /// The top-level argument fields that hold a command, whose runs of spaces and tabs outside
    /// quotes do not make two calls differ. Default `["command", "cmd"]`.
    pub superseded_command_fields: Vec<String>,
}

impl Default for ReductionPolicy {
    /// The conservative preset: tool results over 8 KiB keep 2 KiB of head and 2 KiB of tail,
    /// the newest 3 tool results are protected, duplicates are stubbed, re-runs do not
    /// supersede, no turn is cleared.
    fn default() -> Self {
        ReductionPolicy {
            tool_output_trigger_bytes: 8192,
            head_bytes: 2048,
            tail_bytes: 2048,
            protect_last_n_tool_results: 3,
            dedupe_outputs: true,
            clear_turns_older_than: None,
            turns_summary: None,
            min_saved_bytes: 128,
            supersede_reruns: false,
            superseded_command_fields: vec!["command".to_string(), "cmd".to_string()],
        }
    }
}

impl ReductionPolicy {
    /// The policy that reduces nothing to save tokens, so a projection under it makes only the
    /// pairing repairs: the form of a session that is sent whole but must be a valid request
    /// body (an export of the inverted session). No trigger is reached, every tool result is
    /// protected, duplicates are kept, re-runs do not supersede and no turn is cleared.
    pub fn repairs_only() -> ReductionPolicy {
        ReductionPolicy {
            tool_output_trigger_bytes: usize::MAX,
            protect_last_n_tool_results: 0,
            dedupe_outputs: false,
            clear_turns_older_than: None,
            turns_summary: None,
            supersede_reruns: false,
            ..ReductionPolicy::default()
        }
    }

    /// The aggressive preset, the lossless form of observation masking: every tool result
    /// older than the newest 3 that is larger than its stub is reduced (no trigger size, no
    /// minimum saving), keeping a 256-byte head and a 256-byte tail; duplicates are stubbed; an
    /// older result of a call made again later is superseded (whatever the protected window);
    /// no turn is cleared.
    pub fn aggressive() -> ReductionPolicy {
        ReductionPolicy {
            tool_output_trigger_bytes: 0,
            head_bytes: 256,
            tail_bytes: 256,
            min_saved_bytes: 0,
            supersede_reruns: true,
            ..ReductionPolicy::default()
        }
    }
}
