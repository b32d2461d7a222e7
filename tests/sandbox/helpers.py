"""Request builders shared by the sandbox tests."""

from __future__ import annotations

from typing import Any

import httpx

BASE = "http://sandbox"
VISA = "4111111111111111"
EXPIRY = "2030-12"


async def get_token(http: httpx.AsyncClient, client_id: str, secret: str, **form: str) -> str:
    response = await http.post(
        "/v2/services/oauth2/token",
        data={"grant_type": "client_credentials", **form},
        auth=(client_id, secret),
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def card(number: str = VISA, expiration: str = EXPIRY, **extra: Any) -> dict[str, Any]:
    return {
        "method": "card",
        "card_number": number,
        "expiration_date": expiration,
        "contact": {"first_name": "Ada", "last_name": "Lovelace"},
        **extra,
    }


def bank(routing: str = "021000021", number: str = "111111111111") -> dict[str, Any]:
    return {
        "method": "bank_account",
        "type": "checking",
        "routing_number": routing,
        "account_number": number,
        "contact": {"first_name": "Grace", "last_name": "Hopper"},
    }


async def charge(
    api: httpx.AsyncClient, account_id: str, amount: Any = 25.5, **body: Any
) -> httpx.Response:
    payload = {"account_id": account_id, "total_amount": amount, "payment_method": card(), **body}
    return await api.post("/v2/charges", json=payload)
