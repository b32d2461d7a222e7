"""What the plugin session and new account forms send: typed text in, a request or errors out.

Pure functions, no Textual, so every rule is unit-tested without an app. A form hands over its
fields as text (`values`, by the field's id) and its switches (`flags`); the answer is the request
model, or for each field that is wrong one sentence to show under it (nothing is sent, nothing
typed is lost). The rules are the request models' (`paytui.api.plugins`) and the shared ones
(`paytui.plugin_rules`): the same the executor and the sandbox apply.

One-line fields that hold a map (attributes, ``data``) take ``key=value`` pairs separated by
``;`` and read with the app's one attribute grammar (`paytui.tags`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pydantic

from paytui.actions.amounts import AmountError, format_amount, parse_amount
from paytui.api.models import Account, PluginSession
from paytui.api.plugins import (
    AccountRequest,
    EnrollmentPluginSessionRequest,
    PaymentPluginSessionRequest,
    account_limit,
    cap_problem,
    session_cap,
)
from paytui.limits import check_attributes, check_tags, check_text, check_texts
from paytui.plugin_rules import PREPOPULATE_SCOPE, check_tax_fields
from paytui.tags import parse_attributes, parse_tags

__all__ = [
    "FORM",
    "PAYMENT_FIELDS",
    "account_request",
    "enrollment_request",
    "limit_line",
    "limit_text",
    "payment_request",
    "prepopulate_allowed",
    "session_settings",
]

FieldErrors = dict[str, str]

#: Wire name -> form field id, for pydantic's and the service's messages.
PAYMENT_FIELDS = {
    "account_id": "account",
    "charge_type": "charge-type",
    "tokenize": "token-expiry",
    "tokenize.token_expiration_date": "token-expiry",
    "max_attempts": "max-attempts",
    "max_transaction_amount": "max-amount",
    "attributes": "attributes",
    "tags": "tags",
    "payment_methods": "payment-methods",
    "invoice_number": "invoice",
    "po_number": "po",
    "convenience_fee": "convenience-fee",
    "convenience_fee.amount": "convenience-fee",
    "tax_amount": "tax-amount",
    "fields.submit_button": "submit-button",
    "appearance.loader.color": "loader-color",
    "appearance.loader.background_color": "loader-background",
    "appearance.field.color": "field-color",
    "prefix": "prefix",
    "data": "data",
}
ENROLLMENT_FIELDS = {
    "merchant_id": "merchant",
    "attributes": "attributes",
    "tags": "tags",
    "account.attributes": "account-attributes",
    "account.tags": "account-tags",
    "data.account.product_description": "product-description",
    "data.account.processing.max_transaction_amount": "processing-max",
    "data.account.processing.monthly_volume": "monthly-volume",
}
ACCOUNT_FIELDS = {
    "merchant_id": "merchant",
    "name": "name",
    "merchant_category_code": "mcc",
    "tax_authority": "tax-authority",
    "tax_authority_state": "tax-state",
    "attributes": "attributes",
    "tags": "tags",
}


def _pairs(text: str, errors: FieldErrors, field: str) -> dict[str, list[str]] | None:
    """``k=v; k2=v`` (the attribute grammar, `;` for a new line); None when empty or wrong."""
    attributes, message = parse_attributes(text.replace(";", "\n"))
    if message:
        errors[field] = message.replace("Line", "Pair") + " (pairs are separated by ;)"
        return None
    return attributes or None


def _amount(text: str, errors: FieldErrors, field: str) -> Decimal | None:
    if not text.strip():
        return None
    try:
        return parse_amount(text)
    except AmountError as exc:
        errors[field] = exc.message
        return None


def _day(text: str, today: datetime, errors: FieldErrors, field: str) -> datetime | None:
    """A YYYY-MM-DD date in the future, as 00:00 UTC that day."""
    if not text.strip():
        return None
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        errors[field] = "Use YYYY-MM-DD"
        return None
    if day <= today:
        errors[field] = "Must be in the future"
        return None
    return day


#: The key of an error no field owns (shown as the dialog's message).
FORM = "form"


#: Form field id -> its text limit (`paytui.limits`), for the fields typed as they are sent.
TEXT_LIMITS = {
    "prefix": "prefix",
    "submit-button": "submit_button",
    "product-description": "product_description",
    "name": "name",
    "tax-authority": "tax_authority",
}


def _lengths(body: Mapping[str, Any], fields: Mapping[str, str], errors: FieldErrors) -> None:
    """The text limits (`paytui.limits`) on the body's free-text fields, each on its field (the
    request model checks them too, but for the whole request at once)."""
    data = body.get("data")
    if isinstance(data, Mapping) and "data" in fields.values():
        values = [("data_value", value) for value in data.values() if isinstance(value, str)]
        if message := check_texts(values):
            errors.setdefault("data", message)
    for wire in ("invoice_number", "po_number"):
        if (message := check_text(wire, body.get(wire))) and wire in fields:
            errors.setdefault(fields[wire], message)
    for prefix in ("", "account."):
        holder = body.get("account", {}) if prefix else body
        tags = fields.get(f"{prefix}tags")
        if tags and (message := check_tags(holder.get("tags"))):
            errors.setdefault(tags, message)
        attributes = fields.get(f"{prefix}attributes")
        if attributes and (message := check_attributes(holder.get("attributes"))):
            errors.setdefault(attributes, message)


def _merge(errors: FieldErrors, model_errors: FieldErrors) -> None:
    """The model's errors after the form's own (one already said is not repeated)."""
    for field, message in model_errors.items():
        if field != FORM or message not in errors.values():
            errors.setdefault(field, message)


def _build(
    model: type[pydantic.BaseModel], body: dict[str, Any], fields: Mapping[str, str]
) -> tuple[Any, FieldErrors]:
    """The request, or each error on the field it names (one no field owns under `FORM`)."""
    try:
        return model.model_validate(body), {}
    except pydantic.ValidationError as exc:
        errors: FieldErrors = {}
        for error in exc.errors(include_input=False, include_url=False):
            parts = [str(p) for p in error["loc"] if not isinstance(p, int)]
            wire = ".".join(parts)
            field = next(
                (fields[w] for w in (wire, parts[0] if parts else "") if w in fields), None
            )
            message = str(error["msg"]).removeprefix("Value error, ")
            errors.setdefault(field or FORM, message)
        return None, errors


def limit_text(account: Account | None) -> str:
    """The account's processing limit, as the account detail shows it (information: the
    service applies its own limit when the account shows none)."""
    limit = account_limit(account)
    if limit is None:
        return "not shown (the service applies its own)"
    return f"{format_amount(limit)}, fees included"


def limit_line(account: Account | None) -> str:
    """The account's processing limit, as the form says it."""
    return f"Processing limit {limit_text(account)}"


