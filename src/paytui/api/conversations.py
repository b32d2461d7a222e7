"""Conversations and their messages, read as a thread, trusting only what the service says.

The spec grants `urn:v2:conversations:all` and `urn:v2:messages:all` and shows no shape, so
nothing here depends on the sandbox's choice (docs/api-assumptions.md, "Channels, conversations
and messages"): a thread item is any object; its words are read from whichever of a few
plausible fields it has (`body` / `text` / `content`, nested under `message` too; `author` /
`sender` / `from`; `direction`; a time), and an item none of them reads is an unreadable row,
counted, never dropped in silence. Whether a conversation is closed is read from its status
word (`CLOSED_WORDS` / `OPEN_WORDS`), else a closing time; any other word is "not known",
never guessed. Links to a charge or a customer count only when the object shows them.

No Textual: the thread screen and the command line show what `read_thread` returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from paytui.api.errors import ApiError, NotFoundError
from paytui.api.families import FAMILIES, STATUS_KEYS, GenericObject

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = [
    "CLOSED_WORDS",
    "LAST_ACTIVITY_KEYS",
    "OPEN_WORDS",
    "Thread",
    "ThreadEntry",
    "as_time",
    "closed_state",
    "conversation_id_of",
    "conversation_verdicts",
    "customer_conversations",
    "customer_name",
    "entry_of",
    "item_id_of",
    "links_charge",
    "links_customer",
    "read_thread",
    "references_of",
    "status_word",
]

#: Status words read as "closed" and "open" (any case); any other word: not known.
CLOSED_WORDS = frozenset({"closed", "resolved", "archived", "done", "ended", "completed", "solved"})
OPEN_WORDS = frozenset({"open", "active", "new", "pending", "waiting", "ongoing", "in_progress"})
#: A conversation's last activity, else when it began (a list's time column).
LAST_ACTIVITY_KEYS = (
    "last_message_timestamp",
    "last_updated_timestamp",
    "updated_at",
    "created_timestamp",
    "created_at",
)
CLOSED_TIME_KEYS = ("closed_timestamp", "closed_at", "resolved_at", "resolved_timestamp")
TEXT_KEYS = ("body", "text", "content", "message")
TIME_KEYS = ("created_timestamp", "sent_timestamp", "created_at", "sent_at", "timestamp", "time")
AUTHOR_KEYS = ("author", "sender", "from")
#: Direction words: from the customer (in) or from the merchant's side (out).
INBOUND = frozenset({"inbound", "incoming", "in", "received", "customer"})
OUTBOUND = frozenset({"outbound", "outgoing", "out", "sent", "agent", "merchant"})
#: Items read at most for one thread (a longer one says it was cut).
MAX_ITEMS = 1000
PAGE = 100


def _fields(obj: GenericObject | Mapping[str, Any]) -> dict[str, Any]:
    return obj.fields() if isinstance(obj, GenericObject) else dict(obj)


def conversation_id_of(obj: GenericObject) -> str | None:
    return obj.id_in(FAMILIES["conversations"])


def status_word(obj: GenericObject | Mapping[str, Any]) -> str | None:
    fields = _fields(obj)
    for key in STATUS_KEYS:
        if isinstance(fields.get(key), str) and fields[key].strip():
            return str(fields[key]).strip()
    return None


def closed_state(obj: GenericObject | Mapping[str, Any]) -> bool | None:
    """True: the conversation shows it is closed (a closed status word, or no status word it
    knows but a closing time); False: an open status word (a reopened conversation may keep its
    old closing time); None: it shows neither (not known)."""
    fields = _fields(obj)
    word = (status_word(fields) or "").casefold()
    if word in CLOSED_WORDS:
        return True
    if word in OPEN_WORDS:
        return False
    if any(isinstance(fields.get(key), str) and fields[key] for key in CLOSED_TIME_KEYS):
        return True
    return None


def _linked(fields: Mapping[str, Any], key: str) -> set[str]:
    """Every id under `key` the object shows: top level, in `links`, in participants."""
    found: set[str] = set()
    places: list[Any] = [fields, fields.get("links")]
    participants = fields.get("participants")
    if isinstance(participants, list):
        places += participants
    for place in places:
        if isinstance(place, Mapping):
            value = place.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
                found.add(str(value))
    return found


def links_charge(obj: GenericObject, charge_id: str) -> bool:
    return charge_id in _linked(obj.fields(), "charge_id")


def participant_names(obj: GenericObject) -> set[str]:
    """The participants' names, folded (what a customer found by name is matched on)."""
    names: set[str] = set()
    participants = obj.fields().get("participants")
    for person in participants if isinstance(participants, list) else []:
        name = _name_of(person)
        if name:
            names.add(fold(name))
    return names


