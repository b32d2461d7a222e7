"""Plugin sessions and new accounts go through the one executor and journal: checked against the
account before sending, read back when the answer is lost, never sent twice."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.errors import PrecheckFailed
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.journal_schema import SCHEMA_VERSION
from paytui.actions.operation import NoParams
from paytui.api.client import PaymentClient
from paytui.api.models import Account, PluginSession
from paytui.api.plugins import (
    AccountRequest,
    ConvenienceFee,
    EnrollmentPluginSessionRequest,
    PaymentPluginSessionRequest,
    Tokenize,
)
from tests.actions.support import WireTransport, made_for


async def _account(client: PaymentClient, name: str) -> Account:
    page = await client.list_accounts_page(limit=500)
    return next(a for a in page.items if a.name == name)


async def test_payment_session_is_checked_sent_once_and_read_back(
    executor: ActionExecutor, client: PaymentClient, wire: WireTransport
) -> None:
    cafe = await _account(client, "Blue Fern Café POS")  # limit 5,000
    assert cafe.max_transaction_amount == Decimal(5000)
    expiry = datetime(2031, 1, 2, tzinfo=UTC)
    request = PaymentPluginSessionRequest(
        account_id=cafe.account_id, tokenize=Tokenize(token_expiration_date=expiry)
    )
    made = await executor.run("plugin_session", *made_for(request))
    assert made.state == "succeeded" and isinstance(made.result, PluginSession)
    assert made.result.max_transaction_amount == Decimal(5000)
    assert made.result.model_extra is not None
    assert made.result.model_extra["tokenize"] == {
        "token_expiration_date": "2031-01-02T00:00:00.000Z"
    }
    (sent,) = wire.posts("/plugins/payment")
    assert sent.body["attributes"]["paytui_ref"] == [made.client_reference]
    entry = executor.journal.get(made.entry_id)
    assert entry is not None and entry.operation == "plugin_session"
    assert entry.result_id == made.result.session_id

    # Refused before sending: fees on top of the whole limit the account shows (the spec's rule).
    too_big = request.model_copy(
        update={
            "max_transaction_amount": Decimal(5000),
            "convenience_fee": ConvenienceFee(amount=Decimal(1)),
        }
    )
    with pytest.raises(PrecheckFailed, match="at most 4999"):
        await executor.run("plugin_session", *made_for(too_big))
    assert len(wire.posts("/plugins/payment")) == 1
    # No local gate on the boarding status: the session is sent and the service's refusal shown.
    suspended = await _account(client, "Northwind Phone Orders")
    refused = await executor.run(
        "plugin_session", *made_for(PaymentPluginSessionRequest(account_id=suspended.account_id))
    )
    assert refused.state == "failed" and "only approved accounts" in (refused.message or "")
    assert len(wire.posts("/plugins/payment")) == 2

    # The answer is lost: the session is found by its reference, nothing is sent again.
    wire.post_timeout = 0
    lost = await executor.run("plugin_session", *made_for(request))
    await wire.drain()
    wire.post_timeout = None
    assert lost.state == "succeeded" and lost.reconciled
    assert isinstance(lost.result, PluginSession)
    assert len(wire.posts("/plugins/payment")) == 3

    gone = await executor.run("plugin_delete", made.result.session_id, NoParams())
    assert gone.state == "succeeded" and gone.result_id == made.result.session_id
    again = await executor.run("plugin_delete", made.result.session_id, NoParams())
    assert again.state == "failed" and not again.retryable  # 404: a refusal is final


async def test_enrollment_and_a_tax_account(
    executor: ActionExecutor, client: PaymentClient
) -> None:
    enrollment = await executor.run(
        "plugin_session",
        *made_for(EnrollmentPluginSessionRequest(tags=["new"], account={"tags": ["a"]})),
    )
    assert enrollment.state == "succeeded"
    tax_office = await _account(client, "Lakeside Property Tax")
    made = await executor.run(
        "account_create",
        *made_for(
            AccountRequest(
                merchant_id=tax_office.merchant_id or "",
                name="Lakeside Water Levy",
                merchant_category_code="9311",
                tax_authority="Lakeside Township",
                tax_authority_state="MN",
            )
        ),
    )
    assert made.state == "succeeded" and isinstance(made.result, Account)
    read = await client.get_account(made.result.account_id)
    assert (read.tax_authority, read.status) == ("Lakeside Township", "submitted")


def test_a_schema_2_journal_takes_the_new_operations(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite3"
    with Journal(path):
        pass
    db = sqlite3.connect(path)  # make it a schema-2 file: the old CHECK, user_version 2
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'actions'").fetchone()[0]
    old = sql.replace(", 'plugin_session', 'plugin_delete', 'account_create'", "")
    db.executescript(
        "DROP TABLE actions;" + old + ";"
        "INSERT INTO actions (client_reference, profile, base_url, operation, request_summary,"
        " state, created_at, updated_at) VALUES ('r', 'p', 'b', 'capture', '{}', 'succeeded',"
        " '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z'); PRAGMA user_version = 2;"
    )
    db.close()
    with Journal(path) as journal:
        assert len(journal.list()) == 1
        journal.record_intent(
            profile="p",
            base_url="b",
            operation="plugin_session",
            charge_id=None,
            amount=None,
            request_summary={},
        )
        assert (
            journal._store.connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        )
