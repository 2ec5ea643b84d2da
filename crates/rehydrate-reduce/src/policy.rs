//! [`ReductionPolicy`]: what the reducer may reduce, and [`Minting`]: when a reduction it
//! decides reaches the view.

use std::time::Duration;

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
    /// Whether the view follows the agent's own compactions recorded in the session (a Claude
    /// Code `compact_boundary` with its `isCompactSummary` message, a Codex `compacted`
    /// record; `rehydrate_formats::is_compaction_summary`): the messages from the first that
    /// opens a turn up to the latest compaction's summary are hidden behind one `compaction`
    /// stub followed by the agent's summary, which is what the model saw after it, and stay
    /// expandable and searchable (docs/FORMATS.md, "Agent compactions"). A compaction is
    /// followed when its stub message saves `min_saved_bytes` as any stub must (a real one,
    /// which summarizes a full context, always does); one whose range a tool call crosses
    /// (answered after the summary) is not, and the latest before it is. A turns-cleared range that reaches past
    /// the summary (`clear_turns_older_than`) is shown instead. Default false: the
    /// conservative preset shows every recorded message, so a host sees the whole session
    /// and a resumed view stays as it was; the aggressive preset follows, and so does
    /// `rehydrate mcp`, whose search must reach what the compaction removed.
    pub follow_compactions: bool,
    /// A reduction is minted only when its view form is smaller than what it hides by at
    /// least this many wire bytes (and always by at least one), so a stub never costs the
    /// model a lookup to save a few bytes. Default 128.
    pub min_saved_bytes: usize,
    /// When `Some(n)`, the text of an assistant message strictly larger than `n` bytes keeps
    /// its head and tail around a stub once the message has left the protected window
    /// (`protect_last_n_assistant_messages`); only a message whose content is text
    /// (`Content::Text`) is reduced, one with content parts is left alone, and its tool calls
    /// and metadata (thinking included) are always kept. `None` turns this off. Default
    /// `None`: the assistant's text is the model's own account of its work, which the user
    /// reads too, so the conservative preset leaves it whole.
    pub assistant_text_trigger_bytes: Option<usize>,
    /// Bytes kept visible at the start of a truncated assistant text (snapped back to a line
    /// end as for a tool result). Separate from `head_bytes`, so turning assistant text on
    /// changes nothing of how tool results are cut. Default 2048.
    pub assistant_text_head_bytes: usize,
    /// Bytes kept visible at the end of a truncated assistant text (snapped forward to a line
    /// start as for a tool result). Default 2048.
    pub assistant_text_tail_bytes: usize,
    /// The newest this-many assistant messages with text (content `Content::Text` of at least
    /// one byte) are never reduced; assistant messages that only call tools do not count.
    /// Default 3. The same count protects the newest assistant messages that make tool calls
    /// from tool-input elision (`tool_input_trigger_bytes`).
    pub protect_last_n_assistant_messages: usize,
    /// When `Some(n)`, the largest string argument strictly larger than `n` bytes (unescaped)
    /// among the `tool_input_fields` of the calls of an assistant message is replaced, inside
    /// its call's JSON arguments, by a stub once the message has left the protected window
    /// (the newest `protect_last_n_assistant_messages` assistant messages that make tool
    /// calls): at most one argument per message. Arguments that are not a JSON object are left
    /// alone; a message whose text an assistant-text truncation would consider (over
    /// `assistant_text_trigger_bytes`) is left to it. `None` turns this off. Default `None`:
    /// the conservative preset keeps the view of a session already projected with it the same
    /// when it resumes (a new kind would change old messages and the prompt cache with them).
    pub tool_input_trigger_bytes: Option<usize>,
    /// The top-level argument fields tool-input elision may hide, by exact name. Default
    /// `content`, `new_string`, `old_string`, `command`, `patch`, `new_source` (what Claude
    /// Code's `Write`, `Edit`, `Bash`, `NotebookEdit` and Codex's `apply_patch` write) and
    /// `file_text`, `new_str`, `old_str` (SWE-agent's `str_replace_editor`); a path or a pattern
    /// stays.
    pub tool_input_fields: Vec<String>,
    /// Whether an older tool result whose call is made again later (same tool, same canonical
    /// arguments; docs/FORMATS.md, "Superseded results") is hidden behind a `superseded` stub
    /// naming the later result. Default false: the conservative preset keeps the older output
    /// (the error a fix was for); the aggressive preset supersedes.
    pub supersede_reruns: bool,
    /// The top-level argument fields that hold a command, whose runs of spaces and tabs outside
    /// quotes do not make two calls differ. Default `["command", "cmd"]`.
    pub superseded_command_fields: Vec<String>,
    /// Whether an earlier whole read of a file (its details `WholeRead`) is hidden behind a
    /// `re-read` stub when a later whole read of the same path serves the same content
    /// (docs/FORMATS.md, "Re-reads"), decided when the later read arrives. Default false: the
    /// conservative preset keeps a resumed session's view and prompt cache as they were and
    /// every read where the model saw it; the aggressive preset elides.
    pub elide_rereads: bool,
    /// When `Some(share)`, a later whole read of a path whose content differs from the earlier
    /// read it pairs with shows a `read-diff` stub and a unified diff of the earlier content to
    /// its own instead of its text, when the diff is at most `share` thousandths of the later
    /// read's text in bytes (exactly at the share is within it; values over 1000 count as
    /// 1000), decided when the later read arrives. `None` turns this off. Default `None`, as
    /// for `elide_rereads`; the aggressive preset uses 500 (50%): a larger diff is harder to
    /// read than the file and saves less.
    pub diff_rereads_max_per_mille: Option<u32>,
    /// Whether a tool result written for a terminal (styles, carriage-return redraws, erased
    /// lines, cursor movement: the progress bars of cargo, npm, pip, docker) is shown, once it
    /// leaves the protected window, as what a terminal would finally display
    /// (`rehydrate_sidecar::normalize_terminal`) after a `terminal` stub, its raw text hidden
    /// (docs/FORMATS.md, "Terminal output"). The normalized text is what a truncation then cuts
    /// when it is still over `tool_output_trigger_bytes`. Minted only where it saves at least
    /// `min_saved_bytes` wire bytes; otherwise the result is truncated as usual. Default false:
    /// the conservative preset shows a tool result as the tool wrote it (or its raw head and
    /// tail), and keeps the view of a session already projected with it the same when it
    /// resumes; the aggressive preset normalizes.
    pub normalize_terminal_output: bool,
    /// When `Some(n)`, the inline images (base64 data URLs and base64 source blocks) of a user
    /// message or tool result whose base64 data is strictly larger than `n` bytes are hidden
    /// behind one `image` stub per message (docs/FORMATS.md, "Images"): all of them once the
    /// message leaves the protected window (`protect_last_n_image_messages`), and, as soon as
    /// a later copy of an image (the same base64 data) arrives, the earlier copies, each
    /// naming the latest one, so the newest copy stays in the view. Images are decided once
    /// per message: a message whose copies were hidden keeps its other images. `None` turns
    /// this off. Default `None`: the conservative preset keeps the view of a session already
    /// projected with it the same when it resumes, and a screenshot may be what the user
    /// asks about; the aggressive preset hides images over 1 KiB.
    pub image_trigger_bytes: Option<usize>,
    /// The newest this-many user messages and tool results holding an inline image over
    /// `image_trigger_bytes` keep their images (a later copy still hides an earlier one).
    /// Default 3.
    pub protect_last_n_image_messages: usize,
    /// When a reduction the reducer decides is shown in the view (docs/COST.md, "Cache-aware
    /// minting"). Default: cache-aware, batches that save at least 4 KiB and a quarter of what
    /// they rewrite ([`Minting::DEFAULT_SAVED_PER_MILLE`]); aggressive: one and a half times
    /// what they rewrite ([`Minting::AGGRESSIVE_SAVED_PER_MILLE`]).
    pub minting: Minting,
}

