"""Sandbox fixtures (owned by the sandbox layer), available to every test.

- `sandbox_template`: the 3000-charge, seed-7 demo database, built once per run.
- `sandbox_db`: a private copy of it per test, so tests may write without affecting each other.
- `sandbox_faults`: a fresh `Faults` (nothing broken) that the test may flip at any time.
- `sandbox_transport`: an `httpx.ASGITransport` over `sandbox_db` with `sandbox_faults`; use it
  with base URL `http://sandbox` (`paytui.sandbox.embedded.BASE_URL`). Its boarding clock stands
  still (`STILL_BOARDING`).

The sandbox modules are imported inside the fixtures, so test sessions that never use them do
not pay for importing FastAPI.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests import speed_patches

if TYPE_CHECKING:
    import httpx
    from fastapi import FastAPI

    from paytui.sandbox.faults import Faults

#: A test client's time limit for one request, when the test sets none (the app's client,
#: `tests.ui.conftest.make_app`; the raw clients of the sandbox's own tests): a bound for a hang,
#: never a wait a test depends on. The in-process sandbox enforces the client's timeout
#: (`paytui.sandbox.transport`), and on a machine loaded by about 18 busy processes a customer's
#: reads (one search, a refunds read per charge) took more than the product's 10 s: the screen
#: showed "Timed out" where the test expected the customer. A test of a timeout sets its own.
TEST_TIMEOUT = 120.0


def raw_client(transport: httpx.AsyncBaseTransport, base_url: str) -> httpx.AsyncClient:
    """A plain `httpx` client of a sandbox (beside paytui's own client), with `TEST_TIMEOUT`:
    httpx's own default (5 s) is a wait a loaded machine misses."""
    import httpx

    return httpx.AsyncClient(transport=transport, base_url=base_url, timeout=TEST_TIMEOUT)


#: The sandbox's boarding clock for tests: the demo accounts move a boarding step every 20 s of
#: the wall clock, so a test slower than that on a loaded machine saw an account leave Today's
#: queue between two reads. A test that moves an account does it itself
#: (`POST /sandbox/accounts/{id}/advance`, or the store's clock: tests/sandbox/test_resources.py).
STILL_BOARDING = 1e9


@pytest.fixture(scope="session")
def sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once per run: pytest-xdist's workers share the run's temporary directory, so the
    first to ask builds it (under a lock on a file there) and the others wait and take it
    (about 2.4 s of CPU a worker saved). A test reads it, never writes it (`sandbox_db` copies)."""
    from paytui.sandbox.seed import build_database

    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process: its own directory
        path = tmp_path_factory.mktemp("sandbox-template") / "sandbox.sqlite3"
        build_database(path, charges=3000, seed=7)
        return path
    shared = tmp_path_factory.getbasetemp().parent / "sandbox-template"
    shared.mkdir(exist_ok=True)
    path = shared / "sandbox.sqlite3"
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():  # `build_database` renames it into place whole
            build_database(path, charges=3000, seed=7)
    return path


@pytest.fixture
def sandbox_db(sandbox_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "sandbox.sqlite3"
    shutil.copyfile(sandbox_template, target)
    return target


@pytest.fixture
def sandbox_faults() -> Faults:
    from paytui.sandbox.faults import Faults

    return Faults()


@pytest.fixture(scope="session")
def sandbox_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """One sandbox app per test process, its state (`app.state`) replaced for each test.

    FastAPI builds an app's routes on its first request (about 40 ms of CPU, a tenth of a short
    pilot test): paid once per process rather than by every test. The app keeps nothing of a
    test but its `app.state`, which `sandbox_transport` sets whole each time (`bind`, as
    `create_app` does; tests/sandbox/test_one_app.py)."""
    from paytui.sandbox.app import create_app

    return create_app(tmp_path_factory.mktemp("sandbox-app") / "unused.sqlite3")


def bound_app(
    request: pytest.FixtureRequest,
    db_path: Path,
    faults: Faults,
    *,
    boarding_interval: float = STILL_BOARDING,
) -> FastAPI:
    """A sandbox app over this test's own database copy and faults: `create_app`'s, or (speed
    only, `speed_patches`) the process's one app (`sandbox_app`) with this test's state."""
    if not speed_patches.enabled("one_sandbox_app"):
        from paytui.sandbox.app import create_app

        return create_app(db_path, faults=faults, boarding_interval=boarding_interval)
    from paytui.sandbox.app import bind

    app: FastAPI = request.getfixturevalue("sandbox_app")
    bind(app, db_path, faults=faults, boarding_interval=boarding_interval)
    return app


@pytest.fixture
def sandbox_transport(
    request: pytest.FixtureRequest, sandbox_db: Path, sandbox_faults: Faults
) -> httpx.ASGITransport:
    """The in-process sandbox over this test's own database copy and faults (`bound_app`)."""
    from paytui.sandbox.transport import InProcessTransport

    return InProcessTransport(bound_app(request, sandbox_db, sandbox_faults))