def _text_limits(text: Mapping[str, str], errors: FieldErrors) -> None:
    for field, limit in TEXT_LIMITS.items():
        if message := check_text(limit, text.get(field) or None):
            errors.setdefault(field, message)


def payment_request(
    values: Mapping[str, str],
    flags: Mapping[str, bool],
    account: Account | None,
    today: datetime,
) -> tuple[PaymentPluginSessionRequest | None, FieldErrors]:
    """The payment plugin session the form describes, checked against the account's limit."""
    errors: FieldErrors = {}
    text = {key: value.strip() for key, value in values.items()}
    _text_limits(text, errors)
    body: dict[str, Any] = {"account_id": text.get("account", "")}
    if not body["account_id"]:
        errors["account"] = "Enter the account (pa_…)"
    charge_type = text.get("charge-type", "") or "sale"
    if charge_type not in ("sale", "authorization"):
        errors["charge-type"] = "sale or authorization"
    elif charge_type != "sale":
        body["charge_type"] = charge_type
    expiry = _day(text.get("token-expiry", ""), today, errors, "token-expiry")
    if flags.get("tokenize"):
        body["tokenize"] = {"token_expiration_date": expiry} if expiry else {}
    elif expiry is not None:
        errors["token-expiry"] = "Turn tokenize on to set the token's expiry"
    attempts = text.get("max-attempts", "")
    if attempts:
        if not attempts.isdigit() or int(attempts) < 1:
            errors["max-attempts"] = "A whole number, 1 or more"
        else:
            body["max_attempts"] = int(attempts)
    for field, wire in (("max-amount", "max_transaction_amount"), ("tax-amount", "tax_amount")):
        amount = _amount(text.get(field, ""), errors, field)
        if amount is not None:
            body[wire] = amount
    fee = _amount(text.get("convenience-fee", ""), errors, "convenience-fee")
    if fee is not None:
        body["convenience_fee"] = {"amount": fee}
    if tags := parse_tags(text.get("tags", "")):
        body["tags"] = tags
    if (attributes := _pairs(text.get("attributes", ""), errors, "attributes")) is not None:
        body["attributes"] = attributes
    methods = parse_tags(text.get("payment-methods", ""))
    if methods:
        body["payment_methods"] = methods
    for field, wire in (("invoice", "invoice_number"), ("po", "po_number"), ("prefix", "prefix")):
        if text.get(field):
            body[wire] = text[field]
    if flags.get("captcha"):
        body["captcha"] = True
    if "submit-button" in text and (text["submit-button"] or flags.get("hide-submit")):
        body["fields"] = {
            "submit_button": "" if flags.get("hide-submit") else text["submit-button"]
        }
    appearance: dict[str, Any] = {}
    if flags.get("dark-mode"):
        appearance["dark_mode"] = {"enabled": True}
    loader = {
        wire: text[field]
        for field, wire in (("loader-color", "color"), ("loader-background", "background_color"))
        if text.get(field)
    }
    if loader:
        appearance["loader"] = loader
    if text.get("field-color"):
        appearance["field"] = {"color": text["field-color"]}
    if appearance:
        body["appearance"] = appearance
    if (data := _pairs(text.get("data", ""), errors, "data")) is not None:
        repeated = [key for key, items in data.items() if len(items) > 1]
        if repeated:
            errors["data"] = f"One value per name ({repeated[0]} is given twice)"
        else:
            body["data"] = {key: items[0] for key, items in data.items()}
    _lengths(body, PAYMENT_FIELDS, errors)
    request, model_errors = _build(PaymentPluginSessionRequest, body, PAYMENT_FIELDS)
    _merge(errors, model_errors)
    if errors or request is None:
        return None, errors
    if account is not None and (problem := cap_problem(request, account_limit(account))):
        return None, {"max-amount": problem.removeprefix("max_transaction_amount ").capitalize()}
    return request, {}


