"""The agent loop of openai_agent_loop.py on the official `anthropic` SDK, without network.

Each request is the reducer's view as an Anthropic Messages body (`request_body(view,
"anthropic")`: system prompt apart, tool calls as `tool_use` blocks, results as `tool_result`
blocks), sent by the SDK to a scripted model behind `httpx2.MockTransport`; the model's
`tool_use` blocks come back as canonical tool calls and `Reducer.call` answers its
`expand_reduction` call. Run by `cargo xtask python`; exits non-zero when a check fails.
"""

from __future__ import annotations

import json
import re

import anthropic
import httpx2

import rehydrate

STUB = re.compile(r"\[rehydrate:\S+ (r\d+\.[0-9a-f]+) ")
OUTPUTS = [f"test run {i}\n" + f"test case_{i}_{k} ... ok\n" * 2000 for i, k in enumerate("abcd")]
transcript: list[str] = []


def message(content: list[dict]) -> httpx2.Response:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return httpx2.Response(
        200,
        json={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "scripted",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    )


def texts(block_content: object) -> str:
    if isinstance(block_content, str):
        return block_content
    return "".join(b.get("text", "") for b in block_content or [])


def scripted_model(request: httpx2.Request) -> httpx2.Response:
    body = json.loads(request.content)
    assert body["system"] == "You run tests."
    assert [t["name"] for t in body["tools"]][:2] == ["expand_reduction", "sidecar_search"]
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    runs = sum(1 for b in blocks if b["type"] == "tool_use" and b["name"] == "run_tests")
    results = [b for b in blocks if b["type"] == "tool_result"]
    last = results[-1] if results else None
    if last is not None and last["tool_use_id"] == "toolu_x":
        assert texts(last["content"]) == OUTPUTS[0], "expand_reduction gave other bytes"
        transcript.append(f"model <- {len(texts(last['content']))} bytes, the first run's output exactly")
        return message([{"type": "text", "text": "All 2000 cases of the first run passed."}])
    if runs < len(OUTPUTS):
        return message([{"type": "tool_use", "id": f"toolu_{runs}", "name": "run_tests", "input": {"run": runs}}])
    ids = [s.group(1) for s in (STUB.search(texts(r["content"])) for r in results) if s]
    assert ids, "the request holds no stub"
    transcript.append(f"model sees {len(ids)} stubs; expands {ids[0]}")
    return message([{"type": "tool_use", "id": "toolu_x", "name": "expand_reduction", "input": {"reduction_id": ids[0]}}])


def main() -> None:
    client = anthropic.Anthropic(
        api_key="not-used",
        base_url="https://model.invalid",
        http_client=httpx2.Client(transport=httpx2.MockTransport(scripted_model)),
        max_retries=0,
    )
    reducer = rehydrate.Reducer(rehydrate.ReductionPolicy.aggressive())
    tools = rehydrate.tool_definitions("anthropic") + [
        {"name": "run_tests", "description": "Run the test suite", "input_schema": {"type": "object"}}
    ]
    view = reducer.project(
        [{"role": "system", "content": "You run tests."}, {"role": "user", "content": "Run the tests four times."}]
    )
    for _ in range(10):
        body = json.loads(rehydrate.request_body(view, "anthropic"))
        response = client.messages.create(
            model="scripted", max_tokens=1024, system=body["system"], messages=body["messages"], tools=tools
        )
        text = "".join(b.text for b in response.content if b.type == "text")
        calls = [b for b in response.content if b.type == "tool_use"]
        assistant: dict = {"role": "assistant"}
        if text:
            assistant["content"] = text
        if calls:
            assistant["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
                for c in calls
            ]
        new = [assistant]
        for c in calls:
            if c.name == "run_tests":
                content, is_error = OUTPUTS[c.input["run"]], False
            else:
                content, is_error = reducer.call(c.name, json.dumps(c.input))
            transcript.append(f"host: {c.name} {json.dumps(c.input)} -> {len(content)} bytes{' (error)' if is_error else ''}")
            new.append({"role": "tool", "tool_call_id": c.id, "content": content})
        # Ten minutes between calls: the prompt cache has expired, every decided reduction shows.
        view = reducer.project(new, idle_seconds=600)
        if not calls:
            transcript.append(f"model: {text}")
            break
    assert transcript[-1] == "model: All 2000 cases of the first run passed.", transcript
    print("\n".join(transcript))


if __name__ == "__main__":
    main()
