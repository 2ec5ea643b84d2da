"""Properties over random sessions fed turn by turn, as a Python host feeds them.

The views a reducer hands out are made from dicts kept between turns (the history's own, and
stubs kept by position): every view, read at once or long after, must be exactly the view the
Rust reducer had when it was handed out, and every reduction must undo exactly.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import rehydrate

Message = dict[str, Any]

# Outputs from a few shapes: small, large enough to truncate, terminal noise; a later output may
# repeat an earlier one exactly (a duplicate) or the same command may run again (a re-run).
OUTPUTS = st.one_of(
    st.text(min_size=0, max_size=40),
    st.builds(lambda line, n: line * n, st.sampled_from(["ok\n", "warning: unused é\n", "x"]), st.integers(1, 4000)),
    st.builds(lambda n: "\x1b[32mbuilding\x1b[0m\r" * n + "done\n", st.integers(1, 800)),
)


@st.composite
def sessions(draw: st.DrawFn) -> list[list[Message]]:
    """Turns of a session: a user message, then tool rounds; the last round of a turn may stay
    unanswered until the next turn (a tool still running)."""
    turns: list[list[Message]] = []
    outputs: list[str] = []
    pending: list[str] = []
    calls = 0
    for _ in range(draw(st.integers(1, 8))):
        turn: list[Message] = [{"role": "tool", "tool_call_id": c, "content": "late result"} for c in pending]
        pending = []
        turn.append({"role": "user", "content": draw(st.sampled_from(["go on", "fix it", "run the tests"]))})
        for _ in range(draw(st.integers(0, 4))):
            ids = [f"c{calls + k}" for k in range(draw(st.integers(1, 2)))]
            calls += len(ids)
            command = draw(st.sampled_from(["make", "cargo test", "cat src/lib.rs"]))
            turn.append(
                {
                    "role": "assistant",
                    "content": draw(st.sampled_from([None, "Running it.", "Let me look.\n" * 300])),
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"cmd": command})}}
                        for i in ids
                    ],
                }
            )
            if draw(st.integers(0, 9)) == 0:
                pending = ids  # answered in the next turn
                break
            for i in ids:
                if outputs and draw(st.booleans()):
                    text = draw(st.sampled_from(outputs))
                else:
                    text = draw(OUTPUTS)
                    outputs.append(text)
                turn.append({"role": "tool", "tool_call_id": i, "content": text})
        turns.append(turn)
    return turns


@settings(max_examples=60, deadline=None)
@given(
    session=sessions(),
    preset=st.sampled_from(["default", "aggressive"]),
    clear=st.sampled_from([None, 1, 2]),
    idle=st.lists(st.sampled_from([None, 0.0, 600.0]), min_size=8, max_size=8),
    read=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_every_view_is_the_reducers_view_and_every_reduction_undoes(
    session: list[list[Message]], preset: str, clear: int | None, idle: list[float | None], read: list[bool]
) -> None:
    # Old turns cleared too: the cleared range's stub changes where it stands as it grows.
    policy = rehydrate.ReductionPolicy(
        preset, protect_last_n_tool_results=1, min_saved_bytes=0, clear_turns_older_than=clear
    )
    reducer = rehydrate.Reducer(policy)
    kept: list[tuple[rehydrate.View, bytes]] = []
    for i, turn in enumerate(session):
        reducer.project(turn, idle_seconds=idle[i])
        # The body the Rust reducer writes from its own view (closed: a call still running
        # gets a synthetic result), and the view handed out now, read now or only at the end.
        body = reducer.request_body("openai")
        view = reducer.view
        if read[i]:
            assert len(view.to_list()) == len(view)
        kept.append((view, body))
    for turn, (view, body) in enumerate(kept):
        assert rehydrate.request_body(view, "openai") == body, turn
    # Reversible: the view inverts to the history, and every reduction expands to exactly the
    # bytes it hides (a repair hides none).
    history = reducer.history
    canonical = rehydrate._rehydrate._read_messages(history, True)
    log = reducer.log
    assert rehydrate.invert(reducer.view, log, history) == canonical
    rehydrate.verify(log, history)
    for r in log["reductions"]:
        if r["kind"]["type"] in ("tool_output_truncated", "duplicate_output"):
            index = r["ptr"]["addr"]["index"]
            assert rehydrate.expand_reduction(log, history, r["id"]) == history[index]["content"]
