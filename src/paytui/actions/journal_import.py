"""A person's own journal file joins a team's journal once (`import_from`, `paytui journal
migrate`): every entry and refusal is copied as a new row with its own link in the trail, an
entry's `client_reference` (unique) tells which ones an earlier run already copied.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from paytui.actions.entry import UNRESOLVED_STATES
from paytui.actions.journal_store import SqliteStore, placeholders
from paytui.actions.journal_trail import Room

__all__ = ["ImportReport", "ImportRoom"]

#: An entry's columns as `ImportRoom.import_from` copies them: all but its id (`retry_of` is
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


class ImportRoom(Room):
    """Copying another journal into this one."""

    def same_as(self, other: Room) -> bool:
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

    def import_from(
        self, source: Room, *, agent: str | None = None, batch: int = 200
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
