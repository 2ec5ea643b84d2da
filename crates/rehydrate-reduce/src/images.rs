//! The inline images of a growing session: which messages hold images over the trigger (the
//! protected window of image redaction counts them) and where each image's copies are.

use std::collections::HashMap;

use rehydrate_model::{Content, Digest, ImagePlace, Message};
use rehydrate_sidecar::{content_digest, image_data};

use crate::window::Window;

/// A message holding at least one inline image whose base64 data is over the trigger.
#[derive(Debug, Clone)]
pub(crate) struct ImageMessage {
    /// History index of the message.
    pub(crate) index: usize,
    /// The image parts over the trigger: part position and the digest of its base64 data.
    pub(crate) parts: Vec<(usize, Digest)>,
}

/// The images of a session, tracked as messages arrive.
#[derive(Debug, Clone, Default)]
pub(crate) struct Images {
    /// Every message with an image over the trigger, in history order.
    pub(crate) messages: Vec<ImageMessage>,
    /// The same messages, in the protected window of image redaction.
    pub(crate) window: Window,
    /// Every image over the trigger, by the digest of its base64 data: its places, ascending.
    places: HashMap<Digest, Vec<ImagePlace>>,
    /// The images arrived since the last projection, in arrival order.
    pending: Vec<(ImagePlace, Digest)>,
    /// Messages holding an earlier copy that were inside the cleared range when the later
    /// copy arrived, in the order they were met, each once: looked at again when the range
    /// shrinks.
    pub(crate) copies_skipped: Vec<usize>,
}

impl Images {
    /// Takes the message at history `index`: its inline images whose base64 data is strictly
    /// longer than `trigger` bytes, each hashed once. Returns whether it holds any.
    pub(crate) fn arrive(&mut self, index: usize, message: &Message, trigger: usize) -> bool {
        let Some(Content::Parts(parts)) = &message.content else {
            return false;
        };
        let mut found = Vec::new();
        for (part, p) in parts.iter().enumerate() {
            let Some(data) = image_data(p) else {
                continue;
            };
            if data.base64.len() <= trigger {
                continue;
            }
            let digest = content_digest(data.base64.as_bytes());
            let place = ImagePlace { index, part };
            self.places.entry(digest).or_default().push(place);
            self.pending.push((place, digest));
            found.push((part, digest));
        }
        if found.is_empty() {
            return false;
        }
        self.messages.push(ImageMessage {
            index,
            parts: found,
        });
        self.window.push(index);
        true
    }

    /// The images arrived since the last call, in arrival order.
    pub(crate) fn take_pending(&mut self) -> Vec<(ImagePlace, Digest)> {
        std::mem::take(&mut self.pending)
    }

    /// The history indices of the messages holding an earlier copy of the image at `place`
    /// (the same data, at an earlier place), ascending and each once.
    pub(crate) fn earlier_copies(&self, place: ImagePlace, digest: Digest) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .places
            .get(&digest)
            .into_iter()
            .flatten()
            .take_while(|p| **p < place)
            .map(|p| p.index)
            .collect();
        out.dedup();
        out
    }

    /// The latest place of an image with this data, among those at or before `until` when
    /// given: the copy that had arrived last when the image at `until` arrived.
    pub(crate) fn latest(&self, digest: &Digest, until: Option<ImagePlace>) -> Option<ImagePlace> {
        let places = self.places.get(digest)?;
        let Some(until) = until else {
            return places.last().copied();
        };
        let end = places.partition_point(|p| *p <= until);
        end.checked_sub(1).map(|at| places[at])
    }

    /// The image parts over the trigger of the message at history `index`, if it has any.
    pub(crate) fn parts_of(&self, index: usize) -> Option<&[(usize, Digest)]> {
        let at = self
            .messages
            .binary_search_by_key(&index, |m| m.index)
            .ok()?;
        Some(&self.messages[at].parts)
    }
}
