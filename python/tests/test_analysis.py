"""Replay, evidence, signals and session directories against the values the Rust crates give.

The expected values are those of the crates' own snapshots (crates/rehydrate-replay,
crates/rehydrate-evidence and crates/rehydrate-signals, tests/integration/snapshots) and of the
CLI (`rehydrate replay`, `rehydrate evidence --json`, `rehydrate reduce`, `rehydrate signals`)
on the same fixtures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import rehydrate

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

CLAUDE_REPLAY = FIXTURES / "replay" / "claude-code-session.jsonl"
APP_PY = "import os\n\ndef run():\n    print('hello, world')\n"
APP_PY_DIGEST = "cc64a55216ebde7c2fba22cdd3ef8a5576f1c2706134b566a3b767243775a8a0"
# blake3 of b"v2" and b"v1" (the replay snapshots of seed-02 and seed-01).
V2_DIGEST = "a32d57bd283850e7341c48c7a1aba245654d189aa5711cc3b44965af9cfe3b06"
V1_DIGEST = "2a84887509a92ed4c5f4f4acb4aec1232da18970cef84558c77fe0f78336fb82"
GROWING = (
    "references-per-summary increased across compaction epochs; "
    "summarizer is re-deriving citations from rehydrated content."
)


def case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# Replay


def test_file_records_of_a_claude_code_session_are_the_crates() -> None:
    data = CLAUDE_REPLAY.read_bytes()
    records = rehydrate.file_records(data)
    assert records == [
        {
            "path": "/project/src/app.py",
            "content": APP_PY,
            "digest": APP_PY_DIGEST,
            "at": "2026-11-30T10:00:10Z",
            "index": 8,
        }
    ]
    # The imported messages replay the same; a format given by name reads the same bytes.
    messages = rehydrate.import_session(CLAUDE_REPLAY).messages
    assert rehydrate.file_records(messages) == records
    assert rehydrate.file_records(bytearray(data), format="claude-code") == records


def test_replay_says_what_each_message_did_and_each_paths_state() -> None:
    out = rehydrate.replay(CLAUDE_REPLAY.read_bytes())
    # The snapshot integration__imported__claude_code_session_replays_across_compaction.
    assert out["steps"] == [
        {"index": 2, "step": "proved"},
        {"index": 4, "step": "proved"},
        {"index": 8, "step": "proved"},
        {"index": 10, "step": "proved"},
        {"index": 12, "step": "proved"},
        {"index": 16, "step": "inert"},
        {"index": 18, "step": "inert"},
        {
            "index": 20,
            "step": "retracted",
            "reason": "the change is not recorded: the person modified the edit and the card has no patch",
        },
        {"index": 22, "step": "inert"},
        {"index": 24, "step": "proved"},
        {"index": 26, "step": "retracted", "reason": "a notebook edit is not recomputed"},
        {
            "index": 28,
            "step": "retracted",
            "reason": "the change is not recorded: the Write card is malformed",
        },
        {"index": 30, "step": "relative"},
    ]
    assert out["paths"] == {
        "/project/README.md": {
            "state": "retracted",
            "reason": "the change is not recorded: the person modified the edit and the card has no patch",
            "index": 20,
        },
        "/project/big.log": {"state": "inert"},
        "/project/logo.png": {"state": "inert"},
        "/project/nb.ipynb": {
            "state": "retracted",
            "reason": "a notebook edit is not recomputed",
            "index": 26,
        },
        "/project/src/app.py": {"state": "proven"},
        "/project/src/util.py": {
            "state": "retracted",
            "reason": "the change is not recorded: the Write card is malformed",
            "index": 28,
        },
    }
    # `rehydrate replay`: 1 proven, 3 retracted, 2 inert.
    assert out["counts"] == {"proven": 1, "retracted": 3, "inert": 2}
    assert out["records"] == rehydrate.file_records(CLAUDE_REPLAY.read_bytes())


def test_replay_of_canonical_messages_with_details() -> None:
    messages = case(FIXTURES / "replay" / "seed-02-write-after-read.json")["messages"]
    out = rehydrate.replay(messages)
    assert out == {
        "steps": [{"index": 2, "step": "proved"}, {"index": 4, "step": "proved"}],
        "records": [{"path": "/a/x", "content": "v2", "digest": V2_DIGEST, "at": "2", "index": 4}],
        "paths": {"/a/x": {"state": "proven"}},
        "counts": {"proven": 1, "retracted": 0, "inert": 0},
    }


def test_staleness_compares_a_record_with_the_bytes_on_disk() -> None:
    messages = case(FIXTURES / "replay" / "seed-02-write-after-read.json")["messages"]
    [record] = rehydrate.file_records(messages)
    assert rehydrate.staleness(record, b"v2") == {"state": "fresh"}
    assert rehydrate.staleness(record, bytearray(b"v2")) == {"state": "fresh"}
    assert rehydrate.staleness(record, b"v1") == {
        "state": "stale",
        "expected": V2_DIGEST,
        "actual": V1_DIGEST,
    }
    assert rehydrate.staleness(record, None) == {"state": "stale", "expected": V2_DIGEST, "actual": None}
    assert rehydrate.staleness(None, b"v2") == {"state": "not_read"}
    # A record without its digest is hashed from its content.
    assert rehydrate.staleness({"path": "/a/x", "content": "v1"}, b"v1") == {"state": "fresh"}


def test_replay_bad_input() -> None:
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.file_records(str(CLAUDE_REPLAY))
    assert str(err.value) == (
        "data_or_messages: expected the bytes of a session file or a list of message dicts, got str"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.replay(3)
    assert str(err.value) == (
        "data_or_messages: expected the bytes of a session file or a list of message dicts, got int"
    )
    with pytest.raises(rehydrate.FormatsError) as err:
        rehydrate.file_records(b"not a session", name="notes.txt")
    assert str(err.value) == (
        "notes.txt: unknown session format (expected claude-code JSONL, codex rollout JSONL, "
        "swe-agent .traj, an OpenAI messages array, an OpenAI Responses input, an Anthropic "
        "Messages body, a Gemini CLI session, an OpenHands event stream, an Aider chat history "
        "or a Goose session)"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.file_records(b"[]", format="gemini")
    assert str(err.value) == (
        "format: unknown format `gemini` (expected claude-code, swe-agent, openai, codex, "
        "responses, anthropic, gemini-cli, openhands, aider or goose)"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.file_records([], format="openai")
    assert str(err.value) == (
        "format: given with a list as data_or_messages; it names the format of a session file's bytes"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.file_records(b"[]", name=5)
    assert str(err.value) == "name: expected a str, got int"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.replay([{"role": "user", "content": "ok"}, {"role": "tool", "contents": "x"}])
    assert str(err.value).startswith("data_or_messages[1]: unknown field `contents`")

    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.staleness("/a/x", b"v2")
    assert str(err.value) == "record: expected a dict of file_records or None, got str"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.staleness({"path": "/a/x"}, b"v2")
    assert str(err.value) == "record: missing field `content`"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.staleness({"path": "/a/x", "content": "v1", "digest": V2_DIGEST}, b"v1")
    assert str(err.value) == (
        f"record: digest {V2_DIGEST} is not the blake3 of its content ({V1_DIGEST})"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.staleness(None, "v2")
    assert str(err.value) == "disk: expected bytes or None, got str"


# Evidence


def test_evidence_of_an_openai_session_is_the_clis() -> None:
    data = (FIXTURES / "cli" / "build-session.json").read_bytes()
    evidence = rehydrate.project_evidence(data)
    # `rehydrate evidence --json fixtures/cli/build-session.json`, plus `workspace` and
    # `input_json`, which the CLI does not print.
    assert evidence["projection_version"] == 2
    assert evidence["turns"] == [
        {
            "turn": 1,
            "seq_range": [1, 11],
            "user": ["The build is broken. Find out why."],
            "summaries": [],
            "assistant": "src/main.rs:12 returns a string where a u32 is expected.",
            "tools": [{"name": "bash", "ok": True}] * 3,
        },
        {
            "turn": 2,
            "seq_range": [12, 22],
            "user": ["Fix it and show me the README."],
            "summaries": [],
            "assistant": "Fixed: the function now returns 42, and the build passes.",
            "tools": [
                {"name": "edit", "ok": True},
                {"name": "read", "ok": True},
                {"name": "bash", "ok": True},
            ],
        },
    ]
    assert evidence["workspace"] == []
    assert evidence["stats"] == {
        "events": 23,
        "surface_events": 16,
        "log_turns": 3,
        "turns": 2,
        "bytes_before": 43921,
        "bytes_after": 547,
        "code_blocks_omitted": 0,
        "secrets_redacted": 0,
    }
    # The input handed on is the compact JSON of version, turns and workspace, as measured.
    compact = json.dumps(
        {k: evidence[k] for k in ("projection_version", "turns", "workspace")},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert evidence["input_json"] == compact
    assert len(compact.encode()) == 547
    # The same events from the imported messages project the same.
    messages = rehydrate.import_session(data).messages
    events = rehydrate.session_events(messages)
    assert events == rehydrate.session_events(data)
    assert len(events) == 23
    assert rehydrate.project_evidence(events)["turns"] == evidence["turns"]


def test_evidence_of_a_codex_rollout_keeps_exit_codes() -> None:
    data = (FIXTURES / "formats" / "codex" / "codex-session.jsonl").read_bytes()
    evidence = rehydrate.project_evidence(data)
    assert evidence["turns"] == [
        {
            "turn": 1,
            "seq_range": [3, 14],
            "user": ["Fix the typo in greet.py and run the tests."],
            "summaries": [],
            "assistant": "The typo is `Helo`; one test fails because of it.",
            "tools": [
                {"name": "exec_command", "ok": True, "exit_code": 0},
                {"name": "exec_command", "ok": False, "exit_code": 1},
                {"name": "exec_command", "ok": True},
                {"name": "write_stdin", "ok": True, "exit_code": 0},
            ],
        }
    ]
    assert (evidence["stats"]["events"], evidence["stats"]["bytes_before"]) == (15, 3257)
    assert evidence["stats"]["bytes_after"] == 401


def test_evidence_of_event_fixtures_is_the_snapshots() -> None:
    one = rehydrate.project_evidence(case(FIXTURES / "evidence" / "seed-01-one-turn.json")["events"])
    assert one["turns"] == [
        {
            "turn": 1,
            "seq_range": [0, 3],
            "user": ["fix bug"],
            "summaries": [],
            "assistant": "done",
            "tools": [],
        }
    ]
    assert (one["stats"]["bytes_before"], one["stats"]["bytes_after"]) == (348, 142)
    # Workspace records are handed on and measured: 200 bytes fit a limit of 200, not of 199.
    ws = case(FIXTURES / "evidence" / "workspace-records.json")
    out = rehydrate.project_evidence(ws["events"], ws["workspace"], max_input_bytes=200)
    assert out["workspace"] == [{"kind": "memory", "text": "use --release"}]
    assert out["stats"]["bytes_after"] == 200
    with pytest.raises(rehydrate.EvidenceError) as err:
        rehydrate.project_evidence(ws["events"], ws["workspace"], max_input_bytes=199)
    assert str(err.value) == "evidence-too-large: the projected input is 200 bytes, over the limit of 199"
    over = case(FIXTURES / "evidence" / "over-limit.json")
    with pytest.raises(rehydrate.EvidenceError) as err:
        rehydrate.project_evidence(over["events"], max_input_bytes=over["options"]["max_input_bytes"])
    assert str(err.value) == "evidence-too-large: the projected input is 432 bytes, over the limit of 200"
    split = case(FIXTURES / "evidence" / "turn-not-contiguous.json")["events"]
    with pytest.raises(rehydrate.EvidenceError) as err:
        rehydrate.project_evidence(split)
    assert str(err.value) == "session event 2 belongs to turn 1, whose events ended before"


def test_evidence_bad_input() -> None:
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.project_evidence("events.json")
    assert str(err.value) == (
        "data_or_events: expected the bytes of a session file or a list of session event dicts, got str"
    )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.project_evidence([{"seq": 0}])
    assert str(err.value) == "data_or_events[0]: missing field `kind`"
    for bad, shown in ((-1, "-1"), (True, "bool"), ("1", "str")):
        with pytest.raises(rehydrate.InputError) as err:
            rehydrate.project_evidence([], max_input_bytes=bad)
        assert str(err.value) == f"max_input_bytes: expected a non-negative int, got {shown}"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.project_evidence([], workspace="notes")
    assert str(err.value) == "workspace: expected a list of JSON values, got str"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.session_events(b"[]", format="jsonl")
    assert str(err.value).startswith("format: unknown format `jsonl`")


# Signals


ASSESSED = {
    "dangling-and-growing.json": (
        "freeze",
        [GROWING, "active summaries cite 2 distinct ids, the store resolves 3, 1 cited id does not resolve (z)"],
    ),
    "dangling-without-inversion.json": (
        "widen_retention",
        ["active summaries cite 2 distinct ids, the store resolves 3, 1 cited id does not resolve (z)"],
    ),
    "digest-failure.json": (
        "freeze",
        ["1 reduction failed its digest (r3.abcdef): reconcile before compacting again"],
    ),
    "misses.json": ("widen_retention", ["the host reported 2 expand or search misses"]),
    "seed-1-continue.json": ("continue", []),
    "seed-2-widen.json": (
        "widen_retention",
        ["active summaries cite 4 distinct ids, the store resolves 2, 2 cited ids do not resolve (c, d)"],
    ),
    "seed-3-freeze.json": (
        "freeze",
        [GROWING, "active summaries cite 4 distinct ids, the store resolves 2, 2 cited ids do not resolve (c, d)"],
    ),
    "seed-4-signal-2-alone.json": ("continue", []),
    "seed-5-one-epoch.json": ("continue", []),
    "seed-8-empty.json": ("continue", []),
}


def test_assess_decides_as_the_signals_snapshots() -> None:
    names = sorted(p.name for p in (FIXTURES / "signals").glob("*.json"))
    assert names == sorted(ASSESSED)
    for name, (decision, reasons) in ASSESSED.items():
        signals = case(FIXTURES / "signals" / name)["signals"]
        assert rehydrate.assess(signals) == {"decision": decision, "reasons": reasons}, name
    # Epoch keys of `dangling` may be ints as well as the strings JSON gives.
    signals = case(FIXTURES / "signals" / "seed-3-freeze.json")["signals"]
    signals["dangling"] = {int(k): v for k, v in signals["dangling"].items()}
    assert rehydrate.assess(signals)["decision"] == "freeze"


def test_assess_bad_input() -> None:
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.assess("freeze")
    assert str(err.value) == "signals: expected a dict, got str"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.assess({"epoch": 1})
    assert str(err.value) == "signals: missing field `cited`"


def recorded_store(tmp_path: Path) -> tuple[Path, list[str]]:
    """A store file of the build session (recorded by `Session`) and its reductions' stubs."""
    path = tmp_path / "session.rhyd"
    session = rehydrate.Session.create(path)
    session.push(rehydrate.import_session(FIXTURES / "cli" / "build-session.json").messages)
    stubs = [r["stub"] for r in session.log["reductions"]]
    del session  # releases the store's lock
    return path, stubs


