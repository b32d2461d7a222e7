"""The reason of an error answer, read from any envelope the spec allows ("Error body shape and
error codes: not shown"), and from a text body. One reader for the client and the token endpoint.

Read, most specific first (docs/api-assumptions.md, "Error answers"):

- ``{"error": {"message"|"description"|"detail"|"title": …, "code"|"type": …}}``;
- ``{"fault": {"faultstring"|"message": …, "faultcode"|"detail": {"errorcode"}}}`` (gateways of
  the Apigee kind);
- ``{"message": …}``, ``{"error_description": …}`` (RFC 6749), ``{"description": …}``;
- ``{"detail": "…"}`` or FastAPI's ``{"detail": [{"loc": […], "msg": …}]}``;
- ``{"errors": ["…" | {"message"|"description"|"detail"|"msg"|"title": …, "field"?: …}]}``, or
  ``{"errors": {"field": ["…"]}}``; a bare JSON list of the same items;
- ``{"error": "a sentence"}`` (a code-like word, ``invalid_client``, is its `code`);
- ``{"title": …}`` (RFC 9457 problem details), and a code under ``code`` / ``error_code``;
- a text body: its text (an HTML page: its title, else its text without tags).

Every reason is server text: `clean` makes it one line (whitespace collapsed), bounded
(`MAX_QUOTE`), redacted (card and account numbers, tokens: `paytui.logs.redact`) and with every
control character shown as itself (`paytui.text.safe`), never obeyed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from paytui.api.errors import FieldError, quote

__all__ = ["field_errors", "reason_and_code", "required_scopes", "text_reason"]

#: Keys that hold a sentence for a person, in the order they are preferred inside one object.
_MESSAGE_KEYS = (
    "message",
    "faultstring",
    "description",
    "error_description",
    "detail",
    "msg",
    "error_message",
    "reason",
    "title",
)
#: Keys that hold a machine code.
_CODE_KEYS = ("code", "faultcode", "error_code", "errorcode", "type")
#: How many items of an error list are quoted.
_LIST_ITEMS = 3
#: A word that is a code, not a sentence (`invalid_client`, `E1042`, `rate.limited`).
_CODE_LIKE = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def reason_and_code(body: Any) -> tuple[str | None, str | None]:
    """The reason (one clean line) and code of a parsed JSON error body; None where absent."""
    message, code = _read(body, depth=0)
    return (
        quote(message) if message else None,
        quote(code, 64) if code else None,
    )


def text_reason(content: bytes, content_type: str = "") -> str | None:
    """The reason of a non-JSON error body: its text, or an HTML page's title (else its text
    without tags), as one clean line; None when it says nothing."""
    text = content[:4000].decode("utf-8", errors="replace")
    if "html" in content_type.lower() or text.lstrip()[:1] == "<":
        title = _TITLE.search(text)
        if title and title.group(1).strip():
            text = title.group(1)
        else:
            text = _TAG.sub(" ", _SCRIPT.sub(" ", text))
        text = html.unescape(text)
    cleaned = quote(text)
    return cleaned or None


def field_errors(body: Any) -> list[FieldError]:
    """The rejected fields of a validation answer (`fields`, `errors`, `detail`, `error.fields`)."""
    if not isinstance(body, Mapping):
        return []
    found: list[FieldError] = []
    for key in ("fields", "errors", "detail"):
        items = body.get(key)
        if isinstance(items, list):
            found.extend(err for item in items if (err := field_error(item)) is not None)
    error = body.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("fields"), list):
        found.extend(err for item in error["fields"] if (err := field_error(item)) is not None)
    return found


def field_error(item: Any) -> FieldError | None:
    """`{"field", "message"}`, `{"path"|"name", "msg"}` or FastAPI's `{"loc": [...], "msg"}`."""
    if not isinstance(item, Mapping):
        return None
    field = _field_name(item)
    message = _text(item.get("message")) or _text(item.get("msg"))
    if field is None or message is None:
        return None
    return FieldError(quote(field, 80), quote(message))


