//! The Layers table of docs/ARCHITECTURE.md, checked by `cargo xtask layers`: one row per crate
//! under `crates/`, the layer [`LAYERS`](crate::layers) gives it, and a dependency column equal
//! to its manifest (from `cargo metadata`).
//!
//! The table is the first one in the `## Layers` section with the header
//! `| layer | crate | may depend on |`. In each row:
//!
//! - `layer` is a number;
//! - `crate` is the package name in backticks, optionally followed by a note in parentheses;
//! - `may depend on` follows this grammar (spaces around the punctuation are free):
//!
//! ```text
//! cell  = list [ "(dev-only:" list ")" ]
//! list  = "none" | entry { "," entry }
//! entry = name [ "(" note ")" ]
//! ```
//!
//! A `name` is a workspace crate's short name (`model` for `rehydrate-model`; a crate without
//! the `rehydrate-` prefix by its whole name) or another crate's package name, optionally in
//! backticks. A note says why and is not checked; it may hold parentheses but no unbalanced
//! ones. The first list must equal the crate's normal and build dependencies, the `dev-only`
//! list (empty when left out) its dev-dependencies; the order is free.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::Result;
use crate::cmd;
use crate::layers;

/// The file holding the table, relative to the workspace root.
pub(crate) const DOC: &str = "docs/ARCHITECTURE.md";

/// The section holding the table.
const SECTION: &str = "## Layers";

/// The table's header cells.
const HEADER: [&str; 3] = ["layer", "crate", "may depend on"];

/// The prefix of workspace crates' names that short names leave out.
const PREFIX: &str = "rehydrate-";

/// A row of the table that cannot be read.
#[derive(Debug)]
struct BadRow {
    /// The 1-based line number in [`DOC`].
    line: usize,
    /// The crate, when its cell could be read.
    krate: Option<String>,
    error: String,
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    /// The 1-based line number in [`DOC`].
    line: usize,
    layer: usize,
    krate: String,
    /// The names the first list gives, as written (short names not yet resolved).
    deps: Vec<String>,
    /// The names the `dev-only` list gives, as written.
    dev_deps: Vec<String>,
}

/// Checks the Layers table in `doc` (the text of [`DOC`]) against `metadata` (cargo metadata
/// JSON) and [`LAYERS`](crate::layers).
///
/// Returns one line per difference, in row order, then the crates without a row.
///
/// # Errors
///
/// When `metadata` lacks a field the check needs.
pub(crate) fn check(doc: &str, metadata: &Value) -> Result<Vec<String>> {
    let crates = layers::workspace_crates(metadata)?;
    let mut names: Vec<&str> = crates.iter().map(|&(name, _)| name).collect();
    names.sort_unstable();
    let mut lines = Vec::new();
    let rows = match rows(doc) {
        Ok(rows) => rows,
        Err(error) => return Ok(vec![error]),
    };
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for row in &rows {
        let row = match row {
            Ok(row) => row,
            Err(bad) => {
                lines.push(format!(
                    "{DOC}:{}: cannot read the row: {}",
                    bad.line, bad.error
                ));
                if let Some(krate) = &bad.krate {
                    seen.push((krate, bad.line));
                }
                continue;
            }
        };
        let at = |text: String| format!("{DOC}:{}: {text}", row.line);
        let krate = row.krate.as_str();
        let Some(&(_, package)) = crates.iter().find(|&&(name, _)| name == krate) else {
            lines.push(at(format!(
                "the Layers table has a row for {krate}, which is not a workspace crate under crates/"
            )));
            continue;
        };
        if let Some(&(_, first)) = seen.iter().find(|&&(name, _)| name == krate) {
            lines.push(at(format!(
                "{krate} has a second row in the Layers table (the first is on line {first})"
            )));
            continue;
        }
        seen.push((krate, row.line));
        match layers::layer_of(krate) {
            Some(layer) if layer == row.layer => {}
            Some(layer) => lines.push(at(format!(
                "{krate}: the row says layer {}, xtask/src/layers.rs says layer {layer}",
                row.layer
            ))),
            None => lines.push(at(format!(
                "{krate}: the row says layer {}, xtask/src/layers.rs has no layer for it",
                row.layer
            ))),
        }
        let mut normal = BTreeSet::new();
        let mut dev = BTreeSet::new();
        for dep in cmd::array(package, "dependencies") {
            let dep_name = cmd::string(dep, "name", krate)?;
            if dep["kind"].as_str() == Some("dev") {
                dev.insert(dep_name);
            } else {
                normal.insert(dep_name);
            }
        }
        let resolve = |listed: &[String]| -> BTreeSet<String> {
            listed
                .iter()
                .map(|name| {
                    let long = format!("{PREFIX}{name}");
                    if names.contains(&long.as_str()) {
                        long
                    } else {
                        name.clone()
                    }
                })
                .collect()
        };
        let what = [
            ("dependency", "the row", normal, resolve(&row.deps)),
            (
                "dev-dependency",
                "the row's dev-only list",
                dev,
                resolve(&row.dev_deps),
            ),
        ];
        for (kind, list, actual, listed) in what {
            for name in &actual {
                if !listed.contains(*name) {
                    lines.push(at(format!(
                        "{krate}: Cargo.toml has the {kind} {name}, {list} does not"
                    )));
                }
            }
            for name in &listed {
                if !actual.contains(name.as_str()) {
                    lines.push(at(format!(
                        "{krate}: {list} has the {kind} {name}, Cargo.toml does not"
                    )));
                }
            }
        }
    }
    for name in names {
        if !seen.iter().any(|&(krate, _)| krate == name) {
            lines.push(format!("{DOC}: {name} has no row in the Layers table"));
        }
    }
    Ok(lines)
}

