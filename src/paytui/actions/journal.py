"""The action journal: every money action taken from this machine, intent first.

Why a journal: when a capture or refund times out, the app must neither send it again nor forget
it. The *intent* (operation, target, amount, a client reference) is committed to disk before the
request goes out, so a crash, a kill or a dropped connection at any moment leaves a row that says
"this may have happened"; reconciliation (`paytui.actions.reconcile`) later reads the service back
and settles it. The History screen lists these rows.

Storage (`paytui.actions.journal_store`): one person's SQLite file at
``platformdirs.user_data_dir("paytui")/journal.sqlite3`` (injectable), WAL with
``synchronous=FULL`` so a commit is on disk when `record_intent` returns, created 0600; or a
team's PostgreSQL database (`url`, see docs/team.md), where every agent's machine writes the same
rows and the guard below holds across machines. The tables and their rules are in
`paytui.actions.journal_schema`. The request summary is built by the executor from an allow-list
of fields and never holds a card or bank number, a token id, a bearer token or a secret.

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

Two processes on one journal (the app and `paytui refunds create`, or two agents' machines on
one team journal): `record_intent` with `guard_since` checks and inserts in one transaction that
has the target to itself (SQLite's file lock; PostgreSQL's advisory locks), and a partial unique
index allows one unsettled intent per service, operation and target, so of two attempts of the
same action on the same target only the first is written and sent; the other gets
`JournalConflict` naming it, and who made it (see `ActionExecutor`).

Who (schema 5): every entry and refusal records the agent (a person's name on the team) and the
machine. The trail: every write appends a row to `trail` whose hash chains to the one before;
`verify` walks it and names the first broken link. Entries are never deleted and what an intent
said never changes (the schema's triggers), on both engines.

A person's own file joins a team's journal once (`import_from`, `paytui journal migrate`): every
entry and refusal is copied as a new row with its own link in the trail, an entry's
`client_reference` (unique) tells which ones an earlier run already copied.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from paytui.actions.claims import Claim, ClaimedElsewhere, process_alive
from paytui.actions.entry import (
    FINAL_STATES,
    STATES,
    UNRESOLVED_STATES,
    JournalEntry,
    required_time,
)
from paytui.actions.journal_schema import SCHEMA_VERSION, migrate
from paytui.actions.journal_store import (
    DuplicateIntent,
    FileCheck,
    JournalUnavailable,
    Listener,
    PostgresStore,
    SqliteStore,
    Store,
    check_sqlite,
    first_line,
    lock_key,
    mask_url,
    placeholders,
)

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
_SCHEMA_VERSION = SCHEMA_VERSION
_GENESIS = "0" * 64
#: Still being sent by its process (the session lock that marks it lives as long as the sender).
_SENDING = frozenset({"pending", "sent"})
#: An entry's columns as `Journal.import_from` copies them: all but its id (`retry_of` is
#: re-mapped to the copy's ids).
_ENTRY_COLUMNS = (
    "client_reference",
    "profile",
    "base_url",
    "operation",
    "charge_id",
    "amount",
    "request_summary",
    "state",
    "result_id",
    "error",
    "retry_of",
    "created_at",
    "sent_at",
    "updated_at",
    "resolved_at",
    "settle_seconds",
    "checked_at",
    "never_sent",
    "unacknowledged",
    "client_id",
    "actor",
    "owner",
    "agent",
    "machine",
    "guard_target",
)
_REFUSAL_COLUMNS = (
    "profile",
    "base_url",
    "client_id",
    "operation",
    "charge_id",
    "amount",
    "reason",
    "created_at",
    "agent",
    "machine",
)
#: What makes a refusal the one an earlier copy made (a refusal has no reference of its own; its
#: agent is left out: `import_from(agent=...)` may have named it).
_REFUSAL_KEY = tuple(c for c in _REFUSAL_COLUMNS if c not in {"agent", "machine"})


def default_journal_path() -> Path:
    """``<user data dir>/journal.sqlite3``; imported lazily so importing this module stays cheap."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "journal.sqlite3"