def customer_name(obj: GenericObject) -> str | None:
    """The customer's name as the conversation shows it: its participant whose role (or type)
    is the customer's, or who carries the conversation's customer id; None when none does."""
    fields = obj.fields()
    participants = fields.get("participants")
    linked = fields.get("customer_id")
    for person in participants if isinstance(participants, list) else []:
        if not isinstance(person, Mapping):
            continue
        role = person.get("role") or person.get("type")
        is_customer = isinstance(role, str) and role.casefold() in INBOUND
        if is_customer or (linked and person.get("customer_id") == linked):
            return _name_of(person)
    return None


def links_customer(obj: GenericObject, customer_ids: set[str], names: set[str]) -> bool:
    """The conversation names one of these customers (by id) or a participant of this name."""
    return bool(_linked(obj.fields(), "customer_id") & customer_ids) or bool(
        participant_names(obj) & names
    )


def conversation_verdicts(
    params: list[tuple[str, str]], obj: GenericObject
) -> dict[str, bool | None]:
    """Whether a listed conversation matches each filter asked, by what it shows: a link it
    does not show is a "no" (a service that ignored the filter lends nobody its rows)."""
    verdicts: dict[str, bool | None] = {}
    for name, value in params:
        if name == "status":
            word = status_word(obj)
            verdicts[name] = None if word is None else word.casefold() == value.casefold()
        else:
            verdicts[name] = value in _linked(obj.fields(), name)
    return verdicts


def fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def _name_of(person: Any) -> str | None:
    if isinstance(person, str):
        return person or None
    if isinstance(person, Mapping):
        for key in ("name", "display_name"):
            if isinstance(person.get(key), str) and person[key]:
                return str(person[key])
        parts = [person.get(k) for k in ("first_name", "last_name")]
        return " ".join(p for p in parts if isinstance(p, str) and p) or None
    return None


def as_time(value: Any) -> datetime | None:
    """An ISO 8601 time as the service wrote it, in UTC (a naive one is taken as UTC); None
    when it is no time, or one with no UTC form (year 9999 west of UTC, year 1 east of it),
    which would otherwise fail every listing that shows it."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class ThreadEntry:
    """One line of a thread: when, who, which side, what was said (or what happened)."""

    at: datetime | None
    who: str | None
    side: str  # "customer", "us" or "" (the item does not say)
    text: str
    kind: str = "message"  # or "event"
    item_id: str | None = None
    reference: tuple[str, ...] = ()


def _side(fields: Mapping[str, Any], author: Any) -> str:
    word = fields.get("direction")
    if not isinstance(word, str) and isinstance(author, Mapping):
        word = author.get("role") or author.get("type")
    word = word.casefold() if isinstance(word, str) else ""
    if word in INBOUND:
        return "customer"
    if word in OUTBOUND:
        return "us"
    return ""


def entry_of(obj: GenericObject | Mapping[str, Any]) -> ThreadEntry | None:
    """A thread line from a message or an item; None when nothing in it reads as one."""
    fields = _flat(obj)
    text = next((fields[k] for k in TEXT_KEYS if isinstance(fields.get(k), str)), None)
    kind = "message"
    if text is None:
        event = fields.get("event") or fields.get("type")
        if not isinstance(event, str) or event == "message":
            return None
        kind, text = "event", event.replace("_", " ")
    author = next((fields[k] for k in AUTHOR_KEYS if fields.get(k) is not None), None)
    at = next((t for k in TIME_KEYS if (t := as_time(fields.get(k))) is not None), None)
    return ThreadEntry(
        at=at,
        who=_name_of(author),
        side=_side(fields, author),
        text=text,
        kind=kind,
        item_id=item_id_of(fields),
        reference=references_of(fields),
    )


def _flat(obj: GenericObject | Mapping[str, Any]) -> dict[str, Any]:
    """The item's fields, a nested `message` object's over them (where some services put it)."""
    fields = _fields(obj)
    nested = fields.get("message")
    return {**fields, **nested} if isinstance(nested, Mapping) else fields


def item_id_of(obj: GenericObject | Mapping[str, Any]) -> str | None:
    """A message's or an item's id, whether or not the rest of it reads as a thread line."""
    fields = _flat(obj)
    keys = ("item_id", "message_id", "id")
    return next((str(fields[k]) for k in keys if isinstance(fields.get(k), str)), None)


def references_of(obj: GenericObject | Mapping[str, Any]) -> tuple[str, ...]:
    """The `paytui_ref` values in a message's attributes (what a send's read-back looks for,
    whatever the rest of the message's shape)."""
    attributes = _flat(obj).get("attributes")
    refs = attributes.get("paytui_ref") if isinstance(attributes, Mapping) else None
    return tuple(str(r) for r in refs) if isinstance(refs, list) else ()


