"""UI test helpers: build a `PaytuiApp` over the in-process sandbox with a frozen clock.

`make_app(sandbox_transport, **kwargs)` is the one way UI tests (charge search and charge detail)
build the app; keep its name and signature stable. The `app_factory` fixture binds it to the
test's own sandbox copy: `app = app_factory()` / `app_factory(client_id="paytui-limited", ...)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import textual.screen
from rich.console import Console
from textual.app import App
from textual.widgets import Input, TextArea
from textual.worker import WorkerCancelled, WorkerState

from paytui.api.models import Charge, Page
from paytui.ui.app import PaytuiApp
from tests import speed_patches
from tests.fixtures_sandbox import TEST_TIMEOUT

FROZEN_NOW = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
DEMO_CLIENT_ID = "paytui-demo"
DEMO_CLIENT_SECRET = "paytui-demo-secret"
LIMITED_CLIENT_ID = "paytui-limited"
LIMITED_CLIENT_SECRET = "paytui-limited-secret"


def frozen_clock() -> datetime:
    return FROZEN_NOW


def client_over(transport: httpx.AsyncBaseTransport, **options: Any) -> Any:
    """A `PaymentClient` over `transport`: the demo credentials, retries off and `TEST_TIMEOUT`
    unless `options` say otherwise (the app's, in `make_app`; a test's own reader beside it)."""
    from paytui.api.client import PaymentClient

    options.setdefault("client_id", DEMO_CLIENT_ID)
    options.setdefault("client_secret", DEMO_CLIENT_SECRET)
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", TEST_TIMEOUT)
    return PaymentClient("http://sandbox", transport=transport, **options)


def make_app(
    sandbox_transport: httpx.AsyncBaseTransport,
    *,
    client_id: str = DEMO_CLIENT_ID,
    client_secret: str = DEMO_CLIENT_SECRET,
    timeout: float = TEST_TIMEOUT,
    max_retries: int = 0,
    **kwargs: Any,
) -> PaytuiApp:
    """A `PaytuiApp` whose client talks to `sandbox_transport` with the demo credentials.

    Retries are off by default so error-state tests see the first failure, and a request's
    time limit is `TEST_TIMEOUT` (a test of a timeout passes its own); other keyword
    arguments go to `PaytuiApp` (environment, keymap, clock, ...). The clock is frozen at
    2026-11-20T18:30:00Z unless `clock=` is given.
    """

    async def factory() -> Any:
        return client_over(
            sandbox_transport,
            client_id=client_id,
            client_secret=client_secret,
            timeout=timeout,
            max_retries=max_retries,
        )

    kwargs.setdefault("clock", frozen_clock)
    return PaytuiApp(factory, **kwargs)


def switchable_app(sandbox_transport: httpx.AsyncBaseTransport) -> tuple[PaytuiApp, Any]:
    """An app whose every profile reaches the same sandbox, and a second sandbox profile
    ("alpha") to switch to (`apply_connection`): for what happens during a profile switch."""
    from pydantic import SecretStr

    from paytui.config.connection import Connection

    app = make_app(sandbox_transport)
    same_backend = app.session._client_factory
    app.session._factory_builder = lambda _connection: same_backend
    connection = Connection(
        profile_name="alpha",
        environment="sandbox",
        base_url="http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=SecretStr(DEMO_CLIENT_SECRET),
    )
    return app, connection


def screen_text(app: PaytuiApp) -> str:
    """What the terminal shows right now, as plain text (for asserting on visible words)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        color_system=None,
        legacy_windows=False,
        force_terminal=True,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text(styles=False)


def screen_top_line(app: PaytuiApp) -> str:
    """The terminal's top line only, as `screen_text` would give it (the screens behind a dialog
    included), without rendering the rest of the screen."""
    from textual._compositor import visible_screen_stack
    from textual.geometry import Size

    visible_screen_stack.set(app._background_screens)
    (strip,) = app.screen._compositor.render_strips(Size(app.size.width, 1))
    return strip.text


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC for the test (a screen showing local times, snapshots)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def app_factory(sandbox_transport: httpx.AsyncBaseTransport) -> Callable[..., PaytuiApp]:
    """`app_factory(**kwargs)` -> `make_app(sandbox_transport, **kwargs)`."""

    def build(**kwargs: Any) -> PaytuiApp:
        return make_app(sandbox_transport, **kwargs)

    return build


