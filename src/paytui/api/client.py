"""`PaymentClient`: the async client every screen uses to reach the payment service.

One `httpx.AsyncClient` per `PaymentClient` (connection pooling); a timeout on every request.

Failure rules, because this client moves money:

- Only GET is retried (429, 502, 503, 504, connection failures), with exponential backoff and
  jitter, honouring ``Retry-After``; all the waits of one call together stay under `max_wait`
  (30 s): a longer ``Retry-After`` ends the call at once with `RateLimitedError`/`ServerError`
  saying when to come back. The waits are `asyncio` sleeps, so cancelling the worker stops them.
  Before each wait the client calls `on_wait` (if set) with a `RetryWait`: how long and why, so
  a screen can show a countdown ("Service busy, retrying in 12 s…") and offer to cancel.
- Every attempt has an overall deadline (`deadline`, default the timeout): connecting, sending and
  reading the *whole* body must fit in it, so a server trickling a byte every few seconds (which
  never trips httpx's per-read timeout) ends as `RequestTimeoutError`. For a POST that is
  "outcome unknown" (``request_sent=True``), which the executor settles by reading back.
- A redirect (3xx) is not followed; it is a `RedirectError` naming where it pointed.
- A POST/PATCH/PUT is never retried once it may have reached the server. A failure to connect is
  reported with ``request_sent=False`` (nothing happened, safe to repeat); a read timeout, a
  dropped connection or a 5xx after sending means "outcome unknown" (``request_sent=True`` /
  ``outcome_unknown``), and the user has to look before charging again.
- A 401 fetches a new token once and replays the request (safe even for POST: a 401 means the
  server did not act).
- Every httpx exception, non-2xx answer, non-JSON body, too-deeply nested body (`RecursionError`)
  and unexpected shape becomes an `paytui.api.errors.ApiError`; nothing else leaves this module.
  In a list, one unreadable item does not sink the page: it is reported in `Page.unreadable`
  (position, id, why) and the other items are read.

The ``paytui.api`` logger gets method, path, status and duration at DEBUG; never headers, bodies,
query strings, tokens or card numbers.

Why one module of more than 800 lines: `PaymentClient` is the one place that speaks HTTP to the
service; every endpoint method shares the request pipeline (deadline, retry rules, error mapping)
defined here. Families of unknown shape, paging, captures and errors already live beside it
(`families.py`, `paging.py`, `captures.py`, `errors.py`).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import re
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self, TypeVar, cast
from urllib.parse import quote as url_quote
from urllib.parse import urlsplit

import httpx
import pydantic
from pydantic import SecretStr
from pydantic_core import PydanticSerializationError

from paytui.api.auth import (
    Authenticator,
    ClientCredentialsAuth,
    StaticTokenAuth,
    TokenAuthStyle,
)
from paytui.api.error_bodies import field_errors, reason_and_code, required_scopes, text_reason
from paytui.api.errors import (
    ApiError,
    AuthenticationError,
    ConflictError,
    FieldError,
    ForbiddenError,
    MalformedResponseError,
    NotFoundError,
    RateLimitedError,
    RedirectError,
    RequestTimeoutError,
    ServerError,
    TransportError,
    ValidationError,
    quote,
    redact_data,
)
from paytui.api.models import (
    Account,
    Charge,
    ChargeRequest,
    Distribution,
    Merchant,
    Page,
    PluginSession,
    Refund,
    RefundRequest,
    RequestModel,
    Resource,
    Token,
    TokenInfo,
    TokenRequest,
    TokenUpdate,
    UnreadableItem,
    row_id,
)
from paytui.api.money import loads_json, to_wire
from paytui.api.paging import Hints, Pager, PagingStyle, hints_of, more, row_key, unwrap
from paytui.api.parameters import CHARGE_FILTERS, REFUND_FILTERS, ParameterNames, on_the_wire
from paytui.api.queries import ChargeQuery, RefundQuery, plain_contradictions
from paytui.api.responses import unbind

if TYPE_CHECKING:
    # Not on the first page's path: the families, conversations and plugin shapes are
    # imported when one of their calls is first made (`_generic`, the methods below).
    from paytui.api.families import GenericObject
    from paytui.api.plugins import (
        AccountRequest,
        EnrollmentPluginSessionRequest,
        PaymentPluginSessionRequest,
    )

logger = logging.getLogger("paytui.api")

M = TypeVar("M", bound=pydantic.BaseModel)
R = TypeVar("R", bound=Resource)

#: Statuses after which a GET is tried again.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: Methods that are retried at all. Only reads: a repeated POST may charge a card twice.
RETRY_METHODS = frozenset({"GET"})
#: The header stating when this client gives up on a write (seconds since the epoch): a service
#: may then refuse to commit it later than that (docs/api-assumptions.md, "Deadlines").
DEADLINE_HEADER = "X-Request-Deadline"
USER_AGENT = "paytui/0.1"


@dataclass(frozen=True)
class RetryWait:
    """A wait the client is about to make before retrying a GET (see `PaymentClient.on_wait`)."""

    #: How long, in seconds (Retry-After up to the cap, or the backoff).
    seconds: float
    #: Why, in a few words for a person ("Service busy", "No answer from the service").
    reason: str
    #: The HTTP status that asked for it (429, 503 ...), None for a transport failure.
    status: int | None = None


def _wait_reason(status: int | None) -> str:
    if status is None:
        return "No answer from the service"
    return "Service busy" if status in (429, 503) else f"Service error ({status})"


#: Seconds a request may take when its caller names no time limit (a profile names none; the
#: command line and the app take this one): per read, and the whole attempt's deadline.
DEFAULT_TIMEOUT = 10.0


class PaymentClient:
    """The payment service's API (see docs/architecture.md for the contract of every method)."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | SecretStr | None = None,
        client_id: str | None = None,
        client_secret: str | SecretStr | None = None,
        scopes: Sequence[str] | None = None,
        token_auth: TokenAuthStyle = "auto",
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float | None = None,
        max_retries: int = 3,
        verify: bool | str = True,
        deadline: float | None = None,
        paging: PagingStyle = "offset",
        parameters: ParameterNames | None = None,
        refund_parameters: ParameterNames | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        #: Per list, the service's name for each filter whose name is not paytui's, or None for
        #: a filter not sent (applied here): the profile's `parameters` (`paytui.api.parameters`).
        self._names: dict[str, dict[str, str | None]] = {
            "/v2/charges": _names(parameters, CHARGE_FILTERS, "parameters"),
            "/v2/refunds": _names(refund_parameters, REFUND_FILTERS, "refund_parameters"),
        }
        #: Turns offsets into the service's own continuation (a next link, page numbers) and
        #: stops a list whose service ignores paging (`paytui.api.paging`).
        self._pager = Pager(self.base_url, paging)
        #: Per list, the parameters the spec does not show that its service said it does not
        #: know (a 400 / 422 naming `contact_name` as unknown...): left out from then on, the
        #: filters applied here (`_page`).
        self._refused: dict[str, set[str]] = {}
        timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self.timeout = timeout
        #: Overall limit of one attempt: connect + send + the whole body (httpx's `timeout` is
        #: per read, so a trickling server would never trip it).
        self.deadline = deadline if deadline is not None else timeout
        self.max_retries = max(0, max_retries)
        #: Backoff before retry n (0-based) is about `backoff_base * 2**n` seconds, jittered.
        self.backoff_base = 0.5
        #: No single wait is longer than this, whatever Retry-After says: the UI stays responsive.
        self.max_delay = 30.0
        #: All waits (backoff and Retry-After) of one call together stay under this.
        self.max_wait = 30.0
        #: Replaceable in tests so retries do not really sleep.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        #: Told of every retry wait before it starts (called in the caller's task, so a UI can
        #: tell which screen's request is waiting and cancel that one).
        self.on_wait: Callable[[RetryWait], None] | None = None
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            timeout=timeout,
            verify=_ssl_context(verify, self.base_url),
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            follow_redirects=False,
        )
        self._auth: Authenticator | None
        if token is not None:
            self._auth = StaticTokenAuth(token)
        elif client_id is not None:
            if client_secret is None:
                raise ValueError("client_id needs a client_secret")
            self._auth = ClientCredentialsAuth(
                self._http,
                client_id,
                client_secret,
                scopes=scopes,
                timeout=timeout,
                style=token_auth,
            )
        else:
            self._auth = None

    # ----------------------------------------------------------------------------------------
    # Life cycle and authentication
    # ----------------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._http.aclose()

    async def authenticate(self) -> TokenInfo:
        """Get a token now (client credentials) so a bad profile fails at start, not mid-task."""
        if self._auth is None:
            raise AuthenticationError("no credentials configured (token or client id/secret)")
        info = await self._auth.token()
        if info is None:  # pragma: no cover - both strategies always return a token
            raise AuthenticationError("no token available")
        return info

    @property
    def token_style(self) -> Literal["basic", "form"] | None:
        """How the client id and secret reached the token endpoint that accepted them (HTTP
        Basic or the form fields); None before a token, or with a static token."""
        if isinstance(self._auth, ClientCredentialsAuth):
            return self._auth.learned_style
        return None

    def refused_parameters(self, path: str) -> frozenset[str]:
        """The filters of the list at `path` its service refused as unknown this session (by
        paytui's name): left out since, and applied here."""
        return frozenset(self._refused.get(path, ()))

    async def read(self, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
        """One GET of `path` (under /v2) as the service answers it: the JSON body, nothing
        judged or unwrapped (`paytui profile probe` looks at the envelope itself)."""
        if not path.startswith("/v2/"):
            raise ValueError(f"not a path of the service's API: {path!r}")
        return await self._request("GET", path, params=params)

    @property
    def granted_scopes(self) -> frozenset[str] | None:
        """Scopes of the current client-credentials token; None before authentication or when a
        static token is used (its scopes are not known to the client)."""
        if isinstance(self._auth, ClientCredentialsAuth) and self._auth.current is not None:
            return self._auth.current.scopes
        return None

    # ----------------------------------------------------------------------------------------
    # Charges
    # ----------------------------------------------------------------------------------------

    async def search_charges_page(
        self,
        query: ChargeQuery | None = None,
        *,
        limit: int = 50,
        offset: int = 0,
        model: type[Charge] = Charge,
        offload: bool = False,
    ) -> Page[Charge]:
        """One page of a charge search, its filters proven on the rows (`_page`). `model`: the
        rows' reader, `Charge` or a lighter one (`ChargeRow`: an export's, a streamed search's).
        `offload`: the page's JSON, rows and proof worked out in a thread (`_page`): a reader of
        many pages on the loop (Today's queue) then never holds a frame for a page's parsing."""
        params = query.to_params() if query is not None else []
        if query is None:
            return await self._page(
                "/v2/charges", params, model, "charges", limit, offset, offload=offload
            )
        page = await self._page(
            "/v2/charges",
            params,
            model,
            "charges",
            limit,
            offset,
            query.verdicts,
            query.sort_ignored_by,
            offload=offload,
        )
        if query.refund_state is not None:
            page = await self._prove_refund_states(page, query.refund_state)
        return page

    async def _prove_refund_states(self, page: Page[Charge], wanted: str) -> Page[Charge]:
        """`refunded:` proven on the rows the row alone could not prove: their refunds are read
        (`charge_state.read_positions`, four at a time; a list that honoured the `charge_id`
        filter and ended). A row whose state is then `wanted` is proven; another state leaves
        it out (filtered here); one whose refunds could not be read whole stays unproven."""
        from paytui.charge_state import read_positions, refund_state

        open_rows = [c for c in page.items if "refund_state" in page.unproven.get(c.charge_id, ())]
        if not open_rows:
            return page
        positions = await read_positions(self, open_rows, at_once=4)
        kept: list[Charge] = []
        left_out = 0
        for charge in page.items:
            missing = page.unproven.get(charge.charge_id, ())
            if "refund_state" not in missing:
                kept.append(charge)
                continue
            state = refund_state(charge, positions.get(charge.charge_id))
            if state == "unknown":
                kept.append(charge)
                continue
            if state != wanted:
                left_out += 1
                del page.unproven[charge.charge_id]
                continue
            rest = tuple(name for name in missing if name != "refund_state")
            if rest:
                page.unproven[charge.charge_id] = rest
            else:
                del page.unproven[charge.charge_id]
            kept.append(charge)
        if left_out:
            page.items = kept
            page.filtered_out += left_out
            if "refund_state" not in page.ignored_filters:
                page.ignored_filters = (*page.ignored_filters, "refund_state")
        return page

    async def search_charges(
        self,
        query: ChargeQuery | None = None,
        *,
        page_size: int = 50,
        model: type[Charge] = Charge,
        offload: bool = False,
    ) -> AsyncIterator[Page[Charge]]:
        """Every page of a charge search, in order, stopping after the last one (its rows read
        by `model`, each page worked out in a thread with `offload`, as `search_charges_page`)."""
        offset = 0
        while True:
            page = await self.search_charges_page(
                query, limit=page_size, offset=offset, model=model, offload=offload
            )
            yield page
            # Not "no items": every row of a page can be filtered here, and more may match.
            if not page.has_more or page.next_offset <= offset:
                return
            offset = page.next_offset

    async def search_charges_as(
        self, model: type[M], query: ChargeQuery, *, page_size: int = 50, offload: bool = False
    ) -> AsyncIterator[Page[M]]:
        """Every page of a charge search with its rows read into `model`, a lighter `Resource`
        holding only the fields a caller needs (the pulse: amount, time, status, type): about
        a tenth of `Charge`'s parsing. The filters are proven on those rows as on `Charge`s, so
        `model` must carry every field the query's filters are judged by.

        `offload`: each page's JSON, rows and proof are worked out in a thread, the network
        kept on the caller's loop: a reader of thousands of rows (the dispute ratio's month)
        then never holds a frame for a page's parsing."""
        offset = 0
        while True:
            page = await self._page(
                "/v2/charges",
                query.to_params(),
                model,
                "charges",
                page_size,
                offset,
                query.verdicts,
                query.sort_ignored_by,
                offload=offload,
            )
            yield page
            if not page.has_more or page.next_offset <= offset:
                return
            offset = page.next_offset

    async def get_charge(
        self, charge_id: str, *, expand: Literal["distributions", "all"] | None = None
    ) -> Charge:
        params = [("expand", expand)] if expand else None
        body = await self._request("GET", _path("/v2/charges", charge_id), params=params)
        return _parse(Charge, body)

    async def create_charge(self, request: ChargeRequest) -> Charge:
        answered: list[int] = []
        body = await self._request("POST", "/v2/charges", json=_body(request), answered=answered)
        return _answer(_parse(Charge, body), answered)

    async def capture(
        self,
        charge_id: str,
        *,
        convenience_fee: Decimal | None = None,
        supplemental_fee: Decimal | None = None,
    ) -> Charge:
        """Capture an authorization; the result is a new charge with `original_charge_id` set."""
        payload: dict[str, Any] = {}
        for name, value in (
            ("convenience_fee", convenience_fee),
            ("supplemental_fee", supplemental_fee),
        ):
            if value is not None:
                payload[name] = _amount(value, name)
        path = _path("/v2/charges", charge_id, "capture")
        answered: list[int] = []
        body = await self._request("POST", path, json=payload, answered=answered)
        return _answer(_parse(Charge, body), answered)

    async def update_charge(
        self,
        charge_id: str,
        *,
        tags: list[str] | None = None,
        attributes: dict[str, list[str]] | None = None,
    ) -> Charge:
        """Replace tags and/or attributes (the ones given; the other is left alone)."""
        payload = _labels(tags, attributes)
        body = await self._request("PATCH", _path("/v2/charges", charge_id), json=payload)
        return _parse(Charge, body)

    async def distribute_charge(self, charge_id: str) -> Distribution:
        path = _path("/v2/charges", charge_id, "distribute")
        return _parse(Distribution, await self._request("POST", path, json={}))

    # ----------------------------------------------------------------------------------------
    # Refunds
    # ----------------------------------------------------------------------------------------

    async def create_refund(self, request: RefundRequest) -> Refund:
        answered: list[int] = []
        body = await self._request("POST", "/v2/refunds", json=_body(request), answered=answered)
        return _answer(_parse(Refund, body), answered)

    async def update_refund(
        self,
        refund_id: str,
        *,
        tags: list[str] | None = None,
        attributes: dict[str, list[str]] | None = None,
    ) -> Refund:
        """Replace a refund's tags and/or attributes, as `update_charge` does for a charge (the
        spec accepts both on refund update; PATCH is our assumption, docs/api-assumptions.md)."""
        payload = _labels(tags, attributes)
        body = await self._request("PATCH", _path("/v2/refunds", refund_id), json=payload)
        return _parse(Refund, body)

    async def get_refund(self, refund_id: str) -> Refund:
        return _parse(Refund, await self._request("GET", _path("/v2/refunds", refund_id)))

    async def search_refunds_page(
        self,
        query: RefundQuery | None = None,
        *,
        limit: int = 50,
        offset: int = 0,
        offload: bool = False,
    ) -> Page[Refund]:
        """One page of a refund search (`offload`: worked out in a thread, as a charge page)."""
        params = query.to_params() if query is not None else []
        verdicts = query.verdicts if query is not None else None
        return await self._page(
            "/v2/refunds", params, Refund, "refunds", limit, offset, verdicts, offload=offload
        )

    async def search_refunds(
        self, query: RefundQuery | None = None, *, page_size: int = 50, offload: bool = False
    ) -> AsyncIterator[Page[Refund]]:
        offset = 0
        while True:
            page = await self.search_refunds_page(
                query, limit=page_size, offset=offset, offload=offload
            )
            yield page
            # Not "no items": every row of a page can be filtered here, and more may match.
            if not page.has_more or page.next_offset <= offset:
                return
            offset = page.next_offset

    # ----------------------------------------------------------------------------------------
    # Tokens
    # ----------------------------------------------------------------------------------------

    async def create_token(self, request: TokenRequest) -> Token:
        return _parse(Token, await self._request("POST", "/v2/tokens", json=_body(request)))

    async def get_token(self, token_id: str) -> Token:
        return _parse(Token, await self._request("GET", _path("/v2/tokens", token_id)))

    async def update_token(self, token_id: str, request: TokenUpdate) -> Token:
        body = await self._request("PUT", _path("/v2/tokens", token_id), json=_body(request))
        return _parse(Token, body)

    async def list_tokens_page(
        self, *, account_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> Page[Token]:
        params = _filters(account_id=account_id)
        return await self._page("/v2/tokens", params, Token, "tokens", limit, offset)

    # ----------------------------------------------------------------------------------------
    # Accounts, merchants, distributions
    # ----------------------------------------------------------------------------------------

    async def get_account(self, account_id: str) -> Account:
        return _parse(Account, await self._request("GET", _path("/v2/accounts", account_id)))

    async def list_accounts_page(
        self,
        *,
        merchant_id: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[Account]:
        params = _filters(merchant_id=merchant_id, status=status)
        return await self._page("/v2/accounts", params, Account, "accounts", limit, offset)

    async def list_objects_page(
        self, family: str, *, limit: int = 50, offset: int = 0
    ) -> Page[GenericObject]:
        """A page of a family whose shape is not shown (merchants, customers, partners,
        devices: `paytui.api.families`), read generically: each object kept whole."""
        from paytui.api.families import FAMILIES

        found = FAMILIES[family]
        return await self._page(found.path, [], _generic(), family, limit, offset)

    async def get_object(self, family: str, object_id: str) -> GenericObject:
        """One object of such a family (`GET /v2/<family>/{id}`), kept whole."""
        from paytui.api.families import FAMILIES

        body = await self._request("GET", _path(FAMILIES[family].path, object_id))
        return _parse(_generic(), body)

    async def update_customer(
        self, customer_id: str, *, email: str | None = None, phone: str | None = None
    ) -> GenericObject:
        """PATCH /v2/customers/{id}: the contact given (email, phone), the rest kept."""
        payload = {k: v for k, v in (("email", email), ("phone", phone)) if v is not None}
        path = _path("/v2/customers", customer_id)
        return _parse(_generic(), await self._request("PATCH", path, json=payload))

    # ----------------------------------------------------------------------------------------
    # Conversations and messages (shapes not shown: `paytui.api.conversations`)
    # ----------------------------------------------------------------------------------------

    async def list_conversations_page(
        self,
        *,
        charge_id: str | None = None,
        customer_id: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[GenericObject]:
        """GET /v2/conversations, each filter proven on every row: a conversation counts as a
        charge's or a customer's only when it shows the link itself."""
        from paytui.api.conversations import conversation_verdicts

        params = _filters(charge_id=charge_id, customer_id=customer_id, status=status)
        return await self._page(
            "/v2/conversations",
            params,
            _generic(),
            "conversations",
            limit,
            offset,
            verdicts=lambda item: conversation_verdicts(params, item),
        )

    async def conversation_items_page(
        self, conversation_id: str, *, limit: int = 100, offset: int = 0
    ) -> Page[GenericObject]:
        """GET /v2/conversations/{id}/items: its messages and events (paytui's guess of the
        path; `paytui.api.conversations.read_thread` falls back on the messages)."""
        path = _path("/v2/conversations", conversation_id, "items")
        return await self._page(path, [], _generic(), "items", limit, offset)

    async def list_messages_page(
        self, *, conversation_id: str | None = None, limit: int = 100, offset: int = 0
    ) -> Page[GenericObject]:
        params = _filters(conversation_id=conversation_id)
        return await self._page("/v2/messages", params, _generic(), "messages", limit, offset)

    async def close_conversation(self, conversation_id: str) -> GenericObject:
        """POST /v2/conversations/{id}/close (the spec's scope table names `POST /close`)."""
        path = _path("/v2/conversations", conversation_id, "close")
        return _parse(_generic(), await self._request("POST", path, json={}))

    async def send_message(
        self, conversation_id: str, body: str, *, attributes: dict[str, list[str]] | None = None
    ) -> GenericObject:
        """POST /v2/messages: `body` in the conversation, sent exactly as given."""
        if not conversation_id:
            raise ValidationError("a conversation id is required", status=None)
        payload: dict[str, Any] = {"conversation_id": conversation_id, "body": body}
        if attributes:
            payload["attributes"] = attributes
        return _parse(_generic(), await self._request("POST", "/v2/messages", json=payload))

    async def create_account(self, request: AccountRequest) -> Account:
        """POST /v2/accounts: a new account of a merchant (it starts boarding)."""
        return _parse(Account, await self._request("POST", "/v2/accounts", json=_body(request)))

    async def list_merchants_page(self, *, limit: int = 50, offset: int = 0) -> Page[Merchant]:
        return await self._page("/v2/merchants", [], Merchant, "merchants", limit, offset)

    async def list_distributions_page(
        self,
        *,
        account_id: str | None = None,
        merchant_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[Distribution]:
        params = _filters(account_id=account_id, merchant_id=merchant_id)
        return await self._page(
            "/v2/distributions", params, Distribution, "distributions", limit, offset
        )

    async def get_distribution(self, distribution_id: str) -> Distribution:
        body = await self._request("GET", _path("/v2/distributions", distribution_id))
        return _parse(Distribution, body)

    # ----------------------------------------------------------------------------------------
    # Plugins
    # ----------------------------------------------------------------------------------------

    async def create_payment_plugin_session(
        self, request: PaymentPluginSessionRequest
    ) -> PluginSession:
        body = await self._request("POST", "/v2/plugins/payment", json=_body(request))
        return _parse(PluginSession, body)

    async def create_enrollment_plugin_session(
        self, request: EnrollmentPluginSessionRequest
    ) -> PluginSession:
        body = await self._request("POST", "/v2/plugins/enrollment", json=_body(request))
        return _parse(PluginSession, body)

    async def list_plugin_sessions_page(
        self, *, limit: int = 50, offset: int = 0
    ) -> Page[PluginSession]:
        """GET /v2/plugins (its shape is not shown: read like every list, tolerantly)."""
        return await self._page("/v2/plugins", [], PluginSession, "sessions", limit, offset)

    async def list_plugin_sessions(
        self, *, page_size: int = 50
    ) -> AsyncIterator[Page[PluginSession]]:
        """Every page of the plugin sessions, in order (the executor's read-back scans them)."""
        offset = 0
        while True:
            page = await self.list_plugin_sessions_page(limit=page_size, offset=offset)
            yield page
            if not page.has_more or not page.items:
                return
            offset = page.next_offset

    async def get_plugin_session(self, session_id: str) -> PluginSession:
        """GET /v2/plugins/{session_id} (the path paytui assumes: docs/api-assumptions.md)."""
        return _parse(PluginSession, await self._request("GET", _path("/v2/plugins", session_id)))

    async def delete_plugin_session(self, session_id: str) -> None:
        """DELETE /v2/plugins/{session_id}: the session ends (the spec does not show the path)."""
        await self._request("DELETE", _path("/v2/plugins", session_id))

    # ----------------------------------------------------------------------------------------
    # The request machinery
    # ----------------------------------------------------------------------------------------

    async def _page(
        self,
        path: str,
        params: list[tuple[str, str]],
        model: type[M],
        plural: str,
        limit: int,
        offset: int,
        verdicts: Callable[[Any], Mapping[str, bool | None]] | None = None,
        sort_ignored: Callable[[Sequence[Any]], bool] | None = None,
        *,
        offload: bool = False,
    ) -> Page[M]:
        """One page, its filters proven or applied here: `verdicts(item)` says, for each filter
        asked, whether the item matches (True), does not (False: the service ignored it; the
        item is left out) or cannot tell (None: kept, listed in `Page.unproven`). Without
        `verdicts` every parameter is a plain equality on the item's field, and only a field
        that contradicts it counts. `offload`: the body's JSON, the rows and their proof in a
        thread (`search_charges_as`); the paging history stays on the loop."""
        refused = self._refused.setdefault(path, set())
        names = self._names.get(path, {})
        while True:
            # Each filter under the service's name; one the profile says not to send, or the
            # service refused, is not sent: it is applied here (`_judged`).
            chosen, unsent = on_the_wire(params, names, refused)
            sent = [(wire, value) for _, wire, value in chosen]
            where, query = self._pager.request(path, sent, limit, offset)
            try:
                body = await self._request("GET", where, params=query, decode=not offload)
                break
            except ValidationError as err:
                # The service says it does not know a parameter the spec does not show: ask
                # again without it and apply that filter here, on every row, as for a service
                # that ignores it. Any other refusal (a malformed value) is the user's to see.
                named = _unknown_parameters(str(err), chosen)
                if not named:
                    raise
                logger.info("the service refused %s on %s: applied here", ", ".join(named), path)
                refused.update(named)
        if offload:
            body, page = await asyncio.to_thread(_decoded_page, body, model, plural, limit, offset)
        else:
            page = _parse_page(body, model, plural, limit, offset)
        page = self._settled(page, body, plural, path, sent, limit, offset)
        if params or verdicts is not None:  # paytui's own filters send no parameter
            judge = verdicts or (lambda item: _plain_verdicts(params, item))
            order = [name for name, _ in params]
            not_sent = [name for name in unsent if name != "sort"]
            track = verdicts is not None
            if offload:
                page = await asyncio.to_thread(
                    _judged, page, judge, order, not_sent, track_unproven=track
                )
            else:
                page = _judged(page, judge, order, not_sent, track_unproven=track)
        if "sort" in unsent or (sort_ignored is not None and sort_ignored(page.items)):
            logger.info("the service ignored the sort")
            page.sort_ignored = True
        return page

    def _settled(
        self,
        page: Page[M],
        body: Any,
        plural: str,
        path: str,
        params: Sequence[tuple[str, str]],
        limit: int,
        offset: int,
    ) -> Page[M]:
        """Paging that ends (`paytui.api.paging.Pager`): how to continue from this page is
        remembered, and a page that repeats the one before it ends the list with a note."""
        ids = [row_key(item, plural) for item in page.items]
        ids += [item.id or f"#{item.position}" for item in page.unreadable]
        found = unwrap(body, plural)
        hints = hints_of(found[1]) if found is not None else Hints()
        settled = self._pager.settle(path, params, limit, offset, ids, hints, page.has_more)
        page.has_more = settled.has_more
        if settled.repeated:
            page.items, page.unreadable = [], []
        if settled.note is not None:
            logger.info("paging stopped: %s", settled.note)
            page.paging_note = settled.note
        return page

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Sequence[tuple[str, str]] | None = None,
        json: Any = None,
        answered: list[int] | None = None,
        decode: bool = True,
    ) -> Any:
        """Send one call (with GET retries and one 401 refresh); the parsed JSON body or None.
        `answered` receives the HTTP status of the answer (a money write's 202 means "accepted,
        not done"). `decode=False`: the 2xx `httpx.Response` itself, for `_json_body` later
        (in a thread: `_decoded_page`)."""
        retryable = method in RETRY_METHODS
        attempt = 0
        refreshed = False
        waited = 0.0
        while True:
            token = await self._token(method, path)
            headers = (
                {"Authorization": f"Bearer {token.access_token.get_secret_value()}"}
                if (token is not None)
                else {}
            )
            if not retryable and self.deadline is not None:
                # When this client gives up on the write: "not applied" is proven by a read-back
                # a margin after it, so a service may refuse to commit later (the sandbox does;
                # docs/api-assumptions.md). A service that ignores it changes nothing.
                headers[DEADLINE_HEADER] = f"{time.time() + self.deadline:.3f}"
            started = time.perf_counter()
            try:
                async with asyncio.timeout(self.deadline):
                    response = await self._http.request(
                        method,
                        path,
                        params=list(params) if params else None,
                        json=json,
                        headers=headers,
                        timeout=self.timeout,
                    )
            except Exception as exc:  # every transport failure, mapped below
                error = _transport_error(exc, method, path, self.deadline)
                logger.debug(
                    "%s %s -> %s (%.1f ms)", method, path, type(exc).__name__, _ms(started)
                )
                delay = self._backoff(attempt)
                if retryable and attempt < self.max_retries and waited + delay <= self.max_wait:
                    await self._wait(delay, None)
                    waited += delay
                    attempt += 1
                    continue
                raise error from exc
            logger.debug("%s %s -> %s (%.1f ms)", method, path, response.status_code, _ms(started))
            unbind(response)

            if response.status_code == 401 and self._auth is not None and not refreshed:
                refreshed = True
                if await self._auth.invalidate(token):
                    continue
            if retryable and response.status_code in RETRY_STATUSES and attempt < self.max_retries:
                asked = _retry_after(response)
                delay = min(asked, self.max_delay) if asked is not None else self._backoff(attempt)
                # A wait past the call's budget is not worth it: say when to come back instead.
                if waited + delay <= self.max_wait:
                    await self._wait(delay, response.status_code)
                    waited += delay
                    attempt += 1
                    continue
            if 300 <= response.status_code < 400:
                raise _redirect_error(response, method, path)
            if response.status_code >= 400:
                raise _http_error(response, method)
            if answered is not None:
                answered.append(response.status_code)
            return _json_body(response) if decode else response

    async def _token(self, method: str, path: str) -> Any:
        """The bearer token for the next attempt, fetched under the same overall deadline."""
        if self._auth is None:
            return None
        try:
            async with asyncio.timeout(self.deadline):
                return await self._auth.token()
        except TimeoutError:
            raise RequestTimeoutError(
                f"{method} {path}: no token within {self.deadline:g} s", request_sent=False
            ) from None

    async def _wait(self, delay: float, status: int | None) -> None:
        """Say that a retry wait starts (`on_wait`), then wait."""
        if self.on_wait is not None:
            self.on_wait(RetryWait(delay, _wait_reason(status), status))
        await self.sleep(delay)

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter (half fixed, half random) so clients do not stampede."""
        ceiling = min(self.max_delay, self.backoff_base * 2.0**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


# --------------------------------------------------------------------------------------------
# Helpers (module level: pure functions are easy to test)
# --------------------------------------------------------------------------------------------


def _ssl_context(verify: bool | str, base_url: str) -> bool | ssl.SSLContext:
    """A CA bundle path becomes an SSL context (httpx no longer takes a path directly).

    A plain-HTTP service (the sandbox on loopback: `config.urls` allows http only there) needs
    no certificates, and loading the system's (what ``verify=True`` does in httpx) is about a
    tenth of a script command's CPU. Its context trusts none: verification stays on
    (`PROTOCOL_TLS_CLIENT` checks the host name and requires a certificate), so anything that
    ever tried TLS from this client fails closed instead of trusting."""
    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    if verify is True and urlsplit(base_url).scheme == "http":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return verify


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _path(collection: str, resource_id: str, action: str | None = None) -> str:
    """A resource path with the id escaped: an id typed by a user must not walk the URL tree."""
    if not resource_id:
        raise ValidationError("an id is required", status=None)
    path = f"{collection}/{url_quote(resource_id, safe='')}"
    return f"{path}/{action}" if action else path


def _filters(**values: str | None) -> list[tuple[str, str]]:
    return [(name, value) for name, value in values.items() if value is not None]


def _labels(tags: list[str] | None, attributes: dict[str, list[str]] | None) -> dict[str, Any]:
    """The body of a tag / attribute edit: only what is given (the other is left alone)."""
    payload: dict[str, Any] = {}
    if tags is not None:
        payload["tags"] = list(tags)
    if attributes is not None:
        payload["attributes"] = {key: list(values) for key, values in attributes.items()}
    return payload


def _amount(value: Decimal, name: str) -> int | float:
    try:
        return to_wire(value)
    except (ValueError, ArithmeticError) as exc:
        raise ValidationError(
            f"{name} is not a valid amount", status=None, field_errors=[FieldError(name, str(exc))]
        ) from None


def _body(request: RequestModel) -> dict[str, Any]:
    """The wire body of a request model (the only place secrets are revealed)."""
    try:
        return request.to_body()
    except (ValueError, PydanticSerializationError) as exc:
        raise ValidationError(
            f"cannot send {type(request).__name__}: {quote(str(exc))}", status=None
        ) from None


def _transport_error(
    exc: Exception, method: str, path: str, deadline: float | None = None
) -> TransportError:
    """Map an exception raised while sending to the hierarchy, deciding if it reached the server.

    Connect failures and pool timeouts happen before a byte is sent. Everything else (read and
    write timeouts, dropped connections, protocol errors, an in-process app crashing) happens
    while or after the request is sent, so for a POST its outcome is unknown.
    """
    where = f"{method} {path}"
    if isinstance(exc, TimeoutError):  # the overall deadline (asyncio.timeout)
        limit = f" within {deadline:g} s" if deadline is not None else ""
        return RequestTimeoutError(f"{where}: no complete answer{limit}", request_sent=True)
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return RequestTimeoutError(f"{where}: could not connect in time", request_sent=False)
    if isinstance(exc, httpx.TimeoutException):
        return RequestTimeoutError(f"{where}: no answer in time", request_sent=True)
    if isinstance(exc, httpx.ConnectError | httpx.UnsupportedProtocol):
        return TransportError(f"{where}: cannot connect ({_describe(exc)})", request_sent=False)
    if isinstance(exc, httpx.HTTPError | httpx.InvalidURL):
        return TransportError(
            f"{where}: connection failed ({type(exc).__name__})", request_sent=True
        )
    return TransportError(f"{where}: request failed ({type(exc).__name__})", request_sent=True)


def _describe(exc: Exception) -> str:
    text = str(exc)
    return quote(text, 80) if text else type(exc).__name__


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date), None when absent/odd."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _json_body(response: httpx.Response) -> Any:
    """The body of a 2xx answer, numbers exact; non-JSON is a `MalformedResponseError`."""
    if response.status_code == 204 or not response.content:
        return None
    try:
        return loads_json(response.content)
    except RecursionError:
        raise MalformedResponseError(
            "the answer is nested too deeply to read", response.status_code
        ) from None
    except ValueError:  # not JSON, not UTF-8, an integer of thousands of digits...
        raise MalformedResponseError(
            f"expected JSON, got: {quote(_text_of(response))}", response.status_code
        ) from None


def _text_of(response: httpx.Response) -> str:
    """The body as text for a message, whatever its bytes."""
    return response.content[:2000].decode("utf-8", errors="replace")


def _redirect_error(response: httpx.Response, method: str, path: str) -> RedirectError:
    """A 3xx: paytui does not follow redirects (a token must not be sent to another host)."""
    location = quote(response.headers.get("Location", ""), 120) or "nowhere"
    return RedirectError(
        f"{method} {path} was redirected to {location}; check the profile's base URL",
        response.status_code,
    )


def _generic() -> type[GenericObject]:
    """The model of an object whose shape is not shown, imported on first use."""
    from paytui.api.families import GenericObject

    return GenericObject


def _answer(model: R, answered: list[int]) -> R:
    """`model` with the HTTP status of the write that answered it."""
    model._http_status = answered[-1] if answered else None
    return model


def _parse(model: type[M], body: Any) -> M:
    """Validate a body against a model; a wrong shape is a `MalformedResponseError`."""
    if not isinstance(body, Mapping):
        raise MalformedResponseError(
            f"expected a {model.__name__} object, got {type(body).__name__}"
        )
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        raise MalformedResponseError(_shape_message(model.__name__, exc), body=None) from None
    except (RecursionError, ValueError, TypeError, ArithmeticError) as exc:
        raise MalformedResponseError(
            f"unexpected {model.__name__} shape ({type(exc).__name__})", body=None
        ) from None


def _shape_message(name: str, exc: pydantic.ValidationError) -> str:
    """Where the shape is wrong, without quoting the values (they may be card data)."""
    problems = [
        f"{'.'.join(str(part) for part in err['loc']) or '(root)'}: {err['msg']}"
        for err in exc.errors(include_input=False, include_url=False)[:3]
    ]
    return f"unexpected {name} shape: " + "; ".join(problems)


def read_charges_page(text: str | bytes, *, limit: int, offset: int) -> Page[Charge]:
    """A body of `GET /v2/charges` for an unfiltered search, read as `search_charges_page` reads
    it (the same JSON reading, envelope, models and paging hints; no filter to judge, no paging
    history). For a body that did not come through a client: the first page read from a
    starting sandbox's own database (`paytui.ui.first_page`)."""
    return _parse_page(loads_json(text), Charge, "charges", limit, offset)


def _decoded_page(
    response: httpx.Response, model: type[M], plural: str, limit: int, offset: int
) -> tuple[Any, Page[M]]:
    """A list's answer read as `_page` reads it: its JSON body and the page of its rows."""
    body = _json_body(response)
    return body, _parse_page(body, model, plural, limit, offset)


def _parse_page(body: Any, model: type[M], plural: str, limit: int, offset: int) -> Page[M]:
    """A page from a bare array or an envelope (`paytui.api.paging.unwrap`: data, items, results,
    content, <plural>, nested ``data.<plural>`` with ``meta``), with its paging hints.

    `has_more` follows `paytui.api.paging.more`: ``has_more``, a ``next`` link, a count
    (``total``, ``count``, ``total_count``), the page size the service says it used; with no hint
    at all a non-empty page means "maybe more" (the next read confirms: an empty page ends).
    """
    found = unwrap(body, plural)
    if found is None:
        shape = "an object" if isinstance(body, Mapping) else type(body).__name__
        raise MalformedResponseError(f"expected a list of {plural}, got {shape}")
    raw_items, meta = found
    items: list[M] = []
    unreadable: list[UnreadableItem] = []
    for position, raw in enumerate(raw_items):
        try:
            items.append(_parse(model, raw))
        except MalformedResponseError as exc:
            unreadable.append(
                UnreadableItem(
                    position=position,
                    id=_item_id(raw, plural),
                    reason=exc.message.removeprefix(f"unexpected {model.__name__} shape: "),
                )
            )
    hints = hints_of(meta)
    page_limit = hints.size if hints.size is not None else limit
    page_offset = _int(meta.get("offset"), offset)
    has_more = more(hints, len(raw_items), limit, page_offset)
    # Items are parsed already: the page only carries them (the static type says what they are).
    page_type: Any = Page
    return cast(
        "Page[M]",
        page_type.model_construct(
            items=items,
            total=hints.total,
            limit=page_limit,
            offset=page_offset,
            has_more=has_more,
            unreadable=unreadable,
        ),
    )


#: The filters the spec shows for lists ("status and tag/attribute searching"); every other
#: query parameter is paytui's guess (docs/api-assumptions.md).
SPEC_FILTERS = frozenset({"status", "tag", "attribute"})


_UNKNOWN_WORDS = re.compile(
    r"unknown|unrecogni[sz]ed|unsupported|unexpected|not (?:allowed|permitted|supported)|invalid"
    r" (?:query )?param",
    re.IGNORECASE,
)


def _unknown_parameters(message: str, sent: Sequence[tuple[str, str, str]]) -> set[str]:
    """The filters we sent, as (paytui's name, the service's name, value), that the spec does
    not show and that a refusal names as unknown (its text says "unknown", "unsupported"...
    and names them as sent), by paytui's name. Empty: some other refusal."""
    if not _UNKNOWN_WORDS.search(message):
        return set()
    return {
        name
        for name, wire, _ in sent
        if name not in SPEC_FILTERS
        and re.search(rf"(?<![\w.-]){re.escape(wire)}(?![\w-])", message)
    }


def _names(given: ParameterNames | None, known: Sequence[str], what: str) -> dict[str, str | None]:
    """A list's filter names, checked: every key a filter of that list."""
    names = dict(given or {})
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(f"{what}: not a filter of this list: {', '.join(unknown)}")
    return names


def _plain_verdicts(params: Sequence[tuple[str, str]], item: Any) -> dict[str, bool | None]:
    """Equality filters an item contradicts (False); a missing field is not judged."""
    return {name: False for name in plain_contradictions(params, item)}


def _judged(
    page: Page[M],
    verdicts: Callable[[Any], Mapping[str, bool | None]],
    order: Sequence[str],
    not_sent: Sequence[str] = (),
    *,
    track_unproven: bool,
) -> Page[M]:
    """The page with the rows a filter shows do not match left out (the filter applied here,
    named in `ignored_filters`) and, with `track_unproven`, the rows that cannot show they match
    listed by id. A filter `not_sent` is applied here whatever the rows show, and named so.
    Logged at INFO by filter name only: a filter value may be a customer's name."""
    kept: list[M] = []
    ignored: set[str] = set(not_sent)
    unproven: dict[str, tuple[str, ...]] = {}
    for item in page.items:
        judged = verdicts(item)
        failed = [name for name, verdict in judged.items() if verdict is False]
        if failed:
            ignored.update(failed)
            continue
        kept.append(item)
        missing = tuple(name for name, verdict in judged.items() if verdict is None)
        if track_unproven and missing:
            unproven[row_id(item)] = missing
    if ignored:
        ordered = [name for name in dict.fromkeys(order) if name in ignored]
        names = tuple(dict.fromkeys([*page.ignored_filters, *ordered, *sorted(ignored)]))
        logger.info("the service ignored filter(s), applied here: %s", ", ".join(names))
        page.ignored_filters = names
        page.filtered_out += len(page.items) - len(kept)
        page.items = kept
    if unproven:
        page.unproven = {**page.unproven, **unproven}
    return page


def _item_id(raw: Any, plural: str) -> str | None:
    """The id of an unreadable list item (``charge_id`` for charges...), when it has one."""
    if not isinstance(raw, Mapping):
        return None
    for key in (f"{plural.removesuffix('s')}_id", "id"):  # whichever of the two is readable
        value = raw.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return quote(str(value), 60)
    return None


def _int(value: Any, default: int | None) -> Any:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


# --------------------------------------------------------------------------------------------
# Error bodies
# --------------------------------------------------------------------------------------------


def _http_error(response: httpx.Response, method: str) -> ApiError:
    """A non-2xx answer as the matching exception, reading the error body tolerantly."""
    try:
        return _http_error_of(response, method)
    except RecursionError:  # an error body nested too deeply to read: the status still says
        return _http_error_of(
            httpx.Response(response.status_code, headers=response.headers), method
        )


def _http_error_of(response: httpx.Response, method: str) -> ApiError:
    status = response.status_code
    try:
        body: Any = loads_json(response.content) if response.content else None
    except (ValueError, RecursionError):
        body = None
    message, code = reason_and_code(body)
    if message is None and response.content and body is None:
        message = text_reason(response.content, response.headers.get("Content-Type", ""))
    if message is None:
        message = "no reason given"
    kept = redact_data(body) if body is not None else quote(_text_of(response))
    if status == 401:
        return AuthenticationError(message, status, code, kept)
    if status == 403:
        return ForbiddenError(message, status, code, kept, required_scopes=required_scopes(body))
    if status == 404:
        return NotFoundError(message, status, code, kept)
    if status == 409:
        return ConflictError(message, status, code, kept)
    if status in (400, 422):
        return ValidationError(message, status, code, kept, field_errors=field_errors(body))
    if status == 429:
        return RateLimitedError(message, status, code, kept, retry_after=_retry_after(response))
    if status >= 500:
        return ServerError(message, status, code, kept, outcome_unknown=method not in RETRY_METHODS)
    return ApiError(message, status, code, kept)


__all__ = ["PaymentClient", "RetryWait"]
