//! The layering check: workspace crates depend only on crates of a lower layer.
//!
//! The allowed layers, mirrored in the Layers table of docs/ARCHITECTURE.md (whose layer and
//! dependency columns `architecture.rs` checks):
//!
//! | layer | crates                                                                 |
//! |-------|------------------------------------------------------------------------|
//! | 0     | rehydrate-model                                                        |
//! | 1     | rehydrate-formats, rehydrate-test-support                              |
//! | 2     | rehydrate-sidecar                                                      |
//! | 3     | rehydrate-reduce, rehydrate-search, rehydrate-replay, rehydrate-store  |
//! | 4     | rehydrate-evidence, rehydrate-intrinsics, rehydrate-signals, rehydrate-cost |
//! | 5     | rehydrate (the facade)                                                 |
//! | 6     | rehydrate-cli, rehydrate-fuzz, rehydrate-py                            |
//! | 7     | rehydrate-bench                                                        |
//!
//! Rules, checked against `cargo metadata --format-version 1 --no-deps`:
//!
//! - every package under `crates/` is in [`LAYERS`];
//! - a normal or build dependency on another workspace crate points to a strictly lower layer,
//!   so crates on one layer never depend on each other;
//! - a dev-dependency never points to a higher layer (tests may use a same-layer crate for fixtures);
//! - rehydrate-model does no hashing and no I/O: its non-dev dependencies are within
//!   [`MODEL_ALLOWED_DEPS`];
//! - the Layers table of docs/ARCHITECTURE.md agrees with [`LAYERS`] and the manifests
//!   (`architecture.rs`);
//! - [`TEST_SUPPORT`] is a dev-dependency only: no crate has it as a normal or build dependency.

use std::path::Path;

use serde_json::Value;

use crate::Result;
use crate::{architecture, cmd};

/// The allowed layers, lowest first: `LAYERS[n]` lists the crates of layer `n`.
///
/// To add a crate, append it to its layer (or push a new layer); keep docs/ARCHITECTURE.md in step.
const LAYERS: &[&[&str]] = &[
    // layer 0
    &["rehydrate-model"],
    // layer 1: the format codecs (every byte layout, the APIs' rules) and the test helpers
    &["rehydrate-formats", "rehydrate-test-support"],
    // layer 2: hashing, verification, inversion, the leak guard (writes through the codecs)
    &["rehydrate-sidecar"],
    // layer 3 (the store verifies through the sidecar)
    &[
        "rehydrate-reduce",
        "rehydrate-search",
        "rehydrate-replay",
        "rehydrate-store",
    ],
    // layer 4 (signals read the store; cost replays the reducer)
    &[
        "rehydrate-evidence",
        "rehydrate-intrinsics",
        "rehydrate-signals",
        "rehydrate-cost",
    ],
    // layer 5: the facade, which re-exports the crates below and wires them in `Session`
    &["rehydrate"],
    // layer 6: the two front ends over the facade, the binary and the Python extension, and
    // the fuzz targets, which drive the facade's crates as a host would
    &["rehydrate-cli", "rehydrate-fuzz", "rehydrate-py"],
    // layer 7: benchmarks, which may depend on everything (and alone on the peer)
    &["rehydrate-bench"],
];

/// The crate whose external dependencies are restricted.
const MODEL: &str = "rehydrate-model";

/// The only non-dev dependencies [`MODEL`] may have.
const MODEL_ALLOWED_DEPS: &[&str] = &["serde", "serde_json", "thiserror"];

/// The crate of shared test helpers, which crates may only have as a dev-dependency.
const TEST_SUPPORT: &str = "rehydrate-test-support";

/// The layer of `name` in [`LAYERS`], if it is there.
pub(crate) fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&name))
}

/// The outcome of the check for one workspace crate.
#[derive(Debug)]
struct CrateCheck {
    name: String,
    /// `None` when the crate is not in [`LAYERS`].
    layer: Option<usize>,
    /// One line per violation; empty when the crate is ok.
    errors: Vec<String>,
}

