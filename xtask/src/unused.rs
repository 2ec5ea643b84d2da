//! The unused-dependency check of `cargo xtask tidy`: every dependency a workspace package
//! declares (in `cargo metadata`) is named by the code that can use it.
//!
//! - A normal dependency must be used in `src/` outside test code.
//! - A build dependency must be used in `build.rs`.
//! - A dev-dependency must be used in `tests/`, `benches/`, `examples/`, a doctest (a compiled
//!   Rust example in a doc comment under `src/`) or test code under `src/`: a `tests.rs` file or
//!   a file under a `tests/` directory, an inline `mod tests { … }`, an item under
//!   `#[cfg(test)]`, or a file under `#![cfg(test)]`. A dev-dependency that repeats a normal
//!   one (same platform, no more features) is reported too: tests use the normal one.
//!
//! "Used" means the crate's library name (the manifest key, so a `package = …` rename is
//! honoured, with `-` as `_`) appears as a whole identifier in a path position: `name::…`
//! (not after another `::`, so `crate::name::` is not it), `use name`, or `extern crate name`.
//! Derives, attributes and macros count through their paths (`#[derive(name::X)]`, `name::m!`,
//! or a `use name::m`). Comments, doc comments (their prose) and literals are ignored.
//!
//! A dependency kept on purpose (to turn on a feature of another crate, say) is exempted in its
//! package's Cargo.toml with a reason:
//!
//! ```toml
//! [package.metadata.tidy]
//! unused-ok = { some-crate = "why it is declared although no code names it" }
//! ```
//!
//! The key is the dependency's key in the manifest; an exemption naming no dependency, or one
//! that is used, is reported, so exemptions cannot go stale.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::Result;
use crate::cmd;
use crate::tokens::{self, Token};

/// The kind of a dependency, as `cargo metadata` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Normal,
    Build,
    Dev,
}

impl Kind {
    /// The kind of a `cargo metadata` dependency (`kind`: null, `"build"` or `"dev"`).
    fn of(dep: &Value) -> Option<Kind> {
        match dep["kind"].as_str() {
            None => Some(Kind::Normal),
            Some("build") => Some(Kind::Build),
            Some("dev") => Some(Kind::Dev),
            Some(_) => None,
        }
    }

    /// The name in the report.
    fn name(self) -> &'static str {
        match self {
            Kind::Normal => "normal",
            Kind::Build => "build",
            Kind::Dev => "dev",
        }
    }

    /// Where code using a dependency of this kind lives, for the report.
    fn sources(self) -> &'static str {
        match self {
            Kind::Normal => "src/ outside test code",
            Kind::Build => "build.rs",
            Kind::Dev => "tests/, benches/, examples/, doctests or test code",
        }
    }
}

/// The crate names each kind of code of one package uses (see the module docs).
#[derive(Debug, Default)]
struct Uses {
    normal: BTreeSet<String>,
    build: BTreeSet<String>,
    dev: BTreeSet<String>,
}

impl Uses {
    /// Adds the uses in `text`, the file at `path` (relative to the package directory).
    fn add(&mut self, path: &str, text: &str) {
        let lexed = tokens::lex(text);
        let examples = tokens::rust_examples(&lexed.doc);
        let in_examples = crate_names(&tokens::lex(&examples).tokens);
        let names = crate_names(&lexed.tokens);
        if path == "build.rs" {
            self.build.extend(names.into_iter().map(|(_, name)| name));
        } else if let Some(in_src) = path.strip_prefix("src/") {
            self.dev
                .extend(in_examples.into_iter().map(|(_, name)| name));
            let test_file = in_src
                .split('/')
                .any(|part| part == "tests" || part == "tests.rs");
            let is_test = tokens::test_code(&lexed.tokens);
            for (at, name) in names {
                if test_file || is_test[at] {
                    self.dev.insert(name);
                } else {
                    self.normal.insert(name);
                }
            }
        } else if ["tests/", "benches/", "examples/"]
            .iter()
            .any(|dir| path.starts_with(dir))
        {
            self.dev
                .extend(names.into_iter().chain(in_examples).map(|(_, name)| name));
        }
    }

    /// Whether code where a `kind` dependency may be used names `lib`.
    fn uses(&self, kind: Kind, lib: &str) -> bool {
        match kind {
            Kind::Normal => self.normal.contains(lib),
            Kind::Build => self.build.contains(lib),
            // Library code naming a dev-dependency compiles only under a cfg this check does
            // not read, such as `#[cfg(any(test, …))]`: count it as test code.
            Kind::Dev => self.dev.contains(lib) || self.normal.contains(lib),
        }
    }
}

