"""Snapshots: the production header on the charge list, and the who-am-I panel (120x40, 80x24).

Plain `def` tests (`snap_compare` runs its own loop); seeded in-process sandbox, frozen clock.
Check the SVGs by eye before `--snapshot-update`.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from paytui.config.connection import Connection
from paytui.ui.app import PaytuiApp
from tests.ui.conftest import DEMO_CLIENT_ID, SIZES, frozen_clock, make_app, wait_for_workers


def production_app(transport: httpx.AsyncBaseTransport, **overrides: Any) -> PaytuiApp:
    fields: dict[str, Any] = {
        "profile_name": "prod",
        "environment": "production",
        "base_url": "https://api.payments.example.com",
        "client_id": DEMO_CLIENT_ID,
        "client_secret": SecretStr("snapshot-secret-never-drawn"),
        "confirm_threshold": Decimal("250.00"),
        "config_path": Path("/home/agent/.config/paytui/config.toml"),
    }
    fields.update(overrides)
    app = make_app(transport, connection=Connection(**fields))
    factory = app.session._client_factory
    assert factory is not None

    async def frozen_token_clock() -> Any:
        # The token's expiry is stamped by the auth's own clock: freeze it too (test only).
        client = await factory()
        client._auth._clock = frozen_clock
        return client

    app.session._client_factory = frozen_token_clock
    return app


@pytest.mark.parametrize("size", SIZES)
def test_production_header_on_charges(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)

    app = production_app(sandbox_transport, read_only=True)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_whoami_panel(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("i")
        await wait_for_workers(pilot)

    app = production_app(sandbox_transport, scopes=("urn:v2:charges:all",))
    assert snap_compare(app, terminal_size=size, run_before=run_before)