/// When a decided reduction reaches the view, which decides what the prompt cache of the
/// provider still holds (docs/COST.md).
///
/// A reduction changes the view from the message it covers on, so the next request pays a
/// cache write for everything after it. Under [`Minting::CacheAware`] a reduction of a message
/// the provider has cached waits, and the view is left byte for byte as it was sent, until the
/// reductions waiting together are worth the rewrite, or the cache has expired anyway; a
/// reduction of a message not cached yet is shown at once (it is written either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Minting {
    /// Every reduction is shown in the projection that decides it: the view can change inside
    /// the cached prefix at every turn. The behaviour before cache-aware minting, kept for
    /// comparison (`rehydrate cost` prices it as `per-turn`).
    PerTurn,
    /// Reductions of cached messages wait for a batch (docs/COST.md, "Cache-aware minting"):
    /// the waiting ones from some message on are shown together once they save at least
    /// `min_saved_bytes` bytes (Anthropic's `clear_at_least`, in bytes: the UTF-8 of texts,
    /// call arguments and ids, escapes not counted) and at least `min_saved_per_mille`
    /// thousandths of the bytes the next request then writes again after that message, or
    /// once they have waited long enough to have cost that rewrite in reads (their saved
    /// bytes summed over the projections each waited reach 11.5 times the bytes rewritten);
    /// the rest wait on. All are shown as soon as the cache is cold
    /// ([`crate::CacheState`]: nothing cached, or more than `cache_ttl` since the last
    /// request). Until then the view is unchanged.
    CacheAware {
        /// The bytes a batch must save.
        min_saved_bytes: usize,
        /// The bytes a batch must save, in thousandths of the bytes of the view from
        /// its first message on (what the request writes again instead of reading from the
        /// cache). 1000: a batch saves at least what it rewrites.
        min_saved_per_mille: u32,
        /// How long the provider keeps a prefix cached after a request: a longer gap means a
        /// cold cache ([`crate::CacheState::Idle`]).
        cache_ttl: Duration,
    },
}

