"""`[[commands]]` (issue 44, item 3): each table validated on its own; a broken one costs that
command only, with one line at its `[[commands]]` line, never a traceback; the good ones reach
the connection (and so the dashboard)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from paytui.config import load_config, resolve_connection
from paytui.config.model import UserCommand


def test_commands_reach_the_connection(write_config: Callable[[str], Path]) -> None:
    write_config(
        """
        [[commands]]
        name = "Open in CRM"
        run = "crm-open --charge {charge_id} --email={customer_email}"
        screens = ["charges", "charge"]
        key = "f6"
        confirm = true

        [[commands]]
        name = "Note to ticket"
        run = "ticket note {charge_id}"
        writes = true
        pass_env = ["TICKET_URL"]
        """
    )
    result = load_config()
    assert not result.problems, result.problems
    first, second = resolve_connection(environ={}).commands
    assert (first.name, first.key, first.confirm, first.screens) == (
        "Open in CRM",
        "f6",
        True,
        ("charges", "charge"),
    )
    assert first.offered_on("charge") and not first.offered_on("accounts")
    assert second.writes and second.pass_env == ("TICKET_URL",)
    assert second.offered_on("accounts")  # no screens: every screen that has commands


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('run = "crm {charge_idd}"', "unknown placeholder {charge_idd}"),
        ("run = \"sh -c 'crm {charge_id} | head'\"", "inside a shell's -c script"),
        ('run = "{charge_id} --x"', "the program itself cannot be a value"),
        ('run = "crm \'open"', "cannot be split into arguments: no closing quotation"),
        ('run = "crm {charge_id!r}"', "takes no format or conversion"),
        ('run = "crm"\nscreens = ["nowhere"]', "unknown screen nowhere"),
        ('run = "crm"\npass_env = ["PAYTUI_TOKEN"]', "PAYTUI_TOKEN may hold a secret"),
        ('run = "crm"\npass_env = ["CRM_API_KEY"]', "CRM_API_KEY may hold a secret"),
        ('run = "crm"\nkey = "a,b"', "one key name"),
        ('run = "crm"\nshell = true', "unknown setting"),
    ],
)
def test_a_broken_command_is_one_line_and_costs_only_itself(
    write_config: Callable[[str], Path], table: str, said: str
) -> None:
    write_config(
        '[[commands]]\nname = "Good"\nrun = "crm {charge_id}"\n\n'
        f'[[commands]]\nname = "Broken"\n{table}\n'
    )
    result = load_config()
    (good,) = result.config.commands
    assert good.name == "Good"
    lines = [str(problem) for problem in result.problems]
    assert len(lines) == 2, lines
    assert said in lines[0] and "\n" not in lines[0], lines
    assert lines[1].endswith("commands[2] ('Broken') is left out until this is fixed")
    assert all(problem.line == 5 for problem in result.problems)


def test_a_second_command_of_a_name_and_a_wrong_shape(
    write_config: Callable[[str], Path],
) -> None:
    write_config(
        """
        [[commands]]
        name = "Same"
        run = "a"

        [[commands]]
        name = "Same"
        run = "b"
        """
    )
    result = load_config()
    assert [c.run for c in result.config.commands] == ["a"]
    assert [str(p).split(": ", 1)[1] for p in result.problems] == [
        "commands[2] ('Same'): a second command named 'Same' (left out)"
    ]
    write_config('commands = "crm"\n')
    result = load_config()
    assert result.config.commands == ()
    assert "commands must be tables: [[commands]]" in str(result.problems[0])


def test_a_shell_takes_values_as_arguments() -> None:
    """The way a shell script gets a value: as "$1", never inside its code."""
    command = UserCommand(name="x", run="sh -c 'crm \"$1\" | head' sh {charge_id}")
    assert command.run.endswith("{charge_id}")