def test_auto_compact_records_summaries_while_the_signals_allow(tmp_path: Path) -> None:
    path, stubs = recorded_store(tmp_path)
    assert [s.split(" ")[1] for s in stubs] == ["r0.b35021", "r1.d26c33", "r2.b35021"]
    ids = ["r0.b35021", "r1.d26c33", "r2.b35021"]
    empty = {
        "epoch": None,
        "cited": [],
        "resolvable": ids,
        "refs_per_summary": [],
        "dangling": {},
        "digest_failures": [],
        "misses": 0,
    }
    assert rehydrate.compaction_signals(path) == empty
    calls: list[tuple[dict[str, Any], str]] = []

    def summarize(signals: dict[str, Any], decision: str) -> str:
        calls.append((signals, decision))
        return f"We fixed the build.\n{stubs[0]}\n{stubs[1]}"

    assert rehydrate.auto_compact(path, summarize) == {"decision": "continue", "epoch": 0}
    assert calls == [(empty, "continue")]
    after = rehydrate.compaction_signals(path)
    assert after == {**empty, "epoch": 0, "cited": ids[:2], "refs_per_summary": [2.0]}
    assert rehydrate.assess(after) == {"decision": "continue", "reasons": []}

    # A summary that cites an id the store never minted, retiring the first: widen retention.
    unminted = stubs[0].replace("r0.b35021", "r7.b35021")
    assert rehydrate.auto_compact(path, lambda s, d: (f"{unminted}\n{stubs[2]}", [0]), sync="never") == {
        "decision": "continue",
        "epoch": 1,
    }
    diverged = rehydrate.compaction_signals(path)
    assert diverged["dangling"] == {"1": ["r7.b35021"]}
    assert diverged["refs_per_summary"] == [2.0, 2.0]
    assert rehydrate.assess(diverged) == {
        "decision": "widen_retention",
        "reasons": ["active summaries cite 2 distinct ids, the store resolves 3, 1 cited id does not resolve (r7.b35021)"],
    }
    seen: list[str] = []
    cites_more = (f"{unminted}\n{stubs[1]}\n{stubs[2]}", [1])
    assert rehydrate.auto_compact(path, lambda s, d: seen.append(d) or cites_more) == {
        "decision": "widen_retention",
        "epoch": 2,
    }
    assert seen == ["widen_retention"]

    # References per summary grew while citations diverge: freeze, the summarizer not called.
    def never(signals: dict[str, Any], decision: str) -> str:
        raise AssertionError("the summarizer ran on a freeze")

    with pytest.raises(rehydrate.SignalsError) as err:
        rehydrate.auto_compact(path, never)
    assert str(err.value) == (
        "references-per-summary increased across compaction epochs; summarizer is re-deriving "
        "citations from rehydrated content; active summaries cite 3 distinct ids, the store "
        "resolves 3, 1 cited id does not resolve (r7.b35021)"
    )
    assert rehydrate.compaction_signals(path)["epoch"] == 2


