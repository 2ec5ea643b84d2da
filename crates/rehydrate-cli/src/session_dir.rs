//! The output directory of `rehydrate reduce`: `view.json`, `reductions.json`, and the
//! sidecar (`sidecar/messages.jsonl` plus `sidecar/manifest.json`). docs/FORMATS.md,
//! "Output directory".

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rehydrate_model::{Digest, Message, ReductionLog};
use rehydrate_sidecar::content_digest;

use crate::failure::{Failure, input};

/// The manifest's `format` value.
const MANIFEST_FORMAT: &str = "rehydrate-sidecar";
/// The manifest's `version` value.
const MANIFEST_VERSION: u32 = 1;
/// The files the manifest records, relative to the directory.
const VIEW: &str = "view.json";
const LOG: &str = "reductions.json";
const MESSAGES: &str = "sidecar/messages.jsonl";
const MANIFEST: &str = "sidecar/manifest.json";

/// `sidecar/manifest.json`: what the directory holds and the digest of every file.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub(crate) format: String,
    pub(crate) version: u32,
    /// The session file the directory was made from, as given on the command line.
    pub(crate) source: String,
    /// The detected or requested session format.
    pub(crate) source_format: String,
    /// Number of messages in the sidecar.
    pub(crate) messages: usize,
    /// Size and blake3 of each file, keyed by path relative to the directory.
    pub(crate) files: BTreeMap<String, FileEntry>,
}

/// The size and digest of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileEntry {
    pub(crate) bytes: usize,
    pub(crate) blake3: Digest,
}

/// What a directory holds once read back.
pub(crate) struct SessionDir {
    pub(crate) view: Vec<Message>,
    pub(crate) log: ReductionLog,
    pub(crate) sidecar: Vec<Message>,
    pub(crate) manifest: Manifest,
    /// Files whose bytes differ from the manifest: one line each.
    pub(crate) file_mismatches: Vec<String>,
}

/// The bytes of each file of a directory.
pub(crate) struct Encoded {
    pub(crate) view: Vec<u8>,
    pub(crate) log: Vec<u8>,
    pub(crate) messages: Vec<u8>,
}

/// Serializes the three data files.
pub(crate) fn encode(view: &[Message], log: &ReductionLog, sidecar: &[Message]) -> Encoded {
    let mut view_bytes = b"[\n".to_vec();
    for (i, m) in view.iter().enumerate() {
        serde_json::to_writer(&mut view_bytes, m).expect("a message always serializes");
        view_bytes.extend_from_slice(if i + 1 < view.len() { b",\n" } else { b"\n" });
    }
    view_bytes.extend_from_slice(b"]\n");
    let mut log_bytes = serde_json::to_vec_pretty(log).expect("a log always serializes");
    log_bytes.push(b'\n');
    let mut messages = Vec::new();
    for m in sidecar {
        serde_json::to_writer(&mut messages, m).expect("a message always serializes");
        messages.push(b'\n');
    }
    Encoded {
        view: view_bytes,
        log: log_bytes,
        messages,
    }
}

/// Writes the directory: each file to a temporary name first, then renamed, the manifest
/// last, so a directory with a manifest is complete.
pub(crate) fn write(
    dir: &Path,
    source: &Path,
    source_format: &str,
    encoded: &Encoded,
    messages: usize,
) -> Result<(), Failure> {
    let sidecar_dir = dir.join("sidecar");
    fs::create_dir_all(&sidecar_dir)
        .map_err(|e| input(format!("cannot create {}: {e}", sidecar_dir.display())))?;
    // A stale manifest must not vouch for new files while they are being replaced.
    let manifest_path = dir.join(MANIFEST);
    if manifest_path.exists() {
        fs::remove_file(&manifest_path)
            .map_err(|e| input(format!("cannot remove {}: {e}", manifest_path.display())))?;
    }
    let mut files = BTreeMap::new();
    for (name, bytes) in [
        (MESSAGES, &encoded.messages),
        (LOG, &encoded.log),
        (VIEW, &encoded.view),
    ] {
        write_atomic(&dir.join(name), bytes)?;
        files.insert(
            name.to_string(),
            FileEntry {
                bytes: bytes.len(),
                blake3: content_digest(bytes),
            },
        );
    }
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        version: MANIFEST_VERSION,
        source: source.display().to_string(),
        source_format: source_format.to_string(),
        messages,
        files,
    };
    let mut bytes = serde_json::to_vec_pretty(&manifest).expect("a manifest always serializes");
    bytes.push(b'\n');
    write_atomic(&manifest_path, &bytes)
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    let written = fs::write(&tmp, bytes)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))
        .and_then(|()| {
            fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
        });
    written.map_err(|msg| {
        // Leave nothing half-written behind (a full disk stays no fuller).
        let _ = fs::remove_file(&tmp);
        input(msg)
    })
}

