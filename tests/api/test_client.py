"""PaymentClient against `httpx.MockTransport`: error mapping, retries, auth, lists, logging."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.errors import (
    ApiError,
    AuthenticationError,
    ConflictError,
    ForbiddenError,
    MalformedResponseError,
    NotFoundError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    TransportError,
    ValidationError,
)
from paytui.api.models import (
    CardPaymentMethodRequest,
    Charge,
    ChargeRequest,
    RefundRequest,
)
from paytui.api.queries import ChargeQuery

CHARGE_ID = "6206bcbf973c0193850fb6c7"
CHARGE = {"charge_id": CHARGE_ID, "total_amount": 25.1, "status": "success"}
CARD = "4111111111111111"

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport handler that answers from a script and remembers every request."""

    def __init__(self, *responses: httpx.Response | Exception | Handler) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/v2/services/oauth2/token":
            return token_response()
        answer = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer) and not isinstance(answer, httpx.Response):
            return answer(request)
        return answer

    @property
    def api_requests(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path != "/v2/services/oauth2/token"]

    @property
    def token_requests(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path == "/v2/services/oauth2/token"]


_token_counter = iter(range(1, 1_000_000))


def token_response(expires_in: int = 3600, scope: str = "urn:v2:charges:all") -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "access_token": f"tok-{next(_token_counter)}",
            "token_type": "Bearer",
            "expires_in": expires_in,
            "scope": scope,
        },
    )


def make_client(handler: Any, **kwargs: Any) -> PaymentClient:
    kwargs.setdefault("token", "static-token")
    client = PaymentClient("http://api.test", transport=httpx.MockTransport(handler), **kwargs)
    client.sleeps = []  # type: ignore[attr-defined]

    async def fake_sleep(seconds: float) -> None:
        client.sleeps.append(seconds)  # type: ignore[attr-defined]

    client.sleep = fake_sleep
    return client


def error(status: int, body: Any = None, **kwargs: Any) -> httpx.Response:
    return httpx.Response(status, json=body, **kwargs)


def charge_request() -> ChargeRequest:
    return ChargeRequest(
        account_id="pa_x",
        total_amount=Decimal("10.10"),
        payment_method=CardPaymentMethodRequest(card_number=CARD, expiration_date="2030-12"),
    )


# -- success paths ------------------------------------------------------------------------------


async def test_get_charge_sends_bearer_and_parses_exact_money() -> None:
    rec = Recorder(httpx.Response(200, content=json.dumps(CHARGE).encode()))
    async with make_client(rec) as client:
        charge = await client.get_charge(CHARGE_ID, expand="all")
    assert isinstance(charge, Charge)
    assert charge.total_amount == Decimal("25.1")
    request = rec.requests[0]
    assert request.headers["Authorization"] == "Bearer static-token"
    assert request.url.path == f"/v2/charges/{CHARGE_ID}"
    assert request.url.params["expand"] == "all"


async def test_ids_are_escaped_in_paths() -> None:
    rec = Recorder(error(404, {"error": "not_found", "message": "no charge"}))
    async with make_client(rec) as client:
        with pytest.raises(NotFoundError):
            await client.get_charge("../refunds")
    assert rec.requests[0].url.raw_path == b"/v2/charges/..%2Frefunds"


async def test_create_charge_sends_the_real_card_number_and_exact_amount() -> None:
    rec = Recorder(httpx.Response(201, json=CHARGE))
    async with make_client(rec) as client:
        await client.create_charge(charge_request())
    sent = json.loads(rec.requests[0].content)
    assert sent["payment_method"]["card_number"] == CARD
    assert b'"total_amount":10.1' in rec.requests[0].content.replace(b" ", b"")


@pytest.mark.parametrize("amount", ["12345678901234567.89", "1234567890123456.5"])
async def test_an_amount_the_wire_cannot_carry_is_a_validation_error_and_nothing_is_sent(
    amount: str,
) -> None:
    """Only ApiError leaves the client: an amount JSON cannot write exactly is refused here."""
    rec = Recorder(httpx.Response(201, json=CHARGE))
    request = charge_request().model_copy(update={"total_amount": Decimal(amount)})
    async with make_client(rec) as client:
        with pytest.raises(ValidationError) as info:
            await client.create_charge(request)
        refund = RefundRequest(charge_id=CHARGE_ID, total_amount=Decimal(amount))
        with pytest.raises(ValidationError):
            await client.create_refund(refund)
    assert "cannot send" in str(info.value)
    assert rec.api_requests == []