/// Checks every package under `<workspace_root>/crates/` in `metadata` (cargo metadata JSON).
///
/// Returns one entry per crate, sorted by layer then name (unknown crates last).
///
/// # Errors
///
/// When `metadata` lacks a field the check needs (`workspace_root`, a package's `name` or
/// `manifest_path`, a dependency's `name`).
fn check(metadata: &Value) -> Result<Vec<CrateCheck>> {
    let workspace_crates = workspace_crates(metadata)?;
    let is_workspace_crate = |dep: &str| workspace_crates.iter().any(|(name, _)| *name == dep);

    let mut checks = Vec::new();
    for &(name, package) in &workspace_crates {
        let layer = layer_of(name);
        let mut errors = Vec::new();
        let Some(own) = layer else {
            errors.push(format!(
                "crate {name} is not in the layer table in xtask/src/layers.rs"
            ));
            checks.push(CrateCheck {
                name: name.to_owned(),
                layer,
                errors,
            });
            continue;
        };
        for dep in cmd::array(package, "dependencies") {
            let dep_name = cmd::string(dep, "name", name)?;
            let is_dev = dep["kind"].as_str() == Some("dev");
            let error = if dep_name == TEST_SUPPORT && !is_dev {
                Some(format!(
                    "{name} depends on {TEST_SUPPORT} as a normal or build dependency: \
                     it is for tests only (a dev-dependency)"
                ))
            } else if is_workspace_crate(dep_name) {
                // An edge to a crate missing from the table is reported on that crate.
                layer_of(dep_name)
                    .and_then(|theirs| edge_error(name, own, dep_name, theirs, is_dev))
            } else if name == MODEL && !is_dev && !MODEL_ALLOWED_DEPS.contains(&dep_name) {
                Some(format!(
                    "{MODEL} depends on {dep_name}: it may only depend on {} (no hashing, no I/O)",
                    MODEL_ALLOWED_DEPS.join(", ")
                ))
            } else {
                None
            };
            if let Some(error) = error
                && !errors.contains(&error)
            {
                errors.push(error);
            }
        }
        checks.push(CrateCheck {
            name: name.to_owned(),
            layer,
            errors,
        });
    }
    checks.sort_by(|a, b| {
        let key = |check: &CrateCheck| (check.layer.unwrap_or(usize::MAX), check.name.clone());
        key(a).cmp(&key(b))
    });
    Ok(checks)
}

/// The packages under `<workspace_root>/crates/` in `metadata` (cargo metadata JSON), as
/// `(name, package)` in metadata order.
///
/// # Errors
///
/// When `metadata` lacks `workspace_root`, or a package its `name` or `manifest_path`.
pub(crate) fn workspace_crates(metadata: &Value) -> Result<Vec<(&str, &Value)>> {
    let root = cmd::string(metadata, "workspace_root", "cargo metadata")?;
    let crates_dir = Path::new(root).join("crates");
    let mut crates = Vec::new();
    for package in cmd::packages(metadata) {
        let name = cmd::string(package, "name", "cargo metadata package")?;
        let manifest = cmd::string(package, "manifest_path", name)?;
        if Path::new(manifest).starts_with(&crates_dir) {
            crates.push((name, package));
        }
    }
    Ok(crates)
}

/// The violation, if any, of `from` (on layer `own`) depending on `to` (on layer `theirs`).
fn edge_error(from: &str, own: usize, to: &str, theirs: usize, is_dev: bool) -> Option<String> {
    if is_dev {
        (theirs > own).then(|| {
            format!(
                "{from} (layer {own}) has a dev-dependency on {to} (layer {theirs}): \
                 dev-dependencies must not point to a higher layer"
            )
        })
    } else if theirs == own {
        Some(format!(
            "{from} depends on {to}: crates on the same layer ({own}) never depend on each other"
        ))
    } else {
        (theirs > own).then(|| {
            format!(
                "{from} (layer {own}) depends on {to} (layer {theirs}): \
                 dependencies must point to a lower layer"
            )
        })
    }
}