# --- A tiny in-memory backend for shell tests that do not need the sandbox ---------------------


class FakeClient:
    """Answers charge searches from generated rows; counts calls."""

    def __init__(self, total: int = 250) -> None:
        self.total = total
        self.calls: list[tuple[Any, int, int]] = []

    def charge(self, index: int) -> Charge:
        return Charge.model_validate(
            {
                "charge_id": f"{index:024x}",
                "charge_timestamp": (
                    datetime(2026, 11, 20, 18, tzinfo=UTC) - timedelta(minutes=index)
                ).isoformat(),
                "total_amount": 10 + index,
                "status": "success",
                "result_code": "Approved",
                "account_id": f"pa_{index % 3:020d}",
                "payment_method": {
                    "method": "card",
                    "type": "visa",
                    "card_number": "XXXXXXXXXXXX1111",
                    "contact": {"first_name": "Jane", "last_name": f"Doe{index}"},
                },
            }
        )

    async def search_charges_page(
        self, query: Any = None, *, limit: int = 50, offset: int = 0
    ) -> Page[Charge]:
        self.calls.append((query, limit, offset))
        end = min(self.total, offset + limit)
        return Page[Charge](
            items=[self.charge(i) for i in range(offset, end)],
            total=self.total,
            limit=limit,
            offset=offset,
            has_more=end < self.total,
        )

    async def aclose(self) -> None:
        pass


def fake_app(client: FakeClient | None = None, **kwargs: Any) -> PaytuiApp:
    fake = client or FakeClient()
    calls = {"factory": 0}

    async def factory() -> Any:
        calls["factory"] += 1
        return fake

    kwargs.setdefault("clock", frozen_clock)
    app = PaytuiApp(factory, **kwargs)
    app.factory_calls = calls  # type: ignore[attr-defined]
    return app


#: How long a test waits for an event before calling it a hang. Not a bound on speed: the event
#: is what a test asserts, and with the machine loaded it may come minutes later; only a hang fails.
HANG_GUARD = 600.0


async def settle(app: PaytuiApp, pilot: Any) -> None:
    """Wait until the app is quiet: no worker pending or running, pending callbacks (focus,
    scrolling) run, animations done. A worker may start another, so this loops (bounded) rather
    than trusting one pass; it never sleeps a fixed time, so a busy machine only makes it slower.
    Quiet means quiet after the last pause: a callback that pause runs (a `call_after_refresh`
    posted as a worker ended, such as Today starting its pulse) may start a worker, and whether
    it was posted before or after the pause began depends on the machine's speed. Quiet also
    means start-up's deferred work ran once the first rows made it due (`_started`).
    """
    every_time = not speed_patches.enabled("animations_waited_when_any")
    for _ in range(50):
        await pilot.pause()
        await _started(app)
        with contextlib.suppress(WorkerCancelled):  # a search replaced, a move's read: done
            await app.workers.wait_for_complete()
        if every_time or _animating(app):
            await pilot.wait_for_scheduled_animations()
        if any(worker.state in _BUSY for worker in app.workers):
            continue
        await pilot.pause()
        if (
            not any(worker.state in _BUSY for worker in app.workers)
            and not _start_due(app)
            and not _frame_due(app)
        ):
            return
    await pilot.pause()


def _frame_due(app: PaytuiApp) -> bool:
    """The screen in front still owes a layout, a scroll or the callbacks that wait for its next
    refresh (`call_after_refresh`: the charges list's look at the rows on screen for refunds to
    read). The first page's table is laid out again once the loading line has gone (28 rows
    shown, then 32), and the rows that came into view then have their refunds read: a `settle`
    that ended between those steps left a test the 28 rows with ``?`` (found by the shared
    app's proof, `tests/ui/shared_app.py`)."""
    if not app.screen_stack:
        return False
    screen = app.screen
    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._callbacks
        or getattr(screen, "_refunds_look_pending", False)
    )


