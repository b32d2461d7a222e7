"""The dispute ratio (`paytui.today.ratio`) against the in-process sandbox, each figure counted
again here from the sandbox's own database (its charge documents), not from the client."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.queries import ChargeQuery
from paytui.commands import pulse as pulse_command
from paytui.commands.runtime import Exit
from paytui.config.model import RatioLine
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.seed import DEFAULT_ANCHOR
from paytui.today.ratio import compute_ratio, month_bounds, standing
from tests.cli_support import sandbox_cli
from tests.fixtures_sandbox import raw_client

NOW = DEFAULT_ANCHOR + timedelta(hours=1)


def client_of(transport: httpx.AsyncBaseTransport) -> PaymentClient:
    return PaymentClient(
        "http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=transport,
    )


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def counted_from_database(db: Path, start: datetime, end: datetime, now: datetime) -> Any:
    """Per account: [disputes, sales, disputes amount, sales amount], from the documents."""
    found: dict[str, list[Any]] = defaultdict(lambda: [0, 0, Decimal(0), Decimal(0)])
    with sqlite3.connect(db) as conn:
        for (text,) in conn.execute("SELECT doc FROM charge_docs"):
            doc = json.loads(text)
            account = doc["account_id"]
            made = _at(doc["charge_timestamp"])
            moved = doc.get("charge_type") in {"sale", "capture"}
            if start <= made < min(end, now) and moved and doc["status"] != "declined":
                found[account][1] += 1
                found[account][3] += Decimal(str(doc["total_amount"]))
            items = (doc.get("chargebacks") or {}).get("items") or []
            if items:
                first = min(_at(item["chargeback_timestamp"]) for item in items)
                if start <= first < min(end, now):
                    found[account][0] += 1
                    found[account][2] += Decimal(str(doc["chargebacks"]["total_amount"]))
    return found


async def test_the_ratio_is_disputes_over_sales_counted_from_the_service_per_account(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_db: Path
) -> None:
    async with client_of(sandbox_transport) as client:
        pulse = await compute_ratio(client, now=NOW)
    start, end = month_bounds(NOW)
    assert (start, end) == (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
    expected = counted_from_database(sandbox_db, start, end, NOW)
    got = {
        a.account_id: [a.disputes, a.sales, a.disputes_amount, a.sales_amount]
        for a in pulse.accounts
    }
    assert got == dict(expected)
    # The demo's practice cases are this month's open disputes: the count is not empty.
    assert sum(a.disputes for a in pulse.accounts) >= 8
    for account in pulse.accounts:
        disputes, sales = expected[account.account_id][:2]
        assert account.ratio == (disputes / sales if sales else None)
        # The days add up to the month, and the trend ends at the month's ratio.
        assert sum(d for d, _ in account.by_day) == disputes
        assert sum(s for _, s in account.by_day) == sales
        if sales:
            assert abs(account.trend()[-1] - 100 * disputes / sales) < 1e-9
    assert len(pulse.days) == 20  # 1 to 20 November
    shop = max(pulse.accounts, key=lambda a: len(a.open_cases))
    assert len(shop.open_cases) >= 8 and all(c.state == "open" for c in shop.open_cases)


async def test_a_chargeback_filed_this_month_on_an_old_sale_counts_this_month(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """A dispute counts in the month of its own date, whatever the month of its charge."""
    async with client_of(sandbox_transport) as client:
        before = await compute_ratio(client, now=NOW)
        query = ChargeQuery(
            status="success", charge_type="sale", created_to=NOW - timedelta(days=60)
        )
        page = await client.search_charges_page(query, limit=100)
        old = next(
            c
            for c in page.items
            if c.status == "success"
            and c.charge_type == "sale"
            and c.charge_timestamp is not None
            and c.charge_timestamp < NOW - timedelta(days=60)
            and getattr(c.payment_method, "method", None) == "card"
        )
        token = (await client.authenticate()).access_token.get_secret_value()
        async with raw_client(sandbox_transport, "http://sandbox") as api:
            answer = await api.post(
                f"/sandbox/charges/{old.charge_id}/chargeback",
                json={"reason_code": "10.4", "chargeback_date": "2026-11-03T10:00:00Z"},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert answer.status_code == 201, answer.text
        after = await compute_ratio(client, now=NOW)
        october = await compute_ratio(client, now=NOW, month=datetime(2026, 10, 1, tzinfo=UTC))
    account = str(old.account_id)
    was, now = before.account(account), after.account(account)
    assert was is not None and now is not None
    assert now.disputes == was.disputes + 1 and now.sales == was.sales
    assert now.by_day[2][0] == was.by_day[2][0] + 1  # on 3 November
    assert any(case.charge_id == old.charge_id for case in now.open_cases)
    assert len(october.days) == 31


def test_standing_names_the_highest_line_crossed_with_its_count() -> None:
    lines = (
        RatioLine(name="watch", percent=1.0, min_disputes=0),
        RatioLine(name="excessive", percent=1.5, min_disputes=100),
    )
    assert standing(None, 0, lines).words == "no sales this month"
    assert standing(0.005, 3, lines).level == "below"
    assert standing(0.012, 3, lines).words == "ABOVE watch (1 %)"
    under = standing(0.02, 3, lines)
    assert under.level == "above" and under.line is not None and under.line.name == "watch"
    over = standing(0.02, 150, lines)
    assert over.words == "ABOVE excessive (1.5 %, 100 disputes)"
    alone = standing(0.02, 3, lines[1:])
    assert alone.level == "under_count" and "under its 100 disputes" in alone.words


def test_paytui_pulse_json_is_json_types_and_the_services_counts(
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pulse_command, "now_utc", lambda: NOW)
    run = sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")
    code, out, err = run("pulse", "--format", "json")
    assert code == Exit.OK, err
    answer = json.loads(out)
    assert answer["month"] == "2026-11" and answer["lines"]
    expected = counted_from_database(sandbox_db, *month_bounds(NOW), NOW)
    assert {a["account_id"] for a in answer["accounts"]} == set(expected)
    for account in answer["accounts"]:
        disputes, sales, disputes_amount, sales_amount = expected[account["account_id"]]
        assert type(account["disputes"]) is int and type(account["sales"]) is int
        assert (account["disputes"], account["sales"]) == (disputes, sales)
        assert account["ratio"] == disputes / sales and type(account["ratio"]) is float
        assert isinstance(account["sales_amount"], str)
        assert Decimal(account["sales_amount"]) == sales_amount
        assert Decimal(account["disputes_amount"]) == disputes_amount
        assert len(account["days"]) == 20
        for case in account["open_cases"]:
            assert isinstance(case["amount"], str) and case["disputed_at"].endswith("Z")
    code, out, _ = run("pulse", "--format", "jsonl", "--month", "2026-10")
    assert code == Exit.OK
    october = [json.loads(line) for line in out.splitlines()]
    assert october and all(len(a["days"]) == 31 for a in october)
    code, out, _ = run("pulse")
    assert code == Exit.OK and "Dispute ratio · November 2026 (UTC)" in out
    code, _, err = run("pulse", "--month", "2026-13")
    assert code == Exit.USAGE and "--month" in err and "Traceback" not in err
