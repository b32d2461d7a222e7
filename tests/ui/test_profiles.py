"""Who am I (`i`) and the profile switcher (`P`): safe facts, and switching connections live."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from paytui.config import resolve_connection
from paytui.config.cli import main as profile_main
from paytui.config.connection import Connection
from paytui.ui import launch
from paytui.ui.app import PaytuiApp
from paytui.ui.palette_commands import PaytuiCommands
from paytui.ui.screens.modals.profile_switcher import ConfirmProductionScreen, ProfileSwitcher
from paytui.ui.screens.whoami import WhoAmIScreen
from paytui.ui.widgets.header import PaytuiHeader
from tests.ui.conftest import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    make_app,
    screen_text,
    settle,
)

SHOWN_SECRET = "whoami-never-shows-this-9f3a"


def whoami_connection() -> Connection:
    return Connection(
        profile_name="prod",
        environment="production",
        base_url="https://api.payments.example.com",
        client_id=DEMO_CLIENT_ID,
        client_secret=SecretStr(SHOWN_SECRET),
        scopes=("urn:v2:charges:all", "urn:v2:refunds:all"),
        confirm_threshold=Decimal("250.00"),
        account_id="pa_00000000000000000001",
    )


async def test_whoami_shows_scopes_expiry_and_no_secret(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport, connection=whoami_connection())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        assert isinstance(app.screen, WhoAmIScreen)
        client = await app.get_client()
        token = (await client.authenticate()).access_token.get_secret_value()
        text = screen_text(app)
        for fact in (
            "Who am I",
            "prod",
            "production",
            "https://api.payments.example.com",
            "client credentials",
            DEMO_CLIENT_ID,
            "urn:v2:charges:all",  # granted (the token's), not only requested
            "Token expires",
            "250.00",
            "pa_00000000000000000001",
        ):
            assert fact in text, fact
        assert "connecting" not in text
        for secret in (SHOWN_SECRET, DEMO_CLIENT_SECRET, token):
            assert secret not in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WhoAmIScreen)


async def test_whoami_with_a_static_token_says_scopes_unknown(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    async def factory() -> Any:
        from paytui.api.client import PaymentClient

        async with PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=sandbox_transport,
        ) as oauth:
            token = (await oauth.authenticate()).access_token
        return PaymentClient("http://sandbox", token=token, transport=sandbox_transport)

    connection = Connection(
        profile_name="tok",
        environment="sandbox",
        base_url="http://127.0.0.1:9",
        token=SecretStr("static-token-never-shown"),
    )
    app = PaytuiApp(factory, connection=connection)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await settle(app, pilot)
        text = screen_text(app)
        assert "unknown (static token)" in text
        assert "static-token-never-shown" not in text


async def test_palette_commands_present(sandbox_transport: httpx.AsyncBaseTransport) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        provider = PaytuiCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        assert "Who am I" in names and "Switch profile" in names


@pytest.fixture
def two_profiles(
    sandbox_server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """`alpha` (sandbox) and `prod` (production), both at the served loopback sandbox."""
    monkeypatch.setattr("getpass.getpass", lambda prompt="": DEMO_CLIENT_SECRET)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    for name, environment in (("alpha", "sandbox"), ("prod", "production")):
        code = profile_main(
            ["add", name, "--base-url", sandbox_server, "--client-id", DEMO_CLIENT_ID,
             "--environment", environment]
        )  # fmt: skip
        assert code == 0, capsys.readouterr().err
    return sandbox_server


def header_line(app: PaytuiApp) -> str:
    return screen_text(app).splitlines()[0]


async def test_switch_between_two_profiles(two_profiles: str) -> None:
    app = launch.build_app(resolve_connection(profile="alpha", environ={}))
    async with app.run_test(size=(120, 30)) as pilot:
        first = await app.get_client()
        await settle(app, pilot)
        assert app.session.profile_name == "alpha" and "SANDBOX" in header_line(app)

        await pilot.press("P")
        await pilot.pause()
        assert isinstance(app.screen, ProfileSwitcher)
        text = screen_text(app)
        assert "● alpha  (current)" in text and "prod" in text and "sandbox" in text
        assert "prod  PRODUCTION" in text and "alpha  PRODUCTION" not in text  # marked
        await pilot.press("down", "enter")  # alpha -> prod
        await pilot.pause()
        assert isinstance(app.screen, ConfirmProductionScreen)
        assert "Connect to PRODUCTION?" in screen_text(app)
        await pilot.press("y")
        await settle(app, pilot)
        second = await app.get_client()
        await settle(app, pilot)
        assert second is not first
        assert (app.session.profile_name, app.session.environment) == ("prod", "production")
        assert app.screen.query_one(PaytuiHeader).has_class("-production")
        host = two_profiles.removeprefix("http://")
        assert f"PRODUCTION · prod · {host}" in header_line(app)
        assert second.granted_scopes  # a fresh OAuth token for the new profile

        await pilot.press("P")
        await pilot.pause()
        assert "● prod  (current)" in screen_text(app)
        await pilot.press("up", "enter")  # prod -> alpha: no confirmation for a sandbox
        await settle(app, pilot)
        await app.get_client()
        await settle(app, pilot)
        assert app.session.profile_name == "alpha" and "SANDBOX" in header_line(app)
        assert "PRODUCTION" not in header_line(app)


async def test_declining_production_keeps_the_profile(two_profiles: str) -> None:
    app = launch.build_app(resolve_connection(profile="alpha", environ={}))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.switch_profile("prod")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmProductionScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.session.profile_name == "alpha"


async def test_switching_to_a_broken_profile_says_why(two_profiles: str) -> None:
    app = launch.build_app(resolve_connection(profile="alpha", environ={}))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.switch_profile("nope")
        await pilot.pause()
        notes = [(n.title, n.message, n.severity) for n in app._notifications]
        assert any(
            title == "Cannot switch to nope" and "no such profile" in message and sev == "error"
            for title, message, sev in notes
        ), notes
        assert app.session.profile_name == "alpha"


async def test_no_switch_while_a_money_action_is_in_flight(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    import asyncio

    from paytui.actions.in_flight import InFlight

    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        executor = await app.actions.executor()
        # A refund whose answer has not come yet: the executor's own in-flight slot, unfinished.
        pending: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        slot = InFlight()
        slot.task = pending  # a future stands in for the send task: only done() is asked
        executor.slots[("refund", "ch_1")] = slot
        assert app.actions.any_in_flight()
        app.switch_profile("sandbox")
        await pilot.pause()
        assert any("still being sent" in n.message for n in app._notifications)
        assert not isinstance(app.screen, ConfirmProductionScreen)
        del executor.slots[("refund", "ch_1")]
        pending.cancel()