def test_a_summarizers_exception_propagates_and_nothing_is_recorded(tmp_path: Path) -> None:
    path, _ = recorded_store(tmp_path)
    size = path.stat().st_size

    class Offline(Exception):
        pass

    def summarize(signals: dict[str, Any], decision: str) -> str:
        raise Offline("the summarizer's model is offline")

    with pytest.raises(Offline) as err:
        rehydrate.auto_compact(path, summarize)
    assert str(err.value) == "the summarizer's model is offline"
    with pytest.raises(rehydrate.InputError) as err2:
        rehydrate.auto_compact(path, lambda s, d: 42)
    assert str(err2.value) == (
        "summarizer: expected it to return a str or a (str, list[int]) tuple, got int"
    )
    assert path.stat().st_size == size
    assert rehydrate.compaction_signals(path)["epoch"] is None
    # A summary may retire only earlier epochs: the store's own refusal, nothing recorded.
    with pytest.raises(rehydrate.SessionError) as err3:
        rehydrate.auto_compact(path, lambda s, d: ("text", [0]))
    assert str(err3.value) == (
        f"session store {path}: the summary of epoch 0 cannot retire epoch 0, which is not "
        "earlier; nothing was recorded"
    )
    assert path.stat().st_size == size


def test_signals_bad_input(tmp_path: Path) -> None:
    missing = tmp_path / "missing.rhyd"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.compaction_signals(missing)
    assert str(err.value) == f"session store {missing}: No such file or directory (os error 2)"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.auto_compact(missing, lambda s, d: "")
    assert str(err.value) == f"session store {missing}: No such file or directory (os error 2)"
    session_file = FIXTURES / "cli" / "build-session.json"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.compaction_signals(session_file)
    assert str(err.value) == f"{session_file} is not a rehydrate session store (no RHYDSTOR header)"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.compaction_signals(3)
    assert str(err.value) == "store: expected a str or os.PathLike path, got int"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.auto_compact(missing, "summarize")
    assert str(err.value) == "summarizer: expected a callable, got str"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.auto_compact(missing, lambda s, d: "", sync="sometimes")
    assert str(err.value) == (
        "sync: expected \"every-record\", \"never\" or a non-negative number of bytes, got 'sometimes'"
    )
    # A store whose last record a write cut short.
    path, _ = recorded_store(tmp_path)
    with open(path, "ab") as f:
        f.write(b"\x01\x02\x03")
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.compaction_signals(path)
    assert str(err.value).startswith(f"session store {path} has a torn tail at byte ")
    assert str(err.value).endswith("; repair truncates it")


