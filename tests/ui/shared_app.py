"""One app shared by the read-only pilot tests of a module (docs/testing.md, "One app shared by
the read-only pilot tests").

A pilot test's fixed cost is Textual building an app and its first page (one charge search and
23 refund reads at 120x40), styles, layout, the last paint and the teardown: about 0.25 s of CPU
of a median 0.65 s. A test that only reads may take the module's one app instead:

    @shared_app_test
    async def test_something(shared_pilot: Pilot[Any]) -> None:
        app, pilot = app_and_pilot(shared_pilot)
        ...

`shared_app_test` runs the test on the module's event loop (pytest-asyncio's
`loop_scope="module"`), where the app runs. The app is built by the first such test of the
module (under that test's autouse fixtures, as `app_factory()` and `run_test(size=(120, 40))`
would), over a sandbox of its own (its own copy of the demo database, its own sandbox app: the
process's one sandbox app is rebound by every other test). Each test that ends hands it back
through `SharedApp.end_test`:

- the guard: the sandbox's database written (its connection's `total_changes`) or the journal
  given an entry during the test fails the test, and the app is dropped (the next test builds
  one afresh): a wrong opt-in cannot leak state into the tests after it;
- the last screen painted (what `last_screen_painted` proves of a test's own app);
- the reset: screens popped to the start screen, notifications cleared, marks cleared, the
  cursor and the scroll at the top, focus where the fresh app had it;
- the proof: the screen's text, the screen stack, the modes, the focus, the search's query,
  sort and cursor, the account in focus equal to the app's first frame, and no worker running;
  anything the reset cannot bring back fails the test (naming it) and drops the app.

`tests/ui/test_shared_app.py` holds the reset to a fresh app's first frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from textual.pilot import Pilot

from paytui.ui.app import PaytuiApp
from tests.ui.conftest import _BUSY, make_app, paint, screen_text, settle

#: The mark of a test that uses `shared_pilot`: it runs on the module's event loop.
shared_app_test = pytest.mark.asyncio(loop_scope="module")

#: The terminal size of the shared app (the size the UI tests use by default).
SIZE = (120, 40)


def app_and_pilot(pilot: Pilot[Any]) -> tuple[PaytuiApp, Pilot[Any]]:
    """The app `pilot` drives (as a `PaytuiApp`), and `pilot`: `app, pilot =
    app_and_pilot(shared_pilot)` opens a test on the shared app."""
    app = pilot.app
    assert isinstance(app, PaytuiApp)
    return app, pilot


class SharedAppLeaked(AssertionError):
    """A test that took the shared app wrote, or left what the reset cannot undo."""


def fingerprint(app: PaytuiApp) -> dict[str, object]:
    """What a test could leave behind that a fresh app's first frame does not have (the text
    aside): compared whole after each reset."""
    from paytui.ui.screens.charges import ChargeSearchScreen
    from paytui.ui.widgets.charge_table import ChargeTable
    from paytui.ui.widgets.query_input import QueryInput

    screen = app.screen
    facts: dict[str, object] = {
        "screens": [type(s).__name__ for s in app.screen_stack],
        "mode": app.current_mode,
        "modes built": sorted(app._screen_stacks),
        "workspaces": len(app._workspaces.items),
        "focused": None if app.focused is None else (type(app.focused).__name__, app.focused.id),
        "account in focus": app.account_in_focus,
        "notifications": len(app._notifications),
        "workers busy": sorted(w.name for w in app.workers if w.state in _BUSY),
        "theme": app.theme,
        "clipboard": app.clipboard,
        "read only": getattr(app.session, "read_only", None),
        "client's methods replaced": replaced_methods(app.session),
        "size": tuple(app.size),
    }
    if isinstance(screen, ChargeSearchScreen):
        table = screen.query_one(ChargeTable)
        facts |= {
            "query line": screen.query_one(QueryInput).value,
            "query": screen.current_query_text(),
            "sort": screen._sort,
            "cursor": table.cursor_row,
            "scroll": tuple(table.scroll_offset),
            "marks": len(table.marks),
        }
    return facts


def replaced_methods(session: Any) -> list[str]:
    """The client's methods a test replaced on the instance (`client.get_charge = ...`)."""
    client = getattr(session, "_client", None)
    if client is None:
        return []
    return sorted(k for k in vars(client) if callable(getattr(type(client), k, None)))


async def quiet(app: PaytuiApp, pilot: Pilot[Any]) -> str:
    """`settle` until the screen's text stays the same over one more `settle`; that text.

    One `settle` can end between two steps of the first page: the table laid out again once the
    loading line has gone (28 rows shown, then 32) and the refund reads of the rows that came
    into view (``?``, then the state): found by this module's proof under a random order. The
    shared app's reference frame, and the frame each reset is held to, is the quiet one."""
    await settle(app, pilot)
    text = screen_text(app)
    for _ in range(20):
        await settle(app, pilot)
        again = screen_text(app)
        if again == text:
            return text
        text = again
    return text