/// Refuses an output directory that would overwrite the session file itself.
pub(crate) fn refuse_overwriting(dir: &Path, transcript: &Path) -> Result<(), Failure> {
    let Ok(source) = fs::canonicalize(transcript) else {
        return Ok(());
    };
    for name in [VIEW, LOG, MESSAGES, MANIFEST] {
        let target = dir.join(name);
        if fs::canonicalize(&target).is_ok_and(|t| t == source) {
            return Err(input(format!(
                "--out {} would overwrite the session file {} itself",
                dir.display(),
                transcript.display()
            )));
        }
    }
    Ok(())
}

/// Reads a directory back. Unreadable or malformed files are bad input naming the file (and
/// the line, for the sidecar); file digests that differ from the manifest are collected in
/// [`SessionDir::file_mismatches`].
pub(crate) fn read(dir: &Path) -> Result<SessionDir, Failure> {
    let read = |name: &str| {
        let path = dir.join(name);
        fs::read(&path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))
    };
    let manifest_bytes = read(MANIFEST)?;
    let manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .map_err(|e| input(format!("{}: {e}", dir.join(MANIFEST).display())))?;
    if manifest.format != MANIFEST_FORMAT || manifest.version != MANIFEST_VERSION {
        return Err(input(format!(
            "{}: unsupported sidecar {} version {} (expected {MANIFEST_FORMAT} version {MANIFEST_VERSION})",
            dir.join(MANIFEST).display(),
            manifest.format,
            manifest.version
        )));
    }
    let mut file_mismatches = Vec::new();
    let mut check = |name: &str, bytes: &[u8]| match manifest.files.get(name) {
        None => file_mismatches.push(format!(
            "{}: not recorded in the manifest",
            dir.join(name).display()
        )),
        Some(entry) => {
            let actual = content_digest(bytes);
            if entry.blake3 != actual || entry.bytes != bytes.len() {
                file_mismatches.push(format!(
                    "{}: digest mismatch: manifest records {} ({} bytes), file has {actual} ({} bytes)",
                    dir.join(name).display(),
                    entry.blake3,
                    entry.bytes,
                    bytes.len()
                ));
            }
        }
    };
    let view_bytes = read(VIEW)?;
    check(VIEW, &view_bytes);
    let log_bytes = read(LOG)?;
    check(LOG, &log_bytes);
    let message_bytes = read(MESSAGES)?;
    check(MESSAGES, &message_bytes);

    for name in manifest.files.keys() {
        if ![VIEW, LOG, MESSAGES].contains(&name.as_str()) {
            file_mismatches.push(format!(
                "{}: records an unknown file `{name}`",
                dir.join(MANIFEST).display()
            ));
        }
    }
    // The directory exists and has a manifest: a file that no longer parses is a
    // verification failure, reported with every file mismatch found so far.
    let corrupt = |file_mismatches: &[String], e: String| {
        let mut lines = file_mismatches.to_vec();
        lines.push(e);
        Failure::Verify(lines)
    };
    let view: Vec<Message> = serde_json::from_slice(&view_bytes).map_err(|e| {
        corrupt(
            &file_mismatches,
            format!("{}: {e}", dir.join(VIEW).display()),
        )
    })?;
    let log: ReductionLog = serde_json::from_slice(&log_bytes).map_err(|e| {
        corrupt(
            &file_mismatches,
            format!("{}: {e}", dir.join(LOG).display()),
        )
    })?;
    let sidecar = parse_messages(&dir.join(MESSAGES), &message_bytes)
        .map_err(|f| corrupt(&file_mismatches, f.lines().join("; ")))?;
    if sidecar.len() != manifest.messages {
        file_mismatches.push(format!(
            "{}: holds {} messages, the manifest records {}",
            dir.join(MESSAGES).display(),
            sidecar.len(),
            manifest.messages
        ));
    }
    Ok(SessionDir {
        view,
        log,
        sidecar,
        manifest,
        file_mismatches,
    })
}

/// Parses JSONL canonical messages, naming the line of the first bad one.
pub(crate) fn parse_messages(path: &Path, bytes: &[u8]) -> Result<Vec<Message>, Failure> {
    let mut messages = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let msg = serde_json::from_slice(line)
            .map_err(|e| input(format!("{}:{}: {e}", path.display(), i + 1)))?;
        messages.push(msg);
    }
    Ok(messages)
}
