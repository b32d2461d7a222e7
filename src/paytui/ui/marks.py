"""The marked rows of a charge list: kept by charge id, so they survive paging and re-sorting.

Why by id and not by row: the list is paged from the server and re-sorted there, so a row number
means another charge after `s` or a refresh, and a page may be dropped from memory (the table
keeps a few). A mark holds the charge as it was listed — what the dry run of a bulk action asks
the action registry about; the executor reads each charge again before it acts.

No Textual: the table draws the marks, the screen shows `count` and `total` in its header.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

__all__ = ["BULK_ACTIONS", "BY_HAND", "MARK", "Marks"]

#: Drawn before a marked row (a sign, never a colour alone).
MARK = "●"
#: A mark the person set on the row itself (space).
BY_HAND = "by hand"
#: The actions that open the bulk dialog on the marked charges (`modals.bulk.open_bulk`; with
#: nothing marked it says so instead and lets the keys typed after it go on).
BULK_ACTIONS = frozenset({"bulk_capture", "bulk_refund"})


class Marks:
    """Charges marked by id, in the order they were marked. `version` changes with every
    change (the table's line cache keys on it)."""

    def __init__(self) -> None:
        self._charges: dict[str, Any] = {}
        #: How each was marked: `BY_HAND`, or the mark-all that proved it matches its search.
        self._how: dict[str, str] = {}
        self.version = 0

    def __len__(self) -> int:
        return len(self._charges)

    def __contains__(self, charge_id: object) -> bool:
        return charge_id in self._charges

    def toggle(self, charge: Any) -> bool:
        """Mark `charge`, or unmark it when marked; True when it is marked now."""
        charge_id = str(charge.charge_id)
        self.version += 1
        if charge_id in self._charges:
            del self._charges[charge_id]
            self._how.pop(charge_id, None)
            return False
        self._charges[charge_id] = charge
        self._how[charge_id] = BY_HAND
        return True

    def add(self, charges: Iterable[Any], how: str = BY_HAND) -> int:
        """Mark every one of `charges` (already marked ones stay, as they were marked); how many
        were new. `how` says how they were chosen, for the bulk dry run (`provenance`)."""
        before = len(self._charges)
        for charge in charges:
            charge_id = str(charge.charge_id)
            if charge_id not in self._charges:
                self._charges[charge_id] = charge
                self._how[charge_id] = how
        self.version += 1
        return len(self._charges) - before

    def provenance(self) -> list[tuple[str, int]]:
        """(how, how many) of the marks, in the order first used: what a bulk dry run says of
        the rows it acts on."""
        counts: dict[str, int] = {}
        for charge_id in self._charges:
            how = self._how.get(charge_id, BY_HAND)
            counts[how] = counts.get(how, 0) + 1
        return list(counts.items())

    def clear(self) -> int:
        """Unmark everything; how many were marked."""
        count = len(self._charges)
        self._charges.clear()
        self._how.clear()
        self.version += 1
        return count

    def discard(self, charge_ids: Iterable[str]) -> None:
        """Unmark these (a bulk action did them); the others stay marked."""
        for charge_id in charge_ids:
            self._charges.pop(charge_id, None)
            self._how.pop(charge_id, None)
        self.version += 1

    def refresh(self, charge: Any) -> None:
        """A marked charge was read again (a new page): keep the newer copy."""
        if str(charge.charge_id) in self._charges:
            self._charges[str(charge.charge_id)] = charge

    def charges(self) -> list[Any]:
        return list(self._charges.values())

    @property
    def total(self) -> Decimal:
        """The sum of the marked charges' amounts (those that have one)."""
        return sum(
            (
                c.total_amount
                for c in self._charges.values()
                if getattr(c, "total_amount", None) is not None
            ),
            Decimal(0),
        )
