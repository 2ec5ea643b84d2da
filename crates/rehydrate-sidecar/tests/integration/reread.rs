//! Re-reads: elided and diffed whole reads resolve, expand and invert; a forged one does not
//! verify (docs/FORMATS.md, "Re-reads").

use rehydrate_model::{
    Digest, Message, MessageAddr, REDUCTION_METADATA_KEY, Reduction, ReductionId, ReductionKind,
    ReductionLog, Role, SidecarPtr, ToolDetails,
};
use rehydrate_sidecar::{
    content_digest, diff_within_share, expand_reduction, expected_stub, invert,
    reduction_total_bytes, reread_diff, stub_message, verify_log, whole_read,
};
use rehydrate_test_support::assistant_call;

const OLD: &str =
    "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\nfn h() {}\n";
const NEW: &str = "fn a() {}\nfn b() { todo!() }\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\nfn h() {}\n";

/// `content` as Claude Code's `Read` shows it: each line numbered, `→`, the line.
fn numbered(content: &str) -> String {
    content
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:>6}→{l}\n", i + 1))
        .collect()
}

fn read(id: &str, path: &str, content: &str) -> Message {
    let mut m = Message::tool_result(id, numbered(content));
    m.details = Some(Box::new(ToolDetails::WholeRead {
        path: path.to_string(),
        content: content.to_string(),
    }));
    m
}

