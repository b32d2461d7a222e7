"""How long each free-text field may be: one table, used by the forms, the request models and the
sandbox, and documented in docs/api-assumptions.md ("Text lengths").

The service's own limits are not published; these are generous for people and small enough that
a pasted log file or a megabyte of JSON is refused with a clear message instead of being sent,
stored and shown in every list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["LIMITS", "check_attributes", "check_tags", "check_text", "check_texts", "too_long"]

#: Field -> most characters allowed.
LIMITS: dict[str, int] = {
    "first_name": 100,
    "last_name": 100,
    "tag": 64,
    "tags": 50,  # how many tags a charge or refund may carry
    "attribute_key": 64,
    "attribute_value": 255,
    "attributes": 50,  # how many keys
    "reason": 255,
    "invoice_number": 64,
    "po_number": 64,
    # Plugin sessions and new accounts (issue 12).
    "name": 100,
    "tax_authority": 100,
    "prefix": 64,
    "submit_button": 64,
    "product_description": 255,
    "data_value": 255,
    # Conversations and messages (issue 27).
    "message_body": 4000,
    "subject": 255,
    # A customer's contact (issue 40).
    "email": 254,
    "phone": 32,
}

LABELS = {
    "first_name": "First name",
    "last_name": "Last name",
    "tag": "A tag",
    "attribute_key": "An attribute key",
    "attribute_value": "An attribute value",
    "reason": "The reason",
    "invoice_number": "The invoice number",
    "po_number": "The PO number",
    "name": "The name",
    "tax_authority": "The tax authority",
    "prefix": "The prefix",
    "submit_button": "The submit button caption",
    "product_description": "The product description",
    "data_value": "A data value",
    "message_body": "The message",
    "subject": "The subject",
    "email": "The email address",
    "phone": "The phone number",
}


def too_long(field: str, length: int) -> str:
    """The one message for a text over its limit."""
    return f"{LABELS.get(field, field)} is {length} characters long; at most {LIMITS[field]}"


def check_text(field: str, value: str | None) -> str | None:
    """None when `value` fits `field`'s limit, else the message."""
    if value is not None and len(value) > LIMITS[field]:
        return too_long(field, len(value))
    return None


def check_tags(tags: Sequence[str] | None) -> str | None:
    if not tags:
        return None
    if len(tags) > LIMITS["tags"]:
        return f"{len(tags)} tags; at most {LIMITS['tags']}"
    return next((m for tag in tags if (m := check_text("tag", tag))), None)


def check_attributes(attributes: Mapping[str, Sequence[str]] | None) -> str | None:
    if not attributes:
        return None
    if len(attributes) > LIMITS["attributes"]:
        return f"{len(attributes)} attribute keys; at most {LIMITS['attributes']}"
    for key, values in attributes.items():
        message = check_text("attribute_key", key) or next(
            (m for value in values if (m := check_text("attribute_value", value))), None
        )
        if message:
            return message
    return None


def check_texts(values: Iterable[tuple[str, str | None]]) -> str | None:
    """The first message of `(limit name, value)` pairs, None when every value fits."""
    return next((m for field, value in values if (m := check_text(field, value))), None)
