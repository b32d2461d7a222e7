"""Commit or never: the sandbox does not commit a write for a client that has stopped waiting.

paytui proves "not applied" by reading the service back after the request's deadline plus a
margin (docs/money-safety.md), on the stated assumption that a request is committed within that
window or never (docs/api-assumptions.md). A sandbox that only *usually* commits in time breaks
the proof on a loaded machine: a write held up long enough (a starved thread, a lock) landed
after the client had given up and read back "nothing", and the read-back said "did not happen"
for a refund that had happened. So the sandbox keeps the assumption itself, rather than counting
on being fast (within the limits in docs/money-safety.md, "Limits"):

- Every request that may write (`judged`: any method but GET, HEAD and OPTIONS on a `/v2` path
  but the token endpoint — every action paytui proves by a read-back is one) carries a
  `ClientWatch` in a context variable; it follows the endpoint into its worker thread.
- Over a socket, `watch_receive` keeps listening after the body has been read, so a client that
  closes its connection (it gave up) sets the watch at once.
- In process, `InProcessTransport` sets it when its caller stops waiting (timeout or cancel).
- A client may state when it gives up (`GIVE_UP_HEADER`, paytui's client does on every write):
  that moment counts as its leaving too, however late the server notices a hang-up (when it is
  still ahead as the request arrives: `stated_deadline`).
- `Store.write` calls `check_client` just before COMMIT: a client gone for longer than
  `COMMIT_GRACE` means ROLLBACK and `ClientLeft`, nothing written. (Within the grace a commit
  still lands, as it does on a server whose request was past the point of no return when the
  client hung up: the read-back, made a margin after the client gave up, sees it.)

The `late_commit` fault is the deliberate exception (it exists to break the assumption), so its
requests carry no watch.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from typing import Any

from paytui.sandbox.errors import ApiError
from paytui.sandbox.scopes import needs_token

__all__ = [
    "CLIENT",
    "GIVE_UP_HEADER",
    "ClientLeft",
    "ClientWatch",
    "check_client",
    "judged",
    "stated_deadline",
    "watch_receive",
]

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]

#: Seconds after the client left during which a commit may still land (the request was past the
#: point of no return, as on any server). Well inside the client's settle margin (2 s after it
#: gave up), leaving room for the server to notice the hang-up late on a loaded machine.
COMMIT_GRACE = 0.5


class ClientLeft(ApiError):
    """The client stopped waiting before the commit: rolled back, nothing was done. (Nobody
    reads this answer; it is what the log and a test see.)"""

    status, code = 503, "client_left"


#: The request header in which a client states when it gives up on a write (seconds since the
#: epoch, `time.time()`): the sandbox then keeps "commit or never" from that moment too, not
#: only from when its event loop notices the hang-up (late on a loaded machine).
GIVE_UP_HEADER = "x-request-deadline"


def stated_deadline(value: str | None) -> float | None:
    """The moment a `GIVE_UP_HEADER` value names, if it is still ahead as the request arrives
    (None: absent, not a finite number, or already past).

    One already past is not trusted: the clocks may disagree (a sandbox served to another
    machine, `--allow-remote`), and refusing every write of a client whose clock is behind
    would only stop it working. The request is then judged by its hang-up alone, as before."""
    try:
        moment = float(value or "nan")
    except ValueError:
        return None
    return moment if math.isfinite(moment) and moment >= time.time() else None


class ClientWatch:
    """Whether the client of one request is still waiting, and since when it is not; set from
    any thread. `gives_up_at`: when the client said it stops waiting (`GIVE_UP_HEADER`)."""

    def __init__(self) -> None:
        self._gone = threading.Event()
        self._left_at: float | None = None
        self.gives_up_at: float | None = None

    def leave(self) -> None:
        if self._left_at is None:
            self._left_at = time.monotonic()
        self._gone.set()

    def too_late(self) -> bool:
        """True once the client left, or its stated deadline passed, more than `COMMIT_GRACE`
        seconds ago: committing now could land after its read-back."""
        if self._left_at is not None and time.monotonic() - self._left_at > COMMIT_GRACE:
            return True
        return self.gives_up_at is not None and time.time() - self.gives_up_at > COMMIT_GRACE

    def wait(self, timeout: float) -> bool:
        """Block until the client has left (True) or `timeout` passes (False)."""
        return self._gone.wait(timeout)


#: Methods that never write.
_READS = frozenset({"GET", "HEAD", "OPTIONS"})


def judged(method: str, path: str) -> bool:
    """Is this request judged by whether its client still waits? Every `/v2` request that may
    write, but the token endpoint: a token whose caller gave up harms nobody, and one fetch may
    be shared by several requests."""
    return method not in _READS and needs_token(path)


#: The watch of the request being handled (None outside a judged request).
CLIENT: ContextVar[ClientWatch | None] = ContextVar("paytui_sandbox_client", default=None)


def check_client() -> None:
    """Raise `ClientLeft` when the current request's client stopped waiting too long ago."""
    watch = CLIENT.get()
    if watch is not None and watch.too_late():
        raise ClientLeft("the client stopped waiting before the commit; nothing was done")


@contextlib.asynccontextmanager
async def watch_receive(receive: Receive, watch: ClientWatch) -> AsyncIterator[Receive]:
    """A `receive` for the app that, once the body is read, keeps listening for the client's
    disconnect and marks `watch` when it comes. The app's own later calls share that one
    listener, so the server's `receive` is never awaited twice at once."""
    listener: asyncio.Task[Message] | None = None

    async def listen() -> Message:
        message = await receive()
        if message["type"] == "http.disconnect":
            watch.leave()
        return message

    async def watched() -> Message:
        nonlocal listener
        if listener is not None:
            return await asyncio.shield(listener)
        message = await receive()
        if message["type"] == "http.disconnect":
            watch.leave()
        elif not message.get("more_body"):
            listener = asyncio.ensure_future(listen())
        return message

    try:
        yield watched
    finally:
        if listener is not None and not listener.done():
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
