"""Filters of the audit trail (`Journal.audit`): one grammar for the History screen's filter line
and the flags of `paytui history`.

    outcome:refused action:refund charge:6206bcbf… client:ops-bot agent:support-07
    since:2026-01-01 until:2026-02-01

Terms are `key:value`, all ANDed; `profile:` picks another profile's rows (the screen shows its
own profile's by default). Days are UTC; `until` a day includes that whole day. Any mistake is one
`ValueError` line naming the term. No Textual, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from paytui.actions.journal import STATES
from paytui.actions.operation_names import OPERATION_NAMES

__all__ = ["FILTER_KEYS", "OUTCOMES", "AuditFilter", "parse_filter", "parse_moment"]

#: What `outcome:` accepts: a journal state, or "refused" (stopped before anything was sent).
OUTCOMES: tuple[str, ...] = (*STATES, "refused")
#: Filter keys -> `AuditFilter` fields.
FILTER_KEYS = {
    "profile": "profile",
    "client": "client_id",
    "action": "operation",
    "charge": "charge_id",
    "outcome": "outcome",
    "agent": "agent",
    "since": "since",
    "until": "until",
}


def parse_moment(text: str, *, end: bool = False) -> datetime:
    """``2026-01-31`` (a UTC day; with `end`, the moment after it) or an ISO time (UTC when it
    names no zone). ValueError otherwise."""
    value = text.strip()
    try:
        if len(value) == 10:
            day = datetime.fromisoformat(value).replace(tzinfo=UTC)
            return day + timedelta(days=1) if end else day
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not a day (2026-01-31) or an ISO time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class AuditFilter:
    """What `Journal.audit` is asked for (None: any)."""

    profile: str | None = None
    client_id: str | None = None
    operation: str | None = None
    charge_id: str | None = None
    outcome: str | None = None
    agent: str | None = None
    """Who acted (a team journal's agent, `Journal.audit`'s `agent`)."""
    since: datetime | None = None
    until: datetime | None = None

    def kwargs(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def checked(self) -> AuditFilter:
        """Itself, or ValueError for an unknown action or outcome. An action may be named as
        History's Action column shows it (`Operation.short`: `message` for `send_message`)."""
        if self.operation is not None and self.operation not in OPERATION_NAMES:
            # Not a name the table starts with: the table itself (a short word, an added one).
            from paytui.actions.operations import OPERATIONS

            if self.operation in OPERATIONS:
                return self._checked_outcome()
            shown = {spec.short: name for name, spec in OPERATIONS.items()}
            if self.operation in shown:
                return replace(self, operation=shown[self.operation]).checked()
            raise ValueError(f"action: one of {', '.join(OPERATIONS)}")
        return self._checked_outcome()

    def _checked_outcome(self) -> AuditFilter:
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"outcome: one of {', '.join(OUTCOMES)}")
        return self


def parse_filter(text: str) -> AuditFilter:
    """The filter line as an `AuditFilter`; ValueError (one line) for a term it cannot read."""
    values: dict[str, Any] = {}
    for term in text.split():
        key, sep, value = term.partition(":")
        name = FILTER_KEYS.get(key.lower())
        if not sep or name is None or not value:
            keys = ", ".join(f"{k}:" for k in FILTER_KEYS)
            raise ValueError(f"{term!r}: use {keys}")
        if name in {"since", "until"}:
            values[name] = parse_moment(value, end=name == "until")
        else:
            values[name] = value
    return AuditFilter(**values).checked()
