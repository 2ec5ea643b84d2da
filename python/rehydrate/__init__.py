"""rehydrate: lossless, verifiable context reduction for LLM agent sessions.

Old tool outputs and other bulky history become one-line stubs; each stub names a
reduction whose exact original bytes stay in the session's messages (the sidecar), and
`expand_reduction` gives them back, verified. See docs/PYTHON.md.

Messages are lists of dicts in the canonical shape (an OpenAI chat message is one); a
reduction log is the dict ``{"reductions": [...]}``. Every error is a `rehydrate.Error`.
"""

from __future__ import annotations

import collections.abc
import os
from typing import Any, NamedTuple

from rehydrate._rehydrate import (
    Error,
    EvidenceError,
    FormatsError,
    InputError,
    Reducer,
    ReductionPolicy,
    SearchError,
    Session,
    SessionDir,
    SessionError,
    SidecarError,
    SignalsError,
    View,
    assess,
    auto_compact,
    check_request,
    compaction_signals,
    expand_reduction,
    export_session,
    file_records,
    invert,
    project_evidence,
    repair_store,
    replay,
    request_body,
    session_events,
    sidecar_search,
    staleness,
    tool_definitions,
    verify,
    write,
)
from rehydrate import _rehydrate

collections.abc.Sequence.register(View)

__all__ = [
    "Error",
    "EvidenceError",
    "FormatsError",
    "ImportedSession",
    "InputError",
    "Projection",
    "Reducer",
    "ReductionPolicy",
    "SearchError",
    "Session",
    "SessionDir",
    "SessionError",
    "SidecarError",
    "SignalsError",
    "View",
    "assess",
    "auto_compact",
    "check_request",
    "compaction_signals",
    "expand_reduction",
    "export_session",
    "file_records",
    "import_session",
    "invert",
    "project_evidence",
    "project_messages",
    "repair_store",
    "replay",
    "request_body",
    "session_events",
    "sidecar_search",
    "staleness",
    "tool_definitions",
    "verify",
    "write",
]


class ImportedSession(NamedTuple):
    """A session file read into canonical messages."""

    format: str
    """The format read: claude-code, swe-agent, openai, codex, responses, anthropic, gemini-cli,
    openhands, aider or goose."""
    messages: list[dict[str, Any]]
    """The canonical messages, in conversation order."""
    warnings: list[str]
    """One line per defect the importer repaired or kept in the source."""


class Projection(NamedTuple):
    """The result of a projection."""

    view: list[dict[str, Any]]
    """The reduced messages the model is sent."""
    log: dict[str, Any]
    """The input log followed by every reduction this projection minted."""
    minted: int
    """How many reductions this projection minted."""


def import_session(
    source: str | os.PathLike[str] | bytes, format: str | None = None
) -> ImportedSession:
    """Reads a session file (a path, or its bytes), detecting its format unless one is given.

    Raises `FormatsError` with a one-line message naming the file, line or field.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), "<bytes>"
    else:
        name = os.fspath(source)
        with open(name, "rb") as f:
            data = f.read()
    fmt, messages, warnings = _rehydrate.import_session(data, format, name)
    return ImportedSession(fmt, messages, warnings)


def project_messages(
    messages: list[dict[str, Any]],
    log: dict[str, Any] | None = None,
    policy: ReductionPolicy | None = None,
) -> Projection:
    """Projects `messages` into a reduced view, reusing the decisions in `log`.

    `policy` defaults to `ReductionPolicy.default()`.
    """
    view, out_log, minted = _rehydrate.project_messages(messages, log, policy)
    return Projection(view, out_log, minted)