def required_scopes(body: Any) -> list[str]:
    """The scopes a 403 names (`required_scopes` / `scopes`, a list or a spaced string)."""
    if not isinstance(body, Mapping):
        return []
    for holder in (body, body.get("error"), body.get("fault")):
        if isinstance(holder, Mapping):
            scopes = holder.get("required_scopes") or holder.get("scopes")
            if isinstance(scopes, list):
                return [quote(str(scope), 80) for scope in scopes]
            if isinstance(scopes, str):
                return [quote(scope, 80) for scope in scopes.split()]
    return []


# ------------------------------------------------------------------------------------ reading


def _read(body: Any, depth: int) -> tuple[str | None, str | None]:
    if depth > 3:  # an error inside an error inside an error: enough
        return None, None
    if isinstance(body, str):
        return (body, None) if body.strip() else (None, None)
    if isinstance(body, list):
        return _list_reason(body), None
    if not isinstance(body, Mapping):
        return None, None
    code: str | None = None
    message: str | None = None
    for key in ("error", "fault"):
        inner = body.get(key)
        if isinstance(inner, Mapping):
            found, found_code = _object_reason(inner, depth)
            message = message or found
            code = code or found_code
        elif isinstance(inner, str) and inner.strip():
            if _CODE_LIKE.fullmatch(inner.strip()):
                code = code or inner.strip()
            else:
                message = message or inner
    if message is None:
        message = _own_reason(body)
    if message is None:
        message = _list_reason(body.get("errors"))
    code = code or _code(body)
    return message or code, code


def _object_reason(inner: Mapping[str, Any], depth: int) -> tuple[str | None, str | None]:
    """The reason and code of an `error` / `fault` object (which may nest its own `errors`)."""
    message = _own_reason(inner) or _list_reason(inner.get("errors"))
    code = _code(inner)
    detail = inner.get("detail")
    if code is None and isinstance(detail, Mapping):  # Apigee: fault.detail.errorcode
        code = _code(detail)
    if message is None:
        nested, nested_code = _read(inner.get("error"), depth + 1)
        message, code = nested, code or nested_code
    return message, code


def _own_reason(holder: Mapping[str, Any]) -> str | None:
    """The first sentence under one of `_MESSAGE_KEYS` (a `detail` list: FastAPI's items)."""
    for key in _MESSAGE_KEYS:
        value = holder.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and (listed := _list_reason(value)):
            return listed
    return None


def _list_reason(items: Any) -> str | None:
    """An error list as one line: its first few items' sentences ("field: message" where an
    item names its field), joined with "; "; a mapping of field -> messages likewise."""
    if isinstance(items, str):
        return items if items.strip() else None
    parts: list[str] = []
    if isinstance(items, Mapping):
        for field, value in list(items.items())[:_LIST_ITEMS]:
            said = _text(value) or _list_reason(value)
            if said:
                parts.append(f"{field}: {said}")
    elif isinstance(items, Sequence):
        for item in list(items)[:_LIST_ITEMS]:
            if isinstance(item, str) and item.strip():
                parts.append(item)
            elif isinstance(item, Mapping):
                said = next(
                    (text for key in _MESSAGE_KEYS if (text := _text(item.get(key)))), None
                ) or _code(item)
                if said:
                    field = _field_name(item)
                    parts.append(f"{field}: {said}" if field else said)
        if len(items) > _LIST_ITEMS and parts:
            parts.append(f"and {len(items) - _LIST_ITEMS} more")
    return "; ".join(parts) or None


def _field_name(item: Mapping[str, Any]) -> str | None:
    field = item.get("field") or item.get("path") or item.get("name") or item.get("parameter")
    loc = item.get("loc")
    if field is None and isinstance(loc, list):
        parts = [str(part) for part in loc if part not in ("body", "query", "path")]
        field = ".".join(parts) or None
    return str(field) if field is not None and not isinstance(field, Mapping | list) else None


def _code(holder: Mapping[str, Any]) -> str | None:
    for key in _CODE_KEYS:
        value = holder.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
