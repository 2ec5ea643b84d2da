//! Reading and importing a session file.

use std::path::Path;

use rehydrate_formats::{Format, Import, Warning};

use crate::failure::{Failure, input};

/// Reads and imports `path`, printing each import warning on stderr ([`print_warnings`]).
pub(crate) fn import(path: &Path, format: Option<Format>) -> Result<Import, Failure> {
    let bytes = read(path)?;
    let imported = rehydrate_formats::import(path, &bytes, format)?;
    print_warnings(path, &imported.warnings);
    Ok(imported)
}

/// The bytes of the session file `path`.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))
}

/// Prints each import warning on stderr as `warning: <path>: <warning>`.
pub(crate) fn print_warnings(path: &Path, warnings: &[Warning]) {
    for w in warnings {
        let mut line = String::new();
        crate::commands::push_printable(&mut line, &w.to_string(), true);
        eprintln!("warning: {}: {line}", path.display());
    }
}
