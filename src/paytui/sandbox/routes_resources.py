"""Endpoints of tokens, accounts, merchants, distributions and plugin sessions."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from fastapi import APIRouter, Request, Response

from paytui.boarding import BOARDING_STATUSES
from paytui.plugin_rules import DEFAULT_ACCOUNT_LIMIT, check_cap, check_tax_fields, session_fees
from paytui.sandbox import ledger, search
from paytui.sandbox.errors import Conflict, FieldInvalid, Forbidden, NotFound
from paytui.sandbox.http import drop_if, json_response, store_of, token_scopes
from paytui.sandbox.ledger import future_instant
from paytui.sandbox.models import (
    AccountCreate,
    CustomerPatch,
    EnrollmentSessionCreate,
    PaymentSessionCreate,
    TokenCreate,
    TokenUpdate,
)
from paytui.sandbox.scopes import PREPOPULATE_SCOPE
from paytui.sandbox.store import STATUS_MESSAGES
from paytui.sandbox.wire import cents_from_decimal, hex_id, money_out, prefixed_id

router = APIRouter(prefix="/v2")

PLUGIN_URL = "https://plugins.sandbox.invalid/{kind}/{session_id}"
EDITABLE_MERCHANT_STATUSES = ("boarding",)


def _list(
    request: Request,
    table: str,
    order: str,
    filters: dict[str, str | None],
    limit: int | None,
    offset: int | None,
    select: str = "doc",
) -> Response:
    size, start = search.paging(limit, offset)
    where = search.Where()
    for column, value in filters.items():
        if value is not None:
            where.add(f"{column} = ?", value)
    with store_of(request).read() as conn:
        return json_response(search.page(conn, select, table, where, order, size, start))


# -- tokens ----------------------------------------------------------------------------------


@router.post("/tokens", status_code=201, summary="Store a card as a token")
def create_token(request: Request, body: TokenCreate) -> Response:
    return json_response(ledger.create_token(store_of(request), body), 201)


@router.get("/tokens", summary="List tokens")
def list_tokens(
    request: Request,
    account_id: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    order = " ORDER BY created_ts DESC, token_id DESC"
    return _list(request, "tokens", order, {"account_id": account_id}, limit, offset)


@router.get("/tokens/{token_id}", summary="Get a token")
def get_token(request: Request, token_id: str) -> Response:
    return json_response(store_of(request).get_token(token_id))


@router.put("/tokens/{token_id}", summary="Update a token's card details or expiry")
def update_token(request: Request, token_id: str, body: TokenUpdate) -> Response:
    return json_response(ledger.update_token(store_of(request), token_id, body))


# -- accounts and merchants ------------------------------------------------------------------


@router.get("/accounts", summary="List accounts")
def list_accounts(
    request: Request,
    merchant_id: str | None = None,
    status: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    search.one_of(status, BOARDING_STATUSES, "status")
    store_of(request).refresh_boarding()
    order = " ORDER BY created_ts DESC, account_id DESC"
    filters = {"merchant_id": merchant_id, "status": status}
    return _list(request, "accounts", order, filters, limit, offset)


@router.get("/accounts/{account_id}", summary="Get an account with its boarding status")
def get_account(request: Request, account_id: str) -> Response:
    return json_response(store_of(request).get_account(account_id))


@router.post("/accounts", status_code=201, summary="Create an account (starts boarding)")
def create_account(request: Request, body: AccountCreate) -> Response:
    store = store_of(request)
    merchant = store.get_merchant(body.merchant_id)
    wrong = check_tax_fields(
        body.merchant_category_code, body.tax_authority, body.tax_authority_state
    )
    if wrong is not None:
        raise FieldInvalid(*wrong)
    limit = body.max_transaction_amount or DEFAULT_ACCOUNT_LIMIT
    if limit <= 0:
        raise FieldInvalid("max_transaction_amount", "must be above 0")
    now = store.now_iso()
    doc = {
        "account_id": prefixed_id("pa_"),
        "merchant_id": merchant["merchant_id"],
        "name": body.name,
        "status": "submitted",
        "status_message": STATUS_MESSAGES["submitted"],
        "merchant_category_code": body.merchant_category_code,
        "tax_authority": body.tax_authority,
        "tax_authority_state": body.tax_authority_state,
        "max_transaction_amount": money_out(cents_from_decimal(limit)),
        "created_timestamp": now,
        "last_updated_timestamp": now,
        "attributes": body.attributes,
        "tags": body.tags,
    }
    store.insert_account(doc)
    return json_response(doc, 201)


@router.get("/merchants", summary="List merchants")
def list_merchants(
    request: Request, limit: int | None = None, offset: int | None = None
) -> Response:
    order = " ORDER BY created_ts DESC, merchant_id DESC"
    return _list(request, "merchants", order, {}, limit, offset)


@router.get("/merchants/{merchant_id}", summary="Get a merchant")
def get_merchant(request: Request, merchant_id: str) -> Response:
    return json_response(store_of(request).get_merchant(merchant_id))


# -- distributions ---------------------------------------------------------------------------

_WITH_COUNT = (
    "substr(doc, 1, length(doc) - 1) || ',\"item_count\":' || (SELECT COUNT(*) FROM"
    " distribution_items i WHERE i.distribution_id = distributions.distribution_id) || '}'"
)


@router.get("/distributions", summary="List distributions (items left out, item_count given)")
def list_distributions(
    request: Request,
    account_id: str | None = None,
    merchant_id: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    order = " ORDER BY ts DESC, distribution_id DESC"
    filters = {"account_id": account_id, "merchant_id": merchant_id}
    return _list(request, "distributions", order, filters, limit, offset, select=_WITH_COUNT)


@router.get("/distributions/{distribution_id}", summary="Get a distribution with its items")
def get_distribution(request: Request, distribution_id: str) -> Response:
    return json_response(ledger.get_distribution(store_of(request), distribution_id))


# -- plugin sessions -------------------------------------------------------------------------


def _session(request: Request, kind: str, properties: dict[str, Any]) -> dict[str, Any]:
    session_id = hex_id()
    doc = {
        "session_id": session_id,
        "type": kind,
        "url": PLUGIN_URL.format(kind=kind, session_id=session_id),
        "created_timestamp": store_of(request).now_iso(),
        **properties,
    }
    store_of(request).insert_session(doc)
    return doc


def account_limit(account: dict[str, Any]) -> Decimal:
    """The account's processing limit (fees included); the default when it shows none."""
    value = account.get("max_transaction_amount")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Decimal(str(value))
    return DEFAULT_ACCOUNT_LIMIT


