"""Every PaymentClient operation against the real sandbox, in-process and over a loopback socket.

`api_client` runs each test twice (ASGI transport and uvicorn on 127.0.0.1); the tests that only
make sense on one transport say so.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.errors import (
    AuthenticationError,
    ConflictError,
    ForbiddenError,
    MalformedResponseError,
    NotFoundError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    TransportError,
    ValidationError,
)
from paytui.api.models import (
    BankAccountPaymentMethod,
    BankAccountPaymentMethodRequest,
    CardPaymentMethod,
    CardPaymentMethodRequest,
    ChargeRequest,
    Contact,
    RefundRequest,
    TokenCreatePaymentMethodRequest,
    TokenPaymentMethodRequest,
    TokenRequest,
    TokenUpdate,
    TokenUpdatePaymentMethod,
)
from paytui.api.plugins import EnrollmentPluginSessionRequest, PaymentPluginSessionRequest
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.sandbox.client_watch import GIVE_UP_HEADER
from paytui.sandbox.faults import Faults
from tests.fixtures_api import DEMO_ID, DEMO_SECRET, SANDBOX_URL

VISA = "4111111111111111"
DECLINED = "4000000000000002"
EXPIRY = "2035-12"
ADA = Contact(first_name="Ada", last_name="Lovelace")


async def approved_account(client: PaymentClient) -> str:
    page = await client.list_accounts_page(status="approved", limit=5)
    assert page.items, "the seed has approved accounts"
    assert all(account.status == "approved" for account in page.items)
    return page.items[0].account_id


def card(number: str = VISA) -> CardPaymentMethodRequest:
    return CardPaymentMethodRequest(card_number=number, expiration_date=EXPIRY, contact=ADA)


async def sale(client: PaymentClient, account_id: str, amount: str = "25.10") -> str:
    charge = await client.create_charge(
        ChargeRequest(account_id=account_id, total_amount=Decimal(amount), payment_method=card())
    )
    return charge.charge_id


# -- the "done when" flow -------------------------------------------------------------------


async def test_done_when_flow(api_client: PaymentClient) -> None:
    """Token, card sale, authorize + capture, partial refund, search status chargeback."""
    info = await api_client.authenticate()
    assert "urn:v2:charges:all" in info.scopes
    assert api_client.granted_scopes == info.scopes
    account_id = await approved_account(api_client)

    token = await api_client.create_token(
        TokenRequest(
            account_id=account_id,
            payment_method=TokenCreatePaymentMethodRequest(
                card_number=VISA, expiration_date=EXPIRY, contact=ADA
            ),
        )
    )
    assert token.token_id.startswith("ct_")
    assert token.reason == "on_file"
    assert token.last4 == "1111"
    assert token.processor_messages is not None

    sold = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("0.1") + Decimal("0.2"),
            payment_method=card(),
            tags=["done-when"],
        )
    )
    assert (sold.status, sold.result_code) == ("success", "Approved")
    assert sold.result_text == "Sandbox transaction success"
    assert sold.total_amount == Decimal("0.3")
    assert isinstance(sold.payment_method, CardPaymentMethod)
    assert sold.payment_method.card_number == "XXXXXXXXXXXX1111"
    assert sold.payment_method.type == "visa"
    assert sold.authorization_code
    assert sold.processor_messages is not None
    assert sold.processor_messages.avs_response == "passed"
    assert sold.contact_name == "Ada Lovelace"
    assert sold.charge_timestamp is not None and sold.charge_timestamp.tzinfo is not None

    by_token = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("12.00"),
            payment_method=TokenPaymentMethodRequest(token_id=token.token_id),
        )
    )
    assert by_token.status == "success"
    assert by_token.token_id == token.token_id

    auth = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("40.00"),
            payment_method=card(),
            charge_type="authorization",
        )
    )
    assert auth.result_code == "Authorized"
    assert auth.is_open_authorization
    captured = await api_client.capture(auth.charge_id)
    assert captured.original_charge_id == auth.charge_id
    assert captured.charge_id != auth.charge_id
    assert captured.result_code == "Approved"
    assert captured.total_amount == Decimal("40.00")
    reread = await api_client.get_charge(auth.charge_id)
    assert not reread.is_open_authorization

    refund = await api_client.create_refund(
        RefundRequest(charge_id=captured.charge_id, total_amount=Decimal("15.55"), reason="partial")
    )
    assert refund.total_amount == Decimal("15.55")
    assert refund.charge_id == captured.charge_id
    assert (await api_client.get_refund(refund.refund_id)).refund_id == refund.refund_id
    assert not (await api_client.get_charge(captured.charge_id)).reversal_flag

    chargebacks = await api_client.search_charges_page(ChargeQuery(status="chargeback"), limit=10)
    assert chargebacks.items
    assert chargebacks.total is not None and chargebacks.total >= len(chargebacks.items)
    for charge in chargebacks.items:
        assert charge.status == "chargeback"
        assert charge.chargebacks is not None
        assert charge.chargebacks.items


# -- charges --------------------------------------------------------------------------------


async def test_bank_account_sale(api_client: PaymentClient) -> None:
    account_id = await approved_account(api_client)
    charge = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("99.99"),
            payment_method=BankAccountPaymentMethodRequest(
                routing_number="021000021", account_number="111111111111", contact=ADA
            ),
        )
    )
    assert charge.result_code == "ProcessorPendingACHSale"
    assert charge.authorization_code is None
    assert isinstance(charge.payment_method, BankAccountPaymentMethod)
    assert charge.payment_method.account_number == "1111"
    assert charge.method == "bank_account"


async def test_declined_card_is_an_answer_not_an_error(api_client: PaymentClient) -> None:
    account_id = await approved_account(api_client)
    charge = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id, total_amount=Decimal("5"), payment_method=card(DECLINED)
        )
    )
    assert (charge.status, charge.result_code) == ("declined", "Declined")


async def test_update_charge_tags_and_attributes(api_client: PaymentClient) -> None:
    charge_id = await sale(api_client, await approved_account(api_client))
    updated = await api_client.update_charge(charge_id, tags=["a", "b"])
    assert updated.tags == ["a", "b"]
    updated = await api_client.update_charge(charge_id, attributes={"order": ["X-1"]})
    assert updated.attributes == {"order": ["X-1"]}
    assert updated.tags == ["a", "b"]  # left alone
    found = await api_client.search_charges_page(ChargeQuery(tags=("a",), charge_id=charge_id[:8]))
    assert [c.charge_id for c in found.items] == [charge_id]


async def test_distribute_and_expand_distributions(api_client: PaymentClient) -> None:
    charge_id = await sale(api_client, await approved_account(api_client))
    plain = await api_client.get_charge(charge_id)
    assert plain.distributions is None
    distribution = await api_client.distribute_charge(charge_id)
    assert distribution.distribution_id
    expanded = await api_client.get_charge(charge_id, expand="distributions")
    assert expanded.distributions is not None
    assert distribution.distribution_id in [d.distribution_id for d in expanded.distributions]
    items = [item for d in expanded.distributions for item in (d.items or [])]
    assert items and all(item.charge_id == charge_id for item in items)
    full = await api_client.get_distribution(distribution.distribution_id)
    assert full.items is not None
    assert full.total_amounts is not None and full.total_amounts.chargebacks is not None


async def test_search_charges_iterates_every_page(api_client: PaymentClient) -> None:
    query = ChargeQuery(status="chargeback")
    first = await api_client.search_charges_page(query, limit=500)
    assert first.total is not None
    seen: list[str] = []
    pages = 0
    async for page in api_client.search_charges(query, page_size=7):
        pages += 1
        seen.extend(charge.charge_id for charge in page.items)
    assert len(seen) == first.total == len(set(seen))
    assert pages == -(-first.total // 7)


async def test_open_authorizations_search(api_client: PaymentClient) -> None:
    page = await api_client.search_charges_page(
        ChargeQuery(charge_type="authorization", captured=False), limit=20
    )
    assert page.items
    assert all(charge.is_open_authorization for charge in page.items)


# -- refunds --------------------------------------------------------------------------------


async def test_refunds_search_and_full_refund(api_client: PaymentClient) -> None:
    charge_id = await sale(api_client, await approved_account(api_client), "20.00")
    first = await api_client.create_refund(
        RefundRequest(charge_id=charge_id, total_amount=Decimal("5.00"))
    )
    rest = await api_client.create_refund(RefundRequest(charge_id=charge_id))
    assert rest.total_amount == Decimal("15.00")
    assert (await api_client.get_charge(charge_id)).reversal_flag is True
    page = await api_client.search_refunds_page(RefundQuery(charge_id=charge_id))
    assert {r.refund_id for r in page.items} == {first.refund_id, rest.refund_id}
    every = [r async for p in api_client.search_refunds(page_size=50) for r in p.items]
    assert page.items[0].refund_id in {r.refund_id for r in every}
    with pytest.raises(ConflictError):
        await api_client.create_refund(RefundRequest(charge_id=charge_id))


async def test_refund_above_what_is_left_is_a_field_error(api_client: PaymentClient) -> None:
    charge_id = await sale(api_client, await approved_account(api_client), "10.00")
    with pytest.raises(ValidationError) as info:
        await api_client.create_refund(
            RefundRequest(charge_id=charge_id, total_amount=Decimal("10.01"))
        )
    assert info.value.status == 422
    assert [f.field for f in info.value.field_errors] == ["total_amount"]


# -- tokens, accounts, merchants, distributions, plugins --------------------------------------


async def test_tokens(api_client: PaymentClient) -> None:
    page = await api_client.list_tokens_page(limit=3)
    assert len(page.items) == 3 and page.has_more
    token = page.items[0]
    again = await api_client.get_token(token.token_id)
    assert again.token_id == token.token_id
    expires = datetime(2034, 5, 6, 7, 8, 9, tzinfo=UTC)
    updated = await api_client.update_token(
        token.token_id,
        TokenUpdate(
            payment_method=TokenUpdatePaymentMethod(expiration_date="2034-04"),
            token_expiration_date=expires,
        ),
    )
    assert updated.token_expiration_date == expires
    assert isinstance(updated.payment_method, CardPaymentMethod)
    assert updated.payment_method.expiration_date == "2034-04"
    mine = await api_client.list_tokens_page(account_id=token.account_id, limit=500)
    assert all(t.account_id == token.account_id for t in mine.items)


async def test_accounts_merchants_distributions(api_client: PaymentClient) -> None:
    accounts = await api_client.list_accounts_page(limit=500)
    assert accounts.total == len(accounts.items) > 0
    account = await api_client.get_account(accounts.items[0].account_id)
    assert account.account_id.startswith("pa_")
    assert account.status is not None
    by_merchant = await api_client.list_accounts_page(merchant_id=account.merchant_id)
    assert all(a.merchant_id == account.merchant_id for a in by_merchant.items)
    merchants = await api_client.list_merchants_page(limit=2)
    assert merchants.items and merchants.items[0].merchant_id.startswith("mt_")
    distributions = await api_client.list_distributions_page(account_id=account.account_id)
    assert all(d.account_id == account.account_id for d in distributions.items)
    listed = (await api_client.list_distributions_page(limit=1)).items[0]
    assert listed.items is None and listed.item_count is not None
    full = await api_client.get_distribution(listed.distribution_id)
    assert full.items is not None and len(full.items) == listed.item_count
    by_merchant_d = await api_client.list_distributions_page(merchant_id=listed.merchant_id)
    assert listed.distribution_id in {d.distribution_id for d in by_merchant_d.items}


async def test_plugin_sessions(api_client: PaymentClient) -> None:
    account_id = await approved_account(api_client)
    payment = await api_client.create_payment_plugin_session(
        PaymentPluginSessionRequest(
            account_id=account_id,
            charge_type="authorization",
            max_transaction_amount=Decimal("100.00"),
            tags=["plugin"],
        )
    )
    assert payment.session_id and payment.type == "payment"
    assert payment.model_dump().get("charge_type") == "authorization"  # echoed, kept as extra
    enrollment = await api_client.create_enrollment_plugin_session(
        EnrollmentPluginSessionRequest(tags=["new"], account={"tags": ["acct"]})
    )
    assert enrollment.session_id and enrollment.type == "enrollment"


# -- errors from the real server ------------------------------------------------------------


async def test_not_found_and_conflict(api_client: PaymentClient) -> None:
    with pytest.raises(NotFoundError) as missing:
        await api_client.get_charge("0" * 24)
    assert missing.value.code == "not_found"
    assert "(404)" in str(missing.value)
    charge_id = await sale(api_client, await approved_account(api_client))
    with pytest.raises(ConflictError):
        await api_client.capture(charge_id)  # a sale is not an authorization
    with pytest.raises(NotFoundError):
        await api_client.get_token("ct_" + "0" * 20)
    with pytest.raises(NotFoundError):
        await api_client.get_refund("0" * 24)


async def test_luhn_failure_is_a_field_error_without_the_number(api_client: PaymentClient) -> None:
    account_id = await approved_account(api_client)
    with pytest.raises(ValidationError) as info:
        await api_client.create_charge(
            ChargeRequest(
                account_id=account_id,
                total_amount=Decimal("1"),
                payment_method=card("4111111111111112"),
            )
        )
    assert info.value.field_errors[0].field == "payment_method.card_number"
    assert "4111111111111112" not in str(info.value)


async def test_limited_scopes(limited_client: PaymentClient) -> None:
    info = await limited_client.authenticate()
    assert info.scopes == {"urn:v2:accounts:read", "urn:v2:merchants:read"}
    assert (await limited_client.list_accounts_page(limit=1)).items
    assert (await limited_client.list_merchants_page(limit=1)).items
    with pytest.raises(ForbiddenError) as info_forbidden:
        await limited_client.search_charges_page()
    assert "urn:v2:charges:all" in info_forbidden.value.required_scopes


async def test_bad_credentials_and_scope(sandbox_transport: httpx.ASGITransport) -> None:
    async with PaymentClient(
        SANDBOX_URL,
        client_id=DEMO_ID,
        client_secret="not-the-Secret-42",
        transport=sandbox_transport,
    ) as client:
        with pytest.raises(AuthenticationError) as info:
            await client.authenticate()
        assert "not-the-Secret-42" not in str(info.value)
    async with PaymentClient(
        SANDBOX_URL,
        client_id="paytui-limited",
        client_secret="paytui-limited-secret",
        scopes=["urn:v2:charges:all"],
        transport=sandbox_transport,
    ) as client:
        with pytest.raises(ValidationError) as scope_info:
            await client.authenticate()
        assert scope_info.value.code == "invalid_scope"


async def test_narrowed_scope_and_static_token(sandbox_transport: httpx.ASGITransport) -> None:
    async with PaymentClient(
        SANDBOX_URL,
        client_id=DEMO_ID,
        client_secret=DEMO_SECRET,
        scopes=["urn:v2:accounts:read"],
        transport=sandbox_transport,
    ) as narrowed:
        info = await narrowed.authenticate()
        assert narrowed.granted_scopes == {"urn:v2:accounts:read"}
        with pytest.raises(ForbiddenError):
            await narrowed.list_tokens_page()
    async with PaymentClient(
        SANDBOX_URL, token=info.access_token, transport=sandbox_transport
    ) as static:
        assert (await static.list_accounts_page(limit=1)).items
        assert static.granted_scopes is None
    async with PaymentClient(SANDBOX_URL, token="nonsense", transport=sandbox_transport) as bad:
        with pytest.raises(AuthenticationError):
            await bad.list_accounts_page()


# -- faults ---------------------------------------------------------------------------------


async def test_get_is_retried_through_transient_failures(
    api_client: PaymentClient, sandbox_faults: Faults
) -> None:
    await api_client.authenticate()
    sandbox_faults.update({"fail_status": 503, "fail_count": 2, "fail_path_prefix": "/v2/charges"})
    page = await api_client.search_charges_page(limit=1)
    assert page.items
    sandbox_faults.update({"fail_status": 429, "fail_count": 1})
    assert (await api_client.search_charges_page(limit=1)).items


async def test_get_gives_up_and_post_never_retries(
    api_client: PaymentClient, sandbox_faults: Faults
) -> None:
    account_id = await approved_account(api_client)
    sandbox_faults.update({"fail_status": 429, "fail_count": -1, "fail_path_prefix": "/v2/charges"})
    with pytest.raises(RateLimitedError) as limited:
        await api_client.search_charges_page()
    assert limited.value.retry_after == 1
    sandbox_faults.update({"fail_status": 503, "fail_count": 1})
    with pytest.raises(ServerError) as failed:
        await sale(api_client, account_id)
    assert failed.value.outcome_unknown
    assert sandbox_faults.fail_count == 0  # exactly one attempt was made


async def test_non_json_answer(api_client: PaymentClient, sandbox_faults: Faults) -> None:
    await api_client.authenticate()
    sandbox_faults.update(
        {"fail_status": 404, "fail_body": "<html>gateway says no</html>", "fail_count": 1}
    )
    with pytest.raises(NotFoundError) as info:
        await api_client.get_charge("0" * 24)
    assert "gateway says no" in str(info.value)


async def test_dropped_answer_after_capture_is_outcome_unknown(
    api_client: PaymentClient, sandbox_faults: Faults
) -> None:
    account_id = await approved_account(api_client)
    auth = await api_client.create_charge(
        ChargeRequest(
            account_id=account_id,
            total_amount=Decimal("7.00"),
            payment_method=card(),
            charge_type="authorization",
        )
    )
    sandbox_faults.update({"drop_after_commit": ["capture"]})
    with pytest.raises(TransportError) as info:
        await api_client.capture(auth.charge_id)
    assert info.value.request_sent is True
    sandbox_faults.reset()
    # The capture did happen: the user's "check before repeating" finds it.
    captures = await api_client.search_charges_page(ChargeQuery(original_charge_id=auth.charge_id))
    assert len(captures.items) == 1


async def test_malformed_shape_from_the_server(
    sandbox_faults: Faults, sandbox_transport: httpx.ASGITransport
) -> None:
    async with PaymentClient(SANDBOX_URL, transport=sandbox_transport) as client:
        sandbox_faults.update({"fail_status": 200, "fail_body": "not json", "fail_count": 1})
        with pytest.raises(MalformedResponseError):
            await client.get_charge("0" * 24)


async def test_read_timeout_over_a_socket(sandbox_server: str, sandbox_faults: Faults) -> None:
    async with PaymentClient(
        sandbox_server, client_id=DEMO_ID, client_secret=DEMO_SECRET, timeout=1.0, max_retries=0
    ) as client:
        await client.authenticate()
        sandbox_faults.update({"delay_seconds": 3.0})
        with pytest.raises(RequestTimeoutError) as info:
            await client.list_accounts_page()
        assert info.value.request_sent is True


async def test_connection_refused_is_not_sent() -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago and is closed now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with PaymentClient(f"http://127.0.0.1:{port}", token="t", max_retries=0) as client:
        with pytest.raises(TransportError) as info:
            await client.create_charge(
                ChargeRequest(account_id="pa_x", total_amount=Decimal("1"), payment_method=card())
            )
    assert info.value.request_sent is False


class _Recording(httpx.AsyncBaseTransport):
    """The real in-process sandbox, with each request's method, path and deadline header."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[tuple[str, str, str | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        stated = request.headers.get(GIVE_UP_HEADER)
        self.seen.append((request.method, request.url.path, stated))
        return await self.inner.handle_async_request(request)


async def test_every_write_states_when_the_client_gives_up_on_it(
    sandbox_transport: httpx.ASGITransport,
) -> None:
    """The sandbox holds a write to its client's stated deadline (`client_watch`): the client
    states it on every write, under the name the sandbox reads, and never on a read."""
    recording = _Recording(sandbox_transport)
    async with PaymentClient(
        SANDBOX_URL, client_id=DEMO_ID, client_secret=DEMO_SECRET, transport=recording, timeout=7
    ) as client:
        page = await client.search_charges_page(ChargeQuery(status="success"), limit=5)
        sale = next(c for c in page.items if c.charge_type == "sale")
        sent = time.time()
        await client.create_refund(RefundRequest(charge_id=sale.charge_id, total_amount=1))
    reads = [stated for method, path, stated in recording.seen if method == "GET"]
    writes = [stated for method, path, stated in recording.seen if path == "/v2/refunds"]
    assert reads and all(stated is None for stated in reads)
    assert writes == [writes[0]] and writes[0] is not None
    assert sent + 6 < float(writes[0]) < time.time() + 7  # now plus the client's deadline
