//! Image redaction: the stub, the view form (the first hidden image becomes a text part holding
//! the stub, the other hidden images are left out, every other part kept), resolution, expand,
//! inversion and the errors of a tampered or misaddressed reduction, with exact values.

use rehydrate_model::{
    Content, HiddenImage, ImagePlace, Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction,
    ReductionId, ReductionKind, Role, SidecarPtr,
};
use rehydrate_sidecar::{
    content_digest, expand_reduction, expected_stub, hidden_images_text, invert, stub_message,
    verify_log,
};
use rehydrate_test_support::{image_block, image_url_part, png_base64, text_part};
use serde_json::Value;

use crate::log_of;

/// A user message with text and two images (an Anthropic block of 640 x 480 pixels, 1200
/// bytes of base64, and a data URL of 32 x 16 pixels), then a tool result holding the first
/// image again.
fn session() -> Vec<Message> {
    let a = png_base64(640, 480, 900, b'a');
    let b = png_base64(32, 16, 600, b'b');
    let user = Message {
        role: Role::User,
        content: Some(Content::Parts(vec![
            text_part("what changed?"),
            image_block("image/png", &a),
            image_url_part("image/png", &b),
            text_part("see both"),
        ])),
        ..Message::default()
    };
    let result = Message {
        role: Role::Tool,
        tool_call_id: Some("toolu_1".into()),
        content: Some(Content::Parts(vec![image_block("image/png", &a)])),
        ..Message::default()
    };
    vec![user, result]
}

fn parts(m: &Message) -> &[Value] {
    match &m.content {
        Some(Content::Parts(p)) => p,
        _ => panic!("no parts"),
    }
}

