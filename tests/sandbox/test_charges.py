"""Creating, capturing, updating and distributing charges; error statuses and shapes."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.sandbox.helpers import bank, card, charge

HEX24 = re.compile(r"^[0-9a-f]{24}$")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


async def test_card_sale_is_approved_and_masked(api: httpx.AsyncClient, account_id: str) -> None:
    response = await charge(api, account_id, 25.5)
    assert response.status_code == 201
    body = response.json()
    assert HEX24.match(body["charge_id"])
    assert STAMP.match(body["charge_timestamp"]) and STAMP.match(body["last_updated_timestamp"])
    assert (body["status"], body["result_code"], body["charge_type"]) == (
        "success",
        "Approved",
        "sale",
    )
    assert body["result_text"] == "Sandbox transaction success"
    assert body["processor_messages"] == {"avs_response": "passed", "cv_response": "passed"}
    assert body["payment_method"]["card_number"] == "XXXXXXXXXXXX1111"
    assert body["payment_method"]["type"] == "visa"
    assert body["total_amount"] == 25.5
    assert '"total_amount":25.5,' in response.text
    assert body["authorization_code"]
    assert body["reversal_flag"] is False
    assert "4111111111111111" not in response.text


async def test_whole_amounts_are_integers_on_the_wire(
    api: httpx.AsyncClient, account_id: str
) -> None:
    response = await charge(api, account_id, 1)
    assert '"total_amount":1,' in response.text


async def test_bank_sale_has_last_four_and_no_authorization_code(
    api: httpx.AsyncClient, account_id: str
) -> None:
    response = await charge(api, account_id, 10, payment_method=bank())
    assert response.status_code == 201
    body = response.json()
    assert body["result_code"] == "ProcessorPendingACHSale"
    assert body["payment_method"]["account_number"] == "1111"
    assert "authorization_code" not in body


async def test_declined_card_answers_201_declined(api: httpx.AsyncClient, account_id: str) -> None:
    response = await charge(api, account_id, payment_method=card("4000000000000002"))
    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["result_code"], body["result_text"]) == (
        "declined",
        "Declined",
        "Card declined",
    )


@pytest.mark.parametrize(
    ("payment_method", "field"),
    [
        (card("4111111111111112"), "payment_method.card_number"),
        (card("9111111111111116"), "payment_method.card_number"),
        (card(expiration="2020-01"), "payment_method.expiration_date"),
        (card(expiration="12/30"), "payment_method.expiration_date"),
        (bank(routing="021000022"), "payment_method.routing_number"),
        (bank(number="12"), "payment_method.account_number"),
        ({"method": "cash"}, "payment_method.method"),
    ],
)
async def test_invalid_payment_methods_are_422_naming_the_field(
    api: httpx.AsyncClient, account_id: str, payment_method: dict[str, object], field: str
) -> None:
    response = await charge(api, account_id, payment_method=payment_method)
    assert response.status_code == 422
    body = response.json()
    assert body["error"] == "validation_error"
    assert [f["field"] for f in body["fields"]] == [field]
    assert body["message"]


@pytest.mark.parametrize(
    ("amount", "extra"),
    [
        (0, {}),
        (-5, {}),
        (1.234, {}),
        (5, {"charge_type": "pre_authorization"}),
        (5, {"charge_type": "refund"}),
    ],
)
async def test_invalid_amounts_and_types_are_422(
    api: httpx.AsyncClient, account_id: str, amount: float, extra: dict[str, str]
) -> None:
    response = await charge(api, account_id, amount, **extra)
    assert response.status_code == 422
    assert response.json()["fields"][0]["field"] in ("total_amount", "charge_type")


async def test_missing_fields_use_the_documented_shape(api: httpx.AsyncClient) -> None:
    response = await api.post("/v2/charges", json={"total_amount": "x"})
    assert response.status_code == 422
    fields = {f["field"] for f in response.json()["fields"]}
    assert fields == {"account_id", "total_amount", "payment_method"}
    assert set(response.json()) == {"error", "message", "fields"}


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'"text"'])
async def test_malformed_bodies_are_400(api: httpx.AsyncClient, content: bytes) -> None:
    response = await api.post(
        "/v2/charges", content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


async def test_unknown_and_unapproved_accounts(api: httpx.AsyncClient) -> None:
    missing = await charge(api, "pa_doesnotexist0000000")
    assert missing.status_code == 404
    assert "pa_doesnotexist0000000" in missing.json()["message"]
    accounts = (await api.get("/v2/accounts", params={"status": "in_review"})).json()["data"]
    refused = await charge(api, accounts[0]["account_id"])
    assert refused.status_code == 409
    assert refused.json()["error"] == "conflict"


async def test_tags_accept_the_legacy_string_and_attributes_bare_strings(
    api: httpx.AsyncClient, account_id: str
) -> None:
    response = await charge(
        api, account_id, tags=" vip, web ,,vip", attributes={"order_id": "A-9", "k": ["1", "2"]}
    )
    body = response.json()
    assert body["tags"] == ["vip", "web"]
    assert body["attributes"] == {"order_id": ["A-9"], "k": ["1", "2"]}
    found = await api.get("/v2/charges", params={"attribute": "order_id=A-9"})
    assert [c["charge_id"] for c in found.json()["data"]] == [body["charge_id"]]


async def test_capture_once(api: httpx.AsyncClient, account_id: str) -> None:
    auth = (await charge(api, account_id, 40, charge_type="authorization")).json()
    assert auth["result_code"] == "Authorized"
    first = await api.post(
        f"/v2/charges/{auth['charge_id']}/capture", json={"convenience_fee": 2.5}
    )
    assert first.status_code == 201
    capture = first.json()
    assert capture["charge_type"] == "capture"
    assert capture["original_charge_id"] == auth["charge_id"]
    assert capture["charge_id"] != auth["charge_id"]
    assert capture["result_code"] == "Approved"
    assert "result_text" not in capture
    assert capture["total_amount"] == 42.5
    again = await api.post(f"/v2/charges/{auth['charge_id']}/capture")
    assert again.status_code == 409
    assert capture["charge_id"] in again.json()["message"]
    reread = (await api.get(f"/v2/charges/{auth['charge_id']}")).json()
    assert reread["captured_charge_id"] == capture["charge_id"]


async def test_capture_refuses_sales_and_pre_authorizations(
    api: httpx.AsyncClient, account_id: str
) -> None:
    sale = (await charge(api, account_id)).json()
    assert (await api.post(f"/v2/charges/{sale['charge_id']}/capture", json={})).status_code == 409
    pre = await charge(api, account_id, 0, charge_type="pre_authorization")
    assert pre.status_code == 201
    assert pre.json()["result_code"] == "Authorized"
    assert (await api.post(f"/v2/charges/{pre.json()['charge_id']}/capture")).status_code == 409
    assert (await api.post("/v2/charges/ffffffffffffffffffffffff/capture")).status_code == 404


async def test_pre_authorization_is_for_cards_only(api: httpx.AsyncClient, account_id: str) -> None:
    response = await charge(
        api, account_id, 0, charge_type="pre_authorization", payment_method=bank()
    )
    assert response.status_code == 422


async def test_patch_replaces_tags_and_keeps_attributes(
    api: httpx.AsyncClient, account_id: str
) -> None:
    created = (await charge(api, account_id, tags=["a"], attributes={"x": ["1"]})).json()
    patched = await api.patch(f"/v2/charges/{created['charge_id']}", json={"tags": "b,c"})
    assert patched.status_code == 200
    assert patched.json()["tags"] == ["b", "c"]
    assert patched.json()["attributes"] == {"x": ["1"]}
    by_old = await api.get("/v2/charges", params={"tag": "a", "account_id": account_id})
    assert created["charge_id"] not in [c["charge_id"] for c in by_old.json()["data"]]
    by_new = await api.get("/v2/charges", params=[("tag", "b"), ("tag", "c")])
    assert [c["charge_id"] for c in by_new.json()["data"]] == [created["charge_id"]]


async def test_token_charge_shows_the_tokens_card(api: httpx.AsyncClient, account_id: str) -> None:
    token = (
        await api.post(
            "/v2/tokens",
            json={
                "account_id": account_id,
                "payment_method": card("5555555555554444", reason="on_file"),
            },
        )
    ).json()
    response = await charge(api, account_id, 12, payment_method={"token_id": token["token_id"]})
    assert response.status_code == 201
    method = response.json()["payment_method"]
    assert method["token_id"] == token["token_id"]
    assert (method["type"], method["card_number"]) == ("mastercard", "XXXXXXXXXXXX4444")


async def test_expired_token_is_422(api: httpx.AsyncClient, account_id: str) -> None:
    tokens = (await api.get("/v2/tokens", params={"limit": 100})).json()["data"]
    expired = next(t for t in tokens if t["token_expiration_date"] < "2026-11-01")
    response = await charge(
        api, expired["account_id"], 5, payment_method={"token_id": expired["token_id"]}
    )
    assert response.status_code == 422
    assert response.json()["fields"][0]["field"] == "payment_method.token_id"


async def test_unknown_ids_and_routes_are_404_with_a_message(api: httpx.AsyncClient) -> None:
    for path in ("/v2/charges/abc", "/v2/refunds/abc", "/v2/tokens/ct_x", "/v2/accounts/pa_x",
                 "/v2/merchants/mt_x", "/v2/distributions/abc", "/v2/nothing"):  # fmt: skip
        response = await api.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"] == "not_found"
        assert response.json()["message"]


async def test_expand_distributions_lists_only_this_charges_items(api: httpx.AsyncClient) -> None:
    chargebacks = (await api.get("/v2/charges", params={"status": "chargeback"})).json()["data"]
    target = chargebacks[-1]
    plain = (await api.get(f"/v2/charges/{target['charge_id']}")).json()
    assert "distributions" not in plain
    assert plain["chargebacks"]["items"]
    expanded = (
        await api.get(f"/v2/charges/{target['charge_id']}", params={"expand": "all"})
    ).json()
    categories = set()
    for dist in expanded["distributions"]:
        assert {item["charge_id"] for item in dist["items"]} == {target["charge_id"]}
        categories |= {item["category"] for item in dist["items"]}
    assert {"sales", "chargebacks"} <= categories
    bad = await api.get(f"/v2/charges/{target['charge_id']}", params={"expand": "everything"})
    assert bad.status_code == 422
    assert bad.json()["fields"][0]["field"] == "expand"


async def test_distribute_adds_to_the_open_distribution(
    api: httpx.AsyncClient, account_id: str
) -> None:
    sale = (await charge(api, account_id, 100)).json()
    response = await api.post(f"/v2/charges/{sale['charge_id']}/distribute", json={})
    assert response.status_code == 200
    dist = response.json()
    assert dist["status"] == "open"
    assert dist["account_id"] == account_id
    assert {"charge_id": sale["charge_id"], "category": "sales", "amount": 100} in [
        {k: i[k] for k in ("charge_id", "category", "amount")} for i in dist["items"]
    ]
    again = await api.post(f"/v2/charges/{sale['charge_id']}/distribute")
    assert again.status_code == 409
    auth = (await charge(api, account_id, 5, charge_type="authorization")).json()
    assert (await api.post(f"/v2/charges/{auth['charge_id']}/distribute")).status_code == 409
