"""The second service's customers: other plausible choices than the sandbox's, from the spec
alone (it lists GET, POST, PATCH and PUT on /customers and shows no shape).

- a customer's id is `id`, its name `full_name`, its contact nested: ``contact: {email, phone}``;
- ``PATCH /v2/customers/{id}`` takes the contact at the top of the body (``email``, ``phone``)
  or nested under ``contact``, merges it, and answers the customer (200); any other field is
  ignored, not refused (a change it did not make shows only on reading it back);
- an email without ``@`` is 400 (``invalid_email``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from tests.second_service.app import SecondService

Handler = Callable[[Request], Awaitable[Response]]


def seeded() -> list[dict[str, Any]]:
    return [
        {
            "id": f"cust-{number}",
            "full_name": name,
            "contact": {"email": email, "phone": None},
        }
        for number, (name, email) in enumerate(
            [("Ada Lovelace", "ada@example.org"), ("Alan Turing", "alan@example.org")]
        )
    ]


def routes(service: SecondService, guarded: Callable[[Handler], Handler]) -> list[Route]:
    """The routes of customers over `service` (`service.customers` holds them)."""
    from tests.second_service.app import error, listing

    customers = seeded()
    service.customers = customers  # type: ignore[attr-defined]

    def find(request: Request) -> dict[str, Any] | None:
        wanted = request.path_params["cid"]
        return next((c for c in customers if c["id"] == wanted), None)

    async def list_customers(request: Request) -> Response:
        return listing(request, service, "customers", customers, dict)

    async def get_customer(request: Request) -> Response:
        found = find(request)
        if found is None:
            return error(404, "not_found", "no such customer")
        return JSONResponse(found)

    async def patch_customer(request: Request) -> Response:
        found = find(request)
        if found is None:
            return error(404, "not_found", "no such customer")
        body = await request.json()
        if not isinstance(body, dict):
            return error(400, "invalid_body", "a JSON object")
        nested = body.get("contact") if isinstance(body.get("contact"), dict) else {}
        given = {k: body.get(k, nested.get(k)) for k in ("email", "phone")}
        given = {k: v for k, v in given.items() if isinstance(v, str)}
        if "email" in given and "@" not in given["email"]:
            return error(400, "invalid_email", "not an email address")
        found["contact"].update(given)
        return JSONResponse(found)

    return [
        Route("/v2/customers", guarded(list_customers), methods=["GET"]),
        Route("/v2/customers/{cid}", guarded(get_customer), methods=["GET"]),
        Route("/v2/customers/{cid}", guarded(patch_customer), methods=["PATCH"]),
    ]
