//! `rehydrate`: reduce agent session files reversibly, expand what was reduced, verify, inspect.
//!
//! Exit codes: 0 success, 1 verification failure (or a tool error of `call`, whose text is on
//! stdout), 2 usage or bad input, 3 evidence over its size limit, 4 divergence signals that say
//! freeze, 5 some of several session files `reduce` was given failed. Errors are one line on
//! stderr. The command-line contract is documented in
//! docs/FORMATS.md ("CLI JSON").

#![forbid(unsafe_code)]

mod checks;
mod cli;
mod commands;
mod cost;
mod discover;
mod evidence;
mod expand;
mod export;
mod failure;
mod inspect;
mod intrinsics;
mod load;
mod mcp;
mod output;
mod plot;
mod reduce;
mod repair;
mod replay;
mod roundtrip;
mod savings;
mod search;
mod signals;
mod term;
mod tokens;
mod verify;

#[cfg(test)]
mod tests;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `rehydrate` alone: the help, on stderr, as a usage error.
            let _ = write!(std::io::stderr(), "{e}");
            return ExitCode::from(2);
        }
        Err(e) if e.use_stderr() => {
            // A usage error is one line, like every other error; `--help` has the rest.
            // clap's first paragraph, joined: it can list what is missing on its own lines.
            let text = e.to_string();
            let paragraph: Vec<&str> = text
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect();
            let joined = paragraph.join(" ");
            let first = joined.strip_prefix("error: ").unwrap_or(&joined);
            let first = if first.is_empty() {
                "invalid usage"
            } else {
                first
            };
            eprintln!("error: {first} (see rehydrate --help)");
            return ExitCode::from(2);
        }
        Err(e) => {
            // Help and version go to stdout with exit 0, if stdout takes them.
            return match output::print_stdout(e.to_string().as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(failure) => {
                    for line in failure.lines() {
                        eprintln!("error: {line}");
                    }
                    ExitCode::from(failure.exit_code())
                }
            };
        }
    };
    match commands::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            let mut stderr = std::io::stderr().lock();
            for line in failure.lines() {
                // Errors quote session text (call ids, paths): its control characters are
                // escaped, so an error stays one line and cannot drive the terminal.
                let mut printable = String::with_capacity(line.len());
                term::push_printable(&mut printable, &line, true);
                let _ = writeln!(stderr, "error: {printable}");
            }
            ExitCode::from(failure.exit_code())
        }
    }
}
