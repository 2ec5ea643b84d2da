"""An agent loop on the official `openai` SDK with rehydrate in between, without network.

A scripted model (behind the SDK's HTTP transport, `httpx2.MockTransport`) runs a build three
times, then finds a stub in the request it is sent, calls `expand_reduction` on it, and checks
that what comes back is the first build's output, byte for byte. Each request is built by the
SDK from the reducer's view; each tool call of the model is answered by `Reducer.call`.
Run by `cargo xtask python`; exits non-zero when a check fails.
"""

from __future__ import annotations

import json
import re

import httpx2
import openai

import rehydrate

STUB = re.compile(r"\[rehydrate:\S+ (r\d+\.[0-9a-f]+) ")
OUTPUTS = [f"build {i}\n" + f"warning[{i}]: unused variable `x{i}`\n" * 1500 for i in range(4)]
transcript: list[str] = []


def completion(message: dict) -> httpx2.Response:
    return httpx2.Response(
        200,
        json={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        ],
    }


def scripted_model(request: httpx2.Request) -> httpx2.Response:
    """The model: reads the request the SDK built and answers the next step of its script."""
    body = json.loads(request.content)
    assert [t["function"]["name"] for t in body["tools"]][:2] == ["expand_reduction", "sidecar_search"]
    messages = body["messages"]
    builds = sum(1 for m in messages for c in m.get("tool_calls") or [] if c["function"]["name"] == "bash")
    last = messages[-1]
    if last["role"] == "tool" and last["tool_call_id"] == "x1":
        # The expanded output: exactly the first build's bytes.
        assert last["content"] == OUTPUTS[0], "expand_reduction gave other bytes"
        transcript.append(f"model <- {len(last['content'])} bytes, the first build's output exactly")
        return completion({"role": "assistant", "content": "The first build warned 1500 times."})
    if builds < len(OUTPUTS):
        return completion(call(f"b{builds}", "bash", {"cmd": f"cargo build --run {builds}"}))
    stubs = [STUB.search(m["content"]) for m in messages if m["role"] == "tool" and isinstance(m["content"], str)]
    ids = [s.group(1) for s in stubs if s]
    assert ids, "the request holds no stub"
    transcript.append(f"model sees {len(ids)} stubs; expands {ids[0]}")
    return completion(call("x1", "expand_reduction", {"reduction_id": ids[0]}))


def main() -> None:
    client = openai.OpenAI(
        api_key="not-used",
        base_url="https://model.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(scripted_model)),
        max_retries=0,
    )
    reducer = rehydrate.Reducer(rehydrate.ReductionPolicy.aggressive())
    tools = rehydrate.tool_definitions("openai") + [
        {"type": "function", "function": {"name": "bash", "description": "Run a command", "parameters": {"type": "object"}}}
    ]
    view = reducer.project([{"role": "user", "content": "Build the project and tell me about the first build."}])
    for _ in range(10):
        body = json.loads(rehydrate.request_body(view, "openai"))
        response = client.chat.completions.create(model="scripted", messages=body["messages"], tools=tools)
        message = response.choices[0].message.model_dump(exclude_none=True)
        new = [message]
        for tool_call in message.get("tool_calls", []):
            name, arguments = tool_call["function"]["name"], tool_call["function"]["arguments"]
            if name == "bash":
                run = int(json.loads(arguments)["cmd"].rsplit(" ", 1)[1])
                content, is_error = OUTPUTS[run], False
            else:
                content, is_error = reducer.call(name, arguments)
            transcript.append(f"host: {name} {arguments} -> {len(content)} bytes{' (error)' if is_error else ''}")
            new.append({"role": "tool", "tool_call_id": tool_call["id"], "content": content})
        # The scripted model answers at once; a real one pauses: ten minutes between the calls
        # here, so the prompt cache has expired and every reduction decided is shown.
        view = reducer.project(new, idle_seconds=600)
        if "tool_calls" not in message:
            transcript.append(f"model: {message['content']}")
            break
    assert transcript[-1] == "model: The first build warned 1500 times.", transcript
    assert len(reducer.log["reductions"]) >= 1
    print("\n".join(transcript))


if __name__ == "__main__":
    main()