@router.post("/plugins/payment", status_code=201, summary="Create a payment plugin session")
def create_payment_session(request: Request, body: PaymentSessionCreate) -> Response:
    store = store_of(request)
    account = store.get_account(body.account_id)
    if account["status"] != "approved":
        raise Conflict(
            f"account {body.account_id} is {account['status']};"
            " only approved accounts take payments"
        )
    properties = body.model_dump(exclude_none=True)
    if body.tokenize is not None and body.tokenize.token_expiration_date is not None:
        properties["tokenize"]["token_expiration_date"] = future_instant(
            body.tokenize.token_expiration_date, "tokenize.token_expiration_date", store.clock()
        )
    fee = body.convenience_fee.amount if body.convenience_fee is not None else None
    fees = session_fees(fee, body.tax_amount)
    limit = account_limit(account)
    cap = body.max_transaction_amount
    if cap is None:
        cap = max(limit - fees, Decimal(0))
        if cap <= 0:
            raise FieldInvalid("convenience_fee", f"the fees leave nothing of the limit {limit}")
    elif message := check_cap(cap, fees, limit):
        raise FieldInvalid("max_transaction_amount", message)
    properties["max_transaction_amount"] = money_out(cents_from_decimal(cap))
    for name in ("tax_amount",):
        if name in properties:
            properties[name] = money_out(cents_from_decimal(properties[name]))
    if fee is not None:
        properties["convenience_fee"] = {"amount": money_out(cents_from_decimal(fee))}
    properties["merchant_id"] = account["merchant_id"]
    return json_response(_session(request, "payment", properties), 201)


