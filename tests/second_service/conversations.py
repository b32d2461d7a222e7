"""The second service's conversations and messages: other plausible choices than the sandbox's.

- every object's id is `id` (a message names its conversation by `conversation_id`);
- a conversation's status is `state`: `active` or `resolved`; its links are under `links`
  (`charge_id`, `customer_id`); its people under `participants` as `{display_name, kind}`;
- a message's text is `text`, its author `sender` (a plain name), its time `sent_at`, its side
  `direction: incoming|outgoing`; the attributes a client sends are NOT kept;
- there is no `/items` path (404): the messages are the thread; the `conversation_id` filter of
  `GET /v2/messages` and the filters of `GET /v2/conversations` are applied only when the
  options say so (`applied_filters`), otherwise ignored;
- closing answers the conversation, `resolved`; closing a resolved one answers it again (200).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.second_service.data import stamp

if TYPE_CHECKING:
    from tests.second_service.app import SecondService

Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Threads:
    """Two conversations about the first charges of the store, one of them resolved."""

    conversations: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    made: int = 0

    def new_id(self, prefix: str) -> str:
        self.made += 1
        return f"{prefix}-{self.made:04d}"

    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        return next((c for c in self.conversations if c["id"] == conversation_id), None)


def seeded(service: SecondService) -> Threads:
    threads = Threads()
    start = datetime(2026, 10, 2, 9, 0, tzinfo=UTC)
    for number, charge in enumerate(service.store.charges[:2]):
        name = f"{charge.first_name} {charge.last_name}"
        conversation = {
            "id": threads.new_id("conv"),
            "state": "resolved" if number else "active",
            "topic": f"About {charge.charge_id[:6]}",
            "links": {"charge_id": charge.charge_id, "customer_id": f"cust-{number}"},
            "participants": [{"display_name": name, "kind": "customer"}],
            "opened_at": stamp(start),
        }
        threads.conversations.append(conversation)
        for minute, (side, who, text) in enumerate(
            [
                ("incoming", name, "Hello, was I charged twice?"),
                ("outgoing", "Support", "No: one charge, one hold."),
            ]
        ):
            threads.messages.append(
                {
                    "id": threads.new_id("msg"),
                    "conversation_id": conversation["id"],
                    "text": text,
                    "sender": who,
                    "direction": side,
                    "sent_at": stamp(start + timedelta(minutes=10 * (minute + 1))),
                }
            )
    return threads


def routes(service: SecondService, guarded: Callable[[Handler], Handler]) -> list[Route]:
    """The routes of conversations and messages over `service`'s options and store."""
    from tests.second_service.app import _filtered, error, listing

    options = service.options
    threads = seeded(service)
    service.threads = threads  # type: ignore[attr-defined]

    def link(row: dict[str, Any], name: str) -> Any:
        return row.get("links", {}).get(name) if name != "state" else row.get("state")

    async def list_conversations(request: Request) -> Response:
        rows = _filtered(
            options, request, threads.conversations, ("charge_id", "customer_id"), link
        )
        return listing(request, service, "conversations", rows, dict)

    async def get_conversation(request: Request) -> Response:
        found = threads.conversation(request.path_params["cid"])
        if found is None:
            return error(404, "not_found", "no such conversation")
        return JSONResponse(found)

    async def close(request: Request) -> Response:
        found = threads.conversation(request.path_params["cid"])
        if found is None:
            return error(404, "not_found", "no such conversation")
        found["state"] = "resolved"
        return JSONResponse(found)

    async def list_messages(request: Request) -> Response:
        rows = _filtered(
            options, request, threads.messages, ("conversation_id",), lambda m, n: m.get(n)
        )
        return listing(request, service, "messages", rows, dict)

    async def send(request: Request) -> Response:
        body = await request.json()
        found = threads.conversation(str(body.get("conversation_id")))
        if found is None:
            return error(404, "not_found", "no such conversation")
        if found["state"] == "resolved":
            return error(409, "conflict", "the conversation is resolved")
        message = {
            "id": threads.new_id("msg"),
            "conversation_id": found["id"],
            "text": body.get("body"),
            "sender": "Support",
            "direction": "outgoing",
            "sent_at": stamp(datetime.now(UTC)),
        }
        threads.messages.append(message)
        return JSONResponse(message, status_code=201)

    return [
        Route("/v2/conversations", guarded(list_conversations), methods=["GET"]),
        Route("/v2/conversations/{cid}", guarded(get_conversation), methods=["GET"]),
        Route("/v2/conversations/{cid}/close", guarded(close), methods=["POST"]),
        Route("/v2/messages", guarded(list_messages), methods=["GET"]),
        Route("/v2/messages", guarded(send), methods=["POST"]),
    ]
