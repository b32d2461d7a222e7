"""The sandbox's rules for plugin sessions, tokens and new accounts (docs/api-assumptions.md):
approved accounts only, typed and normalised fields, the fee-inclusive limit from the account,
tax authority only for merchant category 9311."""

from __future__ import annotations

from typing import Any

import httpx

from tests.sandbox.helpers import card


async def _account(api: httpx.AsyncClient, name: str) -> dict[str, Any]:
    accounts = (await api.get("/v2/accounts", params={"limit": 500})).json()["data"]
    return next(a for a in accounts if a["name"] == name)


async def test_payment_sessions_follow_the_account(api: httpx.AsyncClient) -> None:
    cafe = await _account(api, "Blue Fern Café POS")  # limit 5,000
    assert cafe["max_transaction_amount"] == 5000
    base = {"account_id": cafe["account_id"]}

    async def post(**body: Any) -> httpx.Response:
        return await api.post("/v2/plugins/payment", json={**base, **body})

    fees = {"convenience_fee": {"amount": 2.5}, "tax_amount": 7.5}
    default = (await post(**fees)).json()
    assert default["max_transaction_amount"] == 4990  # the limit minus the fees
    fits = await post(max_transaction_amount=4990, **fees)
    assert fits.status_code == 201
    only_without_fees = await post(max_transaction_amount=4995, **fees)
    assert only_without_fees.status_code == 422
    assert only_without_fees.json()["fields"][0]["field"] == "max_transaction_amount"
    assert (await post(max_transaction_amount=5000.01)).status_code == 422

    normalised = (await post(tags="a, b ,a", attributes={"k": "v"}, tokenize=True)).json()
    assert (normalised["tags"], normalised["attributes"], normalised["tokenize"]) == (
        ["a", "b"],
        {"k": ["v"]},
        {},
    )
    expiry = (await post(tokenize={"token_expiration_date": "2031-02-03"})).json()
    assert expiry["tokenize"] == {"token_expiration_date": "2031-02-03T00:00:00.000Z"}

    wrong = [
        ({"tokenize": "yes"}, "tokenize"),
        ({"tokenize": {"token_expiration_date": "soon"}}, "tokenize.token_expiration_date"),
        ({"tokenize": {"token_expiration_date": "2001-01-01"}}, "tokenize.token_expiration_date"),
        ({"tags": ["a", 3]}, "tags"),
        ({"captcha": "yes"}, "captcha"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"appearance": {"dark_mode": {"enabled": "yes"}}}, "appearance.dark_mode.enabled"),
        ({"appearance": {"loader": {"color": "red"}}}, "appearance.loader.color"),
        ({"tax_amount": "5"}, "tax_amount"),
        ({"payment_methods": ["cash"]}, "payment_methods.0"),
        ({"fields": {"submit_button": 3}}, "fields.submit_button"),
    ]
    for body, field in wrong:
        answer = await post(**body)
        assert answer.status_code == 422, body
        assert answer.json()["fields"][0]["field"] == field, body

    too_long = await post(prefix="p" * 65)
    assert too_long.status_code == 422 and "prefix" in too_long.json()["message"]
    suspended = await _account(api, "Northwind Phone Orders")
    refused = await api.post("/v2/plugins/payment", json={"account_id": suspended["account_id"]})
    assert refused.status_code == 409
    token = await api.post(
        "/v2/tokens", json={"account_id": suspended["account_id"], "payment_method": card()}
    )
    assert token.status_code == 409


async def test_accounts_with_a_tax_authority(api: httpx.AsyncClient) -> None:
    tax_office = await _account(api, "Lakeside Property Tax")
    merchant = tax_office["merchant_id"]

    async def create(**body: Any) -> httpx.Response:
        return await api.post("/v2/accounts", json={"merchant_id": merchant, "name": "T", **body})

    made = await create(
        merchant_category_code="9311", tax_authority="Lakeside County", tax_authority_state="MN"
    )
    assert made.status_code == 201
    account = made.json()
    assert (account["tax_authority"], account["max_transaction_amount"]) == (
        "Lakeside County",
        10000,
    )
    got = (await api.get(f"/v2/accounts/{account['account_id']}")).json()
    assert got["tax_authority_state"] == "MN"
    for body, field in [
        ({"merchant_category_code": "5999", "tax_authority": "X"}, "tax_authority"),
        ({"merchant_category_code": "9311", "tax_authority_state": "MN"}, "tax_authority"),
        (
            {"merchant_category_code": "9311", "tax_authority": "X", "tax_authority_state": "Mn"},
            "tax_authority_state",
        ),
    ]:
        answer = await create(**body)
        assert answer.status_code == 422, body
        assert answer.json()["fields"][0]["field"] == field
    assert (await create(max_transaction_amount=250)).json()["max_transaction_amount"] == 250
