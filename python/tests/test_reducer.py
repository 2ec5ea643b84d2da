"""The per-turn reducer's view, the policy knobs and the errors for bad arguments."""

from __future__ import annotations

import collections.abc
import json

import pytest

import rehydrate


def call(i: int) -> dict:
    return {
        "role": "assistant",
        "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": '{"cmd":"make"}'}}],
    }


def result(i: int, text: str) -> dict:
    return {"role": "tool", "tool_call_id": f"c{i}", "content": text}


def fed(policy: rehydrate.ReductionPolicy, turns: int) -> tuple[rehydrate.Reducer, list[rehydrate.View]]:
    reducer = rehydrate.Reducer(policy)
    views = [reducer.project([{"role": "user", "content": "build it"}])]
    for i in range(turns):
        views.append(reducer.project([call(i), result(i, f"build {i}: warning\n" * 600)], idle_seconds=600))
    return reducer, views


def test_a_view_is_a_read_only_sequence_and_a_snapshot_of_its_projection() -> None:
    reducer, views = fed(rehydrate.ReductionPolicy.default(), 5)
    # Each view is what one-shot projection of the same prefix gives, though only the last was
    # read before the reducer moved on: every earlier one was kept when the next turn came.
    history = reducer.history
    for turn, view in enumerate(views):
        prefix = history[: 1 + 2 * turn]
        expected = rehydrate.project_messages(prefix, policy=rehydrate.ReductionPolicy.default()).view
        assert list(view) == expected, turn
    view = views[-1]
    assert isinstance(view, collections.abc.Sequence)
    assert len(view) == 11 and view == view.to_list() and view[-1] == history[-1]
    assert view[1:3] == [history[1], view[2]] and "[rehydrate:tool-output r0." in view[2]["content"]
    assert history[0] in view and reducer.view is view
    assert view.index(history[1]) == 1 and view.count(history[1]) == 1 and view.index(history[1], 1, 3) == 1
    assert repr(view) == "<rehydrate.View of 11 messages>"
    # The dicts passed in are the history's and the view's own: not copied.
    first = {"role": "user", "content": "and test it"}
    later = reducer.project([first])
    assert later[-1] is first and reducer.history[-1] is first
    with pytest.raises(TypeError):
        later[0] = {}  # read-only
    assert json.loads(json.dumps(list(later)))[-1] == first


def test_an_unread_view_the_host_dropped_costs_nothing_and_a_kept_one_stays_right() -> None:
    reducer = rehydrate.Reducer(rehydrate.ReductionPolicy.default(protect_last_n_tool_results=0))
    kept = reducer.project([{"role": "user", "content": "go"}, call(0), result(0, "x\n" * 9000)])
    for i in range(1, 4):
        reducer.project([call(i), result(i, "y\n" * 9000)], idle_seconds=600)
    # Read only now: it is the view of its own projection, not of the reducer's latest.
    assert len(reducer.log["reductions"]) == 4  # three truncations and a duplicate
    assert len(kept) == 3 and len(reducer.view) == 9
    assert kept == rehydrate.project_messages(reducer.history[:3], policy=reducer.policy).view
    assert "[rehydrate:tool-output r0." in kept[2]["content"]
    # The dicts of messages the two views show alike are the same objects.
    assert kept[0] is reducer.view[0] and kept[2] is reducer.view[2]


