"""The command line writes no colour and no escape sequence, to a terminal or not, with
`NO_COLOR` set or not (docs/accessibility.md): what it means is in words, and a screen reader or
a pipe gets the same bytes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.cli_support import sandbox_cli

COMMANDS = (
    ("charges", "search", "status:chargeback", "--limit", "5"),
    ("charges", "search", "status:chargeback", "--limit", "5", "--format", "table"),
    ("today",),
    ("history",),
    ("charges", "search", "stauts:cb"),  # a mistake: one line on stderr
    ("refunds", "create", "000000000000000000000000", "--amount", "1", "--yes"),  # refused
)


@pytest.mark.parametrize("environ", [{}, {"NO_COLOR": "1"}], ids=["plain", "NO_COLOR"])
def test_no_command_writes_an_escape_sequence(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path, environ: dict[str, str]
) -> None:
    run = sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")
    for argv in COMMANDS:
        _code, out, err = run(*argv, tty=True, env=environ)
        assert out or err, argv  # each said something
        assert "\x1b" not in out + err, (argv, out, err)
