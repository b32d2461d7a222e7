"""The OAuth 2 client-credentials token endpoint and the sandbox-only control endpoints."""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from typing import Any
from urllib.parse import parse_qs, unquote_plus

import anyio.to_thread
from fastapi import APIRouter, Request, Response

from paytui.sandbox.http import faults_of, json_response, store_of
from paytui.sandbox.models import ChargebackIn, FaultsUpdate
from paytui.sandbox.scopes import CLIENTS, ScopeRequestError, grant

router = APIRouter()


def _oauth_error(status: int, code: str, description: str) -> Response:
    """RFC 6749 error form, with `message` too so one reader handles every error body."""
    headers = {"Cache-Control": "no-store"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="paytui-sandbox"'
    body = {"error": code, "error_description": description, "message": description}
    return json_response(body, status, headers)


def _form(raw: bytes, content_type: str) -> dict[str, str]:
    if content_type.startswith("application/json"):
        data = json.loads(raw or b"{}")
        if not isinstance(data, dict):
            raise ValueError("body must be an object")
        return {str(k): str(v) for k, v in data.items()}
    parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    return {k: v[0] for k, v in parsed.items()}


def _basic(request: Request) -> tuple[str, str] | None:
    kind, _, value = request.headers.get("authorization", "").partition(" ")
    if kind.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (unquote_plus(client_id), unquote_plus(secret)) if sep else None


@router.post("/v2/services/oauth2/token", summary="Get an access token (client credentials)")
async def token(request: Request) -> Response:
    try:
        form = _form(await request.body(), request.headers.get("content-type", ""))
    except (ValueError, UnicodeDecodeError):
        return _oauth_error(400, "invalid_request", "the body must be form-encoded")
    if "grant_type" not in form:
        return _oauth_error(400, "invalid_request", "grant_type is required")
    if form["grant_type"] != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type", "only client_credentials is supported")
    credentials = _basic(request) or (form.get("client_id", ""), form.get("client_secret", ""))
    client = CLIENTS.get(credentials[0])
    if client is None or not secrets.compare_digest(client.secret, credentials[1]):
        return _oauth_error(401, "invalid_client", "unknown client or wrong secret")
    try:
        scopes = grant(client, form.get("scope"))
    except ScopeRequestError as exc:
        return _oauth_error(400, "invalid_scope", str(exc))
    access_token = secrets.token_urlsafe(32)
    ttl: int = request.app.state.token_ttl
    store = store_of(request)
    await anyio.to_thread.run_sync(
        store.save_access_token, access_token, client.client_id, scopes, ttl
    )
    body = {
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": ttl,
        "scope": " ".join(sorted(scopes)),
    }
    return json_response(body, 200, {"Cache-Control": "no-store"})


@router.get("/sandbox/faults", summary="Read the fault switches (sandbox only)")
def get_faults(request: Request) -> Response:
    return json_response(faults_of(request).to_json())


@router.put("/sandbox/faults", summary="Set fault switches; keys left out stay as they are")
def put_faults(request: Request, body: FaultsUpdate) -> Response:
    # null means "leave as it is", like a key left out (it was stored, and broke every answer).
    changes: dict[str, Any] = {
        k: getattr(body, k) for k in body.model_fields_set if getattr(body, k) is not None
    }
    faults_of(request).update(changes)
    return json_response(faults_of(request).to_json())


@router.post("/sandbox/accounts/{account_id}/advance", summary="Move an account one boarding step")
def advance(request: Request, account_id: str) -> Response:
    return json_response(store_of(request).advance_account(account_id))


@router.post(
    "/sandbox/charges/{charge_id}/chargeback",
    status_code=201,
    summary="Put a chargeback on a card sale or capture (sandbox only: a case to practise on)",
)
def add_chargeback(request: Request, charge_id: str, body: ChargebackIn) -> Response:
    from paytui.sandbox import ledger

    return json_response(ledger.add_chargeback(store_of(request), charge_id, body), 201)
