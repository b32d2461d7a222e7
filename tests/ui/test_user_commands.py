"""User commands in the dashboard (issue 44, item 3): `[[commands]]` offered on their screens,
listed in `?` and the palette, run on the highlighted charge with its values as whole arguments,
asked first when they say `confirm`, refused on a read-only profile when they write, their
output shown sanitised, and never a secret in the child's argv or environment.

The program run is a real one: a small Python script that writes its argv and environment to a
file, so what the child received is read back, not assumed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.config.model import UserCommand
from paytui.logs import clear_registered_secrets, register_secret
from paytui.ui.palette_commands import PaytuiCommands
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.help import HelpScreen, action_text
from paytui.ui.screens.modals.user_command import CommandOutputModal, ConfirmCommandModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import make_app, screen_text, settle
from tests.ui.test_money_actions import notes

RECORDER = """
import json, os, sys
out = sys.argv[1]
with open(out, "w") as f:
    json.dump({"argv": sys.argv[2:], "env": dict(os.environ)}, f)
print("looked up", *sys.argv[2:])
print("\\x1b]52;c;aGk=\\x07 card 4111111111111111 \\x1b[31m")
"""


@pytest.fixture
def recorder(tmp_path: Path) -> tuple[Path, Path]:
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    return script, tmp_path / "seen.json"


def _command(recorder: tuple[Path, Path], **fields: Any) -> UserCommand:
    script, out = recorder
    run = f"{sys.executable} {script} {out} {{charge_id}} {{status}} {{profile}}"
    return UserCommand.model_validate({"name": "Look up", "run": run, **fields})


def _seen(recorder: tuple[Path, Path]) -> dict[str, Any]:
    seen: dict[str, Any] = json.loads(recorder[1].read_text())
    return seen


_OFF = "Look up: Mark it in the CRM (not available: Look up is off: this profile is read-only)"


def _help_lines(app: Any) -> list[tuple[str, str, str]]:
    """The help's lines as (group, key, what it does), from the help screen on top."""
    screen = app.screen
    assert isinstance(screen, HelpScreen)
    return [(row.scope, row.key_display, action_text(row).plain) for row in screen.live]


async def _highlighted(app: Any, pilot: Any) -> Any:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ChargeSearchScreen)
    charge = screen.query_one(ChargeTable).cursor_charge
    assert charge is not None
    return charge


