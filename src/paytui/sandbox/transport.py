"""The in-process transport of the sandbox (tests, benchmarks, the chaos harness).

Kept apart from `embedded` so that module stays importable without httpx.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from paytui.sandbox.client_watch import CLIENT, ClientWatch
from paytui.sandbox.faults import DropResponse, ResetConnection

__all__ = ["InProcessTransport"]


class InProcessTransport(httpx.ASGITransport):
    """httpx's ASGI transport, made to fail the way a network does.

    - The request's read timeout (the client's `timeout`) is enforced: httpx's ASGITransport
      ignores timeouts. The app runs in a detached task, so when the client gives up the server
      side carries on, as on a real server; it commits only if it gets there soon after the
      client left (`paytui.sandbox.client_watch`), except for a late commit
      (`Faults.late_commit`), which lands after the timeout on purpose. `drain()` waits for
      such requests to finish. A cancelled caller (the client's overall deadline) is the same.
    - A dropped answer (`drop_after_commit`) surfaces as `httpx.RemoteProtocolError` and a reset
      (`reset_after_commit`) as `httpx.ReadError`, what the same faults produce over a socket.
    """

    def __init__(self, app: Any) -> None:
        super().__init__(app=app)
        self.detached: set[asyncio.Task[httpx.Response]] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = (request.extensions.get("timeout") or {}).get("read")
        watch = ClientWatch()
        # The detached task copies this context: the app's commit sees whether we still wait.
        token = CLIENT.set(watch)
        try:
            task = asyncio.ensure_future(super().handle_async_request(request))
        finally:
            CLIENT.reset(token)
        self.detached.add(task)
        task.add_done_callback(_forget(self.detached))
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        except asyncio.CancelledError:
            # The caller gave up (its overall deadline, or it was cancelled): as on a real
            # server, the request already sent carries on — and commits only if it gets there
            # before it notices (a `late_commit` does).
            watch.leave()
            raise
        if not done:
            watch.leave()
            raise httpx.ReadTimeout("sandbox: no answer in time", request=request)
        try:
            return task.result()
        except ResetConnection as exc:
            raise httpx.ReadError(
                f"sandbox reset the connection after committing the {exc}", request=request
            ) from exc
        except DropResponse as exc:
            raise httpx.RemoteProtocolError(
                f"sandbox dropped the answer after committing the {exc}", request=request
            ) from exc

    async def drain(self) -> None:
        """Wait for requests the client gave up on (a late commit) to finish on the server."""
        while self.detached:
            await asyncio.gather(*list(self.detached), return_exceptions=True)


def _forget(tasks: set[asyncio.Task[httpx.Response]]) -> Any:
    def done(task: asyncio.Task[httpx.Response]) -> None:
        tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: nobody may be waiting for an abandoned request

    return done
