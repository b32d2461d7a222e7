"""The journal's entries: each money action's intent, written durably before its request, the
moves of its outcome, the attempts refused before anything was written, and the reads of them.

States::

    pending ──> sent ──> succeeded
       │          ├────> failed          (the service said no, or the request never left)
       │          └────> unknown ──> succeeded | not_applied   (after reconciliation)
       └──────────────> (pending/sent found after a crash are reconciled like unknown)

Every change is a compare-and-set (``UPDATE ... WHERE state IN (...)``), so two writers (a
late-arriving answer and a start-up reconciliation) cannot overwrite each other's verdict, and
every write is chained to the trail in its own transaction (`paytui.actions.journal_trail`).

The guard: `record_intent` with `guard_since` checks and inserts in one transaction that has the
target to itself (SQLite's file lock; PostgreSQL's advisory locks), and a partial unique index
allows one unsettled intent per service, operation and target, so of two attempts of the same
action on the same target only the first is written and sent; the other gets `JournalConflict`
naming it, and who made it.

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

Who (schema 5): every entry and refusal records the agent (a person's name on the team) and the
machine. The trail: every write appends a row to `trail` whose hash chains to the one before;
`verify` walks it and names the first broken link. Entries are never deleted and what an intent
said never changes (the schema's triggers), on both engines.
"""

from __future__ import annotations

import builtins
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from paytui.actions.entry import (
    FINAL_STATES,
    STATES,
    UNRESOLVED_STATES,
    JournalEntry,
    required_time,
)
from paytui.actions.journal_approvals import ApprovalRefused, claim_for_send
from paytui.actions.journal_store import DuplicateIntent, placeholders, sender_key
from paytui.actions.journal_trail import Room, iso

__all__ = ["SENDING", "AgentSeen", "EntriesRoom", "JournalConflict"]

#: Still being sent by its process (the session lock that marks it lives as long as the sender).
SENDING = frozenset({"pending", "sent"})


@dataclass(frozen=True)
class AgentSeen:
    """Someone who wrote to the journal: how many entries and refusals, from which machine (one
    of theirs), and when last (`agent` None: the rows that name no one)."""

    agent: str | None
    machine: str | None
    entries: int
    refusals: int
    last_seen: datetime


class JournalConflict(Exception):
    """`record_intent(guard_since=...)` found the same action on the same target in the way: one
    not settled yet (another process is sending it) or one done since the caller began."""

    def __init__(self, entry: JournalEntry) -> None:
        super().__init__(f"action #{entry.id} ({entry.state}) is in the way")
        self.entry = entry


class EntriesRoom(Room):
    """Entries and refusals: written, moved, read."""

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
        approval: int | None = None,
    ) -> JournalEntry:
        """Write (and commit, durably) the intent of an action; returns the "pending" entry.

        `approval`: the approved request (four eyes) this action sends; in the same transaction
        it moves from "approved" to "sent", naming this entry — or `ApprovalRefused` and nothing
        is written (it was sent or voided since: one intent per approval).

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
        now = iso(self._clock())
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
                if approval is not None and not claim_for_send(self, approval, row["id"]):
                    raise ApprovalRefused(
                        f"approval request #{approval} is no longer approved (sent or void"
                        " since); nothing was sent"
                    )
                # In flight from the moment it is visible: a colleague who sees it pending sees
                # a live sender too (the session lock outlives this transaction).
                sender = sender_key(self._store.namespace, row["id"])
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

    def sender_alive(self, entry: JournalEntry) -> bool | None:
        """Is the process that wrote `entry` still holding it in flight? True / False on a team
        journal (its session lock), None on a file (the caller checks host and pid)."""
        if entry.state not in SENDING:
            return False
        return self._store.sender_alive(sender_key(self._store.namespace, entry.id))

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
                    iso(self._clock()),
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
        now = iso(self._clock())
        sets = ["state = ?", "updated_at = ?", "error = ?"]
        values: list[Any] = [new_state, now, error]
        if new_state == "sent":
            sets.append("sent_at = ?")
            values.append(iso(at) if at is not None else now)
        if checked_at is not None:
            sets.append("checked_at = ?")
            values.append(iso(checked_at))
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
        if changed and new_state not in SENDING:
            self._store.release(sender_key(self._store.namespace, entry_id))
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

    def agents(self) -> builtins.list[AgentSeen]:
        """Everyone seen on this journal, by the entries *and* the refusals they wrote, most
        recent first (`paytui journal status`). Rows that name no one (written before paytui
        recorded who acted, or copied so) are one `AgentSeen` whose `agent` is None, last."""
        rows = self._store.rows(
            "SELECT agent, MAX(machine) AS machine, COUNT(*) AS n, SUM(entry) AS entries,"
            " MAX(created_at) AS last FROM (SELECT agent, machine, 1 AS entry, created_at"
            " FROM actions UNION ALL SELECT agent, machine, 0, created_at FROM refusals) AS seen"
            " GROUP BY agent ORDER BY last DESC"
        )
        found = [
            AgentSeen(
                agent=r["agent"],
                machine=r["machine"],
                entries=int(r["entries"]),
                refusals=int(r["n"]) - int(r["entries"]),
                last_seen=required_time(r["last"]),
            )
            for r in rows
        ]
        return sorted(found, key=lambda seen: seen.agent is None)

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
        params: builtins.list[Any] = [base_url, operation, iso(since)]
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
