//! Data-driven reducer cases: each `fixtures/reduce/*.json` holds a note, policy overrides and
//! canonical messages; the view, the log and the view's OpenAI and Anthropic request bodies are
//! snapshotted, and every case must verify, expand and invert exactly, and give bodies that pass
//! both checkers.

use std::path::Path;

use rehydrate_formats::{Api, request_body};
use rehydrate_model::{Message, ReductionLog};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_sidecar::{expand_reduction, invert, verify_log};
use serde_json::Value;

fn policy_from(overrides: &Value) -> ReductionPolicy {
    let mut policy = ReductionPolicy::default();
    let Some(map) = overrides.as_object() else {
        return policy;
    };
    for (key, value) in map {
        let n =
            || usize::try_from(value.as_u64().expect("numeric policy field")).expect("fits usize");
        match key.as_str() {
            "tool_output_trigger_bytes" => policy.tool_output_trigger_bytes = n(),
            "head_bytes" => policy.head_bytes = n(),
            "tail_bytes" => policy.tail_bytes = n(),
            "protect_last_n_tool_results" => policy.protect_last_n_tool_results = n(),
            "dedupe_outputs" => policy.dedupe_outputs = value.as_bool().expect("boolean"),
            "clear_turns_older_than" => policy.clear_turns_older_than = Some(n()),
            "min_saved_bytes" => policy.min_saved_bytes = n(),
            "turns_summary" => policy.turns_summary = value.as_str().map(str::to_string),
            "assistant_text_trigger_bytes" => policy.assistant_text_trigger_bytes = Some(n()),
            "assistant_text_head_bytes" => policy.assistant_text_head_bytes = n(),
            "assistant_text_tail_bytes" => policy.assistant_text_tail_bytes = n(),
            "protect_last_n_assistant_messages" => {
                policy.protect_last_n_assistant_messages = n();
            }
            "tool_input_trigger_bytes" => policy.tool_input_trigger_bytes = Some(n()),
            "supersede_reruns" => policy.supersede_reruns = value.as_bool().expect("boolean"),
            "elide_rereads" => policy.elide_rereads = value.as_bool().expect("boolean"),
            "diff_rereads_max_per_mille" => {
                policy.diff_rereads_max_per_mille =
                    Some(u32::try_from(n()).expect("a per-mille share fits u32"));
            }
            "normalize_terminal_output" => {
                policy.normalize_terminal_output = value.as_bool().expect("boolean");
            }
            "follow_compactions" => {
                policy.follow_compactions = value.as_bool().expect("boolean");
            }
            "image_trigger_bytes" => policy.image_trigger_bytes = Some(n()),
            "protect_last_n_image_messages" => policy.protect_last_n_image_messages = n(),
            "superseded_command_fields" => {
                policy.superseded_command_fields = value
                    .as_array()
                    .expect("an array of field names")
                    .iter()
                    .map(|f| f.as_str().expect("a field name").to_string())
                    .collect();
            }
            other => panic!("unknown policy field `{other}`"),
        }
    }
    policy
}

fn check(path: &Path) {
    let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let policy = policy_from(&case["policy"]);
    let history: Vec<Message> = serde_json::from_value(case["messages"].clone()).unwrap();
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert!(verify_log(&out.log, &history).is_empty());
    assert_eq!(invert(&out.view, &out.log, &history).unwrap(), history);
    for r in &out.log.reductions {
        let full = expand_reduction(&out.log, &history, r.id.as_str(), None).unwrap();
        use rehydrate_model::ReductionKind as K;
        if let K::ToolOutputTruncated { .. }
        | K::AssistantTextTruncated { .. }
        | K::DuplicateOutput { .. }
        | K::Superseded { .. }
        | K::FileReadElided { .. }
        | K::FileReadDiffed { .. }
        | K::UnansweredCall { .. }
        | K::ToolInputElided { .. }
        | K::OutputNormalized { .. }
        | K::ImageRedacted { .. } = r.kind
        {
            assert_eq!(full.total_bytes, r.kind.original_bytes());
        }
    }
    // Whatever the input's defects, the view is a valid request body for both APIs.
    let body = |api| {
        let bytes =
            request_body(&out.view, api).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    let (openai, anthropic) = (body(Api::OpenAi), body(Api::Anthropic));
    let again = project_messages(&history, &out.log, &policy);
    assert_eq!(again.view, out.view);
    assert_eq!(again.log, out.log);
    insta::assert_json_snapshot!(serde_json::json!({
        "note": case["note"],
        "view": out.view,
        "log": out.log,
        "openai": openai,
        "anthropic": anthropic,
    }));
}

#[test]
fn reduce_fixtures() {
    insta::glob!("../../../../fixtures/reduce", "*.json", check);
}
