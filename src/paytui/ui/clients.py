"""How a resolved connection becomes an API client, without the UI.

`client_factory_for(connection)` gives the coroutine factory the session awaits once, after the
first paint: a remote profile's `PaymentClient`, or the embedded sandbox's (whose client imports
start at once in a thread, so they overlap Textual building the shell). Used by `launch` (the
first connection) and by the session (a profile switch); imports nothing of Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from paytui.connect import embedded_client

if TYPE_CHECKING:
    import types

    from paytui.api.client import PaymentClient
    from paytui.config.connection import Connection
    from paytui.sandbox.embedded import EmbeddedSandbox

__all__ = ["ClientFactory", "client_factory_for", "embedded_factory", "import_client"]

ClientFactory = Callable[[], Awaitable["PaymentClient"]]

#: Seconds the first request waits for the embedded sandbox child to print READY.
SANDBOX_READY_TIMEOUT = 30.0


def client_factory_for(
    connection: Connection, *, sandbox: EmbeddedSandbox | None = None, warm: bool = True
) -> ClientFactory:
    """The coroutine factory the app awaits once, after its first paint, to get its client.

    `warm`: for the embedded sandbox, start importing the client now, in a thread (else when
    the factory is first awaited)."""
    if connection.is_embedded:
        if sandbox is None:
            raise ValueError("an embedded connection needs the started EmbeddedSandbox")
        return embedded_factory(sandbox, warm=warm)
    from paytui.config import client_kwargs

    kwargs = client_kwargs(connection)

    async def remote() -> PaymentClient:
        module = await asyncio.to_thread(import_client)
        client_class: type[PaymentClient] = module.PaymentClient
        return client_class(**kwargs)

    return remote


def import_client() -> types.ModuleType:
    """Import `paytui.api.client` (and httpx) without httpx's command line
    (`paytui.api.without_httpx_cli`); returns the module."""
    from paytui.api import without_httpx_cli

    without_httpx_cli()
    return importlib.import_module("paytui.api.client")


def embedded_factory(sandbox: EmbeddedSandbox, *, warm: bool = True) -> ClientFactory:
    """With `warm`, starts importing the client at once, in a thread, so the imports fill the
    gaps while Textual builds and paints the shell (the factory itself is awaited after the
    first paint); without, the thread starts when the factory is first awaited."""
    import concurrent.futures
    import threading

    warmed: concurrent.futures.Future[None] = concurrent.futures.Future()

    def wait_and_warm() -> None:
        """In a thread: import the client while the child finishes starting."""
        try:
            import_client()
            # What httpcore imports on the first request (its anyio backend): ~10 ms saved then.
            for module in ("httpcore._backends.anyio", "anyio._backends._asyncio"):
                with contextlib.suppress(ImportError):
                    importlib.import_module(module)
            sandbox.wait_ready(SANDBOX_READY_TIMEOUT)
        except BaseException as exc:
            with contextlib.suppress(concurrent.futures.InvalidStateError):  # app quit: cancelled
                warmed.set_exception(exc)
        else:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                warmed.set_result(None)

    thread = threading.Thread(target=wait_and_warm, name="paytui-client-warm", daemon=True)
    if warm:
        thread.start()

    async def embedded() -> PaymentClient:
        if thread.ident is None:  # not started yet
            thread.start()
        await asyncio.wrap_future(warmed)
        return embedded_client(sandbox)

    return embedded
