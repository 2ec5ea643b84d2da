//! [`FileRecord`], the whole content a transcript proves for a file, and the staleness check a
//! host runs against the bytes now on disk.

use rehydrate_model::Digest;
use rehydrate_sidecar::content_digest;

/// The last whole content a transcript proves for one file (SPEC seed 001, "TranscriptFileRecord").
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileRecord {
    /// The absolute path, exactly as the tool recorded it.
    pub path: String,
    /// The file's whole text as the transcript proves it (never read from disk).
    pub content: String,
    /// blake3 of `content`'s UTF-8 bytes.
    pub digest: Digest,
    /// The recording tool result's timestamp, verbatim (`None` when the format records none).
    pub at: Option<String>,
    /// The index of the recording tool result in the messages replayed.
    pub index: usize,
}

impl FileRecord {
    /// A record of `content`, hashed here.
    pub fn new(path: String, content: String, at: Option<String>, index: usize) -> FileRecord {
        let digest = content_digest(content.as_bytes());
        FileRecord {
            path,
            content,
            digest,
            at,
            index,
        }
    }

    /// The length of `content` in bytes.
    pub fn bytes(&self) -> usize {
        self.content.len()
    }
}

/// Whether the bytes on disk are still what the transcript proved the agent saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staleness {
    /// The bytes on disk are the recorded content.
    Fresh,
    /// The file changed since the transcript recorded it (or no longer exists, `actual: None`):
    /// a host refuses an edit until the agent reads it again.
    Stale {
        /// The digest of the recorded content.
        expected: Digest,
        /// The digest of the bytes on disk, `None` when the file does not exist.
        actual: Option<Digest>,
    },
    /// The transcript proves no content for the file: the agent must read it first.
    NotRead,
}

/// Compares a file's record (`None` when replay has none for the path) with the bytes now on
/// disk (`None` when the file does not exist). The host reads the disk; this only compares
/// blake3 digests of the transcript's text and of `disk` (SPEC seed 001 rule 10).
///
/// # Example
///
/// ```
/// use rehydrate_replay::{FileRecord, Staleness, staleness};
///
/// let record = FileRecord::new("/a/x".into(), "v1".into(), None, 0);
/// assert_eq!(staleness(Some(&record), Some(b"v1")), Staleness::Fresh);
/// assert!(matches!(staleness(Some(&record), Some(b"v2")), Staleness::Stale { .. }));
/// assert_eq!(staleness(None, Some(b"v1")), Staleness::NotRead);
/// ```
pub fn staleness(record: Option<&FileRecord>, disk: Option<&[u8]>) -> Staleness {
    let Some(record) = record else {
        return Staleness::NotRead;
    };
    let actual = disk.map(content_digest);
    if actual == Some(record.digest) {
        Staleness::Fresh
    } else {
        Staleness::Stale {
            expected: record.digest,
            actual,
        }
    }
}