async def _started(app: PaytuiApp) -> None:
    """Start-up's deferred work (the team's claims, the read-back of earlier actions, the keymap
    check: `PaytuiApp._end_start`) run, when the first rows have made it due: it waits on a timer
    after them, which a quick `settle` would otherwise outrun on a fast machine."""
    if not _start_due(app):
        return
    started = asyncio.Event()
    app.after_start(started.set)
    # Until it ran, or the app began to exit meanwhile (`_end_start` then never runs it): the
    # short waits only look at the app again, the hang guard bounds the whole.
    async with asyncio.timeout(HANG_GUARD):
        while not started.is_set() and _start_due(app):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(started.wait(), timeout=0.05)


def _start_due(app: PaytuiApp) -> bool:
    return (
        getattr(app, "start_due", False)
        and not app._started
        and not app._exit
        and not app._unmounting
    )


def _animating(app: PaytuiApp) -> bool:
    """Speed only (`speed_patches`): whether an animation runs or is scheduled, the one thing
    `settle`'s wait for animations waits for.

    `Pilot.wait_for_scheduled_animations` waits twice for every widget of the screen to handle
    what it has queued (each widget woken by a callback of its own: about 3 ms of CPU on the
    charges list's 23 widgets), then for idle for at least 20 ms; with no animation to wait for,
    the pauses around it do the same (every widget's queue handled, idle with nothing queued,
    the screen's pending callbacks run). It was a third of an idle `settle`'s CPU (27 ms, 18.5
    ms without it, on the charges list at load 16), and a UI test settles tens of times.
    """
    # Textual clears it as an animation starts or is scheduled, and sets it on the animator's
    # tick that finds none left (what `wait_until_complete` waits for).
    return not app.animator._complete_event.is_set()


async def press_settled(app: PaytuiApp, pilot: Any, *keys: str) -> None:
    """`keys` pressed, then the app settled (`settle`): one step of a test."""
    await pilot.press(*keys)
    await settle(app, pilot)


async def run_in_palette(app: PaytuiApp, pilot: Any, words: str) -> None:
    """`ctrl+p`, `words` typed, its first match run (`enter`), the app settled. The palette
    searches in a worker: its first match is waited for (bounded)."""
    from textual.widgets import OptionList

    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*words)
    palette = app.screen
    for _ in range(100):
        await settle(app, pilot)
        options = palette.query(OptionList)
        if options and options.first().option_count:
            break
    await press_settled(app, pilot, "enter")


_BUSY = frozenset({WorkerState.PENDING, WorkerState.RUNNING})


# --- Autouse fixtures: each neutralises one thing and patches at most one private of Textual
# (every private named in tests/textual_privates.py); the speed patches can each be switched off
# (tests/speed_patches.py).


@pytest.fixture(autouse=True)
def input_cursor_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """An Input's cursor does not blink: shown while focused, hidden otherwise.

    Blinking toggles the cursor every 0.5 s, so a snapshot taken on a busy machine would catch
    it on or off by chance."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.fixture(autouse=True)
def text_area_cursor_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """A TextArea's cursor does not blink (as `input_cursor_still`)."""
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)


@pytest.fixture(autouse=True)
def no_screens_built_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up builds no top screen ahead (`warm_up.BUILT_AHEAD`): it starts a second after
    the first page on the wall clock, so whether a test's app had read the tokens, accounts and
    distributions by the time it checks something would depend on the machine's speed.
    `tests/ui/test_warm_up.py` turns it on."""
    from paytui.ui import warm_up

    monkeypatch.setattr(warm_up, "BUILT_AHEAD", ())


@pytest.fixture(autouse=True)
def notifications_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Notifications stay until the test looks (and a snapshot shows them whatever the load): on
    a busy machine more than Textual's 5 s can pass between a notification and the check."""
    monkeypatch.setattr(PaytuiApp, "NOTIFICATION_TIMEOUT", 3600.0)


