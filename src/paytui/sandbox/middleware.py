"""The sandbox's ASGI middleware: fault injection, bearer-token authentication, scope checks,
dropping answers after commit, and holding a request before a late commit.

It is plain ASGI (not BaseHTTPMiddleware) so it can cut a connection: to drop an answer it starts
the response and then raises, which makes uvicorn close the socket without a complete answer, and
makes httpx's ASGITransport raise, the same "did it happen?" situation a real network produces.

A committing request runs under a `ClientWatch` (`paytui.sandbox.client_watch`): once its client
has stopped waiting, its commit is refused, so a write lands in time or never. A late commit
(`Faults.late_commit`, the deliberate exception) reads the whole request first, holds it, then
runs the endpoint: a client that gave up meanwhile does not stop it (uvicorn does not cancel an
app whose client left; the in-process transport detaches it), so the commit lands after the
timeout.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import anyio.to_thread
from fastapi import Response
from starlette.datastructures import Headers

from paytui.sandbox.client_watch import (
    CLIENT,
    GIVE_UP_HEADER,
    ClientWatch,
    judged,
    stated_deadline,
    watch_receive,
)
from paytui.sandbox.faults import DropResponse, Faults, operation_of
from paytui.sandbox.http import error_response
from paytui.sandbox.scopes import allowed, needs_token, required_scopes
from paytui.sandbox.store import Store

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


#: The client whose token opens the `/sandbox/*` control endpoints (not `/sandbox/health`).
CONTROL_CLIENT_ID = "paytui-demo"


def _is_control(path: str) -> bool:
    return path.startswith("/sandbox/") and path != "/sandbox/health"


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            kind, _, token = bytes(value).decode("latin-1").partition(" ")
            if kind.lower() == "bearer" and token.strip():
                return token.strip()
    return None


async def _read_then_hold(receive: Receive, seconds: float) -> Receive:
    """Read the whole request body, wait `seconds`, and return a `receive` that replays it."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body"):
            break
    await anyio.sleep(seconds)
    queued = iter(messages)

    async def replay() -> Message:
        for message in queued:
            return message
        return await receive()

    return replay


class SandboxMiddleware:
    """Applies faults and auth to `/v2` requests; everything else passes straight through.

    The faults and the store are the app's (`app.state`), read on each request: whoever swaps
    them (the tests' one app per process, `tests/fixtures_sandbox.py`) swaps them everywhere."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    @staticmethod
    def _faults(scope: Scope) -> Faults:
        faults: Faults = scope["app"].state.faults
        return faults

    @staticmethod
    def _store(scope: Scope) -> Store:
        store: Store = scope["app"].state.store
        return store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and judged(scope["method"], scope["path"]):
            # A request that may write commits only while its client still waits
            # (`paytui.sandbox.client_watch`); the in-process transport may have set the watch.
            watch = CLIENT.get() or ClientWatch()
            if watch.gives_up_at is None:
                watch.gives_up_at = stated_deadline(Headers(scope=scope).get(GIVE_UP_HEADER))
            token = CLIENT.set(watch)
            try:
                async with watch_receive(receive, watch) as watched:
                    await self._dispatch(scope, watched, send)
            finally:
                CLIENT.reset(token)
            return
        # Nothing else is judged by whether its client still waits (a token, a read, a control
        # call: the in-process transport watches every request).
        token = CLIENT.set(None)
        try:
            await self._dispatch(scope, receive, send)
        finally:
            CLIENT.reset(token)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _is_control(scope["path"]):
            refusal = await self._control_refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        if scope["type"] != "http" or not scope["path"].startswith("/v2/"):
            await self.app(scope, receive, send)
            return
        refusal = await self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        operation = operation_of(scope["method"], scope["path"])
        hold = self._faults(scope).late_commit_hold(operation)
        if hold is not None:
            receive = await _read_then_hold(receive, hold)
            token = CLIENT.set(None)  # on purpose: it commits for a client that left
            try:
                await self._run(scope, receive, send)
            finally:
                CLIENT.reset(token)
        else:
            await self._run(scope, receive, send)

    async def _run(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except DropResponse:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            raise

    async def _control_refusal(self, scope: Scope) -> Any:
        """The `/sandbox/*` control endpoints (faults, boarding) take the demo client's token:
        whoever can reach the socket must still not flip faults or approve accounts unasked."""
        token = _bearer(scope)
        client = None
        if token is not None:
            client = await anyio.to_thread.run_sync(self._store(scope).token_client, token)
        if client != CONTROL_CLIENT_ID:
            return error_response(
                401,
                f"the /sandbox control endpoints need a token of the {CONTROL_CLIENT_ID} client",
                {"WWW-Authenticate": "Bearer"},
            )
        return None

    async def _refusal(self, scope: Scope) -> Any:
        """A response to send instead of running the endpoint, or None to go ahead."""
        path = scope["path"]
        faults = self._faults(scope)
        if faults.delay_seconds > 0:
            await anyio.sleep(faults.delay_seconds)
        forced = faults.take_failure(path, scope.get("method"))
        if forced is not None:
            return self._forced(faults, forced)
        if not needs_token(path):
            return None
        token = _bearer(scope)
        challenge = {"WWW-Authenticate": "Bearer"}
        if token is None:
            return error_response(401, "missing bearer token", challenge)
        scopes = await anyio.to_thread.run_sync(self._store(scope).token_scopes, token)
        if scopes is None:
            challenge["WWW-Authenticate"] = 'Bearer error="invalid_token"'
            return error_response(401, "unknown or expired token", challenge)
        needed = required_scopes(scope["method"], path)
        if needed is not None and not allowed(scopes, needed):
            return error_response(
                403,
                f"{scope['method']} {path} needs one of these scopes: {' '.join(needed)}",
                required_scopes=needed,
            )
        scope.setdefault("state", {})["scopes"] = scopes
        return None

    @staticmethod
    def _forced(faults: Faults, status: int) -> Any:
        headers = {"Retry-After": "1"} if status == 429 else None
        if faults.fail_body is not None:
            return Response(faults.fail_body, status, headers, media_type="text/html")
        return error_response(status, f"sandbox fault: forced status {status}", headers)
