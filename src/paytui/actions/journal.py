"""The action journal: every money action taken from this machine, intent first.

Why a journal: when a capture or refund times out, the app must neither send it again nor forget
it. The *intent* (operation, target, amount, a client reference) is committed to disk before the
request goes out, so a crash, a kill or a dropped connection at any moment leaves a row that says
"this may have happened"; reconciliation (`paytui.actions.reconcile`) later reads the service back
and settles it. The History screen lists these rows.

Storage: SQLite at ``platformdirs.user_data_dir("paytui")/journal.sqlite3`` (injectable), WAL
with ``synchronous=FULL`` so a commit is on disk when `record_intent` returns. The file is created
with mode 0600 (SQLite gives its -wal/-shm files the database's mode). The request summary is
built by the executor from an allow-list of fields and never holds a card or bank number, a
token id, a bearer token or a secret.

States::

    pending ──> sent ──> succeeded
       │          ├────> failed          (the service said no, or the request never left)
       │          └────> unknown ──> succeeded | not_applied   (after reconciliation)
       └──────────────> (pending/sent found after a crash are reconciled like unknown)

Every change is a compare-and-set (``UPDATE ... WHERE state IN (...)``), so two writers (a
late-arriving answer and a start-up reconciliation) cannot overwrite each other's verdict.

Proof columns (schema 2): `settle_seconds` is how long after `sent_at` a commit still in flight
could show up (the client's request deadline plus a margin; lengthened when the client is known
to have given up later than that, or the entry was left "sent" by a process that died);
`checked_at` is when the read-back behind the verdict was made. A "not_applied" is *proven* only
when `checked_at` is at or after `sent_at + settle_seconds`; otherwise it is re-checked (start-up,
History, before a repeat).
`never_sent` marks a failure where the request never left (the only "failed" that may be retried:
a refusal is final). `unacknowledged` marks a success found by a read-back the user has not been
shown yet (start-up reconciliation, the check before a repeat): a repeat of the action is then
refused until the user confirms they know about it. Journals of schema 1 are migrated in place.

Audit (schema 3): every entry names the OAuth `client_id` that acted (None for a static token or
the embedded sandbox), and the `refusals` table keeps the attempts stopped before anything was
written or sent (a read-only profile, a missing scope, a charge that cannot be captured, an
earlier attempt not settled). `audit` lists both, newest first, with filters: the History
screen's audit trail and `paytui history`.

Two processes on one journal (the app and `paytui refunds create`, say): `record_intent` with
`guard_since` checks and inserts in one ``BEGIN IMMEDIATE`` transaction, SQLite's lock across
processes, so of two attempts of the same action on the same target only the first is written
and sent; the other gets `JournalConflict` naming it (see `ActionExecutor`).
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from paytui.actions.entry import (
    FINAL_STATES,
    STATES,
    UNRESOLVED_STATES,
    JournalEntry,
    required_time,
)
from paytui.actions.operations import OPERATIONS

__all__ = [
    "FINAL_STATES",
    "STATES",
    "UNRESOLVED_STATES",
    "AuditRow",
    "Journal",
    "JournalConflict",
    "JournalEntry",
    "default_journal_path",
]

#: An operation's name: a key of `paytui.actions.operations.OPERATIONS` (checked in Python, not in
#: SQL, so a new operation needs no rebuild of the journal).
Operation = str
_SCHEMA_VERSION = 4
_TABLE = f"""
CREATE TABLE IF NOT EXISTS actions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    client_reference TEXT NOT NULL UNIQUE,
    profile          TEXT NOT NULL,
    base_url         TEXT NOT NULL,
    operation        TEXT NOT NULL,
    charge_id        TEXT,
    amount           TEXT,
    request_summary  TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ({", ".join(repr(s) for s in STATES)})),
    result_id        TEXT,
    error            TEXT,
    retry_of         INTEGER REFERENCES actions(id),
    created_at       TEXT NOT NULL,
    sent_at          TEXT,
    updated_at       TEXT NOT NULL,
    resolved_at      TEXT,
    settle_seconds   REAL,
    checked_at       TEXT,
    never_sent       INTEGER NOT NULL DEFAULT 0,
    unacknowledged   INTEGER NOT NULL DEFAULT 0,
    client_id        TEXT,
    actor            TEXT,
    owner            TEXT
);
"""
_REFUSALS = """
CREATE TABLE IF NOT EXISTS refusals (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    profile     TEXT NOT NULL,
    base_url    TEXT NOT NULL,
    client_id   TEXT,
    operation   TEXT NOT NULL,
    charge_id   TEXT,
    amount      TEXT,
    reason      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS actions_state ON actions (state);
CREATE INDEX IF NOT EXISTS actions_target ON actions (profile, base_url, operation, charge_id);
CREATE INDEX IF NOT EXISTS actions_service ON actions (base_url, operation, charge_id);
CREATE INDEX IF NOT EXISTS actions_result ON actions (base_url, result_id);
CREATE INDEX IF NOT EXISTS actions_retry_of ON actions (retry_of);
"""
#: Columns of schema 1, copied as they are by the migration.
_V1_COLUMNS = (
    "id, client_reference, profile, base_url, operation, charge_id, amount, request_summary,"
    " state, result_id, error, retry_of, created_at, sent_at, updated_at, resolved_at"
)
#: Columns of schema 2 (schema 3 has the same; its `operation` is no longer a SQL CHECK).
_V2_COLUMNS = _V1_COLUMNS + ", settle_seconds, checked_at, never_sent, unacknowledged"


def _migrate(db: sqlite3.Connection) -> None:
    """Bring the file to schema 4 (a crash in the rebuild leaves the old schema intact).

    Schema 1 lacks the proof columns and its CHECK does not admit "distribute"; schema 2's CHECK
    does not admit "update_refund". SQLite cannot alter a CHECK: the table is rebuilt and the rows
    copied. Schema 3 checks `operation` in Python (`record_intent`), so a new operation needs no
    rebuild again. A schema-1 "not_applied" has no `checked_at`, so it counts as unproven and is
    read back again. Schema 4 adds who acted (`actor`) and keys rows by the service's canonical
    URL (`paytui.config.urls.service_key`).
    """
    version = db.execute("PRAGMA user_version").fetchone()[0]
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
    ).fetchone()
    if version > _SCHEMA_VERSION:
        raise RuntimeError(
            f"the action journal is of a newer paytui (schema {version}); update paytui"
        )
    if exists and version < 3:  # schema 3 to 4 adds a column in place (below)
        columns = _V1_COLUMNS if version < 2 else _V2_COLUMNS
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("ALTER TABLE actions RENAME TO actions_old")
            db.execute(_TABLE.replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE"))
            db.execute(f"INSERT INTO actions ({columns}) SELECT {columns} FROM actions_old")
            db.execute("DROP TABLE actions_old")
            db.execute("PRAGMA user_version = 3")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            db.execute("PRAGMA foreign_keys = ON")
    if exists:
        present = {row[1] for row in db.execute("PRAGMA table_info(actions)")}
        if "client_id" not in present:  # schema 2: one nullable column, added in place
            db.execute("ALTER TABLE actions ADD COLUMN client_id TEXT")
        if "actor" not in present:  # schema 3: who acted
            db.execute("ALTER TABLE actions ADD COLUMN actor TEXT")
        if "owner" not in present:  # schema 3: which process on which machine sends it
            db.execute("ALTER TABLE actions ADD COLUMN owner TEXT")
        if version < 4:  # schema 4: one key per service
            _canonical_services(db)
    db.executescript(_TABLE + _REFUSALS + _INDEXES + f"PRAGMA user_version = {_SCHEMA_VERSION};")


def _canonical_services(db: sqlite3.Connection) -> None:
    """Schema 4 keys every row by the service's canonical URL (`service_key`): two spellings of
    one service (``127.0.0.1`` and ``localhost``) share one guard, and their past too."""
    from paytui.config.urls import service_key

    for table in ("actions", "refusals"):
        has = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        if not has:
            continue
        for (url,) in db.execute(f"SELECT DISTINCT base_url FROM {table}").fetchall():
            key = service_key(url)
            if key != url:
                db.execute(f"UPDATE {table} SET base_url = ? WHERE base_url = ?", (key, url))


def default_journal_path() -> Path:
    """``<user data dir>/journal.sqlite3``; imported lazily so importing this module stays cheap."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "journal.sqlite3"


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JournalConflict(Exception):
    """`record_intent(guard_since=...)` found the same action on the same target in the way: one
    not settled yet (another process is sending it) or one done since the caller began."""

    def __init__(self, entry: JournalEntry) -> None:
        super().__init__(f"action #{entry.id} ({entry.state}) is in the way")
        self.entry = entry


@dataclass(frozen=True)
class AuditRow:
    """One line of the audit trail: a journaled action, or a refused attempt (`refused`)."""

    kind: Literal["action", "refused"]
    id: int
    time: datetime
    profile: str
    base_url: str
    client_id: str | None
    operation: str
    charge_id: str | None
    amount: Decimal | None
    outcome: str
    """The entry's state, or "refused"."""
    reason: str | None
    """The service's (or the policy's) reason; None for a success."""
    result_id: str | None = None


def _create_private_file(path: Path) -> None:
    """Create `path` as 0600 (and its directory as 0700) before SQLite opens it.

    Creating it ourselves, rather than chmod-ing after SQLite did, leaves no moment in which the
    file exists with the umask's (often world-readable) mode.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


class Journal:
    """The action journal over one SQLite file. Thread-safe: the executor calls it from worker
    threads (`asyncio.to_thread`) so an fsync never blocks the UI's event loop."""

    def __init__(
        self, path: Path | str | None = None, *, clock: Callable[[], datetime] = _now
    ) -> None:
        self.path = Path(path) if path is not None else default_journal_path()
        self._clock = clock
        self._lock = threading.Lock()
        _create_private_file(self.path)
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=10.0
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode = WAL")
        # FULL: the WAL is fsynced at every commit, so "intent written" means "on disk".
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA foreign_keys = ON")
        _migrate(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- writes

    def record_intent(
        self,
        *,
        profile: str,
        base_url: str,
        operation: str,
        charge_id: str | None,
        amount: Decimal | None,
        request_summary: dict[str, Any],
        retry_of: int | None = None,
        client_reference: str | None = None,
        settle_seconds: float | None = None,
        client_id: str | None = None,
        guard_since: int | None = None,
        guard_in_flight: Iterable[int] = (),
        target: tuple[str, str] | None = None,
        actor: str | None = None,
        owner: str | None = None,
    ) -> JournalEntry:
        """Write (and commit, durably) the intent of an action; returns the "pending" entry.

        `settle_seconds`: how long after sending a commit still in flight could show up.
        `guard_since`: the last entry id the caller had seen when it began (`last_id`). Then, in
        the same transaction as the insert, an entry of the same action on the same target
        (`charge_id`; where the target is not a charge, `target`: the summary key that holds it and
        its value, such as a new charge's `account_id`) that is not settled, or that succeeded after
        `guard_since`, raises `JournalConflict` and nothing is written. `guard_in_flight`: the
        entries that were unsettled when the caller looked (their ids are at or below
        `guard_since`): one that succeeded since was not seen either, and is in the way too.
        The guard is the service's (`base_url`), not the profile's: two profiles of one
        service share it."""
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}")
        reference = client_reference or uuid.uuid4().hex
        now = _iso(self._clock())
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if guard_since is not None:
                    blocker = self._blocker(
                        base_url,
                        operation,
                        charge_id,
                        target,
                        guard_since,
                        frozenset(guard_in_flight),
                    )
                    if blocker is not None:
                        raise JournalConflict(blocker)
                cursor = self._db.execute(
                    "INSERT INTO actions (client_reference, profile, base_url, operation,"
                    " charge_id, amount, request_summary, state, retry_of, created_at,"
                    " updated_at, settle_seconds, client_id, actor, owner)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)",
                    (
                        reference,
                        profile,
                        base_url,
                        operation,
                        charge_id,
                        str(amount) if amount is not None else None,
                        json.dumps(request_summary, sort_keys=True, default=str),
                        retry_of,
                        now,
                        now,
                        settle_seconds,
                        client_id,
                        actor,
                        owner,
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            entry_id = cursor.lastrowid
        assert entry_id is not None  # an INSERT always has one
        entry = self.get(entry_id)
        assert entry is not None
        return entry

    def _blocker(
        self,
        base_url: str,
        operation: str,
        charge_id: str | None,
        target: tuple[str, str] | None,
        since: int,
        in_flight: frozenset[int],
    ) -> JournalEntry | None:
        """The first entry of the same action and target (on the same service, by any profile)
        that is unsettled, or succeeded after `since`, or succeeded while it was `in_flight` when
        the caller looked (called inside `record_intent`'s transaction, lock held)."""
        unsettled = sorted(UNRESOLVED_STATES)
        flying = sorted(in_flight)
        sql = (
            "SELECT * FROM actions WHERE base_url = ? AND operation = ?"
            f" AND (state IN ({', '.join('?' for _ in unsettled)})"
            " OR (state = 'succeeded' AND (id > ?"
            f" OR id IN ({', '.join('?' for _ in flying) or 'NULL'}))))"
        )
        params: builtins.list[Any] = [base_url, operation, *unsettled, since, *flying]
        if charge_id is not None:
            sql += " AND charge_id = ?"
            params.append(charge_id)
        for row in self._db.execute(sql + " ORDER BY id", params).fetchall():
            entry = JournalEntry._from_row(row)
            if charge_id is None and target is not None:
                key, value = target
                if entry.request_summary.get(key) != value:
                    continue  # a new charge: the same account only (a session: the same target)
            return entry
        return None

    def last_id(self) -> int:
        """The newest entry's id (0 for an empty journal): what `guard_since` is measured by, and
        where a batch starts counting its own."""
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(id), 0) FROM actions").fetchone()
        return int(row[0])

    def record_refusal(
        self,
        *,
        profile: str,
        base_url: str,
        operation: str,
        charge_id: str | None,
        amount: Decimal | None,
        reason: str,
        client_id: str | None = None,
    ) -> None:
        """Keep an attempt refused before anything was written or sent (for the audit trail)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO refusals (profile, base_url, client_id, operation, charge_id,"
                " amount, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    profile,
                    base_url,
                    client_id,
                    operation,
                    charge_id,
                    str(amount) if amount is not None else None,
                    reason,
                    _iso(self._clock()),
                ),
            )

    def transition(
        self,
        entry_id: int,
        new_state: str,
        *,
        expected: Iterable[str],
        result_id: str | None = None,
        error: str | None = None,
        amount: Decimal | None = None,
        charge_id: str | None = None,
        at: datetime | None = None,
        checked_at: datetime | None = None,
        never_sent: bool | None = None,
        unacknowledged: bool | None = None,
        settle_seconds: float | None = None,
    ) -> bool:
        """Move an entry to `new_state` if it is in one of `expected`; False when it was not.

        `result_id`, `amount`, `charge_id` are only written when given (an outcome never erases
        what an earlier step learnt); `error` is written as given (None clears it). `at` is the
        sending time recorded with "sent" (the executor's clock, which proofs are measured by);
        `checked_at` when the read-back behind this verdict was made. `settle_seconds` may only
        lengthen the entry's window (learnt later: the request left, or was given up, later than
        `sent_at` says); a shorter one is ignored.
        """
        if new_state not in STATES:
            raise ValueError(f"unknown state {new_state!r}")
        expected = tuple(expected)
        now = _iso(self._clock())
        sets = ["state = ?", "updated_at = ?", "error = ?"]
        values: list[Any] = [new_state, now, error]
        if new_state == "sent":
            sets.append("sent_at = ?")
            values.append(_iso(at) if at is not None else now)
        if checked_at is not None:
            sets.append("checked_at = ?")
            values.append(_iso(checked_at))
        if settle_seconds is not None:
            sets.append("settle_seconds = MAX(COALESCE(settle_seconds, 0), ?)")
            values.append(settle_seconds)
        for column, flag in (("never_sent", never_sent), ("unacknowledged", unacknowledged)):
            if flag is not None:
                sets.append(f"{column} = ?")
                values.append(int(flag))
        if new_state in FINAL_STATES:
            sets.append("resolved_at = ?")
            values.append(now)
        for column, value in (("result_id", result_id), ("charge_id", charge_id)):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        if amount is not None:
            sets.append("amount = ?")
            values.append(str(amount))
        marks = ", ".join("?" for _ in expected)
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE actions SET {', '.join(sets)} WHERE id = ? AND state IN ({marks})",
                (*values, entry_id, *expected),
            )
        return cursor.rowcount == 1

    # ----------------------------------------------------------------- reads

    def get(self, entry_id: int) -> JournalEntry | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM actions WHERE id = ?", (entry_id,)).fetchone()
        return JournalEntry._from_row(row) if row else None

    def by_reference(self, client_reference: str) -> JournalEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM actions WHERE client_reference = ?", (client_reference,)
            ).fetchone()
        return JournalEntry._from_row(row) if row else None

    def list(
        self,
        *,
        limit: int = 200,
        offset: int = 0,
        profile: str | None = None,
        base_url: str | None = None,
    ) -> list[JournalEntry]:
        """Entries newest first (the History screen), optionally of one profile / service."""
        where, params = self._scope(profile, base_url)
        with self._lock:
            rows = self._db.execute(
                f"SELECT * FROM actions {where} ORDER BY id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def unresolved(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
    ) -> builtins.list[JournalEntry]:
        """Entries still pending / sent / unknown, oldest first (the order they happened in)."""
        return self._in_states(UNRESOLVED_STATES, profile, base_url, operation, charge_id)

    def to_check(
        self,
        default_seconds: float,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
    ) -> builtins.list[JournalEntry]:
        """Entries whose outcome is not proven, oldest first: pending / sent / unknown, and
        "not_applied" verdicts whose read-back was made too early (see `JournalEntry.proven`)."""
        states = {*UNRESOLVED_STATES, "not_applied"}
        entries = self._in_states(states, profile, base_url, operation, charge_id)
        return [e for e in entries if not e.proven(default_seconds)]

    def _in_states(
        self,
        states: Iterable[str],
        profile: str | None,
        base_url: str | None,
        operation: str | None,
        charge_id: str | None,
    ) -> builtins.list[JournalEntry]:
        """Entries in `states` (of one profile, service, operation, charge if given), by id."""
        wanted = sorted(states)
        where, params = self._scope(profile, base_url)
        clauses = [where.removeprefix("WHERE ")] if where else []
        clauses.append(f"state IN ({', '.join('?' for _ in wanted)})")
        params += wanted
        for column, value in (("operation", operation), ("charge_id", charge_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        with self._lock:
            rows = self._db.execute(
                f"SELECT * FROM actions WHERE {' AND '.join(clauses)} ORDER BY id", params
            ).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def unacknowledged_successes(
        self, *, base_url: str, operation: str, charge_id: str | None
    ) -> builtins.list[JournalEntry]:
        """Successes found by a read-back that the user was not shown yet (on the service, by
        any profile), oldest first."""
        sql = (
            "SELECT * FROM actions WHERE base_url = ? AND operation = ?"
            " AND state = 'succeeded' AND unacknowledged = 1"
        )
        params: builtins.list[Any] = [base_url, operation]
        if charge_id is not None:  # None: any target (a new charge is matched by account)
            sql += " AND charge_id = ?"
            params.append(charge_id)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id", params).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def later_of(self, entry: JournalEntry) -> builtins.list[JournalEntry]:
        """Entries of the same service and operation (any profile) made after `entry`, oldest
        first (the caller narrows them to the same target)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM actions WHERE base_url = ? AND operation = ? AND id > ? ORDER BY id",
                (entry.base_url, entry.operation, entry.id),
            ).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def entries_for(
        self,
        *,
        base_url: str,
        operation: str,
        charge_id: str,
        after_id: int = 0,
        profile: str | None = None,
    ) -> builtins.list[JournalEntry]:
        """Every entry of `operation` on `charge_id` (on the service, by any profile: `profile`
        is accepted and ignored) made after entry `after_id`, oldest first (a bulk action asks
        whether an item was already acted on since the batch began; a money action which ones
        were still in flight when the person looked)."""
        del profile
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM actions WHERE base_url = ? AND operation = ?"
                " AND charge_id = ? AND id > ? ORDER BY id",
                (base_url, operation, charge_id, after_id),
            ).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def successes_since(
        self, *, base_url: str, operation: str, charge_id: str | None, since: datetime
    ) -> builtins.list[JournalEntry]:
        """Successes of `operation` on `charge_id` (None: any target) on the service, by anyone
        on this journal, whose outcome was recorded at or after `since`, oldest first: what "a
        recent identical action" is looked for in."""
        sql = (
            "SELECT * FROM actions WHERE base_url = ? AND operation = ? AND state = 'succeeded'"
            " AND COALESCE(resolved_at, updated_at) >= ?"
        )
        params: builtins.list[Any] = [base_url, operation, _iso(since)]
        if charge_id is not None:
            sql += " AND charge_id = ?"
            params.append(charge_id)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id", params).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def by_result(self, base_url: str, result_id: str) -> JournalEntry | None:
        """The entry that made `result_id` (a refund, a capture) on the service, if journaled:
        who did it and when, for telling a person what changed."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM actions WHERE base_url = ? AND result_id = ? ORDER BY id LIMIT 1",
                (base_url, result_id),
            ).fetchone()
        return JournalEntry._from_row(row) if row else None

    def acknowledge(self, entry_id: int) -> None:
        """The user was told about this entry's outcome."""
        with self._lock:
            self._db.execute("UPDATE actions SET unacknowledged = 0 WHERE id = ?", (entry_id,))

    def retries_of(self, entry_id: int) -> builtins.list[JournalEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM actions WHERE retry_of = ? ORDER BY id", (entry_id,)
            ).fetchall()
        return [JournalEntry._from_row(row) for row in rows]

    def audit(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        client_id: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
        outcome: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = 500,
        batch: int = 500,
    ) -> Iterator[AuditRow]:
        """The audit trail, newest first: actions and refused attempts, filtered by any of
        profile, service, client id, operation, charge, outcome (a state, or "refused") and time
        (`since` inclusive, `until` exclusive). Read `batch` rows at a time, so exporting a long
        history does not hold it all; `limit` None: every row."""
        clauses: builtins.list[str] = []
        params: builtins.list[Any] = []
        for column, value in (
            ("profile", profile),
            ("base_url", base_url),
            ("client_id", client_id),
            ("operation", operation),
            ("charge_id", charge_id),
            ("outcome", outcome),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            clauses.append("time >= ?")
            params.append(_iso(since))
        if until is not None:
            clauses.append("time < ?")
            params.append(_iso(until))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = (
            "SELECT * FROM ("
            " SELECT 'action' AS kind, id, created_at AS time, profile, base_url, client_id,"
            " operation, charge_id, amount, state AS outcome, error AS reason, result_id"
            " FROM actions"
            " UNION ALL"
            " SELECT 'refused', id, created_at, profile, base_url, client_id, operation,"
            " charge_id, amount, 'refused', reason, NULL FROM refusals"
            f") {where} ORDER BY time DESC, kind DESC, id DESC LIMIT ? OFFSET ?"
        )
        offset = 0
        left = limit
        while left is None or left > 0:
            size = batch if left is None else min(batch, left)
            with self._lock:
                rows = self._db.execute(sql, (*params, size, offset)).fetchall()
            for row in rows:
                yield AuditRow(
                    kind=row["kind"],
                    id=row["id"],
                    time=required_time(row["time"]),
                    profile=row["profile"],
                    base_url=row["base_url"],
                    client_id=row["client_id"],
                    operation=row["operation"],
                    charge_id=row["charge_id"],
                    amount=Decimal(row["amount"]) if row["amount"] is not None else None,
                    outcome=row["outcome"],
                    reason=row["reason"],
                    result_id=row["result_id"],
                )
            if len(rows) < size:
                return
            offset += size
            if left is not None:
                left -= size

    @staticmethod
    def _scope(profile: str | None, base_url: str | None) -> tuple[str, builtins.list[Any]]:
        clauses: builtins.list[str] = []
        params: builtins.list[Any] = []
        if profile is not None:
            clauses.append("profile = ?")
            params.append(profile)
        if base_url is not None:
            clauses.append("base_url = ?")
            params.append(base_url)
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params
