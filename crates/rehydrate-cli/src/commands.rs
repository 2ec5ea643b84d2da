//! The dispatch from the parsed command line to each subcommand's file.

use rehydrate::search::{SearchMode, SearchOptions};

use crate::cli::{Cli, Command};
use crate::failure::Failure;
use crate::{
    cost, evidence, expand, export, inspect, intrinsics, mcp, reduce, repair, replay, roundtrip,
    search, signals, verify,
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
            format,
            preset,
        } => {
            let source = match (session, transcript) {
                (Some(dir), _) => mcp::Source::Session(dir),
                (None, Some(path)) => mcp::Source::Transcript {
                    path,
                    format: format.format(),
                    policy: Box::new(preset.policy()),
                },
                (None, None) => {
                    return Err(Failure::Input(
                        "rehydrate mcp: give --session DIR or --transcript FILE".to_owned(),
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
            format,
            json,
        } => inspect::inspect(&transcript, format.format(), json),
        Command::Replay {
            transcript,
            format,
            json,
        } => replay::run(&transcript, format.format(), json),
        Command::Evidence {
            transcript,
            format,
            max_input_bytes,
            json,
        } => evidence::run(&transcript, format.format(), max_input_bytes, json),
        Command::Cost {
            transcript,
            format,
            preset,
            pricing,
            json,
            plot,
        } => cost::run(
            &transcript,
            format.format(),
            preset,
            &pricing,
            json,
            plot.as_deref(),
        ),
        Command::Roundtrip {
            transcript,
            format,
            preset,
            json,
        } => roundtrip::roundtrip(&transcript, format.format(), preset, json),
    }
}
