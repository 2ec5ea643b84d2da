//! The two resolution sources (SPEC seed 000 rule 5): the host's minted view, which every
//! reduction is verified against, and, optionally, the messages a session store recorded, whose
//! fuller bytes replace a tool output the host capped.

use std::borrow::Cow;

use rehydrate_model::{CAP_NOTICE_MARKER, Content, Message};

/// Where reductions resolve: the minted view, and the recorded messages when a store kept them.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The host's minted view: what the reductions were minted against and are verified with.
    pub minted: &'a [Message],
    /// The messages a session store (`rehydrate-store`) recorded for the same session, if any.
    pub recorded: Option<&'a [Message]>,
}

impl<'a> Sources<'a> {
    /// The minted view alone.
    pub fn minted(minted: &'a [Message]) -> Sources<'a> {
        Sources {
            minted,
            recorded: None,
        }
    }

    /// The minted view and the recorded messages.
    pub fn with_recorded(minted: &'a [Message], recorded: &'a [Message]) -> Sources<'a> {
        Sources {
            minted,
            recorded: Some(recorded),
        }
    }
}

impl<'a> Sources<'a> {
    /// The recorded text that supersedes `minted_text`, the verified text of the minted message
    /// at `index`, when the supersession key matches (see [`Sources`] and docs/FORMATS.md, "Two
    /// resolution sources"); `None` keeps the minted text.
    pub fn upgraded_text(&self, index: usize, minted_text: &str) -> Option<&'a str> {
        let minted = self.minted.get(index)?;
        upgrade(self.recorded, index, minted, minted_text)
    }

    /// The minted messages `messages` (the view's from index `first`) with each text the
    /// recorded messages supersede replaced; borrowed when none is.
    pub fn upgraded_range<'m>(&self, first: usize, messages: &'m [Message]) -> Cow<'m, [Message]> {
        upgrade_range(self.recorded, first, messages)
    }
}

impl<'a> From<&'a [Message]> for Sources<'a> {
    fn from(minted: &'a [Message]) -> Self {
        Sources::minted(minted)
    }
}

impl<'a> From<&'a Vec<Message>> for Sources<'a> {
    fn from(minted: &'a Vec<Message>) -> Self {
        Sources::minted(minted)
    }
}

impl<'a, const N: usize> From<&'a [Message; N]> for Sources<'a> {
    fn from(minted: &'a [Message; N]) -> Self {
        Sources::minted(minted)
    }
}

/// The recorded content that supersedes `minted_text`, the verified text of the minted message
/// at `index`, or `None` to keep the minted text (SPEC seed 000 rule 5).
///
/// The recorded message supersedes only when the supersession key matches exactly: a recorded
/// message at the same index, the same role, a `tool_call_id` on both sides and equal, text
/// content that differs, and the minted text is a capped prefix of it: it holds
/// [`CAP_NOTICE_MARKER`], and the recorded text is longer than the bytes before the marker's last
/// occurrence and starts with them.
pub(crate) fn upgrade<'a>(
    recorded: Option<&'a [Message]>,
    index: usize,
    minted: &Message,
    minted_text: &str,
) -> Option<&'a str> {
    let rec = recorded?.get(index)?;
    if rec.role != minted.role {
        return None;
    }
    match (&rec.tool_call_id, &minted.tool_call_id) {
        (Some(a), Some(b)) if a == b => {}
        _ => return None,
    }
    let Some(Content::Text(full)) = &rec.content else {
        return None;
    };
    if full == minted_text {
        return None;
    }
    let p = minted_text.rfind(CAP_NOTICE_MARKER)?;
    let kept = &minted_text[..p];
    (full.len() > p && full.starts_with(kept)).then_some(full.as_str())
}

/// `messages` (the minted messages from index `first`) with each text superseded by its
/// recorded content where [`upgrade`] says so; borrowed when none is.
pub(crate) fn upgrade_range<'a>(
    recorded: Option<&[Message]>,
    first: usize,
    messages: &'a [Message],
) -> Cow<'a, [Message]> {
    if recorded.is_none() {
        return Cow::Borrowed(messages);
    }
    let mut out: Option<Vec<Message>> = None;
    for (offset, m) in messages.iter().enumerate() {
        let Some(Content::Text(text)) = &m.content else {
            continue;
        };
        if let Some(full) = upgrade(recorded, first + offset, m, text) {
            let out = out.get_or_insert_with(|| messages.to_vec());
            out[offset].content = Some(Content::Text(full.to_string()));
        }
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(messages),
    }
}