/// Reads of `src/lib.rs`: whole (2), whole with the same content (4), partial (6), whole after
/// an edit (8); and a whole read of another path with the new content (10).
fn session() -> Vec<Message> {
    let mut partial = Message::tool_result("t3", numbered("fn b() {}\n"));
    partial.details = Some(Box::new(ToolDetails::PartialRead {
        path: "src/lib.rs".into(),
        start_line: 2,
        num_lines: 1,
        total_lines: 3,
    }));
    vec![
        Message::text(Role::User, "fill in b"),
        assistant_call("t1", "Read", r#"{"file_path":"src/lib.rs"}"#),
        read("t1", "src/lib.rs", OLD),
        assistant_call("t2", "Read", r#"{"file_path":"src/lib.rs"}"#),
        read("t2", "src/lib.rs", OLD),
        assistant_call("t3", "Read", r#"{"file_path":"src/lib.rs","offset":2}"#),
        partial,
        assistant_call("t4", "Read", r#"{"file_path":"src/lib.rs"}"#),
        read("t4", "src/lib.rs", NEW),
        assistant_call("t5", "Read", r#"{"file_path":"src/other.rs"}"#),
        read("t5", "src/other.rs", NEW),
    ]
}

fn tool(index: usize) -> MessageAddr {
    MessageAddr {
        index,
        role: Role::Tool,
    }
}

fn reduction(index: usize, kind: ReductionKind, minted: &[Message]) -> Reduction {
    let text = minted[index].content_text().unwrap_or_default();
    let digest = content_digest(text.as_bytes());
    let mut r = Reduction {
        id: ReductionId::new(0, &digest),
        kind,
        ptr: SidecarPtr {
            addr: tool(index),
            span: None,
            digest,
        },
        stub: String::new(),
    };
    r.stub = expected_stub(&r, minted);
    r
}

fn elided(index: usize, by: usize, minted: &[Message]) -> Reduction {
    let original_bytes = minted[index].content_text().map_or(0, str::len);
    let kind = ReductionKind::FileReadElided {
        by: tool(by),
        original_bytes,
    };
    reduction(index, kind, minted)
}

fn diffed(index: usize, base: usize, share: u32, minted: &[Message]) -> Reduction {
    let content = |i: usize| whole_read(&minted[i]).map_or("", |(_, c)| c);
    let original_bytes = minted[index].content_text().map_or(0, str::len);
    let kind = ReductionKind::FileReadDiffed {
        base: tool(base),
        original_bytes,
        max_share_per_mille: share,
        diff: reread_diff(content(base), content(index)),
    };
    reduction(index, kind, minted)
}

fn log(r: &Reduction) -> ReductionLog {
    ReductionLog {
        reductions: vec![r.clone()],
    }
}

#[test]
fn only_whole_read_details_prove_a_text() {
    let minted = session();
    assert_eq!(whole_read(&minted[2]), Some(("src/lib.rs", OLD)));
    assert_eq!(whole_read(&minted[6]), None); // a partial read
    assert_eq!(whole_read(&minted[1]), None); // a call
    let mut media = minted[2].clone();
    media.details = Some(Box::new(ToolDetails::MediaRead {
        path: "a.png".into(),
        media: rehydrate_model::Media::Image,
    }));
    assert_eq!(whole_read(&media), None);
    let mut plain = minted[2].clone();
    plain.details = None;
    assert_eq!(whole_read(&plain), None);
}

#[test]
fn diff_share_is_inclusive_at_the_limit() {
    assert!(diff_within_share(500, 1000, 500));
    assert!(!diff_within_share(501, 1000, 500));
    assert!(diff_within_share(0, 0, 0));
    assert!(!diff_within_share(1, 0, 1000));
    assert!(!diff_within_share(1001, 1000, u32::MAX));
    assert_eq!(
        reread_diff(OLD, NEW),
        "@@ -1,5 +1,5 @@\n fn a() {}\n-fn b() {}\n+fn b() { todo!() }\n fn c() {}\n fn d() {}\n fn e() {}\n"
    );
    assert_eq!(reread_diff(OLD, OLD), "");
}

#[test]
fn an_elided_read_resolves_expands_and_inverts() {
    let minted = session();
    let r = elided(2, 4, &minted);
    let id = r.id.to_string();
    let text = numbered(OLD);
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:re-read {id} | file src/lib.rs was read again in message 4 with the same content; {} bytes hidden; expand_reduction restores them]",
            text.len()
        )
    );
    let stub = stub_message(&r, &minted[2]).unwrap();
    let mut expected = Message::tool_result("t1", r.stub.clone());
    expected
        .metadata
        .insert(REDUCTION_METADATA_KEY.to_string(), id.clone());
    assert_eq!(stub, expected);
    let log = log(&r);
    assert!(verify_log(&log, &minted).is_empty());
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(whole.content, text);
    let ranged = expand_reduction(&log, &minted, &id, Some((0, 11))).unwrap();
    assert_eq!(ranged.content, "     1→fn");
    assert_eq!(
        reduction_total_bytes(&log, &minted, &id).unwrap(),
        text.len()
    );
    let mut view = minted.clone();
    view[2] = stub;
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
}

#[test]
fn a_diffed_read_shows_the_diff_and_expands_to_its_text() {
    let minted = session();
    let r = diffed(8, 4, 1000, &minted);
    let id = r.id.to_string();
    let text = numbered(NEW);
    assert_eq!(
        r.stub,
        format!(
            "[rehydrate:read-diff {id} | file src/lib.rs read again; below, a unified diff of its content from the read in message 4 stands for this result's {} bytes; expand_reduction restores them]",
            text.len()
        )
    );
    let stub = stub_message(&r, &minted[8]).unwrap();
    assert_eq!(
        stub.content_text().unwrap(),
        format!("{}\n{}", r.stub, reread_diff(OLD, NEW))
    );
    assert_eq!(stub.details, None);
    assert_eq!(stub.metadata[REDUCTION_METADATA_KEY], id);
    let log = log(&r);
    assert!(verify_log(&log, &minted).is_empty());
    assert_eq!(r.ptr.digest, content_digest(text.as_bytes()));
    let whole = expand_reduction(&log, &minted, &id, None).unwrap();
    assert_eq!(
        (whole.content.as_ref(), whole.total_bytes),
        (text.as_str(), text.len())
    );
    let ranged = expand_reduction(&log, &minted, &id, Some((28, 46))).unwrap();
    assert_eq!(ranged.content, "fn b() { todo!() }");
    let mut view = minted.clone();
    view[8] = stub;
    assert_eq!(invert(&view, &log, &minted).unwrap(), minted);
}

#[test]
fn a_forged_re_read_does_not_verify() {
    let minted = session();
    let check = |r: Reduction, reason: &str| {
        let id = r.id.to_string();
        let log = log(&r);
        let errors = verify_log(&log, &minted);
        assert_eq!(errors.len(), 1, "{reason}");
        assert_eq!(errors[0].to_string(), format!("reduction {id}: {reason}"));
        assert!(expand_reduction(&log, &minted, &id, None).is_err());
    };
    // Another content, another path, an earlier message, a partial read, a call.
    check(
        elided(2, 8, &minted),
        "message 8 is not a read of the same path with the same content as message 2",
    );
    check(
        elided(8, 10, &minted),
        "message 10 is not a read of the same path with the same content as message 8",
    );
    check(
        elided(4, 2, &minted),
        "an elided read must be hidden whole and name a later read, not message 2",
    );
    check(
        elided(4, 6, &minted),
        "the later message 6 is not a whole read its details prove",
    );
    check(
        elided(6, 8, &minted),
        "the elided message 6 is not a whole read its details prove",
    );
    check(
        elided(2, 3, &minted),
        "role mismatch at message 3: expected tool, found assistant",
    );
    // A diff from a wrong base: the same content, another path, a partial read, a later one.
    check(
        diffed(4, 2, 1000, &minted),
        "message 2 is not a read of the same path with other content than message 4",
    );
    check(
        diffed(10, 4, 1000, &minted),
        "message 4 is not a read of the same path with other content than message 10",
    );
    check(
        diffed(8, 6, 1000, &minted),
        "the base message 6 is not a whole read its details prove",
    );
    check(
        diffed(4, 8, 1000, &minted),
        "a diffed read must be hidden whole and name an earlier read, not message 8",
    );
    // A forged path: the base's details name another file than the read's.
    let mut forged = minted.clone();
    forged[4].details = Some(Box::new(ToolDetails::WholeRead {
        path: "src/lib.rs ".into(),
        content: OLD.into(),
    }));
    let r = diffed(8, 2, 1000, &minted);
    let errors = verify_log(&log(&r), &forged);
    assert!(errors.is_empty(), "{errors:?}");
    let r = {
        let content = |i: usize| whole_read(&forged[i]).map_or("", |(_, c)| c);
        let original_bytes = forged[8].content_text().map_or(0, str::len);
        let kind = ReductionKind::FileReadDiffed {
            base: tool(4),
            original_bytes,
            max_share_per_mille: 1000,
            diff: reread_diff(content(4), content(8)),
        };
        reduction(8, kind, &forged)
    };
    let errors = verify_log(&log(&r), &forged);
    assert_eq!(
        errors[0].to_string(),
        format!(
            "reduction {}: message 4 is not a read of the same path with other content than message 8",
            r.id
        )
    );
    // A diff that is not the diff of the two contents.
    let mut r = diffed(8, 4, 1000, &minted);
    if let ReductionKind::FileReadDiffed { diff, .. } = &mut r.kind {
        *diff = diff.replace("todo!()", "unimplemented!()");
    }
    check(
        r,
        "its diff is not the diff of message 4's content to message 8's",
    );
    // A diff over the share it records, and a share over 1000.
    let text_bytes = numbered(NEW).len();
    let diff_bytes = reread_diff(OLD, NEW).len();
    let just = u32::try_from(diff_bytes * 1000 / text_bytes).unwrap();
    assert!(verify_log(&log(&diffed(8, 4, just + 1, &minted)), &minted).is_empty());
    check(
        diffed(8, 4, just, &minted),
        &format!(
            "its diff of {diff_bytes} bytes is over {just} per mille of the {text_bytes} bytes it stands for"
        ),
    );
    check(
        diffed(8, 4, 1001, &minted),
        &format!(
            "its diff of {diff_bytes} bytes is over 1001 per mille of the {text_bytes} bytes it stands for"
        ),
    );
    // A digest of other bytes.
    let mut r = elided(2, 4, &minted);
    r.ptr.digest = Digest([7; 32]);
    r.id = ReductionId::new(0, &r.ptr.digest);
    r.stub = expected_stub(&r, &minted);
    let id = r.id.to_string();
    let errors = verify_log(&log(&r), &minted);
    assert!(
        errors[0]
            .to_string()
            .starts_with(&format!("reduction {id}: digest mismatch at message 2")),
        "{}",
        errors[0]
    );
}
