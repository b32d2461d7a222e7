"""A real PostgreSQL for the team journal's tests: the server the environment names.

`.ci/run` runs the suite under ``pg_virtualenv`` (a throwaway cluster that sets ``PGHOST``,
``PGPORT``, ``PGUSER``, ``PGPASSWORD``, ``PGDATABASE``); locally, the README says how to do the
same or to point those variables at a server of your own. Without one, the tests that need it
fail with one line saying so: they never skip.

Each test gets its own schema (created and dropped around it): cheaper than a database per
test, and the journal's advisory locks carry the schema in their keys, so tests on two workers
never see each other's locks.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest

#: The URL of the server (libpq's environment fills in host, port, user and password).
BASE_URL_ENV = "PAYTUI_TEST_POSTGRES"


def _base_url() -> str:
    return os.environ.get(BASE_URL_ENV, "postgresql://")


def _with_schema(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The server's URL, once it answered; a clear failure when there is none."""
    import psycopg

    url = _base_url()
    try:
        with psycopg.connect(url, connect_timeout=5, autocommit=True) as db:
            db.execute("SELECT 1")
    except psycopg.Error as exc:
        pytest.fail(
            "the team-journal tests need a PostgreSQL server: run the suite under"
            " `pg_virtualenv` (Debian's postgresql-common) or set PGHOST/PGUSER/PGPASSWORD"
            f" (or {BASE_URL_ENV}) — {str(exc).strip().splitlines()[0]}",
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
