"""One line of the harness's report: a figure with its samples, target and verdict."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from typing import Any


def figure(
    name: str,
    samples: list[float],
    unit: str,
    target: float | None,
    *,
    value: float | None = None,
    at_least: bool = False,
) -> dict[str, Any]:
    """One line of the report; `value` defaults to the median; ok when value <= target (>= with
    `at_least`: a speed-up, a ratio that must reach its target)."""
    median = statistics.median(samples)
    shown = median if value is None else value
    ok = None if target is None else (shown >= target if at_least else shown <= target)
    return {
        "name": name,
        "value": round(shown, 3),
        "unit": unit,
        "target": target,
        "runs": len(samples),
        "min": round(min(samples), 3),
        "median": round(median, 3),
        "max": round(max(samples), 3),
        "ok": ok,
    }


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def emit(item: dict[str, Any]) -> None:
    print(json.dumps(item, ensure_ascii=False), flush=True)


def apart(module: str, quick: bool = False, *more: str) -> Iterator[dict[str, Any]]:
    """`python -m <module> [--quick] [more...]` in a process of its own (its threads,
    connections and forked writers are nothing of the caller's), its JSON lines as figures."""
    import subprocess
    import sys
    from pathlib import Path

    command = [sys.executable, "-m", module, *(["--quick"] if quick else []), *more]
    done = subprocess.run(
        command, cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True
    )
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            yield json.loads(line)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise RuntimeError(f"{module} failed: {last}")
