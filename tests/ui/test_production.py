"""Production is unmistakable, read-only hides and refuses money actions, problems are shown.

Issue 6's "done when" runs at the end: `paytui profile add prod` against a served loopback
sandbox, `build_app` for `--profile prod`, an OAuth connection, and no secret in any file under
the data, state (logs), cache or config directories afterwards (except the 0600 secrets file,
which exists to hold it when no keyring answers).
"""

from __future__ import annotations

import logging
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from textual.color import Color

from paytui.actions import ActionPolicy
from paytui.actions.registry import writing_actions
from paytui.config import resolve_connection
from paytui.config.cli import main as profile_main
from paytui.config.connection import Connection
from paytui.config.store import ConfigProblem
from paytui.ui import bindings as keys
from paytui.ui import launch
from paytui.ui.app import PaytuiApp
from paytui.ui.widgets.header import PaytuiHeader
from tests.ui.conftest import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, make_app, screen_text, settle

PROD_SECRET = "prod-only-secret-4b1d"


def prod_connection(**overrides: Any) -> Connection:
    """A production connection (the client itself comes from the test's in-process sandbox)."""
    fields: dict[str, Any] = {
        "profile_name": "prod",
        "environment": "production",
        "base_url": "https://api.payments.example.com",
        "client_id": DEMO_CLIENT_ID,
        "client_secret": SecretStr(PROD_SECRET),
        "confirm_threshold": Decimal("250.00"),
    }
    fields.update(overrides)
    return Connection(**fields)


def prod_app(transport: httpx.AsyncBaseTransport, **overrides: Any) -> PaytuiApp:
    return make_app(transport, connection=prod_connection(**overrides))


