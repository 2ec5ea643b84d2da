//! The properties the targets share: what holds for every list of messages an importer gives
//! or a generator draws, and for every projection of it.

use rehydrate::formats::{Api, check_request};
use rehydrate::model::Message;
use rehydrate::reduce::{UNREPAIRED_RULES, project_messages};
use rehydrate::sidecar::{expand_reduction, invert, verify_log};
use rehydrate::{ReductionLog, ReductionPolicy};

/// Sessions longer than this are imported but not projected: a fuzz input's time goes to
/// finding new paths, not to reducing long sessions (the property tests and the corpus check
/// do that).
const MAX_PROJECTED: usize = 400;

/// Every message is one the model crate accepts: its canonical bytes are serde's, and they
/// read back into the same message.
///
/// # Panics
///
/// When a message's canonical bytes differ from serde_json's, or do not read back equal.
pub(crate) fn messages_are_canonical(messages: &[Message]) {
    let mut canonical = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        canonical.clear();
        m.write_canonical(&mut canonical);
        let serde = serde_json::to_vec(m).expect("a message serializes");
        assert!(
            canonical == serde,
            "message {i}: canonical bytes differ from serde_json's"
        );
        let back: Message = serde_json::from_slice(&canonical)
            .unwrap_or_else(|e| panic!("message {i}: canonical bytes do not read back: {e}"));
        assert!(
            back == *m,
            "message {i}: canonical bytes read back differently"
        );
    }
}

/// Projects `history` under `policy` and checks the promises of a view: every reduction
/// verifies, the view is a valid request body for both APIs (but for the rules no repair covers, [`UNREPAIRED_RULES`]),
/// it inverts to `history` exactly, and every reduction expands, whole and by any range, to
/// exactly its bytes. Returns the projection's log.
///
/// # Panics
///
/// When one of those promises does not hold.
pub(crate) fn projection_keeps_its_promises(
    history: &[Message],
    policy: &ReductionPolicy,
    ranges: &[(usize, usize)],
) -> Option<ReductionLog> {
    if history.len() > MAX_PROJECTED {
        return None;
    }
    let out = project_messages(history, &ReductionLog::default(), policy);
    let failed = verify_log(&out.log, history);
    assert!(
        failed.is_empty(),
        "reductions that do not verify: {failed:?}"
    );
    for api in [Api::OpenAi, Api::Anthropic] {
        let violations: Vec<_> = check_request(&out.view, api)
            .into_iter()
            .filter(|v| !UNREPAIRED_RULES.contains(&v.rule))
            .collect();
        assert!(violations.is_empty(), "{api}: {violations:?}");
    }
    let inverted = invert(&out.view, &out.log, history).expect("the view inverts");
    assert!(inverted == history, "the view inverts to other messages");
    for r in &out.log.reductions {
        let whole = expand_reduction(&out.log, history, r.id.as_str(), None)
            .unwrap_or_else(|e| panic!("{}: does not expand: {e}", r.id));
        assert_eq!(whole.total_bytes, whole.content.len());
        for &(start, end) in ranges {
            let Ok(part) = expand_reduction(&out.log, history, r.id.as_str(), Some((start, end)))
            else {
                continue;
            };
            let span = part.range.expect("a ranged expand says its range");
            assert!(
                whole.content.get(span.start()..span.end()) == Some(&*part.content),
                "{}: range {start}..{end} served other bytes than {}..{} of the original",
                r.id,
                span.start(),
                span.end()
            );
        }
    }
    Some(out.log)
}
