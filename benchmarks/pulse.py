"""The pulse's figures: its first full draw, the event loop while it is computed, memory while
it refreshes, and the dispute ratio's computation alone (`ratio_figures`) (`python -m benchmarks
--only pulse`).

The app talks to `paytui sandbox` served in its own process over a socket, as the product does
(in process, the sandbox's own work would run on the app's event loop and be counted as the
pulse's). The clock is the database's anchor, so the 30 days are the seeded ones.

- `pulse_first_draw_ms`: from pushing the pulse's screen (a new app each run: nothing cached)
  until the strip holds the computed pulse and the screen has refreshed with it. Target 2 s.
  The app's start (its deferred work and warm-up, `warmed_up`) is over before the push, and
  what Today built ahead computed is forgotten (`nothing_cached`).
- `pulse_loop_stall_ms`: the longest the event loop was late (a 5 ms heartbeat) while the
  first draw was computed: what the pulse holds a frame back at worst. Target 50 ms.
- `pulse_compute_stall_ms`: the same from the screen's first paint on: the pulse's reading and
  drawing without the screen's own mount and first layout (which any screen costs).
- `pulse_loop_busy_ms`: the most CPU the loop's own thread spent between two beats over the
  same span as `pulse_loop_stall_ms` (`LoopWatch.busy`: the loop's own work, which a loaded
  machine does not inflate). Target 50 ms.
- `pulse_refresh_rss_ratio`: resident memory after `refreshes` full re-computations over the
  memory after the first draw and the app's warm-up (the screens it builds ahead are not the
  refreshes'; flat: about 1.0x; target 1.1x).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from pathlib import Path
from typing import Any

from benchmarks.export_memory import rss_bytes
from benchmarks.figures import figure


async def _until(predicate: Any, limit: float = 120.0) -> None:
    """Poll every millisecond (a pilot's pause waits 20 ms at least, which would be measured)."""
    deadline = time.perf_counter() + limit
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the pulse did not draw")
        await asyncio.sleep(0.001)


class LoopWatch:
    """The longest the event loop was late (a 5 ms heartbeat) between `start` and `stop`, in
    ms: what held a frame back at worst. `busy`: the most CPU time the loop's own thread spent
    between two beats (`time.thread_time`), in ms: the part of a stall that is the loop's own
    work, whatever the machine's load (on a loaded machine the late beat also waits for a
    core, which `stall` counts and `busy` does not)."""

    def __init__(self) -> None:
        self.stall = 0.0
        self.busy = 0.0
        self._running = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._running = True
        self._task = asyncio.create_task(self._beat())

    async def stop(self) -> float:
        self._running = False
        if self._task is not None:
            await self._task
        return self.stall

    async def _beat(self) -> None:
        while self._running:
            before, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.005)
            self.stall = max(self.stall, (time.perf_counter() - before - 0.005) * 1000)
            self.busy = max(self.busy, (time.thread_time() - cpu) * 1000)


def bench_app(url: str, anchor: Any, **kwargs: Any) -> Any:
    """A `PaytuiApp` over the served sandbox with the demo client, its clock at `anchor`; the
    cyclic collector paused until its first page as the launcher pauses it (`paytui.collector`:
    the app then defers full collections to its idle moments, as the dashboard does)."""
    from paytui.api.client import PaymentClient
    from paytui.collector import pause_collector
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.ui.app import PaytuiApp

    async def factory() -> Any:
        return PaymentClient(url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)

    pause_collector()
    return PaytuiApp(factory, clock=lambda: anchor, **kwargs)


async def workers_done(app: Any) -> None:
    """Every worker the app has now ended; one cancelled (a read replaced by a newer one, in an
    exclusive group) counts as ended. Textual's `wait_for_complete` raised on it, which ended a
    benchmark run as the app went on as it should."""
    import contextlib

    from textual.worker import WorkerCancelled

    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


async def warmed_up(app: Any, limit: float = 180.0) -> None:
    """The app's warm-up after its first page (`paytui.ui.warm_up`) has ended, if it has one:
    what it builds ahead, in idle time, is not counted in what is measured after it."""
    deadline = time.perf_counter() + limit
    while hasattr(app, "warm_up") and getattr(app, "warm_up", None) is None:
        if time.perf_counter() > deadline:
            return
        await asyncio.sleep(0.05)
    warm_up = getattr(app, "warm_up", None)
    if warm_up is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(warm_up.done.wait(), max(0.0, deadline - time.perf_counter()))


