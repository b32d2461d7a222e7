"""The record of bulk actions, kept in the action journal's file next to its entries.

Why a record of its own: the journal knows each capture or refund, but not that 200 of them were
one request of the user's. A batch is written (durably, before its first item is sent) with every
item it will act on; each item's row then moves ``todo -> running -> <outcome>`` as it goes. After
a crash or a kill the rows still ``todo`` or ``running`` are what "resume the rest" acts on, and
the journal entries made since the batch began (``journal_mark``) say whether a ``running`` item
was in fact sent — so a resumed batch never acts twice on an item (`paytui.actions.batch`).

Same file, own tables: the journal's schema and its migrations stay untouched. Same connection:
this process's one connection to the file (`open_sqlite`), shared with the journal, so a batch
log never opens a second descriptor of the journal (whose closing would drop the journal's
locks). No Textual; thread-safe like the journal (its writes run in worker threads).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from paytui.actions.journal_store import SqliteFile, close_sqlite, open_sqlite

__all__ = ["ITEM_STATES", "OPEN_ITEM_STATES", "BatchItem", "BatchLog", "BatchRecord"]

#: todo: not started; running: handed to the executor (its outcome not written yet).
ITEM_STATES = ("todo", "running", "succeeded", "skipped", "failed", "not_applied", "unknown")
#: Items a resume still has to look at.
OPEN_ITEM_STATES = frozenset({"todo", "running"})

#: `operation` is any operation the table says how to do in bulk (`Operation.bulk`), checked in
#: Python before a batch is written (`paytui.actions.batch.bulk_spec`), as the journal checks its
#: operation names: a new bulk operation needs no change here.
_BATCHES = """
CREATE TABLE IF NOT EXISTS batches (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    profile       TEXT NOT NULL,
    base_url      TEXT NOT NULL,
    operation     TEXT NOT NULL,
    journal_mark  INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('running', 'cancelled', 'finished')),
    updated_at    TEXT NOT NULL
);
"""
_SCHEMA = f"""{_BATCHES}
CREATE TABLE IF NOT EXISTS batch_items (
    batch_id   INTEGER NOT NULL REFERENCES batches(id),
    position   INTEGER NOT NULL,
    charge_id  TEXT NOT NULL,
    amount     TEXT,
    state      TEXT NOT NULL CHECK (state IN ({", ".join(repr(s) for s in ITEM_STATES)})),
    entry_id   INTEGER,
    result_id  TEXT,
    message    TEXT,
    PRIMARY KEY (batch_id, position)
);
"""


_BATCH_COLUMNS = "id, profile, base_url, operation, journal_mark, created_at, state, updated_at"


def _drop_operation_check(db: sqlite3.Connection) -> None:
    """A file written when bulk knew only capture and refund names them in a CHECK on
    `batches.operation`: the table is rebuilt without it, every row kept (in one transaction;
    a second process that got there first leaves nothing to do)."""

    def old() -> bool:
        row = db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'batches'"
        ).fetchone()
        return row is not None and "CHECK (operation IN" in str(row[0])

    if not old():
        return
    # The items' REFERENCES must not stop the old table's drop (the journal's connection,
    # which this may be, enforces foreign keys); the pragma holds outside a transaction only.
    enforced = db.execute("PRAGMA foreign_keys").fetchone()[0]
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        if old():
            db.execute(_BATCHES.replace("EXISTS batches", "EXISTS batches_rebuilt", 1))
            db.execute(
                f"INSERT INTO batches_rebuilt ({_BATCH_COLUMNS})"
                f" SELECT {_BATCH_COLUMNS} FROM batches"
            )
            db.execute("DROP TABLE batches")
            db.execute("ALTER TABLE batches_rebuilt RENAME TO batches")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    finally:
        db.execute(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class BatchItem:
    """One charge of a batch and what became of it (`message` is one line for the user)."""

    position: int
    charge_id: str
    amount: Decimal | None
    state: str = "todo"
    entry_id: int | None = None
    result_id: str | None = None
    message: str | None = None

    @property
    def open(self) -> bool:
        return self.state in OPEN_ITEM_STATES


@dataclass(frozen=True)
class BatchRecord:
    """A batch as recorded: its items in the order the user marked them."""

    id: int
    profile: str
    base_url: str
    operation: str
    journal_mark: int
    created_at: datetime
    state: str
    items: tuple[BatchItem, ...]

    @property
    def open_items(self) -> list[BatchItem]:
        return [item for item in self.items if item.open]

    def count(self, state: str) -> int:
        return sum(1 for item in self.items if item.state == state)


class BatchLog:
    """Batches in the journal's SQLite file (``journal.path``)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._file: SqliteFile = open_sqlite(self.path)  # the journal's own connection
        self._lock = self._file.lock
        self._db = self._file.db
        self._closed = False
        try:
            with self._lock:
                self._db.executescript(_SCHEMA)
                _drop_operation_check(self._db)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            close_sqlite(self._file)

    def create(
        self,
        *,
        profile: str,
        base_url: str,
        operation: str,
        journal_mark: int,
        items: list[tuple[str, Decimal | None]],
        now: datetime,
    ) -> BatchRecord:
        """Write a batch and all its items in one transaction (all or nothing)."""
        stamp = _iso(now)
        with self._file.transaction():
            cursor = self._db.execute(
                "INSERT INTO batches (profile, base_url, operation, journal_mark, created_at,"
                " state, updated_at) VALUES (?, ?, ?, ?, ?, 'running', ?)",
                (profile, base_url, operation, journal_mark, stamp, stamp),
            )
            batch_id = cursor.lastrowid
            self._db.executemany(
                "INSERT INTO batch_items (batch_id, position, charge_id, amount, state)"
                " VALUES (?, ?, ?, ?, 'todo')",
                [
                    (batch_id, position, charge_id, str(amount) if amount is not None else None)
                    for position, (charge_id, amount) in enumerate(items)
                ],
            )
        assert batch_id is not None
        record = self.get(batch_id)
        assert record is not None
        return record

    def set_item(self, batch_id: int, item: BatchItem) -> None:
        """Write an item's state (and its journal entry, result and message when known)."""
        with self._lock:
            self._db.execute(
                "UPDATE batch_items SET state = ?, amount = ?, entry_id = COALESCE(?, entry_id),"
                " result_id = COALESCE(?, result_id), message = ? WHERE batch_id = ?"
                " AND position = ?",
                (
                    item.state,
                    str(item.amount) if item.amount is not None else None,
                    item.entry_id,
                    item.result_id,
                    item.message,
                    batch_id,
                    item.position,
                ),
            )

    def set_state(self, batch_id: int, state: str, now: datetime) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE batches SET state = ?, updated_at = ? WHERE id = ?",
                (state, _iso(now), batch_id),
            )

    def get(self, batch_id: int) -> BatchRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM batches WHERE id = ?", (batch_id,)).fetchone()
            if row is None:
                return None
            items = self._db.execute(
                "SELECT * FROM batch_items WHERE batch_id = ? ORDER BY position", (batch_id,)
            ).fetchall()
        return BatchRecord(
            id=row["id"],
            profile=row["profile"],
            base_url=row["base_url"],
            operation=row["operation"],
            journal_mark=row["journal_mark"],
            created_at=datetime.fromisoformat(row["created_at"].replace("Z", "+00:00")),
            state=row["state"],
            items=tuple(
                BatchItem(
                    position=item["position"],
                    charge_id=item["charge_id"],
                    amount=Decimal(item["amount"]) if item["amount"] is not None else None,
                    state=item["state"],
                    entry_id=item["entry_id"],
                    result_id=item["result_id"],
                    message=item["message"],
                )
                for item in items
            ),
        )

    def resumable(self, *, profile: str, base_url: str) -> list[BatchRecord]:
        """Batches of this profile and service with items not done yet, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT b.id FROM batches b JOIN batch_items i ON i.batch_id = b.id"
                " WHERE b.profile = ? AND b.base_url = ? AND i.state IN ('todo', 'running')"
                " ORDER BY b.id DESC",
                (profile, base_url),
            ).fetchall()
        found = [self.get(row[0]) for row in rows]
        return [record for record in found if record is not None]