async def test_capture_and_update_bodies() -> None:
    rec = Recorder(httpx.Response(201, json=CHARGE))
    async with make_client(rec) as client:
        await client.capture(CHARGE_ID)
        await client.capture(CHARGE_ID, convenience_fee=Decimal("1.50"))
        await client.update_charge(CHARGE_ID, tags=["a"])
    assert json.loads(rec.requests[0].content) == {}
    assert json.loads(rec.requests[1].content) == {"convenience_fee": 1.5}
    assert rec.requests[2].method == "PATCH"
    assert json.loads(rec.requests[2].content) == {"tags": ["a"]}


async def test_no_content_answer_is_fine_for_2xx_json() -> None:
    rec = Recorder(httpx.Response(200, json=[]))
    async with make_client(rec) as client:
        page = await client.list_merchants_page()
    assert page.items == []
    assert page.has_more is False


# -- error mapping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (400, {"error": "invalid_request", "message": "malformed JSON body"}, ValidationError),
        (401, {"error": "unauthorized", "message": "token expired"}, AuthenticationError),
        (403, {"error": "forbidden", "message": "scope missing"}, ForbiddenError),
        (404, {"error": "not_found", "message": "no charge"}, NotFoundError),
        (409, {"error": "conflict", "message": "already captured"}, ConflictError),
        (422, {"error": "validation_error", "message": "bad"}, ValidationError),
        (429, {"error": "rate_limited", "message": "slow down"}, RateLimitedError),
        (500, {"error": "server_error", "message": "boom"}, ServerError),
        (503, {"error": "unavailable", "message": "later"}, ServerError),
        (418, {"error": "teapot", "message": "short and stout"}, ApiError),
    ],
)
async def test_every_status_maps_to_its_class(
    status: int, body: dict[str, Any], cls: type[ApiError]
) -> None:
    rec = Recorder(error(status, body))
    async with make_client(rec, max_retries=0) as client:
        with pytest.raises(cls) as info:
            await client.create_charge(charge_request())
    assert type(info.value) is cls
    assert info.value.status == status
    assert info.value.code == body["error"]
    assert body["message"] in str(info.value)
    assert len(rec.api_requests) == 1


