"""Type stubs of the extension module (crates/rehydrate-py)."""

import os
import pathlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypedDict, final, overload

__all__ = [
    "Error",
    "FormatsError",
    "SidecarError",
    "SearchError",
    "SessionError",
    "InputError",
    "ReductionPolicy",
    "Reducer",
    "Session",
    "View",
    "import_session",
    "project_messages",
    "expand_reduction",
    "invert",
    "sidecar_search",
    "verify",
    "request_body",
    "tool_definitions",
    "repair_store",
    "check_request",
    "write",
    "export_session",
    "_read_messages",
    "EvidenceError",
    "SessionDir",
    "SignalsError",
    "assess",
    "auto_compact",
    "compaction_signals",
    "file_records",
    "project_evidence",
    "replay",
    "session_events",
    "staleness",
]

class Error(Exception): ...
class FormatsError(Error): ...
class SidecarError(Error): ...
class SearchError(Error): ...
class SessionError(Error): ...
class EvidenceError(Error): ...
class SignalsError(Error): ...
class InputError(Error): ...

class FileRecord(TypedDict):
    path: str
    content: str
    digest: str
    at: str | None
    index: int

class ReplayCounts(TypedDict):
    proven: int
    retracted: int
    inert: int

class Replayed(TypedDict):
    steps: list[dict[str, Any]]
    records: list[FileRecord]
    paths: dict[str, dict[str, Any]]
    counts: ReplayCounts

class Staleness(TypedDict, total=False):
    state: Literal["fresh", "stale", "not_read"]
    expected: str
    actual: str | None

class CompactionSignals(TypedDict):
    epoch: int | None
    cited: list[str]
    resolvable: list[str]
    refs_per_summary: list[float]
    dangling: dict[str, list[str]]
    digest_failures: list[str]
    misses: int

Decision = Literal["continue", "widen_retention", "freeze"]

class Assessment(TypedDict):
    decision: Decision
    reasons: list[str]

class Compacted(TypedDict):
    decision: Decision
    epoch: int

class Repaired(TypedDict):
    lines: list[str]
    reductions: int
    messages: int

@final
class ReductionPolicy:
    def __init__(self, preset: str = "default", **knobs: Any) -> None: ...
    @staticmethod
    def default(**knobs: Any) -> ReductionPolicy: ...
    @staticmethod
    def aggressive(**knobs: Any) -> ReductionPolicy: ...
    def replace(self, **knobs: Any) -> ReductionPolicy: ...
    def to_dict(self) -> dict[str, Any]: ...
    tool_output_trigger_bytes: int
    head_bytes: int
    tail_bytes: int
    protect_last_n_tool_results: int
    dedupe_outputs: bool
    clear_turns_older_than: int | None
    turns_summary: str | None
    follow_compactions: bool
    min_saved_bytes: int
    assistant_text_trigger_bytes: int | None
    assistant_text_head_bytes: int
    assistant_text_tail_bytes: int
    protect_last_n_assistant_messages: int
    tool_input_trigger_bytes: int | None
    tool_input_fields: list[str]
    supersede_reruns: bool
    superseded_command_fields: list[str]
    elide_rereads: bool
    diff_rereads_max_per_mille: int | None
    normalize_terminal_output: bool
    image_trigger_bytes: int | None
    protect_last_n_image_messages: int
    minting: str | dict[str, Any]

@final
class View(Sequence[dict[str, Any]]):
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __iter__(self) -> Iterator[dict[str, Any]]: ...
    def __contains__(self, item: object) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def index(self, value: Any, *args: Any) -> int: ...
    def count(self, value: Any) -> int: ...
    def to_list(self) -> list[dict[str, Any]]: ...

@final
class Reducer:
    def __init__(
        self, policy: ReductionPolicy | None = None, log: dict[str, Any] | None = None
    ) -> None: ...
    def project(
        self, new_messages: Sequence[dict[str, Any]], idle_seconds: float | None = None
    ) -> View: ...
    @property
    def view(self) -> View: ...
    @property
    def log(self) -> dict[str, Any]: ...
    @property
    def history(self) -> list[dict[str, Any]]: ...
    @property
    def policy(self) -> ReductionPolicy: ...
    @property
    def waiting(self) -> tuple[int, int]: ...
    def call(self, name: str, arguments: str) -> tuple[str, bool]: ...
    def request_body(self, api: str) -> bytes: ...
    def close(self) -> int: ...

