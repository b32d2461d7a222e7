"""OAuth client credentials, bearer checks and the scope table."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.embedded import asgi_transport
from paytui.sandbox.scopes import INTERNAL_SCOPES, SCOPE_TABLE
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import BASE, get_token

TOKEN_URL = "/v2/services/oauth2/token"


async def test_token_with_basic_auth_grants_every_scope_but_internal(
    anon: httpx.AsyncClient,
) -> None:
    basic = base64.b64encode(f"{DEMO_CLIENT_ID}:{DEMO_CLIENT_SECRET}".encode()).decode()
    response = await anon.post(
        TOKEN_URL,
        data={"grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    granted = set(body["scope"].split())
    assert set(SCOPE_TABLE) <= granted
    assert not granted & INTERNAL_SCOPES


async def test_token_with_form_credentials_and_a_scope_subset(anon: httpx.AsyncClient) -> None:
    response = await anon.post(
        TOKEN_URL,
        data={
            "grant_type": "client_credentials",
            "client_id": DEMO_CLIENT_ID,
            "client_secret": DEMO_CLIENT_SECRET,
            "scope": "urn:v2:accounts:read urn:v2:plugins:client",
        },
    )
    assert response.status_code == 200
    assert response.json()["scope"] == "urn:v2:accounts:read"
    anon.headers["Authorization"] = "Bearer " + response.json()["access_token"]
    assert (await anon.get("/v2/accounts")).status_code == 200
    assert (await anon.get("/v2/charges")).status_code == 403


async def test_token_errors_use_the_rfc6749_form(anon: httpx.AsyncClient) -> None:
    wrong = await anon.post(
        TOKEN_URL, data={"grant_type": "client_credentials"}, auth=(DEMO_CLIENT_ID, "nope")
    )
    assert wrong.status_code == 401
    assert wrong.json()["error"] == "invalid_client"
    assert wrong.json()["message"]
    grant = await anon.post(
        TOKEN_URL, data={"grant_type": "password"}, auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    )
    assert (grant.status_code, grant.json()["error"]) == (400, "unsupported_grant_type")
    scope = await anon.post(
        TOKEN_URL,
        data={"grant_type": "client_credentials", "scope": "urn:v2:nothing"},
        auth=("paytui-limited", "paytui-limited-secret"),
    )
    assert (scope.status_code, scope.json()["error"]) == (400, "invalid_scope")


async def test_missing_unknown_and_expired_tokens_are_401(
    anon: httpx.AsyncClient, sandbox_db: Path
) -> None:
    missing = await anon.get("/v2/charges")
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    assert missing.json()["error"] == "unauthorized"
    unknown = await anon.get("/v2/charges", headers={"Authorization": "Bearer not-a-token"})
    assert unknown.status_code == 401
    assert "invalid_token" in unknown.headers["WWW-Authenticate"]
    from paytui.sandbox.app import create_app

    app = create_app(sandbox_db, token_ttl=0)
    async with raw_client(httpx.ASGITransport(app=app), BASE) as http:
        token = await get_token(http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
        expired = await http.get("/v2/merchants", headers={"Authorization": f"Bearer {token}"})
    assert expired.status_code == 401


async def test_tokens_survive_a_restart(anon: httpx.AsyncClient, sandbox_db: Path) -> None:
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    async with raw_client(asgi_transport(sandbox_db), BASE) as http:
        response = await http.get("/v2/merchants", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200


async def test_limited_client_reads_accounts_but_not_charges(limited: httpx.AsyncClient) -> None:
    assert (await limited.get("/v2/accounts")).status_code == 200
    assert (await limited.get("/v2/merchants")).status_code == 200
    refused = await limited.get("/v2/charges")
    assert refused.status_code == 403
    assert refused.json()["error"] == "forbidden"
    assert refused.json()["required_scopes"] == ["urn:v2:charges:all"]
    post = await limited.post("/v2/accounts", json={})
    assert post.status_code == 403
    assert post.json()["required_scopes"] == ["urn:v2:accounts:all"]


async def test_distribute_needs_its_own_scope(anon: httpx.AsyncClient) -> None:
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, scope="urn:v2:charges:all")
    anon.headers["Authorization"] = f"Bearer {token}"
    response = await anon.post("/v2/charges/0123456789abcdef01234567/distribute", json={})
    assert response.status_code == 403
    assert response.json()["required_scopes"] == ["urn:v2:charges:distribute:create"]


async def test_openapi_and_health_need_no_token_but_control_endpoints_do(
    anon: httpx.AsyncClient, limited: httpx.AsyncClient
) -> None:
    spec = await anon.get("/openapi.json")
    assert spec.status_code == 200
    assert "/v2/charges" in spec.json()["paths"]
    assert (await anon.get("/sandbox/faults")).status_code == 401
    assert (await anon.put("/sandbox/faults", json={"delay_seconds": 1})).status_code == 401
    assert (await anon.post("/sandbox/accounts/pa_x/advance")).status_code == 401
    assert (await limited.get("/sandbox/faults")).status_code == 401  # not the demo client
    token = await get_token(anon, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    demo = {"Authorization": f"Bearer {token}"}
    assert (await anon.get("/sandbox/faults", headers=demo)).status_code == 200
