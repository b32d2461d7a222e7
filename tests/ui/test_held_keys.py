"""Keys typed before the screen they were meant for can take them (`paytui.ui.held_keys`).

Keys are typed here as a terminal hands them over: all at once, in one burst, through the
app's driver, with nothing run between them (`_typed`); or even before the app has composed
its first screen (`_TypedBeforeMount`). What the tests wait for is an event (the client let
connect, the rows shown, the workers done), never a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from textual import events
from textual.screen import Screen
from textual.widgets import Input

from paytui.api.client import PaymentClient
from paytui.ui.app import PaytuiApp
from paytui.ui.held_keys import chains_of
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import frozen_clock, settle
from tests.ui.test_first_page import _client, _previewing_app

KEYS_OF = {" ": "space", "/": "slash", "\r": "enter"}


def _key(key: str) -> events.Key:
    """The event the terminal driver posts for `key` (as Textual's pilot builds it)."""
    key = KEYS_OF.get(key, key)
    try:
        char: str | None = unicodedata.lookup(key.upper().replace("_", " "))
    except KeyError:
        char = key if len(key) == 1 else None
    if key == "space":
        char = " "
    elif key == "enter":
        char = "\r"
    return events.Key(key, char)


def _typed(app: PaytuiApp, keys: str) -> None:
    """`keys` arrive from the terminal in one burst: posted together, nothing run between."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = _key(key)
        event.set_sender(app)
        driver.send_message(event)


def _waiting_factory(transport: httpx.AsyncBaseTransport) -> tuple[Any, asyncio.Event]:
    """A client factory that connects once the event is set ("Loading charges…" until then)."""
    connect = asyncio.Event()

    async def factory() -> PaymentClient:
        await connect.wait()
        return _client(transport)

    return factory, connect


@contextlib.asynccontextmanager
async def _loading(
    transport: httpx.AsyncBaseTransport, app_class: type[PaytuiApp] = PaytuiApp
) -> AsyncIterator[tuple[PaytuiApp, Any, asyncio.Event]]:
    """An app showing "Loading charges…" (no first-page child) until the event is set."""
    factory, connect = _waiting_factory(transport)
    app = app_class(factory, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        yield app, pilot, connect


async def _turns_until(pilot: Any, done: Any, rounds: int = 200) -> None:
    """The app's turns until `done()` (a message's or a timer's), never a sleep."""
    for _ in range(rounds):
        if done():
            return
        await pilot.pause()


async def _all_taken(app: PaytuiApp, pilot: Any) -> None:
    """The search answered, every held key replayed, and what they started done."""
    await settle(app, pilot)
    await _turns_until(pilot, lambda: not app.held_keys)
    await settle(app, pilot)


def _table(app: PaytuiApp) -> ChargeTable:
    screen = app.get_screen_stack("charges")[0] if app.current_mode != "charges" else app.screen
    return screen.query_one(ChargeTable)


def _marked(table: ChargeTable) -> list[str]:
    return [charge.charge_id for charge in table.marks.charges()]


async def test_j_j_space_typed_while_loading_marks_the_third_row(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        table = _table(app)
        assert table.total == 0  # "Loading charges…"
        _typed(app, "jj ")
        await _turns_until(pilot, lambda: len(app.held_keys) == 3)
        assert app.held_keys == ("j", "j", "space")  # nothing acted on an empty list
        connect.set()
        await _all_taken(app, pilot)
        third = table.charge_at(2)
        assert third is not None
        assert _marked(table) == [third.charge_id]
        assert table.cursor_row == 3  # a mark moves the cursor on, as always
        assert app.held_keys == ()


async def test_j_j_space_typed_at_the_first_frame_of_the_preview_marks_the_third_row(
    sandbox_transport: httpx.AsyncBaseTransport, demo_client: PaymentClient
) -> None:
    app, first, connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = _table(app)
        await _turns_until(pilot, lambda: table.previewing)
        _typed(app, "jj ")
        await _turns_until(pilot, lambda: table.cursor_row == 2 and app.held_keys)
        assert table.previewing and table.cursor_row == 2  # the moves: on the preview at once
        assert app.held_keys == ("space",)  # the mark: for the real row
        connect.set()
        await _all_taken(app, pilot)
        assert not table.previewing
        assert _marked(table) == [first.rows[2].charge_id]
        assert table.cursor_row == 3


async def test_moves_on_a_preview_that_gave_way_to_waiting_are_not_lost(
    sandbox_transport: httpx.AsyncBaseTransport, demo_client: PaymentClient
) -> None:
    """A loaded machine: the service's rows come after the preview stood its time
    (`PREVIEW_STANDS`, the timer's turn run here) and the list waited again."""
    app, first, connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = _table(app)
        await _turns_until(pilot, lambda: table.previewing)
        _typed(app, "jj")
        await _turns_until(pilot, lambda: table.cursor_row == 2)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        screen._preview_stood()  # the timer's turn: "Loading charges…" again
        assert not table.previewing and table.total == 0
        _typed(app, " ")
        await _turns_until(pilot, lambda: app.held_keys == ("space",))
        connect.set()
        await _all_taken(app, pilot)
        assert _marked(table) == [first.rows[2].charge_id]


async def test_keys_typed_before_the_first_screen_is_mounted_are_applied_in_order(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    class TypedBeforeMount(PaytuiApp):
        """The keys reach the app before its first screen is composed (typed while starting:
        the terminal keeps them, the driver reads them as it starts)."""

        def on_load(self) -> None:
            for key in "jj ":
                self.post_message(_key(key))

    async with _loading(sandbox_transport, TypedBeforeMount) as (app, pilot, connect):
        await _turns_until(pilot, lambda: len(app.held_keys) == 3)
        connect.set()
        await _all_taken(app, pilot)
        table = _table(app)
        third = table.charge_at(2)
        assert third is not None
        assert _marked(table) == [third.charge_id]


async def test_slash_and_its_text_typed_while_loading_land_in_the_query_line(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        _typed(app, "j/Edsger")  # the move waits for rows: the query's keys wait behind it
        await _turns_until(pilot, lambda: len(app.held_keys) == 8)
        query = app.screen.query_one("#query", Input)
        assert query.value == ""
        connect.set()
        await _all_taken(app, pilot)
        assert query.value == "Edsger"
        assert app.screen.focused is query
        table = _table(app)
        charge = table.charge_at(0)
        assert charge is not None and "Edsger" in (charge.contact_name or "")


async def test_slash_and_its_text_with_nothing_held_before_are_taken_at_once(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        _typed(app, "/Ed")
        query = app.screen.query_one("#query", Input)
        await _turns_until(pilot, lambda: query.value == "Ed")
        assert query.value == "Ed" and app.held_keys == ()  # the line takes its text now
        connect.set()
        await _all_taken(app, pilot)


async def test_enter_in_the_query_line_hands_the_keys_after_it_to_the_results(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        _typed(app, "/status:success\rjj ")
        query = app.screen.query_one("#query", Input)
        await _turns_until(pilot, lambda: app.held_keys == ("j", "j", "space"))
        assert query.value == "status:success"  # Enter searched; j j space wait for its rows
        connect.set()
        await _all_taken(app, pilot)
        assert query.value == "status:success"  # not "status:successjj "
        table = _table(app)
        third = table.charge_at(2)
        assert third is not None and third.status == "success"
        assert _marked(table) == [third.charge_id]


async def test_a_number_key_typed_behind_held_moves_switches_screen_after_them(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        _typed(app, "jj2")
        await _turns_until(pilot, lambda: len(app.held_keys) == 3)
        assert app.current_mode == "charges"  # `2` waits behind the keys for the list
        connect.set()
        await _all_taken(app, pilot)
        assert app.current_mode == "tokens"
        assert _table(app).cursor_row == 2  # the moves were applied first, on the list


async def test_a_number_key_with_nothing_held_before_switches_at_once(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async with _loading(sandbox_transport) as (app, pilot, connect):
        _typed(app, "2")
        await _turns_until(pilot, lambda: app.current_mode == "tokens")
        assert app.current_mode == "tokens" and app.held_keys == ()  # no row needed
        connect.set()
        await _all_taken(app, pilot)


async def test_keys_wait_only_while_a_search_is_on_its_way(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """A first search that fails releases the keys: they act on the list as it is (here, on
    no rows), they do not wait for good."""

    async def factory() -> PaymentClient:
        await connect.wait()
        raise ConnectionError("the service cannot be reached")

    connect = asyncio.Event()
    app = PaytuiApp(factory, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        _typed(app, "j2")
        await _turns_until(pilot, lambda: len(app.held_keys) == 2)
        connect.set()
        await _all_taken(app, pilot)
        assert app.held_keys == ()
        assert app.current_mode == "tokens"  # the `2` behind the `j`


async def test_ctrl_q_is_never_held(sandbox_transport: httpx.AsyncBaseTransport) -> None:
    async with _loading(sandbox_transport) as (app, pilot, _connect):
        _typed(app, "j")
        await _turns_until(pilot, lambda: app.held_keys == ("j",))
        event = events.Key("ctrl+q", None)
        event.set_sender(app)
        assert app._driver is not None
        app._driver.send_message(event)
        await _turns_until(pilot, lambda: app._exit)
        assert app._exit


def _counted_chain_builds(monkeypatch: pytest.MonkeyPatch) -> list[Screen[Any]]:
    """Each build of a screen's binding chain from now on (Textual builds it on every read)."""
    built: list[Screen[Any]] = []
    real = Screen._binding_chain

    def binding_chain(self: Screen[Any]) -> Any:
        built.append(self)
        return real.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(Screen, "_binding_chain", property(binding_chain))
    return built


async def test_a_passing_keys_question_and_priority_check_read_one_chain(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key typed on the list is asked about (does it open a screen?) and then has its
    priority bindings checked by Textual, in one step: one build of the chain for both (a
    held `j` built it three times there, twice for the question alone)."""
    async with _loading(sandbox_transport) as (app, pilot, connect):
        connect.set()
        await _all_taken(app, pilot)
        table = _table(app)
        table.focus()
        await settle(app, pilot)
        built = _counted_chain_builds(monkeypatch)
        key = _key("j")
        key.set_sender(app)
        await app.on_event(key)  # the App's part: the question, the priority check, forwarded
        assert built == [app.screen]
        assert app._key_chains is None  # not kept for a later key
        await _turns_until(pilot, lambda: table.cursor_row == 1)
        assert table.cursor_row == 1


async def test_a_priority_check_after_focus_moved_builds_the_chain_again(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chain built for a key's question is read by the priority check only for the screen
    and focus it was built for: the focus moved meanwhile, Textual's own check builds it anew
    (the query line takes printable keys a chain from the list would have bound)."""
    async with _loading(sandbox_transport) as (app, pilot, connect):
        connect.set()
        await _all_taken(app, pilot)
        screen = app.screen
        _table(app).focus()
        await settle(app, pilot)
        app._key_chains = chains_of(screen)
        screen.set_focus(screen.query_one(Input))  # at once, in this step
        assert app._key_chains is not None and not app._key_chains.current(screen)
        built = _counted_chain_builds(monkeypatch)
        assert not await app._check_bindings("j", priority=True)
        assert built == [screen]
        app._key_chains = chains_of(screen)  # built for the focus it has now: read as it is
        built.clear()
        assert not await app._check_bindings("j", priority=True)
        assert built == []
        assert app._key_chains is None