def test_every_policy_knob_is_a_keyword_argument() -> None:
    default = rehydrate.ReductionPolicy.default()
    knobs = default.to_dict()
    assert len(knobs) == 23
    assert knobs["tool_output_trigger_bytes"] == 8192 and knobs["clear_turns_older_than"] is None
    assert knobs["follow_compactions"] is False
    assert rehydrate.ReductionPolicy.aggressive().to_dict()["follow_compactions"] is True
    assert knobs["minting"] == {"min_saved_bytes": 4096, "min_saved_per_mille": 250, "cache_ttl_seconds": 300.0}
    assert rehydrate.ReductionPolicy() == default == rehydrate.ReductionPolicy(**knobs)
    assert rehydrate.ReductionPolicy("aggressive") == rehydrate.ReductionPolicy.aggressive()
    assert rehydrate.ReductionPolicy.aggressive().to_dict()["minting"]["min_saved_per_mille"] == 1500
    changed = default.replace(head_bytes=100, turns_summary="earlier work", minting="per-turn", tool_input_fields=["a"])
    assert (changed.head_bytes, changed.turns_summary, changed.minting, changed.tool_input_fields) == (
        100,
        "earlier work",
        "per-turn",
        ["a"],
    )
    assert changed != default and default.head_bytes == 2048
    # The knobs change the projection: a lower trigger truncates a smaller output.
    messages = [{"role": "user", "content": "go"}, call(0), result(0, "z\n" * 1000)] + [
        m for i in range(1, 5) for m in (call(i), result(i, "ok"))
    ]
    assert rehydrate.project_messages(messages).minted == 0
    small = rehydrate.ReductionPolicy(tool_output_trigger_bytes=1000, head_bytes=100, tail_bytes=100, minting="per-turn")
    assert rehydrate.project_messages(messages, policy=small).minted == 1
    bad = {
        "head_bytes": (-1, "head_bytes: expected a non-negative int, got -1"),
        "dedupe_outputs": (1, "dedupe_outputs: expected a bool, got int"),
        "protect_last_n_tool_results": (True, "protect_last_n_tool_results: expected a non-negative int, got bool"),
        "tool_input_fields": ("content", "tool_input_fields: expected a list of str, got str"),
        "minting": ("sometimes", "minting: unknown `sometimes` (expected per-turn, cache-aware or a dict)"),
        "head_byte": (1, f"unknown policy knob `head_byte` (expected one of {', '.join(knobs)})"),
    }
    for name, (value, message) in bad.items():
        with pytest.raises(rehydrate.InputError) as err:
            rehydrate.ReductionPolicy(**{name: value})
        assert str(err.value) == message, name
    with pytest.raises(rehydrate.InputError):
        rehydrate.ReductionPolicy("gentle")


def test_bad_messages_and_arguments_name_what_is_wrong() -> None:
    reducer = rehydrate.Reducer()
    with pytest.raises(rehydrate.InputError) as err:
        reducer.project([{"role": "user", "content": "ok"}, {"role": "user", "contents": "typo"}])
    assert str(err.value).startswith("new_messages[1]: ")
    assert "contents" in str(err.value)
    with pytest.raises(rehydrate.InputError) as err:
        reducer.project({"role": "user"})
    assert str(err.value) == "new_messages: expected a list of message dicts, got dict"
    # Nothing was appended by the failed calls.
    assert reducer.history == [] and len(reducer.view) == 0
    for idle in (-1, float("nan")):
        with pytest.raises(rehydrate.InputError) as err:
            reducer.project([], idle_seconds=idle)
        assert str(err.value).startswith("idle_seconds: ")
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.Reducer(log={"reductions": [{"id": 3}]})
    assert str(err.value).startswith("log: ")
    with pytest.raises(rehydrate.InputError):
        rehydrate.tool_definitions("gemini")


def test_a_trailing_call_gets_a_synthetic_result_in_the_request_body_and_close() -> None:
    reducer = rehydrate.Reducer()
    reducer.project([{"role": "user", "content": "run it"}, call(0)])
    body = json.loads(reducer.request_body("openai"))
    assert body["messages"][-1]["role"] == "tool"
    assert body["messages"][-1]["content"].startswith("[rehydrate:unanswered-call r0.")
    # The next turn's result drops the synthetic one again.
    view = reducer.project([result(0, "done")])
    assert [m["role"] for m in view] == ["user", "assistant", "tool"] and view[-1]["content"] == "done"
    reducer.project([call(1)])
    assert reducer.close() == 1 and len(reducer.view) == 5
    assert reducer.waiting == (0, 0) and reducer.policy == rehydrate.ReductionPolicy.default()


