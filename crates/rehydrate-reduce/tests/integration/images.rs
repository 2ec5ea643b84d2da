//! Image redaction in the reducer: the trigger, the protected window of messages with images,
//! copies collapsed as soon as a later copy arrives (naming the latest), one decision per
//! message, and a resumed log's redaction reused, with exact values.

use rehydrate_model::{
    Content, HiddenImage, ImagePlace, Message, ReductionKind, ReductionLog, Role,
};
use rehydrate_reduce::{Minting, Reducer, ReductionPolicy, project_messages};
use rehydrate_sidecar::{invert, verify_log};
use rehydrate_test_support::{assistant_call, image_block, png_base64, text_part};

fn policy(trigger: usize, protect: usize) -> ReductionPolicy {
    ReductionPolicy {
        image_trigger_bytes: Some(trigger),
        protect_last_n_image_messages: protect,
        minting: Minting::PerTurn,
        ..ReductionPolicy::default()
    }
}

/// A screenshot call and its result holding `data` as an Anthropic image block.
fn shot(id: &str, data: &str) -> [Message; 2] {
    [
        assistant_call(id, "screenshot", "{}"),
        Message {
            content: Some(Content::Parts(vec![image_block("image/png", data)])),
            ..Message::tool_result(id, String::new())
        },
    ]
}

fn images_of(kind: &ReductionKind) -> &[HiddenImage] {
    match kind {
        ReductionKind::ImageRedacted { images, .. } => images,
        other => panic!("not an image redaction: {other:?}"),
    }
}

#[test]
fn an_image_over_the_trigger_is_hidden_once_its_message_leaves_the_window() {
    // 1200 and 1204 bytes of base64, with a 1200-byte trigger.
    let at = png_base64(100, 50, 900, b'a');
    let over = png_base64(100, 50, 903, b'b');
    assert_eq!((at.len(), over.len()), (1200, 1204));
    let mut history = vec![Message::text(Role::User, "look")];
    history.extend(shot("t0", &at));
    history.extend(shot("t1", &over));
    history.extend(shot("t2", &png_base64(10, 10, 2000, b'c')));
    // Two messages over the trigger with the window at 1: t1's image is old, t0's is at the
    // trigger (not counted, kept).
    let out = project_messages(&history, &ReductionLog::default(), &policy(1200, 1));
    assert_eq!(out.log.len(), 1);
    let r = &out.log.reductions[0];
    assert_eq!(r.ptr.addr.index, 4);
    assert_eq!(
        images_of(&r.kind),
        &[HiddenImage {
            part: 0,
            media_type: Some("image/png".into()),
            data_bytes: 1204,
            pixels: Some([100, 50]),
            same_as: None,
        }]
    );
    assert_eq!(out.view[2], history[2]);
    assert_eq!(out.view[6], history[6]);
    assert!(verify_log(&out.log, &history).is_empty());
    assert_eq!(invert(&out.view, &out.log, &history).unwrap(), history);
    // With a window of 2, nothing is old yet.
    let out = project_messages(&history, &ReductionLog::default(), &policy(1200, 2));
    assert!(out.log.is_empty());
    // Off by default.
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::default(),
    );
    assert!(out.log.is_empty());
}

#[test]
fn earlier_copies_collapse_at_once_naming_the_latest_copy() {
    let same = png_base64(1280, 800, 1500, b's');
    let mut reducer = Reducer::new(policy(1024, 3));
    reducer.project([Message::text(Role::User, "watch the page")]);
    assert_eq!(reducer.project(shot("t0", &same)), 0);
    // The second copy hides the first at once (a window of 3 would keep it for its age).
    assert_eq!(reducer.project(shot("t1", &same)), 1);
    // The third hides the second, naming itself; the first keeps its stub naming the second.
    assert_eq!(reducer.project(shot("t2", &same)), 1);
    let log = reducer.log();
    let named: Vec<(usize, Option<ImagePlace>)> = log
        .reductions
        .iter()
        .map(|r| (r.ptr.addr.index, images_of(&r.kind)[0].same_as))
        .collect();
    assert_eq!(
        named,
        [
            (2, Some(ImagePlace { index: 4, part: 0 })),
            (4, Some(ImagePlace { index: 6, part: 0 })),
        ]
    );
    assert_eq!(
        log.reductions[1].stub,
        format!(
            "[rehydrate:image {} | image/png image at part 0 (1280x800 pixels, 2000 bytes of base64), the same as message 6 part 0, hidden; expand_reduction restores it]",
            log.reductions[1].id
        )
    );
    // The newest copy is in the view.
    let view = reducer.view().to_vec();
    assert_eq!(view[6], reducer.history()[6]);
    let history = reducer.history().to_vec();
    assert_eq!(invert(&view, log, &history).unwrap(), history);
}

