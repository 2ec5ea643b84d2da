//! Printing to stdout, and the helpers the subcommands share for it.

use std::io::Write as _;
use std::path::Path;

use crate::failure::{Failure, input};

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let mut bytes = serde_json::to_vec(value).expect("reports always serialize");
    bytes.push(b'\n');
    print_stdout(&bytes)
}

/// Whether the process was started with stdout closed (`>&-`). The Rust runtime opens
/// `/dev/null` read-write in place of a closed standard descriptor, so every write would
/// succeed and be lost; a `/dev/null` the shell opened for `>/dev/null` is write-only. Read
/// from `/proc` (Linux); elsewhere `false`.
pub(crate) fn stdout_is_closed() -> bool {
    let target = std::fs::read_link("/proc/self/fd/1");
    if !target.is_ok_and(|t| t == Path::new("/dev/null")) {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    // `flags:` is octal; the access mode is its low two bits (2 = O_RDWR).
    info.lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
        .is_some_and(|flags| flags & 0o3 == 0o2)
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
