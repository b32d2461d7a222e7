"""Stored cards: a new token (POST /v2/tokens) and a change of one (PUT). A token takes no
attributes, so its trace is the card: before a create, the account's tokens that already hold it
are journaled (digests of their ids), and a read-back looks for exactly one new one
(`paytui.actions.tokens`). The journal keeps last four, expiry, holder and country — never the
number."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from paytui.actions import tokens
from paytui.actions.errors import ActionError, NotRetryable, PrecheckFailed
from paytui.actions.operation import TOKENS_ALL, Executor, Operation
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.errors import ApiError
from paytui.api.models import Token, TokenRequest, TokenUpdate

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.client import PaymentClient


async def prepare_create(
    executor: Executor, request: TokenRequest, stored: list[Token], retry_of: int | None
) -> Plan:
    """`stored` receives the token the service answers (the outcome carries it)."""
    try:
        before = await tokens.same_card_before(executor.client, request)
    except ApiError as err:
        raise PrecheckFailed(f"Could not read the account's tokens: {err}") from err
    fields = tokens.create_summary(request, before)

    async def send(_ref: str) -> Token:
        token = await executor.client.create_token(request)
        stored.append(token)
        return token

    return Plan(
        "token_create",
        request.account_id,
        None,
        None,
        journal_summary(**fields),
        send,
        retry_of,
        # The read-back's card, unmasked while this executor runs.
        desired={key: value for key, value in fields.items() if value is not None},
        original=request,
        identity=tokens.card_identity(request),
    )


async def prepare_update(
    executor: Executor,
    token_id: str,
    update: TokenUpdate,
    stored: list[Token],
    retry_of: int | None,
) -> Plan:
    fields = tokens.update_summary(token_id, update)
    if all(value is None for key, value in fields.items() if key != "token_id"):
        raise ActionError("Nothing to change")

    async def send(_ref: str) -> Token:
        token = await executor.client.update_token(token_id, update)
        stored.append(token)
        return token

    return Plan(
        "token_update",
        token_id,
        token_id,
        None,
        journal_summary(**fields),
        send,
        retry_of,
        desired=fields,
        original=update,
    )


async def read_back_create(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    try:
        return await tokens.read_back_create(client, entry, desired)
    except tokens.TokensUnprovable as err:
        raise Unprovable(str(err)) from err


async def read_back_update(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    try:
        return await tokens.read_back_update(client, entry, desired)
    except tokens.TokensUnprovable as err:
        raise Unprovable(str(err)) from err


async def resend_create(
    executor: Executor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    if not isinstance(original, TokenRequest):
        raise NotRetryable("The card number of a new token is never stored; enter it again")
    stored: list[Token] = []
    outcome = await executor.perform(
        "token_create",
        original.account_id,
        lambda: prepare_create(executor, original, stored, entry.id),
    )
    return with_token(outcome, stored)


async def resend_update(
    executor: Executor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    summary = entry.request_summary
    update = original if isinstance(original, TokenUpdate) else tokens.update_of(summary)
    token_id = str(summary.get("token_id") or entry.charge_id or "")
    stored: list[Token] = []
    outcome = await executor.perform(
        "token_update",
        token_id,
        lambda: prepare_update(executor, token_id, update, stored, entry.id),
    )
    return with_token(outcome, stored)


def with_token(outcome: ActionOutcome, stored: list[Token]) -> ActionOutcome:
    """The outcome with the token the service answered (`result`) when it does not carry one
    already (a read-back's outcome carries the token it found)."""
    if outcome.result is not None or not outcome.succeeded:
        return outcome
    token = next((t for t in stored if t.token_id == outcome.result_id), None)
    if token is None:
        return outcome
    return replace(outcome, result=token)


CREATE_SPEC = Operation(
    "token_create",
    noun="new token",
    label="Creating a token",
    short="new token",
    scope=TOKENS_ALL,
    success="Token {result_id} stored",
    result_noun="token",
    target_key="account_id",
    names_a_charge=False,
    read_back=read_back_create,
    resend=resend_create,
)
UPDATE_SPEC = Operation(
    "token_update",
    noun="change of a token",
    label="Updating a token",
    short="edit token",
    scope=TOKENS_ALL,
    success="Token {result_id} updated",
    result_noun="token",
    names_a_charge=False,
    read_back=read_back_update,
    resend=resend_update,
)
