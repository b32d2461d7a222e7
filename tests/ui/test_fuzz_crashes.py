"""The crashes the UI fuzz found at 20 seeds x 5,000 keys (issue 22), each pinned by the keys that
caused it: PageDown in the theme picker as it opens (`KeyError`), two enters in the theme picker
(`ScreenStackError`), `x` (export) waiting for a connection a profile switch replaced
(`WorkerCancelled`), and ctrl+p again while the palette just closed was being removed
(`DuplicateIds`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
from pydantic import SecretStr
from textual.command import CommandInput, CommandPalette
from textual.worker import WorkerState

from paytui.config.connection import Connection
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.help import HelpScreen
from paytui.ui.textual_fixes import GuardedCommandPalette
from tests.ui.conftest import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, make_app, settle, switchable_app
from tests.ui.test_fuzz_keys import queue_keys


async def open_theme_picker(app: Any, *then: str) -> None:
    """The palette's "Theme: pick one" (Textual's `change_theme`), with `then` typed at once
    behind it (queued, as a fast typist's keys are)."""
    await app.run_action("change_theme")
    queue_keys(app, list(then))


def theme_picker(app: Any) -> bool:
    return app.screen.query_one(CommandInput).placeholder == "Search for themes…"


async def test_page_keys_typed_as_the_theme_picker_opens_do_not_crash(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    # Textual's theme picker was a plain `CommandPalette`: PageDown before its list had a size
    # raised `KeyError: 0` in `OptionList._move_page` (the guard was on ctrl+p's palette only).
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_theme_picker(app, "pagedown", "pagedown", "pageup", "pagedown")
        await settle(app, pilot)
        assert theme_picker(app) and isinstance(app.screen, GuardedCommandPalette)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        # Textual's other picker is the guarded palette too.
        await app.search_commands([("Nothing", lambda: None)])
        assert isinstance(app.screen, GuardedCommandPalette)


async def test_two_enters_in_the_theme_picker_close_it_once(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    # Both enters reached the picker's input before it handled the first choice; the second
    # choice dismissed it again, popping the screen beneath: `ScreenStackError` on a top-level
    # screen.
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_theme_picker(app)
        await settle(app, pilot)
        assert theme_picker(app)
        before = app.theme
        queue_keys(app, ["down", "enter", "enter", "enter"])
        await settle(app, pilot)
        assert app.theme != before
        assert [type(s) for s in app.screen_stack] == [ChargeSearchScreen]
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_enters_queued_in_the_palette_run_its_command_once(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    gone_to: list[str] = []
    goto = app.action_goto

    async def counted_goto(mode: str) -> None:
        gone_to.append(mode)
        await goto(mode)

    app.action_goto = counted_goto  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await pilot.press(*"Go to Tokens")
        await settle(app, pilot)
        queue_keys(app, ["enter", "enter", "enter", "enter"])
        await settle(app, pilot)
        assert gone_to == ["tokens"]
        assert app.current_mode == "tokens" and len(app.screen_stack) == 1


async def test_export_waiting_for_a_connection_a_profile_switch_replaced_does_not_crash(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    # `x` while the embedded sandbox was still starting, then a profile switch: the switch
    # cancelled the connection, `Worker.wait` turned that into `WorkerCancelled` (an Exception),
    # the connection's waiters got it as a failure, and the export's worker ended the app.
    app = make_app(sandbox_transport)
    same_backend = app.session._client_factory
    # "embedded" connects to the embedded sandbox (no factory); "alpha" to the test's sandbox.
    app.session._factory_builder = lambda c: None if c.profile_name == "embedded" else same_backend
    sandbox_started = threading.Event()  # the embedded sandbox never comes up in this test
    app.session._wait_for_sandbox = lambda: sandbox_started.wait(30)  # type: ignore[method-assign]

    def connection(name: str) -> Connection:
        return Connection(
            profile_name=name,
            environment="sandbox",
            base_url="http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=SecretStr(DEMO_CLIENT_SECRET),
        )

    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            switch = app.run_worker(app.apply_connection(connection("embedded")))
            await app.workers.wait_for_complete([switch])
            await pilot.pause()
            assert isinstance(app.screen, ChargeSearchScreen)
            await pilot.press("x")  # waits for the client, which waits for the sandbox
            export = next(w for w in app.workers if w.group == "export-open")
            assert export.is_running
            switch = app.run_worker(app.apply_connection(connection("alpha")))
            await app.workers.wait_for_complete([switch])
            await settle(app, pilot)
            assert export.state is WorkerState.CANCELLED and app.is_running
            assert app.session.profile_name == "alpha"
            await pilot.press("x")  # the new connection exports
            await settle(app, pilot)
            assert type(app.screen).__name__ == "ExportModal"
    finally:
        sandbox_started.set()


async def test_ctrl_p_while_the_closed_palette_is_being_removed_opens_a_new_one(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    # A dismissed palette is popped at once but removed a few turns of the loop later; it kept
    # its id (`--command-palette`) until then, and a new palette with the same id raised
    # `DuplicateIds`.
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        closing = app.screen
        queue_keys(app, ["escape"])
        for _ in range(1000):  # until the escape is handled: popped, not yet removed
            if app.screen is not closing:
                break
            await asyncio.sleep(0)
        assert closing.is_attached and not isinstance(app.screen, CommandPalette)
        await app.run_action("command_palette")  # what ctrl+p does
        await settle(app, pilot)
        assert isinstance(app.screen, GuardedCommandPalette) and app.screen is not closing
        assert not closing.is_attached


async def test_keys_for_another_screen_during_a_profile_switch_do_not_crash(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    # `P`, enter, `5` typed fast: the `5` (or an escape, or a palette's "Go to") was already past
    # the App's input filter when the switch began rebuilding the modes, and switched to History
    # in the middle of it: `ActiveModeError: Can't remove active mode 'history'`.
    app, connection = switchable_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("2")  # on Tokens, so that escape goes to charges
        await settle(app, pilot)
        for late_action in ("goto('history')", "back", "goto('accounts')"):
            switch = app.run_worker(app.apply_connection(connection), group="switch-profile")
            for _ in range(1000):  # until the modes are being rebuilt
                if app._switching_modes:
                    break
                await asyncio.sleep(0)
            assert app._switching_modes
            await app.run_action(late_action)
            await app.workers.wait_for_complete([switch])
            await settle(app, pilot)
            assert app.is_running and app.current_mode == "tokens", late_action
        # Two switches at once: one after the other.
        first = app.run_worker(app.apply_connection(connection), group="switch-profile")
        second = app.run_worker(app.apply_connection(connection), group="switch-profile")
        await app.workers.wait_for_complete([first, second])
        await settle(app, pilot)
        assert app.is_running and app.current_mode == "tokens"
        await pilot.press("5")
        await settle(app, pilot)
        assert app.current_mode == "history"
