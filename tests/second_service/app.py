"""The second service's HTTP face: a Starlette (ASGI) app over a `Store`, per `ServiceOptions`.

Endpoints (the paths paytui's client calls; the spec's where it shows them):

- ``POST /v2/services/oauth2/token`` (client credentials: HTTP Basic and/or form fields)
- ``GET|POST /v2/charges``, ``GET /v2/charges/{id}``, ``POST /v2/charges/{id}/capture``
- ``GET|POST /v2/refunds``, ``GET /v2/refunds/{id}``
- ``GET /v2/accounts``, ``GET /v2/accounts/{id}``
- ``GET /v2/conversations[/{id}]``, ``POST /v2/conversations/{id}/close``, ``GET|POST /v2/messages``
  (its own choices: `tests/second_service/conversations.py`)
- ``GET /v2/customers[/{id}]``, ``PATCH /v2/customers/{id}`` (its own choices:
  `tests/second_service/customers.py`)

Errors are ``{"error": {"code", "message"}}`` with 400, 401, 404, 409 (a choice: not shown), or
another envelope (`ServiceOptions.error_shape`: `fault`, `errors`, `detail`, text ...). Writes
may be refused (`refuse_writes`) or throttled with 429 + Retry-After (`throttle_writes`) before
they act.
A refund of an authorization, or of a charge that is no longer standing (a chargeback, a
return, refunded in full), is 409; a sale or capture whose status is `settled` or
`partially_refunded` (`ServiceOptions.lifecycle_statuses`) is refunded like a `success` one.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.second_service.conversations import routes as conversation_routes
from tests.second_service.customers import routes as customer_routes
from tests.second_service.data import (
    GONE,
    HOLDING,
    Store,
    StoredCharge,
    StoredRefund,
    result_code_for,
    stamp,
)
from tests.second_service.options import ServiceOptions

BASE_URL = "http://second.test"
CLIENT_ID, CLIENT_SECRET = "second-client", "second-secret"
#: Filters of GET /v2/charges the spec shows (status; tag and attribute searching).
CHARGE_SHOWN = frozenset({"status", "tag", "attribute"})

Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Seen:
    """One request as the service saw it (for tests that count or inspect calls)."""

    method: str
    path: str
    query: list[tuple[str, str]]
    form: dict[str, str] = field(default_factory=dict)
    basic: bool = False


class SecondService:
    """The app, its store and options, what it saw, and an in-process transport to reach it."""

    def __init__(self, options: ServiceOptions | None = None, store: Store | None = None) -> None:
        self.options = options or ServiceOptions()
        self.store = store or Store()
        self.base_url = BASE_URL
        self.client_id, self.client_secret = CLIENT_ID, CLIENT_SECRET
        self.seen: list[Seen] = []
        self.tokens: set[str] = set()
        #: Writes still to be answered 429 (`ServiceOptions.throttle_writes`).
        self.throttle_left = self.options.throttle_writes
        if self.options.lifecycle_statuses:
            self.store.use_lifecycle()
        self.app = create_app(self)
        self.transport = httpx.ASGITransport(app=self.app)

    def requests_to(self, path: str, method: str = "GET") -> list[Seen]:
        return [s for s in self.seen if s.path == path and s.method == method]

    def settle(self, made_id: str, **fields: Any) -> None:
        """The service finishes what it answered pending (a refund's or charge's id): `fields`
        (``status="success"``) are what it shows from now on."""
        made: StoredCharge | StoredRefund | None = self.store.refund(made_id)
        made = made or self.store.charge(made_id)
        assert made is not None, f"nothing made as {made_id}"
        _answer_with(made, {**made.fields, **fields})


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def shaped(response: Response, shape: str) -> Response:
    """An error answer of ours (`error`) in the envelope `shape` (`ServiceOptions.error_shape`)."""
    if response.status_code < 400 or shape == "error_object":
        return response
    inner = json.loads(bytes(response.body))["error"]
    code, message = inner["code"], inner["message"]
    headers = {k: v for k, v in response.headers.items() if k.lower() == "retry-after"}
    if shape == "text":
        return Response(message, response.status_code, headers, media_type="text/plain")
    bodies: dict[str, Any] = {
        "fault": {"fault": {"faultstring": message, "detail": {"errorcode": code}}},
        "errors": {"errors": [{"code": code, "message": message}]},
        "message": {"message": message, "code": code},
        "detail": {"detail": message},
        "detail_list": {"detail": [{"loc": ["body"], "msg": message, "type": code}]},
        "error_string": {"error": message},
    }
    body = bodies[shape]
    return JSONResponse(body, response.status_code, headers)


def money(value: Decimal) -> int | float:
    """A JSON number in the currency's main unit."""
    return int(value) if value == value.to_integral_value() else float(value)