impl Minting {
    /// The bytes a batch of the presets must save: 4 KiB, about 1,000 tokens.
    pub const DEFAULT_BATCH_BYTES: usize = 4 * 1024;

    /// What a batch of the default preset must save of what it rewrites: a quarter (250 per
    /// mille). Its reductions are few and large (outputs over 8 KiB), so they are shown soon.
    pub const DEFAULT_SAVED_PER_MILLE: u32 = 250;

    /// What a batch of the aggressive preset must save of what it rewrites: one and a half
    /// times as much (1500 per mille). Its reductions are many and small, so they wait until
    /// they are worth a rewrite: a rewrite costs a cache write (1.25x the input price at
    /// Anthropic) where a read would have cost 0.1x, and each later request saves a read
    /// (0.1x) of what the batch hides, so saving 1.5 times what it rewrites pays the rewrite
    /// back in about eight requests.
    pub const AGGRESSIVE_SAVED_PER_MILLE: u32 = 1500;

    /// Anthropic's default cache lifetime, 5 minutes.
    pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(300);

    /// Cache-aware minting with batches of at least [`Minting::DEFAULT_BATCH_BYTES`] that save
    /// `min_saved_per_mille` thousandths of what they rewrite, a cache that lives
    /// [`Minting::DEFAULT_CACHE_TTL`]: the presets' minting with
    /// [`Minting::DEFAULT_SAVED_PER_MILLE`] and [`Minting::AGGRESSIVE_SAVED_PER_MILLE`]
    /// (chosen on the corpus's two long sessions with `rehydrate cost`; docs/COST.md).
    pub const fn cache_aware(min_saved_per_mille: u32) -> Minting {
        Minting::CacheAware {
            min_saved_bytes: Minting::DEFAULT_BATCH_BYTES,
            min_saved_per_mille,
            cache_ttl: Minting::DEFAULT_CACHE_TTL,
        }
    }
}

/// The default [`ReductionPolicy::tool_input_fields`].
pub const DEFAULT_TOOL_INPUT_FIELDS: [&str; 9] = [
    "content",
    "new_string",
    "old_string",
    "command",
    "patch",
    "new_source",
    "file_text",
    "new_str",
    "old_str",
];

