//! Unit tests of the model crate.

use std::collections::BTreeMap;

use serde_json::json;

use crate::*;

#[test]
fn wire_form_has_fixed_key_order_and_skips_metadata() {
    let mut msg = Message {
        role: Role::Assistant,
        content: None,
        tool_calls: vec![ToolCall {
            id: "t1".into(),
            name: "ls".into(),
            arguments: "{}".into(),
        }],
        tool_call_id: None,
        name: Some("bot".into()),
        observation: false,
        metadata: BTreeMap::from([("thinking".to_string(), "secret".to_string())]),
        details: Some(Box::new(ToolDetails::Write {
            path: "/a/x".into(),
            content: "hidden".into(),
        })),
    };
    assert_eq!(
        msg.wire_json(),
        r#"{"role":"assistant","tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{}"}}],"name":"bot"}"#
    );
    msg.observation = true;
    assert_eq!(msg.wire_len(), msg.wire_json().len());
    assert!(!msg.wire_json().contains("secret"));
    assert!(!msg.wire_json().contains("hidden"));
}

#[test]
fn wire_parts_sort_object_keys() {
    let msg = Message {
        role: Role::User,
        content: Some(Content::Parts(vec![
            json!({"z": 1, "a": [true, null, 1.5], "m": "x"}),
        ])),
        ..Message::default()
    };
    assert_eq!(
        msg.wire_json(),
        r#"{"role":"user","content":[{"a":[true,null,1.5],"m":"x","z":1}]}"#
    );
}

#[test]
fn string_escaping_matches_serde_json() {
    let nasty = "q\"b\\s\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é😀</>";
    let msg = Message::text(Role::User, nasty);
    let expected = format!(
        r#"{{"role":"user","content":{}}}"#,
        serde_json::to_string(nasty).unwrap()
    );
    assert_eq!(msg.wire_json(), expected);
}

/// The length of what `write_wire` writes: the oracle of the counting fast paths.
fn written_len(m: &Message) -> usize {
    let mut out = Vec::new();
    m.write_wire(&mut out);
    out.len()
}

#[test]
fn json_str_len_matches_the_wire_writer() {
    let every_ascii: String = (0u8..0x80).map(char::from).collect::<String>().repeat(5);
    for text in [
        "",
        "plain",
        "a\nb",
        "q\"b\\s\r\t\u{8}\u{c}\u{0}\u{1f}é😀",
        &every_ascii,
    ] {
        let wire = written_len(&Message::text(Role::User, text));
        let empty = written_len(&Message::text(Role::User, ""));
        assert_eq!(json_str_len(text), wire - empty, "{text:?}");
    }
}

/// Strings rich in the bytes JSON escapes, long enough to span several counting blocks.
fn escapable_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('\u{0}'),
            Just('\u{8}'),
            Just('\u{c}'),
            Just('\u{1f}'),
            Just('\u{7f}'),
            Just('é'),
            Just('中'),
            any::<char>(),
            prop::char::range('a', 'z'),
        ],
        0..700,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn any_message() -> impl proptest::strategy::Strategy<Value = Message> {
    use proptest::prelude::*;
    let text = escapable_text;
    (
        prop_oneof![
            Just(Role::System),
            Just(Role::User),
            Just(Role::Assistant),
            Just(Role::Tool)
        ],
        prop::option::of(prop_oneof![
            text().prop_map(Content::Text),
            text().prop_map(|t| Content::Parts(vec![json!({"type": "text", "text": t})])),
        ]),
        prop::collection::vec(
            (text(), text(), text()).prop_map(|(id, name, arguments)| ToolCall {
                id,
                name,
                arguments,
            }),
            0..3,
        ),
        prop::option::of(text()),
        prop::option::of(text()),
        any::<bool>(),
        prop::collection::btree_map(text(), text(), 0..2),
    )
        .prop_map(
            |(role, content, tool_calls, tool_call_id, name, observation, metadata)| Message {
                role,
                content,
                tool_calls,
                tool_call_id,
                name,
                observation,
                metadata,
                details: None,
            },
        )
}