async def test_forbidden_keeps_required_scopes() -> None:
    body = {"error": "forbidden", "message": "nope", "required_scopes": ["urn:v2:charges:all"]}
    async with make_client(Recorder(error(403, body))) as client:
        with pytest.raises(ForbiddenError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.required_scopes == ["urn:v2:charges:all"]


async def test_validation_error_keeps_field_errors_and_redacts_numbers() -> None:
    body = {
        "error": "validation_error",
        "message": f"card {CARD} fails the Luhn check",
        "fields": [{"field": "payment_method.card_number", "message": f"{CARD} is invalid"}],
    }
    async with make_client(Recorder(error(422, body))) as client:
        with pytest.raises(ValidationError) as info:
            await client.create_charge(charge_request())
    err = info.value
    assert [f.field for f in err.field_errors] == ["payment_method.card_number"]
    assert CARD not in str(err)
    assert CARD not in err.field_errors[0].message
    assert "XXXX…1111" in str(err)


@pytest.mark.parametrize(
    "body",
    [
        {"error_description": "the message"},
        {"detail": "the message"},
        {"detail": [{"loc": ["body", "total_amount"], "msg": "the message"}]},
        {"error": {"code": "bad", "message": "the message"}},
        {"errors": [{"message": "the message"}]},
    ],
)
async def test_error_message_is_read_from_other_shapes(body: dict[str, Any]) -> None:
    async with make_client(Recorder(error(422, body))) as client:
        with pytest.raises(ValidationError) as info:
            await client.get_charge(CHARGE_ID)
    assert "the message" in str(info.value)


async def test_fastapi_detail_list_gives_field_errors() -> None:
    body = {"detail": [{"loc": ["body", "total_amount"], "msg": "must be positive"}]}
    async with make_client(Recorder(error(422, body))) as client:
        with pytest.raises(ValidationError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.field_errors[0].field == "total_amount"


async def test_non_json_success_body_is_malformed() -> None:
    page = "<html><body>Proxy login " + "x" * 400 + "</body></html>"
    async with make_client(Recorder(httpx.Response(200, text=page))) as client:
        with pytest.raises(MalformedResponseError) as info:
            await client.get_charge(CHARGE_ID)
    assert "<html>" in str(info.value)
    assert len(str(info.value)) < 260


async def test_non_json_error_body_keeps_its_status_class() -> None:
    rec = Recorder(httpx.Response(502, text="<html>Bad Gateway</html>"))
    async with make_client(rec, max_retries=0) as client:
        with pytest.raises(ServerError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.status == 502
    assert "Bad Gateway" in str(info.value)


@pytest.mark.parametrize(
    "body",
    [
        {"total_amount": 1},  # no charge_id
        {"charge_id": ["lots"]},  # an id of an impossible shape
        [1, 2, 3],
        "just a string",
    ],
)
async def test_unexpected_shape_is_malformed(body: Any) -> None:
    async with make_client(Recorder(httpx.Response(200, json=body))) as client:
        with pytest.raises(MalformedResponseError) as info:
            await client.get_charge(CHARGE_ID)
    assert "lots" not in str(info.value)  # values are not quoted (they may be card data)


async def test_unexpected_list_shape_is_malformed() -> None:
    async with make_client(Recorder(httpx.Response(200, json={"weird": []}))) as client:
        with pytest.raises(MalformedResponseError):
            await client.search_charges_page()


# -- transport failures -------------------------------------------------------------------------


async def test_connect_error_on_post_is_not_sent_and_not_retried() -> None:
    rec = Recorder(httpx.ConnectError("refused"))
    async with make_client(rec) as client:
        with pytest.raises(TransportError) as info:
            await client.create_charge(charge_request())
    assert info.value.request_sent is False
    assert not isinstance(info.value, RequestTimeoutError)
    assert len(rec.requests) == 1


async def test_read_timeout_on_post_is_outcome_unknown_and_not_retried() -> None:
    rec = Recorder(httpx.ReadTimeout("slow"))
    async with make_client(rec) as client:
        with pytest.raises(RequestTimeoutError) as info:
            await client.capture(CHARGE_ID)
    assert info.value.request_sent is True
    assert "outcome unknown" in str(info.value)
    assert len(rec.requests) == 1


async def test_dropped_connection_mid_post_is_outcome_unknown() -> None:
    rec = Recorder(httpx.RemoteProtocolError("Server disconnected without sending a response."))
    async with make_client(rec) as client:
        with pytest.raises(TransportError) as info:
            await client.create_refund(RefundRequest(charge_id=CHARGE_ID))
    assert info.value.request_sent is True
    assert len(rec.requests) == 1


async def test_connect_timeout_is_a_timeout_not_sent() -> None:
    rec = Recorder(httpx.ConnectTimeout("slow connect"))
    async with make_client(rec) as client:
        with pytest.raises(RequestTimeoutError) as info:
            await client.create_charge(charge_request())
    assert info.value.request_sent is False


async def test_any_other_exception_from_the_transport_is_mapped() -> None:
    rec = Recorder(RuntimeError("app crashed"))
    async with make_client(rec) as client:
        with pytest.raises(TransportError) as info:
            await client.create_charge(charge_request())
    assert info.value.request_sent is True


async def test_5xx_on_post_is_not_retried_and_says_outcome_unknown() -> None:
    rec = Recorder(error(503, {"error": "unavailable", "message": "later"}))
    async with make_client(rec) as client:
        with pytest.raises(ServerError) as info:
            await client.create_charge(charge_request())
    assert info.value.outcome_unknown is True
    assert len(rec.requests) == 1


async def test_429_on_post_is_not_retried() -> None:
    rec = Recorder(error(429, {"message": "slow"}, headers={"Retry-After": "3"}))
    async with make_client(rec) as client:
        with pytest.raises(RateLimitedError) as info:
            await client.create_charge(charge_request())
    assert info.value.retry_after == 3
    assert len(rec.requests) == 1
    assert client.sleeps == []  # type: ignore[attr-defined]


# -- GET retries --------------------------------------------------------------------------------


async def test_get_retries_429_honouring_retry_after() -> None:
    rec = Recorder(
        error(429, {"message": "slow"}, headers={"Retry-After": "2"}),
        error(503, {"message": "later"}),
        httpx.Response(200, json=CHARGE),
    )
    async with make_client(rec) as client:
        charge = await client.get_charge(CHARGE_ID)
    assert charge.charge_id == CHARGE_ID
    assert len(rec.requests) == 3
    sleeps = client.sleeps  # type: ignore[attr-defined]
    assert sleeps[0] == 2
    assert 0.5 <= sleeps[1] <= 2.0  # exponential backoff with jitter, second attempt


async def test_get_retries_connect_errors_and_timeouts_then_gives_up() -> None:
    rec = Recorder(httpx.ConnectError("refused"))
    async with make_client(rec, max_retries=2) as client:
        with pytest.raises(TransportError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.request_sent is False
    assert len(rec.requests) == 3
    assert len(client.sleeps) == 2  # type: ignore[attr-defined]


async def test_get_gives_up_after_max_retries_with_the_last_error() -> None:
    rec = Recorder(error(503, {"message": "later"}))
    async with make_client(rec, max_retries=3) as client:
        with pytest.raises(ServerError) as info:
            await client.get_charge(CHARGE_ID)
    assert info.value.outcome_unknown is False
    assert len(rec.requests) == 4
    sleeps = client.sleeps  # type: ignore[attr-defined]
    assert len(sleeps) == 3
    assert sleeps[2] >= 1.0  # grows: 0.25-0.5, 0.5-1, 1-2


async def test_get_does_not_retry_a_404() -> None:
    rec = Recorder(error(404, {"message": "no"}))
    async with make_client(rec) as client:
        with pytest.raises(NotFoundError):
            await client.get_charge(CHARGE_ID)
    assert len(rec.requests) == 1


async def test_retry_after_is_capped() -> None:
    rec = Recorder(
        error(429, {"message": "slow"}, headers={"Retry-After": "3600"}),
        httpx.Response(200, json=CHARGE),
    )
    async with make_client(rec) as client:
        await client.get_charge(CHARGE_ID)
    assert client.sleeps == [client.max_delay]  # type: ignore[attr-defined]


# -- OAuth --------------------------------------------------------------------------------------


async def test_client_credentials_fetch_a_token_with_basic_auth_and_scope() -> None:
    rec = Recorder(httpx.Response(200, json=CHARGE))
    async with make_client(
        rec, token=None, client_id="id", client_secret="secret", scopes=["urn:v2:charges:all"]
    ) as client:
        assert client.granted_scopes is None
        info = await client.authenticate()
        await client.get_charge(CHARGE_ID)
        assert client.granted_scopes == frozenset({"urn:v2:charges:all"})
    token_request = rec.token_requests[0]
    assert token_request.headers["Authorization"].startswith("Basic ")
    form = dict(httpx.QueryParams(token_request.content.decode()))
    assert form == {"grant_type": "client_credentials", "scope": "urn:v2:charges:all"}
    assert "secret" not in repr(info)
    assert rec.api_requests[0].headers["Authorization"] == (
        f"Bearer {info.access_token.get_secret_value()}"
    )
    assert len(rec.token_requests) == 1


async def test_401_refreshes_once_and_replays_even_a_post() -> None:
    rec = Recorder(error(401, {"message": "expired"}), httpx.Response(201, json=CHARGE))
    async with make_client(rec, token=None, client_id="id", client_secret="s") as client:
        charge = await client.create_charge(charge_request())
    assert charge.charge_id == CHARGE_ID
    assert len(rec.token_requests) == 2
    first, second = rec.api_requests
    assert first.headers["Authorization"] != second.headers["Authorization"]


async def test_401_twice_is_an_authentication_error() -> None:
    rec = Recorder(error(401, {"message": "expired"}))
    async with make_client(rec, token=None, client_id="id", client_secret="s") as client:
        with pytest.raises(AuthenticationError):
            await client.get_charge(CHARGE_ID)
    assert len(rec.api_requests) == 2
    assert len(rec.token_requests) == 2


async def test_401_with_a_static_token_is_not_replayed() -> None:
    rec = Recorder(error(401, {"message": "bad token"}))
    async with make_client(rec) as client:
        with pytest.raises(AuthenticationError):
            await client.get_charge(CHARGE_ID)
    assert len(rec.requests) == 1


async def test_token_is_refreshed_before_it_expires() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/token"):
            return token_response(expires_in=3600)
        return httpx.Response(200, json=CHARGE)

    from datetime import UTC, datetime, timedelta

    from paytui.api.auth import ClientCredentialsAuth

    now = [datetime(2030, 1, 1, tzinfo=UTC)]
    http = httpx.AsyncClient(base_url="http://api.test", transport=httpx.MockTransport(handler))
    auth = ClientCredentialsAuth(http, "id", "s", clock=lambda: now[0])
    async with http:
        first = await auth.token()
        now[0] += timedelta(seconds=3530)  # 70 s left: still good
        assert await auth.token() is first
        now[0] += timedelta(seconds=15)  # 55 s left: inside the 60 s margin
        assert await auth.token() is not first


async def test_concurrent_requests_share_one_token_fetch() -> None:
    import asyncio

    rec = Recorder(httpx.Response(200, json=CHARGE))
    async with make_client(rec, token=None, client_id="id", client_secret="s") as client:
        await asyncio.gather(*(client.get_charge(CHARGE_ID) for _ in range(5)))
    assert len(rec.token_requests) == 1


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (401, {"error": "invalid_client", "error_description": "bad secret"}, AuthenticationError),
        (400, {"error": "invalid_scope", "error_description": "not yours"}, ValidationError),
        (500, {"error": "server_error"}, ServerError),
        (200, {"token_type": "Bearer"}, MalformedResponseError),
    ],
)
async def test_token_endpoint_errors(status: int, body: Any, cls: type[ApiError]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body)

    async with make_client(handler, token=None, client_id="id", client_secret="hunter2") as client:
        with pytest.raises(cls) as info:
            await client.get_charge(CHARGE_ID)
    assert "hunter2" not in str(info.value)


async def test_token_endpoint_unreachable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    async with make_client(handler, token=None, client_id="id", client_secret="s") as client:
        with pytest.raises(TransportError) as info:
            await client.authenticate()
    assert info.value.request_sent is False


async def test_authenticate_without_credentials() -> None:
    async with make_client(Recorder(httpx.Response(200, json={})), token=None) as client:
        with pytest.raises(AuthenticationError):
            await client.authenticate()


# -- lists and paging ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        [CHARGE],
        {"data": [CHARGE]},
        {"items": [CHARGE]},
        {"results": [CHARGE]},
        {"charges": [CHARGE]},
    ],
)
async def test_list_envelopes(body: Any) -> None:
    async with make_client(Recorder(httpx.Response(200, json=body))) as client:
        page = await client.search_charges_page(limit=10)
    assert [c.charge_id for c in page.items] == [CHARGE_ID]
    assert page.total is None
    # No hint at all (no count, has_more, next link or page size said): a short page may be a
    # smaller page size than asked, so the next read confirms the end (`paytui.api.paging`).
    assert page.has_more is True


