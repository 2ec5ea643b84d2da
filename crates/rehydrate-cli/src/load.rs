//! Reading and importing a session file.

use std::path::Path;

use rehydrate::formats::{Format, Import, Warning};

use crate::failure::{Failure, input};
use crate::term::{push_printable, shown};

/// Which session of which format to read: `--format` and `--session`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pick {
    /// The format, or `None` to detect it.
    pub(crate) format: Option<Format>,
    /// The session's number in a file that holds several (from 1), or `None`.
    pub(crate) session: Option<usize>,
}

/// Reads and imports `path`, printing each import warning on stderr ([`print_warnings`]).
pub(crate) fn import(path: &Path, pick: Pick) -> Result<Import, Failure> {
    Ok(import_with_bytes(path, pick)?.0)
}

/// [`import`], also giving the bytes read (for the write-back check of `inspect` and
/// `roundtrip`).
pub(crate) fn import_with_bytes(path: &Path, pick: Pick) -> Result<(Import, Vec<u8>), Failure> {
    let bytes = read(path)?;
    let imported = import_bytes(path, &bytes, pick)?;
    Ok((imported, bytes))
}

/// Imports the bytes read from `path`, printing each warning like [`import`].
pub(crate) fn import_bytes(path: &Path, bytes: &[u8], pick: Pick) -> Result<Import, Failure> {
    let imported =
        rehydrate::formats::import_session(name(path), bytes, pick.format, pick.session)?;
    print_warnings(path, &imported.warnings);
    Ok(imported)
}

/// Reads and imports `path` only to find out whether it imports, printing each warning like
/// [`import`], without keeping a message: each is dropped as it is read.
pub(crate) fn check(path: &Path, pick: Pick) -> Result<(), Failure> {
    let bytes = read(path)?;
    let warnings = match pick.session {
        None => rehydrate::formats::import_each(name(path), &bytes, pick.format, &mut drop)?.1,
        Some(_) => {
            rehydrate::formats::import_session(name(path), &bytes, pick.format, pick.session)?
                .warnings
        }
    };
    print_warnings(path, &warnings);
    Ok(())
}

/// The session path `-`, which reads the session from stdin.
const STDIN: &str = "-";

/// How errors and warnings name the session `path`: `<stdin>` for `-`.
pub(crate) fn name(path: &Path) -> &Path {
    if path == Path::new(STDIN) {
        Path::new("<stdin>")
    } else {
        path
    }
}

/// The bytes of the session file `path`, or of stdin for `-`.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    if path == Path::new(STDIN) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .map_err(|e| input(format!("cannot read the session from stdin: {e}")))?;
        return Ok(bytes);
    }
    // A device (`/dev/zero`) or a directory is no session and could be read without end;
    // a FIFO (`<(...)`) ends when its writer does.
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::FileTypeExt as _;
        let kind = meta.file_type();
        if !kind.is_file() && !kind.is_fifo() {
            return Err(input(format!(
                "{}: not a regular file or a pipe (a directory, socket or device); not read",
                shown(path)
            )));
        }
    }
    std::fs::read(path).map_err(|e| input(format!("cannot read {}: {e}", shown(path))))
}

/// Prints each import warning on stderr as `warning: <path>: <warning>`.
pub(crate) fn print_warnings(path: &Path, warnings: &[Warning]) {
    for line in warning_lines(path, warnings) {
        eprintln!("{line}");
    }
}

/// The lines [`print_warnings`] prints, without their line breaks.
pub(crate) fn warning_lines(path: &Path, warnings: &[Warning]) -> impl Iterator<Item = String> {
    let shown_path = shown(name(path));
    warnings.iter().map(move |w| {
        let mut line = format!("warning: {shown_path}: ");
        push_printable(&mut line, &w.to_string(), true);
        line
    })
}