def prepopulate_allowed(granted: frozenset[str] | None) -> tuple[bool, str]:
    """Whether the prepopulate fields are on, and the line that says why (scope named).

    Scopes unknown (a static token): on, and the service decides — as for every action."""
    if granted is None:
        return (
            True,
            f"Pre-populating needs {PREPOPULATE_SCOPE} (token scopes unknown: the service decides)",
        )
    if PREPOPULATE_SCOPE in granted:
        return True, f"Pre-populating allowed: the token holds {PREPOPULATE_SCOPE}"
    return False, f"Pre-populating is off: the token lacks {PREPOPULATE_SCOPE}"


def enrollment_request(
    values: Mapping[str, str], prepopulate: bool
) -> tuple[EnrollmentPluginSessionRequest | None, FieldErrors]:
    """The enrollment session the form describes; the prepopulate fields only when allowed."""
    errors: FieldErrors = {}
    text = {key: value.strip() for key, value in values.items()}
    _text_limits(text, errors)
    body: dict[str, Any] = {}
    if text.get("merchant"):
        body["merchant_id"] = text["merchant"]
    if tags := parse_tags(text.get("tags", "")):
        body["tags"] = tags
    if (attributes := _pairs(text.get("attributes", ""), errors, "attributes")) is not None:
        body["attributes"] = attributes
    account: dict[str, Any] = {}
    if tags := parse_tags(text.get("account-tags", "")):
        account["tags"] = tags
    attributes = _pairs(text.get("account-attributes", ""), errors, "account-attributes")
    if attributes is not None:
        account["attributes"] = attributes
    if account:
        body["account"] = account
    prepopulated: dict[str, Any] = {}
    if prepopulate:
        if text.get("product-description"):
            prepopulated["product_description"] = text["product-description"]
        processing = {
            wire: amount
            for field, wire in (
                ("processing-max", "max_transaction_amount"),
                ("monthly-volume", "monthly_volume"),
            )
            if (amount := _amount(text.get(field, ""), errors, field)) is not None
        }
        if processing:
            prepopulated["processing"] = processing
    if prepopulated:
        body["data"] = {"account": prepopulated}
    _lengths(body, ENROLLMENT_FIELDS, errors)
    request, model_errors = _build(EnrollmentPluginSessionRequest, body, ENROLLMENT_FIELDS)
    _merge(errors, model_errors)
    return (None, errors) if errors else (request, {})


def account_request(values: Mapping[str, str]) -> tuple[AccountRequest | None, FieldErrors]:
    """The new account the form describes; a tax authority only for category 9311."""
    errors: FieldErrors = {}
    text = {key: value.strip() for key, value in values.items()}
    _text_limits(text, errors)
    body: dict[str, Any] = {
        "merchant_id": text.get("merchant", ""),
        "name": text.get("name", ""),
        "merchant_category_code": text.get("mcc", ""),
    }
    for field, message in (
        ("merchant", "Enter the merchant (mt_…)"),
        ("name", "Enter the account's name"),
        ("mcc", "Enter the four-digit merchant category code"),
    ):
        if not text.get(field):
            errors[field] = message
    authority = text.get("tax-authority") or None
    state = (text.get("tax-state") or "").upper() or None
    if authority is not None:
        body["tax_authority"] = authority
    if state is not None:
        body["tax_authority_state"] = state
    wrong = check_tax_fields(body["merchant_category_code"], authority, state)
    if wrong is not None:
        errors.setdefault(ACCOUNT_FIELDS[wrong[0]], wrong[1].capitalize())
    if tags := parse_tags(text.get("tags", "")):
        body["tags"] = tags
    _lengths(body, ACCOUNT_FIELDS, errors)
    if errors:
        return None, errors
    return _build(AccountRequest, body, ACCOUNT_FIELDS)


def session_settings(session: PluginSession) -> str:
    """The session as JSON, ready to copy and hand to the merchant (sorted, indented)."""
    return json.dumps(session.model_dump(mode="json", exclude_none=True), indent=2, sort_keys=True)


def session_cap_text(request: PaymentPluginSessionRequest, account: Account | None) -> str:
    """The cap the session will get, for the review ("4,990.00 (the limit minus the fees)")."""
    cap = session_cap(request, account_limit(account))
    if cap is None:
        return "the account's limit (set by the service)"
    note = "" if request.max_transaction_amount is not None else " (the limit minus the fees)"
    return f"{format_amount(cap)}{note}"
