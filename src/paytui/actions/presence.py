"""Presence: who else has a charge open right now, and what they are doing with it.

On a team journal (PostgreSQL) each dashboard says what it has open — "ana viewing", "ana
refunding 40.00" — in the `presence` table, one row per (service, charge, paytui). A row is a
*lease*: it lives while its paytui renews it (`BEAT`, every 10 s) and is taken as gone once it
has not been renewed for `LEASE` (30 s) by the reader's clock — a paytui killed mid-refund leaves
a row nobody shows after 30 s. A write sends ``NOTIFY`` on the journal's channel with the payload
``presence``, so every open dashboard reads the table again at once (the journal's listener,
`paytui.actions.watch`): "within a second" is a notification, not a poll.

Presence is a courtesy, never a lock: nothing waits for it, a failure to write or read it is
swallowed (a dashboard without presence still views and acts; the money guard does not ask it),
and it is not part of the audit trail (a heartbeat every 10 s is no decision). On a person's own
file journal it is absent: there is nobody else to see.

Clocks: a row's `beat_at` is the writer's clock and the lease is judged by the reader's; machines
of a team keep their clocks in step (NTP), and a skew of s seconds moves the lease by s.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from paytui.actions.journal_store import PostgresStore
from paytui.api.money import format_amount

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from paytui.actions.journal import Journal

__all__ = [
    "BEAT",
    "LEASE",
    "PAYLOAD",
    "Presence",
    "PresenceBoard",
    "presence_words",
    "who_made",
]

#: A row not renewed for this long is gone (its paytui died, or lost the database).
LEASE = timedelta(seconds=30)
#: How often a live paytui renews its rows: three beats a lease (one lost beat is no absence).
BEAT = timedelta(seconds=10)
#: The ``NOTIFY`` payload of a presence write (the journal's trail writes send an empty one).
PAYLOAD = "presence"
#: Rows older than this are deleted by whoever beats next (a dead paytui's leftovers).
_FORGET = LEASE * 10
#: What a paytui can be doing with a charge, strongest last: a dialog open on it wins over the
#: detail beneath it.
DOINGS = ("viewing", "capturing", "refunding")


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Presence:
    """One other paytui on a charge: who, where, doing what (and with how much), since when."""

    target: str
    agent: str
    machine: str | None
    owner: str
    doing: str
    amount: Decimal | None
    since: datetime
    beat_at: datetime

    def words(self) -> str:
        """ "ana viewing", "ana refunding 40.00" (raw: the agent's name is someone else's
        words, so whoever shows it passes it through `paytui.text.safe`)."""
        amount = f" {format_amount(self.amount)}" if self.amount is not None else ""
        return f"{self.agent} {self.doing}{amount}"

    def live(self, now: datetime, lease: timedelta = LEASE) -> bool:
        return now - self.beat_at < lease


def presence_words(people: Iterable[Presence]) -> str:
    """Everyone on a charge in one phrase, the one deciding first: "bob refunding 40.00, ana
    viewing" ("" for nobody)."""
    ordered = sorted(people, key=lambda p: (-DOINGS.index(p.doing), p.agent, p.owner))
    return ", ".join(p.words() for p in ordered)


def _row_presence(row: Mapping[str, Any]) -> Presence | None:
    try:
        amount = Decimal(row["amount"]) if row["amount"] is not None else None
        return Presence(
            row["target"],
            row["agent"],
            row["machine"],
            row["owner"],
            row["doing"] if row["doing"] in DOINGS else "viewing",
            amount,
            _time(row["since"]),
            _time(row["beat_at"]),
        )
    except (InvalidOperation, ValueError, TypeError, KeyError):
        return None  # a row this paytui cannot read is nobody it can name


def _has_table(journal: Journal) -> bool:
    try:
        row = journal.store.one("SELECT to_regclass('presence') IS NOT NULL AS there")
    except Exception:
        return False
    return bool(row and row["there"])


