//! The command-line grammar (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Lossless, verifiable context reduction for agent sessions.
#[derive(Debug, Parser)]
#[command(
    name = "rehydrate",
    version,
    about = "Lossless, verifiable context reduction for agent sessions: reduce a session file, get any reduced byte back, search, verify, export request bodies, replay and project evidence",
    long_about = None
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Reduce a session file: write the reduced view, the reduction log and the sidecar. Given
    /// several files or a directory, reduce each session on its own (--jobs at once) and end
    /// with a summary: exit 5 when some failed.
    #[command(
        after_help = "Exit codes: 0 success (with several files: none failed, some perhaps skipped as no session); 1 verification failure; 2 bad input or usage (with several files: before any is read, such as stdin among them or two with one output directory); 5 some of several session files failed, each named on stderr, the others reduced."
    )]
    Reduce(ReduceArgs),
    /// Print the exact original bytes behind a reduction (or a byte range of them).
    Expand {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// The reduction id, such as r3.9f3c2a.
        id: String,
        /// A half-open byte range START..END of the original; END is clamped to its size, a
        /// START past it is an error, and both are rounded down to char boundaries.
        #[arg(long, value_name = "START..END", allow_hyphen_values = true)]
        range: Option<String>,
    },
    /// Search the bytes the reductions hide (never what the view shows) for a literal or a
    /// regex: at most 50 matches with redacted snippets of at most 200 bytes.
    Search {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// The text or regex to find; case-insensitive unless --case-sensitive. Without
        /// --regex or --literal it is a regex when it is a valid one, a literal otherwise.
        query: String,
        /// Read the query as a regex; an invalid one is an error.
        #[arg(long, conflicts_with = "literal")]
        regex: bool,
        /// Read the query as literal text.
        #[arg(long)]
        literal: bool,
        /// Match letter case exactly.
        #[arg(long)]
        case_sensitive: bool,
        /// Print the result as compact JSON (the form `sidecar_search` gives a model).
        #[arg(long)]
        json: bool,
    },
    /// Re-check every reduction's digest and that the view inverts to the sidecar's messages.
    Verify {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// Print one JSON object instead of a line of text.
        #[arg(long)]
        json: bool,
    },
    /// Write the session with every reduction inverted, as canonical JSONL, an OpenAI
    /// chat-completions body or an Anthropic Messages body, on stdout. Refuses to leave any stub
    /// text in the output (exit 1). A body is repaired so the API accepts it (each repair on
    /// stderr); with --strict a body that needs a repair is refused (exit 2). With --view the
    /// reduced view is written as the body instead.
    Export {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// The form to write.
        #[arg(long = "to", value_enum)]
        to: ExportTo,
        /// Write the reduced view (stubs included) instead of the inverted session; openai and
        /// anthropic only.
        #[arg(long)]
        view: bool,
        /// Refuse a session whose body would need a pairing repair (exit 2) instead of
        /// repairing it.
        #[arg(long)]
        strict: bool,
        /// Report the repairs as one JSON object on stderr instead of one line each.
        #[arg(long)]
        json: bool,
    },
    /// Restore a directory whose sidecar store was cut short: drop a torn tail, rebuild the
    /// reduction records it lost from reductions.json (each verified), and end with a directory
    /// that verifies, or change nothing and say what cannot be restored (exit 1).
    Repair {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
    },
    /// Compute the divergence signals of the directory's store (its compaction summaries
    /// against the reductions it resolves) and the decision at a compaction boundary:
    /// continue, widen_retention (exit 0) or freeze (exit 4, the reasons on stderr).
    Signals {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// Print one JSON object instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Print the agent intrinsics' tool definitions (expand_reduction, sidecar_search) as a
    /// JSON array, to advertise to a model.
    Tools {
        /// The shape of each definition.
        #[arg(long, value_enum, default_value_t = ToolsFormat::Openai)]
        format: ToolsFormat,
    },
    /// Serve expand_reduction, sidecar_search and list_reductions over one session as a Model
    /// Context Protocol server on stdin and stdout, for an agent that loads tools over MCP
    /// (docs/MCP.md). Logs to stderr; ends when stdin ends.
    #[command(group(
        clap::ArgGroup::new("source")
            .required(true)
            .args(["session", "transcript", "claude_code", "codex"])
    ))]
    Mcp {
        /// A `rehydrate reduce` output directory.
        #[arg(long, value_name = "DIR")]
        session: Option<PathBuf>,
        /// A session file of any format `rehydrate` reads, reduced in memory and read again
        /// when it has grown.
        #[arg(long, value_name = "FILE")]
        transcript: Option<PathBuf>,
        /// The newest Claude Code session of the working directory:
        /// `$CLAUDE_CONFIG_DIR` (or ~/.claude) `/projects/<encoded cwd>/*.jsonl`.
        #[arg(long)]
        claude_code: bool,
        /// The newest Codex rollout whose `session_meta` names the working directory:
        /// `$CODEX_HOME` (or ~/.codex) `/sessions/**/rollout-*.jsonl`.
        #[arg(long)]
        codex: bool,
        /// The working directory whose session --claude-code or --codex finds (default: the
        /// current one).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["session", "transcript"])]
        cwd: Option<PathBuf>,
        /// Session format of --transcript (default: detected).
        #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
        format: FormatArg,
        /// Reduction preset of a transcript; the agent's own compactions are followed
        /// whatever the preset.
        #[arg(long, value_enum, default_value_t = Preset::Aggressive)]
        preset: Preset,
    },
    /// Answer one intrinsic tool call against a directory, as a host would: the tool result's
    /// content on stdout exactly as the model sees it; exit 0 for a result, 1 for a tool error
    /// (its `Error: <message>` text on stdout, nothing on stderr).
    Call {
        /// The output directory of `rehydrate reduce`.
        dir: PathBuf,
        /// The tool name: expand_reduction or sidecar_search.
        tool: String,
        /// The call's arguments, a JSON object such as {"reduction_id":"r3.9f3c2a"}.
        #[arg(allow_hyphen_values = true)]
        arguments: String,
    },
    /// Describe a session file: format, messages by role, tool calls, bytes, tokens.
    Inspect {
        /// The session file.
        transcript: PathBuf,
        #[command(flatten)]
        input: Input,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Rebuild which whole file contents the agent provably saw (read-before-write state) from
    /// the transcript's Read, Write and Edit results alone, never from disk.
    Replay {
        /// The session file.
        transcript: PathBuf,
        #[command(flatten)]
        input: Input,
        /// Print one JSON object, with each file's content, instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Project the session into compact per-turn evidence (person's text, summaries, last
    /// assistant text, tool names and outcomes), redacted and size-checked: exit 3 with
    /// `evidence-too-large` over the limit, never truncated.
    Evidence {
        /// The session file.
        transcript: PathBuf,
        #[command(flatten)]
        input: Input,
        /// The largest projected input accepted, in bytes.
        #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = rehydrate::evidence::DEFAULT_MAX_INPUT_BYTES)]
        max_input_bytes: usize,
        /// Print one JSON object instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// What the session's model calls cost with the provider's prompt cache, replayed under
    /// no reduction, per-turn reduction and cache-aware reduction (docs/COST.md): one row per
    /// strategy (input tokens, cache reads and writes, uncached input, output, USD). Tokens
    /// are o200k_base counts, an approximation of Anthropic's tokenizer; the cache lifetime
    /// is measured from the session's timestamps where the format records them.
    Cost {
        /// The session file.
        transcript: PathBuf,
        #[command(flatten)]
        input: Input,
        /// Policy preset of the per-turn and cache-aware strategies.
        #[arg(long, value_enum, default_value_t = Preset::Aggressive)]
        preset: Preset,
        /// Prices and cache rules: anthropic-5m, anthropic-1h, openai (built in, with their
        /// source and date), or a JSON file of the same shape (docs/COST.md, "Pricing").
        #[arg(long, value_name = "NAME|FILE", default_value = "anthropic-5m")]
        pricing: String,
        /// Print one JSON object, with every call's figures, instead of the table.
        #[arg(long)]
        json: bool,
        /// Also draw the cumulative cost per call of each strategy as an SVG file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
    /// Reduce in memory and check everything: every reduction verifies and expands to the
    /// imported bytes, the view inverts to the imported messages, the written formats read back
    /// equal, and projecting again changes nothing. Used by `cargo xtask corpus`; hidden from
    /// the help, since it is a test harness rather than a user's command.
    #[command(hide = true)]
    Roundtrip {
        /// The session file.
        transcript: PathBuf,
        #[command(flatten)]
        input: Input,
        /// Policy preset.
        #[arg(long, value_enum, default_value_t = Preset::Default)]
        preset: Preset,
        /// Print one JSON object instead of a line of text.
        #[arg(long)]
        json: bool,
        /// Check every session of a file that holds several, one report each.
        #[arg(long, conflicts_with = "session")]
        all_sessions: bool,
    },
}

#[derive(Debug, Args)]
pub(crate) struct ReduceArgs {
    /// The session file (Claude Code, Codex or Gemini CLI sessions, SWE-agent .traj, OpenAI
    /// messages, Responses input or an Anthropic body); `-` reads it from stdin (then --out is
    /// required). Several files, or directories: each session is reduced on its own, and a
    /// directory is walked for its *.jsonl, *.json, *.traj and *.aider.chat.history.md files
    /// (symlinked directories and *.rehydrate outputs left out; a file found there that is in
    /// no format rehydrate reads is skipped).
    #[arg(value_name = "TRANSCRIPT", required = true, num_args = 1..)]
    pub(crate) transcripts: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) input: Input,
    /// Policy preset; the flags below override single fields of it.
    #[arg(long, value_enum, default_value_t = Preset::Default)]
    pub(crate) preset: Preset,
    /// Output directory (default: TRANSCRIPT.rehydrate). It must not exist or be empty. With
    /// several files or a directory, each session's output goes under DIR at its path relative
    /// to the argument it came from (a file argument: its name), `.rehydrate` appended.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Session files reduced at once, when several are given [default: the available cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) jobs: Option<u64>,
    /// Replace the output directory when it holds an earlier `rehydrate reduce` output
    /// (records a host appended to its store included); never any other directory. With
    /// several files, each output directory is judged on its own.
    #[arg(long)]
    pub(crate) force: bool,
    /// Print one JSON object instead of the summary table (with several files: one entry per
    /// file and the summary; no progress bar).
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not count tokens (the slowest step): the token fields are null in --json output and
    /// `-` in the table.
    #[arg(long)]
    pub(crate) no_tokens: bool,
    /// Tool results strictly larger than this many bytes are truncation candidates
    /// [default: 8192; aggressive: 0].
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub(crate) trigger_bytes: Option<usize>,
    /// Bytes kept at the head of a truncated tool result [default: 2048; aggressive: 256].
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub(crate) head_bytes: Option<usize>,
    /// Bytes kept at the tail of a truncated tool result [default: 2048; aggressive: 256].
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub(crate) tail_bytes: Option<usize>,
    /// The newest N tool results are never reduced [default: 3].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) protect: Option<usize>,
    /// Do not replace duplicate tool results with stubs.
    #[arg(long)]
    pub(crate) no_dedupe: bool,
    /// Mint a reduction only when it saves at least this many bytes [default: 128; aggressive: 0].
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true)]
    pub(crate) min_saved_bytes: Option<usize>,
    /// Clear every turn older than the newest N turns into one stub.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) clear_turns_older_than: Option<usize>,
    /// A file whose text is shown after the turns-cleared stub.
    #[arg(long, value_name = "FILE", requires = "clear_turns_older_than")]
    pub(crate) summary_file: Option<PathBuf>,
    /// Follow the agent's own compactions recorded in the session (Claude Code, Codex): what
    /// each replaced is hidden behind a `compaction` stub followed by the agent's summary
    /// (default: the preset's; aggressive follows, default does not).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub(crate) follow_compactions: Option<bool>,
}

