"""Stored card tokens as journaled actions: what the journal keeps, and how a read-back proves
whether a token create or update happened (docs/money-safety.md, docs/api-assumptions.md).

A token carries no attributes, so unlike a charge or a refund it cannot carry ``paytui_ref``.
Its trace is the card itself:

- **token create**: before sending, the executor lists the account's tokens and keeps (in the
  journal summary, `tokens_before`) those that already hold this card — the same last four, card
  expiry and holder — as one-way `fingerprint`s of their ids. A read-back lists the account's
  tokens again: exactly one token of this card that is not among them is the one stored →
  "succeeded"; none in a complete listing → "not_applied" (after the deadline, as for every
  action); more than one → unprovable (the entry stays "unknown"). A listing longer than
  `MAX_PAGES` pages, or one with items that could not be read, proves nothing either. Only when
  the tokens before are not known (the account held too many to list) does the creation time
  decide "new": at or after the intent, less `CLOCK_TOLERANCE`. The ids need no clock; a time
  compares paytui's clock with the service's, and a service clock running behind would hide the
  token stored — a wrong "not applied" that invites storing it twice.
- **token update** (PUT, idempotent): the token read back shows what was sent (card expiry,
  holder fields sent, the token expiry's UTC day).

The journal never holds the card number: the summary keeps last four, expiry, holder and
country (`create_summary`), and the executor redacts every string of it again. No Textual.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from paytui.api.errors import NotFoundError
from paytui.api.models import Token, TokenRequest, TokenUpdate, TokenUpdatePaymentMethod

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.read_backs import ReadBack
    from paytui.api.client import PaymentClient

__all__ = [
    "CLOCK_TOLERANCE",
    "CONTACT_FIELDS",
    "MAX_PAGES",
    "PAGE_SIZE",
    "TokensUnprovable",
    "card_identity",
    "create_summary",
    "fingerprint",
    "read_back_create",
    "read_back_update",
    "same_card_before",
    "update_of",
    "update_summary",
]

#: How far the service's clock may lag paytui's: a token created this long before the intent
#: may still be the one it sent. (Used only when the ids of the tokens of this card before
#: sending are not known; with them, no clock is compared.)
CLOCK_TOLERANCE = timedelta(minutes=5)
#: Pages of the account's tokens a listing reads at most (as the other read-backs).
MAX_PAGES = 5
PAGE_SIZE = 100
#: The holder fields of a token's card, as sent and as shown.
CONTACT_FIELDS = ("first_name", "last_name", "country")


class TokensUnprovable(Exception):
    """The account's tokens cannot prove it either way (too many, unreadable, ambiguous)."""


def fingerprint(token_id: str) -> str:
    """A token's id as the journal keeps the tokens seen before sending: a one-way digest (a
    full token id is never written down, only the token an action made or changed)."""
    digest = hashlib.blake2b(token_id.encode(), digest_size=10).digest()
    return base64.b32encode(digest).decode().lower()


def _text(value: object) -> str:
    """A field as compared: trimmed and case-folded ("" for none)."""
    return str(value).strip().casefold() if value is not None else ""


def _card(request: TokenRequest) -> dict[str, str | None]:
    """The card to store as the journal may keep it: last four, expiry, holder and country."""
    method = request.payment_method
    number = method.card_number.get_secret_value()
    digits = "".join(ch for ch in number if ch.isdigit())
    contact = method.contact
    return {
        "last4": digits[-4:] if len(digits) >= 4 else None,
        "expiration_date": method.expiration_date,
        "first_name": contact.first_name if contact is not None else None,
        "last_name": contact.last_name if contact is not None else None,
        "country": contact.country.upper() if contact is not None and contact.country else None,
    }


def card_identity(request: TokenRequest) -> str:
    """What makes two token creates on one account "the same": the card's last four, expiry
    and holder (``"1111|2031-09|ada lovelace"``)."""
    card = _card(request)
    holder = " ".join(p for p in (_text(card["first_name"]), _text(card["last_name"])) if p)
    return f"{card['last4'] or ''}|{card['expiration_date'] or ''}|{holder}"


def create_summary(request: TokenRequest, tokens_before: list[str] | None) -> dict[str, Any]:
    """The journal fields of a token create (the executor's `_summary` redacts and drops
    None): the account, the card without its number, the token expiry asked for, and the ids
    of the account's tokens of this card before sending, as fingerprints (None: the listing
    was too long)."""
    expiry = request.token_expiration_date
    return {
        "account_id": request.account_id,
        **_card(request),
        "token_expiration_date": expiry.isoformat() if expiry is not None else None,
        "tokens_before": tokens_before,
    }


def _matches(token: Token, card: Mapping[str, Any]) -> bool:
    """The token holds this card: last four, expiry, holder names and country (the ones sent)."""
    method = token.payment_method
    if method is None or token.last4 != card.get("last4"):
        return False
    if _text(getattr(method, "expiration_date", None)) != _text(card.get("expiration_date")):
        return False
    contact = method.contact
    return all(
        _text(getattr(contact, name, None)) == _text(card.get(name))
        for name in CONTACT_FIELDS
        if card.get(name)
    )


