"""Endpoints of charges and refunds (`/v2/charges...`, `/v2/refunds...`).

Sync endpoints on purpose: FastAPI runs them in its thread pool, where the SQLite work belongs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from paytui.sandbox import ledger, search
from paytui.sandbox.http import drop_if, json_response, store_of
from paytui.sandbox.models import CaptureIn, ChargeCreate, ChargePatch, DistributeIn, RefundCreate

router = APIRouter(prefix="/v2")

Repeated = Annotated[list[str] | None, Query()]


@router.get("/charges", summary="Search charges")
def search_charges(
    request: Request,
    status: str | None = None,
    tag: Repeated = None,
    attribute: Repeated = None,
    account_id: str | None = None,
    merchant_id: str | None = None,
    created_from: str | None = None,
    created_to: str | None = None,
    min_amount: str | None = None,
    max_amount: str | None = None,
    method: str | None = None,
    last4: str | None = None,
    charge_type: str | None = None,
    captured: bool | None = None,
    original_charge_id: str | None = None,
    charge_id: str | None = None,
    contact_name: str | None = None,
    sort: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    q = {
        "status": status,
        "tag": tag,
        "attribute": attribute,
        "account_id": account_id,
        "merchant_id": merchant_id,
        "created_from": created_from,
        "created_to": created_to,
        "min_amount": min_amount,
        "max_amount": max_amount,
        "method": method,
        "last4": last4,
        "charge_type": charge_type,
        "captured": captured,
        "original_charge_id": original_charge_id,
        "charge_id": charge_id,
        "contact_name": contact_name,
        "sort": sort,
    }
    size, start = search.paging(limit, offset)
    with store_of(request).read() as conn:
        return json_response(search.search_charges(conn, q, size, start))


@router.post("/charges", status_code=201, summary="Create a charge")
def create_charge(request: Request, body: ChargeCreate) -> Response:
    doc = ledger.create_charge(store_of(request), body)
    drop_if(request, "charge")
    return json_response(doc, 201)


@router.get("/charges/{charge_id}", summary="Get a charge")
def get_charge(
    request: Request, charge_id: str, expand: Literal["distributions", "all"] | None = None
) -> Response:
    return json_response(ledger.get_charge(store_of(request), charge_id, expand))


@router.patch("/charges/{charge_id}", summary="Replace tags and/or attributes of a charge")
def update_charge(request: Request, charge_id: str, body: ChargePatch) -> Response:
    doc = ledger.update_charge(store_of(request), charge_id, body)
    drop_if(request, "update")
    return json_response(doc)


@router.post("/charges/{charge_id}/capture", status_code=201, summary="Capture an authorization")
def capture(request: Request, charge_id: str, body: CaptureIn | None = None) -> Response:
    doc = ledger.capture(store_of(request), charge_id, body)
    drop_if(request, "capture")
    return json_response(doc, 201)


@router.post("/charges/{charge_id}/distribute", summary="Add a charge to a distribution")
def distribute(request: Request, charge_id: str, body: DistributeIn | None = None) -> Response:
    target = body.distribution_id if body else None
    doc = ledger.distribute(store_of(request), charge_id, target)
    drop_if(request, "distribute")
    return json_response(doc)


@router.post("/refunds", status_code=201, summary="Refund a charge in full or in part")
def create_refund(request: Request, body: RefundCreate) -> Response:
    doc = ledger.create_refund(store_of(request), body)
    drop_if(request, "refund")
    return json_response(doc, 201)


@router.get("/refunds", summary="List refunds")
def list_refunds(
    request: Request,
    charge_id: str | None = None,
    account_id: str | None = None,
    tag: Repeated = None,
    attribute: Repeated = None,
    created_from: str | None = None,
    created_to: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Response:
    q = {
        "charge_id": charge_id,
        "account_id": account_id,
        "tag": tag,
        "attribute": attribute,
        "created_from": created_from,
        "created_to": created_to,
    }
    size, start = search.paging(limit, offset)
    with store_of(request).read() as conn:
        return json_response(search.search_refunds(conn, q, size, start))


@router.patch("/refunds/{refund_id}", summary="Replace tags and/or attributes of a refund")
def update_refund(request: Request, refund_id: str, body: ChargePatch) -> Response:
    doc = ledger.update_refund(store_of(request), refund_id, body)
    drop_if(request, "update")
    return json_response(doc)


@router.get("/refunds/{refund_id}", summary="Get a refund")
def get_refund(request: Request, refund_id: str) -> Response:
    return json_response(ledger.get_refund(store_of(request), refund_id))
