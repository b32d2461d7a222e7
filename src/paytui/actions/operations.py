"""Every operation that changes money or data on the service, described once.

One `Operation` per thing paytui can do to the service: its name in the journal, the words for
it, the scope it needs, whether money moves, where its target is kept, whether it may be done in
bulk, the request it stands for (copy as curl), how to prove it happened (`read_back`) and how to
send it again from its journal entry (`resend`). The journal, the policy, the executor,
reconcile, batch, History, the clipboard and the command line read this table, so adding an
operation is one entry here plus its client call, its executor method, its dialog and its
binding (docs/adding-an-operation.md).

The sandbox keeps its own list of what it can fail on purpose (`paytui.sandbox.faults`): it may
not import the client's side.

No Textual, no I/O at import: the read-backs are plain functions (`paytui.actions.read_backs`)
and the executor is only named for the type checker.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from paytui.actions import read_backs
from paytui.actions.errors import NotRetryable

if TYPE_CHECKING:
    from paytui.actions.executor import ActionExecutor, ActionOutcome
    from paytui.actions.journal import JournalEntry
    from paytui.actions.read_backs import ReadBack
    from paytui.api.client import PaymentClient

__all__ = [
    "BULK",
    "MONEY",
    "OPERATIONS",
    "Operation",
    "OperationName",
    "operation",
]

OperationName = Literal[
    "capture",
    "refund",
    "charge",
    "update_charge",
    "update_refund",
    "distribute",
    "plugin_session",
    "plugin_delete",
    "account_create",
    "token_create",
    "token_update",
]

CHARGES_ALL = "urn:v2:charges:all"
REFUNDS_ALL = "urn:v2:refunds:all"
TOKENS_ALL = "urn:v2:tokens:all"
DISTRIBUTE = "urn:v2:charges:distribute:create"
PLUGINS_ALL = "urn:v2:plugins:all"
ACCOUNTS_ALL = "urn:v2:accounts:all"

#: (method, path, query, JSON body) of a request, as `paytui.api.curl` writes it.
Request = tuple[str, str, list[tuple[str, str]] | None, Any]
ReadBackFn = Callable[
    ["PaymentClient", "JournalEntry", dict[str, Any] | None], Awaitable["ReadBack"]
]
ResendFn = Callable[["ActionExecutor", "JournalEntry", Any, str | None], Awaitable["ActionOutcome"]]


@dataclass(frozen=True)
class Operation:
    """One operation. `name` is what the journal records; the words are for sentences.

    - `noun`: "The same {noun} is being sent…", "A later {noun} of the same charge…".
    - `label`: the subject of a policy refusal ("{label} is off: this profile is read-only").
    - `short`: History's Action column.
    - `done`: what was done, in "refunded 5.00 by … 4 s ago".
    - `success`: the line when it went through (`{result_id}`, `{amount}`: " 5.00" or "").
    - `result_noun`: what its result id names ("new charge 3f2a…"); None: it makes nothing.
    - `target_key`: where the journal keeps its target when that is not a charge (the summary
      key); None: the journal's `charge_id` column.
    - `names_a_charge`: the journal's `charge_id` is a charge History can open (not a refund's,
      a token's or an account's id).
    - `bulk_label` / `bulk_noun`: set when it may be done on many marked charges at once.
    """

    name: OperationName
    noun: str
    label: str
    short: str
    scope: str
    success: str
    read_back: ReadBackFn
    resend: ResendFn
    moves_money: bool = False
    done: str = "done"
    result_noun: str | None = None
    target_key: str | None = None
    names_a_charge: bool = True
    bulk_label: str | None = None
    bulk_noun: str | None = None
    request: Callable[[str, dict[str, Any]], Request | None] | None = None

    def request_of(self, entry: JournalEntry) -> Request | None:
        """The request an entry stands for, as far as the journal keeps it (None: not kept)."""
        if self.request is None:
            return None
        summary = dict(entry.request_summary or {})
        summary.pop("redacted", None)
        return self.request(entry.charge_id or "", summary)

    def result_word(self, entry: JournalEntry) -> str:
        """ "new charge 3f2a…", or the journal entry when it made nothing that has an id."""
        if entry.result_id:
            return f"{self.result_noun or 'entry'} {entry.result_id}"
        return f"journal entry #{entry.id}"


# -- sending again from the journal (`ActionExecutor.retry`) ------------------------------------


def _decimal(value: Any) -> Decimal | None:
    return Decimal(str(value)) if value is not None else None


async def _resend_capture(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    summary = entry.request_summary
    return await executor.capture(
        entry.charge_id or "",
        convenience_fee=_decimal(summary.get("convenience_fee")),
        supplemental_fee=_decimal(summary.get("supplemental_fee")),
        confirmation=confirmation,
        _retry_of=entry.id,
    )


async def _resend_refund(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    summary = entry.request_summary
    return await executor.refund(
        entry.charge_id or "",
        _decimal(summary.get("total_amount")),
        reason=summary.get("reason"),
        tags=summary.get("tags"),
        attributes=summary.get("attributes"),
        confirmation=confirmation,
        _retry_of=entry.id,
    )


async def _resend_charge(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    from paytui.api.models import ChargeRequest

    if not isinstance(original, ChargeRequest):
        raise NotRetryable("The card details of a new charge are never stored; enter it again")
    return await executor.create_charge(original, confirmation=confirmation, _retry_of=entry.id)


async def _resend_labels(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    summary = entry.request_summary
    is_refund = entry.operation == "update_refund"
    update = executor.update_refund if is_refund else executor.update_charge
    return await update(
        entry.charge_id or "",
        tags=summary.get("tags"),
        attributes=summary.get("attributes"),
        _retry_of=entry.id,
    )


async def _resend_distribute(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    return await executor.distribute(entry.charge_id or "", _retry_of=entry.id)


async def _resend_plugin_delete(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    session_id = str(entry.request_summary.get("session_id", ""))
    return await executor.delete_plugin_session(session_id, _retry_of=entry.id)


def _journaled_request(entry: JournalEntry, original: Any) -> Any:
    """The request of a plugin session or account: the one this run sent, else the journal's
    copy (kept whole: these hold no card or bank number)."""
    from paytui.api.plugins import (
        AccountRequest,
        EnrollmentPluginSessionRequest,
        PaymentPluginSessionRequest,
    )

    if original is not None:
        return original
    summary = entry.request_summary
    body = summary.get("request")
    if summary.get("redacted") or not isinstance(body, dict):
        raise NotRetryable("Its details are kept masked in the journal; start it again")
    if entry.operation == "account_create":
        return AccountRequest.model_validate(body)
    if summary.get("kind") == "payment":
        return PaymentPluginSessionRequest.model_validate(body)
    return EnrollmentPluginSessionRequest.model_validate(body)


async def _resend_plugin_session(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    return await executor.create_plugin_session(
        _journaled_request(entry, original), _retry_of=entry.id
    )


async def _resend_account(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    return await executor.create_account(_journaled_request(entry, original), _retry_of=entry.id)


async def _resend_token_create(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    from paytui.api.models import TokenRequest

    if not isinstance(original, TokenRequest):
        raise NotRetryable("The card number of a new token is never stored; enter it again")
    return await executor.create_token(original, _retry_of=entry.id)


async def _resend_token_update(
    executor: ActionExecutor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    from paytui.actions import tokens
    from paytui.api.models import TokenUpdate

    summary = entry.request_summary
    update = original if isinstance(original, TokenUpdate) else tokens.update_of(summary)
    token_id = str(summary.get("token_id") or entry.charge_id or "")
    return await executor.update_token(token_id, update, _retry_of=entry.id)


# -- the table ------------------------------------------------------------------------------------

OPERATIONS: dict[str, Operation] = {
    spec.name: spec
    for spec in (
        Operation(
            "capture",
            success="Captured: new charge {result_id}",
            noun="capture",
            label="Capture",
            short="capture",
            scope=CHARGES_ALL,
            moves_money=True,
            done="captured",
            result_noun="new charge",
            bulk_label="Capture",
            bulk_noun="authorization",
            read_back=read_backs.capture,
            resend=_resend_capture,
            request=lambda charge_id, summary: (
                "POST",
                f"/v2/charges/{charge_id}/capture",
                None,
                summary,
            ),
        ),
        Operation(
            "refund",
            success="Refunded{amount}: refund {result_id}",
            noun="refund",
            label="Refund",
            short="refund",
            scope=REFUNDS_ALL,
            moves_money=True,
            done="refunded",
            result_noun="refund",
            bulk_label="Full refund",
            bulk_noun="charge",
            read_back=read_backs.refund,
            resend=_resend_refund,
            request=lambda charge_id, summary: (
                "POST",
                "/v2/refunds",
                None,
                {"charge_id": charge_id, **summary},
            ),
        ),
        Operation(
            "charge",
            success="Charge {result_id} created",
            noun="charge",
            label="New charge",
            short="new charge",
            scope=CHARGES_ALL,
            moves_money=True,
            result_noun="charge",
            target_key="account_id",
            read_back=read_backs.charge,
            resend=_resend_charge,
        ),
        Operation(
            "update_charge",
            success="Tags and attributes saved",
            noun="change of tags and attributes",
            label="Editing tags and attributes",
            short="edit tags",
            scope=CHARGES_ALL,
            read_back=read_backs.labels,
            resend=_resend_labels,
            request=lambda charge_id, summary: (
                "PATCH",
                f"/v2/charges/{charge_id}",
                None,
                summary,
            ),
        ),
        Operation(
            "update_refund",
            success="Tags and attributes of the refund saved",
            noun="change of the refund's tags and attributes",
            label="Editing a refund's tags and attributes",
            short="edit refund tags",
            scope=REFUNDS_ALL,
            names_a_charge=False,
            read_back=read_backs.labels,
            resend=_resend_labels,
        ),
        Operation(
            "distribute",
            success="Added to distribution {result_id}",
            noun="distribution",
            label="Distributing a charge",
            short="distribute",
            scope=DISTRIBUTE,
            result_noun="distribution",
            read_back=read_backs.distribute,
            resend=_resend_distribute,
            request=lambda charge_id, summary: (
                "POST",
                f"/v2/charges/{charge_id}/distribute",
                None,
                {},
            ),
        ),
        Operation(
            "plugin_session",
            success="Plugin session {result_id} created",
            noun="plugin session",
            label="Creating a plugin session",
            short="plugin session",
            scope=PLUGINS_ALL,
            result_noun="session",
            target_key="target",
            read_back=read_backs.plugin_session,
            resend=_resend_plugin_session,
        ),
        Operation(
            "plugin_delete",
            success="Plugin session {result_id} deleted",
            noun="deletion of a plugin session",
            label="Deleting a plugin session",
            short="delete session",
            scope=PLUGINS_ALL,
            target_key="session_id",
            read_back=read_backs.plugin_delete,
            resend=_resend_plugin_delete,
        ),
        Operation(
            "account_create",
            success="Account {result_id} created",
            noun="new account",
            label="Creating an account",
            short="new account",
            scope=ACCOUNTS_ALL,
            result_noun="account",
            target_key="merchant_id",
            read_back=read_backs.account_create,
            resend=_resend_account,
        ),
        Operation(
            "token_create",
            success="Token {result_id} stored",
            noun="new token",
            label="Creating a token",
            short="new token",
            scope=TOKENS_ALL,
            result_noun="token",
            target_key="account_id",
            names_a_charge=False,
            read_back=read_backs.token_create,
            resend=_resend_token_create,
        ),
        Operation(
            "token_update",
            success="Token {result_id} updated",
            noun="change of a token",
            label="Updating a token",
            short="edit token",
            scope=TOKENS_ALL,
            result_noun="token",
            names_a_charge=False,
            read_back=read_backs.token_update,
            resend=_resend_token_update,
        ),
    )
}

#: Operations that move money: the production typed confirmation, History's amounts.
MONEY = frozenset(name for name, spec in OPERATIONS.items() if spec.moves_money)
#: Operations that may be done on many marked charges at once.
BULK = frozenset(name for name, spec in OPERATIONS.items() if spec.bulk_label)


def operation(name: str) -> Operation:
    """The spec of a journal operation name (KeyError for one paytui does not know)."""
    return OPERATIONS[name]
