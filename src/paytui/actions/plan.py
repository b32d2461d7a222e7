"""What one action will do, prepared by its operation and run by the executor's pipeline.

An operation's `prepare` (in `paytui.actions.ops`) checks its input, reads what it must read
first, and returns a `Plan`: the target, the amount that moves, what the journal keeps of the
request (`journal_summary`: an allow-list, redacted) and how to send it. The executor never looks
inside `send`; it only decides whether and when to call it, once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from paytui.api.errors import redact

__all__ = ["Plan", "amount_identity", "journal_summary", "mask_token"]


@dataclass
class Plan:
    """Everything the pipeline needs for one action."""

    operation: str
    target: str  # the in-flight key: the charge id (the account for a new charge)
    charge_id: str | None
    amount: Decimal | None
    summary: dict[str, Any]
    send: Callable[[str], Awaitable[Any]]
    retry_of: int | None = None
    desired: dict[str, Any] | None = None
    original: Any = None
    #: The executor's in-flight slot, set by the pipeline.
    slot: Any = field(default=None, repr=False)
    #: What makes two actions of this operation on this target "the same" (a refund's amount,
    #: a token's card): a recent success with the same identity needs an explicit "again".
    #: None: the operation has no such rule (an edit, a delete).
    identity: str | None = None
    #: The id of what `send` answered, for an answer the executor's own types do not name (a
    #: message: `paytui.actions.ops.conversation`); None: the executor's own rule.
    result_id_of: Callable[[Any], str | None] | None = None
    #: What the preparation read of the target (the charge, the authorization, the
    #: conversation): the registry's rule of the operation is asked of it before anything is
    #: written or sent (`ActionExecutor.run`). None: it read nothing.
    subject: Any = None


def _clean(value: Any) -> tuple[Any, bool]:
    """`value` with every string redacted (card-like digit runs, bearer tokens, secrets);
    the flag says whether anything changed (then the summary cannot be used to retry)."""
    if isinstance(value, str):
        cleaned = redact(value)
        return cleaned, cleaned != value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            new_key, key_changed = _clean(str(key))
            out[new_key], item_changed = _clean(item)
            changed = changed or key_changed or item_changed
        return out, changed
    if isinstance(value, list | tuple):
        items = [_clean(item) for item in value]
        return [item for item, _ in items], any(flag for _, flag in items)
    if isinstance(value, Decimal):
        return str(value), False
    return value, False


def journal_summary(**fields: Any) -> dict[str, Any]:
    """A journal summary from an allow-list of fields (None left out), redacted."""
    kept = {key: value for key, value in fields.items() if value is not None}
    cleaned: dict[str, Any]
    cleaned, changed = _clean(kept)
    if changed:
        cleaned["redacted"] = True
    return cleaned


def mask_token(token_id: str) -> str:
    return f"{token_id[:3]}…{token_id[-4:]}" if len(token_id) > 8 else "…"


def amount_identity(amount: Decimal | None) -> str | None:
    """A refund's identity: its amount (None: "whatever is left", never identical)."""
    return f"amount={amount:.2f}" if amount is not None else None