# --------------------------------------------------------------------------------------------
# Representations
# --------------------------------------------------------------------------------------------


def charge_json(charge: StoredCharge, options: ServiceOptions) -> dict[str, Any]:
    """The published charge shape (spec "Charge"), plus what the options echo."""
    method: dict[str, Any] = {"method": charge.method}
    if charge.method == "card":
        method["type"] = "visa"
        method["card_number"] = "X" * 12 + charge.last4
    else:
        method["account_number"] = charge.last4
    if options.echo_contact:
        method["contact"] = {"first_name": charge.first_name, "last_name": charge.last_name}
    body: dict[str, Any] = {
        "charge_id": charge.charge_id,
        "charge_timestamp": stamp(charge.moment),
        "total_amount": money(charge.amount),
        "reversal_flag": False,
        "payment_method": method,
        "processor_messages": {"avs_response": "passed", "cv_response": "passed"},
        "account_id": charge.account_id,
        "merchant_id": charge.merchant_id,
        "status": charge.status,
        "result_code": charge.result_code,
        "last_updated_timestamp": stamp(charge.moment),
    }
    if charge.method == "card":
        body["authorization_code"] = charge.charge_id[-6:].upper()
    if charge.charge_type == "capture":
        body["original_charge_id"] = charge.original_charge_id
    else:
        body["result_text"] = "Sandbox transaction success"
    if charge.chargeback:
        body["chargebacks"] = {"count": 1}
    if options.echo_tags and (charge.tags or not options.omit_empty_tags):
        body["tags"] = list(charge.tags)
    if options.echo_charge_type:
        body["charge_type"] = charge.charge_type
    if options.echo_captured_charge_id and charge.captured_charge_id:
        body["captured_charge_id"] = charge.captured_charge_id
    if options.echo_attributes:
        body["attributes"] = charge.attributes
    return _laid_over(body, charge.fields)