async def test_paging_hints_are_used_and_query_params_sent() -> None:
    body = {"data": [CHARGE], "total": 7, "limit": 1, "offset": 3, "has_more": True}
    rec = Recorder(httpx.Response(200, json=body))
    query = ChargeQuery(status="chargeback", tags=("vip",))
    async with make_client(rec) as client:
        page = await client.search_charges_page(query, limit=1, offset=3)
    assert (page.total, page.limit, page.offset, page.has_more) == (7, 1, 3, True)
    params = rec.requests[0].url.params
    assert params["status"] == "chargeback"
    assert params.get_list("tag") == ["vip"]
    assert (params["limit"], params["offset"]) == ("1", "3")


def paged_handler(total: int, *, with_hints: bool) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params["limit"])
        offset = int(request.url.params["offset"])
        rows = [
            {"charge_id": f"{i:024x}", "total_amount": i}
            for i in range(offset, min(total, offset + limit))
        ]
        if not with_hints:
            return httpx.Response(200, json=rows)
        return httpx.Response(
            200,
            json={
                "data": rows,
                "total": total,
                "limit": limit,
                "offset": offset,
                "has_more": offset + len(rows) < total,
            },
        )

    return handler


@pytest.mark.parametrize("with_hints", [True, False])
async def test_search_charges_iterates_every_page_and_stops(with_hints: bool) -> None:
    rec = Recorder(paged_handler(12, with_hints=with_hints))
    seen: list[str] = []
    async with make_client(rec) as client:
        async for page in client.search_charges(page_size=5):
            seen.extend(c.charge_id for c in page.items)
    assert len(seen) == 12
    assert len(set(seen)) == 12
    # Without hints the short last page is confirmed by one more (empty) read.
    assert len(rec.requests) == (3 if with_hints else 4)