async def _account_tokens(client: PaymentClient, account_id: str) -> list[Token]:
    """Every token of the account (at most `MAX_PAGES` pages), checked client-side (a service
    that ignored the filter cannot mix in another account's). `TokensUnprovable` when there
    are more, or when some could not be read (one of them could be ours)."""
    tokens: list[Token] = []
    offset = 0
    for _ in range(MAX_PAGES):
        page = await client.list_tokens_page(account_id=account_id, limit=PAGE_SIZE, offset=offset)
        if page.unreadable:
            raise TokensUnprovable("some of the account's tokens could not be read")
        tokens.extend(t for t in page.items if t.account_id in (None, account_id))
        if not page.has_more or not page.items:
            return tokens
        offset = page.next_offset
    raise TokensUnprovable("the account holds too many tokens to be sure")


async def same_card_before(client: PaymentClient, request: TokenRequest) -> list[str] | None:
    """Before sending: the account's tokens that already hold this card, as `fingerprint`s
    (None when the account holds too many tokens to list). Raises `ApiError` when the list
    cannot be read."""
    try:
        tokens = await _account_tokens(client, request.account_id)
    except TokensUnprovable:
        return None
    card = _card(request)
    return sorted(fingerprint(t.token_id) for t in tokens if _matches(t, card))


async def read_back_create(
    client: PaymentClient, entry: JournalEntry, desired: Mapping[str, Any] | None = None
) -> ReadBack:
    """Find the token `entry` stored: see the module's docstring. `desired`: the summary as the
    executor still holds it unmasked (else the journal's). Raises `ApiError` (the list could
    not be read) or `TokensUnprovable`."""
    from paytui.actions.read_backs import ReadBack

    summary = desired if desired is not None else entry.request_summary
    account = str(summary.get("account_id") or "")
    if (desired is None and summary.get("redacted")) or not summary.get("last4"):
        raise TokensUnprovable("the journal holds only a masked copy of the card")
    before = summary.get("tokens_before")
    known = isinstance(before, list)
    excluded = set(before) if isinstance(before, list) else set()
    since = entry.created_at - CLOCK_TOLERANCE

    def new_since_intent(token: Token) -> bool:
        # The ids of the tokens of this card before sending say it without any clock; only
        # without them is the creation time asked (paytui's clock against the service's).
        if known:
            return fingerprint(token.token_id) not in excluded
        return token.created_timestamp is None or token.created_timestamp >= since

    found = [
        token
        for token in await _account_tokens(client, account)
        if _matches(token, summary) and new_since_intent(token)
    ]
    if not found:
        return ReadBack("not_applied")
    if len(found) > 1:
        ids = ", ".join(t.token_id for t in found[:3])
        raise TokensUnprovable(f"{len(found)} new tokens of this card ({ids}); cannot tell which")
    (token,) = found
    return ReadBack("succeeded", token.token_id, result=token)


def _update_fields(update: TokenUpdate) -> dict[str, Any]:
    method = update.payment_method
    contact = method.contact if method is not None else None
    expiry = update.token_expiration_date
    return {
        "expiration_date": method.expiration_date if method is not None else None,
        **{name: getattr(contact, name, None) for name in CONTACT_FIELDS},
        "token_expiration_date": expiry.astimezone(UTC).isoformat() if expiry else None,
    }


def update_summary(token_id: str, update: TokenUpdate) -> dict[str, Any]:
    """The journal fields of a token update (what was sent; no secrets in it): the token and
    each field sent (None: not sent)."""
    return {"token_id": token_id, **_update_fields(update)}


def update_of(summary: Mapping[str, Any]) -> TokenUpdate:
    """The update a journal summary describes (for a retry in a later run)."""
    from paytui.api.models import Contact

    names = {name: summary.get(name) for name in CONTACT_FIELDS}
    contact = Contact(**names) if any(names.values()) else None
    expiry = summary.get("expiration_date")
    method = None
    if expiry is not None or contact is not None:
        method = TokenUpdatePaymentMethod(expiration_date=expiry, contact=contact)
    until = summary.get("token_expiration_date")
    return TokenUpdate(
        payment_method=method,
        token_expiration_date=datetime.fromisoformat(until) if until else None,
    )


async def read_back_update(
    client: PaymentClient, entry: JournalEntry, desired: Mapping[str, Any] | None
) -> ReadBack:
    """GET the token: every field sent shows on it → "succeeded"; otherwise "not_applied" (a
    PUT is idempotent). The token expiry is compared by its UTC day (the service may keep a
    day, not the instant sent)."""
    from paytui.actions.read_backs import ReadBack

    wanted = desired if desired is not None else entry.request_summary
    if desired is None and wanted.get("redacted"):
        raise TokensUnprovable("the journal holds only a masked copy of the change")
    token_id = str(wanted.get("token_id") or entry.charge_id or "")
    try:
        token = await client.get_token(token_id)
    except NotFoundError:
        return ReadBack("not_applied")
    method = token.payment_method
    contact = getattr(method, "contact", None)
    shown = {
        "expiration_date": getattr(method, "expiration_date", None),
        **{name: getattr(contact, name, None) for name in CONTACT_FIELDS},
    }
    same = all(
        _text(shown[name]) == _text(wanted.get(name))
        for name in shown
        if wanted.get(name) is not None
    )
    until = wanted.get("token_expiration_date")
    if until is not None:
        asked = datetime.fromisoformat(str(until)).astimezone(UTC).date()
        held = token.token_expiration_date
        same = same and held is not None and held.astimezone(UTC).date() == asked
    if not same:
        return ReadBack("not_applied")
    return ReadBack("succeeded", token.token_id, result=token)