@final
class Session:
    @staticmethod
    def create(
        path: str | os.PathLike[str],
        policy: ReductionPolicy | None = None,
        sync: str | int | None = None,
    ) -> Session: ...
    @staticmethod
    def open(
        path: str | os.PathLike[str],
        policy: ReductionPolicy | None = None,
        sync: str | int | None = None,
    ) -> Session: ...
    def push(self, messages: Sequence[dict[str, Any]], idle_seconds: float | None = None) -> int: ...
    @property
    def view(self) -> View: ...
    @property
    def log(self) -> dict[str, Any]: ...
    @property
    def history(self) -> list[dict[str, Any]]: ...
    @property
    def policy(self) -> ReductionPolicy: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def recovered(self) -> int: ...
    def tools(self, format: str = "openai") -> list[dict[str, Any]]: ...
    def record_summary(self, text: str, retires: Sequence[int] = ...) -> int: ...
    def record_miss(self, reduction_id: str, reason: str) -> None: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def waiting(self) -> tuple[int, int]: ...
    def request_body(self, api: str) -> bytes: ...
    def call(self, name: str, arguments: str) -> tuple[str, bool]: ...
    def rewind(self, to: int) -> int: ...
    def switch_model(self, model: str) -> int: ...
    def export(self, format: str) -> bytes: ...
    def sync(self) -> None: ...

@final
class SessionDir:
    @staticmethod
    def open(path: str | os.PathLike[str]) -> SessionDir: ...
    @staticmethod
    def repair(path: str | os.PathLike[str]) -> Repaired: ...
    @property
    def path(self) -> Path: ...
    @property
    def messages(self) -> list[dict[str, Any]]: ...
    @property
    def view(self) -> list[dict[str, Any]]: ...
    @property
    def log(self) -> dict[str, Any]: ...
    @property
    def manifest(self) -> dict[str, Any]: ...
    @property
    def summaries(self) -> list[dict[str, Any]]: ...
    @property
    def misses(self) -> list[dict[str, str]]: ...
    @property
    def file_mismatches(self) -> list[str]: ...
    @property
    def signals(self) -> CompactionSignals: ...
    def verify(self) -> None: ...

def file_records(
    data_or_messages: bytes | bytearray | Sequence[dict[str, Any]],
    format: str | None = None,
    name: str | None = None,
) -> list[FileRecord]: ...
def replay(
    data_or_messages: bytes | bytearray | Sequence[dict[str, Any]],
    format: str | None = None,
    name: str | None = None,
) -> Replayed: ...
def staleness(
    record: FileRecord | dict[str, Any] | None, disk: bytes | bytearray | None
) -> Staleness: ...
def session_events(
    data_or_messages: bytes | bytearray | Sequence[dict[str, Any]],
    format: str | None = None,
    name: str | None = None,
) -> list[dict[str, Any]]: ...
def project_evidence(
    data_or_events: bytes | bytearray | Sequence[dict[str, Any]],
    workspace: Sequence[Any] | None = None,
    *,
    format: str | None = None,
    name: str | None = None,
    max_input_bytes: int | None = None,
) -> dict[str, Any]: ...
def assess(signals: CompactionSignals | dict[str, Any]) -> Assessment: ...
def compaction_signals(store: str | os.PathLike[str]) -> CompactionSignals: ...
def auto_compact(
    store: str | os.PathLike[str],
    summarizer: Callable[[CompactionSignals, Decision], str | tuple[str, list[int]]],
    sync: str | int | None = None,
) -> Compacted: ...
def import_session(
    data: bytes, format: str | None = None, name: str = "<bytes>"
) -> tuple[str, list[dict[str, Any]], list[str]]: ...
def project_messages(
    messages: Sequence[dict[str, Any]],
    log: dict[str, Any] | None = None,
    policy: ReductionPolicy | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any], int]: ...
def expand_reduction(
    log: dict[str, Any],
    messages: Sequence[dict[str, Any]],
    id: str,
    byte_range: tuple[int, int] | None = None,
) -> str: ...
def invert(
    view: Sequence[dict[str, Any]], log: dict[str, Any], messages: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]: ...
def sidecar_search(
    log: dict[str, Any],
    messages: Sequence[dict[str, Any]],
    query: str,
    mode: str = "auto",
    case_sensitive: bool = False,
    max_matches: int = 50,
) -> dict[str, Any]: ...
def verify(log: dict[str, Any], messages: Sequence[dict[str, Any]]) -> None: ...
def request_body(messages: Sequence[dict[str, Any]], api: str) -> bytes: ...
def tool_definitions(format: str = "openai") -> list[dict[str, Any]]: ...
def check_request(messages: Sequence[dict[str, Any]], api: str) -> list[dict[str, Any]]: ...
def write(messages: Sequence[dict[str, Any]], format: str) -> bytes: ...
def export_session(
    view: Sequence[dict[str, Any]],
    log: dict[str, Any],
    messages: Sequence[dict[str, Any]],
    format: str,
) -> bytes: ...
def repair_store(path: str | os.PathLike[str]) -> dict[str, int]: ...
def _read_messages(messages: Sequence[dict[str, Any]], fast: bool) -> list[dict[str, Any]]: ...