async def test_search_refunds_iterates_an_exact_multiple_without_hints() -> None:
    refunds = [{"refund_id": f"{i:024x}", "charge_id": CHARGE_ID} for i in range(4)]

    def handler(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params["offset"])
        return httpx.Response(200, json={"refunds": refunds[offset : offset + 2]})

    rec = Recorder(handler)
    pages = []
    async with make_client(rec) as client:
        async for page in client.search_refunds(page_size=2):
            pages.append(len(page.items))
    assert pages == [2, 2, 0]


# -- logging and isolation ----------------------------------------------------------------------


async def test_debug_log_has_method_path_status_but_no_secrets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rec = Recorder(httpx.Response(201, json=CHARGE))
    caplog.set_level(logging.DEBUG, logger="paytui.api")
    async with make_client(rec, token=None, client_id="id", client_secret="hunter2") as client:
        await client.create_charge(charge_request())
        token = client._auth.current.access_token.get_secret_value()  # type: ignore[union-attr]
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "paytui.api")
    assert "POST /v2/charges -> 201" in text
    for secret in (CARD, "hunter2", token, "Basic "):
        assert secret not in text


def test_importing_the_client_pulls_in_neither_textual_nor_the_sandbox() -> None:
    code = (
        "import sys, paytui.api.client, paytui.api.models;"
        "bad = [m for m in ('textual', 'fastapi', 'paytui.sandbox') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


async def test_error_body_kept_on_the_exception_is_redacted() -> None:
    body = {"error": "validation_error", "message": "bad", "echo": {"card_number": CARD}}
    async with make_client(Recorder(error(422, body))) as client:
        with pytest.raises(ValidationError) as info:
            await client.get_charge(CHARGE_ID)
    assert CARD not in json.dumps(info.value.body)
    assert info.value.body["echo"]["card_number"] == "XXXX…1111"


def test_verify_accepts_a_ca_bundle_path() -> None:
    import certifi

    client = PaymentClient("https://api.test", token="t", verify=certifi.where())
    assert client.base_url == "https://api.test"


def test_a_plain_http_service_loads_no_certificates_and_trusts_none() -> None:
    import ssl

    from paytui.api.client import _ssl_context

    # http (loopback only, `config.urls`): no CA store loaded, verification still on, so a TLS
    # connection from this client could only fail, never trust.
    plain = _ssl_context(True, "http://127.0.0.1:8000")
    assert isinstance(plain, ssl.SSLContext)
    assert plain.verify_mode == ssl.CERT_REQUIRED and plain.check_hostname
    assert plain.cert_store_stats()["x509_ca"] == 0
    # https keeps httpx's own (the system's certificates), and an explicit "off" stays off.
    assert _ssl_context(True, "https://api.test") is True
    assert _ssl_context(False, "http://127.0.0.1:8000") is False
