"""Type stubs of the extension module (crates/rehydrate-py)."""

import os
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypedDict

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

class ReductionPolicy:
    @staticmethod
    def default() -> ReductionPolicy: ...
    @staticmethod
    def aggressive() -> ReductionPolicy: ...

class Reducer:
    def __init__(
        self, policy: ReductionPolicy | None = None, log: dict[str, Any] | None = None
    ) -> None: ...
    def project(
        self, new_messages: list[dict[str, Any]], idle_seconds: float | None = None
    ) -> list[dict[str, Any]]: ...
    @property
    def view(self) -> list[dict[str, Any]]: ...
    @property
    def log(self) -> dict[str, Any]: ...
    @property
    def history(self) -> list[dict[str, Any]]: ...
    def call(self, name: str, arguments: str) -> tuple[str, bool]: ...

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
    def push(self, messages: list[dict[str, Any]], idle_seconds: float | None = None) -> int: ...
    @property
    def view(self) -> list[dict[str, Any]]: ...
    @property
    def log(self) -> dict[str, Any]: ...
    @property
    def history(self) -> list[dict[str, Any]]: ...
    def request_body(self, api: str) -> bytes: ...
    def call(self, name: str, arguments: str) -> tuple[str, bool]: ...
    def rewind(self, to: int) -> int: ...
    def switch_model(self, model: str) -> int: ...
    def export(self, format: str) -> bytes: ...
    def sync(self) -> None: ...

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
    messages: list[dict[str, Any]],
    log: dict[str, Any] | None = None,
    policy: ReductionPolicy | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any], int]: ...
def expand_reduction(
    log: dict[str, Any],
    messages: list[dict[str, Any]],
    id: str,
    byte_range: tuple[int, int] | None = None,
) -> str: ...
def invert(
    view: list[dict[str, Any]], log: dict[str, Any], messages: list[dict[str, Any]]
) -> list[dict[str, Any]]: ...
def sidecar_search(
    log: dict[str, Any],
    messages: list[dict[str, Any]],
    query: str,
    mode: str = "auto",
    case_sensitive: bool = False,
    max_matches: int = 50,
) -> dict[str, Any]: ...
def verify(log: dict[str, Any], messages: list[dict[str, Any]]) -> None: ...
def request_body(messages: list[dict[str, Any]], api: str) -> bytes: ...
def tool_definitions(format: str = "openai") -> list[dict[str, Any]]: ...
