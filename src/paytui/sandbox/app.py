"""The sandbox ASGI app: `create_app(db_path, faults=..., token_ttl=...)`.

Everything is set up in the factory (no lifespan events), because httpx's ASGITransport, which
the tests and the UI's tests use, does not run them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from paytui.sandbox.errors import ApiError
from paytui.sandbox.faults import Faults, quiet_dropped_answers
from paytui.sandbox.http import error_response, json_response
from paytui.sandbox.middleware import SandboxMiddleware
from paytui.sandbox.openapi import install as install_openapi
from paytui.sandbox.routes_auth import router as auth_router
from paytui.sandbox.routes_charges import router as charges_router
from paytui.sandbox.routes_conversations import router as conversations_router
from paytui.sandbox.routes_resources import router as resources_router
from paytui.sandbox.store import Store

_MALFORMED = {"json_invalid", "missing", "model_attributes_type", "dict_type"}


def _field_name(loc: tuple[Any, ...]) -> str:
    """`("body", "payment_method", "card_number")` -> `payment_method.card_number`."""
    return ".".join(str(part) for part in loc[1:]) or str(loc[0])


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return json_response(exc.body(), exc.status, exc.headers or None)


async def _validation_error(_: Request, exc: Exception) -> Response:
    """FastAPI's own 422 replaced by the documented shape; malformed bodies are 400."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    for error in errors:
        if error["type"] == "json_invalid":
            return error_response(
                400, f"malformed JSON body: {error.get('ctx', {}).get('error', '')}"
            )
        if tuple(error["loc"]) == ("body",) and error["type"] in _MALFORMED:
            if isinstance(error.get("input"), bytes):
                return error_response(400, "the body must be JSON (Content-Type: application/json)")
            return error_response(400, "the body must be a JSON object")
    fields = [
        {
            "field": _field_name(tuple(e["loc"])),
            "message": str(e["msg"]).removeprefix("Value error, "),
        }
        for e in errors
    ]
    message = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
    return error_response(422, message, fields=fields)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        message = f"no such endpoint: {request.method} {request.url.path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    return error_response(exc.status_code, message, dict(exc.headers or {}))


async def _server_error(_: Request, exc: Exception) -> Response:
    return error_response(500, "internal sandbox error")


def create_app(
    db_path: Path | str,
    *,
    faults: Faults | None = None,
    token_ttl: int = 3600,
    boarding_interval: float = 20.0,
) -> FastAPI:
    """The sandbox app over the SQLite database at `db_path` (tables are created if missing)."""
    app = FastAPI(
        title="paytui payment sandbox",
        version="2",
        description="A stateful sandbox of the payment API, per docs/api-assumptions.md.",
        docs_url="/docs",
        redoc_url=None,
        # A body without Content-Type is read as JSON, as curl users expect.
        strict_content_type=False,
    )
    bind(app, db_path, faults=faults, token_ttl=token_ttl, boarding_interval=boarding_interval)
    app.include_router(auth_router)
    app.include_router(charges_router)
    app.include_router(resources_router)
    app.include_router(conversations_router)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _server_error)
    app.add_middleware(SandboxMiddleware)  # reads app.state.faults and .store per request
    install_openapi(app)
    quiet_dropped_answers()
    return app


def bind(
    app: FastAPI,
    db_path: Path | str,
    *,
    faults: Faults | None = None,
    token_ttl: int = 3600,
    boarding_interval: float = 20.0,
) -> None:
    """Give `app` its database, faults and token lifetime: everything of a sandbox's state that
    the app holds (`app.state`; the middleware and the routes read it there on each request).
    Called again, it replaces all of it: the tests run one app per process this way."""
    app.state.store = Store(db_path, boarding_interval=boarding_interval)
    app.state.faults = faults if faults is not None else Faults()
    app.state.token_ttl = token_ttl
