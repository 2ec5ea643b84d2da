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


async def session_calls(args: list[str], steps: Any) -> Any:
    params = StdioServerParameters(command=binary(), args=["mcp", *args])
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
