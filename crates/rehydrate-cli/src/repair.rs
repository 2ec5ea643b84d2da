//! `rehydrate repair`: a directory whose store was cut short, restored.

use std::path::Path;

use rehydrate::store::SessionDir;

use crate::failure::Failure;
use crate::output::print_stdout;
use crate::term::shown;

pub(crate) fn repair(dir: &Path) -> Result<(), Failure> {
    let rehydrate::store::dir::Repaired {
        lines,
        reductions,
        messages,
    } = SessionDir::repair(dir)?;
    let mut out = String::new();
    if lines.is_empty() {
        out.push_str(&format!("{}: nothing to repair\n", shown(dir)));
    }
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&format!(
        "{}: verified: {reductions} {}, the view inverts to the sidecar's {messages} messages\n",
        shown(dir),
        if reductions == 1 {
            "reduction"
        } else {
            "reductions"
        }
    ));
    print_stdout(out.as_bytes())
}