def test_messages_read_fast_are_the_messages_serde_reads() -> None:
    cases = [
        {"role": "user", "content": "plain"},
        {"role": "user", "content": None},
        {"role": "user", "content": [{"type": "text", "text": "part"}, {"type": "image_url", "image_url": {"url": "data:x"}}]},
        {"role": "user", "content": "seen", "observation": True, "metadata": {"timestamp": "t", "k": "é✓"}},
        {"role": "assistant", "content": "ok", "name": None, "tool_call_id": None, "tool_calls": []},
        call(7),
        {"role": "tool", "tool_call_id": "c7", "content": "out", "name": "bash", "details": None},
        {"role": "system", "content": "sys", "observation": False, "metadata": {}},
    ]
    fast = rehydrate._rehydrate._read_messages(cases, True)
    assert fast == rehydrate._rehydrate._read_messages(cases, False)
    assert fast[3] == {"role": "user", "content": "seen", "observation": True, "metadata": {"timestamp": "t", "k": "é✓"}}
    # What the fast path does not read is read by serde: the same message, or serde's error.
    odd = [
        {"role": "user", "content": "x", "observation": 1},
        {"role": "user", "content": "x", "metadata": {"k": 1}},
        {"role": "user", "content": 3},
        {"role": "robot", "content": "x"},
        {"content": "x"},
        {"role": "user", "content": "x", "extra": 1},
        {"role": "tool", "tool_call_id": 5, "content": "x"},
        "not a dict",
    ]
    def outcome(message: object, fast: bool) -> object:
        try:
            return rehydrate._rehydrate._read_messages([message], fast)
        except rehydrate.InputError as err:
            assert str(err).startswith("messages[0]: ")
            return str(err)

    outcomes = [outcome(m, True) for m in odd]
    assert outcomes == [outcome(m, False) for m in odd]
    assert sum(isinstance(o, str) for o in outcomes) >= 6


def test_deep_nesting_bytes_and_lone_surrogates_are_input_errors() -> None:
    deep: object = {}
    for _ in range(100_000):
        deep = {"k": deep}
    message = {"role": "user", "content": [deep]}
    for call in (
        lambda: rehydrate.Reducer().project([message]),
        lambda: rehydrate.request_body([message], "openai"),
        lambda: rehydrate.check_request([message], "anthropic"),
        lambda: rehydrate.verify({"reductions": [deep]}, []),
    ):
        with pytest.raises(rehydrate.InputError) as err:
            call()
        assert "nests deeper than 128 levels" in str(err.value)
    # 127 levels inside a part are fine.
    shallow: object = "x"
    for _ in range(120):
        shallow = [shallow]
    part = {"type": "text", "text": "ok", "extra": shallow}
    assert len(rehydrate.Reducer().project([{"role": "user", "content": [part]}])) == 1
    for content, shown in ((b"xyz", "bytes"), (memoryview(b"ab"), "memoryview"), (5, "int")):
        with pytest.raises(rehydrate.InputError) as err:
            rehydrate.Reducer().project([{"role": "user", "content": content}])
        assert str(err.value) == (
            f"new_messages[0]: content must be a str, a list of content part dicts or None, got {shown}"
        )
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.Reducer().project([{"role": "user", "content": [{"type": "text", "text": "a"}, None]}])
    assert str(err.value) == "new_messages[0]: content part 1 must be a dict, got NoneType"
    with pytest.raises(rehydrate.InputError) as err:
        rehydrate.ReductionPolicy(turns_summary="\ud800")
    assert str(err.value).startswith("turns_summary: not valid Unicode text")


def test_a_reducer_used_from_two_threads_raises_runtime_error_never_a_panic() -> None:
    import threading

    reducer = rehydrate.Reducer()
    big = [{"role": "user", "content": "x" * 20_000_000}]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            reducer.project(big)
        except BaseException as e:  # noqa: BLE001 - a panic is a BaseException
            errors.append(e)

    thread = threading.Thread(target=work)
    thread.start()
    seen = set()
    while thread.is_alive():
        try:
            len(reducer.view)
        except RuntimeError as e:
            seen.add(str(e).split(":")[0])
    thread.join()
    assert all(isinstance(e, RuntimeError) for e in errors), errors
    assert seen <= {"Already borrowed", "Already mutably borrowed"}
    assert len(reducer.history) in (0, 1)
