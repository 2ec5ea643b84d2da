//! Reading and importing a session file.

use std::path::Path;

use rehydrate_formats::{Format, Import};

use crate::failure::{Failure, input};

/// Reads and imports `path`, printing each import warning on stderr as
/// `warning: <path>: <warning>`.
pub(crate) fn import(path: &Path, format: Option<Format>) -> Result<Import, Failure> {
    let bytes =
        std::fs::read(path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))?;
    let imported = rehydrate_formats::import(path, &bytes, format)?;
    for w in &imported.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(imported)
}