/// The identifiers of `tokens` in crate position, with their index: `name::` not after `::`
/// (but after a leading `::`), `use name`, `extern crate name`.
fn crate_names(tokens: &[Token<'_>]) -> Vec<(usize, String)> {
    let before = |at: usize, back: usize| at.checked_sub(back).map(|i| tokens[i]);
    let mut names = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let Token::Ident(name) = *token else {
            continue;
        };
        // `name::`, but not `name::<` (a turbofish) nor `a::name::` (a path's later segment).
        let path_head = tokens.get(at + 1) == Some(&Token::Punct("::"))
            && tokens.get(at + 2) != Some(&Token::Punct("<"))
            && match before(at, 1) {
                Some(Token::Punct("::")) => match before(at, 2) {
                    None | Some(Token::Ident("use")) => true,
                    Some(Token::Ident(_) | Token::Punct(">")) => false,
                    Some(Token::Punct(_)) => true,
                },
                _ => true,
            };
        let used = before(at, 1) == Some(Token::Ident("use"));
        let extern_crate = before(at, 1) == Some(Token::Ident("crate"))
            && before(at, 2) == Some(Token::Ident("extern"));
        if path_head || used || extern_crate {
            names.push((at, name.to_owned()));
        }
    }
    names
}

/// One declared dependency of a package.
#[derive(Debug)]
struct Dep<'a> {
    /// The key in the manifest: the rename if there is one, else the package name.
    key: &'a str,
    kind: Kind,
    /// The name code uses: the rename, the workspace crate's library target, or the package
    /// name, with `-` as `_`.
    lib: String,
    dep: &'a Value,
}

/// Checks every package in `metadata` (cargo metadata JSON) against its sources in `files`
/// (`(path, text)`, paths relative to the workspace root with `/` separators).
///
/// Returns one line per unused dependency or bad exemption, packages by name.
///
/// # Errors
///
/// When `metadata` lacks a field the check needs.
pub(crate) fn check(metadata: &Value, files: &[(String, String)]) -> Result<Vec<String>> {
    let root = Path::new(cmd::string(metadata, "workspace_root", "cargo metadata")?);
    let mut libs = BTreeMap::new();
    let mut packages = Vec::new();
    for package in cmd::packages(metadata) {
        let name = cmd::string(package, "name", "cargo metadata package")?;
        for target in cmd::array(package, "targets") {
            let is_lib = cmd::array(target, "kind")
                .iter()
                .any(|kind| matches!(kind.as_str(), Some("lib" | "rlib" | "proc-macro")));
            if is_lib {
                libs.insert(name, cmd::string(target, "name", name)?);
            }
        }
        packages.push((name, package));
    }
    packages.sort_by_key(|&(name, _)| name);

    let mut lines = Vec::new();
    for (name, package) in packages {
        let manifest = Path::new(cmd::string(package, "manifest_path", name)?);
        let dir = manifest
            .parent()
            .and_then(|dir| dir.strip_prefix(root).ok())
            .ok_or_else(|| {
                format!(
                    "{name}: manifest {} is outside the workspace",
                    manifest.display()
                )
            })?;
        let dir = dir.to_string_lossy().replace('\\', "/");
        let mut uses = Uses::default();
        for (path, text) in files {
            let relative = if dir.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(dir.as_str())
                    .and_then(|p| p.strip_prefix('/'))
            };
            if let Some(relative) = relative {
                uses.add(relative, text);
            }
        }
        check_package(name, package, &libs, &uses, &mut lines)?;
    }
    Ok(lines)
}