@pytest.fixture(autouse=True)
def fewer_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed only (`speed_patches`): screens refresh at most 5 times a second instead of 60.

    Nothing a test checks depends on frames in between: `pilot.pause()` (and so `settle`)
    refreshes the screen itself, `background_screens_laid_out` the screens under a modal, and
    `screen_text` and the snapshots render the screen afresh. The frames a test never looks at
    were a fifth of the suite's CPU time on this 2-core machine.
    """
    if speed_patches.enabled("fewer_frames"):
        monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 0.2)


#: The two fixed terminal sizes every screen is snapshotted at.
SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


async def wait_for_workers(pilot: Any) -> None:
    """`settle` for snapshots: animations off, so a loading indicator draws one still frame."""
    pilot.app.animation_level = "none"
    await settle(pilot.app, pilot)


#: The rules parsed, by what the parse reads but the variables: each with the variables it was
#: parsed with (a copy, compared whole: cheaper than a sorted key of them on every parse).
_PARSED_CSS: dict[tuple[object, ...], list[tuple[dict[str, str], list[Any]]]] = {}
#: Textual's own `Stylesheet._parse_rules`, while `css_parsed_once` stands in for it.
_UPSTREAM_PARSE_RULES: list[Any] = []


@pytest.fixture(autouse=True, scope="session")
def css_parsed_once() -> Any:
    """Speed only (`speed_patches`): each stylesheet is parsed once per test process, not once
    per app.

    Every pilot test builds a new app, and each app parses the same CSS (the app's, every
    widget's DEFAULT_CSS, every screen's) with the same theme variables: that was about a fifth of
    a short pilot test's CPU time. The parsed rules are keyed on everything the parse reads
    (source, location, scope and the variables), so a theme change still parses afresh.
    """
    from textual.css.stylesheet import Stylesheet

    if not speed_patches.enabled("css_parsed_once"):
        yield
        return
    original = Stylesheet._parse_rules
    _UPSTREAM_PARSE_RULES.append(original)

    def parse_rules(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[Any]:
        parsed = _PARSED_CSS.setdefault((css, read_from, is_default_rules, tie_breaker, scope), [])
        for variables, rules in parsed:
            if variables == self._variables:
                return rules
        rules = original(self, css, read_from, is_default_rules, tie_breaker, scope)
        parsed.append((dict(self._variables), rules))
        return rules

    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]
    yield
    Stylesheet._parse_rules = original  # type: ignore[method-assign]


@pytest.fixture
def css_parses(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[object, ...]]:
    """Each stylesheet source Textual parses in this test, counted (source, location, tie
    breaker, scope; whatever the variables), with `css_parsed_once` off: as shipped."""
    from textual.css import stylesheet

    if _UPSTREAM_PARSE_RULES:
        monkeypatch.setattr(stylesheet.Stylesheet, "_parse_rules", _UPSTREAM_PARSE_RULES[0])
    parses: Counter[tuple[object, ...]] = Counter()
    parse = stylesheet.parse

    def counted(scope: str, css: str, read_from: Any, **kwargs: Any) -> Any:
        parses[(css, read_from, kwargs.get("tie_breaker"), scope)] += 1
        return parse(scope, css, read_from, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)
    return parses


@pytest.fixture(autouse=True)
def no_unseen_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed only (`speed_patches`): headless test apps lay out but do not paint the frames no
    test looks at.

    A headless app composes every frame and then throws it away (it has no terminal to write
    to): that painting was over a third of the UI tests' CPU time on this 2-core machine. Layout,
    resize and show/hide events, focus and workers run as before; what a test looks at is painted
    on demand: `screen_text` and every snapshot render the screen afresh, and so does each app's
    last screen before it shuts down (`last_screen_painted`), so a screen that cannot be painted
    still fails its test. The UI fuzz paints after every fifth batch of keys it sends.
    """
    from textual.screen import Screen

    if not speed_patches.enabled("no_unseen_frames"):
        return

    def compositor_refresh(self: Screen[Any]) -> None:
        app = self.app
        if self is app.screen or (
            self in app._background_screens and self._compositor._dirty_regions
        ):
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
        app._update_mouse_over(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", compositor_refresh)


@pytest.fixture(autouse=True)
def last_screen_painted(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `no_unseen_frames`, an app's last screen is painted as it shuts down: a screen that
    cannot be drawn fails its test, as a frame that crashed would (with frames painted, there is
    nothing to add)."""
    if not speed_patches.enabled("no_unseen_frames"):
        return
    shutdown = App._shutdown

    async def paint_then_shut_down(self: App[Any]) -> None:
        if self._running and not self._closed and self.screen_stack:
            try:
                paint(self)
            except Exception as error:  # the test fails with it, as with a frame that crashed
                self._handle_exception(error)
        await shutdown(self)

    monkeypatch.setattr(App, "_shutdown", paint_then_shut_down)


def paint(app: App[Any]) -> None:
    """Render the current screen (over the screens beneath it) as a frame would."""
    app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


_IDLE_STEP = 0.004


def _work_queued() -> bool:
    """Whether the running app has work waiting: a message in the queue of the app or of any
    node of its screen, or a worker not started yet."""
    from textual._context import active_app

    app = active_app.get(None)
    if app is None:
        return False
    if any(worker.state is WorkerState.PENDING for worker in app.workers):
        return True
    try:
        nodes = [app, *app.screen.walk_children(with_self=True)]
    except Exception:  # no screen (starting or shutting down): nothing of ours is queued
        return False
    return any(not node._message_queue.empty() for node in nodes)


async def _wait_for_idle(min_sleep: float = 0.02, max_sleep: float = 1) -> None:
    """Textual's `wait_for_idle` in 4 ms steps instead of one 20 ms step, and never while a
    message or a worker waits to run.

    Textual decides the process is idle when a 20 ms sleep used under 1 ms of CPU, so each key a
    pilot presses waited at least 40 ms and each pause 20 ms: the last, quiet step alone was a
    quarter of the UI tests' wall time. Here idle is two quiet 4 ms steps in a row (each under a
    tenth of its time in CPU) with nothing queued. The queue check is what keeps a short step
    safe on a busy machine: a process the scheduler did not run for a while used no CPU, but
    the messages it has yet to handle are still in their queues.
    """
    from asyncio import sleep
    from time import monotonic, process_time

    start = monotonic()
    quiet = 0
    while True:
        cpu, before = process_time(), monotonic()
        await sleep(_IDLE_STEP)
        now = monotonic()
        if now - start >= max_sleep:
            return
        busy = process_time() - cpu > (now - before) / 10 or _work_queued()
        quiet = 0 if busy else quiet + 1
        if quiet >= 2 and now - start > min_sleep:
            return


@pytest.fixture(autouse=True)
def screen_waits_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pilot's wait for the screen's widgets (`tests/ui/screen_wait.py`) fails naming the
    widgets still busy and where each is awaiting, not with a bare `WaitForScreenTimeout`."""
    from textual.pilot import Pilot

    from tests.ui.screen_wait import explained_wait

    monkeypatch.setattr(Pilot, "_wait_for_screen", explained_wait)


@pytest.fixture(autouse=True)
def quick_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed only (`speed_patches`): pilots wait for idle in short steps (`_wait_for_idle`),
    the one function Textual imports in two places."""
    import textual.app
    import textual.pilot

    if not speed_patches.enabled("quick_idle"):
        return
    monkeypatch.setattr(textual.pilot, "wait_for_idle", _wait_for_idle)
    monkeypatch.setattr(textual.app, "wait_for_idle", _wait_for_idle)


@pytest.fixture(autouse=True)
def background_screens_laid_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pilot's pause brings the screens seen under a modal up to date too, not only the top one.

    Textual's `pilot.pause()` runs the top screen's pending layout and callbacks at once; a
    screen under a modal waits for its own update timer, which `fewer_frames` sets to 0.2 s. A
    list refreshed behind a dialog (a capture re-reads the charges under it) was then drawn with
    the layout it had while loading, whenever the pause came sooner than that timer: a snapshot
    that depended on timing. Every screen shown is now laid out before the pause returns.
    """
    from textual.pilot import Pilot

    pause = Pilot.pause
    wait_for_scheduled_animations = Pilot.wait_for_scheduled_animations

    def update_background(pilot: Pilot[Any]) -> None:
        for screen in pilot.app._background_screens:
            screen._on_timer_update()

    async def paused(self: Pilot[Any], delay: float | None = None) -> None:
        update_background(self)
        await pause(self, delay)
        update_background(self)

    async def animations_done(self: Pilot[Any]) -> None:
        update_background(self)
        await wait_for_scheduled_animations(self)
        update_background(self)

    monkeypatch.setattr(Pilot, "pause", paused)
    monkeypatch.setattr(Pilot, "wait_for_scheduled_animations", animations_done)


# The module's one app of the read-only pilot tests (`shared_pilot`, `tests/ui/shared_app.py`):
# imported last, it builds on the helpers above.
from tests.ui.shared_app import _shared_app, shared_pilot  # noqa: E402, F401