@dataclass
class SharedApp:
    """The module's one app, its pilot, and what its first frame showed."""

    transport: Any
    store: Any
    app: PaytuiApp | None = None
    pilot: Pilot[Any] | None = None
    first_text: str = ""
    first_facts: dict[str, object] = field(default_factory=dict)
    first_focus: Any = None
    built: int = 0
    secrets: frozenset[str] = frozenset()
    _host: asyncio.Task[None] | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _changes: int = 0
    _journal_last: int = 0

    async def start(self) -> None:
        """Build the app and run it (`run_test`) in a task of its own, which holds Textual's
        context for the app's whole life (its `run_test` must end in the task it began in)."""
        app = make_app(self.transport)
        started: asyncio.Future[Pilot[Any]] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()

        async def host() -> None:
            try:
                async with app.run_test(size=SIZE) as pilot:
                    started.set_result(pilot)
                    await self._stop.wait()
            except BaseException as error:
                if not started.done():
                    started.set_exception(error)
                raise

        self._host = asyncio.create_task(host())
        pilot = await started
        self.app, self.pilot = app, pilot
        self.built += 1
        self.enter(app)
        self.first_text = await quiet(app, pilot)
        self.first_facts = fingerprint(app)
        self.first_focus = app.focused
        from paytui import logs

        self.secrets = frozenset(logs._registered)  # the token it fetched

    @staticmethod
    def enter(app: PaytuiApp) -> None:
        """Textual's context (the active app) in the test's own, as `run_test` gives a test."""
        from textual._context import active_app, active_message_pump

        active_app.set(app)
        active_message_pump.set(app)

    async def stop(self) -> None:
        host, self._host, self.app, self.pilot = self._host, None, None, None
        if host is not None:
            self._stop.set()
            await host

    def writes(self) -> tuple[int, int]:
        """The sandbox database's changes so far (its one connection's `total_changes`) and the
        journal's newest entry (0 when no journal is open)."""
        assert self.app is not None
        actions = self.app.session.actions_if_built
        journal = None if actions is None else actions._journal
        return self.store._conn.total_changes, 0 if journal is None else journal.last_id()

    async def begin_test(self) -> Pilot[Any]:
        if self.app is None:
            await self.start()
        else:  # as a fresh app's process knows its token (`no_secret_of_another_test`)
            from paytui.logs import register_secret

            for secret in self.secrets:
                register_secret(secret)
            self.enter(self.app)
        self._changes, self._journal_last = self.writes()
        assert self.pilot is not None
        return self.pilot

    async def end_test(self) -> None:
        """The guard, the last paint, the reset and its proof; the app dropped when any fails."""
        app, pilot = self.app, self.pilot
        if app is None or pilot is None:
            return
        try:
            if not app.is_running:
                raise SharedAppLeaked("the test ended the shared app (it may not exit it)")
            await settle(app, pilot)
            changes, journal_last = self.writes()
            if changes != self._changes or journal_last != self._journal_last:
                raise SharedAppLeaked(
                    "a test on the shared app wrote: the sandbox's database"
                    f" {changes - self._changes} change(s), the journal's newest entry"
                    f" {self._journal_last} -> {journal_last}; give it an app of its own"
                    " (app_factory)"
                )
            paint(app)
            await self.reset()
            facts = fingerprint(app)
            if facts != self.first_facts:
                differ = {k: (self.first_facts.get(k), v) for k, v in facts.items()}
                raise SharedAppLeaked(
                    "the reset did not bring the shared app back to its first frame (first, now): "
                    + repr({k: v for k, v in differ.items() if v[0] != v[1]})
                )
            text = await quiet(app, pilot)
            if text != self.first_text:
                diff = "\n".join(
                    difflib.unified_diff(
                        self.first_text.splitlines(), text.splitlines(), lineterm=""
                    )
                )
                raise SharedAppLeaked(f"the shared app's screen after the reset:\n{diff}")
        except BaseException:
            with contextlib.suppress(Exception):
                await self.stop()
            self.app = self.pilot = None
            raise

    async def reset(self) -> None:
        """Back to what a fresh app shows: screens popped, notifications and marks cleared,
        the cursor and the scroll at the top, focus where the first frame had it."""
        from paytui.ui.screens.charges import ChargeSearchScreen
        from paytui.ui.widgets.charge_table import ChargeTable

        app, pilot = self.app, self.pilot
        assert app is not None and pilot is not None
        while len(app.screen_stack) > 1:
            await app.pop_screen()
            await settle(app, pilot)
        app.clear_notifications()
        app.copy_to_clipboard("")
        screen = app.screen
        if isinstance(screen, ChargeSearchScreen):
            table = screen.query_one(ChargeTable)
            if len(table.marks):
                screen.action_clear_marks()
            if table.cursor_row:
                table.cursor_row = 0
            table.scroll_to(0, 0, animate=False, immediate=True)
        if app.focused is not self.first_focus and self.first_focus is not None:
            self.first_focus.focus()
        await settle(app, pilot)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def _shared_app(
    sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[SharedApp]:
    """The module's `SharedApp` (built by its first test), over its own sandbox; stopped when the
    module's tests are done."""
    import shutil

    from paytui.sandbox.app import create_app
    from paytui.sandbox.transport import InProcessTransport
    from tests.fixtures_sandbox import STILL_BOARDING

    db = tmp_path_factory.mktemp("shared-app") / "sandbox.sqlite3"
    shutil.copyfile(sandbox_template, db)
    sandbox = create_app(db, boarding_interval=STILL_BOARDING)
    shared = SharedApp(InProcessTransport(sandbox), sandbox.state.store)
    yield shared
    await shared.stop()
    sandbox.state.store.close()


@pytest_asyncio.fixture(loop_scope="module")
async def shared_pilot(
    request: pytest.FixtureRequest, _shared_app: SharedApp
) -> AsyncIterator[Pilot[Any]]:
    """The pilot of the module's one app at 120x40, settled on its first page as a fresh app's
    (`app_factory()`, `run_test(size=(120, 40))`, `settle`): for tests that only read. The test
    needs `@shared_app_test`."""
    marker = request.node.get_closest_marker("asyncio")
    if marker is None or marker.kwargs.get("loop_scope") != "module":
        raise SharedAppLeaked(f"{request.node.name} uses shared_pilot: mark it @shared_app_test")
    pilot = await _shared_app.begin_test()
    yield pilot
    await _shared_app.end_test()
