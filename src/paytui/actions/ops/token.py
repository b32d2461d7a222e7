"""Stored cards: a new token (POST /v2/tokens) and a change of one (PUT). A token takes no
attributes, so its trace is the card: before a create, the account's tokens that already hold it
are journaled (digests of their ids), and a read-back looks for exactly one new one
(`paytui.actions.tokens`). The journal keeps last four, expiry, holder and country — never the
number."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.actions import tokens
from paytui.actions.errors import ActionError, NotRetryable, PrecheckFailed
from paytui.actions.operation import (
    TOKENS_ALL,
    Asked,
    BadOption,
    CommandLine,
    Executor,
    Operation,
    Option,
)
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.errors import ApiError
from paytui.api.models import Token, TokenRequest, TokenUpdate

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient


@dataclass(frozen=True)
class CreateParams:
    """The card to store; its target is the account (`request.account_id`)."""

    request: TokenRequest


@dataclass(frozen=True)
class UpdateParams:
    """What changes of the token (what is not given is kept). `complete_contact`: the token is
    read first (one it does not have is refused before anything is sent), and a holder's contact
    given in part (the command line's ``--last-name`` alone) is sent whole, its other fields
    read from it — a service that replaces the contact whole keeps them."""

    update: TokenUpdate
    complete_contact: bool = False


async def prepare_create(
    executor: Executor, account_id: str, params: CreateParams, asked: Asked
) -> Plan:
    request = params.request
    if account_id != request.account_id:
        raise ActionError("A token is stored on the account its request names")
    try:
        before = await tokens.same_card_before(executor.client, request)
    except ApiError as err:
        raise PrecheckFailed(f"Could not read the account's tokens: {err}") from err
    fields = tokens.create_summary(request, before)

    async def send(_ref: str) -> Token:
        return await executor.client.create_token(request)

    return Plan(
        "token_create",
        request.account_id,
        None,
        None,
        journal_summary(**fields),
        send,
        asked.retry_of,
        # The read-back's card, unmasked while this executor runs.
        desired={key: value for key, value in fields.items() if value is not None},
        original=request,
        identity=tokens.card_identity(request),
    )


async def prepare_update(
    executor: Executor, token_id: str, params: UpdateParams, asked: Asked
) -> Plan:
    if not token_id:
        raise ActionError("No token given")
    update = params.update
    fields = tokens.update_summary(token_id, update)
    if all(value is None for key, value in fields.items() if key != "token_id"):
        raise ActionError("Nothing to change")
    if params.complete_contact:
        update = await _completed(executor, token_id, update)
        fields = tokens.update_summary(token_id, update)

    async def send(_ref: str) -> Token:
        return await executor.client.update_token(token_id, update)

    return Plan(
        "token_update",
        token_id,
        token_id,
        None,
        journal_summary(**fields),
        send,
        asked.retry_of,
        desired=fields,
        original=update,
    )


async def _completed(executor: Executor, token_id: str, update: TokenUpdate) -> TokenUpdate:
    """`update` with a contact given in part completed from the token as it is (read now).

    The token is read whatever is given, so a token the service does not have is refused
    before anything is sent (exit 5, as for a holder's field), never found out by a PUT."""
    from paytui.api.models import Contact

    try:
        token = await executor.client.get_token(token_id)
    except ApiError as err:
        raise PrecheckFailed(f"Could not read the token ({err})") from err
    method = update.payment_method
    given = method.contact if method is not None else None
    if method is None or given is None:
        return update
    held = getattr(token.payment_method, "contact", None)
    whole = {
        name: getattr(given, name)
        if getattr(given, name) is not None
        else getattr(held, name, None)
        for name in tokens.CONTACT_FIELDS
    }
    contact = Contact(**whole)
    return update.model_copy(
        update={"payment_method": method.model_copy(update={"contact": contact})}
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


def create_params_of(entry: JournalEntry, original: Any) -> tuple[str, CreateParams]:
    if not isinstance(original, TokenRequest):
        raise NotRetryable("The card number of a new token is never stored; enter it again")
    return original.account_id, CreateParams(original)


def update_params_of(entry: JournalEntry, original: Any) -> tuple[str, UpdateParams]:
    summary = entry.request_summary
    update = original if isinstance(original, TokenUpdate) else tokens.update_of(summary)
    return str(summary.get("token_id") or entry.charge_id or ""), UpdateParams(update)


def card_of(params: CreateParams) -> str | None:
    """The same card stored on the account recently needs "again" (`RecentlyDone`)."""
    return tokens.card_identity(params.request)


def _expiration_problem(text: str) -> str | None:
    from datetime import UTC, datetime

    from paytui.validation import check_expiration

    return check_expiration(text, datetime.now(UTC))


def _country_problem(text: str) -> str | None:
    from paytui.validation import check_country

    return check_country(text) if text else None


def _card_problem(text: str) -> str | None:
    from paytui.cards import normalize_number
    from paytui.validation import check_card_number

    return check_card_number(normalize_number(text))


def command_params(
    target: str,
    *,
    expiration: str,
    card_number: str,
    first_name: str | None = None,
    last_name: str | None = None,
    country: str | None = None,
) -> CreateParams:
    """`paytui tokens create`'s options as the service's request (the card number typed at a
    prompt or read from stdin, checked already)."""
    from pydantic import SecretStr

    from paytui.api.models import Contact, TokenCreatePaymentMethodRequest
    from paytui.cards import normalize_number

    names = {"first_name": first_name, "last_name": last_name}
    upper = country.upper() if country else None
    contact = Contact(**names, country=upper) if any([*names.values(), upper]) else None
    method = TokenCreatePaymentMethodRequest(
        card_number=SecretStr(normalize_number(card_number)),
        expiration_date=expiration,
        contact=contact,
    )
    return CreateParams(TokenRequest(account_id=target, payment_method=method))


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
    params=CreateParams,
    prepare=prepare_create,
    params_of=create_params_of,
    identity_of=card_of,
    action="create_token",
    no_bulk="each card number is typed, never one value for many",
    command=CommandLine(
        "tokens create",
        "Store a card. The number is typed at a prompt (no echo) or read as one line from "
        "stdin; never an argument.",
        target="the account to store it on",
        target_flag="--account",
        options=(
            Option(
                "expiration",
                "the card's expiry",
                metavar="YYYY-MM",
                required=True,
                check=_expiration_problem,
            ),
            Option("first_name", "the holder's first name", metavar="FIRST_NAME"),
            Option("last_name", "the holder's last name", metavar="LAST_NAME"),
            Option("country", "the holder's country", metavar="CC", check=_country_problem),
            Option(
                "card_number",
                "the card number",
                kind="secret",
                check=_card_problem,
                said_as="card number",
            ),
        ),
        params=command_params,
        ask=None,  # a new token moves no money: nothing is asked
        again="store it although the same card was stored on this account recently",
        again_hint="Pass --again to store it again.",
        record_amount=True,  # when it did not go through: the record of `refunds create`
        result_columns="TOKEN_COLUMNS",
    ),
)


def update_command_params(
    target: str,
    *,
    expiration: str | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
    country: str | None = None,
) -> UpdateParams:
    """`paytui tokens update`'s options as the service's update: what is not given is kept
    (the holder's other names read from the token and sent with the one given). None given:
    `BadOption`, before anything is asked."""
    from paytui.api.models import Contact, TokenUpdatePaymentMethod

    if expiration is None and not any([first_name, last_name, country]):
        raise BadOption(
            "Nothing to change: give --expiration, --first-name, --last-name or --country"
        )
    names = {"first_name": first_name, "last_name": last_name}
    upper = country.upper() if country else None
    contact = Contact(**names, country=upper) if any([*names.values(), upper]) else None
    method = None
    if expiration is not None or contact is not None:
        method = TokenUpdatePaymentMethod(expiration_date=expiration, contact=contact)
    return UpdateParams(TokenUpdate(payment_method=method), complete_contact=True)


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
    params=UpdateParams,
    prepare=prepare_update,
    params_of=update_params_of,
    action="update_token",
    no_bulk="tokens are not marked on any list (marks hold charges)",
    command=CommandLine(
        "tokens update",
        "Change a stored card: its expiry, its holder's names or country, the rest kept"
        " (journaled, sent once).",
        target="the token",
        options=(
            Option(
                "expiration", "the card's new expiry", metavar="YYYY-MM", check=_expiration_problem
            ),
            Option("first_name", "the holder's first name", metavar="FIRST_NAME"),
            Option("last_name", "the holder's last name", metavar="LAST_NAME"),
            Option("country", "the holder's country", metavar="CC", check=_country_problem),
        ),
        params=update_command_params,
        ask="Change token {target}",
        record_key="token_id",
    ),
)
