//! The checks more than one subcommand makes: a projection against its messages, a view as
//! a request body of both APIs.

use rehydrate::formats::{Api, Rule, check_request};
use rehydrate::model::{Message, ReductionLog};
use rehydrate::sidecar::{VerifiedCache, check_inverts_verified, verify_log_cached};

use crate::failure::Failure;

/// Checks a projection against the messages it was made from: every reduction verifies and
/// the view inverts to exactly `messages`. Nothing is copied, and each reduction is verified
/// once.
pub(crate) fn check_projection(
    messages: &[Message],
    view: &[&Message],
    log: &ReductionLog,
) -> Result<(), Failure> {
    let failures = check_lines(messages, view.iter().copied(), log);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(failures))
    }
}

/// Every reduction of `log` verified against `messages` (each once), then the view checked to
/// invert to them: one line per failure, a reduction that failed reported once.
pub(crate) fn check_lines<'a>(
    messages: &[Message],
    view: impl IntoIterator<Item = &'a Message>,
    log: &ReductionLog,
) -> Vec<String> {
    let mut verified = VerifiedCache::default();
    let mut failures: Vec<String> = verify_log_cached(log, messages, &mut verified)
        .iter()
        .map(ToString::to_string)
        .collect();
    // A reduction that failed above fails the inversion with the same error: reported once.
    if let Err(e) = check_inverts_verified(view, log, messages, &verified)
        && !failures.contains(&e.to_string())
    {
        failures.push(e.to_string());
    }
    failures
}

/// The result of a scoped thread; a panic in it continues in the caller.
pub(crate) fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What [`check_view`] found.
pub(crate) struct ViewCheck {
    /// One line per rule of "Request validity" the view breaks, for either API, but for
    /// having no message at all.
    pub(crate) violations: Vec<String>,
    /// For OpenAI and Anthropic, whether the view holds a message the body carries.
    pub(crate) sendable: [bool; 2],
}

/// Checks a view as a request body of both APIs (docs/FORMATS.md, "Request validity").
pub(crate) fn check_view(view: &[impl std::borrow::Borrow<Message>]) -> ViewCheck {
    let mut checked = ViewCheck {
        violations: Vec::new(),
        sendable: [true, true],
    };
    for (k, api) in [Api::OpenAi, Api::Anthropic].into_iter().enumerate() {
        for v in check_request(view, api) {
            if v.rule == Rule::NoMessages {
                checked.sendable[k] = false;
            } else {
                checked
                    .violations
                    .push(format!("view.json is not a valid {api} request body: {v}"));
            }
        }
    }
    checked
}

/// The total wire bytes of `messages` ([`Message::wire_len`]).
pub(crate) fn wire_bytes<'a>(messages: impl IntoIterator<Item = &'a Message>) -> usize {
    messages.into_iter().map(Message::wire_len).sum()
}
