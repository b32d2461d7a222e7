"""The sandbox's OpenAPI document, with every answer declared: so a fuzzer (schemathesis) can check
each status code and each body against it.

The routes answer with pre-encoded JSON (`http.json_response`), so FastAPI alone declares only the
success status with an empty schema. This module adds, to every operation: the body of its
success answer (the resource, or the list envelope of it), and the error body with every error
status an operation can give (the bearer check's 401/403, 404 for an id, 409 for a state
conflict, 400/422 for a bad request, 429/503 from the fault switches). The resource schemas are
those of paytui's response models (the shapes paytui itself reads, which the sandbox is there to
exercise), generated into `response_schemas.json` by `scripts/sandbox_response_schemas.py`: the
sandbox never imports the client side, and a test fails when the two drift apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

__all__ = ["install"]

#: The schema of each family's resource (by its name in `response_schemas.json`).
RESOURCES: dict[str, str] = {
    "charges": "Charge",
    "refunds": "Refund",
    "tokens": "Token",
    "accounts": "Account",
    "merchants": "Merchant",
    "distributions": "Distribution",
    "plugins": "PluginSession",
    "channels": "Channel",
    "conversations": "Conversation",
    "messages": "Message",
}
SCHEMAS_FILE = Path(__file__).with_name("response_schemas.json")


def _open(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": True,
    }


_TEXT: dict[str, Any] = {"type": "string"}
_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
_LABELS: dict[str, Any] = {
    "tags": {"type": "array", "items": _TEXT},
    "attributes": {"type": "object", "additionalProperties": {"type": "array", "items": _TEXT}},
}
_AUTHOR = _open({"name": _TEXT, "role": _TEXT, "customer_id": _TEXT}, [])
_MESSAGE: dict[str, Any] = {
    "message_id": _TEXT,
    "conversation_id": _TEXT,
    "body": _TEXT,
    "direction": {"type": "string", "enum": ["inbound", "outbound"]},
    "author": _AUTHOR,
    "created_timestamp": _TIME,
    "attributes": _LABELS["attributes"],
}
#: The families whose shapes the spec does not show and paytui reads generically
#: (`paytui.api.families`): the sandbox declares its own choice (docs/api-assumptions.md).
OWN_SCHEMAS: dict[str, Any] = {
    "Channel": _open(
        {"channel_id": _TEXT, "name": _TEXT, "type": _TEXT, "status": _TEXT,
         "created_timestamp": _TIME},
        ["channel_id"],
    ),
    "Conversation": _open(
        {
            "conversation_id": _TEXT, "channel_id": _TEXT,
            "status": {"type": "string", "enum": ["open", "closed"]}, "subject": _TEXT,
            "participants": {"type": "array", "items": _AUTHOR}, "customer_id": _TEXT,
            "merchant_id": _TEXT, "charge_id": _TEXT, "created_timestamp": _TIME,
            "last_updated_timestamp": _TIME, "last_message_timestamp": _TIME,
            "closed_timestamp": _TIME, **_LABELS,
        },
        ["conversation_id", "status"],
    ),
    "Message": _open(_MESSAGE, ["message_id", "conversation_id", "body"]),
    "ConversationItem": _open(
        {"item_id": _TEXT, "type": {"type": "string", "enum": ["message", "event"]},
         "event": _TEXT, **_MESSAGE},
        ["item_id", "type"],
    ),
}  # fmt: skip
#: Every answer may be one of these (auth, validation, state, faults); 5xx are bugs, never declared.
ERROR_STATUSES = ("400", "401", "403", "404", "405", "409", "422", "429", "503")

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {"type": "string"},
        "message": {"type": "string"},
    },
    "required": ["error", "message"],
    "additionalProperties": True,
}
TOKEN_GRANT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "access_token": {"type": "string"},
        "token_type": {"type": "string"},
        "expires_in": {"type": "integer"},
        "scope": {"type": "string"},
    },
    "required": ["access_token", "token_type"],
}
OAUTH_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
    "required": ["error"],
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _page(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "data": {"type": "array", "items": _ref(name)},
            "total": {"type": "integer"},
            "limit": {"type": "integer"},
            "offset": {"type": "integer"},
            "has_more": {"type": "boolean"},
        },
        "required": ["data"],
    }


def _success_body(path: str, method: str) -> dict[str, Any] | None:
    """The schema of an operation's success body; None when it has none (204)."""
    if path == "/v2/services/oauth2/token":
        return TOKEN_GRANT_SCHEMA
    if path.startswith("/sandbox/"):
        return {"type": "object", "additionalProperties": True}
    parts = [p for p in path.split("/") if p]
    family = parts[1] if len(parts) > 1 else ""
    model = RESOURCES.get(family)
    if model is None:
        return {"type": "object", "additionalProperties": True}
    if method == "delete":
        return None
    if path.endswith("/distribute"):
        return _ref("Distribution")
    if path.endswith("/items"):
        return _page("ConversationItem")
    if method == "get" and len(parts) == 2:  # a collection: the list envelope
        return _page(model)
    return _ref(model)


def _add_models(components: dict[str, Any]) -> None:
    generated: dict[str, Any] = json.loads(SCHEMAS_FILE.read_text(encoding="utf-8"))
    for name, definition in generated.items():
        components.setdefault(name, definition)
    components.update(OWN_SCHEMAS)
    components["Error"] = ERROR_SCHEMA


def build(app: FastAPI) -> dict[str, Any]:
    document = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = document.setdefault("components", {}).setdefault("schemas", {})
    _add_models(components)
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            responses: dict[str, Any] = operation.setdefault("responses", {})
            success = [code for code in responses if re.fullmatch(r"2\d\d", code)] or ["200"]
            body = _success_body(path, method)
            for code in success:
                if code == "204" or body is None:
                    responses[code] = {"description": "Done, no body"}
                else:
                    responses[code] = {
                        "description": "Success",
                        "content": {"application/json": {"schema": body}},
                    }
            error = OAUTH_ERROR_SCHEMA if path == "/v2/services/oauth2/token" else _ref("Error")
            for code in ERROR_STATUSES:
                responses[code] = {
                    "description": "Refused (see the message)",
                    "content": {"application/json": {"schema": error}},
                }
    return document


def install(app: FastAPI) -> None:
    """Serve `build(app)` as the app's OpenAPI document (built once, on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
