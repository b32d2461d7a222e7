"""`POST /sandbox/charges/{id}/chargeback`: a case to practise on, sandbox only; and Today's
due time of the case it makes (a fixed clock: `NOW`, the demo's hour)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import httpx

from paytui.config.model import TodayPrefs
from paytui.sandbox.app import create_app
from paytui.sandbox.seed import DEFAULT_ANCHOR
from paytui.today.queue import build_queue
from paytui.today.seen import SeenStore

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

NOW = DEFAULT_ANCHOR + timedelta(minutes=30)
PATH = "/sandbox/charges/{}/chargeback"


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


async def _charges(api: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    created_to = _iso(DEFAULT_ANCHOR - timedelta(days=60))
    answer = await api.get("/v2/charges", params={"limit": 200, "created_to": created_to, **params})
    return list(answer.json()["data"])


async def _visa_sales(api: httpx.AsyncClient) -> list[dict[str, Any]]:
    return [
        c
        for c in await _charges(api, status="success", charge_type="sale")
        if c["payment_method"].get("type") == "visa"
    ]


async def test_it_makes_a_chargeback_and_refuses_what_cannot_be_one(
    api: httpx.AsyncClient, limited: httpx.AsyncClient
) -> None:
    assert PATH.format("{charge_id}") in create_app(":memory:").openapi()["paths"]
    sale = (await _visa_sales(api))[0]
    dated = NOW - timedelta(days=20)
    body = {"reason_code": "10.4", "chargeback_date": _iso(dated), "stage": "pre_arbitration"}
    made = await api.post(PATH.format(sale["charge_id"]), json=body)
    assert made.status_code == 201, made.text
    doc = (await api.get(f"/v2/charges/{sale['charge_id']}")).json()
    assert doc["status"] == "chargeback" and doc == made.json()
    (item,) = doc["chargebacks"]["items"]
    assert item["stage"] == "pre_arbitration" and item["status"] == "open"
    assert item["reason"] == "Other fraud: card-absent environment"
    assert item["chargeback_timestamp"].startswith(_iso(dated)[:19])
    assert item["amount"] == sale["total_amount"] == doc["chargebacks"]["total_amount"]
    listed = await api.get("/v2/charges", params={"status": "chargeback", "limit": 500})
    assert sale["charge_id"] in {c["charge_id"] for c in listed.json()["data"]}

    other = (await _visa_sales(api))[1]
    future = {"chargeback_date": "2999-01-01"}
    assert (await api.post(PATH.format(other["charge_id"]), json=future)).status_code == 422
    before = {"chargeback_date": "2000-01-01"}
    assert (await api.post(PATH.format(other["charge_id"]), json=before)).status_code == 422
    too_much = {"total_amount": "99999.00"}
    assert (await api.post(PATH.format(other["charge_id"]), json=too_much)).status_code == 422
    declined = (await _charges(api, status="declined"))[0]
    assert (await api.post(PATH.format(declined["charge_id"]), json={})).status_code == 409
    assert (await api.post(PATH.format("f" * 24), json={})).status_code == 404
    # A control endpoint: the demo client's token, nobody else's.
    assert (await limited.post(PATH.format(other["charge_id"]), json={})).status_code == 401


async def test_today_dates_a_case_from_its_own_date(
    api: httpx.AsyncClient, demo_client: PaymentClient
) -> None:
    """A Visa chargeback dated 20 days ago is due no later than its date + 30 days, and by the
    default acquirer window earlier (date + 10 d - 2 d buffer); one dated 40 days ago is overdue;
    `basis` names the chargeback's date."""
    recent, old = (await _visa_sales(api))[:2]
    for sale, days in ((recent, 20), (old, 40)):
        body = {"chargeback_date": _iso(NOW - timedelta(days=days))}
        assert (await api.post(PATH.format(sale["charge_id"]), json=body)).status_code == 201
    seen = SeenStore(None, "http://sandbox")
    keep = TodayPrefs(lookback_days=0)  # keep the long overdue: the 40-day-old one is
    queue = await build_queue(demo_client, prefs=keep, seen=seen, now=NOW)
    rows = {item.id: item for item in queue.select(kinds=["chargeback"])}
    twenty = rows[recent["charge_id"]]
    dated = NOW - timedelta(days=20)
    assert twenty.basis == "chargeback_date" and twenty.estimated is True
    assert twenty.due_at <= dated + timedelta(days=30)
    assert twenty.due_at == dated + timedelta(days=8) < NOW
    assert "from the chargeback's date" in twenty.why and "acquirer window 10 d" in twenty.why
    forty = rows[old["charge_id"]]
    assert forty.basis == "chargeback_date" and forty.due_at < NOW - timedelta(days=20)
