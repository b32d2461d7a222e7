"""`every_default` (the journal found without the config's models, `paytui history`) agrees with
`resolve_connection` for every variable of the environment: a variable that changes the
connection is one `every_default` sees, so `history` never reads another journal than the
executor writes."""

from __future__ import annotations

import dataclasses

import pytest

from paytui.config import environment
from paytui.config.connection import resolve_connection
from paytui.config.store import ConfigError

#: A plausible value of each `PAYTUI_*` variable the environment module names.
VALUES = {
    "PAYTUI_PROFILE": "ana",
    "PAYTUI_BASE_URL": "http://127.0.0.1:9",
    "PAYTUI_TOKEN": "t0ken",
    "PAYTUI_CLIENT_ID": "client",
    "PAYTUI_CLIENT_SECRET": "secret",
    "PAYTUI_ACCOUNT_ID": "pa_1",
    "PAYTUI_JOURNAL_URL": "postgresql://journal.example/paytui",
    "PAYTUI_AGENT": "ana",
    "PAYTUI_APPROVE_ABOVE": "100",
    "PAYTUI_READ_ONLY": "1",
    "PAYTUI_SCREEN_READER": "1",
}

#: What a variable may change without changing which journal is read or who reads it.
NOT_THE_JOURNALS = {"read_only"}


def _fields(environ: dict[str, str]) -> dict[str, object] | str:
    try:
        connection = resolve_connection(environ=environ)
    except ConfigError as exc:
        return f"refused: {exc}"
    return {k: v for k, v in dataclasses.asdict(connection).items() if k not in NOT_THE_JOURNALS}


def test_every_variable_of_the_environment_module_has_a_value_here() -> None:
    named = {
        value
        for name, value in vars(environment).items()
        if name.startswith("ENV_") and isinstance(value, str)
    }
    assert named == set(VALUES)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_a_variable_that_changes_the_connection_is_not_every_default(name: str) -> None:
    environ = {name: VALUES[name]}
    if _fields(environ) != _fields({}):
        assert not environment.every_default(None, None, environ)


def test_with_nothing_set_it_is_every_default() -> None:
    assert environment.every_default(None, None, {})