#[test]
fn a_message_whose_copy_was_hidden_keeps_its_other_images() {
    let copied = png_base64(64, 64, 1500, b'c');
    let other = png_base64(32, 32, 1500, b'o');
    let history = vec![
        Message {
            role: Role::User,
            content: Some(Content::Parts(vec![
                text_part("two pictures"),
                image_block("image/png", &copied),
                image_block("image/png", &other),
            ])),
            ..Message::default()
        },
        Message {
            role: Role::User,
            content: Some(Content::Parts(vec![image_block("image/png", &copied)])),
            ..Message::default()
        },
        Message::text(Role::User, "a"),
        Message {
            role: Role::User,
            content: Some(Content::Parts(vec![image_block(
                "image/png",
                &png_base64(1, 1, 1500, b'x'),
            )])),
            ..Message::default()
        },
    ];
    // A window of 1: message 0 is old, but its copy was decided first and it keeps `other`.
    let out = project_messages(&history, &ReductionLog::default(), &policy(1024, 1));
    let decided: Vec<(usize, Vec<usize>)> = out
        .log
        .reductions
        .iter()
        .map(|r| {
            (
                r.ptr.addr.index,
                images_of(&r.kind).iter().map(|i| i.part).collect(),
            )
        })
        .collect();
    assert_eq!(decided, [(0, vec![1]), (1, vec![0])]);
    let Some(Content::Parts(parts)) = &out.view[0].content else {
        panic!("parts");
    };
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[2], image_block("image/png", &other));
    assert!(verify_log(&out.log, &history).is_empty());
}

#[test]
fn a_resumed_redaction_is_reused_and_an_edited_message_decided_again() {
    let mut history = vec![Message::text(Role::User, "look")];
    for (i, seed) in [b'a', b'b', b'c'].into_iter().enumerate() {
        history.extend(shot(&format!("t{i}"), &png_base64(20, 20, 1500, seed)));
    }
    let first = project_messages(&history, &ReductionLog::default(), &policy(1024, 2));
    assert_eq!(first.log.len(), 1);
    let again = project_messages(&history, &first.log, &policy(1024, 2));
    assert_eq!((again.minted, &again.view), (0, &first.view));
    // The hidden image changed in the sidecar: the logged redaction no longer verifies, and a
    // new one is minted for the message.
    let mut edited = history.clone();
    edited[2].content = Some(Content::Parts(vec![image_block(
        "image/png",
        &png_base64(20, 20, 1500, b'z'),
    )]));
    let out = project_messages(&edited, &first.log, &policy(1024, 2));
    assert_eq!(out.minted, 1);
    assert_eq!(out.log.len(), 2);
    assert_eq!(out.log.reductions[1].ptr.addr.index, 2);
    assert_eq!(verify_log(&out.log, &edited).len(), 1);
}

#[test]
fn the_aggressive_preset_hides_old_images() {
    let mut history = vec![Message::text(Role::User, "look")];
    for (i, seed) in [b'a', b'b', b'c', b'd'].into_iter().enumerate() {
        history.extend(shot(&format!("t{i}"), &png_base64(20, 20, 1500, seed)));
    }
    let out = project_messages(
        &history,
        &ReductionLog::default(),
        &ReductionPolicy::aggressive(),
    );
    let images: Vec<usize> = out
        .log
        .reductions
        .iter()
        .filter(|r| matches!(r.kind, ReductionKind::ImageRedacted { .. }))
        .map(|r| r.ptr.addr.index)
        .collect();
    assert_eq!(images, [2]);
}

/// Found by CI's run of the defect property: a copy is decided when it arrives, naming the
/// copies that had arrived by then, whether the session came message by message or at once.
/// Fed at once, message 1's first image used to name message 5 (the latest copy of the whole
/// batch); fed message by message, it names message 1's own second copy.
#[test]
fn a_copy_names_the_copies_arrived_before_it_however_the_session_is_fed() {
    let small = png_base64(8, 8, 200, b's');
    let big = png_base64(800, 600, 1100, b'b');
    let part = |data: &str| image_block("image/png", data);
    let history = vec![
        Message::text(Role::User, "look"),
        Message {
            content: Some(Content::Parts(vec![
                text_part("two"),
                part(&small),
                part(&small),
            ])),
            ..Message::text(Role::User, "")
        },
        Message::text(Role::Assistant, "seen"),
        Message {
            content: Some(Content::Parts(vec![text_part("one"), part(&big)])),
            ..Message::text(Role::User, "")
        },
        Message::text(Role::Assistant, "seen"),
        Message {
            content: Some(Content::Parts(vec![
                text_part("both"),
                part(&big),
                part(&small),
            ])),
            ..Message::text(Role::User, "")
        },
    ];
    let policy = policy(0, 2);
    let one_shot = project_messages(&history, &ReductionLog::default(), &policy);
    let mut reducer = Reducer::new(policy);
    for m in &history {
        reducer.project([m.clone()]);
    }
    let places = |log: &ReductionLog| -> Vec<(usize, Vec<Option<ImagePlace>>)> {
        log.reductions
            .iter()
            .map(|r| {
                let named = images_of(&r.kind).iter().map(|i| i.same_as).collect();
                (r.ptr.addr.index, named)
            })
            .collect()
    };
    let at = |index, part| Some(ImagePlace { index, part });
    assert_eq!(
        places(&one_shot.log),
        [(1, vec![at(1, 2)]), (3, vec![at(5, 1)])]
    );
    assert_eq!(reducer.log(), &one_shot.log);
}
