"""Authentication: a static bearer token, or OAuth2 client credentials with refresh.

The client asks its `Authenticator` for a header before every request and tells it about a 401.
Client credentials fetch a token from ``{base_url}/v2/services/oauth2/token`` (form
``grant_type=client_credentials``, optional space-separated ``scope``), keep it until a margin
before ``expires_in`` runs out (a minute, or a quarter of a shorter lifetime), and fetch a new one
when the server answers 401. A lock makes concurrent requests (the UI loads several panes at once)
share one token fetch.

The client id and secret go as HTTP Basic or as the form fields ``client_id`` / ``client_secret``
(public clients do both: shared/spec/api-facts.md). ``"auto"`` (the default) tries Basic first and,
when the token endpoint refuses it as a client (401, or 400 ``invalid_client``), once more with
the form fields; the style that worked is kept for the rest of the session. A profile may pin
``"basic"`` or ``"form"`` (`token_auth`).

Secrets stay in `SecretStr` and never reach a log or an exception message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

import httpx
from pydantic import SecretStr

from paytui.api.error_bodies import reason_and_code, text_reason
from paytui.api.errors import (
    ApiError,
    AuthenticationError,
    MalformedResponseError,
    RequestTimeoutError,
    ServerError,
    TransportError,
    ValidationError,
    quote,
)
from paytui.api.models import TokenInfo
from paytui.api.responses import unbind

logger = logging.getLogger("paytui.api")

TOKEN_PATH = "/v2/services/oauth2/token"
#: Fetch a new token this many seconds before the old one expires, so no request carries a token
#: that dies in flight.
REFRESH_MARGIN = 60.0
#: A token living less than `REFRESH_MARGIN` is refreshed this fraction of its life before it ends
#: (a 30 s token is reused for about 22 s), not before every request.
SHORT_LIFE_FRACTION = 0.25

#: How the client id and secret reach the token endpoint (see the module docstring).
TokenAuthStyle = Literal["auto", "basic", "form"]
TOKEN_AUTH_STYLES: tuple[str, ...] = ("auto", "basic", "form")


class Authenticator(Protocol):
    """What `PaymentClient` needs from an auth strategy."""

    async def token(self) -> TokenInfo | None:
        """A valid token (fetching one if needed), or None when requests go unauthenticated."""
        ...

    async def invalidate(self, rejected: TokenInfo | None) -> bool:
        """The server refused `rejected` (401). True when a different token may now succeed."""
        ...

    @property
    def current(self) -> TokenInfo | None:
        """The token in hand, without fetching."""
        ...


def _secret(value: str | SecretStr) -> SecretStr:
    return value if isinstance(value, SecretStr) else SecretStr(value)


class StaticTokenAuth:
    """A bearer token given by the user (profile or ``PAYTUI_TOKEN``): nothing to refresh."""

    def __init__(self, token: str | SecretStr) -> None:
        self._info = TokenInfo(access_token=_secret(token))

    @property
    def current(self) -> TokenInfo:
        return self._info

    async def token(self) -> TokenInfo:
        return self._info

    async def invalidate(self, rejected: TokenInfo | None) -> bool:
        # The same token would be refused again: report the 401 instead of looping.
        return False


class ClientCredentialsAuth:
    """OAuth2 client-credentials flow with proactive refresh and one refresh on a 401."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        client_id: str,
        client_secret: str | SecretStr,
        *,
        scopes: Sequence[str] | None = None,
        timeout: float = 10.0,
        clock: Callable[[], datetime] | None = None,
        style: TokenAuthStyle = "auto",
    ) -> None:
        if style not in TOKEN_AUTH_STYLES:
            raise ValueError(f"token_auth must be one of {', '.join(TOKEN_AUTH_STYLES)}")
        self._http = http
        self._client_id = client_id
        self._client_secret = _secret(client_secret)
        self._scopes = tuple(scopes) if scopes else ()
        self._timeout = timeout
        self._clock = clock or (lambda: datetime.now(UTC))
        self._info: TokenInfo | None = None
        #: Seconds before `_info` expires at which it is fetched again (scaled to its lifetime).
        self._margin = REFRESH_MARGIN
        self._lock = asyncio.Lock()
        self.style: TokenAuthStyle = style
        #: The credential style the token endpoint accepted ("basic" / "form"); None until one
        #: did. With ``style="auto"`` it is what every later fetch of this session uses.
        self.learned_style: Literal["basic", "form"] | None = None if style == "auto" else style

    @property
    def current(self) -> TokenInfo | None:
        return self._info

    async def token(self) -> TokenInfo:
        info = self._info
        if info is not None and not info.expires_within(self._margin, self._clock()):
            return info
        async with self._lock:
            # Another task may have fetched while this one waited for the lock.
            info = self._info
            if info is None or info.expires_within(self._margin, self._clock()):
                info = self._info = await self.fetch()
                self._margin = _refresh_margin(info, self._clock())
            return info

    async def invalidate(self, rejected: TokenInfo | None) -> bool:
        async with self._lock:
            if self._info is not None and self._info is not rejected:
                return True  # someone already replaced the rejected token
            self._info = None
        return True

    async def fetch(self) -> TokenInfo:
        """Ask the token endpoint for a new token; every failure becomes an `ApiError`.

        Before a style is known (``auto``): HTTP Basic, then once the form fields when Basic is
        refused as a client; the one that works is kept. Both refused: the second refusal."""
        if self.learned_style is not None:
            return await self._fetch_with(self.learned_style)
        try:
            info = await self._fetch_with("basic")
        except AuthenticationError as err:
            if not _client_refused(err):
                raise
            logger.info("the token endpoint refused HTTP Basic; trying the form fields")
            try:
                info = await self._fetch_with("form")
            except AuthenticationError as second:
                raise AuthenticationError(
                    f"{second.message} (tried form fields after HTTP Basic)",
                    second.status,
                    second.code,
                    second.body,
                ) from None
            self.learned_style = "form"
            return info
        self.learned_style = "basic"
        return info

    async def _fetch_with(self, style: Literal["basic", "form"]) -> TokenInfo:
        form: dict[str, str] = {"grant_type": "client_credentials"}
        if self._scopes:
            form["scope"] = " ".join(self._scopes)
        auth: httpx.Auth | None = None
        if style == "basic":
            auth = httpx.BasicAuth(self._client_id, self._client_secret.get_secret_value())
        else:
            form["client_id"] = self._client_id
            form["client_secret"] = self._client_secret.get_secret_value()
        started = time.perf_counter()
        try:
            response = await self._http.post(
                TOKEN_PATH,
                data=form,
                auth=auth if auth is not None else httpx.USE_CLIENT_DEFAULT,
                headers={"Accept": "application/json"},
                timeout=self._timeout,
            )
        except httpx.TimeoutException as exc:
            raise RequestTimeoutError(
                "the token endpoint did not answer in time", request_sent=True
            ) from exc
        except httpx.ConnectError as exc:
            raise TransportError(
                f"cannot reach the token endpoint ({type(exc).__name__})", request_sent=False
            ) from exc
        except httpx.HTTPError as exc:
            raise TransportError(
                f"token request failed ({type(exc).__name__})", request_sent=True
            ) from exc
        unbind(response)
        logger.debug(
            "POST %s (%s) -> %s (%.1f ms)",
            TOKEN_PATH,
            "HTTP Basic" if style == "basic" else "form fields",
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return self._parse(response)

    def _parse(self, response: httpx.Response) -> TokenInfo:
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400 or not isinstance(body, dict):
            raise _token_error(response, body)
        token = body.get("access_token")
        if not isinstance(token, str) or not token:
            raise MalformedResponseError(
                "the token endpoint answered without an access_token", response.status_code
            )
        expires_at: datetime | None = None
        expires_in = body.get("expires_in")
        try:
            if expires_in is not None:
                expires_at = self._clock() + timedelta(seconds=float(expires_in))
        except (TypeError, ValueError):
            expires_at = None
        # Every log record, error and notification is scrubbed of this token from now on, in
        # whatever form it shows up (not only after "Bearer ").
        from paytui.logs import register_secret

        register_secret(token)
        granted = body.get("scope")
        if isinstance(granted, str):
            scopes = frozenset(granted.split())
        elif isinstance(granted, list):
            scopes = frozenset(str(scope) for scope in granted)
        else:
            # No scope in the answer: RFC 6749 says the requested scope was granted.
            scopes = frozenset(self._scopes)
        return TokenInfo(
            access_token=SecretStr(token),
            expires_at=expires_at,
            scopes=scopes,
            token_type=str(body.get("token_type") or "Bearer"),
        )


def _refresh_margin(info: TokenInfo, now: datetime) -> float:
    """How long before `info` expires to fetch the next one: `REFRESH_MARGIN`, or a fraction of
    a shorter lifetime (a 30 s token is not fetched again before every request)."""
    if info.expires_at is None:
        return REFRESH_MARGIN
    lifetime = max((info.expires_at - now).total_seconds(), 0.0)
    return min(REFRESH_MARGIN, lifetime * SHORT_LIFE_FRACTION)


def _client_refused(err: AuthenticationError) -> bool:
    """The token endpoint refused the client's credentials (401, or RFC 6749's 400
    ``invalid_client``): worth one try with the other credential style."""
    return err.status == 401 or err.code == "invalid_client"


def _token_error(response: httpx.Response, body: object) -> ApiError:
    """RFC 6749 errors (`error` / `error_description`) as the client's exceptions."""
    status = response.status_code
    if not isinstance(body, dict) and status < 400:
        return MalformedResponseError(
            f"the token endpoint answered non-JSON: {quote(response.text)}", status
        )
    reason, code = reason_and_code(body)
    if reason is None and body is None and response.content:
        reason = text_reason(response.content, response.headers.get("Content-Type", ""))
    message = reason or "no reason given"
    body = body if isinstance(body, dict) else {}
    if code in ("invalid_client", "unauthorized_client") or status == 401:
        return AuthenticationError(f"client credentials refused: {message}", status, code, body)
    if code == "invalid_scope":
        return ValidationError(f"scope refused: {message}", status, code, body)
    if status >= 500:
        return ServerError(f"token endpoint failed: {message}", status, code, body)
    return AuthenticationError(f"token request refused: {message}", status, code, body)