def nothing_cached() -> None:
    """Forget the pulse and the ratio computed so far (Today, built ahead in idle time, has
    computed both by the end of the warm-up): the pulse screen reads and draws them afresh."""
    from paytui.ui.widgets import pulse, ratio

    pulse._CACHES.clear()
    ratio._CACHES.clear()


async def connected(app: Any, pilot: Any) -> None:
    """The app started, its client connected, nothing left running."""
    await pilot.pause()
    await workers_done(app)
    await app.get_client()


async def painted(screen: Any) -> None:
    """The screen has refreshed with what it holds now."""
    done = asyncio.Event()
    screen.call_after_refresh(done.set)
    await done.wait()


async def _one_draw(
    url: str, anchor: Any, refreshes: int
) -> tuple[float, float, float, float, float | None]:
    from paytui.ui.screens.pulse import PulseScreen
    from paytui.ui.widgets.pulse import PulseStrip

    app = bench_app(url, anchor)
    async with app.run_test(size=(120, 40)) as pilot:
        await connected(app, pilot)
        # The app's start is over (its deferred work, the warm-up): what is measured is the
        # pulse's alone (the read-back of earlier actions imports the executor on the loop,
        # about 300 ms of its CPU at load, which a run pushing the pulse at once counted).
        await warmed_up(app)
        await workers_done(app)
        nothing_cached()
        watch = LoopWatch()
        watch.start()
        started = time.perf_counter()
        await app.push_screen(PulseScreen())
        strip = app.screen.query_one(PulseStrip)
        await painted(app.screen)
        computing = LoopWatch()
        computing.start()
        await _until(lambda: strip.pulse is not None)
        await painted(app.screen)
        took = (time.perf_counter() - started) * 1000
        stall = await watch.stop()
        compute_stall = await computing.stop()
        busy = watch.busy
        ratio = None
        if refreshes:
            await workers_done(app)
            gc.collect()
            first = rss_bytes()
            for _ in range(refreshes):
                before = strip.pulse
                strip.load(cached=False)
                await _until(lambda before=before: strip.pulse is not before)
            await workers_done(app)
            gc.collect()
            ratio = rss_bytes() / first
    return took, stall, compute_stall, busy, ratio


def figures(db: Path, runs: int, refreshes: int) -> list[dict[str, Any]]:
    from benchmarks.loopback_details import served
    from paytui.sandbox.seed import DEFAULT_ANCHOR

    draws: list[float] = []
    stalls: list[float] = []
    compute_stalls: list[float] = []
    busy: list[float] = []
    ratio: float | None = None
    with served(db) as url:
        for run in range(runs):
            last = run == runs - 1
            took, stall, compute_stall, cpu, found = asyncio.run(
                _one_draw(url, DEFAULT_ANCHOR, refreshes if last else 0)
            )
            draws.append(took)
            stalls.append(stall)
            compute_stalls.append(compute_stall)
            busy.append(cpu)
            ratio = found if found is not None else ratio
    out = [
        figure("pulse_first_draw_ms", draws, "ms", 2000.0),
        figure("pulse_loop_stall_ms", stalls, "ms", 50.0, value=max(stalls)),
        figure("pulse_compute_stall_ms", compute_stalls, "ms", 50.0, value=max(compute_stalls)),
        figure("pulse_loop_busy_ms", busy, "ms", 50.0, value=max(busy)),
    ]
    if ratio is not None:
        out.append(figure("pulse_refresh_rss_ratio", [ratio], "x", 1.1))
        out.append(figure("pulse_refreshes", [float(refreshes)], "refreshes", None))
    return out


async def _one_ratio(url: str, anchor: Any, offload: bool) -> tuple[float, float, float, float]:
    """`compute_ratio` alone over the served sandbox (the month of `anchor`), with a 5 ms
    heartbeat: (ms it took, the longest the loop was late, the CPU ms of the loop's own thread:
    what the loop did, whatever the machine's load, and the most of it between two beats).
    `offload=False` is the before: each page's JSON, rows and proof on the loop."""
    from paytui.api.client import PaymentClient
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.today import ratio

    client = PaymentClient(url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)
    async with client:
        await client.authenticate()
        watch = LoopWatch()
        watch.start()
        started, cpu = time.perf_counter(), time.thread_time()
        await ratio.compute_ratio(client, now=anchor, offload=offload)
        took = (time.perf_counter() - started) * 1000
        loop_cpu = (time.thread_time() - cpu) * 1000
        stall = await watch.stop()
        return took, stall, loop_cpu, watch.busy


