"""The case on the row: what one chargeback is, in one line (docs/today.md, "The case").

For each chargeback a charge carries: its reason code with the network's words and category
(`paytui.reason_codes`), its stage when the service shows one, its status (open / won / lost,
the one rule of `paytui.charge_state`), its age (from its own date, when the service shows one)
and, while open, the time left (`paytui.today.deadlines`). Only what the service shows: a code
the table does not hold, a stage or a status paytui does not know, a date not shown, each says
so, and nothing is guessed.

Today, the `status:chargeback` lists and the charge's header all say it with `Case.line`. No
Textual, no I/O: the caller passes the time it is and, where it has one, when paytui first saw
the chargeback (without it, a due time that only first sight could give is not given).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from paytui.charge_state import chargeback_state
from paytui.reason_codes import ReasonCode, lookup
from paytui.today.deadlines import (
    DATE_KEYS,
    STAGE_KEYS,
    Deadline,
    brand_of,
    chargeback_deadline,
    field_of,
    moment_of,
    stage_of,
)

if TYPE_CHECKING:
    from paytui.config.model import TodayPrefs

__all__ = ["Case", "case_of", "cases_of", "chargebacks_of", "first_case"]

#: The networks as a person reads them.
NETWORK_NAMES = {
    "visa": "Visa",
    "mastercard": "Mastercard",
    "amex": "American Express",
    "discover": "Discover",
}
_STAGE_NAMES = {
    "chargeback": "first chargeback",
    "pre_arbitration": "pre-arbitration",
    "arbitration": "arbitration",
}


@dataclass(frozen=True)
class Case:
    """One chargeback as the rows say it. `reason` is the table's entry (None: the code is not
    in it, or none is shown); `code` and `service_words` are what the service sent."""

    chargeback_id: str | None
    network: str | None
    code: str | None
    reason: ReasonCode | None
    service_words: str | None
    stage: str | None
    stage_word: str | None
    status: str
    status_word: str | None
    opened_at: datetime | None
    deadline: Deadline | None

    def reason_text(self) -> str:
        """ "Visa 10.4 Other Fraud: Card-Absent Environment (fraud)"; a code not in the table:
        'code 99.9 (not in paytui's table): "the service's words"'; none: "reason code not
        shown"."""
        if self.reason is not None:
            network = NETWORK_NAMES.get(self.reason.network, self.reason.network)
            return f"{network} {self.reason.code} {self.reason.words} ({self.reason.category})"
        if self.code:
            known = NETWORK_NAMES.get(self.network or "")
            whose = f"a {known} code" if known else "a code"
            text = f"code {self.code} (not {whose} in paytui's table)"
        else:
            text = "reason code not shown"
        if self.service_words:
            text += f': "{self.service_words}"'
        return text

    def stage_text(self) -> str | None:
        """The stage in words; None when the service shows none."""
        if self.stage is None:
            return None
        if self.stage == "":
            return f"stage {self.stage_word!r} (not known to paytui)"
        return _STAGE_NAMES[self.stage]

    def status_text(self) -> str:
        if self.status != "unknown":
            return self.status
        if self.status_word:
            return f"status {self.status_word!r} (not known to paytui)"
        return "status not shown"

    def age_text(self, now: datetime) -> str:
        if self.opened_at is None:
            return "date not shown"
        days = max(0, int((now - self.opened_at).total_seconds() // 86_400))
        return f"{days} d old"

    def left_text(self, now: datetime) -> str | None:
        """The time left while open ("≈ due in 3 d 4 h", "≈ overdue 2 d"); None when closed;
        words saying why when no due time can be given here."""
        if self.status in ("won", "lost"):
            return None
        if self.deadline is None:
            return "time left: see Today (no date shown)"
        from paytui.today.queue import due_words

        return due_words(self.deadline.due_at, now, estimated=self.deadline.estimated)

    def line(self, now: datetime, *, left: bool = True) -> str:
        """The case in one line: reason, stage (when shown), status, age, time left (`left`)."""
        parts = [self.reason_text()]
        stage = self.stage_text()
        if stage:
            parts.append(stage)
        parts.append(self.status_text())
        parts.append(self.age_text(now))
        remaining = self.left_text(now) if left else None
        if remaining:
            parts.append(remaining)
        return " · ".join(parts)

    def row_line(self, now: datetime) -> str:
        """The same for a list's narrow column, what to scan first first: status, time left,
        age, then the reason and the stage ("open · ≈ due in 3 d · 5 d old · Visa 10.4 …")."""
        parts = [self.status_text()]
        remaining = self.left_text(now)
        if remaining:
            parts.append(remaining)
        parts += [self.age_text(now), self.reason_text()]
        stage = self.stage_text()
        if stage:
            parts.append(stage)
        return " · ".join(parts)


def chargebacks_of(charge: Any) -> list[Any]:
    """The chargebacks a charge shows (its `chargebacks.items`); one unknown one (None) when it
    is charged back but shows no item."""
    chargebacks = getattr(charge, "chargebacks", None)
    items = list(getattr(chargebacks, "items", None) or [])
    if items:
        return items
    if getattr(charge, "status", None) == "chargeback" or chargebacks is not None:
        return [None]
    return []


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def case_of(
    chargeback: Any,
    charge: Any,
    now: datetime,
    prefs: TodayPrefs,
    first_seen: datetime | None = None,
) -> Case:
    """One chargeback's case (see the module). `first_seen` None: a due time only paytui's first
    sight could give is not given (`Case.deadline` None)."""
    network = brand_of(charge)
    code = _text(getattr(chargeback, "reason_code", None))
    opened = moment_of(field_of(chargeback, DATE_KEYS))
    status = chargeback_state(chargeback) if chargeback is not None else "unknown"
    deadline = None
    if status not in ("won", "lost"):
        deadline = chargeback_deadline(chargeback, charge, first_seen or now, prefs)
        if first_seen is None and deadline.basis == "first_seen":
            deadline = None
    stage_word = _text(field_of(chargeback, STAGE_KEYS))
    return Case(
        chargeback_id=_text(getattr(chargeback, "chargeback_id", None)),
        network=network,
        code=code,
        reason=lookup(code, network) if code else None,
        service_words=_text(getattr(chargeback, "reason", None)),
        stage=stage_of(chargeback),
        stage_word=stage_word,
        status=status,
        status_word=_text(getattr(chargeback, "status", None)),
        opened_at=opened,
        deadline=deadline,
    )


def cases_of(charge: Any, now: datetime, prefs: TodayPrefs) -> list[Case]:
    """Every chargeback of a charge as a case, open ones first, then by date (newest first)."""
    cases = [case_of(cb, charge, now, prefs) for cb in chargebacks_of(charge)]
    cases.sort(
        key=lambda c: (
            c.status in ("won", "lost"),
            -(c.opened_at.timestamp() if c.opened_at else 0),
        )
    )
    return cases


def first_case(charge: Any, now: datetime, prefs: TodayPrefs) -> tuple[Case | None, int]:
    """The case a row shows (the first of `cases_of`) and how many chargebacks there are."""
    cases = cases_of(charge, now, prefs)
    return (cases[0] if cases else None), len(cases)