/// The forms `rehydrate export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportTo {
    /// One canonical message per line.
    Jsonl,
    /// An OpenAI chat-completions request body.
    Openai,
    /// An Anthropic Messages request body.
    Anthropic,
    /// An OpenAI Responses request body (`{"input":[…]}`).
    Responses,
    /// A Codex CLI rollout (JSONL), which Codex loads again.
    Codex,
    /// A Gemini CLI session document (JSON), which Gemini CLI resumes.
    GeminiCli,
    /// A Goose session (JSONL), the legacy form Goose imports.
    Goose,
}

impl ExportTo {
    pub(crate) fn format(self) -> rehydrate::formats::ExportFormat {
        use rehydrate::formats::ExportFormat;
        match self {
            ExportTo::Jsonl => ExportFormat::Jsonl,
            ExportTo::Openai => ExportFormat::OpenAi,
            ExportTo::Anthropic => ExportFormat::Anthropic,
            ExportTo::Responses => ExportFormat::Responses,
            ExportTo::Codex => ExportFormat::Codex,
            ExportTo::GeminiCli => ExportFormat::GeminiCli,
            ExportTo::Goose => ExportFormat::Goose,
        }
    }
}

/// The shapes `rehydrate tools` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ToolsFormat {
    /// OpenAI function tools.
    Openai,
    /// Anthropic tools.
    Anthropic,
}

