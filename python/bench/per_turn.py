"""The Python package's bench, run by `cargo xtask bench` after the criterion suite.

Times, from Python, the work the suite's `per_turn` groups and `session/ours/turns_1000` time
in Rust, on the same workload: `<target>/bench-workloads/turns_1000.json`, which the suite
writes (its prefix, 1,000 turns and the timed turn at turns 10, 100 and 1,000, as canonical
messages):

- `python/ours/turn-N` and `python_aggressive/ours/turn-N`: `Reducer.project` of the timed
  turn on a reducer fed the prefix and turns 1..N-1 turn by turn (the default and the
  aggressive preset), the returned view list included;
- `python/ours/turns_1000`: `Reducer.project` of the whole session at once.

Each is written as criterion writes a benchmark (`<target>/criterion/<id>/new/estimates.json`,
the mean in nanoseconds), so `cargo xtask bench` reports it against the Rust figure of the
same run (docs/BENCHMARKS.md, "Python").

Usage: python per_turn.py <target dir> [--samples N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import rehydrate

Workload = dict[str, Any]

PROBE_TURNS = (10, 100, 1000)


def fed_before(policy: rehydrate.ReductionPolicy, workload: Workload, turn: int) -> rehydrate.Reducer:
    """A reducer fed the prefix and turns 1..turn-1, one `project` call each."""
    reducer = rehydrate.Reducer(policy)
    reducer.project(workload["prefix"])
    for messages in workload["turns"][: turn - 1]:
        reducer.project(messages)
    return reducer


def time_turn(policy: rehydrate.ReductionPolicy, workload: Workload, turn: int, samples: int) -> list[int]:
    """The per-call times, in nanoseconds, of projecting the timed turn at `turn`."""
    probe = workload["probes"][str(turn)]
    times = []
    for _ in range(samples):
        reducer = fed_before(policy, workload, turn)
        before = len(reducer.history)
        started = time.perf_counter_ns()
        view = reducer.project(probe)
        times.append(time.perf_counter_ns() - started)
        assert len(reducer.history) == before + len(probe)
        # Cleared turns and followed compactions make the view shorter than the history.
        assert len(view) > 0
        # Freed here, untimed: the view keeps its reducer alive.
        del view, reducer
    return times


def time_session(workload: Workload, samples: int) -> list[int]:
    """The times of projecting the whole session with one `project` call."""
    messages: list[dict[str, Any]] = list(workload["prefix"])
    for turn in workload["turns"]:
        messages.extend(turn)
    times = []
    for _ in range(samples):
        reducer = rehydrate.Reducer(rehydrate.ReductionPolicy.default())
        started = time.perf_counter_ns()
        view = reducer.project(messages)
        times.append(time.perf_counter_ns() - started)
        assert len(view) >= len(messages)
        del view, reducer
    return times


def write(criterion: Path, bench_id: str, times: list[int], throughput: int | None = None) -> None:
    """Writes `times` as criterion's estimates (the mean) under `criterion/<bench_id>/new`."""
    out = criterion / bench_id / "new"
    out.mkdir(parents=True, exist_ok=True)
    mean = statistics.fmean(times)
    (out / "estimates.json").write_text(
        json.dumps({"mean": {"point_estimate": mean}, "median": {"point_estimate": statistics.median(times)}})
    )
    benchmark: dict[str, Any] = {"id": bench_id, "samples": len(times)}
    if throughput is not None:
        benchmark["throughput"] = {"Bytes": throughput}
    (out / "benchmark.json").write_text(json.dumps(benchmark))
    print(f"bench: python: {bench_id}: mean {mean / 1e3:.1f} µs over {len(times)} samples", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("target", type=Path)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args()
    file = args.target / "bench-workloads" / "turns_1000.json"
    if not file.is_file():
        print(f"bench: python: {file} is missing (the suite's per_turn group writes it)", file=sys.stderr)
        return 1
    workload = json.loads(file.read_bytes())
    criterion = args.target / "criterion"
    presets = (("python", rehydrate.ReductionPolicy.default()), ("python_aggressive", rehydrate.ReductionPolicy.aggressive()))
    for group, policy in presets:
        for turn in PROBE_TURNS:
            write(criterion, f"{group}/ours/turn-{turn}", time_turn(policy, workload, turn, args.samples))
    rust = criterion / "session" / "ours" / "turns_1000" / "new" / "benchmark.json"
    throughput = None
    if rust.is_file():
        throughput = json.loads(rust.read_text()).get("throughput", {}).get("Bytes")
    write(criterion, "python/ours/turns_1000", time_session(workload, args.samples), throughput)
    return 0


if __name__ == "__main__":
    sys.exit(main())
