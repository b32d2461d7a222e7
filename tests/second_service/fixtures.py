"""Fixtures of the second, independent fake service (`tests.second_service`).

- `second_service(**options)`: a factory; each call gives a fresh `SecondService` (its own
  seeded store) with `ServiceOptions(**options)`: `.transport`, `.base_url`, `.client_id`,
  `.client_secret`, `.store`, `.seen` (every request it answered).
- `client_for(service, **kwargs)`: a `PaymentClient` over it (retries off unless asked).
- `second_cli(service)`: run the command line in-process against it (as tests/test_commands.py
  does against the sandbox): ``run(*argv) -> (exit code, stdout, stderr)``.
- `write_profile(extra)`, `profile_clients(service)`: a profile `second` in the config file, and
  the clients its resolved connection builds, reaching the service (config -> client tests).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.cli_support import Run, cli_runner
from tests.second_service.app import CLIENT_SECRET, SecondService
from tests.second_service.options import ServiceOptions

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient


def client_for(service: SecondService, **kwargs: Any) -> PaymentClient:
    """A `PaymentClient` talking to `service` in-process with its client credentials."""
    from paytui.api.client import PaymentClient

    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("transport", service.transport)
    return PaymentClient(
        service.base_url,
        client_id=service.client_id,
        client_secret=service.client_secret,
        **kwargs,
    )


#: A profile of the config file for the second service (`write_profile`): its secret comes
#: from `SECOND_SECRET` (`PROFILE_ENV`).
PROFILE = """
# The second service, as a user would write it.
default_profile = "second"

[profiles.second]
base_url = "https://second.test"   # its address
client_id = "second-client"
client_secret_env = "SECOND_SECRET"
{extra}
[profiles.other]
base_url = "https://other.example.com"
token_env = "OTHER_TOKEN"
"""
PROFILE_ENV = {"SECOND_SECRET": CLIENT_SECRET}


def write_profile(extra: str = "") -> Path:
    """Write config.toml (the test's isolated one) with the profile `second` (`PROFILE`)."""
    from paytui.config import files

    path = files.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROFILE.format(extra=extra).lstrip(), encoding="utf-8")
    path.chmod(0o600)
    return path


def profile_clients(service: SecondService) -> Callable[[Any], Callable[..., PaymentClient]]:
    """`clients(connection)(**overrides)`: the client a resolved connection builds
    (`client_kwargs`), reaching `service` in-process (retries off)."""
    from paytui.api.client import PaymentClient
    from paytui.config import client_kwargs

    def clients(connection: Any) -> Callable[..., PaymentClient]:
        base = {**client_kwargs(connection), "transport": service.transport, "max_retries": 0}
        return lambda **overrides: PaymentClient(**{**base, **overrides})

    return clients


def cli_for(service: SecondService, journal: Path) -> Run:
    """`run(*argv, stdin="", env={})` -> (exit code, stdout, stderr), against `service`."""
    return cli_runner(lambda: client_for(service), journal)


@pytest.fixture
def second_service() -> Callable[..., SecondService]:
    """`second_service(**options)` -> a fresh `SecondService` (see `ServiceOptions`)."""

    def make(**options: Any) -> SecondService:
        return SecondService(ServiceOptions(**options))

    return make


@pytest.fixture
def second_cli(tmp_path: Path) -> Callable[[SecondService], Run]:
    """`second_cli(service)` -> `run(*argv)` on a journal of the test's own."""
    return lambda service: cli_for(service, tmp_path / "journal.sqlite3")