proptest::proptest! {
    #[test]
    fn json_str_len_counts_what_the_writer_escapes(s in escapable_text()) {
        let wire = written_len(&Message::text(Role::User, s.clone()));
        let empty = written_len(&Message::text(Role::User, ""));
        proptest::prop_assert_eq!(json_str_len(&s), wire - empty);
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them(
        s in proptest::prop_oneof![escapable_text(), proptest::prelude::any::<String>()],
        offset in 0usize..9,
    ) {
        // Shifted by up to eight bytes, so every byte meets every place in a word.
        let s = format!("{}{s}", "x".repeat(offset));
        let mut out = Vec::new();
        crate::message::write_json_str(&s, &mut out);
        proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap());
    }

    #[test]
    fn the_canonical_writer_writes_what_serde_json_writes(
        m in any_message(),
        observation in proptest::prelude::any::<bool>(),
        parts in proptest::prelude::any::<bool>(),
    ) {
        let mut m = m;
        m.observation = observation;
        if observation {
            m.details = Some(Box::new(ToolDetails::WholeRead {
                path: "/src/a \"b\".rs".to_string(),
                content: "fn main() {}\n\t\u{1}".to_string(),
            }));
        }
        if parts {
            m.content = Some(Content::Parts(vec![
                serde_json::json!({"type": "text", "text": "a\"b", "z": 1.5, "a": [null, true]}),
                serde_json::json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}),
            ]));
        }
        let mut out = Vec::new();
        m.write_canonical(&mut out);
        proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&m).unwrap());
    }

    #[test]
    fn wire_len_counts_what_write_wire_writes(m in any_message()) {
        proptest::prop_assert_eq!(m.wire_len(), written_len(&m));
    }
}

#[test]
fn canonical_serde_round_trips() {
    let mut msg = Message::tool_result("c1", "out");
    msg.observation = true;
    msg.metadata.insert("k".into(), "v".into());
    let text = serde_json::to_string(&msg).unwrap();
    assert_eq!(
        text,
        r#"{"role":"tool","content":"out","tool_call_id":"c1","observation":true,"metadata":{"k":"v"}}"#
    );
    let back: Message = serde_json::from_str(&text).unwrap();
    assert_eq!(back, msg);
    let err = serde_json::from_str::<Message>(r#"{"role":"tool","colour":1}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `colour`"), "{err}");
}

#[test]
fn digest_hex_round_trip_and_errors() {
    let d = Digest([0xab; 32]);
    let hex = d.to_string();
    assert_eq!(hex, "ab".repeat(32));
    assert_eq!(hex.parse::<Digest>().unwrap(), d);
    assert_eq!(hex.to_uppercase().parse::<Digest>().unwrap(), d);
    assert_eq!(d.short_hex(6), "ababab");
    let err = "abc".parse::<Digest>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid digest `abc`: expected 64 hex characters"
    );
    assert!(format!("{}g", &hex[..63]).parse::<Digest>().is_err());
}

#[test]
fn span_rejects_reversed() {
    assert_eq!(Span::new(3, 3).unwrap().len(), 0);
    assert_eq!(
        Span::new(4, 2).unwrap_err().to_string(),
        "invalid span [4, 2): start is after end"
    );
    assert!(serde_json::from_str::<Span>("[5,1]").is_err());
    assert_eq!(
        serde_json::from_str::<Span>("[1,5]").unwrap(),
        Span::new(1, 5).unwrap()
    );
}

#[test]
fn reduction_id_grammar() {
    let id = ReductionId::new(12, &Digest([0x9f; 32]));
    assert_eq!(id.as_str(), "r12.9f9f9f");
    assert_eq!(id.ordinal(), 12);
    assert_eq!("r0.000000".parse::<ReductionId>().unwrap().ordinal(), 0);
    for bad in [
        "r01.abcdef",
        "r1.ABCDEF",
        "r1.abcde",
        "x1.abcdef",
        "r.abcdef",
        "r1abcdef",
        "",
    ] {
        assert!(bad.parse::<ReductionId>().is_err(), "{bad}");
    }
}

