//! Normalized terminal output (docs/FORMATS.md, "Terminal output"): the view shows what a
//! terminal would finally display after a `terminal` stub, expand gives the raw text back, and
//! verification recomputes the normalization and refuses every fact that does not match.

use rehydrate_model::{
    Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction, ReductionId, ReductionKind,
    ReductionLog, Role, SidecarPtr, Span,
};
use rehydrate_sidecar::{
    Error, content_digest, expand_reduction, expected_stub, invert, normalize_terminal,
    reduction_total_bytes, stub_message, verify_log,
};
use rehydrate_test_support::assistant_call;

/// A cargo build: two redrawn progress lines and a coloured status line.
const RAW: &str = concat!(
    "\x1b[1m\x1b[32m   Compiling\x1b[0m libc v0.2.150\n",
    "\x1b[1m\x1b[36m    Building\x1b[0m [=====>    ] 1/2: libc\r",
    "\x1b[K\x1b[1m\x1b[32m    Finished\x1b[0m `dev` profile in 4.20s\n",
);
const SHOWN: &str = "   Compiling libc v0.2.150\n    Finished `dev` profile in 4.20s\n";

fn minted() -> Vec<Message> {
    vec![
        Message::text(Role::User, "build it"),
        assistant_call("c1", "bash", r#"{"command":"cargo build"}"#),
        Message::tool_result("c1", RAW),
    ]
}

/// The normalized output of message `index` (text `raw`) with `cut` of its normalized text
/// hidden, and the stub [`expected_stub`] renders.
fn normalized(ordinal: usize, index: usize, raw: &str, cut: Option<(usize, usize)>) -> Reduction {
    let screen = normalize_terminal(raw).unwrap();
    let cut = cut.map(|(s, e)| Span::new(s, e).unwrap());
    let hidden_lines = cut.map_or(0, |c| screen[c.range()].matches('\n').count());
    let digest = content_digest(raw.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(ordinal, &digest),
        kind: ReductionKind::OutputNormalized {
            original_bytes: raw.len(),
            normalized_bytes: screen.len(),
            cut,
            hidden_lines,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Tool,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, &[]);
    r
}

fn view_of(minted: &[Message], r: &Reduction) -> Vec<Message> {
    let mut view = minted.to_vec();
    let i = r.ptr.addr.index;
    view[i] = stub_message(r, &minted[i]).unwrap();
    view
}

#[test]
fn the_view_shows_the_final_screen_after_the_stub() {
    let minted = minted();
    let r = normalized(0, 2, RAW, None);
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:terminal {id} | raw terminal output ({} bytes) hidden; shown as the {} bytes a terminal would finally display; expand_reduction restores the raw output]",
            RAW.len(),
            SHOWN.len()
        )
    );
    let view = view_of(&minted, &r);
    assert_eq!(
        view[2].content_text().unwrap(),
        format!("{}\n{SHOWN}", r.stub)
    );
    assert_eq!(view[2].metadata.get(REDUCTION_METADATA_KEY), Some(&id));
    assert_eq!(view[2].tool_call_id.as_deref(), Some("c1"));
    let log = ReductionLog {
        reductions: vec![r],
    };
    assert!(verify_log(&log, &minted).is_empty());
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    // Expand serves the raw bytes, whole and in ranges.
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(
        (whole.content.as_ref(), whole.total_bytes),
        (RAW, RAW.len())
    );
    let ranged = expand_reduction(&log, &minted, &id, Some((4, 12))).unwrap();
    assert_eq!(ranged.content, &RAW[4..12]);
    assert_eq!(ranged.range, Some(Span::new(4, 12).unwrap()));
    assert_eq!(
        reduction_total_bytes(&log, &minted, &id).unwrap(),
        RAW.len()
    );
}

#[test]
fn a_cut_shows_the_normalized_head_and_tail_around_the_stub() {
    let minted = minted();
    // Hide the first line's end and the second's start: "v0.2.150\n    Finished".
    let (start, end) = (SHOWN.find("v0").unwrap(), SHOWN.find(" `dev`").unwrap());
    let r = normalized(0, 2, RAW, Some((start, end)));
    let id = r.id.to_string();
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:terminal {id} | raw terminal output ({} bytes) hidden; shown as what a terminal would finally display, {} of its {} bytes hidden here (1 lines); expand_reduction restores the raw output]",
            RAW.len(),
            end - start,
            SHOWN.len()
        )
    );
    let view = view_of(&minted, &r);
    assert_eq!(
        view[2].content_text().unwrap(),
        format!("   Compiling libc \n{}\n `dev` profile in 4.20s\n", r.stub)
    );
    let log = ReductionLog {
        reductions: vec![r],
    };
    assert!(verify_log(&log, &minted).is_empty());
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
    assert_eq!(
        expand_reduction(&log, &minted, &id, None).unwrap().content,
        RAW
    );
}

/// `r` with its kind's facts changed by `edit`, its stub rendered again so only the fact is
/// wrong.
fn forged(r: &Reduction, edit: impl FnOnce(&mut ReductionKind)) -> Reduction {
    let mut f = r.clone();
    edit(&mut f.kind);
    f.stub = expected_stub(&f, &[]);
    f
}

fn inconsistent(log: &ReductionLog, minted: &[Message]) -> String {
    match verify_log(log, minted).as_slice() {
        [Error::Inconsistent { reason, .. }] => reason.clone(),
        other => panic!("expected one inconsistency, got {other:?}"),
    }
}

