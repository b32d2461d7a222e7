"""The journal's trail: every write chained to the one before, and read back as the audit trail.

Every room of the journal (`paytui.actions.journal`) works over one `Store` through `Room`: its
clock, its advisory-lock keys, and `Room._append`, which chains a row (as it is now) to the trail
in the writer's own transaction. `TrailRoom` reads it: where a watcher starts (`head`), what
changed since (`changes_after`), whether the chain holds (`verify`), and the audit trail of
actions and refused attempts (`audit`) that History and `paytui history` list.

A link's hash is SHA-256 over the previous link's hash, its kind and the row's canonical JSON;
`verify` walks the chain from its first link and names the first broken one, then checks that
every entry and refusal is what its last link says.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal

from paytui.actions.entry import JournalEntry, required_time
from paytui.actions.journal_anchor import Anchor, Head
from paytui.actions.journal_store import Listener, Store, lock_key, placeholders

__all__ = [
    "GENESIS",
    "AuditRow",
    "Room",
    "TrailReport",
    "TrailRoom",
    "canonical",
    "digest",
    "iso",
    "link",
    "now",
]

#: The hash the first link follows.
GENESIS = "0" * 64


def now() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical(row: Mapping[str, Any]) -> str:
    """A row as the trail keeps it: one JSON text, the same for the same values on both engines."""
    return json.dumps(dict(row), sort_keys=True, separators=(",", ":"), default=str)


def _whole(value: Any) -> Any:
    """A whole float as an int: SQLite's RETURNING gives a REAL column's 30.0 as 30 (the value
    as stored), its SELECT as 30.0; PostgreSQL gives 30.0 to both."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def digest(row: Mapping[str, Any]) -> str:
    """What an entry (or refusal) and its last link in the trail are compared by: the row's
    canonical JSON, with a number the same however the engine returned it (`_whole`)."""
    plain = {key: _whole(row[key]) for key in row.keys()}  # noqa: SIM118 (a sqlite3.Row)
    return hashlib.sha256(canonical(plain).encode()).hexdigest()


def link(prev_hash: str, kind: str, body: str) -> str:
    return hashlib.sha256(f"{prev_hash}\n{kind}\n{body}".encode()).hexdigest()


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
    agent: str | None = None
    machine: str | None = None


@dataclass(frozen=True)
class TrailReport:
    """What `Journal.verify` found: links checked, entries matched, the first broken link."""

    links: int
    entries: int
    older: int
    """Entries written before the journal had a trail (an older paytui): not covered."""
    broken: str | None
    """The first broken link, in words; None when the whole trail holds."""
    anchored: Head | None = None
    """The head this paytui had recorded outside the database and found in the chain as it
    saw it (`paytui.actions.journal_anchor`); None: no anchor was asked or none was known."""

    @property
    def ok(self) -> bool:
        return self.broken is None


def _on(head: Head) -> str:
    return f" on {head.seen_at:%Y-%m-%d %H:%M} UTC" if head.seen_at is not None else ""


class Room:
    """What every room of the journal works over: the one store (one connection per file per
    process: `paytui.actions.journal_store.open_sqlite`), the clock, and the trail every write
    is chained to. `paytui.actions.journal.Journal` is all the rooms over one store."""

    _store: Store
    _clock: Callable[[], datetime]
    #: The trail's head: every write takes it, so links are appended one after the other.
    _trail_key: int

    def _key(self, *parts: object) -> int:
        """An advisory-lock key of this journal (its namespace: one database schema)."""
        return lock_key(self._store.namespace, *parts)

    @property
    def kind(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self._store.kind

    @property
    def where(self) -> str:
        """Where the journal is, for people: its file, or its URL with the password masked."""
        return self._store.where

    def _append(
        self,
        kind: str,
        row: Mapping[str, Any],
        *,
        action_id: int | None = None,
        refusal_id: int | None = None,
    ) -> None:
        """Chain `row` (as it is now) to the trail (in a transaction that holds the trail key)."""
        head = self._store.one("SELECT seq, hash FROM trail ORDER BY seq DESC LIMIT 1")
        seq = int(head["seq"]) + 1 if head else 1
        prev = str(head["hash"]) if head else GENESIS
        body = canonical(row)
        self._store.notify()  # delivered at commit, to every paytui listening on this journal
        self._store.run(
            "INSERT INTO trail (seq, kind, action_id, refusal_id, at, body, prev_hash, hash)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                kind,
                action_id,
                refusal_id,
                iso(self._clock()),
                body,
                prev,
                link(prev, kind, body),
            ),
        )


