"""The case on the row (docs/today.md, "The case"): reason code with the network's words and
category, stage when shown, status, age and time left; only what the service shows."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from paytui.api.models import Charge
from paytui.config.model import TodayPrefs
from paytui.today.cases import case_of, cases_of, first_case
from tests.today.test_deadlines import NOW, card_chargeback

PREFS = TodayPrefs()


def test_a_visa_case_says_reason_stage_status_age_and_time_left() -> None:
    charge = card_chargeback(NOW - timedelta(days=5), stage="pre_arbitration", reason_code="10.4")
    case, count = first_case(charge, NOW, PREFS)
    assert case is not None and count == 1
    line = case.line(NOW)
    assert line.startswith("Visa 10.4 Other Fraud: Card-Absent Environment (fraud)")
    assert " · pre-arbitration · open · 5 d old · " in line
    # Due from its own date by the earlier clock (acquirer 10 d less 2 d): 3 days left.
    assert case.deadline is not None and case.deadline.basis == "chargeback_date"
    assert line.endswith("≈ due in 3 d")


def test_a_closed_case_has_no_time_left() -> None:
    charge = card_chargeback(NOW - timedelta(days=40), status="won")
    (case,) = cases_of(charge, NOW, PREFS)
    assert case.status == "won" and case.deadline is None
    assert case.line(NOW).endswith("· won · 40 d old")
    lost = card_chargeback(NOW - timedelta(days=3), status="accepted")  # a service's word for it
    assert case_of(lost.chargebacks.items[0], lost, NOW, PREFS).status == "lost"  # type: ignore[union-attr]


def test_what_the_service_does_not_show_is_said_not_guessed() -> None:
    # A Visa code on a Mastercard charge, a stage and a status paytui does not know.
    charge = card_chargeback(
        NOW - timedelta(days=2),
        brand="mastercard",
        stage="retrial",
        status="with_issuer",
        reason="Not received",
    )
    (case,) = cases_of(charge, NOW, PREFS)
    line = case.line(NOW)
    assert line.startswith('code 13.1 (not a Mastercard code in paytui\'s table): "Not received"')
    assert "stage 'retrial' (not known to paytui)" in line
    assert "status 'with_issuer' (not known to paytui)" in line
    # A status paytui does not know stays open: it still has a due time.
    assert case.deadline is not None


def test_a_chargeback_with_no_inner_fields() -> None:
    """The second fake's shape: `{"count": 1}`, nothing inside. No date, no stage, no code."""
    charge = Charge.model_validate(
        {
            "charge_id": "c2",
            "status": "chargeback",
            "total_amount": "5.00",
            "payment_method": {"method": "card", "type": "visa"},
            "chargebacks": {"count": 1},
        }
    )
    (case,) = cases_of(charge, NOW, PREFS)
    line = case.line(NOW)
    assert line.startswith("reason code not shown · status not shown · date not shown")
    # Without the charge's last update nor paytui's first sight, no due time is made up here.
    assert case.deadline is None and line.endswith("time left: see Today (no date shown)")
    # With first sight (Today's store), the due time says it came from there.
    seen = case_of(None, charge, NOW, PREFS, first_seen=NOW - timedelta(days=1))
    assert seen.deadline is not None and seen.deadline.basis == "first_seen"


def test_a_charge_without_chargeback_has_no_case() -> None:
    charge = Charge.model_validate({"charge_id": "c3", "status": "success"})
    assert first_case(charge, NOW, PREFS) == (None, 0)


async def test_the_customer_view_says_each_chargeback_by_the_one_rule(demo_client: Any) -> None:
    """A practice case's payer: the chargeback row's state word is the lists' (not the raw
    status), its note the reason in the network's words."""
    from paytui.customer import customer_key, read_customer

    view = await read_customer(demo_client, customer_key("Tariq Aziz"))
    (row,) = [row for row in view.rows if row.kind == "chargeback"]
    assert row.words == ("Disputed (open)",)
    assert row.note == "Discover UA02 Fraud: Card Not Present Transaction (fraud)"
    (charge,) = [row for row in view.rows if row.kind == "charge"]
    assert charge.words[0] == "Disputed (open)"
