//! [`Digest`]: a 32-byte content digest, written as 64 lowercase hex characters.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, clip};

/// A 32-byte digest of exact original bytes (blake3 in this workspace; see `rehydrate-sidecar`).
///
/// `Display` and serde write 64 lowercase hex characters; `FromStr` and serde accept upper or
/// lower case.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// The raw 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The first `n` hex characters (`n` is clamped to 64), used in reduction ids.
    pub fn short_hex(&self, n: usize) -> String {
        self.hex()[..n.min(64)].to_string()
    }

    /// Appends the first `n` hex characters (`n` is clamped to 64) to `out`.
    pub(crate) fn push_short_hex(&self, out: &mut String, n: usize) {
        out.push_str(&self.hex()[..n.min(64)]);
    }

    /// The 64 lowercase hex characters.
    fn hex(&self) -> HexBuf {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 64];
        for (pair, b) in out.chunks_exact_mut(2).zip(self.0) {
            pair[0] = DIGITS[usize::from(b >> 4)];
            pair[1] = DIGITS[usize::from(b & 0xf)];
        }
        HexBuf(out)
    }
}

/// 64 ASCII hex digits.
struct HexBuf([u8; 64]);

impl std::ops::Deref for HexBuf {
    type Target = str;

    fn deref(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex digits are ASCII")
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl FromStr for Digest {
    type Err = Error;

    /// Parses 64 hex characters.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidDigest`] when the text is not exactly 64 hex characters.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || Error::InvalidDigest { text: clip(s) };
        let bytes = s.as_bytes();
        if bytes.len() != 64 {
            return Err(invalid());
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let hi = hex_value(pair[0]).ok_or_else(invalid)?;
            let lo = hex_value(pair[1]).ok_or_else(invalid)?;
            out[i] = (hi << 4) | lo;
        }
        Ok(Digest(out))
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