impl Default for ReductionPolicy {
    /// The conservative preset: tool results over 8 KiB keep 2 KiB of head and 2 KiB of tail,
    /// the newest 3 tool results are protected, duplicates are stubbed, re-runs do not
    /// supersede, re-reads are neither elided nor diffed, no turn is cleared, the agent's
    /// compactions are not followed, terminal output is not normalized, and neither assistant
    /// text, tool inputs nor images are ever reduced.
    fn default() -> Self {
        ReductionPolicy {
            tool_output_trigger_bytes: 8192,
            head_bytes: 2048,
            tail_bytes: 2048,
            protect_last_n_tool_results: 3,
            dedupe_outputs: true,
            clear_turns_older_than: None,
            turns_summary: None,
            follow_compactions: false,
            min_saved_bytes: 128,
            assistant_text_trigger_bytes: None,
            assistant_text_head_bytes: 2048,
            assistant_text_tail_bytes: 2048,
            protect_last_n_assistant_messages: 3,
            tool_input_trigger_bytes: None,
            tool_input_fields: DEFAULT_TOOL_INPUT_FIELDS.map(String::from).to_vec(),
            supersede_reruns: false,
            superseded_command_fields: vec!["command".to_string(), "cmd".to_string()],
            elide_rereads: false,
            diff_rereads_max_per_mille: None,
            normalize_terminal_output: false,
            image_trigger_bytes: None,
            protect_last_n_image_messages: 3,
            minting: Minting::cache_aware(Minting::DEFAULT_SAVED_PER_MILLE),
        }
    }
}

impl ReductionPolicy {
    /// The policy that reduces nothing to save tokens, so a projection under it makes only the
    /// pairing repairs: the form of a session that is sent whole but must be a valid request
    /// body (an export of the inverted session). No trigger is reached, every tool result is
    /// protected, duplicates are kept, re-runs do not supersede, re-reads are kept, no turn is
    /// cleared, no compaction is followed, no assistant text, tool input or image is reduced, and no terminal output is
    /// normalized.
    pub fn repairs_only() -> ReductionPolicy {
        ReductionPolicy {
            tool_output_trigger_bytes: usize::MAX,
            protect_last_n_tool_results: 0,
            dedupe_outputs: false,
            clear_turns_older_than: None,
            turns_summary: None,
            follow_compactions: false,
            assistant_text_trigger_bytes: None,
            tool_input_trigger_bytes: None,
            supersede_reruns: false,
            elide_rereads: false,
            diff_rereads_max_per_mille: None,
            normalize_terminal_output: false,
            image_trigger_bytes: None,
            ..ReductionPolicy::default()
        }
    }

    /// The aggressive preset, the lossless form of observation masking: every tool result
    /// older than the newest 3 that is larger than its stub is reduced (no trigger size, no
    /// minimum saving), keeping a 256-byte head and a 256-byte tail; duplicates are stubbed; an
    /// older result of a call made again later is superseded (whatever the protected window);
    /// no turn is cleared. The text of every assistant message older than the newest 3 with
    /// text that is over 1 KiB keeps a 256-byte head and a 256-byte tail too, and the largest
    /// tool input over 1 KiB of every assistant message older than the newest 3 that make
    /// tool calls is elided. An earlier whole read of a file read again with the same content
    /// is elided, and a re-read with other content shows a diff when it is at most 50% of its
    /// text. The agent's own compactions are followed.
    /// A tool result written for a terminal shows what a terminal would finally display (then
    /// cut to its head and tail as any other result).
    /// Inline images over 1 KiB of base64 are hidden once their message
    /// is older than the newest 3 with such images, and earlier copies of an image as soon as
    /// a later copy arrives.
    pub fn aggressive() -> ReductionPolicy {
        ReductionPolicy {
            tool_output_trigger_bytes: 0,
            head_bytes: 256,
            tail_bytes: 256,
            min_saved_bytes: 0,
            assistant_text_trigger_bytes: Some(1024),
            assistant_text_head_bytes: 256,
            assistant_text_tail_bytes: 256,
            protect_last_n_assistant_messages: 3,
            tool_input_trigger_bytes: Some(1024),
            supersede_reruns: true,
            elide_rereads: true,
            diff_rereads_max_per_mille: Some(500),
            normalize_terminal_output: true,
            image_trigger_bytes: Some(1024),
            follow_compactions: true,
            minting: Minting::cache_aware(Minting::AGGRESSIVE_SAVED_PER_MILLE),
            ..ReductionPolicy::default()
        }
    }
}