async def test_a_key_runs_the_command_on_the_highlighted_charge(
    sandbox_transport: httpx.AsyncBaseTransport,
    recorder: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYTUI_TOKEN", "a-token-never-passed")
    monkeypatch.setenv("CRM_URL", "https://crm.example")
    register_secret("s3cret-of-the-session")
    monkeypatch.setenv("SOMETHING", "s3cret-of-the-session")
    app = make_app(sandbox_transport)
    app.session.commands = (_command(recorder, key="f6", pass_env=["CRM_URL", "SOMETHING"]),)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            charge = await _highlighted(app, pilot)
            await pilot.press("f6")
            await settle(app, pilot)
            seen = _seen(recorder)
            # The values on screen, each one argument, as the service gave them.
            assert seen["argv"] == [charge.charge_id, charge.status, app.session.profile_name]
            # Its environment: the allow-list and its pass_env; no credential of paytui's, and
            # no variable that holds a secret of this session whatever its name.
            assert seen["env"]["CRM_URL"] == "https://crm.example"
            assert "PAYTUI_TOKEN" not in seen["env"]
            assert "SOMETHING" not in seen["env"]
            # Its output, shown: control sequences replaced, a card number masked.
            dialog = app.screen
            assert isinstance(dialog, CommandOutputModal)
            text = screen_text(app)
            assert f"looked up {charge.charge_id}" in text
            assert "Look up: exit 0" in text
            assert "4111111111111111" not in text and "1111" in text
            assert "\x1b" not in str(dialog.query_one("#command-output").render())
            await pilot.press("escape")
            await settle(app, pilot)
            assert isinstance(app.screen, ChargeSearchScreen)
    finally:
        clear_registered_secrets()


async def test_a_hostile_value_stays_one_argument(
    sandbox_transport: httpx.AsyncBaseTransport,
    recorder: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service's text is data: a status of spaces, quotes and `$(…)` reaches the program
    as exactly one argument, and nothing of it is run."""
    app = make_app(sandbox_transport)
    app.session.commands = (_command(recorder, key="f6"),)
    async with app.run_test(size=(120, 40)) as pilot:
        charge = await _highlighted(app, pilot)
        hostile = 'x\'; touch pwned; echo "$(id)" `id` {charge_id}'
        shown = charge.model_copy(update={"status": hostile})
        monkeypatch.setattr(ChargeTable, "cursor_charge", property(lambda _table: shown))
        await pilot.press("f6")
        await settle(app, pilot)
        assert _seen(recorder)["argv"][1] == hostile
        assert not (recorder[1].parent / "pwned").exists()


async def test_confirm_asks_first_and_no_runs_nothing(
    sandbox_transport: httpx.AsyncBaseTransport, recorder: tuple[Path, Path]
) -> None:
    app = make_app(sandbox_transport)
    app.session.commands = (_command(recorder, key="f6", confirm=True),)
    async with app.run_test(size=(120, 40)) as pilot:
        charge = await _highlighted(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmCommandModal)
        # The exact command line, values shell-quoted.
        assert charge.charge_id in screen_text(app)
        await pilot.press("n")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeSearchScreen)
        assert not recorder[1].exists()
        await pilot.press("f6")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert _seen(recorder)["argv"][0] == charge.charge_id


async def test_a_writing_command_is_off_on_a_read_only_profile(
    sandbox_transport: httpx.AsyncBaseTransport, recorder: tuple[Path, Path]
) -> None:
    app = make_app(sandbox_transport)
    app.session.commands = (
        _command(recorder, key="f6", writes=True, description="Mark it in the CRM"),
    )
    app.session.read_only = True
    async with app.run_test(size=(120, 40)) as pilot:
        await _highlighted(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        assert not recorder[1].exists()
        assert notes(app)[-1] == "Look up is off: this profile is read-only"
        # Help says it is there, and why it is off; the palette does not offer it.
        await pilot.press("question_mark")
        await settle(app, pilot)
        lines = _help_lines(app)
        assert ("Your commands ([[commands]])", "f6", _OFF) in lines, lines
        await pilot.press("escape")
        await settle(app, pilot)
        names = [name for name, _, _ in PaytuiCommands(app.screen)._commands()]
        assert not any("Look up" in name for name in names)


async def test_help_and_the_palette_list_it_from_one_description(
    sandbox_transport: httpx.AsyncBaseTransport, recorder: tuple[Path, Path]
) -> None:
    """A command keyed on a key the screen already holds keeps its place in help and the
    palette (run from there), and one line says so; a command of another screen is not listed;
    one needing a value the row lacks is listed as not available, saying which."""
    app = make_app(sandbox_transport)
    app.session.commands = (
        _command(recorder, key="r", description="Look the charge up in the CRM"),
        _command(recorder, screens=["accounts"]).model_copy(update={"name": "Accounts only"}),
        UserCommand(name="Mail the payer", run="mail {customer_email}", screens=("charges",)),
    )
    async with app.run_test(size=(120, 40)) as pilot:
        charge = await _highlighted(app, pilot)
        assert any("'r' already means 'Refund'" in n or "r already means" in n for n in notes(app))
        await pilot.press("question_mark")
        await settle(app, pilot)
        lines = [line[1:] for line in _help_lines(app) if line[0].startswith("Your commands")]
        assert lines == [
            ("palette", "Look up: Look the charge up in the CRM"),
            ("palette", "Mail the payer (not available: No {customer_email} here)"),
        ]
        await pilot.press("escape")
        await settle(app, pilot)
        provider = PaytuiCommands(app.screen)
        entries = {name: callback for name, _, callback in provider._commands()}
        assert "Command: Look up" in entries
        assert not any("Accounts only" in name or "Mail the payer" in name for name in entries)
        # r still refunds (one meaning per key); the palette runs the command.
        await entries["Command: Look up"]()
        await settle(app, pilot)
        assert _seen(recorder)["argv"][0] == charge.charge_id
