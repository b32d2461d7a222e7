"""Workspaces (`ctrl+t`): two merchants open at once, each keeping its screens, search, cursor
and marks, and each workspace's money going to its own service and journal."""

from __future__ import annotations

import dataclasses
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.api.errors import NotFoundError
from paytui.api.queries import ChargeQuery
from paytui.config.connection import Connection
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.query_input import QueryInput
from tests.fixtures_sandbox import STILL_BOARDING
from tests.ui.conftest import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    client_over,
    frozen_clock,
    make_app,
    press_settled,
    screen_text,
    settle,
)


def _profile(name: str, journal: Path) -> Connection:
    return Connection(
        profile_name=name,
        environment="sandbox",
        base_url=f"http://{name}.example",
        client_id=DEMO_CLIENT_ID,
        client_secret=SecretStr(DEMO_CLIENT_SECRET),
        journal=str(journal),
    )


@pytest.fixture
def two_merchants(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_db: Path, tmp_path: Path
) -> tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]]:
    """An app on profile `alpha` (the test's sandbox) and a profile `beta` on a second
    sandbox of its own (another database, another journal) to switch a workspace to."""
    from paytui.sandbox.embedded import asgi_transport

    beta_db = tmp_path / "beta.sqlite3"
    shutil.copyfile(sandbox_db, beta_db)
    backends: dict[str, httpx.AsyncBaseTransport] = {
        "alpha": sandbox_transport,
        "beta": asgi_transport(beta_db, boarding_interval=STILL_BOARDING),
    }

    def factory_for(connection: Connection) -> Any:
        async def factory() -> PaymentClient:
            return client_over(backends[connection.profile_name])

        return factory

    alpha = _profile("alpha", tmp_path / "alpha-journal.sqlite3")
    app = PaytuiApp(
        factory_for(alpha), connection=alpha, clock=frozen_clock, factory_builder=factory_for
    )
    return app, _profile("beta", tmp_path / "beta-journal.sqlite3"), backends


def _marked(table: ChargeTable) -> set[str]:
    return {charge.charge_id for charge in table.marks.charges()}


def _search(app: PaytuiApp) -> ChargeSearchScreen:
    screen = app.screen
    assert isinstance(screen, ChargeSearchScreen)
    return screen


async def open_a_second_workspace(app: PaytuiApp, pilot: Any) -> ChargeSearchScreen:
    """Settled on the charge search, `ctrl+t` opens a second workspace: the first's search."""
    await settle(app, pilot)
    first = _search(app)
    await press_settled(app, pilot, "ctrl+t")
    return first


async def back_from_a_second_workspace(
    app: PaytuiApp, pilot: Any
) -> tuple[ChargeSearchScreen, Any]:
    """A second workspace opened, then the first shown again (`ctrl+pageup`): the first's
    charge search and the second workspace (not shown)."""
    first = await open_a_second_workspace(app, pilot)
    second = app._workspaces.active
    await press_settled(app, pilot, "ctrl+pageup")
    assert app.screen is first
    return first, second


async def _switch_profile(app: PaytuiApp, pilot: Any, connection: Connection) -> None:
    """What `P` and enter on a profile do (`switch_profile`), past resolving it from a config."""
    app.run_worker(app.apply_connection(connection), group="switch-profile")
    await settle(app, pilot)
    await app.get_client()
    await settle(app, pilot)


