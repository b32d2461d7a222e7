"""A second, independent fake of the payment service, for tests (issue 23).

Written from `shared/spec/payment-service-spec.md` and `api-facts.md` alone: it imports nothing
of paytui (not the sandbox, not the client) so it cannot agree with paytui by construction. Where
the spec says "not shown" it makes a choice, and each such choice is switchable through
`ServiceOptions` (which filters it applies, what it echoes, the list envelope and count key, the
paging style, how credentials reach the token endpoint, unknown query parameters, ids).

- `options.py`: `ServiceOptions`, the switchable choices.
- `data.py`: the seeded in-memory store (126 charges over 3 accounts, refunds, authorizations).
- `app.py`: the Starlette (ASGI) app, served in-process through `httpx.ASGITransport`.
- `fixtures.py`: the `second_service` pytest fixture (a factory) and helpers to build a
  `PaymentClient` or run the command line against it.
"""

from tests.second_service.app import SecondService, create_app
from tests.second_service.data import Store
from tests.second_service.options import ServiceOptions

__all__ = ["SecondService", "ServiceOptions", "Store", "create_app"]
