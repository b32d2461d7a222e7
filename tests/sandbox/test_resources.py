"""Tokens, accounts and boarding, merchants, distributions, plugin sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import httpx

from paytui.boarding import BOARDING_STATUSES
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.app import create_app
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import BASE, card, get_token


async def test_token_create_get_update_list(api: httpx.AsyncClient, account_id: str) -> None:
    created = await api.post(
        "/v2/tokens",
        json={
            "account_id": account_id,
            "payment_method": card("378282246310005", reason="on_file"),
        },
    )
    assert created.status_code == 201
    token = created.json()
    assert token["token_id"].startswith("ct_") and len(token["token_id"]) == 23
    assert token["payment_method"]["card_number"] == "XXXXXXXXXXX0005"
    assert token["reason"] == "on_file"
    assert token["processor_messages"] == {"avs_response": "passed", "cv_response": "passed"}
    assert token["token_expiration_date"] > "2029"
    assert (await api.get(f"/v2/tokens/{token['token_id']}")).json() == token
    updated = await api.put(
        f"/v2/tokens/{token['token_id']}",
        json={"payment_method": {"expiration_date": "2031-01", "contact": {"last_name": "Byron"}}},
    )
    assert updated.status_code == 200
    assert updated.json()["payment_method"]["expiration_date"] == "2031-01"
    assert updated.json()["payment_method"]["contact"] == {
        "first_name": "Ada",
        "last_name": "Byron",
    }
    bad = await api.put(
        f"/v2/tokens/{token['token_id']}", json={"payment_method": {"expiration_date": "2001-01"}}
    )
    assert bad.status_code == 422
    listed = (await api.get("/v2/tokens", params={"account_id": account_id})).json()
    assert listed["data"][0]["token_id"] == token["token_id"]
    assert {t["account_id"] for t in listed["data"]} == {account_id}


async def test_token_refuses_bank_accounts_and_bad_cards(
    api: httpx.AsyncClient, account_id: str
) -> None:
    bank = await api.post(
        "/v2/tokens", json={"account_id": account_id, "payment_method": {"method": "bank_account"}}
    )
    assert bank.status_code == 422
    luhn = await api.post(
        "/v2/tokens", json={"account_id": account_id, "payment_method": card("4111111111111113")}
    )
    assert luhn.json()["fields"][0]["field"] == "payment_method.card_number"


async def test_accounts_cover_every_boarding_status(api: httpx.AsyncClient) -> None:
    accounts = (await api.get("/v2/accounts")).json()["data"]
    assert {a["status"] for a in accounts} == set(BOARDING_STATUSES)
    assert all(a["status_message"] for a in accounts)
    tax = [a for a in accounts if a["merchant_category_code"] == "9311"]
    assert tax and tax[0]["tax_authority"] and tax[0]["tax_authority_state"]
    merchant_id = accounts[0]["merchant_id"]
    filtered = (await api.get("/v2/accounts", params={"merchant_id": merchant_id})).json()["data"]
    assert {a["merchant_id"] for a in filtered} == {merchant_id}
    assert (await api.get("/v2/accounts", params={"status": "sleeping"})).status_code == 422


async def test_create_account_and_advance_it_to_approved(api: httpx.AsyncClient) -> None:
    merchant = (await api.get("/v2/merchants")).json()["data"][0]
    created = await api.post(
        "/v2/accounts",
        json={"merchant_id": merchant["merchant_id"], "name": "Kiosk", "tags": "new"},
    )
    assert created.status_code == 201
    account = created.json()
    assert account["account_id"].startswith("pa_")
    assert (account["status"], account["tags"]) == ("submitted", ["new"])
    seen = []
    for _ in range(3):
        advanced = await api.post(f"/sandbox/accounts/{account['account_id']}/advance")
        seen.append(advanced.json()["status"])
    assert seen == ["in_review", "info_required", "approved"]
    assert (await api.post(f"/sandbox/accounts/{account['account_id']}/advance")).status_code == 409
    sale = await api.post(
        "/v2/charges",
        json={"account_id": account["account_id"], "total_amount": 3, "payment_method": card()},
    )
    assert sale.status_code == 201
    unknown = await api.post("/v2/accounts", json={"merchant_id": "mt_nope", "name": "x"})
    assert unknown.status_code == 404


async def test_the_demo_account_keeps_moving_so_watch_mode_always_shows_a_change(
    sandbox_db: Path,
) -> None:
    """Boarding advances on read; approved is not the end: a periodic review suspends it a while."""
    app = create_app(sandbox_db, boarding_interval=20)
    store = app.state.store
    start = datetime.now(UTC)
    store.clock = lambda: start
    async with raw_client(httpx.ASGITransport(app=app), BASE) as http:
        http.headers["Authorization"] = "Bearer " + await get_token(
            http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
        )
        accounts = (await http.get("/v2/accounts")).json()["data"]
        auto = next(a for a in accounts if a["attributes"].get("sandbox_boarding") == ["auto"])
        assert auto["status"] == "submitted"
        url = f"/v2/accounts/{auto['account_id']}"

        async def status_at(seconds: float) -> str:
            store.clock = lambda: start + timedelta(seconds=seconds)
            return str((await http.get(url)).json()["status"])

        # approved at 60 s, suspended 6 intervals later, approved again one interval after that
        assert [await status_at(s) for s in (41, 61, 179, 181, 201)] == [
            "info_required",
            "approved",
            "approved",
            "suspended",
            "approved",
        ]
        # a week on it is still cycling (140 s a cycle: 7 of every 7 intervals, one suspended)
        week = 7 * 86400
        store.clock = lambda: start + timedelta(seconds=week)
        http.headers["Authorization"] = "Bearer " + await get_token(
            http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
        )
        seen = {await status_at(week + step * 20 + 1) for step in range(8)}
        assert seen == {"approved", "suspended"}


async def test_merchants(api: httpx.AsyncClient) -> None:
    merchants = (await api.get("/v2/merchants")).json()
    assert merchants["total"] == len(merchants["data"]) >= 6
    one = merchants["data"][0]
    assert one["merchant_id"].startswith("mt_")
    assert (await api.get(f"/v2/merchants/{one['merchant_id']}")).json() == one


async def test_distributions_totals_match_items(api: httpx.AsyncClient, account_id: str) -> None:
    listed = (
        await api.get("/v2/distributions", params={"account_id": account_id, "limit": 30})
    ).json()
    assert listed["data"][0]["status"] == "open"
    assert {d["status"] for d in listed["data"][1:]} == {"paid"}
    for summary in listed["data"][:10]:
        assert "items" not in summary
        full = (await api.get(f"/v2/distributions/{summary['distribution_id']}")).json()
        assert len(full["items"]) == summary["item_count"] > 0
        sums = {c: Decimal(0) for c in ("sales", "refunds", "chargebacks", "returns", "fees")}
        for item in full["items"]:
            sums[item["category"]] += Decimal(str(item["amount"]))
        totals = {k: Decimal(str(v)) for k, v in full["total_amounts"].items()}
        assert {k: totals[k] for k in sums} == sums
        net = sums["sales"] - sums["refunds"] - sums["chargebacks"] - sums["returns"] - sums["fees"]
        assert totals["net"] == net


async def test_plugin_sessions(api: httpx.AsyncClient, account_id: str) -> None:
    payment = await api.post(
        "/v2/plugins/payment",
        json={
            "account_id": account_id,
            "tags": "kiosk",
            "appearance": {"dark_mode": {"enabled": True}},
        },
    )
    assert payment.status_code == 201
    session = payment.json()
    assert (session["type"], session["charge_type"], session["max_attempts"]) == (
        "payment",
        "sale",
        2,
    )
    assert session["max_transaction_amount"] == 5000  # the account's own limit
    assert session["appearance"] == {"dark_mode": {"enabled": True}}
    assert session["tags"] == ["kiosk"]
    enrollment = await api.post("/v2/plugins/enrollment", json={"account": {"tags": ["x"]}})
    assert enrollment.status_code == 201
    listed = (await api.get("/v2/plugins")).json()
    assert [s["session_id"] for s in listed["data"]] == [
        enrollment.json()["session_id"],
        session["session_id"],
    ]
    assert (await api.delete(f"/v2/plugins/{session['session_id']}")).status_code == 204
    assert (await api.delete(f"/v2/plugins/{session['session_id']}")).status_code == 404


async def test_enrollment_prepopulation_needs_its_scope(anon: httpx.AsyncClient) -> None:
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, scope="urn:v2:plugins:all")
    anon.headers["Authorization"] = f"Bearer {token}"
    body = {"data": {"account": {"processing": {"monthly_volume": 5000}}}}
    refused = await anon.post("/v2/plugins/enrollment", json=body)
    assert refused.status_code == 403
    assert refused.json()["required_scopes"] == [
        "urn:v2:plugins:enrollment:create:prepopulate-processing-info"
    ]
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    anon.headers["Authorization"] = f"Bearer {token}"
    assert (await anon.post("/v2/plugins/enrollment", json=body)).status_code == 201


async def test_enrollment_for_a_closed_merchant_reports_its_status(api: httpx.AsyncClient) -> None:
    merchants = (await api.get("/v2/merchants")).json()["data"]
    closed = next(m for m in merchants if m["status"] == "closed")
    response = await api.post("/v2/plugins/enrollment", json={"merchant_id": closed["merchant_id"]})
    assert response.json()["status"] == "closed"