@dataclass
class Thread:
    """A conversation's lines, oldest first, with what could not be read and why."""

    entries: list[ThreadEntry] = field(default_factory=list)
    unreadable: int = 0
    notes: list[str] = field(default_factory=list)
    #: The thread was not read to its end (paging that repeated, or too long).
    cut: bool = False


def _order(entries: list[ThreadEntry]) -> list[ThreadEntry]:
    """Oldest first; a line without a time keeps its place after the one before it."""
    last = datetime.min.replace(tzinfo=UTC)
    keyed = []
    for position, entry in enumerate(entries):
        last = entry.at or last
        keyed.append((last, position, entry))
    return [entry for _, _, entry in sorted(keyed, key=lambda k: (k[0], k[1]))]


async def read_thread(client: PaymentClient, conversation_id: str) -> Thread:
    """The conversation's items (`/v2/conversations/{id}/items`), or, where the service has no
    such path (404), its messages (`/v2/messages?conversation_id=`, each row checked)."""
    thread = Thread()
    raw: list[Any] = []
    offset = 0
    use_messages = False
    while len(raw) < MAX_ITEMS:
        try:
            if use_messages:
                page = await client.list_messages_page(
                    conversation_id=conversation_id, limit=PAGE, offset=offset
                )
            else:
                page = await client.conversation_items_page(
                    conversation_id, limit=PAGE, offset=offset
                )
        except NotFoundError:
            if use_messages or offset:
                raise
            await client.get_object("conversations", conversation_id)  # 404 here: no such one
            use_messages = True
            continue
        raw.extend(page.items)
        thread.unreadable += len(page.unreadable)
        if page.paging_note:
            thread.notes.append(page.paging_note)
            thread.cut = True
        if page.ignored_filters:
            thread.notes.append("the service ignored the conversation filter: checked here")
        if not page.has_more or not page.items:
            break
        offset = page.next_offset
    else:
        thread.notes.append(f"only the first {MAX_ITEMS} items were read")
        thread.cut = True
    entries = []
    for item in raw:
        entry = entry_of(item)
        if entry is None:
            thread.unreadable += 1
        else:
            entries.append(entry)
    thread.entries = _order(entries)
    return thread


#: Conversations and customers looked at, at most, to find one customer's conversations.
MAX_SCANNED = 1000


async def _scan(pages: Any, notes: list[str], what: str) -> list[GenericObject]:
    """Items of `pages(limit, offset)` up to `MAX_SCANNED`, a cut said in `notes`."""
    found: list[GenericObject] = []
    offset = 0
    while True:
        page = await pages(PAGE, offset)
        found.extend(page.items)
        if page.paging_note:
            notes.append(page.paging_note)
            break
        if not page.has_more or not page.items:
            break
        if len(found) >= MAX_SCANNED:
            notes.append(f"only the first {MAX_SCANNED} {what} were looked at")
            break
        offset = page.next_offset
    return found


async def customer_conversations(
    client: PaymentClient, *, name: str | None = None, email: str | None = None
) -> tuple[list[GenericObject], list[str]]:
    """One customer's conversations, newest first as listed, and what could not be looked at.

    Who: the `customers` objects of this name or email (their ids), and participants of this
    name. With ids, each is asked for (`customer_id`, proven per row); a participant's name is
    matched on every conversation listed (the service has no name filter to trust)."""
    notes: list[str] = []
    names = {fold(name)} if name else set()
    wanted_mail = email.casefold() if email else None
    ids: set[str] = set()
    family = FAMILIES["customers"]
    try:
        people = await _scan(
            lambda limit, offset: client.list_objects_page("customers", limit=limit, offset=offset),
            notes,
            "customers",
        )
    except ApiError as exc:
        notes.append(f"customers could not be read ({exc.message}): matched by name only")
        people = []
    for person in people:
        label = person.label()
        mail = person.fields().get("email")
        by_mail = isinstance(mail, str) and mail.casefold() == wanted_mail
        if (label and fold(label) in names) or by_mail:
            if (found_id := person.id_in(family)) is not None:
                ids.add(found_id)
            if label:
                names.add(fold(label))
    every = await _scan(
        lambda limit, offset: client.list_conversations_page(limit=limit, offset=offset),
        notes,
        "conversations",
    )
    mine = [c for c in every if links_customer(c, ids, names)]
    if not names and not ids:
        notes.append("no customer of that name or email: nothing to match")
    return mine, notes
