"""The app shell: header, navigation, help from live bindings, keymap, command palette, docs.

These run on a small in-memory fake client (no sandbox needed): they test the shell, not the API.
"""

from __future__ import annotations

import asyncio
import gc
from collections import Counter
from pathlib import Path

from paytui.collector import collector_paused, pause_collector
from paytui.ui.app import PaytuiApp
from paytui.ui.bindings import all_binding_ids, all_groups, keys_markdown
from paytui.ui.palette_commands import PaytuiCommands
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable, layout_columns
from tests.ui.conftest import HANG_GUARD, FakeClient, fake_app, frozen_clock, screen_text, settle

ROOT = Path(__file__).resolve().parents[2]


async def test_header_marks_sandbox_and_production() -> None:
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one("PaytuiHeader")
        assert header.has_class("-sandbox")
        assert "SANDBOX" in str(app.screen.query_one("#header-env").render())
        # A list shows the profile's account, never the row under the cursor.
        assert "pa_" not in str(app.screen.query_one("#header-account").render())
    app = fake_app(environment="production", profile_name="live-eu")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one("PaytuiHeader")
        assert header.has_class("-production") and not header.has_class("-sandbox")
        assert "PRODUCTION" in str(app.screen.query_one("#header-env").render())
        assert "live-eu" in str(app.screen.query_one("#header-profile").render())


async def test_factory_awaited_once_and_first_page_loaded() -> None:
    client = FakeClient()
    app = fake_app(client)
    pause_collector()  # as the launcher does: the first page painted ends the pause
    # The start ends on a timer after the first rows are painted; the test waits for that
    # event (however long a loaded machine takes), not for the app to look idle.
    ended = asyncio.Event()
    end_start = app._end_start

    def ending() -> None:
        end_start()
        ended.set()

    app._end_start = ending  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(ended.wait(), timeout=HANG_GUARD)
        assert not collector_paused() and gc.isenabled()
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert app.factory_calls["factory"] == 1  # type: ignore[attr-defined]
        assert await app.get_client() is client
        assert isinstance(app.screen, ChargeSearchScreen)
        assert app.screen.query_one(ChargeTable).total == 250
        assert app.now() == frozen_clock()


async def test_global_keys_switch_screens_and_escape_goes_back() -> None:
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        charges = app.screen
        await pilot.press("2")
        await pilot.pause()
        assert type(app.screen).__name__ == "TokensScreen"
        for key, screen_name in (
            ("3", "AccountsScreen"),
            ("4", "DistributionsScreen"),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert type(app.screen).__name__ == screen_name
        await pilot.press("5")
        await pilot.pause()
        assert type(app.screen).__name__ == "HistoryScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is charges  # the same instance: its state survived
        await pilot.press("3", "1")
        await pilot.pause()
        assert app.screen is charges


async def test_help_lists_live_bindings_with_keymap_applied() -> None:
    app = fake_app(keymap={"charges.copy_id": "c"})
    # Tall enough for every key of the charge search (marks and bulk actions made the list longer).
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        from paytui.ui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        shown = {(live.binding.id, live.key_display) for live in app.screen.live}
        assert ("charges.copy_id", "c") in shown  # remapped, not "y"
        assert ("table.down", "j / ↓") in shown
        assert ("app.quit", "q") in shown
        ids = {binding_id for binding_id, _ in shown}
        assert {"charges.search", "charges.view_chargebacks", "charges.sort", "app.help"} <= ids
        assert "Copy id" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ChargeSearchScreen)


async def test_keymap_remaps_by_id() -> None:
    app = fake_app(keymap={"charges.copy_id": "c", "table.down": "n"})
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        await pilot.press("n", "n")
        assert table.cursor_row == 2
        await pilot.press("j")  # j is no longer "down": the keymap replaced the keys
        assert table.cursor_row == 2
        await pilot.press("c")
        assert app.clipboard == f"{2:024x}"
        await pilot.press("y")  # the old key does nothing now
        assert app.clipboard == f"{2:024x}"


async def test_unknown_keymap_id_and_a_colliding_remap_warn() -> None:
    app = fake_app(keymap={"charges.no_such_thing": "x", "charges.refund": "R"})
    async with app.run_test(size=(120, 30)) as pilot:
        # The keymap is checked when start-up's deferred work runs, on a timer after the first
        # rows: waited for as an event (the warm-up it starts ends), not a settle's length.
        from tests.ui.test_warm_up import warmed_up

        await warmed_up(app, pilot)
        said = [n.message for n in app._notifications]
        assert any("charges.no_such_thing" in m for m in said)
        assert any("charges.refund" in m and "ACH returns" in m for m in said), said