impl ToolsFormat {
    pub(crate) fn format(self) -> rehydrate::intrinsics::ToolFormat {
        match self {
            ToolsFormat::Openai => rehydrate::intrinsics::ToolFormat::OpenAi,
            ToolsFormat::Anthropic => rehydrate::intrinsics::ToolFormat::Anthropic,
        }
    }
}

/// The session file's format and, in a file that holds several sessions, which one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Args)]
pub(crate) struct Input {
    /// Session format (default: detected).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub(crate) format: FormatArg,
    /// Which session of a file that holds several (an OpenHands output.jsonl, an Aider chat
    /// history), numbered from 1; `rehydrate inspect FILE` lists them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) session: Option<u64>,
}

impl Input {
    pub(crate) fn pick(self) -> crate::load::Pick {
        crate::load::Pick {
            format: self.format.format(),
            session: self.session.and_then(|n| usize::try_from(n).ok()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    Auto,
    ClaudeCode,
    SweAgent,
    Openai,
    Codex,
    Responses,
    Anthropic,
    GeminiCli,
    Openhands,
    Aider,
    Goose,
}

impl FormatArg {
    pub(crate) fn format(self) -> Option<rehydrate::formats::Format> {
        use rehydrate::formats::Format;
        match self {
            FormatArg::Auto => None,
            FormatArg::ClaudeCode => Some(Format::ClaudeCode),
            FormatArg::SweAgent => Some(Format::SweAgent),
            FormatArg::Openai => Some(Format::OpenAi),
            FormatArg::Codex => Some(Format::Codex),
            FormatArg::Responses => Some(Format::Responses),
            FormatArg::Anthropic => Some(Format::Anthropic),
            FormatArg::GeminiCli => Some(Format::GeminiCli),
            FormatArg::Openhands => Some(Format::OpenHands),
            FormatArg::Aider => Some(Format::Aider),
            FormatArg::Goose => Some(Format::Goose),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Preset {
    Default,
    Aggressive,
}

impl Preset {
    pub(crate) fn policy(self) -> rehydrate::reduce::ReductionPolicy {
        match self {
            Preset::Default => rehydrate::reduce::ReductionPolicy::default(),
            Preset::Aggressive => rehydrate::reduce::ReductionPolicy::aggressive(),
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Aggressive => "aggressive",
        }
    }
}
