"""One harness for the figures of the "instant" issue: `python -m benchmarks [--quick]`.

Prints one JSON object per line and figure: `name`, `value`, `unit`, `target`, `runs`, `min`,
`median`, `max`, `ok`. Ratios are measured in the same run as what they compare (interleaved).
`--quick` runs each figure once at a small size (CI prints them so none rots; nothing asserts on
timings). The other harnesses stay as they are and are reused here: `startup.py` (real pty),
`sandbox_search.py` (every filter through the ASGI app).

Figures:

- `startup_warm_ratio`, `startup_cold_ratio`: paytui's first painted page over a bare Textual app's
  50-row DataTable, on a real pty (120x40), warm sandbox / a new sandbox every start.
- `startup_{warm,cold}_interactive_s`, `_marked_s`, `_keys_landed`, `_typed_first_paint_s`: in
  as many paytui runs again (after the ratio's, which end at their first paint), `j j space` is
  written to the terminal the moment the first rows are reported (as a person types at them):
  seconds from the spawn until the first paint of those runs, the first key applied (the cursor
  on the second row: time to interactive) and the mark; and in how many runs the mark landed on
  the third row (target: every run).
- `startup_{warm,cold}_cpu_ratio` (`_paytui_cpu_s`, `_bare_cpu_s`): the CPU (user + system) of
  the same runs, paytui's (its first-page child included) over the bare app's; no target.
- `startup_busy_*`: every figure above again with one core kept busy (a `while True: pass`
  child, not pinned, started before the round's first run and killed after its last): the
  ratios' targets are the same (1.3x warm, 1.6x cold), both apps under the same load.
- `first_paint_modules`, `first_paint_paytui_modules`, `first_paint_import_self_ms`: what is
  imported before the first page is painted (`import_budget.py`; the count's target is the
  committed budget, which `tests/test_import_budget.py` enforces).
- `sandbox_build_s`: building the seeded database.
- `sandbox_ms/<query>`: the sandbox's own time for one search (`search_charges` on SQLite: the
  first page of 100 and the total), for the mix of queries below.
- `type_to_paint_ms/<query>` and `type_to_paint_p50_ms` / `_p99_ms`: in-process (the app over
  the in-process transport on the same database, headless 120x40), from the key press that
  completes a query (after a pause: the usual typing) until the table with its results has been
  painted (`ResultsPainted`, posted after the refresh that drew it).
- `switch_ms/<screen>` (first visit and later; `2`-`5` and `0`, each from the charge list),
  `open_detail_ms`: key press until the last frame written for the new screen once its
  workers are done and it has refreshed (a frame Textual holds back, `App.delay_update`,
  counts when it is written: `press_until_painted`); measured after the app was left idle
  (`idle_before_screens_s`: until its warm-up after the first page is done, `paytui.ui.warm_up`,
  or 2 s for a tree without one). `switch_first_ratio/<screen>`: the first visit over the later
  ones' median (target 1.5); `open_detail_first_ms`: the first charge opened (this app's).
  `open_detail_first_ratio`: the first charge opened over the later four's median, the median
  of `runs` new apps (three at least), each in a process of its own over the sandbox served in
  its own (`benchmarks/first_open.py`; target 1.1), with `open_detail_first_apart_ms`.
  `workspace_new_ms`
  (`ctrl+t`, target 250) and
  `workspace_switch_ms` (`ctrl+PgUp` / `ctrl+PgDn` between two workspaces, target 50): the same,
  the switch until the screen kept is painted (the claims it reads again come after, in a
  worker); `workspace_switch_cpu_ms`: the process's CPU time over the same span (its own work,
  whatever the machine's load; target 50).
- `paging_rss_ratio`: resident memory after paging through every result, over the memory after
  the first page (the app's own: the sandbox is served in its own process).
- `hold_j_max_gap_ms`: `j` held on the charge list from the first row to row 10,000 (`--quick`:
  500), one key every `KEY_INTERVAL` (4 ms: 250 keys a second, about eight times a terminal's
  key repeat), handed over as the terminal driver does; the figure is the largest gap between
  two painted frames (the screen's compositor refreshes, timed as they finish) from the first
  key until the frame that shows the cursor on the last row; `hold_j_loop_busy_ms` the most CPU
  the loop's own thread spent between two of those frames (the worst run: its own work, which a
  loaded machine does not inflate; target 50 ms). `hold_j_frames` / `hold_j_s` say
  how many frames that took and how long; `hold_j_highlights_posted` / `_handled` how many
  highlights the table posted and how many reached the screen's handler (the others waited
  behind a newer one and were coalesced: `paytui.ui.messages.Latest`, Textual's
  `can_replace`). The app talks to `paytui sandbox` served in its own
  process over a socket, as the product does (the other in-process parts share one app over
  the in-process sandbox).
- `export_cpu_ratio/export`, `export_cpu_ratio/search_all_no_refund_state`: every charge of
  10,000 (`--quick`: 1,000) read by `paytui export --format jsonl --output -` and by `paytui
  charges search --all --format jsonl` (without the `refund_state` column, which reads each
  sale's refunds), each over a plain httpx loop reading the same pages and writing each row as
  a JSON line, in interleaved pairs: each process's CPU (user + sys), the median of the pairs'
  ratios (target 1.5), with `export_cpu_ms/…`, `export_plain_cpu_ms/…` and the load
  (`export_cpu_load_1m`) beside them (`benchmarks/export_cpu.py`; `paytui sandbox` served in its
  own process, not counted).
- `details_concurrency_ratio`, `details_errors` (and the same with `_latency_10ms`): 1,000
  charge details (`--quick`: 100) fetched with the product's client over loopback HTTP from
  `paytui sandbox` (uvicorn, its own process), 8 at a time against one by one
  (`benchmarks/loopback_details.py`).
- `export_rss_ratio`, `export_rows`, `export_rows_per_s`, `export_money_mismatches`: exporting
  every charge to CSV (`benchmarks/export_memory.py`, its own process, the sandbox in a child):
  the highest resident memory over where it started (target 1.25x), and the rows whose amount
  differs from the API's (target 0).
- `pulse_first_draw_ms`, `pulse_loop_stall_ms`, `pulse_compute_stall_ms`, `pulse_loop_busy_ms`,
  `pulse_refresh_rss_ratio`: the pulse's first full draw (a new app each run, nothing cached),
  the longest the event loop was late while it was computed (from the push; and from the
  screen's first paint, without its mount), the most CPU the loop's own thread spent between
  two 5 ms beats from the push (its own work, whatever the load; target 50 ms), and memory
  after 10 full refreshes (`--quick`: 3) over memory after the first draw
  (`benchmarks/pulse.py`; the sandbox served in its own process). Printed only.
- `pulse_alone_compute_ms`, `pulse_alone_loop_stall_ms`, `pulse_alone_loop_busy_ms` (and
  `_inline`: the pages of rows parsed on the loop, as before they were parsed in a thread): the
  pulse's computation alone, without a screen, the two alternated (`benchmarks/pulse.py`,
  `pulse_alone_figures`, in the `pulse` part). Printed only.
- `ratio_compute_ms`, `ratio_loop_cpu_ms`, `ratio_loop_stall_ms`, `ratio_loop_busy_ms` (and
  `_inline`: pages parsed on the loop), `ratio_loop_stall_idle_ms`: the dispute ratio's
  computation alone (`benchmarks/pulse.py`, `ratio_figures`, in the `pulse` part): how long,
  the loop thread's CPU, the longest the loop was late, the most CPU the loop's own thread
  spent between two 5 ms beats (its own work, whatever the load; target 50 ms), and the
  heartbeat alone as long (the machine's share of any stall). Printed only.
- `today_first_rows_ms`, `today_loop_stall_ms`, `today_loop_busy_ms`, `today_items`: Today's
  first paint (from pushing it, a new app each run, until its queue's first rows are on
  screen), the longest the event loop was late meanwhile (the pulse above it computing too),
  the most CPU the loop's own thread spent between two 5 ms beats until the whole queue is
  shown (its own work, whatever the load; target 50 ms), and the queue's size
  (`benchmarks/today.py`; the sandbox served in its own process). Printed only.
- `team_journal_intents_per_s/<engine>/<N>w`, `team_journal_cycle_p50_ms/…`, `…_p99_ms`: how many
  money actions a second one journal records (intent, "sent", "succeeded": the executor's three
  writes) with 1, 4 and 16 writer processes at once, each its own connection, on a team's
  PostgreSQL (the one the `PG*` environment names, else one from the test extra's wheel;
  without a server, one line says so) and on SQLite
  (`benchmarks/team_journal.py`, its own process). Printed only.
- `floor_commits_per_s/<N>a`, `floor_<call>_p50_ms/<N>a`, `…_p95_ms`, `…_per_s`: the team
  floor's load on one PostgreSQL journal: 50 agents (`--quick`: 10) at once for 60 s (10 s),
  each a connection doing what a dashboard does (presence opened and closed, heartbeats of
  presence and claims, a money action every 20 s, the others' presence read after each write):
  the server's commits a second and each call's time as its agent saw it
  (`benchmarks/floor.py`, its own process). Printed only.
- `cli_cpu_ratio/<command>`, `cli_wall_ratio/<command>`: `paytui history --limit 1` (also with a
  small config file: `history_config`) and `paytui charges show ID` over `python -c "import httpx,
  json, sqlite3, argparse"`, in interleaved pairs (at least 9), each process's CPU (user + sys) and
  wall time: the median of the pairs' ratios (target 1.3), with
  `cli_{cpu,bare_cpu,wall,bare_wall}_ms/<command>` and the load (`cli_load_1m`) beside them
  (`benchmarks/cli_ratio.py`; `charges show` asks `paytui sandbox` served in its own process).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.figures import apart, emit, figure, percentile

HERE = Path(__file__).resolve().parent

#: The parts `--only` picks from (all by default), in the order they run.
PARTS = (
    "sandbox",
    "typing",
    "screens",
    "paging",
    "frames",
    "pulse",
    "today",
    "export",
    "export_cpu",
    "details",
    "team",
    "floor",
    "cli",
    "startup",
)
#: The in-process parts: one app, one pilot, in this order.
IN_PROCESS = ("typing", "screens")
#: Parts that measure an app of their own: each runs in a process of its own when other parts run
#: too (`benchmarks.figures.apart`), as the product runs one app a process. After the in-process
#: parts, one process had built three apps: the collector freezes what a start allocated once a
#: process (`paytui.collector`), so a later app's own start was walked by every full collection
#: (held `j`: one of about 115 ms of the loop's CPU in each run, where its own process had none
#: over 20 ms; docs/performance.md).
OWN_PROCESS = ("paging", "frames", "pulse", "today")
#: Holding `j`: one key every 4 ms (250 a second; a terminal repeats a held key 25-30 times).
KEY_INTERVAL = 0.004

#: The mix of the issue: name, status, tag, attribute, amount range, date range, no match (and
#: the combined query the issue found slowest). `{account}` is filled from the database.
QUERIES: dict[str, str] = {
    "name": "Edsger",
    "name_two_words": "jose nun",
    "status": "status:chargeback",
    "tag": "tag:vip",
    "attribute": "attr:channel=web",
    "amount_range": "amount:100..250",
    "date_range": "from:2026-09-01 to:2026-09-30",
    "no_match": "tag:no-such-tag",
    "combined": "account:{account} status:success amount>=50 tag:retail",
}


# --- start-up ------------------------------------------------------------------------------------


def startup(runs: int) -> Iterator[dict[str, Any]]:
    """Warm and cold ratios, each interleaved with the bare app (`startup.py`'s timer); then
    `j j space` typed at the first rows and when it was applied (`typed_at_first_rows`). Two
    rounds: as the machine is, then with one core kept busy (`startup_busy_*`: a spinning child
    started before the round's first run and killed after its last, `startup.busy_cores`)."""
    sys.path.insert(0, str(HERE))
    from benchmarks.startup import busy_cores, byte_compile

    byte_compile()
    for prefix, cores in (("startup", 0), ("startup_busy", 1)):
        with busy_cores(cores):
            yield from _startup_round(prefix, runs)
    yield from first_paint_imports()


def _startup_round(prefix: str, runs: int) -> Iterator[dict[str, Any]]:
    from benchmarks.startup import _run_once

    bare = [sys.executable, str(HERE / "bare_datatable.py")]
    paytui = [sys.executable, str(HERE / "startup_paytui.py")]
    for case, extra in (("warm", {}), ("cold", {"PAYTUI_SANDBOX_IDLE": "0"})):
        env = {**os.environ, **extra}
        _run_once(paytui, env)  # builds the database if needed, starts the warm sandbox
        _run_once(bare, env)
        ratios: list[float] = []
        bare_s: list[float] = []
        paytui_s: list[float] = []
        bare_cpu: list[float] = []
        paytui_cpu: list[float] = []
        for _ in range(runs):
            bare_run = _run_once(bare, env)
            paytui_run = _run_once(paytui, env)
            bare_s.append(bare_run["painted"])
            paytui_s.append(paytui_run["painted"])
            bare_cpu.append(bare_run["cpu"])
            paytui_cpu.append(paytui_run["cpu"])
            ratios.append(paytui_s[-1] / bare_s[-1])
        ratio = statistics.median(paytui_s) / statistics.median(bare_s)
        target = 1.3 if case == "warm" else 1.6
        yield figure(f"{prefix}_{case}_ratio", ratios, "x", target, value=ratio)
        yield figure(f"{prefix}_{case}_paytui_s", paytui_s, "s", None)
        yield figure(f"{prefix}_{case}_bare_s", bare_s, "s", None)
        cpu_ratios = [p / b for p, b in zip(paytui_cpu, bare_cpu, strict=True)]
        cpu_ratio = statistics.median(paytui_cpu) / statistics.median(bare_cpu)
        yield figure(f"{prefix}_{case}_cpu_ratio", cpu_ratios, "x", None, value=cpu_ratio)
        yield figure(f"{prefix}_{case}_paytui_cpu_s", paytui_cpu, "s", None)
        yield figure(f"{prefix}_{case}_bare_cpu_s", bare_cpu, "s", None)
        yield from typed_at_first_rows(f"{prefix}_{case}", paytui, env, runs)


def typed_at_first_rows(
    name: str, paytui: list[str], env: dict[str, str], runs: int
) -> Iterator[dict[str, Any]]:
    """`j j space` typed the moment the first rows show (`startup._run_once(keys=True)`), in
    runs of their own after the ratio's (a run that goes on past its first paint is not one
    the ratio compares): the first paint, the first key applied, the mark, and where it went."""
    from benchmarks.startup import _run_once

    painted: list[float] = []
    moved: list[float] = []
    marked: list[float] = []
    landed = 0
    for _ in range(runs):
        seen = _run_once(paytui, env, keys=True)
        painted.append(seen["painted"])
        if "moved" in seen:
            moved.append(seen["moved"])
        if "marked" in seen:
            marked.append(seen["marked"])
        landed += seen.get("marked_row") == 3
    yield figure(f"{name}_typed_first_paint_s", painted, "s", None)
    if moved:
        yield figure(f"{name}_interactive_s", moved, "s", None)
    if marked:
        yield figure(f"{name}_marked_s", marked, "s", None)
    yield figure(f"{name}_keys_landed", [landed], "runs", runs, at_least=True)


def first_paint_imports() -> Iterator[dict[str, Any]]:
    """The modules loaded at the first paint (the budget `tests/test_import_budget.py` holds)
    and what `-X importtime` says their imports cost (self time; moves with the machine)."""
    from benchmarks.import_budget import load_budget, measure

    found = measure()
    budget = float(load_budget()["module_count"])
    yield figure("first_paint_modules", [len(found.modules)], "modules", budget)
    yield figure("first_paint_paytui_modules", [len(found.paytui_modules)], "modules", None)
    yield figure("first_paint_import_self_ms", [found.import_ms], "ms", None)


# --- the database and the sandbox's own time -----------------------------------------------------


def database(path: Path, charges: int) -> Iterator[dict[str, Any]]:
    from paytui.sandbox.seed import build_database

    if path.exists():
        return
    started = time.perf_counter()
    build_database(path, charges=charges)
    yield figure("sandbox_build_s", [time.perf_counter() - started], "s", 20.0)


def query_texts(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (account,) = conn.execute(
            "SELECT account_id FROM charges GROUP BY account_id ORDER BY COUNT(*) DESC LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    return {name: text.format(account=account) for name, text in QUERIES.items()}


def wire_params(text: str) -> dict[str, Any]:
    """What the sandbox's route hands `search_charges` for the query line `text`."""
    from datetime import UTC, datetime

    from paytui.search.query import parse

    result = parse(text, now=datetime.now(UTC))
    assert result.query is not None, (text, result.errors)
    q: dict[str, Any] = {}
    for key, value in result.query.to_params():
        if key in ("tag", "attribute"):
            q.setdefault(key, []).append(value)
        else:
            q[key] = value == "true" if key == "captured" else value
    return q


def sandbox_times(db: Path, texts: dict[str, str], repeat: int) -> Iterator[dict[str, Any]]:
    from paytui.sandbox import search
    from paytui.sandbox.store import connect

    conn = connect(db)  # the sandbox's own connection settings (its page cache among them)
    try:
        for name, text in texts.items():
            q = wire_params(text)
            search.search_charges(conn, q, 100, 0)  # warm the page cache
            samples = []
            for _ in range(repeat):
                started = time.perf_counter()
                search.search_charges(conn, q, 100, 0)
                samples.append((time.perf_counter() - started) * 1000)
            yield figure(f"sandbox_ms/{name}", samples, "ms", 10.0)
    finally:
        conn.close()


# --- in-process: typing, screens, paging ---------------------------------------------------------


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def probed_app(db: Path) -> Any:
    """The real app over the in-process sandbox, plus an event per painted result."""
    from paytui.api.client import PaymentClient
    from paytui.collector import pause_collector
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.sandbox.embedded import asgi_transport
    from paytui.ui.app import PaytuiApp
    from paytui.ui.messages import ResultsPainted

    transport = asgi_transport(db)

    async def factory() -> Any:
        return PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=transport,
        )

    class ProbedApp(PaytuiApp):
        painted = asyncio.Event()

        def on_results_painted(self, message: ResultsPainted) -> None:
            type(self).painted.set()

    ProbedApp.__name__ = ProbedApp.__qualname__ = "PaytuiApp"  # same CSS type name
    pause_collector()  # as the launcher does (`paytui.collector`)
    return ProbedApp(factory)


async def settle(app: Any, pilot: Any) -> None:
    """Quiet: no worker pending or running. A worker cancelled meanwhile (a search replaced,
    the rows' refunds read for a window that moved on) is done, as in the tests' `settle`."""
    import contextlib

    from textual.worker import WorkerCancelled, WorkerState

    busy = {WorkerState.PENDING, WorkerState.RUNNING}
    for _ in range(50):
        await pilot.pause()
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        if not any(worker.state in busy for worker in app.workers):
            break
    await pilot.pause()


async def press_until_painted(app: Any, key: str, *, quiet: bool = True) -> float:
    """Hand `key` over as the terminal driver does; ms until the last frame written for the
    screen it leads to (`App._display` outside a held update: what a terminal is sent) by the
    time that screen has no worker left running (`quiet` False: whether or not), has refreshed
    and holds no update (`App.delay_update`, 50 ms: a first refresh is not yet a frame). Polled
    every millisecond: `pilot.press` and `pilot.pause` wait for the process to look idle, 20 ms
    at least, which would be measured."""
    from textual import events
    from textual.worker import WorkerState

    busy = {WorkerState.PENDING, WorkerState.RUNNING}
    before = app.screen
    written: list[float] = []
    display = app._display

    def noted(screen: Any, renderable: Any) -> None:
        if renderable is not None and not app._batch_count and screen is not before:
            written.append(time.perf_counter())
        display(screen, renderable)

    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._display = noted
    try:
        started = time.perf_counter()
        app._driver.send_message(event)
        deadline = started + 60
        while app.screen is before or (quiet and any(w.state in busy for w in app.workers)):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{key!r} led to no quiet screen within 60 s")
            await asyncio.sleep(0.001)
        while True:
            painted = asyncio.get_running_loop().create_future()
            app.screen.call_after_refresh(painted.set_result, None)
            await painted
            if written and not app._batch_count:
                return (written[-1] - started) * 1000
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{key!r} led to no frame written within 60 s")
            await asyncio.sleep(0.001)
    finally:
        del app._display  # the class's again


class _Printed(list[dict[str, Any]]):
    """Figures are printed as they are measured (a long run shows its progress)."""

    def append(self, item: dict[str, Any]) -> None:
        emit(item)
        super().append(item)


async def typing(app: Any, pilot: Any, texts: dict[str, str], runs: int) -> list[dict[str, Any]]:
    """Key press to painted table for each query of the mix (the line's last key)."""
    from textual import events

    from paytui.ui.screens.charges import ChargeSearchScreen
    from paytui.ui.widgets.query_input import QueryInput

    out: list[dict[str, Any]] = _Printed()
    screen = app.screen
    assert isinstance(screen, ChargeSearchScreen)
    line = screen.query_one(QueryInput)
    await pilot.press("slash")
    per_query: dict[str, list[float]] = {name: [] for name in texts}
    every: list[float] = []

    async def type_last_key(text: str) -> float:
        """The line holds all but the last key (settled); press it, wait for the paint."""
        line.value = ""
        await settle(app, pilot)
        line.insert_text_at_cursor(text[:-1])
        await settle(app, pilot)
        screen._last_key = 0.0  # a pause before the last key, as when a person types
        type(app).painted.clear()
        char = text[-1]
        key = events.Key("space" if char == " " else char, char)
        key.set_sender(app)
        started = time.perf_counter()
        # As the terminal driver hands a key over (`pilot.press` also waits for the process
        # to look idle, up to a second, which would be measured too).
        app._driver.send_message(key)
        # Bounded: a search that fails paints no result (the harness then stops, loudly).
        await asyncio.wait_for(type(app).painted.wait(), timeout=60)
        return (time.perf_counter() - started) * 1000

    for _ in range(runs):
        for name, text in texts.items():
            elapsed = await type_last_key(text)
            per_query[name].append(elapsed)
            every.append(elapsed)
    for name, samples in per_query.items():
        out.append(figure(f"type_to_paint_ms/{name}", samples, "ms", 50.0))
    out.append(figure("type_to_paint_p50_ms", every, "ms", 50.0, value=percentile(every, 0.5)))
    out.append(figure("type_to_paint_p99_ms", every, "ms", 150.0, value=percentile(every, 0.99)))
    line.value = ""
    await pilot.press("escape")
    await settle(app, pilot)
    return out


#: Seconds an app without a warm-up (a tree before it) is left idle before the first switch.
IDLE_WITHOUT_WARM_UP = 2.0


async def idle_after_start(app: Any) -> float:
    """Leave the app idle after its first page, as a person reads it before going elsewhere:
    until its warm-up (`paytui.ui.warm_up`) is done, or `IDLE_WITHOUT_WARM_UP` seconds for a
    tree without one. Seconds waited."""
    started = time.perf_counter()
    deadline = started + 120
    while getattr(app, "warm_up", None) is None and hasattr(app, "warm_up"):
        if time.perf_counter() > deadline:
            raise TimeoutError("the warm-up did not start within 120 s")
        await asyncio.sleep(0.05)
    warm_up = getattr(app, "warm_up", None)
    if warm_up is None:
        await asyncio.sleep(IDLE_WITHOUT_WARM_UP)
    else:
        await asyncio.wait_for(warm_up.done.wait(), timeout=120)
    return time.perf_counter() - started


#: The top screens switched to (each time from the charge list, `1`), by key.
SWITCHED = (
    ("2", "tokens"),
    ("3", "accounts"),
    ("4", "distributions"),
    ("5", "history"),
    ("0", "today"),
)


async def open_charges(app: Any, pilot: Any, times: int) -> list[float]:
    """Open the charge under the cursor from the list `times` times (Enter, then Escape back):
    each open's ms until painted (`press_until_painted`)."""
    opened: list[float] = []
    for _ in range(times):
        opened.append(await press_until_painted(app, "enter"))
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
    return opened


async def screens(app: Any, pilot: Any, runs: int) -> list[dict[str, Any]]:
    """Switching top screens (`SWITCHED`: first visit, then later ones) and opening a charge,
    after the app was left idle (`idle_after_start`)."""
    out: list[dict[str, Any]] = _Printed()
    out.append(figure("idle_before_screens_s", [await idle_after_start(app)], "s", None))
    await settle(app, pilot)
    first: dict[str, float] = {}
    later: dict[str, list[float]] = {}
    for round_ in range(runs + 1):
        for key, name in SWITCHED:
            for target_key, target in ((key, name), ("1", "charges")):
                elapsed = await press_until_painted(app, target_key)
                await settle(app, pilot)
                if round_ == 0 and target not in first:
                    first[target] = elapsed
                else:
                    later.setdefault(target, []).append(elapsed)
    for name, ms in first.items():
        out.append(figure(f"switch_first_ms/{name}", [ms], "ms", 250.0))
    for name, samples in later.items():
        out.append(figure(f"switch_ms/{name}", samples, "ms", 100.0))
    for name, ms in first.items():
        if name != "charges" and later.get(name):  # the charges screen was built at start
            ratio = ms / statistics.median(later[name])
            out.append(figure(f"switch_first_ratio/{name}", [ratio], "x", 1.5))

    opened = await open_charges(app, pilot, max(4, runs + 1))  # the first, three later at least
    out.append(figure("open_detail_ms", opened, "ms", 150.0))
    out.append(figure("open_detail_first_ms", opened[:1], "ms", 150.0))
    # The first open over the later ones (`open_detail_first_ratio`) is measured by
    # `benchmarks.first_open`, a new app in a process of its own each run: one sample here
    # swung 1.01-1.30 between runs of the same tree.

    # Workspaces (`ctrl+t`): the first opening builds the new workspace's charge search and its
    # first search; switching back and forth shows screens already built, where they were left.
    opening = await press_until_painted(app, "ctrl+t")
    await settle(app, pilot)
    out.append(figure("workspace_new_ms", [opening], "ms", 250.0))
    switched: list[float] = []
    worked: list[float] = []
    for _ in range(max(1, runs)):
        for key in ("ctrl+pageup", "ctrl+pagedown"):
            # Until the workspace's screen is painted as it was left: the claims it reads again
            # on showing (`ChargeSearchScreen.on_screen_resume`) arrive after, in a worker.
            cpu = time.process_time()
            switched.append(await press_until_painted(app, key, quiet=False))
            worked.append((time.process_time() - cpu) * 1000)
            await settle(app, pilot)
    out.append(figure("workspace_switch_ms", switched, "ms", 50.0))
    out.append(figure("workspace_switch_cpu_ms", worked, "ms", 50.0))
    await pilot.press("f10")  # the second workspace closed: the first shows again
    await settle(app, pilot)
    return out


async def paging(app: Any, pilot: Any) -> list[dict[str, Any]]:
    """The memory after the first page (and the warm-up it sets off: what paging adds is the
    figure), then after walking through every result."""
    from paytui.ui.widgets.charge_table import ChargeTable

    out: list[dict[str, Any]] = _Printed()
    table = app.screen.query_one(ChargeTable)
    await settle(app, pilot)
    # The warm-up builds and reads the top screens in idle moments after the first page: in a
    # process of its own (`OWN_PROCESS`) its memory came during the walk and was counted as
    # paging's (1.29x at 3,000 charges, where the walk alone adds a few MB).
    await idle_after_start(app)
    await settle(app, pilot)
    before = rss_bytes()
    for row in range(0, table.total, ChargeTable.PAGE_SIZE):
        table.cursor_row = row
        await settle(app, pilot)
    table.cursor_row = max(0, table.total - 1)
    await settle(app, pilot)
    after = rss_bytes()
    out.append(figure("paging_rss_ratio", [after / before], "x", 1.25))
    out.append(figure("paging_rss_first_page_mb", [before / 2**20], "MB", None))
    out.append(figure("paging_rows", [float(table.total)], "rows", None))
    return out


class Highlights:
    """The charge table's highlights while `j` is held: how many the table posted, and how many
    reached the screen's handler (`paytui.ui.messages.Latest` coalesces the ones that wait
    behind a newer one)."""

    def __init__(self, screen: Any, table: Any) -> None:
        from paytui.ui.widgets.charge_table import ChargeTable

        self.posted = self.handled = 0
        post = table.post_message

        def counted_post(message: Any) -> bool:
            if isinstance(message, ChargeTable.Highlighted):
                self.posted += 1
            return bool(post(message))

        def seen(message: Any) -> None:
            if isinstance(message, ChargeTable.Highlighted):
                self.handled += 1

        table.post_message = counted_post
        self.stop = lambda: vars(table).pop("post_message", None)
        screen.message_signal.subscribe(screen, seen, immediate=True)
        self.unsubscribe = lambda: screen.message_signal.unsubscribe(screen)


async def hold_j(app: Any, pilot: Any, rows: int) -> tuple[float, float, int, float, int, int]:
    """Hold `j` from the first row to `rows` on the charge list: the largest gap between painted
    frames (ms), the most CPU the loop's own thread spent between two of them (ms), the frames
    painted, the seconds it took, and the highlights the table posted and the screen handled
    (`Highlights`)."""
    from textual import events

    from paytui.ui.widgets.charge_table import ChargeTable

    screen = app.screen
    table = screen.query_one(ChargeTable)
    table.focus()
    table.cursor_row = 0
    await settle(app, pilot)
    highlights = Highlights(screen, table)
    painted_at: list[float] = []
    cpu_at: list[float] = []
    refresh = screen._compositor_refresh

    def timed_refresh() -> None:
        refresh()
        painted_at.append(time.perf_counter())
        cpu_at.append(time.thread_time())

    screen._compositor_refresh = timed_refresh  # the screen's own frames, as they finish
    try:
        started, cpu_started = time.perf_counter(), time.thread_time()
        for index in range(rows):
            # On schedule, as a terminal repeats a held key: a late loop sends the keys due.
            delay = started + index * KEY_INTERVAL - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            key = events.Key("j", "j")
            key.set_sender(app)
            app._driver.send_message(key)
        deadline = time.perf_counter() + 120
        while table.cursor_row < rows:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"the cursor reached {table.cursor_row} of {rows}")
            await asyncio.sleep(0.001)
        shown = len(painted_at)
        while len(painted_at) == shown:  # the frame that shows the last row
            await asyncio.sleep(0.001)
        ended = painted_at[-1]
    finally:
        del screen._compositor_refresh
        await settle(app, pilot)
        highlights.stop()
        highlights.unsubscribe()
    times = [started, *painted_at]
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(times)]
    busy = [(b - a) * 1000 for a, b in itertools.pairwise([cpu_started, *cpu_at])]
    took = ended - started
    return max(gaps), max(busy), len(painted_at), took, highlights.posted, highlights.handled


async def frames(app: Any, pilot: Any, rows: int, runs: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = _Printed()
    gaps: list[float] = []
    busy: list[float] = []
    painted: list[float] = []
    seconds: list[float] = []
    posted: list[float] = []
    handled: list[float] = []
    for _ in range(runs):
        gap, cpu, count, took, made, reached = await hold_j(app, pilot, rows)
        gaps.append(gap)
        busy.append(cpu)
        painted.append(float(count))
        seconds.append(took)
        posted.append(float(made))
        handled.append(float(reached))
    out.append(figure("hold_j_max_gap_ms", gaps, "ms", 50.0))
    out.append(figure("hold_j_loop_busy_ms", busy, "ms", 50.0, value=max(busy)))
    out.append(figure("hold_j_frames", painted, "frames", None))
    out.append(figure("hold_j_s", seconds, "s", None))
    out.append(figure("hold_j_rows", [float(rows)], "rows", None))
    out.append(figure("hold_j_highlights_posted", posted, "messages", None))
    out.append(figure("hold_j_highlights_handled", handled, "messages", None))
    return out


async def served_app(
    db: Path, measure: Callable[[Any, Any], Awaitable[list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """`measure(app, pilot)` on an app (headless, 120x40) against the sandbox served as the
    product uses it: its own process, over a socket (`paytui sandbox`, as
    `benchmarks/loopback_details.py` serves it). In process, the sandbox's answers to the
    table's page reads ran on the app's own event loop, between its frames, and its SQLite page
    cache (64 MB, `sandbox/store.py`) counted as the app's memory; the product's separate
    sandbox does neither."""
    from benchmarks.loopback_details import served
    from paytui.api.client import PaymentClient
    from paytui.collector import pause_collector
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.ui.app import PaytuiApp

    with served(db) as url:

        async def factory() -> Any:
            return PaymentClient(url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)

        pause_collector()  # as the launcher does (`paytui.collector`)
        app = PaytuiApp(factory)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            return await measure(app, pilot)


async def in_process(
    db: Path, texts: dict[str, str], runs: int, parts: set[str], hold_rows: int
) -> list[dict[str, Any]]:
    """The in-process parts on one app (headless, 120x40) over the in-process sandbox."""
    app = probed_app(db)
    out: list[dict[str, Any]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        if "typing" in parts:
            out += await typing(app, pilot, texts, runs)
        if "screens" in parts:
            out += await screens(app, pilot, runs)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each figure once, small database")
    parser.add_argument("--charges", type=int, default=None, help="default 100000 (quick: 3000)")
    parser.add_argument("--runs", type=int, default=None, help="default 5 (quick: 1)")
    parser.add_argument("--db", type=Path, default=None, help="reuse (or build) this database")
    parser.add_argument(
        "--only",
        default=",".join(PARTS),
        help=f"comma-separated parts: {', '.join(PARTS)} (default: all)",
    )
    args = parser.parse_args(argv)
    charges = args.charges or (3000 if args.quick else 100_000)
    runs = args.runs or (1 if args.quick else 5)
    parts = set(args.only.split(","))
    unknown = parts - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}; parts: {', '.join(PARTS)}")
    with tempfile.TemporaryDirectory() as scratch:
        db = args.db or Path(scratch) / f"bench-{charges}.sqlite3"
        for item in database(db, charges):
            emit(item)
        texts = query_texts(db)
        if "sandbox" in parts:
            for item in sandbox_times(db, texts, repeat=max(runs, 5) if not args.quick else 1):
                emit(item)
        hold_rows = 500 if args.quick else 10_000
        if parts & set(IN_PROCESS):
            asyncio.run(in_process(db, texts, runs, parts, hold_rows))
        if "screens" in parts:
            from benchmarks.first_open import figures as first_open_figures

            for item in first_open_figures(db, runs, args.quick):
                emit(item)
        if len(parts) > 1:  # each app's part in a process of its own (`OWN_PROCESS`)
            for part in (part for part in OWN_PROCESS if part in parts):
                more = ("--db", str(db), "--charges", str(charges), "--runs", str(runs))
                for item in apart("benchmarks", args.quick, *more, "--only", part):
                    emit(item)
            parts -= set(OWN_PROCESS)
        if "paging" in parts:
            asyncio.run(served_app(db, paging))
        if "frames" in parts:
            asyncio.run(served_app(db, lambda app, pilot: frames(app, pilot, hold_rows, runs)))
        if "pulse" in parts:
            from benchmarks.pulse import figures as pulse_figures
            from benchmarks.pulse import pulse_alone_figures, ratio_figures

            for item in pulse_figures(db, runs, 3 if args.quick else 10):
                emit(item)
            for item in pulse_alone_figures(db, runs):
                emit(item)
            for item in ratio_figures(db, runs):
                emit(item)
        if "today" in parts:
            from benchmarks.today import figures as today_figures

            for item in today_figures(db, runs):
                emit(item)
        if "export" in parts:
            from benchmarks.export_memory import figures as export_figures

            for item in export_figures(db):
                emit(item)
        if "export_cpu" in parts:
            from benchmarks.export_cpu import figures as export_cpu_figures

            for item in export_cpu_figures(
                1 if args.quick else runs, 1000 if args.quick else 10_000
            ):
                emit(item)
        if "details" in parts:
            from benchmarks.loopback_details import figures as details_figures

            for item in details_figures(db, 100 if args.quick else 1000, runs):
                emit(item)
        if "team" in parts:
            from benchmarks.team_journal import separately

            for item in separately(quick=args.quick):
                emit(item)
        if "floor" in parts:
            from benchmarks.floor import separately as floor

            for item in floor(quick=args.quick):
                emit(item)
        if "cli" in parts:
            from benchmarks.cli_ratio import figures as cli_figures

            # At least 9 interleaved pairs: one process's CPU varies more than a page's.
            for item in cli_figures(1 if args.quick else max(runs, 9)):
                emit(item)
        if "startup" in parts:
            for item in startup(runs):
                emit(item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