@router.post("/plugins/enrollment", status_code=201, summary="Create an enrollment plugin session")
def create_enrollment_session(request: Request, body: EnrollmentSessionCreate) -> Response:
    prepopulates = body.data is not None and body.data.account is not None
    if prepopulates and PREPOPULATE_SCOPE not in token_scopes(request):
        raise Forbidden(
            "pre-populating data.account needs the scope " + PREPOPULATE_SCOPE,
            extra={"required_scopes": [PREPOPULATE_SCOPE]},
        )
    properties = json.loads(body.model_dump_json(exclude_none=True))
    if body.merchant_id is not None:
        merchant = store_of(request).get_merchant(body.merchant_id)
        if merchant["status"] not in EDITABLE_MERCHANT_STATUSES:
            properties["status"] = merchant["status"]
    return json_response(_session(request, "enrollment", properties), 201)


@router.get("/plugins", summary="List plugin sessions")
def list_sessions(
    request: Request, limit: int | None = None, offset: int | None = None
) -> Response:
    order = " ORDER BY created_ts DESC, session_id DESC"
    return _list(request, "plugin_sessions", order, {}, limit, offset)


@router.get("/plugins/{session_id}", summary="Get a plugin session")
def get_session(request: Request, session_id: str) -> Response:
    with store_of(request).read() as conn:
        row = conn.execute(
            "SELECT doc FROM plugin_sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
    if row is None:
        raise NotFound(f"plugin session {session_id} not found")
    return json_response(row[0])


@router.delete("/plugins/{session_id}", status_code=204, summary="Remove a plugin session")
def delete_session(request: Request, session_id: str) -> Response:
    store_of(request).delete_session(session_id)
    return Response(status_code=204)


# -- customers (in the database), partners, devices (fixed); shapes not shown by the spec ----


def _family_routes(family: str, noun: str) -> None:
    from paytui.sandbox import families

    @router.get(f"/{family}", summary=f"List {family} (a fixed sandbox list)")
    def list_family(
        request: Request, limit: int | None = None, offset: int | None = None
    ) -> Response:
        size, start = search.paging(limit, offset)
        return json_response(families.page(family, size, start))

    @router.get(f"/{family}/{{object_id}}", summary=f"Get a {noun}")
    def get_family(request: Request, object_id: str) -> Response:
        found = families.find(family, object_id)
        if found is None:
            raise NotFound(f"{noun} {object_id} not found")
        return json_response(found)


for _family, _noun in (("partners", "partner"), ("devices", "device")):
    _family_routes(_family, _noun)


@router.get("/customers", summary="List customers")
def list_customers(
    request: Request, limit: int | None = None, offset: int | None = None
) -> Response:
    from paytui.sandbox import families

    size, start = search.paging(limit, offset)
    return json_response(families.customers_page(store_of(request), size, start))


@router.get("/customers/{customer_id}", summary="Get a customer")
def get_customer(request: Request, customer_id: str) -> Response:
    from paytui.sandbox import families

    return json_response(families.get_customer(store_of(request), customer_id))


@router.patch("/customers/{customer_id}", summary="Change a customer's email or phone")
def update_customer(request: Request, customer_id: str, body: CustomerPatch) -> Response:
    from paytui.sandbox import families

    fields = body.model_dump(exclude_none=True)
    doc = families.update_customer(store_of(request), customer_id, fields)
    drop_if(request, "contact")
    return json_response(doc)