class TrailRoom(Room):
    """The trail read back: its head, the changes since a link, its verification, the audit."""

    def head(self) -> int:
        """The trail's last link (0 for an empty trail): where a watcher starts."""
        row = self._store.one("SELECT COALESCE(MAX(seq), 0) AS head FROM trail")
        return int(row["head"]) if row else 0

    def changes_after(
        self, seq: int, *, limit: int = 500
    ) -> tuple[int, builtins.list[JournalEntry]]:
        """The entries written or moved since link `seq` (each once, as they are now) and the
        link to ask from next time: what other agents' paytuis learn live."""
        rows = self._store.rows(
            "SELECT seq, action_id FROM trail WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
        )
        if not rows:
            return seq, []
        ids = sorted({int(r["action_id"]) for r in rows if r["action_id"] is not None})
        found = self._store.rows(
            f"SELECT * FROM actions WHERE id IN ({placeholders(ids)}) ORDER BY id", ids
        )
        entries = [JournalEntry._from_row(row) for row in found]
        return int(rows[-1]["seq"]), entries

    def listener(self) -> Listener:
        """Something to wait on for another writer's change (PostgreSQL: ``LISTEN``; a file:
        a short poll). The caller closes it."""
        return self._store.listener()

    @property
    def identity(self) -> str:
        """Which journal this is, for the anchor: its engine, where (a file by its real path)
        and its schema."""
        where = self._store.where
        if self._store.kind == "sqlite":
            where = os.path.realpath(where)
        return f"{self._store.kind} {where} {self._store.namespace}"

    def head_link(self) -> Head | None:
        """The trail's newest link (None: an empty trail)."""
        row = self._store.one("SELECT seq, hash FROM trail ORDER BY seq DESC LIMIT 1")
        return Head(int(row["seq"]), str(row["hash"])) if row else None

    def remember_head(self, anchor: Anchor) -> None:
        """Record the trail's newest link as seen by this paytui (outside the database)."""
        head = self.head_link()
        if head is not None:
            anchor.record(self.identity, Head(head.seq, head.hash, self._clock()))

    def verify(self, *, batch: int = 1000, anchor: Anchor | None = None) -> TrailReport:
        """Walk the trail from its first link: each link's hash must chain to the one before, the
        sequence must have no gap, and every entry and refusal must be what its last link says
        (nothing changed or deleted behind the journal's back). Stops at the first broken link.
        With `anchor`: the link this paytui last recorded must be in the chain as it saw it
        (nothing at or before it removed or rewritten, hashes recomputed or not); a trail that
        holds moves the anchor to its head."""
        report = self._walk(batch, anchor.get(self.identity) if anchor is not None else None)
        if report.ok and anchor is not None:
            self.remember_head(anchor)
        return report

    def _walk(self, batch: int, anchored: Head | None) -> TrailReport:
        links = 0
        prev = GENESIS
        last_action: dict[int, str] = {}
        last_refusal: dict[int, str] = {}
        first_action: int | None = None
        first_refusal: int | None = None
        seq = 0
        while True:
            rows = self._store.rows(
                "SELECT * FROM trail WHERE seq > ? ORDER BY seq LIMIT ?", (seq, batch)
            )
            for row in rows:
                if row["seq"] != seq + 1:
                    return TrailReport(
                        links, 0, 0, f"link {seq + 1} is missing (the next is {row['seq']})"
                    )
                seq = row["seq"]
                if row["prev_hash"] != prev:
                    return TrailReport(links, 0, 0, f"link {seq} does not follow link {seq - 1}")
                if link(prev, row["kind"], row["body"]) != row["hash"]:
                    return TrailReport(
                        links, 0, 0, f"link {seq} was altered (its hash does not match)"
                    )
                prev = row["hash"]
                links += 1
                if anchored is not None and seq == anchored.seq and prev != anchored.hash:
                    return TrailReport(
                        links,
                        0,
                        0,
                        f"link {seq} is not the one this paytui saw{_on(anchored)}: the trail was"
                        " rewritten at or before it (hashes recomputed)",
                    )
                said = digest(json.loads(row["body"]))
                if row["action_id"] is not None:
                    last_action[row["action_id"]] = said
                    if first_action is None and row["kind"] in {"intent", "import"}:
                        first_action = row["action_id"]  # the first entry born with a trail
                if row["refusal_id"] is not None:
                    last_refusal[row["refusal_id"]] = said
                    if first_refusal is None:
                        first_refusal = row["refusal_id"]
            if len(rows) < batch:
                break
        if anchored is not None and seq < anchored.seq:
            return TrailReport(
                links,
                0,
                0,
                f"the trail ends at link {seq}, but this paytui saw link {anchored.seq}"
                f"{_on(anchored)}:"
                " its newest links were removed",
            )
        entries = older = 0
        sources: builtins.list[tuple[str, dict[int, str], int | None, str]] = [
            ("actions", last_action, first_action, "entry"),
            ("refusals", last_refusal, first_refusal, "refusal"),
        ]
        for table, last, first, noun in sources:
            seen: set[int] = set()
            after = 0
            while True:
                rows = self._store.rows(
                    f"SELECT * FROM {table} WHERE id > ? ORDER BY id LIMIT ?", (after, batch)
                )
                for row in rows:
                    after = row["id"]
                    linked = last.get(row["id"])
                    if linked is None:
                        if first is None or row["id"] < first:
                            older += 1
                            continue
                        return TrailReport(
                            links, entries, older, f"{noun} #{row['id']} has no link in the trail"
                        )
                    if digest(row) != linked:
                        return TrailReport(
                            links, entries, older, f"{noun} #{row['id']} was changed outside paytui"
                        )
                    seen.add(row["id"])
                    entries += 1
                if len(rows) < batch:
                    break
            missing = sorted(set(last) - seen)
            if missing:
                return TrailReport(links, entries, older, f"{noun} #{missing[0]} was deleted")
        return TrailReport(links, entries, older, None, anchored)

    def audit(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        client_id: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
        outcome: str | None = None,
        agent: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = 500,
        batch: int = 500,
    ) -> Iterator[AuditRow]:
        """The audit trail, newest first: actions and refused attempts, filtered by any of
        profile, service, client id, operation, charge, outcome (a state, or "refused"), agent
        and time (`since` inclusive, `until` exclusive). Read `batch` rows at a time, so
        exporting a long history does not hold it all; `limit` None: every row."""
        clauses: builtins.list[str] = []
        params: builtins.list[Any] = []
        for column, value in (
            ("profile", profile),
            ("base_url", base_url),
            ("client_id", client_id),
            ("operation", operation),
            ("charge_id", charge_id),
            ("outcome", outcome),
            ("agent", agent),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            clauses.append("time >= ?")
            params.append(iso(since))
        if until is not None:
            clauses.append("time < ?")
            params.append(iso(until))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = (
            "SELECT * FROM ("
            " SELECT 'action' AS kind, id, created_at AS time, profile, base_url, client_id,"
            " operation, charge_id, amount, state AS outcome, error AS reason, result_id,"
            " agent, machine FROM actions"
            " UNION ALL"
            " SELECT 'refused', id, created_at, profile, base_url, client_id, operation,"
            " charge_id, amount, 'refused', reason, NULL, agent, machine FROM refusals"
            f") AS rows {where} ORDER BY time DESC, kind DESC, id DESC LIMIT ? OFFSET ?"
        )
        offset = 0
        left = limit
        while left is None or left > 0:
            size = batch if left is None else min(batch, left)
            rows = self._store.rows(sql, (*params, size, offset))
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
                    agent=row["agent"],
                    machine=row["machine"],
                )
            if len(rows) < size:
                return
            offset += size
            if left is not None:
                left -= size