/// The redaction of `images` in message 0 of `minted`, with its real digest and stub.
fn redaction(images: Vec<HiddenImage>, minted: &[Message]) -> Reduction {
    let positions: Vec<usize> = images.iter().map(|i| i.part).collect();
    let text = hidden_images_text(parts(&minted[0]), &positions).unwrap();
    let digest = content_digest(text.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(0, &digest),
        kind: ReductionKind::ImageRedacted {
            images,
            original_bytes: text.len(),
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 0,
                role: Role::User,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, minted);
    r
}

fn first_image() -> HiddenImage {
    HiddenImage {
        part: 1,
        media_type: Some("image/png".into()),
        data_bytes: 1200,
        pixels: Some([640, 480]),
        same_as: Some(ImagePlace { index: 1, part: 0 }),
    }
}

fn second_image() -> HiddenImage {
    HiddenImage {
        part: 2,
        media_type: Some("image/png".into()),
        data_bytes: 800,
        pixels: Some([32, 16]),
        same_as: None,
    }
}

#[test]
fn two_images_of_a_message_hide_behind_one_stub_and_come_back_exactly() {
    let minted = session();
    assert_eq!(png_base64(640, 480, 900, b'a').len(), 1200);
    let r = redaction(vec![first_image(), second_image()], &minted);
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:image {id} | 2 images hidden: image/png image at part 1 (640x480 pixels, 1200 bytes of base64), the same as message 1 part 0; image/png image at part 2 (32x16 pixels, 800 bytes of base64); expand_reduction restores them]"
        )
    );
    // The view: the first hidden part is the stub as a text part, the second is left out,
    // the text parts are the very same values.
    let view_msg = stub_message(&r, &minted[0]).unwrap();
    let original = parts(&minted[0]);
    assert_eq!(
        parts(&view_msg),
        &[original[0].clone(), text_part(&r.stub), original[3].clone()]
    );
    assert_eq!(
        view_msg.metadata.get(REDUCTION_METADATA_KEY),
        Some(&id.clone())
    );
    assert!(view_msg.wire_len() + 1700 < minted[0].wire_len());
    // Expand gives each hidden part as one compact JSON line, keys sorted, which parses back
    // to exactly the part it was.
    let log = log_of(vec![r.clone()]);
    let out = expand_reduction(&log, &minted, &id, None).unwrap();
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(r#"{"source":{"data":"iVBORw0KGgoAAAANSUhEUgAAAoAAAAHg"#));
    assert!(lines[1].starts_with(r#"{"image_url":{"url":"data:image/png;base64,iVBOR"#));
    for (line, k) in lines.iter().zip([1, 2]) {
        assert_eq!(&serde_json::from_str::<Value>(line).unwrap(), &original[k]);
    }
    assert_eq!(out.total_bytes, lines[0].len() + lines[1].len() + 2);
    let ranged = expand_reduction(&log, &minted, &id, Some((0, 10))).unwrap();
    assert_eq!(ranged.content, r#"{"source":"#);
    // Inversion puts the parts back in place.
    let view = vec![view_msg, minted[1].clone()];
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    assert!(verify_log(&log, &minted).is_empty());
}

#[test]
fn one_image_without_a_media_type_or_a_size() {
    let data = "QUJD".repeat(300);
    let minted = vec![Message {
        role: Role::Tool,
        tool_call_id: Some("toolu_1".into()),
        content: Some(Content::Parts(vec![serde_json::json!({
            "type": "image", "source": {"type": "base64", "data": data},
        })])),
        ..Message::default()
    }];
    let mut r = redaction(
        vec![HiddenImage {
            part: 0,
            media_type: None,
            data_bytes: 1200,
            pixels: None,
            same_as: None,
        }],
        &minted,
    );
    r.ptr.addr.role = Role::Tool;
    assert!(r.stub.ends_with(
        "| image at part 0 (1200 bytes of base64) hidden; expand_reduction restores it]"
    ));
    let view = stub_message(&r, &minted[0]).unwrap();
    assert_eq!(parts(&view), &[text_part(&r.stub)]);
    assert_eq!(view.tool_call_id.as_deref(), Some("toolu_1"));
    let log = log_of(vec![r]);
    assert!(verify_log(&log, &minted).is_empty());
    assert_eq!(invert(&[view], &log, &minted).unwrap(), minted);
}

/// The verification error of `r` against `minted`, as text after the id.
fn refused(r: Reduction, minted: &[Message]) -> String {
    let errors = verify_log(&log_of(vec![r]), minted);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let text = errors[0].to_string();
    text.split_once(": ").map(|(_, t)| t.to_string()).unwrap()
}

/// [`redaction`] whose facts are edited by `edit` after minting, stub rendered again so that
/// only the edited fact is wrong.
fn forged(edit: impl Fn(&mut HiddenImage)) -> String {
    let minted = session();
    let mut image = second_image();
    edit(&mut image);
    let mut r = redaction(vec![second_image()], &minted);
    r.kind = ReductionKind::ImageRedacted {
        images: vec![image],
        original_bytes: r.kind.original_bytes(),
    };
    r.stub = expected_stub(&r, &minted);
    refused(r, &minted)
}

#[test]
fn verification_refuses_a_wrong_part_a_part_that_is_no_image_and_forged_facts() {
    assert_eq!(
        forged(|i| i.part = 3),
        "part 3 of message 0 is not an inline image"
    );
    assert_eq!(
        forged(|i| i.part = 0),
        "part 0 of message 0 is not an inline image"
    );
    assert_eq!(
        forged(|i| i.part = 9),
        "part 9 of message 0 is not an inline image"
    );
    // Part 1 is an image, but not the one hashed.
    let minted = session();
    let wrong_part = forged(|i| {
        *i = HiddenImage {
            same_as: None,
            ..first_image()
        }
    });
    assert!(
        wrong_part.starts_with("digest mismatch at message 0"),
        "{wrong_part}"
    );
    assert_eq!(
        forged(|i| i.media_type = Some("image/jpeg".into())),
        "records another media type than part 2 of message 0 names"
    );
    assert_eq!(
        forged(|i| i.media_type = None),
        "records another media type than part 2 of message 0 names"
    );
    assert_eq!(
        forged(|i| i.data_bytes = 799),
        "records 799 bytes of data but part 2 of message 0 has 800"
    );
    assert_eq!(
        forged(|i| i.pixels = Some([16, 32])),
        "records another pixel size than the header of part 2 of message 0 gives"
    );
    assert_eq!(
        forged(|i| i.pixels = None),
        "records another pixel size than the header of part 2 of message 0 gives"
    );
    // A copy must be a later part holding the very same data.
    assert_eq!(
        forged(|i| i.same_as = Some(ImagePlace { index: 1, part: 0 })),
        "message 1 part 0 is not a copy of the image at message 0 part 2"
    );
    assert_eq!(
        forged(|i| i.same_as = Some(ImagePlace { index: 0, part: 1 })),
        "names message 0 part 1 as the later copy of message 0 part 2, which is not after it"
    );
    // A stub edited by hand.
    let mut r = redaction(vec![second_image()], &minted);
    r.stub = r.stub.replace("32x16", "3200x1600");
    assert!(refused(r, &minted).starts_with("stub does not match its reduction"));
    // No image at all, parts out of order, a span, a message without parts.
    let mut r = redaction(vec![second_image()], &minted);
    r.kind = ReductionKind::ImageRedacted {
        images: vec![],
        original_bytes: 0,
    };
    assert_eq!(
        refused(r, &minted),
        "an image redaction must hide at least one part, in ascending part order"
    );
    let r = redaction(vec![first_image(), second_image()], &minted);
    let mut swapped = r.clone();
    swapped.kind = ReductionKind::ImageRedacted {
        images: vec![second_image(), first_image()],
        original_bytes: r.kind.original_bytes(),
    };
    assert_eq!(
        refused(swapped, &minted),
        "an image redaction must hide at least one part, in ascending part order"
    );
    let mut spanned = redaction(vec![second_image()], &minted);
    spanned.ptr.span = Some(rehydrate_model::Span::new(0, 1).unwrap());
    assert_eq!(
        refused(spanned, &minted),
        "an image redaction hides whole parts and records no span"
    );
    let text_only = vec![Message::text(Role::User, "hi"), minted[1].clone()];
    assert_eq!(
        refused(redaction(vec![second_image()], &minted), &text_only),
        "an image redaction addresses message 0, which has no content parts"
    );
    // A recorded size that is not the hidden text's.
    let mut sized = redaction(vec![second_image()], &minted);
    sized.kind = ReductionKind::ImageRedacted {
        images: vec![second_image()],
        original_bytes: 5,
    };
    assert!(
        refused(sized, &minted).starts_with("records 5 original bytes but its hidden parts hash")
    );
}

#[test]
fn a_view_whose_kept_parts_were_edited_does_not_invert() {
    let minted = session();
    let r = redaction(vec![second_image()], &minted);
    let mut view_msg = stub_message(&r, &minted[0]).unwrap();
    if let Some(Content::Parts(p)) = &mut view_msg.content {
        p[0] = text_part("what changed");
    }
    let log = log_of(vec![r]);
    let err = invert(&[view_msg, minted[1].clone()], &log, &minted).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "view message 0: does not match the stub of reduction {}",
            log.reductions[0].id
        )
    );
}