# Session directories


def cli() -> Path:
    """The `rehydrate` binary of this checkout, built when missing."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "debug" / "rehydrate"
    if not binary.exists():
        cargo = os.environ.get("CARGO", "cargo")
        subprocess.run([cargo, "build", "-q", "-p", "rehydrate-cli"], cwd=ROOT, check=True)
    return binary


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`rehydrate reduce fixtures/cli/build-session.json` (the default preset), its directory."""
    out = tmp_path_factory.mktemp("reduce") / "build"
    subprocess.run(
        [cli(), "reduce", "fixtures/cli/build-session.json", "--out", out, "--no-tokens"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return out


def test_a_session_directory_reads_back_as_the_cli_wrote_it(reduced: Path) -> None:
    d = rehydrate.SessionDir.open(reduced)
    session = rehydrate.import_session(FIXTURES / "cli" / "build-session.json")
    assert d.path == reduced
    assert d.messages == session.messages
    out = rehydrate.project_messages(session.messages)
    assert d.log == out.log
    assert [r["id"] for r in d.log["reductions"]] == ["r0.b35021", "r1.d26c33", "r2.b35021"]
    assert d.view == list(out.view)
    # sidecar/manifest.json as `rehydrate reduce` writes it (its bytes are deterministic).
    assert d.manifest == {
        "format": "rehydrate-sidecar",
        "version": 2,
        "source": "fixtures/cli/build-session.json",
        "source_format": "openai",
        "messages": 17,
        "files": {
            "reductions.json": {
                "bytes": 1624,
                "blake3": "b402921061d0f6abe7d0f8f11f9197c7a478aaf408016ddc04c1dc9c49f88400",
            },
            "sidecar/session.rhyd": {
                "bytes": 44264,
                "blake3": "5fa4f91cc55e4b753a3c001a40ddf7aee5071590583b6ae2b73cc1527e2a2e75",
            },
            "view.json": {
                "bytes": 10609,
                "blake3": "58822d1bec751ff88fcec27f81f334656aeeba488413c1ae016c264d6ac8dd8a",
            },
        },
    }
    assert (d.summaries, d.misses, d.file_mismatches) == ([], [], [])
    # `rehydrate signals --json` on the directory.
    assert d.signals == {
        "epoch": None,
        "cited": [],
        "resolvable": ["r0.b35021", "r1.d26c33", "r2.b35021"],
        "refs_per_summary": [],
        "dangling": {},
        "digest_failures": [],
        "misses": 0,
    }
    assert rehydrate.assess(d.signals) == {"decision": "continue", "reasons": []}
    assert d.verify() is None
    assert repr(d) == f'SessionDir("{reduced}": 17 messages, 3 reductions)'
    assert rehydrate.SessionDir.repair(reduced) == {"lines": [], "reductions": 3, "messages": 17}


def test_a_changed_directory_is_reported(reduced: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed"
    shutil.copytree(reduced, changed)
    view = changed / "view.json"
    text = view.read_text()
    assert "The build is broken." in text
    view.write_text(text.replace("The build is broken.", "The build is broke!."))
    d = rehydrate.SessionDir.open(changed)
    # The digest of the new bytes, by the crate's blake3 (staleness of a record of them).
    new = rehydrate.staleness({"path": "/v", "content": view.read_text()}, None)["expected"]
    line = (
        f"{view}: digest mismatch: manifest records "
        f"58822d1bec751ff88fcec27f81f334656aeeba488413c1ae016c264d6ac8dd8a (10609 bytes), "
        f"file has {new} (10609 bytes)"
    )
    assert d.file_mismatches == [line]
    with pytest.raises(rehydrate.SessionError) as err:
        d.verify()
    assert str(err.value) == line
    # Repair restores a store cut short, never a changed view.
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.SessionDir.repair(changed)
    assert str(err.value).splitlines()[-1] == f"{changed}: nothing was changed"


def test_session_directory_bad_input(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.SessionDir.open(missing)
    assert str(err.value) == f"{missing}: not an output directory of `rehydrate reduce` (no such directory)"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.SessionDir.open(tmp_path)
    assert str(err.value) == (
        f"{tmp_path}: not an output directory of `rehydrate reduce` (it has no sidecar/manifest.json)"
    )
    session_file = FIXTURES / "cli" / "build-session.json"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.SessionDir.open(session_file)
    assert str(err.value) == f"{session_file}: not an output directory of `rehydrate reduce` (not a directory)"
    with pytest.raises(rehydrate.SessionError) as err:
        rehydrate.SessionDir.repair(missing)
    assert str(err.value) == f"{missing}: not an output directory of `rehydrate reduce` (no such directory)"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.SessionDir.open(None)
    assert str(err.value) == "path: expected a str or os.PathLike path, got NoneType"
