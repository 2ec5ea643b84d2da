//! Integration tests of rehydrate-intrinsics.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod list;
mod validation;

use rehydrate_model::{Message, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};

/// A session of `outputs` build outputs under the default policy: every one before the
/// protected three is truncated (ordinals from 0).
fn session(outputs: usize) -> (Vec<Message>, ReductionLog) {
    let mut history = vec![Message::text(Role::User, "build")];
    for i in 0..outputs {
        history.push(Message::tool_call(format!("c{i}"), "cargo", "{}"));
        history.push(Message::tool_result(
            format!("c{i}"),
            format!("step {i}: compiling crate-{i:03}\n").repeat(600),
        ));
    }
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert!(!out.log.reductions.is_empty(), "the session reduces");
    (history, out.log)
}