async def test_production_header_is_a_red_bar_with_profile_and_host(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = prod_app(sandbox_transport)
    assert (app.session.environment, app.session.profile_name, app.session.read_only) == (
        "production",
        "prod",
        False,
    )
    assert app.session.confirm_threshold == Decimal("250.00")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one(PaytuiHeader)
        assert header.has_class("-production")
        error = Color.parse(app.theme_variables["error"])
        bar = header.styles.background
        assert max(abs(a - b) for a, b in zip(bar.rgb, error.rgb, strict=True)) <= 2  # $error
        top = screen_text(app).splitlines()[0]
        assert "PRODUCTION · prod · api.payments.example.com" in top
        assert "READ-ONLY" not in top and "TLS" not in top


async def test_sandbox_header_is_not_red(sandbox_transport: httpx.AsyncBaseTransport) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one(PaytuiHeader)
        assert header.has_class("-sandbox") and not header.has_class("-production")
        assert "PRODUCTION" not in screen_text(app).splitlines()[0]


async def test_read_only_disables_and_refuses_money_actions(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = prod_app(sandbox_transport, read_only=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        for spec in writing_actions():
            assert app.why_disabled(spec.id) is not None
            assert "read-only" in (app.why_disabled(spec.id) or "")
        assert app.why_disabled("goto") is None and app.why_disabled("help") is None
        live = {b.binding.action.split(".")[-1]: b for b in keys.live_bindings(app.screen)}
        writes = {spec.id for spec in writing_actions()}
        assert writes & set(live)  # shown, greyed out, with the reason
        for action in writes & set(live):
            assert not live[action].enabled and "read-only" in (live[action].reason or "")
        top = screen_text(app).splitlines()[0]
        assert "READ-ONLY" in top
        screen_before = app.screen
        for key in ("c", "r", "n"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen_before  # no dialog opened
        assert await app.run_action("capture", app.screen) is False
    # The executor's policy is built from these same attributes (ui/actions_service.py).
    policy = ActionPolicy(
        read_only=app.session.read_only,
        environment=app.session.environment,
        confirm_threshold=app.session.confirm_threshold,
    )
    for operation in ("capture", "refund", "charge", "update_charge", "token_create"):
        decision = policy.check(operation)
        assert not decision.allowed and "read-only" in (decision.reason or "")


async def test_money_actions_are_enabled_when_not_read_only(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = prod_app(sandbox_transport)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(app, pilot)
        assert app.why_disabled("new_charge") is None
        assert app.check_action("new_charge", ()) is True


async def test_tls_badges(sandbox_transport: httpx.AsyncBaseTransport) -> None:
    for verify, badge in ((False, "TLS VERIFY OFF"), ("/etc/private-ca.pem", "CUSTOM CA")):
        app = prod_app(sandbox_transport, verify=verify)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            assert badge in screen_text(app).splitlines()[0]


async def test_config_problems_are_notified_without_secrets(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    problem = ConfigProblem(
        Path("/home/agent/.config/paytui/config.toml"),
        7,
        f"unknown key 'client_secret' (client_secret = {PROD_SECRET}) was ignored",
    )
    app = prod_app(sandbox_transport, problems=(problem,))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("config.toml:7" in m and "was ignored" in m for m in messages), messages
        assert not any(PROD_SECRET in m for m in messages)


def test_launch_with_profile_prod_shows_production(
    sandbox_server: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    isolated_user_dirs: Path,
) -> None:
    """Issue 6 done-when: profile add prod; `--profile prod` connects with OAuth; header says
    PRODUCTION; no secret in any file of the user directories afterwards."""
    import asyncio

    from paytui.logs import clear_registered_secrets, setup_logging

    monkeypatch.setattr("getpass.getpass", lambda prompt="": DEMO_CLIENT_SECRET)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    code = profile_main(
        ["add", "prod", "--base-url", sandbox_server, "--client-id", DEMO_CLIENT_ID,
         "--confirm-threshold", "50"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    connection = resolve_connection(profile="prod", environ={})
    assert connection.is_production
    log_file = setup_logging()
    root = logging.getLogger()
    access_token: list[str] = []
    try:
        for secret in connection.secret_values():
            from paytui.logs import register_secret

            register_secret(secret)
        app = launch.build_app(connection)

        async def drive() -> None:
            async with app.run_test(size=(120, 30)) as pilot:
                client = await app.get_client()
                info = await client.authenticate()
                access_token.append(info.access_token.get_secret_value())
                assert client.granted_scopes  # OAuth client credentials: scopes are known
                await settle(app, pilot)
                assert "PRODUCTION · prod · 127.0.0.1:" in screen_text(app).splitlines()[0]
                logging.getLogger("paytui.test").warning(
                    "Authorization: Bearer %s client_secret=%s", access_token[0], DEMO_CLIENT_SECRET
                )

        asyncio.run(drive())
    finally:
        for handler in list(root.handlers):
            if handler.get_name() == "paytui-file":
                handler.flush()
                root.removeHandler(handler)
                handler.close()
        clear_registered_secrets()
    assert log_file.is_file() and "Bearer ***" in log_file.read_text()
    secrets = [DEMO_CLIENT_SECRET, *access_token]
    scanned = 0
    for path in isolated_user_dirs.rglob("*"):
        if not path.is_file():
            continue
        if path.name == "secrets.toml":  # the 0600 fallback store, by design
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            continue
        data = path.read_bytes()
        scanned += 1
        for secret in secrets:
            assert secret.encode() not in data, f"{secret[:4]}… found in {path}"
    assert scanned >= 2  # the config file and the log, at least


async def test_production_refund_above_threshold_asks_for_the_typed_amount(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    """Issue 6 done-when: on production, a refund above the threshold asks to type the amount."""
    from textual.widgets import Input

    from paytui.api.queries import ChargeQuery, RefundQuery
    from paytui.ui.screens.charge_detail import ChargeDetailScreen
    from paytui.ui.screens.modals.refund import RefundModal

    app = make_app(
        sandbox_transport,
        connection=prod_connection(confirm_threshold=Decimal("5.00")),
        journal_path=tmp_path / "journal.sqlite3",
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        page = await client.search_charges_page(
            ChargeQuery(charge_type="sale", status="success"), limit=100
        )
        sale = next(c for c in page.items if (c.total_amount or 0) > 20)
        detail = ChargeDetailScreen(sale.charge_id)
        await app.push_screen(detail)
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, RefundModal)
        amount = dialog.query_one("#amount", Input)
        amount.value = "10.00"
        amount.focus()
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert dialog.phrase == "10.00"  # typed confirmation asked; nothing sent yet
        # The review says what the next key does: type the amount first, never "press enter".
        review = str(dialog.query_one("#dialog-review").render())
        assert "type 10.00 in the field below, then press enter to refund" in review
        assert "Press enter to refund" not in review
        refunds = await client.search_refunds_page(RefundQuery(charge_id=sale.charge_id))
        assert not [r for r in refunds.items if r.total_amount == Decimal("10.00")]
        phrase = dialog.query_one("#confirm-phrase", Input)
        phrase.value = "10.00"
        phrase.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert dialog.step == "result"
        refunds = await client.search_refunds_page(RefundQuery(charge_id=sale.charge_id))
        assert [r for r in refunds.items if r.total_amount == Decimal("10.00")]


async def test_connection_attributes_theme_and_keymap(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.config.model import UiPrefs

    ui = UiPrefs(theme="nord", watch_interval=2.0, refresh_interval=45.0)
    app = prod_app(
        sandbox_transport,
        ui=ui,
        account_id="pa_00000000000000000042",
        keymap={"charges.copy_id": "c"},
    )
    assert (app.session.watch_interval, app.session.refresh_interval) == (2.0, 45.0)
    assert app.account_in_focus == "pa_00000000000000000042"
    assert app.keymap_config == {"charges.copy_id": "c"}
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "nord"
    bad = prod_app(sandbox_transport, ui=UiPrefs(theme="no-such-theme"))
    async with bad.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert any("no-such-theme" in n.message for n in bad._notifications)
    plain = make_app(sandbox_transport)  # no connection: the embedded sandbox's defaults
    assert (plain.session.environment, plain.session.read_only, plain.session.insecure) == (
        "sandbox",
        False,
        False,
    )
    assert (plain.session.watch_interval, plain.session.refresh_interval) == (5.0, 30.0)
