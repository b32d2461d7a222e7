"""Due times from the best evidence, never later than it allows (docs/today.md, "When a
chargeback is due"). A fixed clock throughout: `NOW`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from paytui.api.models import Charge
from paytui.config.model import TodayPrefs
from paytui.today.deadlines import chargeback_deadline, network_window, return_deadline
from paytui.today.queue import build_queue
from paytui.today.seen import SeenStore

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def card_chargeback(
    dated: datetime | None, *, brand: str = "visa", stage: str | None = None, **inner: Any
) -> Charge:
    """A charge as the sandbox sends one with a chargeback (its inner fields as it shows them)."""
    item: dict[str, Any] = {"chargeback_id": "cb1", "reason_code": "13.1", "status": "open"}
    if dated is not None:
        item["chargeback_timestamp"] = _iso(dated)
    if stage is not None:
        item["stage"] = stage
    item.update(inner)
    return Charge.model_validate(
        {
            "charge_id": "c1",
            "charge_timestamp": _iso(NOW - timedelta(days=90)),
            "last_updated_timestamp": _iso(NOW - timedelta(days=1)),
            "status": "chargeback",
            "total_amount": "12.00",
            "payment_method": {"method": "card", "type": brand, "card_number": "XXXX1111"},
            "chargebacks": {"total_amount": "12.00", "items": [item]},
        }
    )


def due(charge: Charge, prefs: TodayPrefs | None = None) -> Any:
    assert charge.chargebacks is not None and charge.chargebacks.items
    return chargeback_deadline(charge.chargebacks.items[0], charge, NOW, prefs or TodayPrefs())


def test_a_visa_chargeback_of_20_days_ago_is_due_by_the_earlier_clock() -> None:
    dated = NOW - timedelta(days=20)
    found = due(card_chargeback(dated))
    assert found.basis == "chargeback_date" and found.estimated is True
    assert found.due_at <= dated + timedelta(days=30)  # never later than Visa's window
    # The default acquirer window (10 d, less the 2 d buffer) is the earlier clock: it decides.
    assert found.due_at == dated + timedelta(days=8) < dated + timedelta(days=30)
    assert found.due_at < NOW  # already overdue: the first-seen rule said "due in 7 d 23 h"
    assert "from the chargeback's date" in found.words and "acquirer window 10 d" in found.words
    # A long acquirer window: the network's clock is the earlier one, and the row says so.
    wide = due(card_chargeback(dated), TodayPrefs(response_days=60, buffer_days=0))
    assert wide.due_at == dated + timedelta(days=30) and "visa window 30 d" in wide.words


def test_a_chargeback_of_40_days_ago_is_overdue_whatever_the_windows() -> None:
    dated = NOW - timedelta(days=40)
    found = due(card_chargeback(dated), TodayPrefs(response_days=45, buffer_days=0))
    assert found.due_at == dated + timedelta(days=30) < NOW


def test_the_window_of_each_network_and_stage() -> None:
    prefs = TodayPrefs()
    wide = TodayPrefs(response_days=90, buffer_days=0)
    dated = NOW - timedelta(days=1)
    assert network_window(prefs, "Mastercard", None) == ("mastercard", 45)
    assert network_window(prefs, "American Express", None)[1] == 20
    # A later stage is shorter; a brand paytui does not know gets the shortest of the stage.
    assert network_window(prefs, "visa", "arbitration")[1] < network_window(prefs, "visa", None)[1]
    assert network_window(prefs, "unionpay", None)[1] == 20
    arb = due(card_chargeback(dated, brand="mastercard", stage="Arbitration"), wide)
    assert arb.due_at == dated + timedelta(days=10) and "arbitration" in arb.words
    # A stage word paytui does not know: the brand's shortest window.
    odd = due(card_chargeback(dated, brand="mastercard", stage="cycle-9"), wide)
    assert odd.due_at == dated + timedelta(days=10)
    # The table in config lays over the built-in one.
    mine = TodayPrefs(response_days=90, buffer_days=0, network_days={"Visa": {"chargeback": 12}})
    assert due(card_chargeback(dated), mine).due_at == dated + timedelta(days=12)


def test_a_due_date_the_service_gives_is_used_as_given() -> None:
    given = NOW + timedelta(days=3)
    found = due(card_chargeback(NOW - timedelta(days=20), respond_by=_iso(given)))
    assert (found.due_at, found.estimated, found.basis) == (given, False, "service")


def test_without_its_date_the_charges_last_update_then_first_seen() -> None:
    updated = NOW - timedelta(days=1)
    found = due(card_chargeback(None))
    assert found.basis == "charge_updated" and found.due_at == updated + timedelta(days=8)
    assert "from the charge's last update" in found.words
    # An update after paytui first saw it is not older evidence: first seen is used.
    later = card_chargeback(None)
    later = later.model_copy(update={"last_updated_timestamp": NOW + timedelta(hours=1)})
    assert due(later).basis == "first_seen"


def test_an_ach_return_is_due_from_its_own_date() -> None:
    returned = NOW - timedelta(days=3)
    charge = Charge.model_validate(
        {
            "charge_id": "r1",
            "status": "return",
            "last_updated_timestamp": _iso(NOW - timedelta(days=2)),
            "return": {"return_code": "R01", "return_timestamp": _iso(returned)},
        }
    )
    found = return_deadline(charge, NOW, TodayPrefs())
    assert (found.basis, found.due_at) == ("return_date", returned + timedelta(days=1))
    bare = Charge.model_validate({"charge_id": "r2", "status": "return"})
    assert return_deadline(bare, NOW, TodayPrefs()).basis == "first_seen"


async def test_a_service_that_shows_no_inner_fields_falls_back_and_says_so(
    second_service: Any,
) -> None:
    """tests/second_service shows `chargebacks` as ``{"count": 1}``: no date of its own. The
    charge's last update is the evidence; where the service does not send that either, first
    seen, and each row says which."""
    from tests.second_service.fixtures import client_for

    service = second_service()
    # Whole seconds: paytui keeps "first seen" to the second.
    now = (max(c.moment for c in service.store.charges) + timedelta(hours=1)).replace(microsecond=0)
    disputed = [c for c in service.store.charges if c.status == "chargeback"]
    bare = disputed[0]
    bare.fields["last_updated_timestamp"] = None  # this one's answer leaves it out
    prefs = TodayPrefs(lookback_days=0)
    async with client_for(service) as client:
        queue = await build_queue(client, prefs=prefs, seen=SeenStore(None, "x"), now=now)
    rows = {i.id: i for i in queue.select(kinds=["chargeback"])}
    assert set(rows) == {c.charge_id for c in disputed}
    assert rows[bare.charge_id].basis == "first_seen"
    assert rows[bare.charge_id].due_at == now + timedelta(days=8)
    assert "from first seen by paytui" in rows[bare.charge_id].why
    for charge in disputed[1:]:
        row = rows[charge.charge_id]
        assert row.basis == "charge_updated" and "from the charge's last update" in row.why
        assert row.due_at == charge.moment + timedelta(days=8)


def test_estimated_is_a_json_boolean() -> None:
    import io
    import json

    from paytui.commands.today import today_columns
    from paytui.exporter import write_listing
    from paytui.today.queue import TodayItem

    items = [
        TodayItem("token", "t1", None, None, NOW, False, "x", "token", "t1"),
        TodayItem(
            "chargeback", "c1", None, None, NOW, True, "y", "charge", "c1", None, "first_seen"
        ),
    ]
    out = io.StringIO()
    write_listing(out, items, "jsonl", today_columns(), local=False)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [row["estimated"] for row in rows] == [False, True]
    assert [row["basis"] for row in rows] == ["service", "first_seen"]