#[test]
fn verification_refuses_forged_facts() {
    let minted = minted();
    let r = normalized(0, 2, RAW, Some((3, 20)));
    let cases: Vec<(Reduction, &str)> = vec![
        (
            forged(&r, |k| {
                if let ReductionKind::OutputNormalized {
                    normalized_bytes, ..
                } = k
                {
                    *normalized_bytes += 1;
                }
            }),
            "normalized bytes but the text of message 2 normalizes to",
        ),
        (
            forged(&r, |k| {
                if let ReductionKind::OutputNormalized { original_bytes, .. } = k {
                    *original_bytes -= 1;
                }
            }),
            "original bytes but message 2 has",
        ),
        (
            forged(&r, |k| {
                if let ReductionKind::OutputNormalized { hidden_lines, .. } = k {
                    *hidden_lines += 1;
                }
            }),
            "hidden lines but its cut of the normalized text holds",
        ),
    ];
    for (f, reason) in cases {
        let log = ReductionLog {
            reductions: vec![f],
        };
        let got = inconsistent(&log, &minted);
        assert!(got.contains(reason), "{got}");
    }
    // A cut past the normalized text's end is refused, naming the normalized text's size.
    let past = forged(&r, |k| {
        if let ReductionKind::OutputNormalized { cut, .. } = k {
            *cut = Some(Span::new(3, SHOWN.len() + 1).unwrap());
        }
    });
    let log = ReductionLog {
        reductions: vec![past],
    };
    let expected = format!(
        "records a cut [3, {}) that does not fit the {} bytes (or the char boundaries) of the normalized text of message 2",
        SHOWN.len() + 1,
        SHOWN.len()
    );
    let errors = verify_log(&log, &minted);
    assert!(
        matches!(errors.as_slice(), [Error::Inconsistent { reason, .. }] if *reason == expected),
        "{errors:?}"
    );
    // A stub saying something else.
    let mut lying = r.clone();
    lying.stub = lying.stub.replace("raw terminal", "plain");
    let log = ReductionLog {
        reductions: vec![lying],
    };
    assert!(inconsistent(&log, &minted).contains("stub does not match"));
    // A span on the pointer: the raw text is hidden whole.
    let mut spanned = r.clone();
    spanned.ptr.span = Some(Span::new(0, 3).unwrap());
    let log = ReductionLog {
        reductions: vec![spanned],
    };
    assert!(inconsistent(&log, &minted).contains("hidden whole"));
}

#[test]
fn verification_refuses_text_that_does_not_normalize_and_other_bytes() {
    // The same facts over a text without terminal sequences: nothing a terminal would change.
    let plain = "no sequences here\n";
    let mut minted = minted();
    minted[2] = Message::tool_result("c1", plain);
    let digest = content_digest(plain.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(0, &digest),
        kind: ReductionKind::OutputNormalized {
            original_bytes: plain.len(),
            normalized_bytes: plain.len(),
            cut: None,
            hidden_lines: 0,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 2,
                role: Role::Tool,
            },
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, &[]);
    let log = ReductionLog {
        reductions: vec![r.clone()],
    };
    assert!(inconsistent(&log, &minted).contains("nothing a terminal would normalize"));
    assert!(stub_message(&r, &minted[2]).is_err());
    // Other bytes at the address: a digest mismatch, never a guess.
    let r = normalized(0, 2, RAW, None);
    let mut other = self::minted();
    other[2] = Message::tool_result("c1", RAW.replace("4.20", "4.21"));
    let log = ReductionLog {
        reductions: vec![r.clone()],
    };
    assert!(matches!(
        verify_log(&log, &other).as_slice(),
        [Error::DigestMismatch { index: 2, .. }]
    ));
    // An assistant message at the address is not a tool result.
    let mut wrong = r;
    wrong.ptr.addr = MessageAddr {
        index: 1,
        role: Role::Assistant,
    };
    let mut minted = self::minted();
    minted[1] = Message::text(Role::Assistant, RAW);
    let log = ReductionLog {
        reductions: vec![wrong],
    };
    assert!(inconsistent(&log, &minted).contains("must be a tool result"));
}

#[test]
fn invert_refuses_a_view_that_is_not_the_normalization() {
    let minted = minted();
    let r = normalized(0, 2, RAW, None);
    let log = ReductionLog {
        reductions: vec![r.clone()],
    };
    let view = view_of(&minted, &r);
    // The stub over the raw text, over another screen, or without its screen.
    for text in [
        format!("{}\n{RAW}", r.stub),
        format!("{}\n{}", r.stub, SHOWN.replace("4.20", "9.99")),
        r.stub.clone(),
    ] {
        let mut edited = view.clone();
        edited[2] = Message {
            content: Some(rehydrate_model::Content::Text(text)),
            ..view[2].clone()
        };
        assert!(
            matches!(
                invert(&edited, &log, &minted),
                Err(Error::ViewMismatch { view_index: 2, .. })
            ),
            "{:?}",
            edited[2].content_text()
        );
    }
}

#[test]
fn a_file_tools_result_is_never_terminal_output() {
    let mut minted = minted();
    let r = normalized(0, 2, RAW, None);
    let log = ReductionLog {
        reductions: vec![r.clone()],
    };
    assert!(verify_log(&log, &minted).is_empty());
    minted[2].details = Some(Box::new(rehydrate_model::ToolDetails::WholeRead {
        path: "/work/build.log".into(),
        content: RAW.into(),
    }));
    assert_eq!(
        inconsistent(&log, &minted),
        "message 2 is a file tool's result (its details record a file's text), never terminal output"
    );
}
