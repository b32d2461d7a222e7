"""`InFlight`: one running action's slot in the executor, what its steps leave for each other.

Its own module because three rooms read it — the pipeline (`executor.py`) makes and clears it,
the settling of the past (`settling.py`) shows its countdown in it, and the target's reads
(`target_reads.py`) take the fresh read it holds — and none of them may import another's room
to reach it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.models import Charge

__all__ = ["InFlight"]


@dataclass
class InFlight:
    """An action from its in-flight guard (taken before the first ``await``) to its outcome."""

    entry_id: int | None = None
    #: Set right after the slot is made (the task needs the slot to record its entry id).
    task: asyncio.Task[ActionOutcome] = field(init=False)
    #: While an earlier attempt is being settled: that entry and when its read-back is proof.
    settling: tuple[JournalEntry, datetime] | None = None
    #: The request has been handed to the client (from then on it may have happened).
    request_left: bool = False
    #: The authorization as the final re-read before a capture found it (unchanged since the
    #: person looked, no capture found by the thorough search): the capture's own precheck
    #: (`read_authorization`) takes it instead of reading it again, once.
    fresh: Charge | None = None