#[test]
fn stub_round_trip_and_rejects() {
    let id: ReductionId = "r7.abcdef".parse().unwrap();
    let stub = Stub::new(
        StubKind::ToolOutput,
        id.clone(),
        "9000 bytes (12 lines) hidden",
    )
    .unwrap();
    let line = stub.render();
    assert_eq!(
        line,
        "[rehydrate:tool-output r7.abcdef | 9000 bytes (12 lines) hidden]"
    );
    assert_eq!(Stub::parse(&line).unwrap(), stub);
    assert!(Stub::new(StubKind::Duplicate, id.clone(), "").is_err());
    assert!(Stub::new(StubKind::Duplicate, id.clone(), "a]b").is_err());
    assert!(Stub::new(StubKind::Duplicate, id, "a\nb").is_err());
    for bad in [
        "[sc-reduced tool-output r7.abcdef: x]",
        "[rehydrate:tool-output r7.abcdef | x",
        "[rehydrate:nope r7.abcdef | x]",
        "[rehydrate:tool-output r7.abc | x]",
        "[rehydrate:tool-output r7.abcdef x]",
    ] {
        assert!(Stub::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn reasoning_filter_spec_case_17() {
    let mut a = Message::text(Role::Assistant, "x");
    a.metadata.insert("thinking".into(), "x".into());
    a.metadata.insert("other".into(), "y".into());
    a.content = Some(Content::Parts(vec![
        json!({"type":"text"}),
        json!({"type":"thinking"}),
        json!({"foo":1}),
    ]));
    let mut b = Message::text(Role::User, "y");
    b.metadata.insert("pi_text_signature".into(), "s".into());
    let b_before = b.clone();
    let mut history = vec![a, b];
    assert_eq!(filter_reasoning_artifacts(&mut history), 1);
    assert_eq!(
        history[0].metadata,
        BTreeMap::from([("other".to_string(), "y".to_string())])
    );
    assert_eq!(
        history[0].content,
        Some(Content::Parts(vec![
            json!({"type":"text"}),
            json!({"foo":1})
        ]))
    );
    assert_eq!(history[1], b_before);
}

#[test]
fn log_ids_joined_is_bounded() {
    let mut log = ReductionLog::default();
    assert_eq!(log.ids_joined(), "(none)");
    let reduction = |i: usize| Reduction {
        id: ReductionId::new(i, &Digest([0; 32])),
        kind: ReductionKind::DuplicateOutput {
            canonical: MessageAddr {
                index: 0,
                role: Role::Tool,
            },
            original_bytes: 1,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 1,
                role: Role::Tool,
            },
            span: None,
            digest: Digest([0; 32]),
        },
        stub: String::new(),
    };
    log.reductions = (0..2).map(reduction).collect();
    assert_eq!(log.ids_joined(), "r0.000000, r1.000000");
    log.reductions = (0..25).map(reduction).collect();
    let joined = log.ids_joined();
    assert!(joined.starts_with("r0.000000, r1.000000, "), "{joined}");
    assert!(joined.ends_with("r19.000000 and 5 more"), "{joined}");
}

fn event(seq: u64, surface: Option<SurfaceOp>, sources: Vec<u64>) -> SessionEvent {
    SessionEvent {
        seq,
        time: None,
        turn: Some(1),
        kind: EventKind::AssistantMessage {
            text: format!("m{seq}"),
        },
        surface,
        sources,
    }
}

#[test]
fn fold_replaces_runs_and_rejects_what_breaks_a_rule() {
    let append = Some(SurfaceOp::Append);
    let replace = |start, end| Some(SurfaceOp::Replace { start, end });
    // 0 1 2 3, then 4 replaces 1..2, then 5 replaces 4..3 (the replacement itself and a node).
    let log = vec![
        event(0, append, vec![]),
        event(1, append, vec![]),
        event(2, append, vec![]),
        event(3, append, vec![]),
        event(4, replace(1, 2), vec![1, 2]),
        event(5, replace(4, 3), vec![3, 4]),
        event(6, append, vec![]),
    ];
    let surface = fold_surface(&log).expect("folds");
    assert_eq!(surface.nodes, [0, 5, 6]);
    assert_eq!(
        surface
            .replacements
            .iter()
            .map(|r| (r.seq, r.shadowed.clone()))
            .collect::<Vec<_>>(),
        [(4, vec![1, 2]), (5, vec![4, 3])]
    );
    let mut reversed = log[..4].to_vec();
    reversed.push(event(4, replace(2, 1), vec![1, 2]));
    assert_eq!(
        fold_surface(&reversed).map_err(|e| e.to_string()),
        Err("session event 4 replaces 2..1, but 2 comes after 1 on the surface".to_string())
    );
    let mut gone = log[..5].to_vec();
    gone.push(event(5, replace(1, 3), vec![1, 3]));
    assert_eq!(
        fold_surface(&gone),
        Err(FoldError::ReplaceTargetMissing { seq: 5, target: 1 })
    );
    let mut beyond = log[..1].to_vec();
    beyond.push(event(1, replace(0, u64::MAX), vec![0]));
    assert_eq!(
        fold_surface(&beyond),
        Err(FoldError::ReplaceTargetMissing {
            seq: 1,
            target: u64::MAX
        })
    );
    let mut own = log[..1].to_vec();
    own.push(event(1, append, vec![1]));
    assert_eq!(
        fold_surface(&own),
        Err(FoldError::SourceNotEarlier {
            seq: 1,
            source_seq: 1
        })
    );
}

#[test]
fn stubs_are_found_in_text_and_tool_inputs() {
    let a = "[rehydrate:duplicate r3.00ab12 | same 120 bytes as message 4]";
    let b = "[rehydrate:turns-cleared r1.abcdef | messages 1-3 (1 turns, 90 bytes) cleared; expand_reduction restores them]";
    let text =
        format!("x {a} y {b}\n[rehydrate:partial\n[rehydrate:duplicate r3.00ab12 | no close");
    let ids: Vec<String> = find_stubs(&text)
        .iter()
        .map(|s| s.id().to_string())
        .collect();
    assert_eq!(ids, ["r3.00ab12", "r1.abcdef"]);
    let call = |arguments: &str| ToolCall {
        id: "t".into(),
        name: "Write".into(),
        arguments: arguments.into(),
    };
    // Inside nested JSON strings, after unescaping.
    let json = serde_json::json!({"files": [{"content": format!("line\n{a}\n")}], "n": 1});
    let found = check_tool_input(&call(&json.to_string()));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind(), StubKind::Duplicate);
    // Arguments that are not JSON are searched as text; clean arguments report nothing.
    assert_eq!(check_tool_input(&call(&format!("echo {b}"))).len(), 1);
    assert!(check_tool_input(&call(r#"{"content":"about rehydrate: nothing"}"#)).is_empty());
}

#[test]
fn escaped_keyed_and_hidden_stubs_are_found_in_tool_inputs() {
    let call = |arguments: &str| ToolCall {
        id: "t".into(),
        name: "Write".into(),
        arguments: arguments.into(),
    };
    let stub = "[rehydrate:duplicate r3.00ab12 | same 120 bytes as message 4]";
    let escaped = stub.replace("rehydrate", "\\u0072ehydrate");
    assert_eq!(
        check_tool_input(&call(&format!(r#"{{"content":"{escaped}"}}"#))).len(),
        1
    );
    assert_eq!(
        check_tool_input(&call(&format!(r#"{{"{stub}":1}}"#))).len(),
        1
    );
    // A repeated key: the parse keeps the last value, the raw search still sees the first.
    let repeated = format!(r#"{{"content":"{stub}","content":"clean"}}"#);
    assert_eq!(check_tool_input(&call(&repeated)).len(), 1);
    // Both forms of one stub are one stub.
    let both = format!(r#"{{"a":"{stub}","b":"{escaped}"}}"#);
    assert_eq!(check_tool_input(&call(&both)).len(), 1);
}

#[test]
fn a_reduction_covers_its_message_or_its_cleared_range() {
    let at = |index: usize, kind: ReductionKind| Reduction {
        id: ReductionId::new(0, &Digest([0; 32])),
        kind,
        ptr: SidecarPtr {
            addr: MessageAddr {
                index,
                role: Role::Tool,
            },
            span: None,
            digest: Digest([0; 32]),
        },
        stub: String::new(),
    };
    let duplicate = at(
        7,
        ReductionKind::DuplicateOutput {
            canonical: MessageAddr {
                index: 3,
                role: Role::Tool,
            },
            original_bytes: 1,
        },
    );
    assert_eq!(duplicate.covered(), 7..=7);
    let cleared = at(
        2,
        ReductionKind::TurnsCleared {
            first: 2,
            last: 9,
            original_bytes: 10,
            summary: None,
        },
    );
    assert_eq!(cleared.covered(), 2..=9);
}

#[test]
fn assistant_text_truncation_is_a_per_message_reduction_with_its_own_token() {
    let kind = ReductionKind::AssistantTextTruncated {
        original_bytes: 5000,
        hidden_lines: 40,
    };
    assert_eq!(kind.stub_kind(), StubKind::AssistantText);
    assert_eq!(kind.stub_kind().as_str(), "assistant-text");
    assert_eq!(kind.original_bytes(), 5000);
    assert!(!kind.is_repair());
    assert_eq!(
        serde_json::to_string(&kind).unwrap(),
        r#"{"type":"assistant_text_truncated","original_bytes":5000,"hidden_lines":40}"#
    );
    let back: ReductionKind = serde_json::from_str(
        r#"{"type":"assistant_text_truncated","original_bytes":5000,"hidden_lines":40}"#,
    )
    .unwrap();
    assert_eq!(back, kind);
    assert!(
        serde_json::from_str::<ReductionKind>(
            r#"{"type":"assistant_text_truncated","original_bytes":5000,"hidden_lines":40,"x":1}"#
        )
        .is_err()
    );
    let r = Reduction {
        id: ReductionId::new(4, &Digest([0xab; 32])),
        kind,
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 6,
                role: Role::Assistant,
            },
            span: Some(Span::new(256, 4744).unwrap()),
            digest: Digest([0xab; 32]),
        },
        stub: String::new(),
    };
    assert_eq!(r.covered(), 6..=6);
    let line = "[rehydrate:assistant-text r4.ababab | 4488 of 5000 bytes of assistant text hidden (40 lines); expand_reduction restores them]";
    let stub = Stub::parse(line).unwrap();
    assert_eq!(stub.kind(), StubKind::AssistantText);
    assert_eq!(stub.id(), &r.id);
    assert_eq!(stub.render(), line);
}

#[test]
fn tool_input_elision_is_a_per_message_reduction_with_its_own_token() {
    let kind = ReductionKind::ToolInputElided {
        call: 1,
        field: "content".into(),
        original_bytes: 30000,
    };
    assert_eq!(kind.stub_kind(), StubKind::ToolInput);
    assert_eq!(kind.stub_kind().as_str(), "tool-input");
    assert_eq!(kind.original_bytes(), 30000);
    assert!(!kind.is_repair());
    let json = r#"{"type":"tool_input_elided","call":1,"field":"content","original_bytes":30000}"#;
    assert_eq!(serde_json::to_string(&kind).unwrap(), json);
    assert_eq!(serde_json::from_str::<ReductionKind>(json).unwrap(), kind);
    let line = "[rehydrate:tool-input r4.ababab | 30000 bytes of tool call toolu_2 argument content hidden; expand_reduction restores them]";
    let stub = Stub::parse(line).unwrap();
    assert_eq!(stub.kind(), StubKind::ToolInput);
    assert_eq!(stub.render(), line);
}

#[test]
fn a_superseded_result_covers_its_message_and_reads_its_re_run() {
    let line = "[rehydrate:superseded r4.00ab12 | superseded by message 9, a later result of the same bash call; 120 bytes hidden; expand_reduction restores them]";
    let stub = Stub::parse(line).unwrap();
    assert_eq!(stub.kind(), StubKind::Superseded);
    assert_eq!(stub.kind().as_str(), "superseded");
    assert_eq!(stub.render(), line);
    let r = Reduction {
        id: ReductionId::new(4, &Digest([0; 32])),
        kind: ReductionKind::Superseded {
            by: MessageAddr {
                index: 9,
                role: Role::Tool,
            },
            original_bytes: 120,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 5,
                role: Role::Tool,
            },
            span: None,
            digest: Digest([0; 32]),
        },
        stub: line.to_string(),
    };
    assert_eq!(r.covered(), 5..=5);
    assert_eq!(r.last_read(), 9);
    assert_eq!(r.kind.original_bytes(), 120);
    assert!(!r.kind.is_repair());
    assert_eq!(r.kind.stub_kind(), StubKind::Superseded);
    let json = serde_json::to_value(&r.kind).unwrap();
    assert_eq!(
        json,
        json!({"type": "superseded", "by": {"index": 9, "role": "tool"}, "original_bytes": 120})
    );
    assert_eq!(
        serde_json::from_value::<ReductionKind>(json).unwrap(),
        r.kind
    );
}

#[test]
fn re_read_kinds_cover_their_message_and_read_what_they_name() {
    for (token, kind) in [
        ("re-read", StubKind::ReRead),
        ("read-diff", StubKind::ReadDiff),
    ] {
        let line = format!("[rehydrate:{token} r2.00ab12 | file a.rs read again]");
        let stub = Stub::parse(&line).unwrap();
        assert_eq!(stub.kind(), kind);
        assert_eq!(stub.kind().as_str(), token);
        assert_eq!(stub.render(), line);
    }
    let ptr = SidecarPtr {
        addr: MessageAddr {
            index: 5,
            role: Role::Tool,
        },
        span: None,
        digest: Digest([0; 32]),
    };
    let tool = |index| MessageAddr {
        index,
        role: Role::Tool,
    };
    let elided = Reduction {
        id: ReductionId::new(2, &Digest([0; 32])),
        kind: ReductionKind::FileReadElided {
            by: tool(9),
            original_bytes: 120,
        },
        ptr: ptr.clone(),
        stub: String::new(),
    };
    assert_eq!(elided.covered(), 5..=5);
    assert_eq!(elided.last_read(), 9);
    assert_eq!(elided.kind.original_bytes(), 120);
    assert!(!elided.kind.is_repair());
    assert_eq!(elided.kind.stub_kind(), StubKind::ReRead);
    let json = serde_json::to_value(&elided.kind).unwrap();
    assert_eq!(
        json,
        json!({"type": "file_read_elided", "by": {"index": 9, "role": "tool"}, "original_bytes": 120})
    );
    assert_eq!(
        serde_json::from_value::<ReductionKind>(json).unwrap(),
        elided.kind
    );
    let diffed = Reduction {
        kind: ReductionKind::FileReadDiffed {
            base: tool(1),
            original_bytes: 300,
            max_share_per_mille: 500,
            diff: "@@ -1 +1 @@\n-a\n+b\n".to_string(),
        },
        ..elided
    };
    assert_eq!(diffed.covered(), 5..=5);
    assert_eq!(diffed.last_read(), 5);
    assert_eq!(diffed.kind.original_bytes(), 300);
    assert!(!diffed.kind.is_repair());
    assert_eq!(diffed.kind.stub_kind(), StubKind::ReadDiff);
    let json = serde_json::to_value(&diffed.kind).unwrap();
    assert_eq!(
        json,
        json!({"type": "file_read_diffed", "base": {"index": 1, "role": "tool"}, "original_bytes": 300, "max_share_per_mille": 500, "diff": "@@ -1 +1 @@\n-a\n+b\n"})
    );
    assert_eq!(
        serde_json::from_value::<ReductionKind>(json).unwrap(),
        diffed.kind
    );
    let unknown = json!({"type": "file_read_elided", "by": {"index": 9, "role": "tool"}, "original_bytes": 1, "path": "x"});
    assert!(serde_json::from_value::<ReductionKind>(unknown).is_err());
}

#[test]
fn a_normalized_output_covers_its_message_and_records_its_cut() {
    let line = "[rehydrate:terminal r2.00ab12 | raw terminal output (900 bytes) hidden; shown as what a terminal would finally display, 300 of its 500 bytes hidden here (6 lines); expand_reduction restores the raw output]";
    let stub = Stub::parse(line).unwrap();
    assert_eq!(stub.kind(), StubKind::Terminal);
    assert_eq!(stub.kind().as_str(), "terminal");
    assert_eq!(stub.render(), line);
    let r = Reduction {
        id: ReductionId::new(2, &Digest([0; 32])),
        kind: ReductionKind::OutputNormalized {
            original_bytes: 900,
            normalized_bytes: 500,
            cut: Some(Span::new(100, 400).unwrap()),
            hidden_lines: 6,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 7,
                role: Role::Tool,
            },
            span: None,
            digest: Digest([0; 32]),
        },
        stub: line.to_string(),
    };
    assert_eq!(r.covered(), 7..=7);
    assert_eq!(r.last_read(), 7);
    assert_eq!(r.kind.original_bytes(), 900);
    assert!(!r.kind.is_repair());
    let json = serde_json::to_value(&r.kind).unwrap();
    assert_eq!(
        json,
        json!({"type": "output_normalized", "original_bytes": 900, "normalized_bytes": 500, "cut": [100, 400], "hidden_lines": 6})
    );
    assert_eq!(
        serde_json::from_value::<ReductionKind>(json).unwrap(),
        r.kind
    );
    // Without a cut the field is left out, and read back as none.
    let uncut = ReductionKind::OutputNormalized {
        original_bytes: 900,
        normalized_bytes: 500,
        cut: None,
        hidden_lines: 0,
    };
    let json = json!({"type": "output_normalized", "original_bytes": 900, "normalized_bytes": 500, "hidden_lines": 0});
    assert_eq!(serde_json::to_value(&uncut).unwrap(), json);
    assert_eq!(
        serde_json::from_value::<ReductionKind>(json).unwrap(),
        uncut
    );
    let unknown = json!({"type": "output_normalized", "original_bytes": 1, "normalized_bytes": 1, "hidden_lines": 0, "extra": 1});
    assert!(serde_json::from_value::<ReductionKind>(unknown).is_err());
}

#[test]
fn image_redaction_is_a_per_message_reduction_with_its_own_token() {
    let kind = ReductionKind::ImageRedacted {
        images: vec![crate::HiddenImage {
            part: 1,
            media_type: Some("image/png".into()),
            data_bytes: 2000,
            pixels: Some([640, 480]),
            same_as: Some(crate::ImagePlace { index: 9, part: 0 }),
        }],
        original_bytes: 2090,
    };
    assert_eq!(kind.stub_kind(), StubKind::Image);
    assert_eq!(kind.stub_kind().as_str(), "image");
    assert_eq!(kind.original_bytes(), 2090);
    assert!(!kind.is_repair());
    let json = r#"{"type":"image_redacted","images":[{"part":1,"media_type":"image/png","data_bytes":2000,"pixels":[640,480],"same_as":{"index":9,"part":0}}],"original_bytes":2090}"#;
    assert_eq!(serde_json::to_string(&kind).unwrap(), json);
    assert_eq!(serde_json::from_str::<ReductionKind>(json).unwrap(), kind);
    // The optional facts are left out when absent, and unknown fields are refused.
    let bare =
        r#"{"type":"image_redacted","images":[{"part":0,"data_bytes":8}],"original_bytes":60}"#;
    let parsed: ReductionKind = serde_json::from_str(bare).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap(), bare);
    let unknown = r#"{"type":"image_redacted","images":[{"part":0,"data_bytes":8,"x":1}],"original_bytes":60}"#;
    assert!(serde_json::from_str::<ReductionKind>(unknown).is_err());
    let line = "[rehydrate:image r2.ababab | image/png image at part 1 (640x480 pixels, 2000 bytes of base64), the same as message 9 part 0, hidden; expand_reduction restores it]";
    let stub = Stub::parse(line).unwrap();
    assert_eq!(stub.kind(), StubKind::Image);
    assert_eq!(stub.render(), line);
}

#[test]
fn an_image_copy_is_read_up_to_its_latest_copy() {
    let image = |part, same_as: Option<usize>| crate::HiddenImage {
        part,
        media_type: None,
        data_bytes: 8,
        pixels: None,
        same_as: same_as.map(|index| crate::ImagePlace { index, part: 0 }),
    };
    let mut r = Reduction {
        id: ReductionId::new(0, &Digest([0; 32])),
        kind: ReductionKind::ImageRedacted {
            images: vec![image(0, Some(9)), image(1, None), image(2, Some(7))],
            original_bytes: 60,
        },
        ptr: SidecarPtr {
            addr: MessageAddr {
                index: 4,
                role: Role::User,
            },
            span: None,
            digest: Digest([0; 32]),
        },
        stub: String::new(),
    };
    assert_eq!(r.covered(), 4..=4);
    assert_eq!(r.last_read(), 9);
    r.kind = ReductionKind::ImageRedacted {
        images: vec![image(1, None)],
        original_bytes: 20,
    };
    assert_eq!(r.last_read(), 4);
}

#[test]
fn the_write_back_guard_finds_an_image_stub_copied_into_a_call() {
    let line = "[rehydrate:image r3.00ab12 | image/png image at part 1 (640x480 pixels, 2000 bytes of base64) hidden; expand_reduction restores it]";
    let call = ToolCall {
        id: "t1".into(),
        name: "Write".into(),
        arguments: json!({"file_path": "shot.png", "content": line}).to_string(),
    };
    let found = check_tool_input(&call);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind(), StubKind::Image);
    assert_eq!(found[0].id().as_str(), "r3.00ab12");
}
