"""Refunds: full, partial, never more than what is left, only of settled sales and captures."""

from __future__ import annotations

import httpx

from tests.sandbox.helpers import charge


async def test_partial_then_rest_then_nothing_left(api: httpx.AsyncClient, account_id: str) -> None:
    sale = (await charge(api, account_id, 100)).json()
    partial = await api.post(
        "/v2/refunds",
        json={
            "charge_id": sale["charge_id"],
            "total_amount": 30.1,
            "reason": "damaged",
            "tags": "rma",
        },
    )
    assert partial.status_code == 201
    body = partial.json()
    assert (body["total_amount"], body["status"], body["tags"]) == (30.1, "success", ["rma"])
    assert (await api.get(f"/v2/charges/{sale['charge_id']}")).json()["reversal_flag"] is False
    too_much = await api.post(
        "/v2/refunds", json={"charge_id": sale["charge_id"], "total_amount": 70}
    )
    assert too_much.status_code == 422
    assert too_much.json()["fields"][0]["field"] == "total_amount"
    assert "69.9" in too_much.json()["fields"][0]["message"]
    rest = await api.post("/v2/refunds", json={"charge_id": sale["charge_id"]})
    assert rest.status_code == 201
    assert rest.json()["total_amount"] == 69.9
    assert (await api.get(f"/v2/charges/{sale['charge_id']}")).json()["reversal_flag"] is True
    nothing = await api.post(
        "/v2/refunds", json={"charge_id": sale["charge_id"], "total_amount": 0.01}
    )
    assert nothing.status_code == 409
    listed = await api.get("/v2/refunds", params={"charge_id": sale["charge_id"]})
    assert listed.json()["total"] == 2
    assert [r["refund_id"] for r in listed.json()["data"]] == [
        rest.json()["refund_id"],
        body["refund_id"],
    ]
    one = await api.get(f"/v2/refunds/{body['refund_id']}")
    assert one.json() == body
    by_tag = await api.get("/v2/refunds", params={"tag": "rma", "account_id": account_id})
    assert [r["refund_id"] for r in by_tag.json()["data"]] == [body["refund_id"]]
    # Refund update: tags and attributes replaced as for a charge, searchable at once.
    patched = await api.patch(
        f"/v2/refunds/{body['refund_id']}", json={"tags": ["rma", "late"], "attributes": {"k": "v"}}
    )
    assert patched.status_code == 200
    assert (patched.json()["tags"], patched.json()["attributes"]) == (["rma", "late"], {"k": ["v"]})
    assert patched.json()["total_amount"] == 30.1  # nothing but the labels changes
    by_new_tag = await api.get("/v2/refunds", params={"tag": "late", "account_id": account_id})
    assert [r["refund_id"] for r in by_new_tag.json()["data"]] == [body["refund_id"]]
    assert (await api.patch("/v2/refunds/nope", json={"tags": []})).status_code == 404


async def test_refund_refuses_authorizations_declines_and_chargebacks(
    api: httpx.AsyncClient, account_id: str
) -> None:
    auth = (await charge(api, account_id, 5, charge_type="authorization")).json()
    assert (await api.post("/v2/refunds", json={"charge_id": auth["charge_id"]})).status_code == 409
    chargeback = (await api.get("/v2/charges", params={"status": "chargeback", "limit": 1})).json()
    target = chargeback["data"][0]["charge_id"]
    assert (await api.post("/v2/refunds", json={"charge_id": target})).status_code == 409
    missing = await api.post("/v2/refunds", json={"charge_id": "ffffffffffffffffffffffff"})
    assert missing.status_code == 404


async def test_seeded_full_refunds_have_reversal_flag(api: httpx.AsyncClient) -> None:
    refunds = (await api.get("/v2/refunds", params={"limit": 500})).json()["data"]
    assert refunds
    checked = 0
    for refund in refunds[:40]:
        charge_doc = (await api.get(f"/v2/charges/{refund['charge_id']}")).json()
        if refund["total_amount"] == charge_doc["total_amount"]:
            assert charge_doc["reversal_flag"] is True
            checked += 1
    assert checked > 0
