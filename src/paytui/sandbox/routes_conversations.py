"""Endpoints of channels, conversations and messages (shapes: `sandbox.conversations`).

Scope-gated by the middleware from the spec's table like every family: `urn:v2:channels:all`
(POST, GET), `urn:v2:conversations:all` (POST, GET, PATCH: the items and closing are under
`/v2/conversations`) and `urn:v2:messages:all` (POST, GET).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from paytui.sandbox import conversations, search
from paytui.sandbox.http import drop_if, json_response, store_of
from paytui.sandbox.models import (
    ChannelCreate,
    ConversationClose,
    ConversationCreate,
    ConversationPatch,
    MessageCreate,
)

router = APIRouter(prefix="/v2")


def _page(
    request: Request,
    table: str,
    filters: dict[str, str | None],
    limit: int | None,
    offset: int | None,
) -> Response:
    size, start = search.paging(limit, offset)
    return json_response(conversations.list_page(store_of(request), table, filters, size, start))


# -- channels ----------------------------------------------------------------------------------


@router.get("/channels", summary="List channels")
def list_channels(
    request: Request, limit: int | None = None, offset: int | None = None
) -> Response:
    return _page(request, "channels", {}, limit, offset)


@router.get("/channels/{channel_id}", summary="Get a channel")
def get_channel(request: Request, channel_id: str) -> Response:
    return json_response(conversations.get_doc(store_of(request), "channels", channel_id))


@router.post("/channels", status_code=201, summary="Create a channel")
def create_channel(request: Request, body: ChannelCreate) -> Response:
    fields = body.model_dump(exclude_none=True)
    return json_response(conversations.create_channel(store_of(request), fields), 201)


# -- conversations -----------------------------------------------------------------------------


@router.get("/conversations", summary="List conversations, newest first")
def list_conversations(
    request: Request,
    customer_id: str | None = None,
    charge_id: str | None = None,
    channel_id: str | None = None,
    status: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    search.one_of(status, conversations.CONVERSATION_STATUSES, "status")
    filters = {
        "customer_id": customer_id,
        "charge_id": charge_id,
        "channel_id": channel_id,
        "status": status,
    }
    return _page(request, "conversations", filters, limit, offset)


@router.post("/conversations", status_code=201, summary="Open a conversation on a channel")
def create_conversation(request: Request, body: ConversationCreate) -> Response:
    fields = body.model_dump(exclude_none=True)
    return json_response(conversations.create_conversation(store_of(request), fields), 201)


@router.get("/conversations/{conversation_id}", summary="Get a conversation")
def get_conversation(request: Request, conversation_id: str) -> Response:
    store = store_of(request)
    return json_response(conversations.get_doc(store, "conversations", conversation_id))


@router.patch(
    "/conversations/{conversation_id}", summary="Change a conversation's subject or labels"
)
def patch_conversation(request: Request, conversation_id: str, body: ConversationPatch) -> Response:
    fields = body.model_dump(exclude_none=True)
    store = store_of(request)
    return json_response(conversations.patch_conversation(store, conversation_id, fields))


@router.get(
    "/conversations/{conversation_id}/items",
    summary="A conversation's messages and events, oldest first",
)
def conversation_items(
    request: Request,
    conversation_id: str,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    size, start = search.paging(limit, offset)
    store = store_of(request)
    return json_response(conversations.items_page(store, conversation_id, size, start))


@router.post(
    "/conversations/{conversation_id}/close",
    summary="Close a conversation (409 when it is closed already)",
)
def close_conversation(
    request: Request, conversation_id: str, body: ConversationClose | None = None
) -> Response:
    closed = conversations.close(store_of(request), conversation_id)
    drop_if(request, "close")
    return json_response(closed)


# -- messages ----------------------------------------------------------------------------------


@router.get("/messages", summary="List messages, oldest first")
def list_messages(
    request: Request,
    conversation_id: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    return _page(request, "messages", {"conversation_id": conversation_id}, limit, offset)


@router.get("/messages/{message_id}", summary="Get a message")
def get_message(request: Request, message_id: str) -> Response:
    return json_response(conversations.get_doc(store_of(request), "messages", message_id))


@router.post("/messages", status_code=201, summary="Send a message in an open conversation")
def send_message(request: Request, body: MessageCreate) -> Response:
    fields = body.model_dump(exclude_none=True)
    message = conversations.send_message(store_of(request), fields)
    drop_if(request, "message")
    return json_response(message, 201)
