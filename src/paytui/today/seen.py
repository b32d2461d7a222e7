"""What paytui has seen, kept so an estimate never moves (docs/today.md).

Two small tables in one private SQLite file (0600, in the user data dir, like the journal):
when an item (a chargeback, an ACH return) was first seen, and each account's boarding status
with the time paytui first saw it in that status. Keyed by service, so two profiles never mix.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from paytui.actions.journal_store import SqliteFile, close_sqlite, open_sqlite

__all__ = ["SeenStore", "default_seen_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS first_seen (
    base_url TEXT NOT NULL, kind TEXT NOT NULL, item_id TEXT NOT NULL, seen_at TEXT NOT NULL,
    PRIMARY KEY (base_url, kind, item_id)
);
CREATE TABLE IF NOT EXISTS account_status (
    base_url TEXT NOT NULL, account_id TEXT NOT NULL, status TEXT NOT NULL, since TEXT NOT NULL,
    PRIMARY KEY (base_url, account_id)
);
"""


def default_seen_path() -> Path:
    """``<user data dir>/today.sqlite3`` (beside the journal)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "today.sqlite3"


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="seconds")


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


class SeenStore:
    """First sightings and observed account statuses of one service (`base_url`).

    `path` None keeps them in memory (a test, or a read-only run that must leave no file).
    A file is opened on this process's one connection to it (`open_sqlite`): the Today screen
    and a command beside it in one process share it, and no second descriptor of the file is
    opened beside a live connection (its closing would drop that connection's locks)."""

    def __init__(self, path: Path | str | None, base_url: str) -> None:
        self.base_url = base_url
        self._shared = path is not None
        if path is not None:
            self._file = open_sqlite(Path(path))
        else:
            memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._file = SqliteFile((-1, id(memory)), Path(":memory:"), memory)
        self._db = self._file.db
        self._closed = False
        try:
            with self._file.lock:
                self._db.executescript(_SCHEMA)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._shared:
            close_sqlite(self._file)
        else:
            self._db.close()

    def first_seen(self, kind: str, ids: list[str], now: datetime) -> dict[str, datetime]:
        """When each of `ids` was first seen; the ones never seen are recorded as seen `now`."""
        found: dict[str, datetime] = {}
        with self._file.transaction():
            for item_id in ids:
                self._db.execute(
                    "INSERT OR IGNORE INTO first_seen VALUES (?, ?, ?, ?)",
                    (self.base_url, kind, item_id, _iso(now)),
                )
                row = self._db.execute(
                    "SELECT seen_at FROM first_seen"
                    " WHERE base_url = ? AND kind = ? AND item_id = ?",
                    (self.base_url, kind, item_id),
                ).fetchone()
                found[item_id] = _parse(row[0])
        return found

    def observe_statuses(
        self, observed: list[tuple[str, str]], now: datetime
    ) -> dict[str, datetime]:
        """Record each (account id, status) as seen now, in one transaction (one commit, not
        one per account); returns since when paytui has seen each account in that status (now,
        when it is new or changed)."""
        with self._file.transaction():
            return {account: self._observe(account, status, now) for account, status in observed}

    def _observe(self, account_id: str, status: str, now: datetime) -> datetime:
        row = self._db.execute(
            "SELECT status, since FROM account_status WHERE base_url = ? AND account_id = ?",
            (self.base_url, account_id),
        ).fetchone()
        if row is not None and row[0] == status:
            return _parse(row[1])
        self._db.execute(
            "INSERT OR REPLACE INTO account_status VALUES (?, ?, ?, ?)",
            (self.base_url, account_id, status, _iso(now)),
        )
        return now
