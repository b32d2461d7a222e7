"""Undo (`ctrl+z`): this person's last change, read from the journal, put back — never money.

What can be undone: an edit of a charge's or a refund's tags and attributes that went through
and whose journal entry keeps what it replaced (`labels.Params.before`), and a claim or its
release (the trail's links of this paytui). Nothing else: a refund, a capture, a new charge —
money is never undone here (a refund is not "un-refunded"; a wrong one is answered by the
service's own means), nor is a token, a plugin session or a message.

An undo is an action like any other: an edit's undo is the same operation run through the one
verb, ``executor.run(entry.operation, target, Params(before…, undoes=entry, expect=after…))``,
journaled as its own entry (History says "undo of #12"), tied to what the person saw — the
target must still show what the edit set, read just before sending, or nothing is sent and the
person is told what it shows now and by whom (`TargetChanged`). A claim's undo lets go of it
(`release`), a release's takes it again (`claim`: refused, naming who, when someone else took
it since); each is a link of the trail as every claim is. One level, as vi's `u`: the undo is
itself the last change, so a second `ctrl+z` puts it back.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from paytui.actions.operations import OPERATIONS

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.executor import ActionExecutor
    from paytui.actions.ops.labels import Params

__all__ = ["EDITS", "LastChange", "last_change", "undo_params", "why_not_undo"]

#: The operations whose entries can be undone (their journal keeps what they replaced).
EDITS = ("update_charge", "update_refund")
#: Entries of this person read to find their last change.
_SCAN = 50


@dataclass(frozen=True)
class LastChange:
    """This person's last change: a journal entry, or a claim link (kind, target)."""

    at: datetime
    entry: JournalEntry | None = None
    claim: tuple[str, str] | None = None

    def describe(self) -> str:
        """ "edit of ch_1's tags (#12)", "your claim on ch_1", "your release of ch_1"."""
        if self.claim is not None:
            kind, target = self.claim
            return f"your release of {target}" if kind == "release" else f"your claim on {target}"
        assert self.entry is not None
        spec = OPERATIONS.get(self.entry.operation)
        noun = spec.noun if spec is not None else self.entry.operation
        target = f" of {self.entry.charge_id}" if self.entry.charge_id else ""
        return f"the {noun}{target} (#{self.entry.id})"


def why_not_undo(entry: JournalEntry) -> str | None:
    """Why `entry` cannot be undone (None: it can)."""
    spec = OPERATIONS.get(entry.operation)
    if spec is not None and spec.moves_money:
        return f"#{entry.id} moved money ({spec.short}): money is never undone here"
    if entry.operation not in EDITS:
        what = spec.short if spec is not None else entry.operation
        return f"#{entry.id} ({what}) cannot be undone: only tag and attribute edits and claims"
    if entry.state != "succeeded":
        return f"#{entry.id} did not go through ({entry.state}): there is nothing to undo"
    summary = entry.request_summary or {}
    if summary.get("redacted"):
        return f"#{entry.id}: the journal holds only a masked copy of it, so it cannot be put back"
    before = summary.get("before")
    if not isinstance(before, dict) or not before:
        return (
            f"#{entry.id}: the journal does not hold what it replaced (made before paytui kept it)"
        )
    return None


def undo_params(entry: JournalEntry) -> Params:
    """The parameters that put `entry`'s target back as it was (`why_not_undo` said yes): its
    `before`, tied to its own values (`expect`), and kept as the undo's own `before` (so the
    undo can be undone in turn)."""
    from paytui.actions.ops.labels import Params

    summary = entry.request_summary
    before: dict[str, Any] = summary["before"]
    after: dict[str, Any] = {k: summary[k] for k in ("tags", "attributes") if k in summary}
    return Params(
        tags=before.get("tags"),
        attributes=before.get("attributes"),
        before=after,
        undoes=entry.id,
        expect=after,
    )


async def last_change(executor: ActionExecutor) -> LastChange | None:
    """This person's last change on this profile's service: their newest journal entry (any
    process of theirs) or this paytui's newest claim link, whichever is later. None: none."""

    def read() -> LastChange | None:
        entries = executor.journal.list(
            limit=_SCAN, profile=executor.profile, base_url=executor.base_url
        )
        mine = next((e for e in entries if e.agent == executor.agent), None)
        link = executor.journal.last_claim_change(executor.base_url, owner=executor.owner)
        found: list[LastChange] = []
        if mine is not None:
            found.append(LastChange(mine.created_at, entry=mine))
        if link is not None:
            kind, target, at = link
            found.append(LastChange(at, claim=(kind, target)))
        return max(found, key=lambda change: change.at) if found else None

    return await asyncio.to_thread(read)