async def test_two_workspaces_keep_their_screens_search_cursor_and_marks(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    app, beta, _ = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "Workspaces:" not in screen_text(app)  # no strip with one workspace
        first = _search(app)
        await press_settled(app, pilot, "slash", *"amount>=10", "enter")
        await press_settled(app, pilot, "j", "j", "space", "j")
        first_table = first.query_one(ChargeTable)
        first_marks = _marked(first_table)
        first_row = first_table.cursor_row
        assert len(first_marks) == 1 and first_row == 4  # space marks and moves down

        await press_settled(app, pilot, "ctrl+t")  # the charge search, on alpha, in a new workspace
        second = _search(app)
        assert second is not first
        # The view shown, opened in the new workspace: the same query, run there.
        assert second.query_one(QueryInput).value == "amount>=10"
        assert second.query_one(ChargeTable).cursor_row == 0 and not _marked(
            second.query_one(ChargeTable)
        )
        text = screen_text(app)
        assert "Workspaces: 1 alpha · sandbox │ ▶ 2 alpha · sandbox ◀" in text
        await _switch_profile(app, pilot, beta)  # P in the second: only it moves to beta
        second = _search(app)
        assert app.session.profile_name == "beta"
        assert "1 alpha · sandbox │ ▶ 2 beta · sandbox ◀" in screen_text(app)
        await press_settled(app, pilot, "slash", *"amount<5", "enter")
        await press_settled(app, pilot, "j", "space", "j", "space")
        second_table = second.query_one(ChargeTable)
        second_marks = _marked(second_table)
        second_row = second_table.cursor_row
        assert len(second_marks) == 2 and second_row == 4

        await press_settled(app, pilot, "ctrl+pageup")  # back to the first, as it was left
        assert app.screen is first and app.session.profile_name == "alpha"
        assert first.query_one(QueryInput).value == "amount>=10"
        assert _marked(first_table) == first_marks and first_table.cursor_row == first_row
        assert "▶ 1 alpha · sandbox ◀ │ 2 beta · sandbox" in screen_text(app)

        await press_settled(app, pilot, "f9")  # and to the second again (the browser's key)
        assert app.screen is second and app.session.profile_name == "beta"
        assert second.query_one(QueryInput).value == "amount<5"
        assert _marked(second_table) == second_marks and second_table.cursor_row == second_row

        await press_settled(app, pilot, "f10")  # close it: the first shows, the strip goes
        assert app.screen is first and app.session.profile_name == "alpha"
        assert not app.screen.query_one(PaytuiHeader).has_class("-workspaces")
        assert "Workspaces:" not in screen_text(app)
        await press_settled(app, pilot, "f10")  # the last one stays
        assert app.screen is first
        assert any("only workspace" in n.message for n in app._notifications)


async def test_money_in_a_workspace_goes_to_its_service_and_journal_even_unseen(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    app, beta, backends = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        first = await open_a_second_workspace(app, pilot)
        await _switch_profile(app, pilot, beta)
        second = _search(app)
        await press_settled(
            app, pilot, "ctrl+pagedown"
        )  # round: back to the first, the second unseen
        assert app.screen is first

        async with client_over(backends["beta"]) as reader:
            sales = ChargeQuery(status="success", charge_type="sale")
            page = await reader.search_charges_page(sales, limit=1)
        charge_id = page.items[0].charge_id

        async def refund_from(screen: ChargeSearchScreen) -> tuple[Any, str]:
            """A refund as a dialog sends it: through `app.actions`, in a worker of the App
            (`confirm.py`), started from the dialog's handler; the worker first runs when
            another workspace is shown."""
            outcome = await (await screen.app.actions.executor()).run(
                "refund", charge_id, refund_op.Params(Decimal("1.00"))
            )
            return outcome, screen.app.session.profile_name

        started: list[Any] = []

        def from_the_screens_handler() -> None:
            started.append(app.run_worker(refund_from(second), exit_on_error=False))

        second.call_later(from_the_screens_handler)  # runs in the second screen's own pump
        await settle(app, pilot)
        assert app.screen is first  # shown when the worker ran
        (worker,) = started
        outcome, profile = await worker.wait()
        await settle(app, pilot)
        assert outcome.succeeded and profile == "beta"

        refund_id = outcome.result_id
        assert refund_id
        async with client_over(backends["beta"]) as reader:
            assert (await reader.get_refund(refund_id)).refund_id == refund_id
        async with client_over(backends["alpha"]) as reader:
            with pytest.raises(NotFoundError):
                await reader.get_refund(refund_id)

        alpha_actions, beta_actions = (w.session.actions for w in app._workspaces.items)
        beta_journal = (await beta_actions.executor()).history(limit=5)
        assert [e.charge_id for e in beta_journal if e.operation == "refund"] == [charge_id]
        alpha_executor = await alpha_actions.executor()
        assert not [e for e in alpha_executor.history(limit=5) if e.operation == "refund"]
        assert alpha_executor.journal.path != (await beta_actions.executor()).journal.path


def test_the_strip_with_two_workspaces(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    """Two workspaces: the strip under the header names both, the shown one marked by ▶ ◀ and
    bold reverse, not by colour alone."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("ctrl+t")
        await settle(pilot.app, pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=(120, 40), run_before=run_before)


async def test_a_screen_reader_hears_which_workspace_shows(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Screen-reader mode: each switch is said as a line of text, then the screen's title."""
    app = make_app(sandbox_transport, screen_reader=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        announcer = app.announcer
        assert announcer is not None
        start = len(announcer.lines)
        await press_settled(app, pilot, "ctrl+t")
        await press_settled(app, pilot, "ctrl+pageup")
        said = announcer.lines[start:]
        opened = said.index("Workspace 2 of 2: sandbox (embedded) · sandbox")
        back = said.index("Workspace 1 of 2: sandbox (embedded) · sandbox")
        assert opened < back and "Charges." in said[opened:back], said


async def test_closing_a_workspace_keeps_the_claims_of_another_on_the_same_journal(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    """Claims are this process's on a journal: closing a workspace whose profile writes the
    same journal as another must not let go of the other's claims (they go at exit)."""
    app, beta, _ = two_merchants
    alpha_journal = app.session.journal_location
    beta = dataclasses.replace(beta, journal=alpha_journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        alpha = app.session.actions
        claim = await (await alpha.executor()).claim("ch_kept")
        await press_settled(app, pilot, "ctrl+t")
        await _switch_profile(app, pilot, beta)
        beta_actions = app.session.actions
        assert beta_actions is not alpha
        beta_executor = await beta_actions.executor()
        assert beta_executor.journal.path == (await alpha.executor()).journal.path
        await press_settled(app, pilot, "f10")
        assert len(app._workspaces.items) == 1 and app.session.actions is alpha
        still = await (await alpha.executor()).claimed(["ch_kept"])
        assert still["ch_kept"].owner == claim.owner


async def test_a_profile_chosen_for_a_workspace_no_longer_shown_goes_to_that_workspace(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    """`P`, a production question, and meanwhile the person went back to the first workspace:
    the profile goes to the workspace it was chosen in, and the one shown stays as it is."""
    app, beta, _ = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        first, second_workspace = await back_from_a_second_workspace(app, pilot)
        app.run_worker(app.apply_connection(beta, second_workspace), group="switch-profile")
        await settle(app, pilot)
        assert app.screen is first and app.session.profile_name == "alpha"
        await press_settled(app, pilot, "ctrl+pagedown")
        assert app.session.profile_name == "beta"
        assert "▶ 2 beta · sandbox ◀" in screen_text(app)


async def test_one_profile_in_two_workspaces_writes_one_journal_however_it_got_there(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    """The second workspace switched to beta (a session of its own, beta's journal), then the
    first switched to beta too (its session not shared, so once it kept alpha's journal): both
    executors write beta's journal, and alpha's session is closed."""
    app, beta, _ = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        alpha_session = app.session
        await (await alpha_session.actions.executor()).claim("ch_alpha")
        await press_settled(app, pilot, "ctrl+t")
        await _switch_profile(app, pilot, beta)
        await press_settled(app, pilot, "ctrl+pageup")
        await _switch_profile(app, pilot, beta)
        first, second = (w.session for w in app._workspaces.items)
        assert first.profile_name == second.profile_name == "beta"
        first_journal = (await first.actions.executor()).journal.path
        second_journal = (await second.actions.executor()).journal.path
        assert first_journal == second_journal == Path(beta.journal or "")
        assert first is not alpha_session and alpha_session not in {first, second}
        assert alpha_session._closed


async def test_keys_go_on_to_the_workspace_shown_while_another_is_rebuilt(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    """A profile chosen for a workspace not shown rebuilds that workspace's screens; meanwhile
    the keys typed in the workspace shown are applied there (they were once all dropped), and
    a switch to the workspace being rebuilt is not made until it is whole."""
    import asyncio

    app, beta, _ = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        first, hidden = await back_from_a_second_workspace(app, pilot)
        table = first.query_one(ChargeTable)
        row = table.cursor_row
        gate = asyncio.Event()
        removing = asyncio.Event()
        real_remove = app.remove_mode

        async def held_remove(mode: str) -> Any:
            if hidden.owns(mode):
                removing.set()
                await gate.wait()
            return await real_remove(mode)

        app.remove_mode = held_remove  # type: ignore[method-assign]
        app.run_worker(app.apply_connection(beta, hidden), group="switch-profile")
        await removing.wait()
        await pilot.press("j", "j")
        assert table.cursor_row == row + 2
        await pilot.press("ctrl+pagedown")  # to the workspace being rebuilt: not yet
        assert app.screen is first and app._workspaces.active is not hidden
        gate.set()
        await settle(app, pilot)
        await press_settled(app, pilot, "ctrl+pagedown")
        assert app._workspaces.active is hidden and app.session.profile_name == "beta"


async def test_a_key_typed_in_one_workspace_never_lands_on_another(
    two_merchants: tuple[PaytuiApp, Connection, dict[str, httpx.AsyncBaseTransport]],
) -> None:
    """A `j` typed in the second workspace whose turn at the bindings comes after `ctrl+pageup`
    showed the first (the workspace keys act as they arrive, ahead of keys still queued in a
    widget; the key then bubbles back to the App): it is not applied to the first workspace's
    list, where it was never meant. The same `j` typed in the first moves its cursor."""
    from textual import events

    app, _, _ = two_merchants
    async with app.run_test(size=(120, 40)) as pilot:
        first, typed_in = await back_from_a_second_workspace(app, pilot)
        table = first.query_one(ChargeTable)
        first.set_focus(table)
        await settle(app, pilot)
        row = table.cursor_row

        def bubbled_back(workspace: Any) -> events.Key:
            """A `j` on its way back to the App, as if typed in `workspace`."""
            key = events.Key("j", "j")
            key._set_forwarded()
            key._paytui_workspace = workspace  # type: ignore[attr-defined]
            return key

        app.post_message(bubbled_back(typed_in))
        await settle(app, pilot)
        assert table.cursor_row == row  # not meant for this workspace: not applied
        app.post_message(bubbled_back(app._workspaces.active))
        await settle(app, pilot)
        assert table.cursor_row == row + 1  # the control: typed here, applied here


async def test_a_closed_workspaces_screens_are_no_longer_frozen_for_the_collector(
    app_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What start-up and the warm-up froze (`paytui.collector`) is never collected; a closed
    workspace's screens (cycles of widgets) and what they read would stay for good: closing it
    hands everything frozen back to the collector."""
    import gc

    from paytui import collector

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_a_second_workspace(app, pilot)
        monkeypatch.setattr(collector, "_frozen", True)
        gc.freeze()  # as start-up does once per process
        assert gc.get_freeze_count() > 0
        await press_settled(app, pilot, "f10")
        assert len(app._workspaces.items) == 1
        assert gc.get_freeze_count() == 0