async def _one_pulse(url: str, anchor: Any, offload: bool) -> tuple[float, float, float]:
    """`compute_pulse` alone over the served sandbox (30 days up to `anchor`), with a 5 ms
    heartbeat: (ms it took, the longest the loop was late, the most CPU of the loop's own thread
    between two beats). `offload=False` is the before: each page of rows parsed on the loop."""
    from paytui.api.client import PaymentClient
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
    from paytui.search.pulse import compute_pulse

    client = PaymentClient(url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)
    async with client:
        await client.authenticate()
        watch = LoopWatch()
        watch.start()
        started = time.perf_counter()
        await compute_pulse(client, now=anchor, offload=offload)
        took = (time.perf_counter() - started) * 1000
        stall = await watch.stop()
        return took, stall, watch.busy


def pulse_alone_figures(db: Path, runs: int) -> list[dict[str, Any]]:
    """`pulse_alone_loop_busy_ms` (pages of rows parsed in a thread) and
    `pulse_alone_loop_busy_inline_ms` (the same on the loop), alternated in one run, with
    `pulse_alone_compute{,_inline}_ms` and `pulse_alone_loop_stall{,_inline}_ms`: the pulse's
    own computation, without a screen."""
    from benchmarks.loopback_details import served
    from paytui.sandbox.seed import DEFAULT_ANCHOR

    results: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    with served(db) as url:
        for _ in range(runs):
            for offload in (True, False):
                results[offload].append(asyncio.run(_one_pulse(url, DEFAULT_ANCHOR, offload)))
    out = []
    for offload, name in ((True, ""), (False, "_inline")):
        took = [t for t, _, _ in results[offload]]
        stalls = [s for _, s, _ in results[offload]]
        busy = [b for _, _, b in results[offload]]
        out.append(figure(f"pulse_alone_compute{name}_ms", took, "ms", None))
        worst = max(stalls)
        out.append(figure(f"pulse_alone_loop_stall{name}_ms", stalls, "ms", 50.0, value=worst))
        out.append(figure(f"pulse_alone_loop_busy{name}_ms", busy, "ms", 50.0, value=max(busy)))
    return out


def ratio_figures(db: Path, runs: int) -> list[dict[str, Any]]:
    """`ratio_loop_stall_ms` (pages parsed in a thread) and `ratio_loop_stall_inline_ms` (the
    same on the loop), alternated; `ratio_compute_ms`, the loop thread's CPU time
    `ratio_loop_cpu_ms` and the most of it between two beats `ratio_loop_busy_ms` for each;
    `ratio_loop_stall_idle_ms`, the heartbeat alone as long, the machine's share
    (docs/performance.md, "The dispute ratio")."""
    from benchmarks.loopback_details import served
    from paytui.sandbox.seed import DEFAULT_ANCHOR

    results: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
    with served(db) as url:
        for _ in range(runs):
            for offload in (True, False):
                results[offload].append(asyncio.run(_one_ratio(url, DEFAULT_ANCHOR, offload)))
    # The machine's own share: the same heartbeat with nothing else running in the process,
    # for as long as one computation took. What a loaded machine makes any loop wait.
    idle = LoopWatch()

    async def idle_run(seconds: float) -> None:
        idle.start()
        await asyncio.sleep(seconds)
        await idle.stop()

    asyncio.run(idle_run(min(t for t, _, _, _ in results[True]) / 1000))
    out = [figure("ratio_loop_stall_idle_ms", [idle.stall], "ms", None)]
    for offload, name in ((True, ""), (False, "_inline")):
        took = [t for t, _, _, _ in results[offload]]
        stalls = [s for _, s, _, _ in results[offload]]
        cpu = [c for _, _, c, _ in results[offload]]
        busy = [b for _, _, _, b in results[offload]]
        out.append(figure(f"ratio_compute{name}_ms", took, "ms", None))
        out.append(figure(f"ratio_loop_cpu{name}_ms", cpu, "ms", None))
        out.append(figure(f"ratio_loop_stall{name}_ms", stalls, "ms", 50.0, value=max(stalls)))
        out.append(figure(f"ratio_loop_busy{name}_ms", busy, "ms", 50.0, value=max(busy)))
    return out
