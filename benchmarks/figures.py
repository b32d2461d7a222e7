"""One line of the harness's report: a figure with its samples, target and verdict."""

from __future__ import annotations

import json
import statistics
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