/// Appends to `lines` the unused dependencies and bad exemptions of `package`.
fn check_package(
    name: &str,
    package: &Value,
    libs: &BTreeMap<&str, &str>,
    uses: &Uses,
    lines: &mut Vec<String>,
) -> Result<()> {
    let mut deps = Vec::new();
    for dep in cmd::array(package, "dependencies") {
        let package_name = cmd::string(dep, "name", name)?;
        let kind = Kind::of(dep)
            .ok_or_else(|| format!("{name}: dependency {package_name} has an unknown kind"))?;
        let key = dep["rename"].as_str().unwrap_or(package_name);
        let lib = match dep["rename"].as_str() {
            Some(rename) => rename.to_owned(),
            None => libs
                .get(package_name)
                .map_or(package_name, |lib| lib)
                .to_owned(),
        }
        .replace('-', "_");
        deps.push(Dep {
            key,
            kind,
            lib,
            dep,
        });
    }

    const TABLE: &str = "[package.metadata.tidy] unused-ok";
    let mut exempt: BTreeMap<&str, bool> = BTreeMap::new();
    match &package["metadata"]["tidy"]["unused-ok"] {
        Value::Null => {}
        Value::Object(reasons) => {
            // Sorted: the map's order depends on serde_json's `preserve_order` feature.
            let reasons: BTreeMap<&String, &Value> = reasons.iter().collect();
            for (key, reason) in reasons {
                if reason
                    .as_str()
                    .is_none_or(|reason| reason.trim().is_empty())
                {
                    lines.push(format!(
                        "{name}: {TABLE}: the reason for {key} must be a non-empty string"
                    ));
                }
                exempt.insert(key, false);
            }
        }
        _ => lines.push(format!("{name}: {TABLE} must be a table of reasons")),
    }

    for dep in &deps {
        let repeats_normal = dep.kind == Kind::Dev
            && deps
                .iter()
                .any(|other| other.kind == Kind::Normal && repeats(dep.dep, other.dep));
        let used = uses.uses(dep.kind, &dep.lib);
        if (repeats_normal || !used)
            && let Some(needed) = exempt.get_mut(dep.key)
        {
            *needed = true;
            continue;
        }
        let (key, kind) = (dep.key, dep.kind.name());
        if repeats_normal {
            lines.push(format!(
                "{name}: dependency {key} ({kind}) repeats the normal dependency, which tests \
                 use already: remove it from [dev-dependencies]"
            ));
        } else if !used {
            let hint = if dep.kind == Kind::Normal && uses.dev.contains(&dep.lib) {
                " (only tests, benches, examples or test code use it: make it a dev-dependency)"
            } else {
                ""
            };
            lines.push(format!(
                "{name}: dependency {key} ({kind}) is not used in {}{hint}",
                dep.kind.sources()
            ));
        }
    }
    for (key, needed) in exempt {
        if !deps.iter().any(|dep| dep.key == key) {
            lines.push(format!(
                "{name}: {TABLE} names {key}, which is not a dependency"
            ));
        } else if !needed {
            lines.push(format!(
                "{name}: {TABLE} names {key}, which is used: remove the exemption"
            ));
        }
    }
    Ok(())
}

