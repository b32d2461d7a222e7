"""Where the time of one key goes, from the key press to the painted table (search as you type).

    .venv/bin/python -m benchmarks.type_phases DB [QUERY] [--runs 12] [--cpu]

The app over the in-process sandbox on DB (build one with `python -m benchmarks --only sandbox
--db DB`), headless 120x40. For each run the line holds QUERY but its last key; the last key is
handed over as the terminal driver does, and the moments of each phase are printed in ms after
it: `changed` (the line's Changed message reaches the screen), `request` / `answer` (the client's
search), `shown` (the table holds the new rows), `painted` (the refresh that drew them is done).
With `--cpu` the moments are the event loop's thread CPU time (`time.thread_time`) instead of
the wall clock: the app's own work on the loop up to each phase, which a loaded machine does not
inflate (the in-process sandbox's SQL runs in a thread of its own and is not counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.__main__ import probed_app, settle

Marks = list[tuple[str, float]]

#: The clock the marks are read from: the wall clock, or the loop thread's CPU time (`--cpu`).
clock: Callable[[], float] = time.perf_counter


def _wrap_sync(owner: Any, name: str, before: str, after: str, marks: Marks) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        marks.append((before, clock()))
        try:
            return original(*args, **kwargs)
        finally:
            if after:
                marks.append((after, clock()))

    setattr(owner, name, wrapped)


def _wrap_async(owner: Any, name: str, before: str, after: str, marks: Marks) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        marks.append((before, clock()))
        try:
            return await original(*args, **kwargs)
        finally:
            marks.append((after, clock()))

    setattr(owner, name, wrapped)


async def phases(db: Path, text: str, runs: int) -> dict[str, list[float]]:
    from textual import events

    from paytui.api.client import PaymentClient
    from paytui.ui.screens.charges import ChargeSearchScreen
    from paytui.ui.widgets.charge_table import ChargeTable
    from paytui.ui.widgets.query_input import QueryInput

    marks: Marks = []
    _wrap_sync(ChargeSearchScreen, "on_input_changed", "changed", "", marks)
    _wrap_async(PaymentClient, "search_charges_page", "request", "answer", marks)
    _wrap_sync(ChargeTable, "show", "show", "shown", marks)
    app = probed_app(db)
    found: dict[str, list[float]] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        line = screen.query_one(QueryInput)
        await pilot.press("slash")
        for _ in range(runs):
            line.value = ""
            await settle(app, pilot)
            line.insert_text_at_cursor(text[:-1])
            await settle(app, pilot)
            screen._last_key = 0.0
            type(app).painted.clear()
            key = events.Key(text[-1], text[-1])
            key.set_sender(app)
            marks.clear()
            started = clock()
            app._driver.send_message(key)
            await type(app).painted.wait()
            marks.append(("painted", clock()))
            for name, moment in marks:
                found.setdefault(name, []).append((moment - started) * 1000)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("query", nargs="?", default="Edsger")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument(
        "--cpu", action="store_true", help="the loop thread's CPU time, not the wall clock"
    )
    args = parser.parse_args()
    global clock
    clock = time.thread_time if args.cpu else time.perf_counter
    found = asyncio.run(phases(args.db, args.query, args.runs))
    medians = {name: round(statistics.median(ms), 1) for name, ms in found.items()}
    unit = "median_cpu_ms_after_key" if args.cpu else "median_ms_after_key"
    print(json.dumps({"query": args.query, "runs": args.runs, unit: medians}))


if __name__ == "__main__":
    main()