/// The rows of the Layers table in `doc`, read or not.
///
/// # Errors
///
/// The line to report when `doc` has no such table.
fn rows(doc: &str) -> std::result::Result<Vec<std::result::Result<Row, BadRow>>, String> {
    let lines: Vec<(usize, &str)> = doc
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .skip_while(|&(_, line)| line.trim_end() != SECTION)
        .skip(1)
        .take_while(|&(_, line)| !line.starts_with("## "))
        .collect();
    let header = lines
        .iter()
        .position(|&(_, line)| line.trim_start().starts_with('|') && cells(line) == HEADER);
    let header = header.ok_or_else(|| {
        format!(
            "{DOC}: no table with the header `| {} |` in the `{SECTION}` section",
            HEADER.join(" | ")
        )
    })?;
    // The header, then the `|---|` line, then the rows up to the first line not in the table.
    Ok(lines[header + 1..]
        .iter()
        .skip(1)
        .take_while(|&&(_, text)| text.trim_start().starts_with('|'))
        .map(|&(line, text)| row(line, text))
        .collect())
}

/// The trimmed cells of a table line (`| a | b |` gives `a`, `b`).
fn cells(line: &str) -> Vec<&str> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    line.split('|').map(str::trim).collect()
}

/// Reads the table line `text` on line `line`.
fn row(line: usize, text: &str) -> std::result::Result<Row, BadRow> {
    let bad = |krate: Option<&str>, error: String| BadRow {
        line,
        krate: krate.map(str::to_owned),
        error,
    };
    let [layer, krate, deps] = cells(text)[..] else {
        return Err(bad(
            None,
            format!("it has {} cells, not 3", cells(text).len()),
        ));
    };
    let krate = krate
        .strip_prefix('`')
        .and_then(|rest| rest.split_once('`'))
        .filter(|(name, rest)| is_name(name) && (rest.is_empty() || note(rest).is_some()))
        .map(|(name, _)| name.to_owned())
        .ok_or_else(|| {
            bad(
                None,
                format!("the crate cell `{krate}` is not a name in backticks and an optional note"),
            )
        })?;
    let layer = layer
        .parse()
        .map_err(|_| bad(Some(&krate), format!("the layer `{layer}` is not a number")))?;
    let (deps, dev_deps) = list(deps, true).map_err(|error| bad(Some(&krate), error))?;
    Ok(Row {
        line,
        layer,
        krate,
        deps,
        dev_deps: dev_deps.unwrap_or_default(),
    })
}

/// Whether `rest` is ` (note)`: a parenthesized note and nothing after it.
fn note(rest: &str) -> Option<&str> {
    let (groups, tail) = groups(rest).ok()?;
    (tail.is_empty() && groups.len() == 1).then(|| groups[0])
}

