//! Printing to stdout, and the helpers the subcommands share for it.

use std::io::Write as _;

use crate::failure::{Failure, input};

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let mut bytes = serde_json::to_vec(value).expect("reports always serialize");
    bytes.push(b'\n');
    print_stdout(&bytes)
}

/// Writes to stdout. A closed pipe (`rehydrate expand ... | head`) is not an error; any other
/// write error (a full disk) is.
pub(crate) fn print_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(input(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
