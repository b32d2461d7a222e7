"""`own_journal` (this person's journal file known from the config file's TOML alone: `paytui
history` with a config file reads none of its models) agrees with `resolve_connection` on every
shape of file below: wherever it answers True, the connection's journal is the own file, so the
trail read is the one the executor writes."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from paytui.commands import main
from paytui.commands.runtime import Io, Runtime
from paytui.config.connection import resolve_connection
from paytui.config.environment import own_journal
from paytui.config.model import Profile

#: The credentials the profiles below take from the environment (a login is not what is asked).
ENVIRON = {"DEV_TOKEN": "t0ken"}
PROD = '[profiles.prod]\nbase_url = "https://api.example.com"\ntoken_env = "DEV_TOKEN"\n'
TEAM = 'journal = "sqlite:/tmp/team.sqlite3"\n'

#: A config file, and whether the own file is known from it without the models.
FILES = {
    "the benchmark's file": (
        'default_profile = "sandbox"\n[ui]\nclaim_lease_seconds = 90\n[today]\nhold_days = 5\n',
        True,
    ),
    "no default profile": ("[ui]\ntheme = 1\n", True),
    "a profile of a service, the default": (f'default_profile = "prod"\n{PROD}', True),
    "its values broken": (f'default_profile = "prod"\n{PROD}read_only = "maybe"\n', True),
    "a default that is not in the file": ('default_profile = "nope"\n', True),
    "a team journal on the default": (f'default_profile = "prod"\n{PROD}{TEAM}', False),
    "a team journal on another profile": (
        f'default_profile = "prod"\n{PROD}[profiles.team]\n{TEAM}',
        True,
    ),
    "a team journal on the sandbox the default falls back to": (
        f'default_profile = "nope"\n[profiles.sandbox]\n{TEAM}',
        False,
    ),
    "the same, the default broken": (
        f'default_profile = "prod"\n{PROD}read_only = "maybe"\n[profiles.sandbox]\n{TEAM}',
        False,
    ),
    "a broken journal on the default": (
        f'default_profile = "prod"\n{PROD}journal = "ftp://x"\n',
        False,
    ),
    "not TOML": ('default_profile = "prod\n', False),
    "a default that is not a name": ("default_profile = 3\n", False),
    "profiles that are not tables": ('profiles = "prod"\n', False),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_own_journal_is_the_connection_s(
    name: str, write_config: Callable[[str], Path]
) -> None:
    text, expected = FILES[name]
    write_config(text)
    assert own_journal(None, None, ENVIRON) is expected
    if expected:
        assert resolve_connection(environ=ENVIRON).journal is None


def test_without_a_file_it_is_the_own_journal() -> None:
    assert own_journal(None, None, {})


@pytest.mark.parametrize(
    "environ",
    [{"PAYTUI_PROFILE": "prod"}, {"PAYTUI_JOURNAL_URL": "sqlite:/tmp/j"}, {"PAYTUI_AGENT": "a"}],
)
def test_what_the_environment_chooses_is_the_connection_s_to_read(
    environ: dict[str, str], write_config: Callable[[str], Path]
) -> None:
    write_config(f'default_profile = "prod"\n{PROD}')
    assert not own_journal(None, None, environ)
    assert not own_journal("prod", None, {})


def test_the_key_read_is_the_profile_s_journal() -> None:
    assert "journal" in Profile.model_fields


def test_a_listing_opens_the_own_file_and_the_lease_is_read_when_claims_need_it(
    write_config: Callable[[str], Path],
) -> None:
    write_config('default_profile = "sandbox"\n[ui]\nclaim_lease_seconds = 90\n')
    runtime = Runtime(Io(out=io.StringIO(), err=io.StringIO()), environ={})
    try:
        listing = runtime.journal(claims=False)
        assert runtime._connection is None  # opened without the config's models
        assert runtime.journal() is listing
        assert listing.claim_lease == timedelta(seconds=90)  # the file's, once claims need it
    finally:
        runtime.close()


def test_history_on_a_file_that_is_not_toml_says_so_in_one_line(
    write_config: Callable[[str], Path],
) -> None:
    path = write_config('default_profile = "prod\n')
    out, err = io.StringIO(), io.StringIO()
    code = main(["history", "--limit", "1"], io=Io(out=out, err=err), environ={})
    assert code == 0
    assert err.getvalue().startswith(f"paytui: warning: {path}:1: invalid TOML")
    assert len(err.getvalue().splitlines()) == 1
    assert out.getvalue().startswith("TIME")
