"""The sandbox's SQLite store: one connection guarded by a lock, WAL mode, explicit transactions.

FastAPI runs the sync endpoints in a thread pool; a single connection behind an `RLock` keeps every
read-modify-write (capture once, refund never more than what is left) atomic without relying on
SQLite's busy retries, and the queries are indexed so holding the lock stays short.

This module also holds the small resource families that need no more than a few statements:
OAuth access tokens, merchants, accounts (with the boarding clock), card tokens, plugin sessions.
Charges, refunds and distributions live in `ledger.py`; list searches in `search.py`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from paytui.sandbox import schema
from paytui.sandbox.client_watch import check_client
from paytui.sandbox.errors import Conflict, NotFound
from paytui.sandbox.families import seed_customers
from paytui.sandbox.wire import iso_ms, now_utc

BOARDING_NEXT = {
    "draft": "submitted",
    "submitted": "in_review",
    "in_review": "info_required",
    "info_required": "approved",
    "suspended": "approved",
}
#: The demo account on the automatic clock never stops: once approved, a periodic review suspends
#: it after `REVIEW_AFTER_STEPS` intervals and it is approved again one interval later, so watch
#: mode shows a change on a sandbox that has run for hours (issue 22, "a newcomer sees it work").
AUTO_NEXT = {**BOARDING_NEXT, "approved": "suspended"}
REVIEW_AFTER_STEPS = 6
STATUS_MESSAGES = {
    "draft": "Application started; the merchant has not submitted it yet.",
    "submitted": "Application submitted; waiting for underwriting to pick it up.",
    "in_review": "Underwriting is reviewing the application and the owner's identity.",
    "info_required": "Underwriting needs a voided check for the deposit account before approval.",
    "approved": "Account approved; card and bank payments are enabled.",
    "declined": "Application declined: the business type is not supported.",
    "suspended": "Processing suspended pending a risk review of recent chargebacks.",
    "closed": "Account closed at the merchant's request; no new payments are accepted.",
}


def dumps(value: Any) -> str:
    """Compact JSON, the form docs are stored and served in."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads_doc(text: str | bytes) -> dict[str, Any]:
    """A stored document back: every doc the sandbox writes is a JSON object."""
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise TypeError(f"a stored document is a JSON object, not {type(doc).__name__}")
    return doc


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with WAL and sane pragmas."""
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-65536")
    return conn


class Store:
    """The database of one sandbox app, plus its clock and boarding interval."""

    def __init__(
        self,
        path: Path | str,
        *,
        boarding_interval: float = 20.0,
        clock: Callable[[], datetime] = now_utc,
    ) -> None:
        self.path = Path(path)
        self.boarding_interval = boarding_interval
        self.clock = clock
        self._lock = threading.RLock()
        self._conn = connect(self.path)
        with self._lock:  # executescript manages its own transactions
            schema.create_tables(self._conn)
            complete = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ?", (schema.LAST_OBJECT,)
            ).fetchone()
            if complete is None:  # new, or built before the last index or trigger was added
                schema.create_indexes(self._conn)
        with self.write() as conn:
            conn.execute(
                "UPDATE accounts SET auto_since = ? WHERE auto_boarding = 1 AND auto_since IS NULL",
                (self.clock().timestamp(),),
            )
            seed_customers(conn)  # a database older than the customers table gets them too

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: committed when the block ends, rolled back on any error —
        and when the request's client has stopped waiting (`client_watch.check_client`)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                check_client()  # a client that stopped waiting gets nothing committed
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def now_iso(self) -> str:
        return iso_ms(self.clock())

    # -- OAuth access tokens -------------------------------------------------------------------

    @staticmethod
    def _hash(token: str) -> str:
        """Access tokens are stored hashed: a copied database file grants nothing."""
        return hashlib.sha256(token.encode()).hexdigest()

    def save_access_token(
        self, token: str, client_id: str, scopes: frozenset[str], ttl: int
    ) -> None:
        expires_at = self.clock().timestamp() + ttl
        with self.write() as conn:
            conn.execute(
                "DELETE FROM access_tokens WHERE expires_at < ?", (expires_at - ttl - 86400,)
            )
            conn.execute(
                "INSERT INTO access_tokens VALUES (?, ?, ?, ?)",
                (self._hash(token), client_id, " ".join(sorted(scopes)), expires_at),
            )

    def token_scopes(self, token: str) -> frozenset[str] | None:
        """The scopes of a live token; None when unknown or expired."""
        with self.read() as conn:
            row = conn.execute(
                "SELECT scopes, expires_at FROM access_tokens WHERE token_hash = ?",
                (self._hash(token),),
            ).fetchone()
        if row is None or row[1] <= self.clock().timestamp():
            return None
        return frozenset(row[0].split())

    def token_client(self, token: str) -> str | None:
        """The client a live token was issued to; None when unknown or expired."""
        with self.read() as conn:
            row = conn.execute(
                "SELECT client_id, expires_at FROM access_tokens WHERE token_hash = ?",
                (self._hash(token),),
            ).fetchone()
        if row is None or row[1] <= self.clock().timestamp():
            return None
        return str(row[0])

    # -- merchants and accounts ----------------------------------------------------------------

    def get_merchant(self, merchant_id: str) -> dict[str, Any]:
        with self.read() as conn:
            row = conn.execute(
                "SELECT doc FROM merchants WHERE merchant_id = ?", (merchant_id,)
            ).fetchone()
        if row is None:
            raise NotFound(f"merchant {merchant_id} not found")
        return loads_doc(row[0])

    def refresh_boarding(self) -> None:
        """Advance accounts on the automatic boarding clock by the steps due since last time.

        Computed lazily (on reads and before charges) rather than by a timer, so nothing runs in
        the background and a restarted sandbox catches up on its first read. Each status waits
        one interval, except `approved`, which waits `REVIEW_AFTER_STEPS` (see `AUTO_NEXT`).
        """
        now = self.clock().timestamp()
        with self.read() as conn:
            due = conn.execute(
                "SELECT 1 FROM accounts WHERE auto_boarding = 1 AND auto_since <= ? LIMIT 1",
                (now - self.boarding_interval,),
            ).fetchone()
        if due is None:
            return
        with self.write() as conn:
            rows = conn.execute(
                "SELECT account_id, status, auto_since, doc FROM accounts"
                " WHERE auto_boarding = 1 AND auto_since <= ?",
                (now - self.boarding_interval,),
            ).fetchall()
            for account_id, old_status, old_since, doc_text in rows:
                status, since = self._boarding_steps(old_status, old_since, now)
                if status == old_status:
                    continue
                doc = loads_doc(doc_text)
                doc.update(
                    status=status,
                    status_message=STATUS_MESSAGES[status],
                    last_updated_timestamp=self.now_iso(),
                )
                conn.execute(
                    "UPDATE accounts SET status = ?, doc = ?, auto_since = ?, auto_boarding = ?"
                    " WHERE account_id = ?",
                    (status, dumps(doc), since, int(status in AUTO_NEXT), account_id),
                )

    def _boarding_steps(self, status: str, since: float, now: float) -> tuple[str, float]:
        """The status reached by `now` from `status` entered at `since`, and when it was entered."""
        interval = self.boarding_interval
        cycle = interval * (REVIEW_AFTER_STEPS + 1)  # approved -> suspended -> approved
        while status in AUTO_NEXT:
            wait = interval * (REVIEW_AFTER_STEPS if status == "approved" else 1)
            if since + wait > now:
                break
            if status == "approved" and now - since > 2 * cycle:
                since += (now - since) // cycle * cycle - cycle  # whole review cycles at once
                continue
            since += wait
            status = AUTO_NEXT[status]
        return status, since

    def get_account(self, account_id: str) -> dict[str, Any]:
        self.refresh_boarding()
        with self.read() as conn:
            row = conn.execute(
                "SELECT doc FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
        if row is None:
            raise NotFound(f"account {account_id} not found")
        return loads_doc(row[0])

    def advance_account(self, account_id: str) -> dict[str, Any]:
        """Move an account one boarding step (409 from a status with no next step)."""
        self.refresh_boarding()
        with self.write() as conn:
            row = conn.execute(
                "SELECT status, doc FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
            if row is None:
                raise NotFound(f"account {account_id} not found")
            status, doc_text = row
            if status not in BOARDING_NEXT:
                raise Conflict(f"account {account_id} is {status}; boarding has no next step")
            doc = loads_doc(doc_text)
            status = BOARDING_NEXT[status]
            doc.update(
                status=status,
                status_message=STATUS_MESSAGES[status],
                last_updated_timestamp=self.now_iso(),
            )
            conn.execute(
                "UPDATE accounts SET status = ?, doc = ?, auto_since = ? WHERE account_id = ?",
                (status, dumps(doc), self.clock().timestamp(), account_id),
            )
        return doc

    def insert_account(self, doc: dict[str, Any]) -> None:
        auto = "auto" in doc.get("attributes", {}).get("sandbox_boarding", [])
        with self.write() as conn:
            conn.execute(
                "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    doc["account_id"],
                    doc["merchant_id"],
                    doc["status"],
                    doc["created_timestamp"],
                    int(auto),
                    self.clock().timestamp() if auto else None,
                    dumps(doc),
                ),
            )

    # -- card tokens ---------------------------------------------------------------------------

    def get_token(self, token_id: str) -> dict[str, Any]:
        with self.read() as conn:
            row = conn.execute("SELECT doc FROM tokens WHERE token_id = ?", (token_id,)).fetchone()
        if row is None:
            raise NotFound(f"token {token_id} not found")
        return loads_doc(row[0])

    def save_token(self, doc: dict[str, Any], *, new: bool) -> None:
        with self.write() as conn:
            if new:
                conn.execute(
                    "INSERT INTO tokens VALUES (?, ?, ?, ?)",
                    (doc["token_id"], doc["account_id"], doc["created_timestamp"], dumps(doc)),
                )
            else:
                conn.execute(
                    "UPDATE tokens SET doc = ? WHERE token_id = ?", (dumps(doc), doc["token_id"])
                )

    # -- plugin sessions -----------------------------------------------------------------------

    def insert_session(self, doc: dict[str, Any]) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO plugin_sessions VALUES (?, ?, ?, ?)",
                (doc["session_id"], doc["type"], doc["created_timestamp"], dumps(doc)),
            )

    def delete_session(self, session_id: str) -> None:
        with self.write() as conn:
            deleted = conn.execute(
                "DELETE FROM plugin_sessions WHERE session_id = ?", (session_id,)
            ).rowcount
        if not deleted:
            raise NotFound(f"plugin session {session_id} not found")