def is_team_url(location: str | Path | None) -> bool:
    """A PostgreSQL URL (``postgresql://…``/``postgres://…``), not a local file."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _canonical(row: Mapping[str, Any]) -> str:
    """A row as the trail keeps it: one JSON text, the same for the same values on both engines."""
    return json.dumps(dict(row), sort_keys=True, separators=(",", ":"), default=str)


def _whole(value: Any) -> Any:
    """A whole float as an int: SQLite's RETURNING gives a REAL column's 30.0 as 30 (the value
    as stored), its SELECT as 30.0; PostgreSQL gives 30.0 to both."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _digest(row: Mapping[str, Any]) -> str:
    """What an entry (or refusal) and its last link in the trail are compared by: the row's
    canonical JSON, with a number the same however the engine returned it (`_whole`)."""
    plain = {key: _whole(row[key]) for key in row.keys()}  # noqa: SIM118 (a sqlite3.Row)
    return hashlib.sha256(_canonical(plain).encode()).hexdigest()


def _link(prev_hash: str, kind: str, body: str) -> str:
    return hashlib.sha256(f"{prev_hash}\n{kind}\n{body}".encode()).hexdigest()


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

    @property
    def ok(self) -> bool:
        return self.broken is None


@dataclass(frozen=True)
class ImportReport:
    """What `Journal.import_from` did."""

    entries: int
    """Entries copied."""
    refusals: int
    """Refusals copied."""
    present: int
    """Entries and refusals this journal had already (an earlier copy): left as they are."""
    unsettled: int
    """Entries copied whose outcome is not settled (pending, sent, unknown): read back by this
    journal's paytuis like their own."""
    anonymous: int
    """Entries and refusals copied without an agent (written before paytui recorded who)."""

    @property
    def copied(self) -> int:
        return self.entries + self.refusals


