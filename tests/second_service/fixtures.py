"""Fixtures of the second, independent fake service (`tests.second_service`).

- `second_service(**options)`: a factory; each call gives a fresh `SecondService` (its own
  seeded store) with `ServiceOptions(**options)`: `.transport`, `.base_url`, `.client_id`,
  `.client_secret`, `.store`, `.seen` (every request it answered).
- `client_for(service, **kwargs)`: a `PaymentClient` over it (retries off unless asked).
- `second_cli(service)`: run the command line in-process against it (as tests/test_commands.py
  does against the sandbox): ``run(*argv) -> (exit code, stdout, stderr)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.cli_support import Run, cli_runner
from tests.second_service.app import SecondService
from tests.second_service.options import ServiceOptions

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient


def client_for(service: SecondService, **kwargs: Any) -> PaymentClient:
    """A `PaymentClient` talking to `service` in-process with its client credentials."""
    from paytui.api.client import PaymentClient

    kwargs.setdefault("max_retries", 0)
    return PaymentClient(
        service.base_url,
        client_id=service.client_id,
        client_secret=service.client_secret,
        transport=service.transport,
        **kwargs,
    )


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