def _laid_over(body: dict[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with the answer's own fields (`ServiceOptions.answers`); None leaves one out."""
    for key, value in fields.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def refund_json(refund: StoredRefund, options: ServiceOptions) -> dict[str, Any]:
    body: dict[str, Any] = {
        options.refund_id_key: refund.refund_id,
        "charge_id": refund.charge_id,
        "account_id": refund.account_id,
        "total_amount": money(refund.amount),
        "status": refund.status,
        "refund_timestamp": stamp(refund.moment),
    }
    if options.echo_tags and (refund.tags or not options.omit_empty_tags):
        body["tags"] = list(refund.tags)
    if options.echo_attributes:
        body["attributes"] = refund.attributes
    return _laid_over(body, refund.fields)


def account_json(account: dict[str, Any]) -> dict[str, Any]:
    return {**account, "status_message": f"Account is {account['status']}"}


# --------------------------------------------------------------------------------------------
# Lists: filters, paging, envelope
# --------------------------------------------------------------------------------------------


def paging_params(options: ServiceOptions) -> frozenset[str]:
    return {
        "offset": frozenset({"limit", "offset"}),
        "page": frozenset({"page", "per_page"}),
        "ignore": frozenset({"limit", "offset", "page", "per_page"}),
        "cursor": frozenset({"limit", "cursor"}),
    }[options.paging]


def unknown_params(
    query: Sequence[tuple[str, str]], known: frozenset[str], options: ServiceOptions
) -> JSONResponse | None:
    if options.unknown_params != "reject":
        return None
    unknown = sorted({name for name, _ in query if name not in known})
    if unknown:
        return error(400, "invalid_parameter", f"unknown query parameter(s): {', '.join(unknown)}")
    return None


def _int(text: str | None, default: int, low: int, high: int) -> int | None:
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        return None
    return value if low <= value <= high else None


def listing(
    request: Request,
    service: SecondService,
    plural: str,
    rows: list[Any],
    render: Callable[[Any], dict[str, Any]],
) -> JSONResponse:
    """One page of `rows` (already filtered) in the configured paging style and envelope."""
    options = service.options
    query = request.query_params
    high = options.max_page_size
    echo: dict[str, Any] = {}
    if options.paging == "offset":
        limit = _int(query.get("limit"), options.page_size, 1, 10**9)
        start = _int(query.get("offset"), 0, 0, 10**9)
        if limit is None or start is None:
            return error(400, "invalid_parameter", "limit or offset out of range")
        echo = {"limit": limit, "offset": start}
    elif options.paging == "page":
        limit = _int(query.get("per_page"), options.page_size, 1, 10**9)
        number = _int(query.get("page"), 1, 1, 10**9)
        if limit is None or number is None:
            return error(400, "invalid_parameter", "page or per_page out of range")
        start = (number - 1) * limit
        echo = {"page": number, "per_page": limit}
    elif options.paging == "ignore":
        limit, start = options.page_size, 0
    else:  # cursor: the cursor is the offset, opaque to the client
        limit = _int(query.get("limit"), options.page_size, 1, 10**9)
        cursor = query.get("cursor")
        start = _decode_cursor(cursor) if cursor else 0
        if limit is None or start is None:
            return error(400, "invalid_parameter", "limit or cursor not valid")
    limit = min(limit, high)  # a larger page than it serves is cut to its maximum, not refused
    chunk = rows[start : start + limit]
    more = start + len(chunk) < len(rows)
    items = [render(row) for row in chunk]
    if options.paging == "cursor":
        kept = [(k, v) for k, v in query.multi_items() if k not in ("cursor", "limit")]
        if more:
            pairs = [*kept, ("limit", str(limit)), ("cursor", _encode_cursor(start + limit))]
            link = f"{request.url.path}?{urlencode(pairs)}"
            echo = {"next": f"{service.base_url}{link}" if options.next_absolute else link}
        else:
            echo = {"next": None}
    if not options.echo_paging and options.paging != "cursor":
        echo = {}
    meta: dict[str, Any] = dict(echo)
    if options.count_key is not None:
        meta[options.count_key] = len(rows)
    if options.has_more:
        meta["has_more"] = more
    if options.envelope == "bare":
        return JSONResponse(items)
    if options.envelope == "nested":
        return JSONResponse({"data": {plural: items}, "meta": meta})
    return JSONResponse({options.envelope: items, **meta})


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int | None:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    kind, _, number = text.partition(":")
    return int(number) if kind == "o" and number.isdigit() else None


def _applied(options: ServiceOptions, name: str, query: Request) -> list[str]:
    """The values of filter `name` (paytui's name) when this service applies it, sent under
    this service's name for it (else [], i.e. ignored)."""
    if name not in options.applied_filters:
        return []
    wire = options.parameter_names.get(name, name)
    return [value for key, value in query.query_params.multi_items() if key == wire and value]


def _filtered(
    options: ServiceOptions,
    query: Request,
    rows: Iterable[Any],
    names: tuple[str, ...],
    value_of: Callable[[Any, str], Any],
) -> list[Any]:
    """`rows` kept by each of the filters `names` this service applies (exact values)."""
    kept = list(rows)
    for name in names:
        for value in _applied(options, name, query):
            kept = [row for row in kept if value_of(row, name) == value]
    return kept


def _known(options: ServiceOptions, shown: frozenset[str] = frozenset()) -> frozenset[str]:
    """The query parameters of a list this service knows, by its own names."""
    names = {options.parameter_names.get(name, name) for name in shown | options.applied_filters}
    return frozenset(names) | paging_params(options)


# --------------------------------------------------------------------------------------------
# The app
# --------------------------------------------------------------------------------------------


def create_app(service: SecondService) -> Starlette:
    options, store = service.options, service.store

    def guarded(handler: Handler, *, public: bool = False) -> Handler:
        async def run(request: Request) -> Response:
            header = request.headers.get("authorization", "")
            seen = Seen(
                request.method,
                request.url.path,
                list(request.query_params.multi_items()),
                basic=header.lower().startswith("basic "),
            )
            service.seen.append(seen)
            if len(service.seen) > options.max_requests:
                return error(400, "looping", "too many requests: the client does not stop")
            return shaped(await answer(request, header), options.error_shape)

        async def answer(request: Request, header: str) -> Response:
            if not public:
                token = header.removeprefix("Bearer ").strip()
                if not header.startswith("Bearer ") or token not in service.tokens:
                    return error(401, "unauthorized", "missing or unknown bearer token")
                if request.method == "POST" and service.throttle_left > 0:
                    service.throttle_left -= 1
                    limited = error(429, "rate_limited", "too many requests for this client")
                    if options.retry_after is not None:
                        limited.headers["Retry-After"] = options.retry_after
                    return limited
                if request.method == "POST" and options.refuse_writes is not None:
                    return error(
                        options.refuse_writes,
                        "paused",
                        "refunds and captures are paused for this account",
                    )
            return await handler(request)

        return run

    # --- OAuth ---------------------------------------------------------------------------------
    async def token(request: Request) -> Response:
        # Parsed here (Starlette's form parser needs python-multipart, which is not installed).
        form = dict(parse_qsl((await request.body()).decode("utf-8", errors="replace")))
        service.seen[-1].form = {k: v for k, v in form.items() if k != "client_secret"}
        if form.get("grant_type") != "client_credentials":
            return error(400, "unsupported_grant_type", "grant_type must be client_credentials")
        given: tuple[str | None, str | None] = (None, None)
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic ") and options.auth in ("basic", "both"):
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                return error(401, "invalid_client", "unreadable Basic credentials")
            given = (user, password)
        elif "client_id" in form and options.auth in ("form", "both"):
            given = (form.get("client_id"), form.get("client_secret"))
        if given != (service.client_id, service.client_secret):
            return error(401, "invalid_client", "client authentication failed")
        access = secrets.token_urlsafe(16)
        service.tokens.add(access)
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": options.expires_in,
                "scope": " ".join(options.scopes),
            }
        )

    # --- charges -------------------------------------------------------------------------------
    async def list_charges(request: Request) -> Response:
        query = list(request.query_params.multi_items())
        known = _known(options, CHARGE_SHOWN)
        if (refused := unknown_params(query, known, options)) is not None:
            return refused
        rows = list(store.charges)
        for status in _applied(options, "status", request):
            rows = [c for c in rows if c.status == status]
        for tag in _applied(options, "tag", request):
            rows = [c for c in rows if tag in c.tags]
        for name in ("account_id", "merchant_id", "original_charge_id", "charge_type"):
            for value in _applied(options, name, request):
                rows = [c for c in rows if getattr(c, name) == value]
        return listing(request, service, "charges", rows, lambda c: charge_json(c, options))

    async def get_charge(request: Request) -> Response:
        query = list(request.query_params.multi_items())
        if (refused := unknown_params(query, frozenset({"expand"}), options)) is not None:
            return refused
        found = store.charge(request.path_params["charge_id"])
        if found is None:
            return error(404, "not_found", "no such charge")
        body = charge_json(found, options)
        if request.query_params.get("expand") in ("distributions", "all"):
            body["distributions"] = []
        return JSONResponse(body)

    async def create_charge(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            return error(400, "invalid_body", "expected a JSON object")
        account = store.account(str(body.get("account_id")))
        amount = _amount(body.get("total_amount"))
        method = body.get("payment_method")
        if account is None:
            return error(400, "invalid_account", "unknown account_id")
        if amount is None or amount <= 0:
            return error(400, "invalid_amount", "total_amount must be a positive number")
        if not isinstance(method, dict) or method.get("method") not in ("card", "bank_account"):
            return error(400, "invalid_payment_method", "payment_method: card or bank_account")
        number = str(method.get("card_number") or method.get("account_number") or "")
        contact = method.get("contact") if isinstance(method.get("contact"), dict) else {}
        kind = "authorization" if body.get("charge_type") == "authorization" else "sale"
        card = method["method"] == "card"
        charge = StoredCharge(
            charge_id=store.new_id(),
            moment=store.tick(),
            account_id=account["account_id"],
            merchant_id=account["merchant_id"],
            amount=amount,
            method=method["method"],
            last4=number[-4:],
            first_name=str(contact.get("first_name", "")),
            last_name=str(contact.get("last_name", "")),
            result_code=result_code_for(kind, card=card),
            charge_type=kind,
            tags=[str(t) for t in body.get("tags") or [] if isinstance(t, str)],
            attributes=_attributes(body),
        )
        _answer_with(charge, options.answers.get("charge"))
        return JSONResponse(
            charge_json(store.add_charge(charge), options),
            status_code=options.answer_codes.get("charge", 201),
        )

    async def capture(request: Request) -> Response:
        found = store.charge(request.path_params["charge_id"])
        if found is None:
            return error(404, "not_found", "no such charge")
        if found.charge_type != "authorization":
            return error(400, "not_an_authorization", "only an authorization can be captured")
        if found.captured_charge_id is not None:
            return error(409, "already_captured", "the authorization was captured already")
        made = store.capture(found)
        _answer_with(made, options.answers.get("capture"))
        if made.status not in HOLDING:  # declined: the authorization is still open
            found.captured_charge_id = None
        return JSONResponse(
            charge_json(made, options), status_code=options.answer_codes.get("capture", 201)
        )

    # --- refunds -------------------------------------------------------------------------------
    async def list_refunds(request: Request) -> Response:
        query = list(request.query_params.multi_items())
        known = _known(options)
        if (refused := unknown_params(query, known, options)) is not None:
            return refused
        rows = _filtered(options, request, store.refunds, ("charge_id", "account_id"), getattr)
        return listing(request, service, "refunds", rows, lambda r: refund_json(r, options))

    async def get_refund(request: Request) -> Response:
        found = store.refund(request.path_params["refund_id"])
        if found is None:
            return error(404, "not_found", "no such refund")
        return JSONResponse(refund_json(found, options))

    async def create_refund(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            return error(400, "invalid_body", "expected a JSON object")
        charge = store.charge(str(body.get("charge_id")))
        if charge is None:
            return error(404, "not_found", "no such charge")
        if charge.charge_type == "authorization":
            return error(409, "not_refundable", "an authorization is captured, not refunded")
        if charge.status in GONE:
            return error(409, "not_refundable", f"a charge that is {charge.status} is not refunded")
        left = store.refundable(charge)
        amount = left if body.get("total_amount") is None else _amount(body.get("total_amount"))
        if amount is None or amount <= 0 or amount > left:
            return error(400, "invalid_amount", f"at most {left} can be refunded")
        refund = store.add_refund(charge, amount)
        refund.tags = [str(t) for t in body.get("tags") or [] if isinstance(t, str)]
        refund.attributes = _attributes(body)
        _answer_with(refund, options.answers.get("refund"))
        return JSONResponse(
            refund_json(refund, options), status_code=options.answer_codes.get("refund", 201)
        )

    # --- accounts ------------------------------------------------------------------------------
    async def list_accounts(request: Request) -> Response:
        query = list(request.query_params.multi_items())
        known = _known(options)
        if (refused := unknown_params(query, known, options)) is not None:
            return refused
        rows = _filtered(
            options, request, store.accounts, ("status", "merchant_id"), lambda a, n: a.get(n)
        )
        return listing(request, service, "accounts", rows, account_json)

    async def get_account(request: Request) -> Response:
        found = store.account(request.path_params["account_id"])
        if found is None:
            return error(404, "not_found", "no such account")
        return JSONResponse(account_json(found))

    routes = [
        Route("/v2/services/oauth2/token", guarded(token, public=True), methods=["POST"]),
        Route("/v2/charges", guarded(list_charges), methods=["GET"]),
        Route("/v2/charges", guarded(create_charge), methods=["POST"]),
        Route("/v2/charges/{charge_id}", guarded(get_charge), methods=["GET"]),
        Route("/v2/charges/{charge_id}/capture", guarded(capture), methods=["POST"]),
        Route("/v2/refunds", guarded(list_refunds), methods=["GET"]),
        Route("/v2/refunds", guarded(create_refund), methods=["POST"]),
        Route("/v2/refunds/{refund_id}", guarded(get_refund), methods=["GET"]),
        Route("/v2/accounts", guarded(list_accounts), methods=["GET"]),
        Route("/v2/accounts/{account_id}", guarded(get_account), methods=["GET"]),
        *conversation_routes(service, guarded),
        *customer_routes(service, guarded),
    ]
    return Starlette(routes=routes)


def _answer_with(made: StoredCharge | StoredRefund, fields: Mapping[str, Any] | None) -> None:
    """Keep the answer's own fields with what was made (its status too: a failed refund is
    listed failed and holds no money)."""
    if not fields:
        return
    made.fields = dict(fields)
    if "status" in fields:
        made.status = fields["status"]


def _attributes(body: dict[str, Any]) -> dict[str, list[str]]:
    given = body.get("attributes")
    if not isinstance(given, dict):
        return {}
    return {str(k): [str(v) for v in vs] for k, vs in given.items() if isinstance(vs, list)}


async def _json(request: Request) -> Any:
    try:
        return await request.json()
    except ValueError:
        return None


def _amount(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


__all__ = ["BASE_URL", "CLIENT_ID", "CLIENT_SECRET", "SecondService", "Seen", "create_app"]
