"""UI test helpers: build a `PaytuiApp` over the in-process sandbox with a frozen clock.

`make_app(sandbox_transport, **kwargs)` is the one way UI tests (charge search and charge detail)
build the app; keep its name and signature stable. The `app_factory` fixture binds it to the
test's own sandbox copy: `app = app_factory()` / `app_factory(client_id="paytui-limited", ...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from paytui.ui.app import PaytuiApp

FROZEN_NOW = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
DEMO_CLIENT_ID = "paytui-demo"
DEMO_CLIENT_SECRET = "paytui-demo-secret"
LIMITED_CLIENT_ID = "paytui-limited"
LIMITED_CLIENT_SECRET = "paytui-limited-secret"


def frozen_clock() -> datetime:
    return FROZEN_NOW


def make_app(
    sandbox_transport: httpx.AsyncBaseTransport,
    *,
    client_id: str = DEMO_CLIENT_ID,
    client_secret: str = DEMO_CLIENT_SECRET,
    timeout: float = 10.0,
    max_retries: int = 0,
    **kwargs: Any,
) -> PaytuiApp:
    """A `PaytuiApp` whose client talks to `sandbox_transport` with the demo credentials.

    Retries are off by default so error-state tests see the first failure; other keyword
    arguments go to `PaytuiApp` (environment, keymap, clock, ...). The clock is frozen at
    2026-11-20T18:30:00Z unless `clock=` is given.
    """

    async def factory() -> Any:
        from paytui.api.client import PaymentClient

        return PaymentClient(
            "http://sandbox",
            client_id=client_id,
            client_secret=client_secret,
            transport=sandbox_transport,
            timeout=timeout,
            max_retries=max_retries,
        )

    kwargs.setdefault("clock", frozen_clock)
    return PaytuiApp(factory, **kwargs)


@pytest.fixture
def app_factory(sandbox_transport: httpx.AsyncBaseTransport) -> Callable[..., PaytuiApp]:
    """`app_factory(**kwargs)` -> `make_app(sandbox_transport, **kwargs)`."""

    def build(**kwargs: Any) -> PaytuiApp:
        return make_app(sandbox_transport, **kwargs)

    return build