/// Whether the dev-dependency `dev` adds nothing to the normal dependency `normal`: the same
/// package, neither optional nor platform-specific, and no feature `normal` lacks.
fn repeats(dev: &Value, normal: &Value) -> bool {
    let features = |dep: &Value| -> BTreeSet<String> {
        cmd::array(dep, "features")
            .iter()
            .filter_map(|feature| feature.as_str().map(str::to_owned))
            .collect()
    };
    dev["name"] == normal["name"]
        && dev["rename"] == normal["rename"]
        && dev["target"].is_null()
        && normal["target"].is_null()
        && normal["optional"] != Value::Bool(true)
        && (normal["uses_default_features"] != Value::Bool(false)
            || dev["uses_default_features"] == Value::Bool(false))
        && features(dev).is_subset(&features(normal))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::Result;

    /// A cargo metadata dependency: `(name, kind)` with no rename, features or platform.
    fn dep(name: &str, kind: Option<&str>) -> Value {
        json!({ "name": name, "kind": kind, "rename": null, "optional": false,
                "uses_default_features": true, "features": [], "target": null })
    }

    /// A package `name` in `/ws/crates/<name>` with a library target, `deps` and `metadata`.
    fn package(name: &str, deps: Vec<Value>, metadata: Value) -> Value {
        json!({
            "name": name,
            "manifest_path": format!("/ws/crates/{name}/Cargo.toml"),
            "targets": [{ "name": name.replace('-', "_"), "kind": ["lib"] }],
            "dependencies": deps,
            "metadata": metadata,
        })
    }

    /// The lines `check` reports for `packages` whose files are `files` (`(path, text)`).
    fn lines(packages: Vec<Value>, files: &[(&str, &str)]) -> Result<Vec<String>> {
        let metadata = json!({ "workspace_root": "/ws", "packages": packages });
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        check(&metadata, &files)
    }

    #[test]
    fn used_dependencies_pass() -> Result<()> {
        let mut renamed = dep("serde_json", None);
        renamed["rename"] = json!("json");
        let mut xtask = package("xtask", vec![dep("memchr", None)], Value::Null);
        xtask["manifest_path"] = json!("/ws/xtask/Cargo.toml");
        let packages = vec![
            package(
                "app",
                vec![
                    dep("serde", None),
                    renamed,
                    dep("thiserror", None),
                    dep("my-core", None),
                    dep("regex-automata", None),
                    dep("cc", Some("build")),
                    dep("insta", Some("dev")),
                    dep("proptest", Some("dev")),
                    dep("criterion", Some("dev")),
                    dep("tiktoken-rs", Some("dev")),
                    dep("jsonschema", Some("dev")),
                    dep("blake3", Some("dev")),
                ],
                Value::Null,
            ),
            // A workspace crate whose library target is not its name with `_`.
            json!({
                "name": "my-core",
                "manifest_path": "/ws/crates/my-core/Cargo.toml",
                "targets": [{ "name": "core_lib", "kind": ["lib"] }],
                "dependencies": [],
            }),
            xtask,
        ];
        let found = lines(
            packages,
            &[
                (
                    "crates/app/src/lib.rs",
                    "//! App.\nuse serde::Serialize;\nfn f() -> json::Value { ::core_lib::x() }\n\
                     #[derive(Debug, thiserror::Error)]\nenum E {}\nmod tests;\n",
                ),
                (
                    "crates/app/src/search.rs",
                    "//! Search.\nuse regex_automata as ra;\n\
                     /// ```\n/// blake3::hash(b\"\");\n/// ```\npub fn s() {}\n",
                ),
                ("crates/app/build.rs", "fn main() { cc::Build::new(); }"),
                ("crates/app/src/tests.rs", "use proptest::prelude::*;"),
                (
                    "crates/app/src/inline.rs",
                    "#[cfg(test)]\nfn helper() { jsonschema::validate(); }",
                ),
                (
                    "crates/app/tests/integration/main.rs",
                    "insta::assert_snapshot!(x);",
                ),
                ("crates/app/benches/suite.rs", "use criterion::Criterion;"),
                ("crates/app/examples/count.rs", "extern crate tiktoken_rs;"),
                (
                    "xtask/src/main.rs",
                    "fn main() { memchr::memchr(b'a', b\"\"); }",
                ),
            ],
        )?;
        assert_eq!(found, Vec::<String>::new());
        Ok(())
    }

    #[test]
    fn unused_dependencies_fail() -> Result<()> {
        let mut dev_json = dep("serde_json", Some("dev"));
        dev_json["features"] = json!([]);
        let mut dev_serde = dep("serde", Some("dev"));
        // A dev-dependency adding a feature is not a repeat.
        dev_serde["features"] = json!(["rc"]);
        let packages = vec![package(
            "app",
            vec![
                dep("serde", None),
                dep("serde_json", None),
                dep("memchr", None),
                dep("blake3", None),
                dep("thiserror", None),
                dep("cc", Some("build")),
                dep("insta", Some("dev")),
                dev_json,
                dev_serde,
            ],
            Value::Null,
        )];
        let found = lines(
            packages,
            &[
                (
                    "crates/app/src/lib.rs",
                    // `serde` does not use `serde_json`; comments, doc prose, strings and a
                    // local module's path `crate::memchr::` use nothing.
                    "//! Uses `memchr::memchr` and `insta::assert_snapshot!`.\n\
                     use serde::Serialize; // blake3::hash\n\
                     /* thiserror::Error */ const S: &str = \"serde_json::Value\";\n\
                     fn f() { crate::memchr::find(); }\n\
                     mod tests { use blake3::Hasher; }\n",
                ),
                ("crates/app/build.rs", "fn main() {}"),
                (
                    "crates/app/tests/integration/main.rs",
                    "use serde_json::json;",
                ),
            ],
        )?;
        assert_eq!(
            found,
            [
                "app: dependency serde_json (normal) is not used in src/ outside test code \
                 (only tests, benches, examples or test code use it: make it a dev-dependency)",
                "app: dependency memchr (normal) is not used in src/ outside test code",
                "app: dependency blake3 (normal) is not used in src/ outside test code \
                 (only tests, benches, examples or test code use it: make it a dev-dependency)",
                "app: dependency thiserror (normal) is not used in src/ outside test code",
                "app: dependency cc (build) is not used in build.rs",
                "app: dependency insta (dev) is not used in tests/, benches/, examples/, \
                 doctests or test code",
                "app: dependency serde_json (dev) repeats the normal dependency, which tests use \
                 already: remove it from [dev-dependencies]",
            ]
        );
        Ok(())
    }

    #[test]
    fn exemptions_need_a_reason_and_must_be_needed() -> Result<()> {
        let metadata = json!({ "tidy": { "unused-ok": {
            "serde": "turns on the derive feature for the other crates",
            "memchr": "stale: memchr is used",
            "blake3": "",
            "regex": "names no dependency",
        } } });
        let packages = vec![
            package(
                "app",
                vec![dep("serde", None), dep("memchr", None), dep("blake3", None)],
                metadata,
            ),
            package("bad", vec![], json!({ "tidy": { "unused-ok": ["serde"] } })),
        ];
        let found = lines(
            packages,
            &[("crates/app/src/lib.rs", "use memchr::memchr;")],
        )?;
        assert_eq!(
            found,
            [
                "app: [package.metadata.tidy] unused-ok: the reason for blake3 must be a \
                 non-empty string",
                "app: [package.metadata.tidy] unused-ok names memchr, which is used: remove the \
                 exemption",
                "app: [package.metadata.tidy] unused-ok names regex, which is not a dependency",
                "bad: [package.metadata.tidy] unused-ok must be a table of reasons",
            ]
        );
        Ok(())
    }
}