class Journal:
    """The action journal over one `Store` (a SQLite file, or a team's PostgreSQL database).
    Thread-safe: the executor calls it from worker threads (`asyncio.to_thread`) so an fsync or
    a round trip never blocks the UI's event loop."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        clock: Callable[[], datetime] = _now,
        password: str | None = None,
    ) -> None:
        """`path`: a SQLite file (``sqlite:PATH`` too), or a ``postgresql://`` URL (its
        password from `password`, ``PGPASSFILE`` or ``PGPASSWORD``; never in the URL of a
        config file). None: this person's default file."""
        self._clock = clock
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

    def schema_version(self) -> int:
        """The version of the journal's tables (SQLite's ``user_version``, PostgreSQL's
        `paytui_schema`): `SCHEMA_VERSION` once opened."""
        if self.kind == "postgresql":
            row = self._store.one("SELECT max(version) AS version FROM paytui_schema")
            return int(row["version"]) if row and row["version"] is not None else 0
        row = self._store.one("PRAGMA user_version")
        return int(row["user_version"]) if row else 0

    def same_as(self, other: Journal) -> bool:
        """Are the two one journal: one file (however it is spelt), or one database schema at
        one URL?"""
        mine, theirs = self._store, other._store
        if isinstance(mine, SqliteStore) and isinstance(theirs, SqliteStore):
            try:
                return os.path.samefile(mine.path, theirs.path)
            except OSError:
                return False
        return mine.kind == theirs.kind and (mine.namespace, mine.where) == (
            theirs.namespace,
            theirs.where,
        )

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

    # ---------------------------------------------------------------- the trail

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
        prev = str(head["hash"]) if head else _GENESIS
        body = _canonical(row)
        self._store.notify()  # delivered at commit, to every paytui listening on this journal
        self._store.run(
            "INSERT INTO trail (seq, kind, action_id, refusal_id, at, body, prev_hash, hash)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                kind,
                action_id,
                refusal_id,
                _iso(self._clock()),
                body,
                prev,
                _link(prev, kind, body),
            ),
        )

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
        entries = [e for e in (self.get(i) for i in ids) if e is not None]
        return int(rows[-1]["seq"]), entries

    def listener(self) -> Listener:
        """Something to wait on for another writer's change (PostgreSQL: ``LISTEN``; a file:
        a short poll). The caller closes it."""
        return self._store.listener()

    def verify(self, *, batch: int = 1000) -> TrailReport:
        """Walk the trail from its first link: each link's hash must chain to the one before, the
        sequence must have no gap, and every entry and refusal must be what its last link says
        (nothing changed or deleted behind the journal's back). Stops at the first broken link."""
        links = 0
        prev = _GENESIS
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
                if _link(prev, row["kind"], row["body"]) != row["hash"]:
                    return TrailReport(
                        links, 0, 0, f"link {seq} was altered (its hash does not match)"
                    )
                prev = row["hash"]
                links += 1
                digest = _digest(json.loads(row["body"]))
                if row["action_id"] is not None:
                    last_action[row["action_id"]] = digest
                    if first_action is None and row["kind"] in {"intent", "import"}:
                        first_action = row["action_id"]  # the first entry born with a trail
                if row["refusal_id"] is not None:
                    last_refusal[row["refusal_id"]] = digest
                    if first_refusal is None:
                        first_refusal = row["refusal_id"]
            if len(rows) < batch:
                break
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
                    if _digest(row) != linked:
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
        return TrailReport(links, entries, older, None)

    # ---------------------------------------------------------------- copying a journal

    def import_from(
        self, source: Journal, *, agent: str | None = None, batch: int = 200
    ) -> ImportReport:
        """Copy `source`'s entries and refusals (a person's own file) into this journal (a
        team's), once: each becomes a new row here (a new id; `retry_of` re-mapped to the
        copies) with every other column as it was, and its own link in this journal's trail
        (kind "import"), `batch` rows a transaction. An entry already here (its
        `client_reference`) or a refusal already here (the same profile, service, client,
        action, charge, amount, reason and time) is left as it is, so a second run copies
        nothing. `agent` names who made the rows written before paytui recorded it (None: they
        stay without one). An unsettled entry keeps its guarded target unless an unsettled
        entry here already holds it (then it is copied unguarded: both are read back)."""
        if self.same_as(source):
            raise ValueError(f"{source.where} is this journal itself")
        ids: dict[int, int] = {}  # source's id -> the copy's (or the earlier copy's) id
        entries = refusals = present = unsettled = anonymous = 0
        columns = ", ".join(_ENTRY_COLUMNS)
        insert = (
            f"INSERT INTO actions ({columns}) VALUES ({placeholders(_ENTRY_COLUMNS)}) RETURNING *"
        )
        open_states = sorted(UNRESOLVED_STATES)
        taken = (
            "SELECT id FROM actions WHERE base_url = ? AND operation = ? AND guard_target = ?"
            f" AND state IN ({placeholders(open_states)}) LIMIT 1"
        )
        after = 0
        while True:
            rows = source._store.rows(
                "SELECT * FROM actions WHERE id > ? ORDER BY id LIMIT ?", (after, batch)
            )
            if not rows:
                break
            references = [row["client_reference"] for row in rows]
            with self._store.transaction(self._trail_key):
                have = {
                    found["client_reference"]: int(found["id"])
                    for found in self._store.rows(
                        "SELECT id, client_reference FROM actions"
                        f" WHERE client_reference IN ({placeholders(references)})",
                        references,
                    )
                }
                for row in rows:
                    known = have.get(row["client_reference"])
                    if known is not None:
                        ids[int(row["id"])] = known
                        present += 1
                        continue
                    values = {column: row[column] for column in _ENTRY_COLUMNS}
                    if row["retry_of"] is not None:
                        values["retry_of"] = ids.get(int(row["retry_of"]))
                    if values["agent"] is None:
                        values["agent"] = agent
                    anonymous += values["agent"] is None
                    if row["state"] in UNRESOLVED_STATES:
                        unsettled += 1
                        guarded = (row["base_url"], row["operation"], row["guard_target"])
                        if row["guard_target"] is not None and self._store.one(
                            taken, (*guarded, *open_states)
                        ):
                            values["guard_target"] = None
                    (copy,) = self._store.rows(insert, [values[c] for c in _ENTRY_COLUMNS])
                    self._append("import", copy, action_id=copy["id"])
                    ids[int(row["id"])] = int(copy["id"])
                    entries += 1
            after = int(rows[-1]["id"])
            if len(rows) < batch:
                break
        key = " AND ".join(f"{column} IS NOT DISTINCT FROM ?" for column in _REFUSAL_KEY)
        if self.kind == "sqlite":
            key = key.replace("IS NOT DISTINCT FROM", "IS")
        refusal_insert = (
            f"INSERT INTO refusals ({', '.join(_REFUSAL_COLUMNS)})"
            f" VALUES ({placeholders(_REFUSAL_COLUMNS)}) RETURNING *"
        )
        after = 0
        while True:
            rows = source._store.rows(
                "SELECT * FROM refusals WHERE id > ? ORDER BY id LIMIT ?", (after, batch)
            )
            if not rows:
                break
            with self._store.transaction(self._trail_key):
                for row in rows:
                    if self._store.one(
                        f"SELECT id FROM refusals WHERE {key} LIMIT 1",
                        [row[column] for column in _REFUSAL_KEY],
                    ):
                        present += 1
                        continue
                    values = {column: row[column] for column in _REFUSAL_COLUMNS}
                    if values["agent"] is None:
                        values["agent"] = agent
                    anonymous += values["agent"] is None
                    (copy,) = self._store.rows(
                        refusal_insert, [values[c] for c in _REFUSAL_COLUMNS]
                    )
                    self._append("import", copy, refusal_id=copy["id"])
                    refusals += 1
            after = int(rows[-1]["id"])
            if len(rows) < batch:
                break
        return ImportReport(entries, refusals, present, unsettled, anonymous)

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
        agent: str | None = None,
        machine: str | None = None,
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
        service share it, and on a team journal so do all agents. The entry is then marked in
        flight for as long as this process lives or until it settles (`sender_alive`)."""
        from paytui.actions.operations import OPERATIONS

        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}")
        reference = client_reference or uuid.uuid4().hex
        now = _iso(self._clock())
        guarded = guard_since is not None
        guard_target = (
            (charge_id if charge_id is not None else (target[1] if target else None))
            if guarded
            else None
        )
        keys = [self._trail_key]
        if guarded:
            keys.append(self._key("guard", base_url, operation, guard_target))
        try:
            with self._store.transaction(*keys):
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
                (row,) = self._store.rows(
                    "INSERT INTO actions (client_reference, profile, base_url, operation,"
                    " charge_id, amount, request_summary, state, retry_of, created_at,"
                    " updated_at, settle_seconds, client_id, actor, owner, agent, machine,"
                    " guard_target)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " RETURNING *",
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
                        agent,
                        machine,
                        guard_target,
                    ),
                )
                self._append("intent", row, action_id=row["id"])
                # In flight from the moment it is visible: a colleague who sees it pending sees
                # a live sender too (the session lock outlives this transaction).
                sender = self._key("sender", row["id"])
                self._store.hold(sender)
        except DuplicateIntent:
            # The database's own guard (one unsettled intent per target): someone got there
            # without the lock (an older paytui); name them.
            blocker = self._blocker(base_url, operation, charge_id, target, 0, frozenset())
            if blocker is None or not guarded:
                raise
            raise JournalConflict(blocker) from None
        return JournalEntry._from_row(row)

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
        the caller looked (called inside `record_intent`'s transaction)."""
        unsettled = sorted(UNRESOLVED_STATES)
        flying = sorted(in_flight)
        sql = (
            "SELECT * FROM actions WHERE base_url = ? AND operation = ?"
            f" AND (state IN ({placeholders(unsettled)})"
            " OR (state = 'succeeded' AND (id > ?"
            f" OR id IN ({placeholders(flying)}))))"
        )
        params: builtins.list[Any] = [base_url, operation, *unsettled, since, *flying]
        if charge_id is not None:
            sql += " AND charge_id = ?"
            params.append(charge_id)
        for row in self._store.rows(sql + " ORDER BY id", params):
            entry = JournalEntry._from_row(row)
            if charge_id is None and target is not None:
                key, value = target
                if entry.request_summary.get(key) != value:
                    continue  # a new charge: the same account only (a session: the same target)
            return entry
        return None

    # ---------------------------------------------------------------- claims

    def _claim_live(self, row: Mapping[str, Any], owner: str | None) -> bool:
        if owner is not None and row["owner"] == owner:
            return True
        held = self._store.sender_alive(self._key("claim", row["base_url"], row["target"]))
        return held if held is not None else process_alive(row["owner"])

    @staticmethod
    def _claim_of(row: Mapping[str, Any]) -> Claim:
        return Claim(
            row["target"],
            row["agent"],
            row["machine"],
            row["owner"],
            required_time(row["claimed_at"]),
        )

    def claims(
        self, base_url: str, targets: Iterable[str] | None = None, *, owner: str | None = None
    ) -> dict[str, Claim]:
        """The live claims on the service (of `targets`, if given), by target. A claim lives
        as long as its agent's paytui: its session lock on PostgreSQL, its process on a file."""
        sql = "SELECT * FROM claims WHERE base_url = ?"
        params: builtins.list[Any] = [base_url]
        if targets is not None:
            wanted = sorted(set(targets))
            if not wanted:
                return {}
            sql += f" AND target IN ({placeholders(wanted)})"
            params += wanted
        rows = self._store.rows(sql, params)
        return {r["target"]: self._claim_of(r) for r in rows if self._claim_live(r, owner)}

    def claim(
        self, base_url: str, target: str, *, agent: str, machine: str | None, owner: str
    ) -> Claim:
        """Claim `target` for `agent` (this process: `owner`); `ClaimedElsewhere` when another
        live paytui holds it. Claiming again what is ours is a no-op."""
        taken = self._take(base_url, [target], agent=agent, machine=machine, owner=owner)
        if isinstance(taken, Claim) and taken.mine(owner):
            return taken
        assert isinstance(taken, Claim)
        raise ClaimedElsewhere(taken)

    def claim_next(
        self,
        base_url: str,
        candidates: Iterable[str],
        *,
        agent: str,
        machine: str | None,
        owner: str,
    ) -> Claim | None:
        """Claim the first of `candidates` (in order) nobody else holds; None when all are
        taken. Claimers of one service take turns (one short transaction each), so ten agents
        pressing at once get ten different items."""
        items = list(dict.fromkeys(candidates))
        taken = self._take(
            base_url, items, agent=agent, machine=machine, owner=owner, first_free=True
        )
        return taken if isinstance(taken, Claim) and taken.mine(owner) else None

    def _take(
        self,
        base_url: str,
        targets: builtins.list[str],
        *,
        agent: str,
        machine: str | None,
        owner: str,
        first_free: bool = False,
    ) -> Claim | None:
        """In one transaction: the first target that is free (or ours) is claimed and its claim
        returned; with one target and it taken, the other's claim is returned."""
        if not targets:
            return None
        with self._store.transaction(self._key("claims", base_url), self._trail_key):
            sql = f"SELECT * FROM claims WHERE base_url = ? AND target IN ({placeholders(targets)})"
            current = {r["target"]: r for r in self._store.rows(sql, (base_url, *targets))}
            for target in targets:
                row = current.get(target)
                if row is not None and row["owner"] == owner:
                    return self._claim_of(row)
                if row is not None and self._claim_live(row, owner):
                    if first_free:
                        continue
                    return self._claim_of(row)
                (claimed,) = self._store.rows(
                    "INSERT INTO claims (base_url, target, agent, machine, owner, claimed_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (base_url, target) DO UPDATE SET"
                    " agent = excluded.agent, machine = excluded.machine, owner = excluded.owner,"
                    " claimed_at = excluded.claimed_at RETURNING *",
                    (base_url, target, agent, machine, owner, _iso(self._clock())),
                )
                self._append("claim", claimed)
                self._store.hold(self._key("claim", base_url, target))
                return self._claim_of(claimed)
        return None

    def release(self, base_url: str, target: str, *, owner: str) -> bool:
        """Let go of our claim on `target` (False: it was not ours)."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows(
                "DELETE FROM claims WHERE base_url = ? AND target = ? AND owner = ? RETURNING *",
                (base_url, target, owner),
            )
            if rows:
                self._append("release", rows[0])
        self._store.release(self._key("claim", base_url, target))
        return bool(rows)

    def release_all(self, *, owner: str) -> int:
        """Let go of every claim of this process (on exit)."""
        rows = self._store.rows("SELECT base_url, target FROM claims WHERE owner = ?", (owner,))
        return sum(self.release(r["base_url"], r["target"], owner=owner) for r in rows)

    # ---------------------------------------------------------------- the team's searches

    def team_searches(self) -> dict[str, tuple[str, str | None]]:
        """The team's saved searches: name -> (query, who saved it), by name."""
        rows = self._store.rows("SELECT name, query, agent FROM team_searches ORDER BY name")
        return {r["name"]: (r["query"], r["agent"]) for r in rows}

    def share_search(self, name: str, query: str, *, agent: str | None) -> None:
        """Save (or replace) the team's search `name` (a trail link says who and when)."""
        with self._store.transaction(self._trail_key):
            (row,) = self._store.rows(
                "INSERT INTO team_searches (name, query, agent, saved_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET query = excluded.query,"
                " agent = excluded.agent, saved_at = excluded.saved_at RETURNING *",
                (name, query, agent, _iso(self._clock())),
            )
            self._append("search", row)

    def unshare_search(self, name: str, *, agent: str | None) -> bool:
        """Remove the team's search `name` (False: there was none)."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows("DELETE FROM team_searches WHERE name = ? RETURNING *", (name,))
            if rows:
                self._append("unsearch", {**rows[0], "removed_by": agent})
        return bool(rows)

    def sender_alive(self, entry: JournalEntry) -> bool | None:
        """Is the process that wrote `entry` still holding it in flight? True / False on a team
        journal (its session lock), None on a file (the caller checks host and pid)."""
        if entry.state not in _SENDING:
            return False
        return self._store.sender_alive(self._key("sender", entry.id))

    def last_id(self) -> int:
        """The newest entry's id (0 for an empty journal): what `guard_since` is measured by, and
        where a batch starts counting its own."""
        row = self._store.one("SELECT COALESCE(MAX(id), 0) AS last FROM actions")
        return int(row["last"]) if row else 0

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
        agent: str | None = None,
        machine: str | None = None,
    ) -> None:
        """Keep an attempt refused before anything was written or sent (for the audit trail)."""
        with self._store.transaction(self._trail_key):
            (row,) = self._store.rows(
                "INSERT INTO refusals (profile, base_url, client_id, operation, charge_id,"
                " amount, reason, created_at, agent, machine)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    profile,
                    base_url,
                    client_id,
                    operation,
                    charge_id,
                    str(amount) if amount is not None else None,
                    reason,
                    _iso(self._clock()),
                    agent,
                    machine,
                ),
            )
            self._append("refusal", row, refusal_id=row["id"])

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
            sets.append(f"settle_seconds = {self._store.greatest}(COALESCE(settle_seconds, 0), ?)")
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
        changed = self._update(
            f"UPDATE actions SET {', '.join(sets)}"
            f" WHERE id = ? AND state IN ({placeholders(expected)}) RETURNING *",
            (*values, entry_id, *expected),
            entry_id,
        )
        if changed and new_state not in _SENDING:
            self._store.release(self._key("sender", entry_id))
        return changed

    def _update(self, sql: str, params: Iterable[Any], entry_id: int) -> bool:
        """One UPDATE of one entry and its link in the trail, in one transaction."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows(sql, tuple(params))
            if rows:
                self._append("update", rows[0], action_id=entry_id)
        return bool(rows)

    # ----------------------------------------------------------------- reads

    def get(self, entry_id: int) -> JournalEntry | None:
        row = self._store.one("SELECT * FROM actions WHERE id = ?", (entry_id,))
        return JournalEntry._from_row(row) if row else None

    def by_reference(self, client_reference: str) -> JournalEntry | None:
        row = self._store.one(
            "SELECT * FROM actions WHERE client_reference = ?", (client_reference,)
        )
        return JournalEntry._from_row(row) if row else None

    def list(
        self,
        *,
        limit: int = 200,
        offset: int = 0,
        profile: str | None = None,
        base_url: str | None = None,
        agent: str | None = None,
    ) -> list[JournalEntry]:
        """Entries newest first (the History screen), optionally of one profile / service /
        agent."""
        where, params = self._scope(profile, base_url, agent)
        rows = self._store.rows(
            f"SELECT * FROM actions {where} ORDER BY id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [JournalEntry._from_row(row) for row in rows]

    def agents(self) -> builtins.list[tuple[str, str | None, int, datetime]]:
        """Every agent seen on this journal: (agent, last machine, entries, last seen), most
        recent first (`paytui journal status`)."""
        rows = self._store.rows(
            "SELECT agent, MAX(machine) AS machine, COUNT(*) AS n, MAX(created_at) AS last"
            " FROM actions WHERE agent IS NOT NULL GROUP BY agent ORDER BY last DESC"
        )
        return [(r["agent"], r["machine"], int(r["n"]), required_time(r["last"])) for r in rows]

    def unresolved(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
    ) -> builtins.list[JournalEntry]:
        """Entries still pending / sent / unknown, oldest first (the order they happened in)."""
        return self.in_states(UNRESOLVED_STATES, profile, base_url, operation, charge_id)

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
        entries = self.in_states(states, profile, base_url, operation, charge_id)
        return [e for e in entries if not e.proven(default_seconds)]

    def in_states(
        self,
        states: Iterable[str],
        profile: str | None = None,
        base_url: str | None = None,
        operation: str | None = None,
        charge_id: str | None = None,
    ) -> builtins.list[JournalEntry]:
        """Entries in `states` (of one profile, service, operation, charge if given), by id."""
        wanted = sorted(states)
        where, params = self._scope(profile, base_url)
        clauses = [where.removeprefix("WHERE ")] if where else []
        clauses.append(f"state IN ({placeholders(wanted)})")
        params += wanted
        for column, value in (("operation", operation), ("charge_id", charge_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        rows = self._store.rows(
            f"SELECT * FROM actions WHERE {' AND '.join(clauses)} ORDER BY id", params
        )
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
        rows = self._store.rows(sql + " ORDER BY id", params)
        return [JournalEntry._from_row(row) for row in rows]

    def later_of(self, entry: JournalEntry) -> builtins.list[JournalEntry]:
        """Entries of the same service and operation (any profile) made after `entry`, oldest
        first (the caller narrows them to the same target)."""
        rows = self._store.rows(
            "SELECT * FROM actions WHERE base_url = ? AND operation = ? AND id > ? ORDER BY id",
            (entry.base_url, entry.operation, entry.id),
        )
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
        rows = self._store.rows(
            "SELECT * FROM actions WHERE base_url = ? AND operation = ?"
            " AND charge_id = ? AND id > ? ORDER BY id",
            (base_url, operation, charge_id, after_id),
        )
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
        rows = self._store.rows(sql + " ORDER BY id", params)
        return [JournalEntry._from_row(row) for row in rows]

    def by_result(self, base_url: str, result_id: str) -> JournalEntry | None:
        """The entry that made `result_id` (a refund, a capture) on the service, if journaled:
        who did it and when, for telling a person what changed."""
        row = self._store.one(
            "SELECT * FROM actions WHERE base_url = ? AND result_id = ? ORDER BY id LIMIT 1",
            (base_url, result_id),
        )
        return JournalEntry._from_row(row) if row else None

    def acknowledge(self, entry_id: int) -> None:
        """The user was told about this entry's outcome."""
        self._update(
            "UPDATE actions SET unacknowledged = 0 WHERE id = ? AND unacknowledged <> 0"
            " RETURNING *",
            (entry_id,),
            entry_id,
        )

    def retries_of(self, entry_id: int) -> builtins.list[JournalEntry]:
        rows = self._store.rows("SELECT * FROM actions WHERE retry_of = ? ORDER BY id", (entry_id,))
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
            params.append(_iso(since))
        if until is not None:
            clauses.append("time < ?")
            params.append(_iso(until))
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

    @staticmethod
    def _scope(
        profile: str | None, base_url: str | None, agent: str | None = None
    ) -> tuple[str, builtins.list[Any]]:
        clauses: builtins.list[str] = []
        params: builtins.list[Any] = []
        for column, value in (("profile", profile), ("base_url", base_url), ("agent", agent)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params


def describe_location(location: str | Path | None) -> str:
    """Where a journal location points, for people (a URL's password masked)."""
    if location is None:
        return str(default_journal_path())
    return mask_url(str(location))


def open_journal(
    location: Path | str | None,
    *,
    password: str | None = None,
    clock: Callable[[], datetime] = _now,
) -> Journal:
    """The journal at `location` (a file, ``sqlite:PATH``, a ``postgresql://`` URL; None: this
    person's file), or `JournalUnavailable` with one line naming where and why (a password
    masked): a file that cannot be opened, a server that does not answer, a journal of a newer
    paytui, a database that refuses this login."""
    where = describe_location(location)
    try:
        return Journal(location, clock=clock, password=password)
    except JournalUnavailable:
        raise
    except Exception as exc:  # OSError, sqlite3.Error, psycopg.Error, a newer schema
        cause = getattr(exc, "strerror", None) or first_line(exc)
        raise JournalUnavailable(f"the journal {where} cannot be opened ({cause})") from None
