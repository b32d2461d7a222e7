"""Today's first paint at the database's size (`python -m benchmarks --only today`).

As the pulse's (`benchmarks/pulse.py`): the app over `paytui sandbox` served in its own
process, the clock at the database's anchor, a new app each run; the journal and Today's
first-seen store in a scratch data dir (the first run records every item as first seen, the
later ones read them, as on a person's second visit).

- `today_first_rows_ms`: from pushing Today (a new app: nothing cached) until its queue's
  first rows are on screen (`ResultsPainted`, then rows: a first source with none paints an
  empty list first; the screen refreshed). Target 300 ms.
- `today_loop_stall_ms`: the longest the event loop was late (a 5 ms heartbeat) over the same
  span, the pulse above the queue computing meanwhile, as it does on Today. Target 50 ms.
- `today_loop_busy_ms`: the most CPU the loop's own thread spent between two beats, from
  pushing Today until the whole queue is read and shown (`LoopWatch.busy`: the loop's own work,
  which a loaded machine does not inflate; the wall-clock stall also waits for a core). Target
  50 ms.
- `today_items`: the rows of the whole queue (all phases), once read (the first rows are the
  first sources' rows: Today shows each source as it arrives).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.figures import figure
from benchmarks.pulse import LoopWatch, _until, bench_app, connected, painted, workers_done


async def _one_paint(url: str, anchor: Any, journal: Path) -> tuple[float, float, float, int]:
    from paytui.ui import messages
    from paytui.ui.screens.today import TodayScreen

    app = bench_app(url, anchor, journal_path=journal)
    first_rows = asyncio.Event()

    def seen(message: object) -> None:
        # Today's, not the charge list's (the start screen's first page may paint late).
        if not isinstance(message, messages.ResultsPainted) or not app.screen_stack:
            return
        screen = app.screen
        if isinstance(screen, TodayScreen) and screen.queue is not None:
            first_rows.set()  # the first paint; it may have no rows yet (an empty source)

    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await connected(app, pilot)
        watch = LoopWatch()
        watch.start()
        started = time.perf_counter()
        await app.push_screen(TodayScreen())
        screen = app.screen
        await asyncio.wait_for(first_rows.wait(), 120)
        await _until(lambda: bool(screen.items))  # rows, not a first source's empty list
        await painted(screen)
        took = (time.perf_counter() - started) * 1000
        stall = watch.stall
        await workers_done(app)  # the whole queue (the first rows may be part)
        await painted(screen)
        await watch.stop()
        items = len(screen.queue.items) if screen.queue is not None else 0
    return took, stall, watch.busy, items


def figures(db: Path, runs: int) -> list[dict[str, Any]]:
    from benchmarks.loopback_details import served
    from paytui.sandbox.seed import DEFAULT_ANCHOR

    paints: list[float] = []
    stalls: list[float] = []
    busy: list[float] = []
    items = 0
    before = os.environ.get("XDG_DATA_HOME")
    with tempfile.TemporaryDirectory() as scratch, served(db) as url:
        os.environ["XDG_DATA_HOME"] = scratch  # Today's first-seen store: not the user's
        try:
            for _ in range(runs):
                took, stall, cpu, items = asyncio.run(
                    _one_paint(url, DEFAULT_ANCHOR, Path(scratch) / "journal.sqlite3")
                )
                paints.append(took)
                stalls.append(stall)
                busy.append(cpu)
        finally:
            if before is None:
                os.environ.pop("XDG_DATA_HOME", None)
            else:
                os.environ["XDG_DATA_HOME"] = before
    return [
        figure("today_first_rows_ms", paints, "ms", 300.0),
        figure("today_loop_stall_ms", stalls, "ms", 50.0, value=max(stalls)),
        figure("today_loop_busy_ms", busy, "ms", 50.0, value=max(busy)),
        figure("today_items", [float(items)], "rows", None),
    ]
