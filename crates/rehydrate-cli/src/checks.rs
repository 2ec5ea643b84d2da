//! The checks more than one subcommand makes: a projection against its messages, a view as
//! a request body of both APIs.

use rehydrate::formats::{Api, Rule, check_request};
use rehydrate::model::{Message, ReductionLog};
use rehydrate::sidecar::{check_inverts, verify_log};

use crate::failure::Failure;

/// Checks a projection against the messages it was made from: every reduction verifies and
/// the view inverts to exactly `messages`. Nothing is copied; the two checks run in parallel.
pub(crate) fn check_projection(
    messages: &[Message],
    view: &[&Message],
    log: &ReductionLog,
) -> Result<(), Failure> {
    let (log_errors, inverted) = std::thread::scope(|scope| {
        let log_errors = scope.spawn(|| verify_log(log, messages));
        // check_inverts checks every view message against the imported messages as well.
        let inverted = check_inverts(view.iter().copied(), log, messages);
        (join(log_errors), inverted)
    });
    let mut failures: Vec<String> = log_errors.iter().map(ToString::to_string).collect();
    if let Err(e) = inverted {
        failures.push(e.to_string());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::Verify(failures))
    }
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
