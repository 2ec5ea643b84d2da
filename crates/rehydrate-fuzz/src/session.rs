//! Generated sessions: the projection under a drawn policy (pairing repairs included), byte
//! ranges of `expand_reduction`, the intrinsics called with model-written arguments, and
//! `sidecar_search` with model-written patterns.

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use rehydrate::ReductionPolicy;
use rehydrate::intrinsics::{CallContext, Intrinsics};
use rehydrate::model::{Message, Role, ToolCall};
use rehydrate::reduce::project_messages;
use rehydrate::search::{SearchMode, SearchOptions, sidecar_search};
use rehydrate::sidecar::expand_reduction;

use crate::check::{messages_are_canonical, projection_keeps_its_promises};
use crate::generate;

/// A generated session with defects, projected under a drawn policy: the view is a valid
/// request body, inverts exactly, and every reduction expands to its bytes by any range.
pub(crate) fn projection(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(policy), Ok(history)) = (generate::policy(&mut u), generate::session(&mut u, 5)) else {
        return;
    };
    let mut ranges = Vec::new();
    while let (Ok(start), Ok(end)) = (u.arbitrary::<u16>(), u.arbitrary::<u16>()) {
        ranges.push((usize::from(start), usize::from(end)));
        if ranges.len() == 4 {
            break;
        }
    }
    messages_are_canonical(&history);
    projection_keeps_its_promises(&history, &policy, &ranges);
}

/// A model's call of either intrinsic, its arguments drawn: an object naming one of the log's
/// ids or another string, with a byte range or a query of any shape, or any text at all.
/// The answer is an ordinary tool result; one that is not an error serves exactly the bytes
/// `expand_reduction` gives.
pub(crate) fn intrinsics(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(history) = generate::session(&mut u, 3) else {
        return;
    };
    let out = project_messages(
        &history,
        &Default::default(),
        &ReductionPolicy::aggressive(),
    );
    let ids: Vec<&str> = out.log.reductions.iter().map(|r| r.id.as_str()).collect();
    let context = CallContext::new(&out.log, &history);
    for _ in 0..4 {
        let Ok(expand) = u.arbitrary::<bool>() else {
            return;
        };
        let arguments = match model_arguments(&mut u, &ids, expand) {
            Ok(arguments) => arguments,
            Err(_) => return,
        };
        let name = if expand {
            "expand_reduction"
        } else {
            "sidecar_search"
        };
        let answer = Intrinsics::call(name, &arguments, &context);
        if !expand || answer.is_error {
            continue;
        }
        let args: serde_json::Value =
            serde_json::from_str(&arguments).expect("accepted arguments are JSON");
        let id = args["id"].as_str().expect("accepted arguments name an id");
        let whole = expand_reduction(&out.log, &history, id, None)
            .expect("an id the intrinsic answered expands");
        if answer.content == whole.content {
            continue;
        }
        // A ranged answer: `[id: bytes start..end of total]`, a line break, those bytes.
        let (header, bytes) = answer
            .content
            .split_once('\n')
            .expect("a ranged answer has a header line");
        let numbers = header
            .strip_prefix(&format!("[{id}: bytes "))
            .and_then(|rest| rest.strip_suffix(']'))
            .expect("a ranged answer's header names its id and range");
        let (range, total) = numbers.split_once(" of ").expect("the header has a total");
        let (start, end) = range.split_once("..").expect("the header has a range");
        let parse = |n: &str| {
            n.parse::<usize>()
                .expect("the header's numbers are integers")
        };
        assert_eq!(parse(total), whole.total_bytes);
        assert!(
            whole.content.get(parse(start)..parse(end)) == Some(bytes),
            "{id}: the intrinsic served bytes that are not the original's {range}"
        );
    }
}

