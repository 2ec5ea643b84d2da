//! Image redactions are never searched: a query spelling a hidden image's base64 finds
//! nothing, while the text parts around it stay in the view.

use rehydrate_model::{Content, Message, ReductionKind, ReductionLog, Role};
use rehydrate_reduce::{ReductionPolicy, project_messages};
use rehydrate_search::{SearchOptions, hidden_texts, sidecar_search};
use rehydrate_test_support::{assistant_call, image_block, png_base64, text_part};

#[test]
fn a_hidden_image_never_matches_a_query() {
    let data = png_base64(1280, 800, 3000, b'Q');
    let mut history = vec![Message {
        role: Role::User,
        content: Some(Content::Parts(vec![
            text_part("the page"),
            image_block("image/png", &data),
        ])),
        ..Message::default()
    }];
    for i in 0..3 {
        let id = format!("t{i}");
        history.push(assistant_call(&id, "screenshot", "{}"));
        let shot = png_base64(640, 480, 3000, b'a' + i);
        history.push(Message {
            content: Some(Content::Parts(vec![image_block("image/png", &shot)])),
            ..Message::tool_result(id, String::new())
        });
    }
    let policy = ReductionPolicy {
        image_trigger_bytes: Some(1024),
        protect_last_n_image_messages: 3,
        ..ReductionPolicy::default()
    };
    let out = project_messages(&history, &ReductionLog::default(), &policy);
    assert_eq!(out.log.len(), 1);
    assert!(matches!(
        out.log.reductions[0].kind,
        ReductionKind::ImageRedacted { .. }
    ));
    let hidden = hidden_texts(&out.log, &history);
    assert!(hidden.texts.is_empty());
    assert_eq!(hidden.unsearchable.len(), 1);
    // The base64 of the hidden image (`UVFR` is `QQQ`), its media type, its JSON keys.
    for query in ["UVFRUVFR", "image/png", "source", "base64"] {
        let result = sidecar_search(&out.log, &history, query, &SearchOptions::default()).unwrap();
        assert_eq!(result.total_matches, 0, "{query}");
    }
}
