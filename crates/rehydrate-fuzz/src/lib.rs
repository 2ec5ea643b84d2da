//! The fuzz targets of rehydrate: every reader of bytes that come from outside (session files
//! of other programs, model-written arguments and patterns, stores and output directories that
//! may be damaged), each a function of the fuzzer's bytes that panics when a promise breaks.
//!
//! A target checks more than "no panic": what each promises is in its docs ([`TARGETS`] lists
//! them). The targets are driven three ways:
//!
//! - `cargo xtask fuzz [TARGET] [--seconds N]` builds `driver/` (libFuzzer, coverage-guided,
//!   on the stable toolchain) and runs each target for a set time, seeded from `fixtures/`;
//! - `tests/corpus.rs` runs every input under `fixtures/fuzz/<target>/` (the inputs a run
//!   found interesting, and every crash, kept as regression tests) through its target under
//!   `cargo test`;
//! - CI runs each target for a short time (`cargo xtask ci`, step `fuzz`).
//!
//! docs/RELIABILITY.md says what is promised and how each promise is tested.

mod check;
mod generate;
mod import;
mod readers;
mod session;
mod text;

use rehydrate::formats::Format;

/// One fuzz target.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The name `cargo xtask fuzz` takes and `fixtures/fuzz/` keeps its inputs under.
    pub name: &'static str,
    /// Runs one input; panics when a property does not hold.
    pub run: fn(&[u8]),
    /// Seed inputs besides `fixtures/fuzz/<name>/`: files or directories (every file under
    /// them), relative to the workspace root.
    pub seeds: &'static [&'static str],
}

/// Each importer's target: the file read as that format.
macro_rules! importer {
    ($name:literal, $format:expr, [$($seed:literal),* $(,)?]) => {
        Target {
            name: $name,
            run: |data| import::as_format($format, data),
            seeds: &[$($seed),*],
        }
    };
}

/// Every target, in the order `cargo xtask fuzz` runs them.
pub const TARGETS: &[Target] = &[
    importer!(
        "import_claude_code",
        Format::ClaudeCode,
        [
            "fixtures/formats/claude-code-session.jsonl",
            "fixtures/formats/claude-code-branches.jsonl",
            "fixtures/formats/claude-code-sidechain.jsonl",
            "fixtures/formats/bad-truncated.jsonl",
        ]
    ),
    importer!("import_codex", Format::Codex, ["fixtures/formats/codex"]),
    importer!(
        "import_gemini_cli",
        Format::GeminiCli,
        [
            "fixtures/formats/gemini-cli-session.json",
            "fixtures/formats/gemini-cli-session.jsonl",
        ]
    ),
    importer!(
        "import_openhands",
        Format::OpenHands,
        [
            "fixtures/formats/openhands-events.json",
            "fixtures/formats/openhands-output.jsonl",
            "fixtures/formats/openhands-pairs.json",
        ]
    ),
    importer!(
        "import_goose",
        Format::Goose,
        ["fixtures/formats/goose-session.jsonl"]
    ),
    importer!(
        "import_swe_agent",
        Format::SweAgent,
        [
            "fixtures/formats/swe-agent-editor.traj",
            "fixtures/formats/swe-agent-function-calling.traj",
            "fixtures/formats/swe-agent-plain.traj",
            "fixtures/formats/bad-unknown-role.traj",
        ]
    ),
    importer!(
        "import_aider",
        Format::Aider,
        [
            "fixtures/formats/aider-history.md",
            "fixtures/formats/aider-page.md",
        ]
    ),
    importer!(
        "import_openai",
        Format::OpenAi,
        [
            "fixtures/formats/openai-array.json",
            "fixtures/formats/openai-object.json",
            "fixtures/formats/bad-missing-role.json",
        ]
    ),
    importer!(
        "import_anthropic",
        Format::Anthropic,
        ["fixtures/formats/anthropic"]
    ),
    importer!(
        "import_responses",
        Format::Responses,
        ["fixtures/formats/responses"]
    ),
    Target {
        name: "import_structured",
        run: import::structured,
        seeds: &[],
    },
    Target {
        name: "projection",
        run: session::projection,
        seeds: &[],
    },
    Target {
        name: "intrinsics",
        run: session::intrinsics,
        seeds: &[],
    },
    Target {
        name: "search",
        run: session::search,
        seeds: &[],
    },
    Target {
        name: "store",
        run: readers::store,
        seeds: &[],
    },
    Target {
        name: "session_dir",
        run: readers::session_dir,
        seeds: &[],
    },
    Target {
        name: "stub",
        run: text::stub,
        seeds: &[],
    },
    Target {
        name: "terminal",
        run: text::terminal,
        seeds: &[],
    },
    Target {
        name: "patch",
        run: text::patch,
        seeds: &[],
    },
    Target {
        name: "evidence",
        run: text::evidence,
        seeds: &["fixtures/formats"],
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