/// Arguments a model might write for one intrinsic call.
fn model_arguments(
    u: &mut Unstructured<'_>,
    ids: &[&str],
    expand: bool,
) -> arbitrary::Result<String> {
    if u.ratio(1, 8)? {
        return generate::text(u, 2);
    }
    let mut args = serde_json::Map::new();
    if expand {
        let id = if !ids.is_empty() && u.ratio(3, 4)? {
            (*u.choose(ids)?).to_string()
        } else {
            generate::text(u, 1)?
        };
        args.insert("id".into(), id.into());
        if u.arbitrary()? {
            let range = match u.int_in_range(0..=3)? {
                0 => serde_json::json!([u.arbitrary::<u32>()?, u.arbitrary::<u32>()?]),
                1 => serde_json::json!([u.arbitrary::<i64>()?, u.arbitrary::<f64>()?]),
                2 => serde_json::json!({"start": u.arbitrary::<u16>()?}),
                _ => serde_json::json!(generate::text(u, 1)?),
            };
            args.insert("byte_range".into(), range);
        }
    } else {
        args.insert("query".into(), generate::text(u, 2)?.into());
        if u.arbitrary()? {
            let mode = *u.choose(&["auto", "literal", "regex", "glob", ""])?;
            args.insert("mode".into(), mode.into());
        }
        if u.arbitrary()? {
            args.insert("max_matches".into(), u.arbitrary::<i32>()?.into());
        }
    }
    if u.ratio(1, 8)? {
        args.insert(generate::text(u, 1)?, serde_json::Value::Null);
    }
    Ok(serde_json::Value::Object(args).to_string())
}

/// How many bytes of tool output the search target hides.
const SEARCHED_BYTES: usize = 32 * 1024;

/// A bound no linear search of [`SEARCHED_BYTES`] comes near, even unoptimized on a loaded
/// machine; a search quadratic in the hidden bytes is far past it.
const SEARCH_BOUND: Duration = Duration::from_secs(2);

/// A model-written pattern in each mode over a generated hidden text: the result stays
/// within its bounds, names only the log's reductions, finds a literal that is there, and
/// takes time linear in the hidden bytes.
pub(crate) fn search(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(pattern), Ok(seed), Ok(case_sensitive)) = (
        u.arbitrary::<String>(),
        generate::text(&mut u, 6),
        u.arbitrary::<bool>(),
    ) else {
        return;
    };
    let seed = if seed.is_empty() {
        "x".to_string()
    } else {
        seed
    };
    let output = seed.repeat(SEARCHED_BYTES / seed.len() + 1);
    let history = vec![
        Message::text(Role::User, "run it"),
        Message {
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "bash".into(),
                arguments: "{\"command\":\"make\"}".into(),
            }],
            ..Message::text(Role::Assistant, "")
        },
        Message::tool_result("call_1", output.clone()),
        Message::text(Role::User, "next"),
        Message::text(Role::Assistant, "done"),
    ];
    let policy = ReductionPolicy {
        tool_output_trigger_bytes: 0,
        head_bytes: 0,
        tail_bytes: 0,
        protect_last_n_tool_results: 0,
        min_saved_bytes: 0,
        ..ReductionPolicy::default()
    };
    let out = project_messages(&history, &Default::default(), &policy);
    for mode in [SearchMode::Auto, SearchMode::Literal, SearchMode::Regex] {
        let options = SearchOptions {
            mode,
            case_sensitive,
            ..SearchOptions::default()
        };
        let started = Instant::now();
        let result = sidecar_search(&out.log, &history, &pattern, &options);
        let took = started.elapsed();
        assert!(
            took < SEARCH_BOUND,
            "{mode:?} search of {} hidden bytes took {took:?}",
            output.len()
        );
        let Ok(result) = result else {
            continue;
        };
        assert!(result.matches.len() <= options.max_matches);
        assert!(result.total_matches >= result.matches.len());
        let bytes: usize = result.matches.iter().map(|m| m.snippet.len()).sum();
        assert!(
            bytes <= options.max_result_bytes,
            "{bytes} bytes of snippets"
        );
        for m in &result.matches {
            assert!(out.log.get(m.reduction_id.as_str()).is_some());
        }
        if mode == SearchMode::Literal
            && case_sensitive
            && !pattern.trim().is_empty()
            && !out.log.reductions.is_empty()
            && output.contains(pattern.as_str())
        {
            // The hidden middle is the whole output here (no head, no tail kept).
            assert!(
                result.total_matches > 0,
                "a literal that is there was not found"
            );
        }
    }
}
