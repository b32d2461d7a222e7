"""The action journal: every money action taken, intent first.

Why a journal: when a capture or refund times out, the app must neither send it again nor forget
it. The *intent* (operation, target, amount, a client reference) is committed to disk before the
request goes out, so a crash, a kill or a dropped connection at any moment leaves a row that says
"this may have happened"; reconciliation (`paytui.actions.reconcile`) later reads the service back
and settles it. The History screen lists these rows.

Storage (`paytui.actions.journal_store`): one person's SQLite file at
``platformdirs.user_data_dir("paytui")/journal.sqlite3`` (injectable), WAL with
``synchronous=FULL`` so a commit is on disk when `record_intent` returns, created 0600; or a
team's PostgreSQL database (`url`, see docs/team.md), where every agent's machine writes the same
rows and the guard holds across machines. The tables and their rules are in
`paytui.actions.journal_schema`. The request summary is built by the executor from an allow-list
of fields and never holds a card or bank number, a token id, a bearer token or a secret.

`Journal` is the rooms of one concept each, over the one store (one connection per file per
process, `open_sqlite`):

- `paytui.actions.journal_entries`: entries (intent, outcome, the guard) and refusals, and their
  reads;
- `paytui.actions.journal_claims`: claims on a charge;
- `paytui.actions.journal_trail`: the hash-chained trail every write is a link of, its
  verification, and the audit trail History lists;
- `paytui.actions.journal_import`: a person's file copied into a team's journal;
- `paytui.actions.journal_searches`: the team's saved searches.

This module opens a journal (`open_journal`) and says where it is; the rooms' names stay
importable from here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from paytui.actions.entry import (
    FINAL_STATES,
    STATES,
    UNRESOLVED_STATES,
    JournalEntry,
)
from paytui.actions.journal_approvals import ApprovalsRoom
from paytui.actions.journal_claims import ClaimsRoom
from paytui.actions.journal_entries import EntriesRoom, JournalConflict
from paytui.actions.journal_import import ImportReport, ImportRoom
from paytui.actions.journal_schema import migrate
from paytui.actions.journal_searches import SearchesRoom
from paytui.actions.journal_store import (
    FileCheck,
    JournalUnavailable,
    PostgresStore,
    SqliteStore,
    Store,
    check_sqlite,
    first_line,
    mask_url,
)
from paytui.actions.journal_trail import AuditRow, TrailReport, TrailRoom, now

__all__ = [
    "FINAL_STATES",
    "STATES",
    "UNRESOLVED_STATES",
    "AuditRow",
    "ImportReport",
    "Journal",
    "JournalConflict",
    "JournalEntry",
    "JournalUnavailable",
    "TrailReport",
    "default_journal_path",
    "describe_location",
    "is_team_url",
    "open_journal",
]

#: An operation's name: a key of `paytui.actions.operations.OPERATIONS` (checked in Python, not in
#: SQL, so a new operation needs no rebuild of the journal; imported by what writes an entry, so
#: reading the journal does not build the table).
Operation = str


def default_journal_path() -> Path:
    """``<user data dir>/journal.sqlite3``; imported lazily so importing this module stays cheap."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "journal.sqlite3"


def is_team_url(location: str | Path | None) -> bool:
    """A PostgreSQL URL (``postgresql://…``/``postgres://…``), not a local file."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


class Journal(EntriesRoom, ClaimsRoom, ApprovalsRoom, TrailRoom, ImportRoom, SearchesRoom):
    """The action journal over one `Store` (a SQLite file, or a team's PostgreSQL database): its
    rooms (entries, claims, the trail, import, the team's searches) share the store, the clock
    and the trail. Thread-safe: the executor calls it from worker threads (`asyncio.to_thread`)
    so an fsync or a round trip never blocks the UI's event loop."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        clock: Callable[[], datetime] = now,
        password: str | None = None,
        claim_lease: timedelta | None = None,
    ) -> None:
        """`path`: a SQLite file (``sqlite:PATH`` too), or a ``postgresql://`` URL (its
        password from `password`, ``PGPASSFILE`` or ``PGPASSWORD``; never in the URL of a
        config file). None: this person's default file."""
        self._clock = clock
        if claim_lease is not None:
            self.claim_lease = claim_lease
        self._store: Store
        if is_team_url(path):
            assert isinstance(path, str)
            self._store = PostgresStore(path, password=password)
            #: Where this machine keeps its record of bulk actions (a team journal's rows are
            #: shared; a batch in progress is this machine's own).
            self.path = default_journal_path().with_name("batches.sqlite3")
        else:
            if isinstance(path, str) and path.startswith("sqlite:"):
                path = path.removeprefix("sqlite:")
            self.path = Path(path) if path is not None else default_journal_path()
            self._store = SqliteStore(self.path)
        #: The trail's head: every write takes it, so links are appended one after the other.
        self._trail_key = self._key("trail")
        try:
            migrate(self._store)
        except BaseException:
            self._store.close()
            raise

    @property
    def store(self) -> Store:
        """Where the rows live (`paytui.actions.presence` keeps its leases beside them)."""
        return self._store

    def schema_version(self) -> int:
        """The version of the journal's tables (SQLite's ``user_version``, PostgreSQL's
        `paytui_schema`): `SCHEMA_VERSION` once opened."""
        if self.kind == "postgresql":
            row = self._store.one("SELECT max(version) AS version FROM paytui_schema")
            return int(row["version"]) if row and row["version"] is not None else 0
        row = self._store.one("PRAGMA user_version")
        return int(row["user_version"]) if row else 0

    def check_file(self) -> FileCheck | None:
        """SQLite's integrity check of the journal's file, its WAL, and the processes of this
        machine that split from it (`paytui journal status`); None on PostgreSQL (the server
        keeps its own files whole)."""
        if isinstance(self._store, SqliteStore):
            return check_sqlite(self._store)
        return None

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def describe_location(location: str | Path | None) -> str:
    """Where a journal location points, for people (a URL's password masked)."""
    if location is None:
        return str(default_journal_path())
    return mask_url(str(location))


def open_journal(
    location: Path | str | None,
    *,
    password: str | None = None,
    clock: Callable[[], datetime] = now,
    claim_lease: timedelta | None = None,
) -> Journal:
    """The journal at `location` (a file, ``sqlite:PATH``, a ``postgresql://`` URL; None: this
    person's file), or `JournalUnavailable` with one line naming where and why (a password
    masked): a file that cannot be opened, a server that does not answer, a journal of a newer
    paytui, a database that refuses this login."""
    where = describe_location(location)
    try:
        return Journal(location, clock=clock, password=password, claim_lease=claim_lease)
    except JournalUnavailable:
        raise
    except Exception as exc:  # OSError, sqlite3.Error, psycopg.Error, a newer schema
        cause = getattr(exc, "strerror", None) or first_line(exc)
        raise JournalUnavailable(f"the journal {where} cannot be opened ({cause})") from None
