//! The store's bytes: the file header and the framed records (docs/FORMATS.md, "Session store").
//!
//! ```text
//! header  = "RHYDSTOR" (8 bytes) | version: u32 LE (1) | reserved: u32 LE (0)       16 bytes
//! record  = length: u32 LE | kind: u8 | header check: 3 bytes | payload check: 8 bytes
//!           | payload: `length` bytes                                          16 + length bytes
//! ```
//!
//! The header check is the first 3 bytes of blake3 over the length and kind bytes; the payload
//! check is the first 8 bytes of blake3 over the kind byte and the payload. A record that runs
//! past the end of the file, a payload that fails its check with nothing after it, or a tail of
//! zero bytes is a torn tail (a write cut short); a frame that fails its check, or a payload
//! that fails with more bytes after it, is corruption.

/// The file's first 8 bytes.
pub(crate) const MAGIC: &[u8; 8] = b"RHYDSTOR";

/// The format version this code writes and reads.
pub(crate) const VERSION: u32 = 1;

/// The size of the file header in bytes.
pub(crate) const HEADER_BYTES: usize = 16;

/// The size of a record's frame before its payload, in bytes.
pub(crate) const FRAME_BYTES: usize = 16;

/// The largest payload a record may carry, in bytes (1 GiB): a larger length is corruption.
pub(crate) const MAX_PAYLOAD_BYTES: u32 = 1 << 30;

/// The file header.
pub(crate) fn header() -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    out[..8].copy_from_slice(MAGIC);
    out[8..12].copy_from_slice(&VERSION.to_le_bytes());
    out
}

/// One record's bytes: frame and payload.
pub(crate) fn encode(kind: u8, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(FRAME_BYTES + payload.len());
    out.extend_from_slice(&len.to_le_bytes());
    out.push(kind);
    out.extend_from_slice(&header_check(len, kind));
    out.extend_from_slice(&payload_check(kind, payload));
    out.extend_from_slice(payload);
    out
}

fn header_check(len: u32, kind: u8) -> [u8; 3] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&len.to_le_bytes());
    hasher.update(&[kind]);
    let hash = hasher.finalize();
    let mut out = [0u8; 3];
    out.copy_from_slice(&hash.as_bytes()[..3]);
    out
}

fn payload_check(kind: u8, payload: &[u8]) -> [u8; 8] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&[kind]);
    hasher.update(payload);
    let hash = hasher.finalize();
    let mut out = [0u8; 8];
    out.copy_from_slice(&hash.as_bytes()[..8]);
    out
}

/// A whole record read from the file.
pub(crate) struct RawRecord<'a> {
    /// The byte offset of its frame.
    pub(crate) offset: usize,
    pub(crate) kind: u8,
    pub(crate) payload: &'a [u8],
}

/// How reading a file's records ended.
pub(crate) enum Ending {
    /// The last record ends exactly at the end of the file.
    Clean,
    /// The file ends inside, or with a failed check of, its last record, starting at `offset`.
    Torn {
        /// The offset of the torn record's frame.
        offset: usize,
        /// What is wrong with it (one line).
        reason: &'static str,
    },
}

/// Why a file is not a store this code can read, or is corrupt.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The header is missing or not ours.
    NotAStore,
    /// The header names another version.
    Version(u32),
    /// A record fails its checks with more bytes after it.
    Corrupt { offset: usize, reason: &'static str },
}

/// Reads every whole record of `bytes` (a whole store file), in order.
pub(crate) fn read(bytes: &[u8]) -> Result<(Vec<RawRecord<'_>>, Ending), ReadError> {
    let header = bytes.get(..HEADER_BYTES).ok_or(ReadError::NotAStore)?;
    if &header[..8] != MAGIC {
        return Err(ReadError::NotAStore);
    }
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    if version != VERSION {
        return Err(ReadError::Version(version));
    }
    if header[12..16] != [0, 0, 0, 0] {
        return Err(ReadError::NotAStore);
    }
    let mut records = Vec::new();
    let mut at = HEADER_BYTES;
    while at < bytes.len() {
        let Some(frame) = bytes.get(at..at + FRAME_BYTES) else {
            let reason = "the file ends inside a record's frame";
            return Ok((records, Ending::Torn { offset: at, reason }));
        };
        let len = u32::from_le_bytes([frame[0], frame[1], frame[2], frame[3]]);
        let kind = frame[4];
        // A write cut short leaves a shorter file, never a whole frame that fails its check:
        // a bad frame is corruption wherever it is, unless the rest of the file is zero bytes
        // (a file system can extend a file with zeros when a power loss cuts a write).
        if frame[5..8] != header_check(len, kind) || len > MAX_PAYLOAD_BYTES {
            if bytes[at..].iter().all(|&b| b == 0) {
                let reason = "the file ends in zero bytes (a write a power loss cut short)";
                return Ok((records, Ending::Torn { offset: at, reason }));
            }
            return Err(ReadError::Corrupt {
                offset: at,
                reason: "the record's frame fails its check",
            });
        }
        let start = at + FRAME_BYTES;
        let end = start + len as usize;
        let Some(payload) = bytes.get(start..end) else {
            let reason = "the file ends inside a record's payload";
            return Ok((records, Ending::Torn { offset: at, reason }));
        };
        if frame[8..16] != payload_check(kind, payload) {
            if end == bytes.len() {
                let reason = "the last record fails its check";
                return Ok((records, Ending::Torn { offset: at, reason }));
            }
            return Err(ReadError::Corrupt {
                offset: at,
                reason: "the record's payload fails its check",
            });
        }
        records.push(RawRecord {
            offset: at,
            kind,
            payload,
        });
        at = end;
    }
    Ok((records, Ending::Clean))
}
