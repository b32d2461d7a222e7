"""Snapshots of a user command's confirmation and its output (issue 44, item 3), at 80x24 (the
narrowest, where a long command line must wrap and the dialog still fit). Update only after
reading the SVGs: `pytest tests/ui/test_user_commands_snapshots.py --snapshot-update`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from paytui.config.model import UserCommand
from paytui.ui.screens.modals.user_command import CommandOutputModal
from paytui.user_commands import Ran
from tests.ui.conftest import make_app, wait_for_workers

CRM = UserCommand(
    name="Open in CRM",
    run="crm-open --charge {charge_id} --status {status} --profile {profile}",
    key="f6",
    confirm=True,
    description="The payer's record in the CRM",
)


@pytest.fixture
def snap_app(sandbox_transport: httpx.AsyncBaseTransport) -> Any:
    app = make_app(sandbox_transport)
    app.session.commands = (CRM,)
    return app


async def confirmation(pilot: Any) -> None:
    await wait_for_workers(pilot)
    await pilot.press("f6")
    await wait_for_workers(pilot)


async def output(pilot: Any) -> None:
    await wait_for_workers(pilot)
    ran = Ran(
        ("crm-open", "--charge", "ch_1"),
        2,
        "looking up ch_1\nerror: \x1b[31mno such customer\x1b[0m \u202eevil\ncard 4111111111111111",
        False,
        0.4,
    )
    from paytui.logs import redact

    await pilot.app.push_screen(CommandOutputModal("Open in CRM", ran, redact(ran.output)))
    await wait_for_workers(pilot)


def test_command_confirmation(snap_compare: Any, snap_app: Any) -> None:
    assert snap_compare(snap_app, terminal_size=(80, 24), run_before=confirmation)


def test_command_output(snap_compare: Any, snap_app: Any) -> None:
    assert snap_compare(snap_app, terminal_size=(80, 24), run_before=output)
