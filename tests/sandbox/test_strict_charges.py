"""The stricter sandbox (issue 12, item 8, docs/api-assumptions.md "Charges"): a token is charged
only on its own account, a token payment names nothing but the token, and fees are added to the
amount at create exactly as at capture."""

from __future__ import annotations

import httpx

from tests.sandbox.helpers import card, charge


async def test_tokens_and_fees_follow_one_rule(api: httpx.AsyncClient, account_id: str) -> None:
    approved = (await api.get("/v2/accounts", params={"status": "approved", "limit": 50})).json()
    other = next(a["account_id"] for a in approved["data"] if a["account_id"] != account_id)
    stored = await api.post(
        "/v2/tokens", json={"account_id": account_id, "payment_method": card(reason="on_file")}
    )
    token_id = stored.json()["token_id"]

    own = await charge(api, account_id, 5, payment_method={"token_id": token_id})
    assert own.status_code == 201, own.text
    elsewhere = await charge(api, other, 5, payment_method={"token_id": token_id})
    assert elsewhere.status_code == 422
    assert elsewhere.json()["fields"][0]["field"] == "payment_method.token_id"
    assert "another account" in elsewhere.json()["fields"][0]["message"]

    mixed = await charge(
        api, account_id, 5, payment_method={"token_id": token_id, "method": "bank_account"}
    )
    assert mixed.status_code == 422
    assert "method" in mixed.json()["fields"][0]["message"]

    # Fees: added to the amount at create as at capture.
    sale = await charge(api, account_id, 10, convenience_fee=1.5, supplemental_fee=0.25)
    assert sale.status_code == 201
    body = sale.json()
    assert (body["total_amount"], body["convenience_fee"], body["supplemental_fee"]) == (
        11.75,
        1.5,
        0.25,
    )
    auth = (await charge(api, account_id, 10, charge_type="authorization")).json()
    capture = await api.post(
        f"/v2/charges/{auth['charge_id']}/capture",
        json={"convenience_fee": 1.5, "supplemental_fee": 0.25},
    )
    assert capture.json()["total_amount"] == body["total_amount"]
    pre = await charge(api, account_id, 0, charge_type="pre_authorization", convenience_fee=1)
    assert pre.status_code == 422
