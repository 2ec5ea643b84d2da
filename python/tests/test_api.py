"""The Python API against the values the Rust crates give (the same fixtures, the same ids)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import rehydrate

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def build_session() -> rehydrate.ImportedSession:
    return rehydrate.import_session(FIXTURES / "cli" / "build-session.json")


def test_import_reads_every_format_the_crates_read() -> None:
    cases = {
        "cli/build-session.json": ("openai", 17),
        "formats/codex/codex-session.jsonl": ("codex", 11),
        "formats/claude-code-session.jsonl": ("claude-code", None),
        "formats/swe-agent-plain.traj": ("swe-agent", None),
        "formats/anthropic/body.json": ("anthropic", None),
        "formats/responses/object.json": ("responses", None),
    }
    for name, (fmt, count) in cases.items():
        session = rehydrate.import_session(FIXTURES / name)
        assert session.format == fmt, name
        assert session.messages, name
        if count is not None:
            assert len(session.messages) == count, name
    # Bytes and an explicit format are read the same way.
    data = (FIXTURES / "cli" / "build-session.json").read_bytes()
    assert rehydrate.import_session(data, format="openai").messages == build_session().messages


def test_projection_expand_and_invert_match_the_rust_results() -> None:
    session = build_session()
    out = rehydrate.project_messages(session.messages)
    # The ids `rehydrate reduce` and the facade's tests give this fixture.
    ids = [r["id"] for r in out.log["reductions"]]
    assert ids == ["r0.b35021", "r1.d26c33", "r2.b35021"]
    assert out.minted == 3
    assert len(out.view) == len(session.messages)
    original = session.messages[3]["content"]
    assert rehydrate.expand_reduction(out.log, session.messages, "r0.b35021") == original
    assert len(original.encode()) == 13168
    assert rehydrate.expand_reduction(out.log, session.messages, "r0.b35021", (2, 9)) == original[2:9]
    assert rehydrate.invert(out.view, out.log, session.messages) == session.messages
    # A second projection with the log mints nothing and gives the same view.
    again = rehydrate.project_messages(session.messages, out.log)
    assert (again.view, again.minted) == (out.view, 0)
    aggressive = rehydrate.project_messages(session.messages, policy=rehydrate.ReductionPolicy.aggressive())
    assert aggressive.minted >= out.minted


def test_request_bodies_and_tools() -> None:
    session = build_session()
    out = rehydrate.project_messages(session.messages)
    # The fixture is a bare OpenAI chat array: its body keeps that form.
    body = json.loads(rehydrate.request_body(out.view, "openai"))
    assert [m["role"] for m in body] == [m["role"] for m in session.messages]
    anthropic = json.loads(rehydrate.request_body(out.view, "anthropic"))
    assert anthropic["system"] == session.messages[0]["content"]
    assert json.loads(rehydrate.request_body(out.view, "responses"))["input"]
    names = [t["function"]["name"] for t in rehydrate.tool_definitions("openai")]
    assert names == ["expand_reduction", "sidecar_search"]
    assert [t["name"] for t in rehydrate.tool_definitions("anthropic")] == names


def test_errors_are_rehydrate_errors_with_one_line_messages() -> None:
    session = build_session()
    out = rehydrate.project_messages(session.messages)
    with pytest.raises(rehydrate.SidecarError) as err:
        rehydrate.expand_reduction(out.log, session.messages, "r9.zzz")
    assert str(err.value) == "no reduction with id `r9.zzz`; valid ids: r0.b35021, r1.d26c33, r2.b35021"
    with pytest.raises(rehydrate.FormatsError) as err:
        rehydrate.import_session(b"{bad")
    assert str(err.value) == "<bytes>:1: invalid JSON: key must be a string at column 2"
    with pytest.raises(rehydrate.InputError):
        rehydrate.project_messages([{"role": "nobody"}])
    with pytest.raises(rehydrate.FormatsError):
        rehydrate.request_body([], "openai")
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.request_body(session.messages, "gemini")
    assert str(err.value) == "unknown API `gemini` (expected openai, anthropic or responses)"
    for cls in (rehydrate.FormatsError, rehydrate.SidecarError, rehydrate.InputError):
        assert issubclass(cls, rehydrate.Error)
    # A view whose stub was edited does not invert: never other bytes.
    tampered = [dict(m) for m in out.view]
    tampered[3]["content"] = tampered[3]["content"] + "x"
    with pytest.raises(rehydrate.SidecarError):
        rehydrate.invert(tampered, out.log, session.messages)


def corpus_files() -> list[Path]:
    corpus = Path(os.environ.get("REHYDRATE_CORPUS", ROOT.parent / "shared" / "corpus"))
    if not corpus.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{corpus} not found, and CI is set: the corpus check must run")
        pytest.skip(f"{corpus} not found")
    files: list[Path] = []
    for sub in ("claude-code", "swe-agent", "codex"):
        files += sorted(p for p in (corpus / sub).rglob("*") if p.suffix in (".jsonl", ".traj"))
    return files


def test_corpus_reduces_expands_exactly_and_inverts() -> None:
    files = corpus_files()
    assert len(files) >= 35
    policy = rehydrate.ReductionPolicy.aggressive()
    for path in files:
        session = rehydrate.import_session(path)
        out = rehydrate.project_messages(session.messages, policy=policy)
        for r in out.log["reductions"]:
            rehydrate.expand_reduction(out.log, session.messages, r["id"])
        assert rehydrate.invert(out.view, out.log, session.messages) == session.messages, path


def python_blocks(doc: Path) -> list[str]:
    text = doc.read_text()
    blocks = []
    for part in text.split("```python\n")[1:]:
        blocks.append(part.split("```", 1)[0])
    return blocks


def test_the_docs_examples_run() -> None:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for doc in (ROOT / "README.md", ROOT / "docs" / "PYTHON.md"):
            blocks = python_blocks(doc)
            assert blocks, doc
            for block in blocks:
                exec(compile(block, str(doc), "exec"), {})
    finally:
        os.chdir(cwd)


def test_a_reducer_per_turn_answers_the_models_calls() -> None:
    reducer = rehydrate.Reducer(rehydrate.ReductionPolicy.default())
    view = reducer.project([{"role": "user", "content": "run the build"}])
    assert view == [{"role": "user", "content": "run the build"}]
    outputs = []
    for i in range(5):
        call = {
            "role": "assistant",
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": '{"cmd":"make"}'}}
            ],
        }
        output = f"build {i}: warning unused variable\n" * 600
        outputs.append(output)
        view = reducer.project([call, {"role": "tool", "tool_call_id": f"c{i}", "content": output}])
    # The two oldest outputs left the protected window of three: each is now a stub.
    ids = [r["id"] for r in reducer.log["reductions"]]
    assert len(ids) == 2
    assert len(view) == len(reducer.history) == 11
    assert view[2]["content"] != outputs[0] and ids[0] in view[2]["content"]
    # The model asks for the hidden bytes back: exact, as the model sees them.
    content, is_error = reducer.call("expand_reduction", json.dumps({"reduction_id": ids[0]}))
    assert (content, is_error) == (outputs[0], False)
    found, is_error = reducer.call("sidecar_search", json.dumps({"query": "build 1:"}))
    assert not is_error and ids[1] in found
    content, is_error = reducer.call("expand_reduction", '{"reduction_id":"r7.nope"}')
    assert is_error and content.startswith("Error: ")
    # A resumed reducer fed the same history gives the same view.
    again = rehydrate.Reducer(rehydrate.ReductionPolicy.default(), reducer.log)
    assert again.project(reducer.history) == view


def test_search_and_verify() -> None:
    session = build_session()
    out = rehydrate.project_messages(session.messages)
    result = rehydrate.sidecar_search(out.log, session.messages, "crate-100", mode="literal")
    # As `rehydrate search` and the intrinsic find it: twice, in the first reduction.
    assert [m["reduction_id"] for m in result["matches"]] == ["r0.b35021", "r0.b35021"]
    assert result["total_matches"] == 2
    assert rehydrate.sidecar_search(out.log, session.messages, "no such text anywhere")["matches"] == []
    with pytest.raises(rehydrate.SearchError):
        rehydrate.sidecar_search(out.log, session.messages, "   ")
    with pytest.raises(rehydrate.SearchError):
        rehydrate.sidecar_search(out.log, session.messages, "(unclosed", mode="regex")
    with pytest.raises(rehydrate.InputError):
        rehydrate.sidecar_search(out.log, session.messages, "x", mode="fuzzy")
    assert rehydrate.verify(out.log, session.messages) is None
    # One changed byte in a hidden output: the digest no longer verifies.
    changed = [dict(m) for m in session.messages]
    changed[3]["content"] = changed[3]["content"].replace("crate-100", "crate-101", 1)
    with pytest.raises(rehydrate.SidecarError) as err:
        rehydrate.verify(out.log, changed)
    assert "r0.b35021" in str(err.value)


def test_a_session_store_records_reopens_and_exports(tmp_path: Path) -> None:
    path = tmp_path / "live.rhyd"
    session = rehydrate.Session.create(path, rehydrate.ReductionPolicy.default())
    original = build_session().messages
    assert session.push(original[:1]) == 0
    minted = session.push(original[1:], idle_seconds=600)
    assert minted == 3
    view, log = session.view, session.log
    assert [r["id"] for r in log["reductions"]] == ["r0.b35021", "r1.d26c33", "r2.b35021"]
    content, is_error = session.call("expand_reduction", '{"reduction_id":"r1.d26c33"}')
    assert (content, is_error) == (original[5]["content"], False)
    # Every reduction undone, in the file's own form: the fixture's JSON value.
    file_value = json.loads((FIXTURES / "cli" / "build-session.json").read_bytes())
    assert json.loads(session.export("openai")) == file_value
    del session
    # Reopened with the same policy: the same view and log, nothing minted again.
    again = rehydrate.Session.open(path, rehydrate.ReductionPolicy.default())
    assert (again.view, again.log, again.history) == (view, log, original)
    assert json.loads(again.request_body("anthropic"))["system"] == original[0]["content"]
    # Rewound to the first four messages: one reduction stays.
    again.rewind(4)
    assert len(again.history) == 4
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.Session.create(path)
    assert str(path) in str(err.value)
    with pytest.raises(rehydrate.SessionError):
        rehydrate.Session.open(tmp_path / "absent.rhyd")
    for sync in ("sometimes", True, -1):
        with pytest.raises(rehydrate.InputError) as err:
            rehydrate.Session.create(tmp_path / "x.rhyd", sync=sync)
        assert str(err.value).startswith("sync: expected")
    assert not (tmp_path / "x.rhyd").exists()


def test_a_session_records_summaries_misses_and_switches_and_a_torn_store_is_repaired(tmp_path: Path) -> None:
    path = tmp_path / "s.rhyd"
    session = rehydrate.Session.create(path, sync="never")
    session.push([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert session.record_summary("we said hello") == 0
    assert session.record_summary("still hello", retires=[0]) == 1
    session.record_miss("r3.abcdef", "unknown")
    assert session.switch_model("other-model") == 0
    with pytest.raises(rehydrate.InputError):
        session.record_miss("r3.abcdef", "lost")
    session.sync()
    state = session.state
    assert state == {
        "records": 6,
        "rewinds": [],
        "model_switches": [{"model": "other-model", "touched": 0}],
        "reasoning_dropped": 2,
        "summaries": [{"epoch": 0, "text": "we said hello"}, {"epoch": 1, "text": "still hello", "retires": [0]}],
        "misses": [{"reduction_id": "r3.abcdef", "reason": "unknown"}],
    }
    assert session.waiting == (0, 0) and session.path == path and session.recovered == 0
    del session
    whole = path.stat().st_size
    with open(path, "ab") as f:
        f.write(b"\x07torn")
    report = rehydrate.repair_store(path)
    assert report == {"records": 6, "kept_bytes": whole, "dropped_bytes": 5}
    assert rehydrate.repair_store(path)["dropped_bytes"] == 0
    assert rehydrate.Session.open(path).state == state
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.repair_store(tmp_path / "absent.rhyd")
    assert "absent.rhyd" in str(err.value)


def test_the_validity_checker_written_forms_and_the_inverted_session() -> None:
    session = rehydrate.import_session(FIXTURES / "reduce" / "pairing-orphan.json")
    assert rehydrate.check_request(session.messages, "openai") == [
        {
            "index": 1,
            "rule": "result-without-call",
            "id": "gone1",
            "detail": "tool result gone1 answers no tool call of the assistant message right before it",
            "message": "message 1 (result-without-call): tool result gone1 answers no tool call of the assistant message right before it",
        }
    ]
    assert [v["rule"] for v in rehydrate.check_request(session.messages, "anthropic")] == ["text-before-tool-result"]
    # The view repairs it: the orphan result is hidden behind a stub, and every API takes it.
    out = rehydrate.project_messages(session.messages)
    assert out.minted == 1 and out.view[1]["content"].startswith("[rehydrate:orphan-result r0.")
    for api in ("openai", "anthropic", "responses"):
        assert rehydrate.check_request(out.view, api) == [], api
    # The inverted session is the file's messages again: as JSONL it holds anything, as an
    # OpenAI body the orphan is refused again, naming it.
    jsonl = rehydrate.export_session(out.view, out.log, session.messages, "jsonl")
    assert [json.loads(line) for line in jsonl.splitlines()] == rehydrate._rehydrate._read_messages(session.messages, True)
    with pytest.raises(rehydrate.FormatsError) as err:
        rehydrate.export_session(out.view, out.log, session.messages, "openai")
    assert str(err.value) == "message 1: tool result gone1 answers no tool call of the assistant message right before it"
    with pytest.raises(rehydrate.SidecarError):
        rehydrate.export_session(out.view, out.log, session.messages[:-1], "jsonl")
    # The view as a Codex rollout: one record per line, the orphan's stub in it.
    rollout = rehydrate.write(out.view, "codex").decode()
    assert rehydrate.import_session(rollout.encode(), format="codex").format == "codex"
    assert "[rehydrate:orphan-result r0." in rollout
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.write(out.view, "yaml")
    assert str(err.value) == "unknown export format `yaml` (expected jsonl, openai, anthropic, responses, codex, gemini-cli, goose)"