async def test_command_palette_offers_screens_and_actions() -> None:
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        provider = PaytuiCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        for title in ("Charges", "Tokens", "Accounts", "Distributions", "History"):
            assert f"Go to {title}" in names
        joined = "\n".join(names)
        for action in (
            "Chargebacks",
            "ACH returns",
            "Open auths",
            "All",
            "Sort",
            "Copy id",
            "Refresh",
        ):
            assert f": {action} (" in joined, action
        hits = [hit async for hit in provider.search("chargebacks")]
        assert hits
        await hits[0].command()
        await settle(app, pilot)
        assert app.screen.query_one("#view-name").render().plain == "Chargebacks"  # type: ignore[union-attr]


async def test_vim_keys_move_the_cursor() -> None:
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        await pilot.press("j", "j", "j", "k")
        assert table.cursor_row == 2
        assert screen_text(app).count("Time ▼") == 1  # the header is not mistaken for row 0
        await pilot.press("G")
        await settle(app, pilot)
        assert table.cursor_row == 249
        await pilot.press("g")
        assert table.cursor_row == 0


def test_keys_doc_is_current() -> None:
    """docs/keys.md is generated; regenerate with scripts/make_screenshots.py --keys-doc."""
    assert (ROOT / "docs" / "keys.md").read_text(encoding="utf-8") == keys_markdown()


def test_binding_ids_are_unique_and_present() -> None:
    """A `[keymap]` id names exactly one binding: no binding without an id, no id used twice."""
    bindings = [binding for group in all_groups() for binding in group.bindings]
    ids = [binding.id for binding in bindings]
    assert all(ids), [binding.key for binding in bindings if not binding.id]
    assert sorted(i for i, count in Counter(ids).items() if count > 1) == []
    assert set(ids) == all_binding_ids()
    assert {"app.charges", "app.quit", "charges.copy_id", "table.bottom"} <= set(ids)


def test_narrow_layout_drops_low_priority_columns() -> None:
    wide = [column.key for column, _ in layout_columns(117)]
    narrow = [column.key for column, _ in layout_columns(77)]
    assert wide == ["time", "id", "status", "type", "state", "amount", "method", "name"]
    # At 80 columns (77 cells): the id (cut with an ellipsis), status, type, the money state and
    # the amount fill the row (the state says refunded / disputed, so the card goes first); the
    # name, free text, takes only what is left (here nothing), no blank run.
    assert narrow == ["time", "id", "status", "type", "state", "amount"]
    assert sum(width for _, width in layout_columns(77)) + len(narrow) - 1 == 77
    assert dict((c.key, w) for c, w in layout_columns(77))["state"] >= len("Partly refunded")
    # A little narrower the card goes and the whole id shows; a little wider the state word
    # comes back, then the name, before the result code.
    assert dict((c.key, w) for c, w in layout_columns(76))["id"] == 24
    between = [column.key for column, _ in layout_columns(97)]
    assert between == ["time", "id", "status", "type", "state", "amount", "method"]
    assert [c.key for c, _ in layout_columns(112)][-1] == "name"
    assert "result" in [c.key for c, _ in layout_columns(125)]
    # Wider: whole ids and result codes before the free text grows.
    huge = dict((column.key, width) for column, width in layout_columns(197))
    assert huge["id"] == 24 and huge["result"] == len("ProcessorPendingACHSale")
    assert huge["account"] == 23


def test_importing_the_app_stays_light() -> None:
    """Start-up budget: no FastAPI, sandbox server or non-first screens in the UI process."""
    import subprocess
    import sys

    code = (
        "import sys, paytui.ui.app; "
        "heavy = ['fastapi', 'uvicorn', 'paytui.sandbox.app', 'paytui.ui.screens.help', "
        "'paytui.ui.screens.charge_detail', 'paytui.ui.screens.history']; "
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_no_arguments_runs_on_the_embedded_sandbox() -> None:
    """`PaytuiApp()` spawns the sandbox child, pages from it over the socket, stops it on exit."""
    app = PaytuiApp(clock=frozen_clock)
    async with app.run_test(size=(120, 30)) as pilot:
        client = await app.get_client()
        assert client is not None
        await settle(app, pilot)
        assert app.screen.query_one(ChargeTable).total == 3015
        sandbox = app.session._sandbox
        assert sandbox is not None and sandbox.running
    assert not sandbox.running
