"""`rehydrate mcp` against an independent client: the official MCP Python SDK (`mcp`, pinned)
starts the server on stdio, lists its tools and calls each one (docs/MCP.md)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import rehydrate

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "cli" / "build-session.json"


def binary() -> str:
    """The debug CLI (`cargo test` builds it in CI; built here when missing)."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "debug" / "rehydrate"
    if not path.exists():
        subprocess.run([os.environ.get("CARGO", "cargo"), "build", "-q", "-p", "rehydrate-cli"], cwd=ROOT, check=True)
    return str(path)


def text(result: Any) -> str:
    assert len(result.content) == 1
    return str(result.content[0].text)


async def session_calls(args: list[str], steps: Any, env: dict[str, str] | None = None) -> Any:
    params = StdioServerParameters(command=binary(), args=["mcp", *args], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)


def test_a_transcript_served_over_mcp_expands_searches_lists_and_grows(tmp_path: Path) -> None:
    transcript = tmp_path / "live.json"
    messages = json.loads(FIXTURE.read_bytes())
    shutil.copy(FIXTURE, transcript)
    out = rehydrate.project_messages(messages, policy=rehydrate.ReductionPolicy.aggressive())
    first = out.log["reductions"][0]
    original = messages[first["ptr"]["addr"]["index"]]["content"]

    async def steps(session: ClientSession) -> None:
        tools = await session.list_tools()
        assert [t.name for t in tools.tools] == ["expand_reduction", "sidecar_search", "list_reductions"]
        assert all("compaction" in (t.description or "") for t in tools.tools)
        # The exact bytes of a hidden output, and an exact slice of them.
        whole = await session.call_tool("expand_reduction", {"reduction_id": first["id"]})
        assert (text(whole), whole.is_error) == (original, False)
        ranged = await session.call_tool("expand_reduction", {"reduction_id": first["id"], "byte_range": [10, 50]})
        assert text(ranged) == f"[{first['id']}: bytes 10..50 of {len(original.encode())}]\n{original[10:50]}"
        # A string only the hidden part holds.
        found = json.loads(text(await session.call_tool("sidecar_search", {"query": "crate-100", "mode": "literal"})))
        assert found["total_matches"] >= 1 and found["matches"][0]["reduction_id"] == first["id"]
        # Pages of the log.
        page = json.loads(text(await session.call_tool("list_reductions", {"limit": 1})))
        assert page["total"] == len(out.log["reductions"]) and page["next_offset"] == 1
        assert page["reductions"][0]["id"] == first["id"]
        # Bad arguments are tool errors, not protocol errors.
        bad = await session.call_tool("expand_reduction", {"reduction_id": 7})
        assert bad.is_error and text(bad) == "Error: expand_reduction: `reduction_id` must be a string, got 7"
        unknown = await session.call_tool("read_file", {"path": "/etc/passwd"})
        assert unknown.is_error and text(unknown).startswith("Error: unknown tool `read_file`")
        # The transcript grows: the next call sees the new messages.
        grown = messages + [
            {"role": "user", "content": "and once more"},
            {"role": "assistant", "tool_calls": [{"id": "late", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "late", "content": "late line\n" * 1500 + "needle-only-late\n" + "late line\n" * 1500},
            {"role": "user", "content": "thanks"},
            *[
                m
                for i in range(4)
                for m in (
                    {"role": "assistant", "tool_calls": [{"id": f"x{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": f"x{i}", "content": "ok"},
                )
            ],
        ]
        transcript.write_text(json.dumps(grown))
        after = json.loads(text(await session.call_tool("list_reductions", {"limit": 50})))
        assert after["total"] > page["total"]
        late = json.loads(text(await session.call_tool("sidecar_search", {"query": "needle-only-late"})))
        assert late["total_matches"] == 1

    asyncio.run(session_calls(["--transcript", str(transcript)], steps))


def test_a_reduce_directory_served_over_mcp(tmp_path: Path) -> None:
    out_dir = tmp_path / "session.rehydrate"
    subprocess.run([binary(), "reduce", str(FIXTURE), "--out", str(out_dir), "--no-tokens"], check=True, capture_output=True)
    log = json.loads((out_dir / "reductions.json").read_bytes())
    messages = json.loads(FIXTURE.read_bytes())

    async def steps(session: ClientSession) -> None:
        ids = [r["id"] for r in log["reductions"]]
        page = json.loads(text(await session.call_tool("list_reductions", {})))
        assert [r["id"] for r in page["reductions"]] == ids and page["next_offset"] is None
        for r in log["reductions"]:
            got = await session.call_tool("expand_reduction", {"reduction_id": r["id"]})
            assert text(got) == rehydrate.expand_reduction(log, messages, r["id"])

    asyncio.run(session_calls(["--session", str(out_dir)], steps))


MCP_FIXTURES = ROOT / "fixtures" / "mcp"


def jsonl_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_claude_code_found_by_its_cwd_serves_what_its_compaction_removed(tmp_path: Path) -> None:
    # A Claude Code config directory of our own: projects/<encoded cwd>/<session>.jsonl, and an
    # older session of the same project that must not be chosen.
    cwd = "/home/dev/widgets"
    project = tmp_path / "claude" / "projects" / "-home-dev-widgets"
    project.mkdir(parents=True)
    older = project / "0000-older.jsonl"
    older.write_text(json.dumps({"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "old"}}) + "\n")
    os.utime(older, (1_000_000_000, 1_000_000_000))
    live = project / "7c1e0000-0000-4000-8000-00000000c0de.jsonl"
    shutil.copy(MCP_FIXTURES / "claude-code-compacted.jsonl", live)
    # The pre-compaction tool output, as the file records it (read independently of rehydrate).
    records = jsonl_records(live)
    failing = next(
        block["content"]
        for r in records
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
        if "FAILED" in str(block.get("content"))
    )
    summary = next(r["message"]["content"] for r in records if r.get("isCompactSummary"))

    async def steps(session: ClientSession) -> None:
        listed = json.loads(text(await session.call_tool("list_reductions", {})))
        kinds = [r["kind"] for r in listed["reductions"]]
        assert kinds == ["compaction"] and listed["next_offset"] is None
        compaction = listed["reductions"][0]
        assert compaction["message_index"] == 0
        assert compaction["summary"].startswith(f"[rehydrate:compaction {compaction['id']} | messages 0-10 (3 turns, ")
        # The whole hidden range holds the failing output byte for byte; a byte range gives
        # exactly that output.
        whole = text(await session.call_tool("expand_reduction", {"reduction_id": compaction["id"]}))
        body = whole.encode()
        start = body.index(failing.encode())
        ranged = await session.call_tool(
            "expand_reduction", {"reduction_id": compaction["id"], "byte_range": [start, start + len(failing.encode())]}
        )
        end = start + len(failing.encode())
        assert not ranged.is_error
        assert text(ranged) == f"[{compaction['id']}: bytes {start}..{end} of {len(body)}]\n{failing}"
        # A string only the pre-compaction part holds is found there; the summary the model
        # still sees is there too (it is the range's last message).
        found = json.loads(text(await session.call_tool("sidecar_search", {"query": "WIDGET-LIMIT-0xBEEF"})))
        assert [m["reduction_id"] for m in found["matches"]] == [compaction["id"]]
        assert "WIDGET-LIMIT-0xBEEF" in found["matches"][0]["snippet"]
        assert summary.splitlines()[1] in whole
        # The agent compacts again and goes on: the appended lines are picked up, and the
        # second compaction's range now holds the first one's.
        last_uuid = records[-1]["uuid"]
        appended = [
            {"parentUuid": None, "logicalParentUuid": last_uuid, "type": "system", "subtype": "compact_boundary", "uuid": "c0de-b2", "timestamp": "2026-11-30T11:00:00.000Z", "content": "Conversation compacted"},
            {"parentUuid": "c0de-b2", "type": "user", "uuid": "c0de-s2", "isCompactSummary": True, "timestamp": "2026-11-30T11:00:01.000Z", "message": {"role": "user", "content": "Summary: the limit was raised to 512 and all 221 tests pass (NEEDLE-SECOND-SUMMARY)."}},
            {"parentUuid": "c0de-s2", "type": "user", "uuid": "c0de-u3", "timestamp": "2026-11-30T11:00:02.000Z", "message": {"role": "user", "content": "Open a pull request."}},
        ]
        with live.open("a") as f:
            for r in appended:
                f.write(json.dumps(r) + "\n")
        grown = json.loads(text(await session.call_tool("list_reductions", {})))
        assert [r["kind"] for r in grown["reductions"]] == ["compaction", "compaction"]
        assert grown["reductions"][1]["summary"].startswith(f"[rehydrate:compaction {grown['reductions'][1]['id']} | messages 0-15 (")
        again = json.loads(text(await session.call_tool("sidecar_search", {"query": "WIDGET-LIMIT-0xBEEF"})))
        # Searched once, through the latest range.
        assert [m["reduction_id"] for m in again["matches"]] == [grown["reductions"][1]["id"]]
        # The earlier compaction still expands exactly.
        assert text(await session.call_tool("expand_reduction", {"reduction_id": compaction["id"]})) == whole

    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    asyncio.run(session_calls(["--claude-code", "--cwd", cwd], steps, env))


def test_codex_found_by_its_session_meta_cwd_serves_what_its_compaction_removed(tmp_path: Path) -> None:
    day = tmp_path / "codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-11-30T10-00-00-019acafe-0000-7000-8000-000000000021.jsonl"
    shutil.copy(MCP_FIXTURES / "codex-compacted.jsonl", rollout)
    # A newer rollout of another directory must not be chosen.
    other = day / "rollout-2026-11-30T12-00-00-019acafe-0000-7000-8000-000000000099.jsonl"
    other.write_text(json.dumps({"timestamp": "2026-11-30T12:00:00.000Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/elsewhere"}}) + "\n")
    output = next(
        r["payload"]["output"] for r in jsonl_records(rollout) if r["payload"].get("type") == "function_call_output"
    )

    async def steps(session: ClientSession) -> None:
        listed = json.loads(text(await session.call_tool("list_reductions", {})))
        assert [r["kind"] for r in listed["reductions"]] == ["compaction"]
        rid = listed["reductions"][0]["id"]
        found = json.loads(text(await session.call_tool("sidecar_search", {"query": "SLOWEST-UNIT-7f3a", "mode": "literal"})))
        assert [m["reduction_id"] for m in found["matches"]] == [rid]
        whole = text(await session.call_tool("expand_reduction", {"reduction_id": rid}))
        start = whole.encode().index(output.encode())
        end = start + len(output.encode())
        ranged = await session.call_tool("expand_reduction", {"reduction_id": rid, "byte_range": [start, end]})
        assert text(ranged) == f"[{rid}: bytes {start}..{end} of {len(whole.encode())}]\n{output}"

    env = {**os.environ, "CODEX_HOME": str(tmp_path / "codex")}
    asyncio.run(session_calls(["--codex", "--cwd", "/home/dev/widgets"], steps, env))


def test_no_session_for_the_cwd_is_a_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    done = subprocess.run([binary(), "mcp", "--claude-code", "--cwd", "/no/such/dir"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr == f"error: no Claude Code session for /no/such/dir in {tmp_path}/claude/projects/-no-such-dir (name one with --transcript FILE)\n"


def test_a_call_still_running_when_the_server_reads_is_not_called_unanswered(tmp_path: Path) -> None:
    # The agent has written its call (of this very tool, say) but not the result yet.
    lines = (MCP_FIXTURES / "claude-code-compacted.jsonl").read_text().splitlines(keepends=True)
    pending = next(i for i in range(len(lines) - 1, -1, -1) if '"tool_use"' in lines[i])
    live = tmp_path / "live.jsonl"
    live.write_text("".join(lines[: pending + 1]))

    async def steps(session: ClientSession) -> None:
        before = json.loads(text(await session.call_tool("list_reductions", {})))
        assert [r["kind"] for r in before["reductions"]] == ["compaction"]
        with live.open("a") as f:
            f.write("".join(lines[pending + 1 :]))
        after = json.loads(text(await session.call_tool("list_reductions", {})))
        assert after["reductions"] == before["reductions"]

    asyncio.run(session_calls(["--transcript", str(live)], steps))


def test_claude_code_finds_a_symlinked_cwd_and_a_long_cut_and_hashed_name(tmp_path: Path) -> None:
    config = tmp_path / "claude"
    real = tmp_path / "work" / "my_app"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    encoded = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(real))
    (config / "projects" / encoded).mkdir(parents=True)
    shutil.copy(MCP_FIXTURES / "claude-code-compacted.jsonl", config / "projects" / encoded / "s.jsonl")
    long_cwd = "/" + "deep/" * 50 + "app"
    long_encoded = "".join(c if c.isalnum() else "-" for c in long_cwd)
    assert len(long_encoded) > 200
    (config / "projects" / f"{long_encoded[:200]}-1a2b3c").mkdir(parents=True)
    shutil.copy(MCP_FIXTURES / "claude-code-compacted.jsonl", config / "projects" / f"{long_encoded[:200]}-1a2b3c" / "s.jsonl")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config)}

    async def steps(session: ClientSession) -> None:
        listed = json.loads(text(await session.call_tool("list_reductions", {})))
        assert [r["kind"] for r in listed["reductions"]] == ["compaction"]

    # A symlink, a trailing slash and a `.` component all name the real directory.
    for cwd in [str(tmp_path / "link"), f"{real}/", f"{tmp_path}/work/./my_app"]:
        asyncio.run(session_calls(["--claude-code", "--cwd", cwd], steps, env))
    asyncio.run(session_calls(["--claude-code", "--cwd", long_cwd], steps, env))