class PresenceBoard:
    """This paytui's presence on one service of a journal, and the others' as last read.

    What this paytui has open is kept in memory (`show` / `hide`, by *holder*: a screen or a
    dialog) and written by `flush`, which writes the current state of every target that changed —
    so two flushes racing in two threads both write what is true now, never an older state.
    `beat` renews this paytui's rows; `read` reads the others'. Thread-safe; every database call
    is made by the caller's thread (a worker), never the UI's loop."""

    def __init__(
        self,
        journal: Journal,
        *,
        base_url: str,
        agent: str,
        machine: str | None,
        owner: str,
        clock: Callable[[], datetime],
        lease: timedelta = LEASE,
        beat: timedelta = BEAT,
    ) -> None:
        self.journal = journal
        self.base_url = base_url
        self.agent = agent
        self.machine = machine
        self.owner = owner
        self.clock = clock
        self.lease = lease
        self.beat_every = beat
        #: Only a team journal has presence (a file is one person's), and only one whose owner
        #: added its table (`journal_schema._add_presence`).
        self.available = journal.kind == "postgresql" and _has_table(journal)
        self._lock = threading.Lock()
        #: target -> holder -> (doing, amount): what this paytui has open, by who opened it.
        self._mine: dict[str, dict[object, tuple[str, Decimal | None]]] = {}
        #: Targets whose row must be written (or deleted) by the next `flush`.
        self._dirty: set[str] = set()
        #: When each of our rows was first written (its `since`).
        self._since: dict[str, datetime] = {}
        self._last_beat: datetime | None = None
        #: The others' rows as last read (every row, live or not: the lease is judged at use).
        self._rows: tuple[Presence, ...] = ()
        #: `others()` as of the last `read` (what the screens were given).
        self._told: dict[str, tuple[Presence, ...]] = {}
        #: When the first lease live at the last read lapses (then `read` again).
        self._next_lapse: datetime | None = None
        #: True until the first `read` (who was already there when this paytui started).
        self.never_read = True

    # ------------------------------------------------------------------ this paytui's
    def show(
        self, holder: object, target: str, doing: str = "viewing", amount: Decimal | None = None
    ) -> None:
        """`holder` (a screen, a dialog) has `target` open, doing `doing`. No I/O: `flush`."""
        if doing not in DOINGS:
            raise ValueError(f"unknown presence {doing!r}")
        with self._lock:
            self._mine.setdefault(target, {})[holder] = (doing, amount)
            self._dirty.add(target)

    def hide(self, holder: object, target: str | None = None) -> None:
        """`holder` closed `target` (every target it held when None). No I/O: `flush`."""
        with self._lock:
            for key in [target] if target is not None else list(self._mine):
                held = self._mine.get(key)
                if held is not None and held.pop(holder, None) is not None:
                    self._dirty.add(key)
                    if not held:
                        del self._mine[key]

    def _shown(self, target: str) -> tuple[str, Decimal | None] | None:
        held = self._mine.get(target)
        if not held:
            return None
        return max(held.values(), key=lambda value: DOINGS.index(value[0]))

    def flush(self) -> bool:
        """Write what changed since the last flush (True when anything was written), and
        notify the other dashboards."""
        if not self.available:
            return False
        with self._lock:
            dirty, self._dirty = self._dirty, set()
            wanted = {target: self._shown(target) for target in dirty}
        if not wanted:
            return False
        now = self.clock()
        store = self._store()
        try:
            for target, shown in sorted(wanted.items()):
                if shown is None:
                    store.run(
                        "DELETE FROM presence WHERE base_url = ? AND target = ? AND owner = ?",
                        (self.base_url, target, self.owner),
                    )
                    self._since.pop(target, None)
                    continue
                doing, amount = shown
                since = self._since.setdefault(target, now)
                store.run(
                    "INSERT INTO presence (base_url, target, owner, agent, machine, doing, amount,"
                    " since, beat_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (base_url, target, owner) DO UPDATE SET doing = excluded.doing,"
                    " amount = excluded.amount, agent = excluded.agent,"
                    " machine = excluded.machine, beat_at = excluded.beat_at",
                    (
                        self.base_url,
                        target,
                        self.owner,
                        self.agent,
                        self.machine,
                        doing,
                        str(amount) if amount is not None else None,
                        _iso(since),
                        _iso(now),
                    ),
                )
            store.run("SELECT pg_notify(?, ?)", (store.channel, PAYLOAD))
        except Exception:
            with self._lock:  # written next time (the next beat tries again)
                self._dirty |= set(wanted)
            raise
        return True

    def _store(self) -> PostgresStore:
        store = self.journal.store
        assert isinstance(store, PostgresStore)  # `available`: a team journal
        return store

    def beat_due(self) -> bool:
        last = self._last_beat
        return self.available and (last is None or self.clock() - last >= self.beat_every)

    def beat(self) -> None:
        """Renew this paytui's rows (and write any not written yet); forget rows so old that
        their paytui is surely gone. No notification: a renewal changes nothing anyone sees."""
        if not self.available:
            return
        now = self.clock()
        self._last_beat = now
        with self._lock:
            self._dirty |= set(self._mine)  # a row lost with a connection is written again
        self.flush()
        self._store().run(
            "DELETE FROM presence WHERE base_url = ? AND beat_at < ?",
            (self.base_url, _iso(now - _FORGET)),
        )

    def leave(self) -> None:
        """This paytui is closing: its rows go now (not after the lease)."""
        with self._lock:
            self._mine.clear()
            self._since.clear()
        if not self.available:
            return
        store = self._store()
        store.run("DELETE FROM presence WHERE owner = ?", (self.owner,))
        store.run("SELECT pg_notify(?, ?)", (store.channel, PAYLOAD))

    # ------------------------------------------------------------------ the others'
    def read(self) -> bool:
        """Read the others' rows of this service again; True when what `others` shows now
        differs from before (a row came, went, changed — or a lease lapsed)."""
        if not self.available:
            return False
        rows = self._store().rows(
            "SELECT * FROM presence WHERE base_url = ? AND owner <> ?", (self.base_url, self.owner)
        )
        found = tuple(p for p in map(_row_presence, rows) if p is not None)
        now = self.clock()
        lapses = [p.beat_at + self.lease for p in found if p.live(now, self.lease)]
        with self._lock:
            self._rows = found
            self._next_lapse = min(lapses) if lapses else None
            self.never_read = False
        shown = self.others()
        changed, self._told = shown != self._told, shown
        return changed

    def others(self) -> dict[str, tuple[Presence, ...]]:
        """The other paytuis on each charge now (their leases live by this clock), by target."""
        now = self.clock()
        with self._lock:
            rows = self._rows
        found: dict[str, list[Presence]] = {}
        for person in rows:
            if person.live(now, self.lease):
                found.setdefault(person.target, []).append(person)
        return {target: tuple(people) for target, people in sorted(found.items())}

    def lapse_due(self) -> bool:
        """Has a lease shown now lapsed since the last read (read again: renewed, or gone)?"""
        lapse = self._next_lapse
        return lapse is not None and self.clock() >= lapse

    def on(self, target: str) -> tuple[Presence, ...]:
        """The others on `target` now."""
        return self.others().get(target, ())


def who_made(journal: Journal, base_url: str, result_ids: Iterable[str]) -> dict[str, str]:
    """Who made each of `result_ids` (refunds, captures), for the places a decision is made:
    "by ana" when the journal has the entry that made it, "outside paytui" otherwise (the
    service's own pages, another tool, a journal this one is not). Raw words: shown through
    `paytui.text.safe`. Blocking (one indexed read each): from a worker thread."""
    found: dict[str, str] = {}
    for result_id in dict.fromkeys(result_ids):
        entry = journal.by_result(base_url, result_id)
        who = (entry.agent or entry.actor) if entry is not None else None
        found[result_id] = f"by {who}" if who else "outside paytui"
    return found
