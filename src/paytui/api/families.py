"""The resource families whose shapes the spec does not show — merchants (beyond list and id),
customers, partners, devices, channels, conversations and messages — read through one
tolerant, generic client (a conversation's thread: `paytui.api.conversations`).

Nothing about their fields is assumed: an object is any JSON object (`GenericObject`, every field
kept), its id is the family's ``<noun>_id`` (or ``id``), and a few common fields (name, status, a
timestamp) are picked for a list's columns when present. Each family names the scopes that allow
reading it (the spec's scope table), so the UI offers only what the token may read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paytui.api.models import Resource

__all__ = ["FAMILIES", "Family", "GenericObject"]


@dataclass(frozen=True)
class Family:
    """One read-only family: its path, the key of its ids, and the scopes that allow GET."""

    name: str
    title: str
    noun: str
    scopes: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"/v2/{self.name}"

    @property
    def id_key(self) -> str:
        return f"{self.noun}_id"

    def readable_with(self, granted: frozenset[str] | None) -> bool:
        """True when `granted` holds one of the scopes (None: unknown scopes, let it try)."""
        return granted is None or any(scope in granted for scope in self.scopes)


FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family(
            "merchants", "Merchants", "merchant", ("urn:v2:merchants:read", "urn:v2:merchants:all")
        ),
        Family("customers", "Customers", "customer", ("urn:v2:customers:all",)),
        Family("partners", "Partners", "partner", ("urn:v2:partners:read",)),
        Family("devices", "Devices", "device", ("urn:v2:devices:all",)),
        Family("channels", "Channels", "channel", ("urn:v2:channels:all",)),
        Family("conversations", "Conversations", "conversation", ("urn:v2:conversations:all",)),
        Family("messages", "Messages", "message", ("urn:v2:messages:all",)),
    )
}

#: Fields shown as a list's columns when an object has them (first found wins).
NAME_KEYS = (
    "name",
    "display_name",
    "business_name",
    "company",
    "model",
    "subject",
    "title",
    "body",
)
PERSON_KEYS = ("first_name", "last_name")
STATUS_KEYS = ("status", "state")
TIME_KEYS = (
    "created_timestamp",
    "last_updated_timestamp",
    "last_seen_timestamp",
    "created_at",
    "updated_at",
)


class GenericObject(Resource):
    """Any object of a family whose shape is not shown: every field kept as sent."""

    def fields(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    def id_in(self, family: Family) -> str | None:
        fields = self.fields()
        value = fields.get(family.id_key, fields.get("id"))
        return str(value) if isinstance(value, str | int) and value != "" else None

    def label(self) -> str | None:
        """A name for a list: the first name-like field, or a person's first and last name."""
        fields = self.fields()
        for key in NAME_KEYS:
            if isinstance(fields.get(key), str) and fields[key]:
                return str(fields[key])
        person = [str(fields[k]) for k in PERSON_KEYS if isinstance(fields.get(k), str)]
        return " ".join(person) or None

    def first_of(self, keys: tuple[str, ...]) -> Any:
        fields = self.fields()
        return next((fields[key] for key in keys if fields.get(key) is not None), None)
