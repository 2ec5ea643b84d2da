//! `rehydrate expand`: the exact original bytes of a reduction.

use std::path::Path;

use rehydrate::sidecar::expand_reduction;
use rehydrate::store::SessionDir;

use crate::failure::{Failure, input};
use crate::output::print_stdout;
use crate::term::shown;

fn parse_range(text: &str) -> Result<(usize, usize), Failure> {
    let bad = || {
        input(format!(
            "invalid --range `{text}`: expected START..END with byte offsets, such as 0..4096"
        ))
    };
    let (start, end) = text.split_once("..").ok_or_else(bad)?;
    Ok((
        start.trim().parse().map_err(|_| bad())?,
        end.trim().parse().map_err(|_| bad())?,
    ))
}

pub(crate) fn expand(dir: &Path, id: &str, range: Option<&str>) -> Result<(), Failure> {
    let range = range.map(parse_range).transpose()?;
    let loaded = SessionDir::open(dir)?;
    loaded.refuse_mismatched()?;
    let out = expand_reduction(&loaded.log, &loaded.sidecar, id, range).map_err(|e| {
        // The id and range are the caller's: the error names the directory they were tried on.
        match Failure::from(e) {
            Failure::Input(line) => input(format!("{}: {line}", shown(dir))),
            other => other,
        }
    })?;
    print_stdout(out.content.as_bytes())
}
