"""A support agent's two writes in a conversation: close it, and send a message in it.

- close_conversation (`POST /v2/conversations/{id}/close`): read back, the conversation shows
  it is closed — a closed status word or a closing time (`paytui.api.conversations.closed_state`,
  never one sandbox word); an open word and no closing time is "not applied"; any other word
  proves nothing (the entry stays unknown).
- send_message (`POST /v2/messages`): the message carries ``paytui_ref`` in its attributes;
  read back, the conversation's messages are scanned for it, or — a service that does not keep
  attributes — for a message of exactly this text sent from our side no earlier than the intent
  was written. "Not applied" only from a complete scan after the deadline (`reconcile`); the
  POST is never sent again by paytui, only by the person, as a new entry.

The journal keeps the conversation's id where a charge action keeps the charge's, and the text
of a message (redacted like every summary: then it cannot be resent from the journal).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from paytui.actions.errors import ActionError, NotRetryable, PrecheckFailed
from paytui.actions.operation import (
    Asked,
    Asking,
    CommandLine,
    Executor,
    NoParams,
    Operation,
    Option,
)
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, Unprovable, scan
from paytui.api.conversations import (
    closed_state,
    entry_of,
    item_id_of,
    references_of,
    status_word,
)
from paytui.api.errors import ApiError
from paytui.limits import LIMITS, check_text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.families import GenericObject
    from paytui.api.models import Page

CONVERSATIONS_ALL = "urn:v2:conversations:all"
MESSAGES_ALL = "urn:v2:messages:all"
#: How much earlier than the intent a message found by its text may say it was sent (the
#: service's clock against this machine's).
CLOCK_SKEW = timedelta(minutes=5)


def message_problem(body: str) -> str | None:
    """Why this text cannot be sent (None: it can): empty, over the documented limit, or
    holding bytes that were not UTF-8 (stdin or a file read with `surrogateescape` keeps them
    as lone surrogates, which no JSON body can carry: said here, before the journal)."""
    if not body.strip():
        return "The message is empty"
    invalid = next((at for at, char in enumerate(body) if "\ud800" <= char <= "\udfff"), None)
    if invalid is not None:
        return (
            f"The message is not UTF-8 text (character {invalid + 1} is a byte that is not): "
            "save it as UTF-8"
        )
    return check_text("message_body", body)


def body_identity(body: str) -> str:
    """Two messages of the same text in the same conversation are "the same" (a recent one
    needs "again"); the journal keeps a digest, the text is in the summary anyway."""
    return "body=" + hashlib.sha256(body.encode()).hexdigest()[:16]


# -- close -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageParams:
    """The message's text, sent exactly as given."""

    body: str


async def _read(executor: Executor, conversation_id: str) -> GenericObject | None:
    """The conversation, for the registry's rule (open?) that `run` asks before sending; not
    readable here: None, and the service decides (its refusal is shown)."""
    if not conversation_id:
        raise ActionError("No conversation given")
    try:
        return await executor.client.get_object("conversations", conversation_id)
    except ApiError:
        return None


async def prepare_close(
    executor: Executor, conversation_id: str, params: NoParams, asked: Asked
) -> Plan:
    found = await _read(executor, conversation_id)

    async def send(_ref: str) -> None:
        await executor.client.close_conversation(conversation_id)

    summary = journal_summary(conversation_id=conversation_id)
    plan = Plan(
        "close_conversation",
        conversation_id,
        conversation_id,
        None,
        summary,
        send,
        asked.retry_of,
    )
    plan.subject = found
    return plan


