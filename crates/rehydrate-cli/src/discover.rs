//! Finding the transcript an agent is writing for a working directory (`rehydrate mcp
//! --claude-code`, `--codex`; docs/MCP.md, "Finding the session").
//!
//! - Claude Code keeps a project's sessions in `<config>/projects/<encoded cwd>/*.jsonl`, where
//!   `<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude` and the encoded cwd is the directory's
//!   real path (symlinks resolved) with every character that is not an ASCII letter or digit
//!   written as `-` (one per UTF-16 unit, as Claude Code's JavaScript does), cut to 200
//!   characters and followed by `-<hash>` when longer: the newest file by modification time is
//!   the current session.
//! - Codex writes `<home>/sessions/YYYY/MM/DD/rollout-*.jsonl`, where `<home>` is
//!   `$CODEX_HOME` or `~/.codex`, each opening with a `session_meta` line that records its
//!   `cwd`: the newest rollout whose `cwd` is the directory is the current session.
//!
//! Nothing is written; only directory listings and, for Codex, each rollout's first line are
//! read.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::failure::Failure;

/// The agent whose transcript is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    ClaudeCode,
    Codex,
}

/// The most of a rollout's first line read to find its `cwd` (a `session_meta` line holds the
/// base instructions, tens of KiB); a longer first line is reported on stderr and its rollout
/// skipped.
const FIRST_LINE_MAX_BYTES: u64 = 64 << 20;

/// The current transcript of `agent` for the working directory `cwd`.
///
/// # Errors
///
/// A one-line [`Failure::Input`] naming the directory looked in when there is no home
/// directory, the directory cannot be listed, or no transcript matches.
pub(crate) fn find(agent: Agent, cwd: &Path) -> Result<PathBuf, Failure> {
    match agent {
        Agent::ClaudeCode => {
            let config = config_dir("CLAUDE_CONFIG_DIR", ".claude")?;
            let projects = config.join("projects");
            // Claude Code names the directory after the real path (symlinks resolved).
            let cwd = canonical(&absolute(cwd));
            let dir = project_dir(&projects, &encode_cwd(&cwd))?;
            newest(&dir, Entry::File, |path| {
                path.extension().is_some_and(|e| e == "jsonl")
            })?
            .ok_or_else(|| {
                Failure::Input(format!(
                    "no Claude Code session for {} in {} (name one with --transcript FILE)",
                    cwd.display(),
                    dir.display()
                ))
            })
        }
        Agent::Codex => {
            let home = config_dir("CODEX_HOME", ".codex")?;
            let dir = home.join("sessions");
            let mut rollouts = Vec::new();
            collect_rollouts(&dir, &mut rollouts)?;
            // Newest first; a tie (same modification time) is broken by the name, which starts
            // with the time the rollout began.
            rollouts.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
            let wanted = [cwd.to_path_buf(), canonical(&absolute(cwd))];
            for (_, path) in rollouts {
                if rollout_cwd(&path)
                    .is_some_and(|c| wanted.contains(&c) || wanted.contains(&canonical(&c)))
                {
                    return Ok(path);
                }
            }
            Err(Failure::Input(format!(
                "no Codex rollout for {} in {} (name one with --transcript FILE)",
                cwd.display(),
                dir.display()
            )))
        }
    }
}

/// `cwd` as Claude Code names its project directory: every character that is not an ASCII
/// letter or digit becomes `-`, once per UTF-16 unit (so a character outside the Basic
/// Multilingual Plane becomes `--`).
pub(crate) fn encode_cwd(cwd: &Path) -> String {
    let text = cwd.to_string_lossy();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    out
}

/// The longest directory name Claude Code writes whole; a longer encoded path is cut to this
/// many characters and followed by `-` and a hash of the path.
const PROJECT_NAME_MAX: usize = 200;

/// The project directory of `encoded` under `projects`: `projects/<encoded>`, or for an
/// encoded path over [`PROJECT_NAME_MAX`] characters the directory whose name is its first
/// [`PROJECT_NAME_MAX`] characters, `-` and a hash (the newest when several match).
fn project_dir(projects: &Path, encoded: &str) -> Result<PathBuf, Failure> {
    if encoded.len() <= PROJECT_NAME_MAX {
        return Ok(projects.join(encoded));
    }
    let prefix = format!("{}-", &encoded[..PROJECT_NAME_MAX]);
    let found = newest(projects, Entry::Dir, |path| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| name.starts_with(&prefix))
    })?;
    Ok(found.unwrap_or_else(|| projects.join(format!("{prefix}…"))))
}

/// `path` made absolute against the current directory (a relative `--cwd`), without `.`
/// components or a trailing `/`.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .components()
        .collect()
}

/// `$var`, or `~/<default>` under `$HOME`.
fn config_dir(var: &str, default: &str) -> Result<PathBuf, Failure> {
    if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| PathBuf::from(home).join(default))
        .ok_or_else(|| {
            Failure::Input(format!(
                "neither {var} nor HOME is set: cannot find the agent's sessions (name one with --transcript FILE)"
            ))
        })
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// What [`newest`] looks for in a directory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    File,
    Dir,
}

/// The newest entry of `dir` of the `wanted` kind (files: regular files only, not the
/// subdirectories' contents) whose path `keep` accepts, by modification time; `None` when
/// `dir` does not exist or holds none.
fn newest(
    dir: &Path,
    wanted: Entry,
    keep: impl Fn(&Path) -> bool,
) -> Result<Option<PathBuf>, Failure> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Failure::Input(format!(
                "cannot list {}: {e}",
                dir.display()
            )));
        }
    };
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type().ok().and_then(|t| {
            if t.is_file() {
                Some(Entry::File)
            } else if t.is_dir() {
                Some(Entry::Dir)
            } else {
                None
            }
        });
        if kind != Some(wanted) || !keep(&path) {
            continue;
        }
        let candidate = (modified(&path), path);
        if best.as_ref().is_none_or(|b| candidate > *b) {
            best = Some(candidate);
        }
    }
    Ok(best.map(|(_, path)| path))
}

/// Every `rollout-*.jsonl` under `dir`, with its modification time.
fn collect_rollouts(dir: &Path, out: &mut Vec<(SystemTime, PathBuf)>) -> Result<(), Failure> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Failure::Input(format!(
                "cannot list {}: {e}",
                dir.display()
            )));
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect_rollouts(&path, out)?;
        } else if kind.is_file()
            && path.extension().is_some_and(|e| e == "jsonl")
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("rollout-"))
        {
            out.push((modified(&path), path));
        }
    }
    Ok(())
}

/// The `payload.cwd` of a rollout's first line when it is a `session_meta` record.
fn rollout_cwd(path: &Path) -> Option<PathBuf> {
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    BufReader::new(file.take(FIRST_LINE_MAX_BYTES))
        .read_until(b'\n', &mut line)
        .ok()?;
    if line.len() as u64 == FIRST_LINE_MAX_BYTES && line.last() != Some(&b'\n') {
        eprintln!(
            "rehydrate mcp: skipped {}: its first line is over {} MiB",
            path.display(),
            FIRST_LINE_MAX_BYTES >> 20
        );
        return None;
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "type")]
        kind: String,
        payload: Payload,
    }
    #[derive(serde::Deserialize)]
    struct Payload {
        cwd: String,
    }
    let meta: Meta = serde_json::from_slice(&line).ok()?;
    (meta.kind == "session_meta").then(|| PathBuf::from(meta.payload.cwd))
}