/// Reads `text` as a `list`, and when `dev_allowed` an optional `(dev-only: list)` after it:
/// the names of the list and those of the dev-only list if there is one.
fn list(
    text: &str,
    dev_allowed: bool,
) -> std::result::Result<(Vec<String>, Option<Vec<String>>), String> {
    let entries = split_top_level(text)?;
    let mut names = Vec::new();
    let mut dev = None;
    let count = entries.len();
    for (index, entry) in entries.into_iter().enumerate() {
        let (name, rest) = entry
            .split_once('(')
            .map_or((entry, ""), |(name, _)| (name, &entry[name.len()..]));
        let (groups, tail) = groups(rest)?;
        if !tail.is_empty() {
            return Err(format!("`{tail}` follows the notes of `{}`", name.trim()));
        }
        for (at, group) in groups.iter().enumerate() {
            let Some(dev_list) = group.trim_start().strip_prefix("dev-only:") else {
                continue;
            };
            if !dev_allowed {
                return Err("a dev-only list inside a dev-only list".to_owned());
            }
            if index + 1 != count || at + 1 != groups.len() {
                return Err("the dev-only list must come last".to_owned());
            }
            dev = Some(list(dev_list, false)?.0);
        }
        let name = name.trim();
        let name = name
            .strip_prefix('`')
            .and_then(|name| name.strip_suffix('`'))
            .unwrap_or(name);
        if !is_name(name) {
            return Err(format!("`{name}` is not a crate name"));
        }
        names.push(name.to_owned());
    }
    match names.iter().position(|name| name == "none") {
        Some(_) if names.len() == 1 => names.clear(),
        Some(_) => return Err("`none` must be the whole list".to_owned()),
        None => {}
    }
    Ok((names, dev))
}

/// Splits `text` at the commas outside parentheses.
fn split_top_level(text: &str) -> std::result::Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("unbalanced `)` in `{text}`"))?;
            }
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced `(` in `{text}`"));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// The contents of the parenthesized groups `text` starts with (spaces between them free), and
/// the trimmed text after the last one.
fn groups(text: &str) -> std::result::Result<(Vec<&str>, &str), String> {
    let mut groups = Vec::new();
    let mut rest = text.trim();
    while rest.starts_with('(') {
        let mut depth = 0usize;
        let mut end = None;
        for (at, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("unbalanced `(` in `{text}`"))?;
        groups.push(&rest[1..end]);
        rest = rest[end + 1..].trim();
    }
    Ok((groups, rest))
}

