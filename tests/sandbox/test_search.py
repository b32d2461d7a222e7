"""GET /v2/charges: every filter, the envelope, paging stability and sort orders."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.sandbox.helpers import card, charge

Params = list[tuple[str, str]]


def amount(charge: dict[str, Any]) -> Decimal:
    return Decimal(str(charge["total_amount"]))


async def everything(
    api: httpx.AsyncClient, params: Params, page: int = 500
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    offset = 0
    while True:
        body = (
            await api.get(
                "/v2/charges", params=[*params, ("limit", str(page)), ("offset", str(offset))]
            )
        ).json()
        found += body["data"]
        offset += page
        if not body["has_more"]:
            assert len(found) == body["total"]
            return found


async def test_default_page_envelope_and_order(api: httpx.AsyncClient) -> None:
    body = (await api.get("/v2/charges")).json()
    assert set(body) == {"data", "total", "limit", "offset", "has_more"}
    assert (body["total"], body["limit"], body["offset"], body["has_more"]) == (3015, 50, 0, True)
    keys = [(c["charge_timestamp"], c["charge_id"]) for c in body["data"]]
    assert keys == sorted(keys, reverse=True)


async def test_limit_is_clamped_and_bad_paging_is_422(api: httpx.AsyncClient) -> None:
    assert (await api.get("/v2/charges", params={"limit": 9999})).json()["limit"] == 500
    for params in ({"limit": 0}, {"offset": -1}, {"limit": "x"}):
        response = await api.get("/v2/charges", params=params)
        assert response.status_code == 422
        assert response.json()["fields"][0]["field"] in ("limit", "offset")


async def test_paging_is_stable_and_complete(api: httpx.AsyncClient) -> None:
    small = await everything(api, [("status", "success"), ("method", "card")], page=37)
    large = await everything(api, [("status", "success"), ("method", "card")], page=500)
    assert [c["charge_id"] for c in small] == [c["charge_id"] for c in large]
    assert len({c["charge_id"] for c in small}) == len(small)


@pytest.mark.parametrize(
    ("params", "check"),
    [
        (
            [("status", "chargeback")],
            lambda c: c["status"] == "chargeback" and c["chargebacks"]["items"],
        ),
        ([("status", "return")], lambda c: c["status"] == "return" and c["return"]["return_code"]),
        ([("status", "declined")], lambda c: c["result_code"] == "Declined"),
        ([("tag", "vip"), ("tag", "retail")], lambda c: {"vip", "retail"} <= set(c["tags"])),
        ([("attribute", "channel=web")], lambda c: "web" in c["attributes"]["channel"]),
        ([("attribute", "order_id=")], lambda c: "order_id" in c["attributes"]),
        ([("method", "bank_account")], lambda c: c["payment_method"]["method"] == "bank_account"),
        ([("last4", "0005")], lambda c: c["payment_method"]["card_number"].endswith("0005")),
        ([("charge_type", "pre_authorization")], lambda c: c["total_amount"] == 0),
        (
            [("charge_type", "authorization"), ("captured", "false")],
            lambda c: "captured_charge_id" in c and c["captured_charge_id"] is None,
        ),
        (
            [("charge_type", "authorization"), ("captured", "true")],
            lambda c: c.get("captured_charge_id") is not None,
        ),
        ([("charge_type", "capture")], lambda c: c["original_charge_id"]),
        (
            [("min_amount", "100"), ("max_amount", "250.5")],
            lambda c: 100 <= amount(c) <= Decimal("250.5"),
        ),
        (
            [("created_from", "2026-09-01"), ("created_to", "2026-09-08T00:00:00Z")],
            lambda c: "2026-09-01" <= c["charge_timestamp"] < "2026-09-08",
        ),
        (
            [("status", "success"), ("tag", "web"), ("min_amount", "50"), ("method", "card")],
            lambda c: c["status"] == "success" and "web" in c["tags"] and c["total_amount"] >= 50,
        ),
    ],
)
async def test_each_filter_returns_only_and_some_matches(
    api: httpx.AsyncClient, params: Params, check: Any
) -> None:
    found = await everything(api, params)
    assert found, params
    assert all(check(c) for c in found), params


async def test_filters_partition_the_whole(api: httpx.AsyncClient) -> None:
    total = (await api.get("/v2/charges", params={"limit": 1})).json()["total"]
    by_status = 0
    for status in ("success", "declined", "chargeback", "return"):
        by_status += (await api.get("/v2/charges", params={"status": status, "limit": 1})).json()[
            "total"
        ]
    assert by_status == total
    tagged = (await api.get("/v2/charges", params={"tag": "vip", "limit": 1})).json()["total"]
    assert 0 < tagged < total


async def test_account_merchant_original_and_prefix(api: httpx.AsyncClient) -> None:
    capture = (await api.get("/v2/charges", params={"charge_type": "capture", "limit": 1})).json()[
        "data"
    ][0]
    by_account = await everything(api, [("account_id", capture["account_id"])])
    assert {c["account_id"] for c in by_account} == {capture["account_id"]}
    by_merchant = (
        await api.get("/v2/charges", params={"merchant_id": capture["merchant_id"]})
    ).json()
    assert by_merchant["total"] >= len(by_account)
    captures = (
        await api.get("/v2/charges", params={"original_charge_id": capture["original_charge_id"]})
    ).json()
    assert [c["charge_id"] for c in captures["data"]] == [capture["charge_id"]]
    prefix = (
        await api.get("/v2/charges", params={"charge_id": capture["charge_id"][:8].upper()})
    ).json()
    assert capture["charge_id"] in [c["charge_id"] for c in prefix["data"]]
    assert all(c["charge_id"].startswith(capture["charge_id"][:8]) for c in prefix["data"])


@pytest.mark.parametrize(
    ("sort", "key"),
    [
        ("-total_amount", lambda c: (amount(c), c["charge_timestamp"], c["charge_id"])),
        ("total_amount", lambda c: (amount(c), c["charge_timestamp"], c["charge_id"])),
        ("status", lambda c: (c["status"], c["charge_timestamp"], c["charge_id"])),
        ("-charge_id", lambda c: c["charge_id"]),
    ],
)
async def test_sort_orders(api: httpx.AsyncClient, sort: str, key: Any) -> None:
    data = (await api.get("/v2/charges", params={"sort": sort, "limit": 200, "tag": "web"})).json()[
        "data"
    ]
    assert [key(c) for c in data] == sorted((key(c) for c in data), reverse=sort.startswith("-"))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("status", "pending"),
        ("method", "cash"),
        ("charge_type", "refund"),
        ("captured", "maybe"),
        ("created_from", "yesterday"),
        ("min_amount", "1.001"),
        ("max_amount", "lots"),
        ("last4", "12"),
        ("charge_id", "xyz"),
        ("sort", "color"),
        ("attribute", "novalue"),
    ],
)
async def test_malformed_values_are_422_naming_the_parameter(
    api: httpx.AsyncClient, name: str, value: str
) -> None:
    response = await api.get("/v2/charges", params={name: value})
    assert response.status_code == 422
    assert response.json()["fields"][0]["field"] == name


async def test_unknown_parameters_are_ignored(api: httpx.AsyncClient) -> None:
    assert (await api.get("/v2/charges", params={"colour": "blue"})).status_code == 200


def _folded_name(charge: dict[str, Any]) -> list[str]:
    contact = charge["payment_method"].get("contact", {})
    return [
        name.casefold() for name in (contact.get("first_name", ""), contact.get("last_name", ""))
    ]


async def test_contact_name_is_a_folded_word_prefix(api: httpx.AsyncClient) -> None:
    """`jose nun` finds José Núñez: every word begins a word of the first or last name, accents
    and case aside; the total counts each charge once."""
    found = await everything(api, [("contact_name", "jose NUN")])
    assert found and {tuple(_folded_name(c)) for c in found} == {("josé", "núñez")}
    every = await everything(api, [])
    assert len(found) == sum(_folded_name(c) == ["josé", "núñez"] for c in every)
    # One charge, one count, though "l" begins two words of "Leslie Lamport".
    lamport = await everything(api, [("contact_name", "l lamp")])
    assert len(lamport) == sum(_folded_name(c) == ["leslie", "lamport"] for c in every)
    assert {c["charge_id"] for c in await everything(api, [("contact_name", "obri")])} == {
        c["charge_id"] for c in every if _folded_name(c) == ["zoë", "o'brien"]
    }
    response = await api.get("/v2/charges", params={"contact_name": "--"})
    assert response.status_code == 422
    assert response.json()["fields"][0]["field"] == "contact_name"


async def test_a_new_charge_is_found_by_name_at_once(
    api: httpx.AsyncClient, account_id: str
) -> None:
    contact = {"first_name": "Ångström", "last_name": "Berners-Lee"}
    created = await charge(api, account_id, payment_method=card(contact=contact))
    assert created.status_code == 201, created.text
    for words in ("angs", "lee", "ANGSTROM bern"):
        body = (await api.get("/v2/charges", params={"contact_name": words})).json()
        assert created.json()["charge_id"] in {c["charge_id"] for c in body["data"]}, words
