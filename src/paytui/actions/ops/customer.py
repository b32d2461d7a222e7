"""A customer's contact (update_customer): `PATCH /v2/customers/{id}` with the email and/or the
phone number, the rest of the customer kept; read back by comparing.

The spec lists PATCH on /customers in the scope table (`urn:v2:customers:all`) and shows no
shape (docs/api-assumptions.md, "Customers"): paytui sends ``email`` and ``phone`` at the top of
the body, and reads a customer's contact where a service may keep it — at the top
(``email``/``email_address``, ``phone``/``phone_number``) or under ``contact``.

The decision is tied to what the person saw: the dialog gives the contact it showed
(`Params.seen`), and the preparation reads the customer again just before sending; a contact
changed meanwhile sends nothing and says what changed (`PrecheckFailed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.actions.errors import ActionError, PrecheckFailed
from paytui.actions.operation import Asked, CommandLine, Executor, Operation, Option
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.errors import NotFoundError
from paytui.limits import check_text

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.families import GenericObject

CUSTOMERS_ALL = "urn:v2:customers:all"
#: The contact's fields paytui changes, and where a service may keep each (first found wins).
CONTACT_KEYS: dict[str, tuple[str, ...]] = {
    "email": ("email", "email_address"),
    "phone": ("phone", "phone_number"),
}


def contact_of(customer: GenericObject | Mapping[str, Any]) -> dict[str, str | None]:
    """The customer's email and phone as the service shows them (None: not shown)."""
    fields = dict(customer) if isinstance(customer, Mapping) else customer.fields()
    nested = fields.get("contact")
    places = [fields, nested] if isinstance(nested, Mapping) else [fields]
    found: dict[str, str | None] = {}
    for name, keys in CONTACT_KEYS.items():
        value = next(
            (p[k] for p in places for k in keys if isinstance(p.get(k), str)),
            None,
        )
        found[name] = value
    return found


def contact_problem(email: str | None = None, phone: str | None = None) -> str | None:
    """Why this contact cannot be sent (None: it can): nothing given, or a field that is not
    one (an email without ``@``, a phone without digits), or over the documented limits."""
    if email is None and phone is None:
        return "Nothing to change: give an email or a phone number"
    if email is not None and (email.count("@") != 1 or " " in email.strip()):
        return f"Not an email address: {email!r}"
    if phone is not None and not any(char.isdigit() for char in phone):
        return f"Not a phone number: {phone!r}"
    for name, value in (("email", email), ("phone", phone)):
        if value is not None and (problem := check_text(name, value)):
            return problem
    return None


@dataclass(frozen=True)
class Params:
    """What replaces the contact (None: kept), and the contact the person saw when deciding
    (`contact_of`; None: nothing was shown, as for a retry or a script without it)."""

    email: str | None = None
    phone: str | None = None
    seen: Mapping[str, str | None] | None = None


def _changed(seen: Mapping[str, str | None], now: Mapping[str, str | None]) -> str | None:
    moved = [
        f"{name} {seen.get(name) or '(none)'} → {now.get(name) or '(none)'}"
        for name in CONTACT_KEYS
        if name in seen and seen.get(name) != now.get(name)
    ]
    if not moved:
        return None
    return "The customer's contact changed since you opened it: " + "; ".join(moved)


async def prepare(executor: Executor, customer_id: str, params: Params, asked: Asked) -> Plan:
    if not customer_id:
        raise ActionError("No customer given")
    email = params.email.strip() if params.email is not None else None
    phone = params.phone.strip() if params.phone is not None else None
    if (problem := contact_problem(email, phone)) is not None:
        raise PrecheckFailed(problem)
    try:
        found = await executor.client.get_object("customers", customer_id)
    except NotFoundError as exc:
        raise PrecheckFailed(f"No customer {customer_id}: {exc}") from exc
    if params.seen is not None and (moved := _changed(params.seen, contact_of(found))):
        raise PrecheckFailed(moved)
    desired = {k: v for k, v in (("email", email), ("phone", phone)) if v is not None}

    async def send(_ref: str) -> GenericObject:
        return await executor.client.update_customer(customer_id, email=email, phone=phone)

    return Plan(
        "update_customer",
        customer_id,
        customer_id,
        None,
        journal_summary(email=email, phone=phone),
        send,
        asked.retry_of,
        desired=desired,
        result_id_of=lambda _answer: customer_id,  # the customer changed is the result
        subject=found,
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """The customer shows the contact sent (wherever it keeps it: `contact_of`)."""
    wanted = desired if desired is not None else entry.request_summary
    if desired is None and wanted.get("redacted"):
        raise Unprovable("the journal holds only a masked copy of the contact")
    customer_id = entry.charge_id or ""
    try:
        found = await client.get_object("customers", customer_id)
    except NotFoundError:
        return ReadBack("not_applied")
    shown = contact_of(found)
    if all(shown.get(name) == wanted[name] for name in CONTACT_KEYS if name in wanted):
        return ReadBack("succeeded", customer_id, result=found)
    return ReadBack("not_applied")


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    summary = entry.request_summary
    return entry.charge_id or "", Params(summary.get("email"), summary.get("phone"))


def _request(customer_id: str, summary: dict[str, Any]) -> tuple[str, str, None, dict[str, Any]]:
    body = {k: summary[k] for k in CONTACT_KEYS if k in summary}
    return ("PATCH", f"/v2/customers/{customer_id}", None, body)


SPEC = Operation(
    "update_customer",
    noun="change of a customer's contact",
    label="Editing a customer's contact",
    short="edit contact",
    scope=CUSTOMERS_ALL,
    success="Contact of {result_id} saved",
    done="changed",
    result_noun="customer",
    names_a_charge=False,
    read_back=read_back,
    params=Params,
    prepare=prepare,
    params_of=params_of,
    action="edit_contact",
    no_bulk="one email or phone number for many customers is nonsense (a contact is one person's); "
    "customers are not marked on Browse",
    command=CommandLine(
        "customers update",
        "Change a customer's contact: the email, the phone number or both, the rest kept"
        " (journaled, sent once).",
        target="the customer",
        options=(
            Option("email", "the new email address", metavar="ADDRESS"),
            Option("phone", "the new phone number", metavar="NUMBER"),
        ),
        ask="Change the contact of customer {target}",
        record_key="customer_id",
    ),
    request=_request,
)