/// Whether `name` can be a package name: ASCII letters, digits, `-` and `_`.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `cargo xtask layers`' part: reads [`DOC`] under `root` and checks its Layers table.
pub(crate) fn check_file(root: &Path, metadata: &Value) -> Result<Vec<String>> {
    let path = root.join(DOC);
    let doc = std::fs::read_to_string(&path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    check(&doc, metadata)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{check, list};
    use crate::Result;

    /// A package under `/ws/crates/` with `deps` as `(name, kind)` pairs.
    fn package(name: &str, deps: &[(&str, Option<&str>)]) -> Value {
        let dependencies: Vec<Value> = deps
            .iter()
            .map(|(dep, kind)| json!({ "name": dep, "kind": kind }))
            .collect();
        json!({
            "name": name,
            "manifest_path": format!("/ws/crates/{name}/Cargo.toml"),
            "dependencies": dependencies,
        })
    }

    /// A workspace of model, sidecar and formats, plus xtask (which needs no row).
    fn metadata(extra: Vec<Value>) -> Value {
        let mut packages = vec![
            package(
                "rehydrate-model",
                &[("serde", None), ("proptest", Some("dev"))],
            ),
            package(
                "rehydrate-sidecar",
                &[
                    ("rehydrate-model", None),
                    ("blake3", None),
                    ("cc", Some("build")),
                    ("rehydrate-formats", Some("dev")),
                ],
            ),
            package("rehydrate-formats", &[("insta", Some("dev"))]),
            json!({
                "name": "xtask",
                "manifest_path": "/ws/xtask/Cargo.toml",
                "dependencies": [{ "name": "serde_json", "kind": null }],
            }),
        ];
        packages.extend(extra);
        json!({ "workspace_root": "/ws", "packages": packages })
    }

    /// A doc whose Layers section holds `rows` under the table header.
    fn doc(rows: &str) -> String {
        format!(
            "# Architecture\n\n| layer | crate | may depend on |\n|---|---|---|\n| 9 | `x` | y |\n\n\
             ## Layers\n\nText.\n\n| layer | crate | may depend on |\n|---|---|---|\n{rows}\n\
             After the table.\n\n## Code map\n\n| 0 | `rehydrate-nowhere` | none |\n"
        )
    }

    #[test]
    fn matching_rows_pass() -> Result<()> {
        let rows = "\
| 0 | `rehydrate-model` | serde (dev-only: proptest) |
| 2 | `rehydrate-sidecar` | model, blake3 (a note (nested), with commas), `cc` (dev-only: formats (fixtures)) |
| 1 | `rehydrate-formats` (`publish = false`) | none (dev-only: insta) |";
        assert_eq!(check(&doc(rows), &metadata(vec![]))?, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn differences_fail() -> Result<()> {
        let rows = "\
| 1 | `rehydrate-model` | serde, serde_json (dev-only: proptest) |
| 2 | `rehydrate-sidecar` | model, cc (dev-only: formats, insta) |
| 2 | `rehydrate-sidecar` | model |
| 1 | `rehydrate-gone` | model |
| 2 | `rehydrate-unlisted` | none |
| 2 | `rehydrate-reduce` | model, sidecar only |";
        let extra = vec![
            package("rehydrate-unlisted", &[]),
            package("rehydrate-reduce", &[("rehydrate-model", None)]),
            package("rehydrate-search", &[]),
        ];
        assert_eq!(
            check(&doc(rows), &metadata(extra))?,
            [
                "docs/ARCHITECTURE.md:13: rehydrate-model: the row says layer 1, \
                 xtask/src/layers.rs says layer 0",
                "docs/ARCHITECTURE.md:13: rehydrate-model: the row has the dependency \
                 serde_json, Cargo.toml does not",
                "docs/ARCHITECTURE.md:14: rehydrate-sidecar: Cargo.toml has the dependency \
                 blake3, the row does not",
                "docs/ARCHITECTURE.md:14: rehydrate-sidecar: the row's dev-only list has the \
                 dev-dependency insta, Cargo.toml does not",
                "docs/ARCHITECTURE.md:15: rehydrate-sidecar has a second row in the Layers \
                 table (the first is on line 14)",
                "docs/ARCHITECTURE.md:16: the Layers table has a row for rehydrate-gone, which \
                 is not a workspace crate under crates/",
                "docs/ARCHITECTURE.md:17: rehydrate-unlisted: the row says layer 2, \
                 xtask/src/layers.rs has no layer for it",
                "docs/ARCHITECTURE.md:18: cannot read the row: `sidecar only` is not a crate name",
                "docs/ARCHITECTURE.md: rehydrate-formats has no row in the Layers table",
                "docs/ARCHITECTURE.md: rehydrate-search has no row in the Layers table",
            ]
        );
        Ok(())
    }

    #[test]
    fn a_missing_table_fails() -> Result<()> {
        let text = "# Architecture\n\n## Layers\n\nNo table.\n\n## Code map\n\n\
                    | layer | crate | may depend on |\n|---|---|---|\n";
        assert_eq!(
            check(text, &metadata(vec![]))?,
            ["docs/ARCHITECTURE.md: no table with the header \
              `| layer | crate | may depend on |` in the `## Layers` section"]
        );
        Ok(())
    }

    #[test]
    fn the_grammar() {
        let names = |names: &[&str]| names.iter().map(|&n| n.to_owned()).collect::<Vec<_>>();
        assert_eq!(
            list(
                " model , `serde_json` (why (really), and how),memchr (dev-only: a, b (c)) ",
                true
            ),
            Ok((
                names(&["model", "serde_json", "memchr"]),
                Some(names(&["a", "b"]))
            ))
        );
        assert_eq!(list("none", true), Ok((vec![], None)));
        assert_eq!(
            list("none (dev-only: none)", true),
            Ok((vec![], Some(vec![])))
        );
        let error = |text: &str| list(text, true).err();
        assert_eq!(
            error("a (dev-only: b), c").as_deref(),
            Some("the dev-only list must come last")
        );
        assert_eq!(
            error("a (dev-only: b) (note)").as_deref(),
            Some("the dev-only list must come last")
        );
        assert_eq!(
            error("a (dev-only: b (dev-only: c))").as_deref(),
            Some("a dev-only list inside a dev-only list")
        );
        assert_eq!(
            error("none, a").as_deref(),
            Some("`none` must be the whole list")
        );
        assert_eq!(error("a (b").as_deref(), Some("unbalanced `(` in `a (b`"));
        assert_eq!(error("a) b").as_deref(), Some("unbalanced `)` in `a) b`"));
        assert_eq!(
            error("a (note) b").as_deref(),
            Some("`b` follows the notes of `a`")
        );
        assert_eq!(error("a,, b").as_deref(), Some("`` is not a crate name"));
        assert_eq!(
            error("everything below").as_deref(),
            Some("`everything below` is not a crate name")
        );
    }
}