/// `cargo xtask layers`: prints one line per crate, then the verdict on the Layers table of
/// docs/ARCHITECTURE.md, and fails if any rule is broken.
pub(crate) fn run(root: &Path) -> Result<()> {
    let metadata = cmd::metadata(root)?;
    let checks = check(&metadata)?;
    let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut violations = 0;
    for check in &checks {
        let layer = check
            .layer
            .map_or("?".to_owned(), |layer| layer.to_string());
        let verdict = if check.errors.is_empty() {
            "ok"
        } else {
            "FAILED"
        };
        println!("layer {layer}  {:<width$}  {verdict}", check.name);
        for error in &check.errors {
            println!("    {error}");
        }
        violations += check.errors.len();
    }
    let table = architecture::check_file(root, &metadata)?;
    let verdict = if table.is_empty() { "ok" } else { "FAILED" };
    println!("{}: the Layers table  {verdict}", architecture::DOC);
    for error in &table {
        println!("    {error}");
    }
    violations += table.len();
    if violations > 0 {
        return Err(format!("layering check failed: {violations} violation(s)").into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{LAYERS, check};
    use crate::Result;

    /// A cargo metadata package under `/ws/crates/` with `deps` as `(name, kind)` pairs.
    fn package(name: &str, deps: &[(&str, Option<&str>)]) -> Value {
        let dependencies: Vec<Value> = deps
            .iter()
            .map(|(dep, kind)| json!({ "name": dep, "kind": kind, "req": "*" }))
            .collect();
        json!({
            "name": name,
            "manifest_path": format!("/ws/crates/{name}/Cargo.toml"),
            "dependencies": dependencies,
            "targets": [],
        })
    }

    /// The violations `check` finds in a workspace of `packages`, in crate order.
    fn errors(packages: Vec<Value>) -> Result<Vec<String>> {
        let metadata = json!({ "workspace_root": "/ws", "packages": packages });
        Ok(check(&metadata)?
            .into_iter()
            .flat_map(|check| check.errors)
            .collect())
    }

    #[test]
    fn allowed_edges_pass() -> Result<()> {
        // Shaped like real `cargo metadata --no-deps` output, trimmed to the fields used.
        let metadata: Value = serde_json::from_str(
            r#"{
              "workspace_root": "/ws",
              "packages": [
                {
                  "name": "rehydrate-model",
                  "manifest_path": "/ws/crates/rehydrate-model/Cargo.toml",
                  "dependencies": [
                    { "name": "serde", "kind": null, "req": "^1" },
                    { "name": "thiserror", "kind": null, "req": "^2" },
                    { "name": "proptest", "kind": "dev", "req": "^1" }
                  ]
                },
                {
                  "name": "rehydrate-reduce",
                  "manifest_path": "/ws/crates/rehydrate-reduce/Cargo.toml",
                  "dependencies": [
                    { "name": "rehydrate-model", "kind": null, "req": "^0.1.0",
                      "path": "/ws/crates/rehydrate-model" },
                    { "name": "rehydrate-sidecar", "kind": null, "req": "^0.1.0",
                      "path": "/ws/crates/rehydrate-sidecar" },
                    { "name": "rehydrate-formats", "kind": "dev", "req": "^0.1.0",
                      "path": "/ws/crates/rehydrate-formats" }
                  ]
                },
                {
                  "name": "rehydrate-sidecar",
                  "manifest_path": "/ws/crates/rehydrate-sidecar/Cargo.toml",
                  "dependencies": [
                    { "name": "rehydrate-model", "kind": null, "req": "^0.1.0" },
                    { "name": "blake3", "kind": null, "req": "^1" },
                    { "name": "rehydrate-formats", "kind": "dev", "req": "^0.1.0" }
                  ]
                },
                {
                  "name": "rehydrate-formats",
                  "manifest_path": "/ws/crates/rehydrate-formats/Cargo.toml",
                  "dependencies": []
                },
                {
                  "name": "xtask",
                  "manifest_path": "/ws/xtask/Cargo.toml",
                  "dependencies": [{ "name": "serde_json", "kind": null, "req": "^1" }]
                }
              ]
            }"#,
        )?;
        let checks = check(&metadata)?;
        let summary: Vec<(&str, Option<usize>, usize)> = checks
            .iter()
            .map(|c| (c.name.as_str(), c.layer, c.errors.len()))
            .collect();
        assert_eq!(
            summary,
            [
                ("rehydrate-model", Some(0), 0),
                ("rehydrate-formats", Some(1), 0),
                ("rehydrate-sidecar", Some(2), 0),
                ("rehydrate-reduce", Some(3), 0),
            ]
        );
        Ok(())
    }

    #[test]
    fn upward_edge_fails() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-model", &[]),
            package("rehydrate-sidecar", &[("rehydrate-reduce", None)]),
            package("rehydrate-reduce", &[]),
        ])?;
        assert_eq!(
            found,
            [
                "rehydrate-sidecar (layer 2) depends on rehydrate-reduce (layer 3): \
              dependencies must point to a lower layer"
            ]
        );
        Ok(())
    }

    #[test]
    fn build_dependency_counts_as_normal() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-model", &[("rehydrate-cli", Some("build"))]),
            package("rehydrate-cli", &[]),
        ])?;
        assert_eq!(
            found,
            [
                "rehydrate-model (layer 0) depends on rehydrate-cli (layer 6): \
              dependencies must point to a lower layer"
            ]
        );
        Ok(())
    }

    #[test]
    fn same_layer_edge_fails() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-reduce", &[("rehydrate-search", None)]),
            package("rehydrate-search", &[]),
        ])?;
        assert_eq!(
            found,
            ["rehydrate-reduce depends on rehydrate-search: \
              crates on the same layer (3) never depend on each other"]
        );
        Ok(())
    }

    #[test]
    fn upward_dev_edge_fails() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-reduce", &[("rehydrate-cli", Some("dev"))]),
            package("rehydrate-cli", &[("rehydrate-reduce", None)]),
        ])?;
        assert_eq!(
            found,
            [
                "rehydrate-reduce (layer 3) has a dev-dependency on rehydrate-cli (layer 6): \
              dev-dependencies must not point to a higher layer"
            ]
        );
        Ok(())
    }

    #[test]
    fn test_support_only_as_a_dev_dependency() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-model", &[]),
            package("rehydrate-test-support", &[("rehydrate-model", None)]),
            package(
                "rehydrate-sidecar",
                &[("rehydrate-test-support", Some("dev"))],
            ),
            package(
                "rehydrate-reduce",
                &[
                    ("rehydrate-test-support", Some("dev")),
                    ("rehydrate-test-support", None),
                ],
            ),
            package(
                "rehydrate-cli",
                &[("rehydrate-test-support", Some("build"))],
            ),
        ])?;
        assert_eq!(
            found,
            [
                "rehydrate-reduce depends on rehydrate-test-support as a normal or build \
                 dependency: it is for tests only (a dev-dependency)",
                "rehydrate-cli depends on rehydrate-test-support as a normal or build \
                 dependency: it is for tests only (a dev-dependency)",
            ]
        );
        Ok(())
    }

    #[test]
    fn unknown_crate_fails() -> Result<()> {
        let found = errors(vec![
            package("rehydrate-model", &[]),
            package("rehydrate-unlisted", &[("rehydrate-model", None)]),
            package("rehydrate-cli", &[("rehydrate-unlisted", None)]),
        ])?;
        assert_eq!(
            found,
            ["crate rehydrate-unlisted is not in the layer table in xtask/src/layers.rs"]
        );
        Ok(())
    }

    #[test]
    fn forbidden_model_dep_fails() -> Result<()> {
        let found = errors(vec![package(
            "rehydrate-model",
            &[
                ("serde", None),
                ("blake3", None),
                ("blake3", Some("build")),
                ("memchr", Some("dev")),
            ],
        )])?;
        assert_eq!(
            found,
            ["rehydrate-model depends on blake3: \
              it may only depend on serde, serde_json, thiserror (no hashing, no I/O)"]
        );
        Ok(())
    }

    #[test]
    fn table_lists_each_crate_once() {
        let mut names: Vec<&str> = LAYERS
            .iter()
            .flat_map(|layer| layer.iter().copied())
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a crate appears twice in LAYERS");
    }
}
