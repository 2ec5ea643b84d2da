//! The session files of a `reduce` over several inputs: the directories walked, and the output
//! directory each session's reduction goes to (docs/FORMATS.md, "Several session files").

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use rehydrate::store::SessionDir;

use crate::failure::{Failure, input};
use crate::term::shown;

/// How the name of a file found in a directory ends when the file is taken for a session: the
/// JSON and JSONL sessions, SWE-agent trajectories and Aider's chat history.
pub(super) const SESSION_NAME_ENDINGS: [&str; 4] =
    [".jsonl", ".json", ".traj", ".aider.chat.history.md"];

/// How the name of a directory `reduce` writes ends; a walk never enters one.
const OUTPUT_NAME_ENDING: &str = ".rehydrate";

/// One session file to reduce.
pub(super) struct Session {
    /// The file: an argument as given, or a file a directory's walk found (the argument
    /// joined with its path below it).
    pub(super) path: PathBuf,
    /// Whether a directory's walk found the file (rather than the command line naming it): a
    /// found file in no format rehydrate reads is skipped, not failed.
    pub(super) found: bool,
    /// The output directory, or the bad-input line saying why there is none (a directory
    /// that cannot be listed, a file with no default output directory).
    pub(super) out: Result<PathBuf, String>,
}

/// Whether `path` names a pipe (a FIFO, through a link too).
fn is_pipe(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Whether `path` names a directory (through a link too); `-` is stdin, never one.
pub(super) fn is_directory(path: &Path) -> bool {
    path != Path::new("-") && std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// Every session file of the arguments `args`, in order: each argument in turn, the files a
/// directory holds sorted by path (component by component), each with its output directory:
/// under `out` when given, at its path relative to its argument (a file argument: its name)
/// with `.rehydrate` appended, or else beside the file.
///
/// A directory is walked to its depth for the files whose names end as
/// [`SESSION_NAME_ENDINGS`] says (regular files, or links to them); links to directories,
/// directories named `*.rehydrate` and directories holding a sidecar (an output directory
/// under another name, or one an interrupted run left) are not entered. A directory that cannot be listed is
/// a session that fails, named by its path.
///
/// # Errors
///
/// Bad input, before any file is read: `-` among the arguments, no session file at all, or
/// two sessions whose output directories are the same.
pub(super) fn sessions(args: &[PathBuf], out: Option<&Path>) -> Result<Vec<Session>, Failure> {
    if args.iter().any(|a| a == Path::new("-")) {
        return Err(input(
            "`-` (stdin) cannot be reduced with other inputs: reduce it on its own, with --out DIR",
        ));
    }
    let mut sessions = Vec::new();
    // The directories that hold no session file.
    let mut empty = Vec::new();
    for arg in args {
        if is_directory(arg)
            && arg
                .file_name()
                .is_some_and(|n| ends_with(n, OUTPUT_NAME_ENDING))
        {
            return Err(input(format!(
                "{} is a `rehydrate reduce` output directory, not a session; name the session file instead",
                shown(arg)
            )));
        }
        if !is_directory(arg) {
            // A file named on the command line is always tried, whatever its name; but a pipe
            // is read only as the one input of a run: among several, waiting for its writer
            // would hold up every file after it.
            if is_pipe(arg) {
                sessions.push(Session {
                    path: arg.clone(),
                    found: false,
                    out: Err(format!(
                        "{} is a pipe, which is read only when it is the one session of a run; not read",
                        shown(arg)
                    )),
                });
                continue;
            }
            let out = match out {
                Some(out) => arg
                    .file_name()
                    .map(|name| output_under(out, Path::new(name)))
                    .ok_or_else(|| {
                        format!(
                            "{} has no file name to name its output directory under --out",
                            shown(arg)
                        )
                    }),
                None => default_out(arg),
            };
            sessions.push(Session {
                path: arg.clone(),
                found: false,
                out,
            });
            continue;
        }
        let before = sessions.len();
        for found in walk(arg) {
            let session = match found {
                Ok(path) => {
                    let out = match out {
                        Some(out) => {
                            let relative = path
                                .strip_prefix(arg)
                                .expect("the walk joins every path it finds onto its root");
                            Ok(output_under(out, relative))
                        }
                        None => default_out(&path),
                    };
                    Session {
                        path,
                        found: true,
                        out,
                    }
                }
                Err((dir, e)) => Session {
                    out: Err(format!("cannot list the directory {}: {e}", shown(&dir))),
                    path: dir,
                    found: true,
                },
            };
            sessions.push(session);
        }
        if sessions.len() == before {
            empty.push(arg);
        }
    }
    if !sessions.is_empty() {
        // Said, but not an error: the other arguments hold sessions.
        for arg in empty {
            eprintln!(
                "warning: {}: no session file in it (a directory's files named *{} are sessions)",
                shown(arg),
                SESSION_NAME_ENDINGS.join(", *"),
            );
        }
    }
    if sessions.is_empty() {
        let named: Vec<String> = args.iter().map(shown).collect();
        return Err(input(format!(
            "no session file in {} (a directory's files named *{} are sessions)",
            named.join(", "),
            SESSION_NAME_ENDINGS.join(", *"),
        )));
    }
    refuse_shared_outputs(&sessions)?;
    Ok(sessions)
}

/// `out` joined with `relative`, `.rehydrate` appended (to the path's bytes).
fn output_under(out: &Path, relative: &Path) -> PathBuf {
    let mut dir = out.join(relative).into_os_string();
    dir.push(OUTPUT_NAME_ENDING);
    PathBuf::from(dir)
}

/// The default output directory of `path`, or why it has none.
fn default_out(path: &Path) -> Result<PathBuf, String> {
    SessionDir::default_path(path).ok_or_else(|| super::no_default_dir(path))
}

/// Refuses two sessions with the same output directory: compared as absolute paths, through
/// the links of the parent directory when it exists.
fn refuse_shared_outputs(sessions: &[Session]) -> Result<(), Failure> {
    let mut taken: BTreeMap<PathBuf, &Path> = BTreeMap::new();
    for session in sessions {
        let Ok(out) = &session.out else { continue };
        if let Some(first) = taken.insert(same_place(out), &session.path) {
            return Err(input(format!(
                "{} and {} would both be reduced into {}; reduce them in separate runs or with separate --out directories",
                shown(first),
                shown(&session.path),
                shown(out)
            )));
        }
    }
    Ok(())
}

/// The path `dir` compares by: absolute, its parent's links resolved when it exists.
fn same_place(dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map_or_else(|_| absolute.clone(), |parent| parent.join(name)),
        _ => absolute,
    }
}

/// What a walk meets in a directory.
enum Entry {
    /// A session file.
    File(PathBuf),
    /// A directory to walk.
    Dir(PathBuf),
}

impl Entry {
    fn path(&self) -> &Path {
        match self {
            Entry::File(path) | Entry::Dir(path) => path,
        }
    }
}

/// The session files below `root`, depth first in path order, and each directory that could
/// not be listed with the reason.
fn walk(root: &Path) -> Vec<Result<PathBuf, (PathBuf, std::io::Error)>> {
    let mut found = Vec::new();
    // A stack rather than recursion: a deep tree cannot overflow it.
    let mut stack = vec![Entry::Dir(root.to_path_buf())];
    while let Some(entry) = stack.pop() {
        match entry {
            Entry::File(path) => found.push(Ok(path)),
            Entry::Dir(dir) => match entries(&dir) {
                // Reversed, so the first in path order is taken first.
                Ok(entries) => stack.extend(entries.into_iter().rev()),
                Err(e) => found.push(Err((dir, e))),
            },
        }
    }
    found
}

/// Whether `dir` is a directory `reduce` writes or wrote, whatever its name: an output
/// directory, or one an interrupted run left beside it (`DIR.staging`, `DIR.retired`), each
/// holding `sidecar/lock` or `sidecar/manifest.json`.
fn holds_a_sidecar(dir: &Path) -> bool {
    ["sidecar/lock", "sidecar/manifest.json"]
        .iter()
        .any(|name| std::fs::symlink_metadata(dir.join(name)).is_ok())
}

/// The session files and the directories to walk in `dir`, sorted by name.
fn entries(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let path = entry.path();
        // The entry's own type: a link is not followed here.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !ends_with(&name, OUTPUT_NAME_ENDING) && !holds_a_sidecar(&path) {
                entries.push(Entry::Dir(path));
            }
        } else if SESSION_NAME_ENDINGS.iter().any(|e| ends_with(&name, e))
            && (kind.is_file()
                || kind.is_symlink() && std::fs::metadata(&path).is_ok_and(|m| m.is_file()))
        {
            entries.push(Entry::File(path));
        }
    }
    entries.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(entries)
}

/// Whether the name `name` ends with `ending` (compared as bytes, so a name that is not UTF-8
/// is matched too).
fn ends_with(name: &OsStr, ending: &str) -> bool {
    name.as_encoded_bytes().ends_with(ending.as_bytes())
}
