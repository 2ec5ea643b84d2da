//! The dispatch from the parsed command line to each subcommand's file.

use rehydrate::formats::Format;
use rehydrate::search::{SearchMode, SearchOptions};

use crate::cli::{Cli, Command};
use crate::failure::Failure;
use crate::{
    cost, discover, evidence, expand, export, inspect, intrinsics, mcp, reduce, repair, replay,
    roundtrip, search, signals, verify,
};

pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Reduce(args) => reduce::reduce(&args),
        Command::Expand { dir, id, range } => expand::expand(&dir, &id, range.as_deref()),
        Command::Search {
            dir,
            query,
            regex,
            literal,
            case_sensitive,
            json,
        } => {
            let mode = match (regex, literal) {
                (true, _) => SearchMode::Regex,
                (_, true) => SearchMode::Literal,
                _ => SearchMode::Auto,
            };
            let options = SearchOptions {
                mode,
                case_sensitive,
                ..SearchOptions::default()
            };
            search::search(&dir, &query, &options, json)
        }
        Command::Verify { dir, json } => verify::verify(&dir, json),
        Command::Repair { dir } => repair::repair(&dir),
        Command::Export {
            dir,
            to,
            view,
            strict,
            json,
        } => export::run(&dir, to, view, strict, json),
        Command::Signals { dir, json } => signals::run(&dir, json),
        Command::Tools { format } => intrinsics::tools(format.format()),
        Command::Mcp {
            session,
            transcript,
            claude_code,
            codex,
            cwd,
            format,
            preset,
        } => {
            // The server exists to reach what the agent's compaction removed: its search
            // covers the messages before a compaction only when the view follows it.
            let policy = Box::new(rehydrate::reduce::ReductionPolicy {
                follow_compactions: true,
                ..preset.policy()
            });
            let agent = match (claude_code, codex) {
                (true, _) => Some((discover::Agent::ClaudeCode, Format::ClaudeCode)),
                (_, true) => Some((discover::Agent::Codex, Format::Codex)),
                _ => None,
            };
            let source = match (session, transcript, agent) {
                (Some(dir), _, _) => mcp::Source::Session(dir),
                (None, Some(path), _) => mcp::Source::Transcript {
                    path,
                    format: format.format(),
                    policy,
                },
                (None, None, Some((agent, agent_format))) => {
                    let cwd = match cwd {
                        Some(cwd) => cwd,
                        None => std::env::current_dir().map_err(|e| {
                            Failure::Input(format!(
                                "rehydrate mcp: cannot read the working directory: {e}"
                            ))
                        })?,
                    };
                    let path = discover::find(agent, &cwd)?;
                    eprintln!("rehydrate mcp: serving {}", path.display());
                    mcp::Source::Transcript {
                        path,
                        format: Some(agent_format),
                        policy,
                    }
                }
                (None, None, None) => {
                    return Err(Failure::Input(
                        "rehydrate mcp: give --session DIR, --transcript FILE, --claude-code or --codex"
                            .to_owned(),
                    ));
                }
            };
            mcp::run(source)
        }
        Command::Call {
            dir,
            tool,
            arguments,
        } => intrinsics::call(&dir, &tool, &arguments),
        Command::Inspect {
            transcript,
            input,
            json,
        } => inspect::inspect(&transcript, input.pick(), json),
        Command::Replay {
            transcript,
            input,
            json,
        } => replay::run(&transcript, input.pick(), json),
        Command::Evidence {
            transcript,
            input,
            max_input_bytes,
            json,
        } => evidence::run(&transcript, input.pick(), max_input_bytes, json),
        Command::Cost {
            transcript,
            input,
            preset,
            pricing,
            json,
            plot,
        } => cost::run(
            &transcript,
            input.pick(),
            preset,
            &pricing,
            json,
            plot.as_deref(),
        ),
        Command::Roundtrip {
            transcript,
            input,
            preset,
            json,
            all_sessions,
        } => roundtrip::roundtrip(&transcript, input.pick(), preset, json, all_sessions),
    }
}