async def read_back_close(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    conversation_id = entry.charge_id or ""
    found = await client.get_object("conversations", conversation_id)
    state = closed_state(found)
    if state is True:
        return ReadBack("succeeded", conversation_id, result=found)
    if state is False:
        return ReadBack("not_applied")
    raise Unprovable(
        f"the conversation shows the status {status_word(found)!r}, which paytui does not read"
        " as open or closed"
    )


def close_params_of(entry: JournalEntry, original: Any) -> tuple[str, NoParams]:
    return entry.charge_id or "", NoParams()


# -- send a message ----------------------------------------------------------------------------


async def prepare_send(
    executor: Executor, conversation_id: str, params: MessageParams, asked: Asked
) -> Plan:
    body = params.body
    if not conversation_id:
        raise ActionError("No conversation given")
    problem = message_problem(body)
    if problem is not None:
        raise PrecheckFailed(problem)
    found = await _read(executor, conversation_id)

    async def send(ref: str) -> GenericObject:
        return await executor.client.send_message(
            conversation_id, body, attributes={REF_ATTRIBUTE: [ref]}
        )

    summary = journal_summary(conversation_id=conversation_id, body=body)
    plan = Plan(
        "send_message",
        conversation_id,
        conversation_id,
        None,
        summary,
        send,
        asked.retry_of,
        desired={"body": body},
        identity=body_identity(body),
        subject=found,
    )
    plan.result_id_of = _message_id
    return plan


def _message_id(result: Any) -> str | None:
    return item_id_of(result) if result is not None else None


async def _messages(client: PaymentClient, conversation_id: str) -> AsyncIterator[Page[Any]]:
    offset = 0
    while True:
        page = await client.list_messages_page(
            conversation_id=conversation_id, limit=100, offset=offset
        )
        yield page
        if not page.has_more or not page.items:
            return
        offset = page.next_offset


async def read_back_send(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """Our reference among the conversation's messages (in their attributes, whatever the rest
    of their shape); else exactly our text, from our side, sent no earlier than the intent (less
    `CLOCK_SKEW`). A row paytui cannot read as a message may be ours: with one, absence is not
    proven (a "not applied" would invite a second send of a message that went)."""
    conversation_id = entry.charge_id or ""
    summary = entry.request_summary
    body = (desired or {}).get("body")
    if body is None and not summary.get("redacted"):
        body = summary.get("body")
    since = (entry.sent_at or entry.created_at) - CLOCK_SKEW
    by_text: str | None = None
    unreadable = 0

    async def pages() -> AsyncIterator[Page[Any]]:
        nonlocal unreadable
        async for page in _messages(client, conversation_id):
            unreadable += len(page.unreadable)
            yield page

    async for obj in scan(pages(), unreadable_unprovable=False):  # weighed below
        fields = obj.fields()
        if str(fields.get("conversation_id", conversation_id)) != conversation_id:
            continue  # a service that ignored the filter: not this conversation's
        if entry.client_reference in references_of(obj):
            return ReadBack("succeeded", item_id_of(obj) or conversation_id, result=obj)
        line = entry_of(obj)
        if line is None:
            unreadable += 1
            continue
        same = body is not None and line.text == body and line.side != "customer"
        if same and by_text is None and line.at is not None and line.at >= since:
            by_text = line.item_id or conversation_id
    if by_text is not None:
        return ReadBack("succeeded", by_text)
    if body is None:
        raise Unprovable("the journal holds only a masked copy of the text and no reference")
    if unreadable:
        raise Unprovable(f"{unreadable} message(s) of the conversation could not be read")
    return ReadBack("not_applied")


def send_params_of(entry: JournalEntry, original: Any) -> tuple[str, MessageParams]:
    summary = entry.request_summary
    body = summary.get("body")
    if summary.get("redacted") or not isinstance(body, str):
        raise NotRetryable("Its text is kept masked in the journal; write it again")
    return entry.charge_id or "", MessageParams(body)


def asking(conversation_id: str, params: MessageParams, basis: Basis | None) -> Asking:
    """The review before a message is asked for: its text exactly as it will go (control
    characters shown, not obeyed)."""
    body = params.body
    review = (
        f"To conversation {conversation_id}, {len(body)} characters:",
        *(f"  | {line}" for line in body.split("\n")),
    )
    return Asking(f"Send this message to {conversation_id}", review=review)


CLOSE_SPEC = Operation(
    "close_conversation",
    noun="closing of a conversation",
    label="Closing a conversation",
    short="close conversation",
    scope=CONVERSATIONS_ALL,
    success="Conversation {result_id} closed",
    done="closed",
    names_a_charge=False,
    read_back=read_back_close,
    params=NoParams,
    prepare=prepare_close,
    params_of=close_params_of,
    no_bulk="conversations are not marked on any list (marks hold charges)",
    command=CommandLine(
        "conversations close",
        "Close a conversation (journaled, sent once).",
        target="the conversation",
        ask="Close conversation {target}",
        record_key="conversation_id",
    ),
    request=lambda cid, summary: ("POST", f"/v2/conversations/{cid}/close", None, {}),
)
SEND_SPEC = Operation(
    "send_message",
    noun="message",
    label="Sending a message",
    short="message",
    scope=MESSAGES_ALL,
    success="Message {result_id} sent",
    done="sent",
    result_noun="message",
    names_a_charge=False,
    read_back=read_back_send,
    params=MessageParams,
    prepare=prepare_send,
    params_of=send_params_of,
    action="reply",
    no_bulk="one text sent to many conversations is a mass mailing, not an answer;"
    " conversations are not marked",
    command=CommandLine(
        "messages send",
        "Send a message in a conversation (journaled, sent once). The text comes from --file or"
        " stdin, never an argument, and is shown exactly as it will go before it is sent.",
        target="the conversation",
        options=(
            Option(
                "body",
                "the message's text ('-': stdin, the default)",
                metavar="PATH",
                kind="document",
                name="file",
                said_as="message",
                check=message_problem,
                # Enough to tell a text over the limit without reading a stream to its end.
                most=LIMITS["message_body"] * 4 + 2,
            ),
        ),
        asking=asking,
        again="send it although the same text was sent in this conversation recently",
        again_hint="Pass --again to send it again.",
        record_key="conversation_id",
    ),
    request=lambda cid, summary: (
        "POST",
        "/v2/messages",
        None,
        {"conversation_id": cid, "body": summary.get("body", "")},
    ),
)
