"""`paytui.charge_state`: a state word only from what the service shows; refunds add up only
when every refund of the charge was read and named it."""

from __future__ import annotations

from decimal import Decimal

from paytui.actions.basis import RefundSeen
from paytui.api.models import Charge, Refund
from paytui.charge_state import (
    dispute_state,
    refund_state,
    refunds_position,
    state_words,
)


def charge(**fields: object) -> Charge:
    return Charge.model_validate({"charge_id": "c1", "status": "success", **fields})


def refund(amount: str | None, charge_id: str | None = "c1") -> Refund:
    body: dict[str, object] = {"refund_id": f"r{amount}", "charge_id": charge_id}
    if amount is not None:
        body["total_amount"] = amount
    return Refund.model_validate(body)


NONE = refunds_position("c1", Decimal("10.00"), [])


def test_a_plain_row_says_nothing_and_the_reversal_flag_proves_nothing() -> None:
    assert state_words(charge(total_amount="10.00"), refunds=NONE) == ()
    assert state_words(charge(total_amount="10.00", reversal_flag=True), refunds=NONE) == ()


def test_refunds_not_read_are_a_question_mark_never_a_blank() -> None:
    sale = charge(total_amount="10.00")
    assert state_words(sale) == ("?",)
    assert refund_state(sale, None) == "unknown"
    cut = refunds_position("c1", sale.total_amount, [refund("1.00")], complete=False)
    assert refund_state(sale, cut) == "unknown" and state_words(sale, refunds=cut) == ("?",)
    # A charge that took no money has no refunds to read.
    assert state_words(charge(status="declined")) == ()
    assert refund_state(charge(status="voided"), None) == "none"


def test_refund_states() -> None:
    sale = charge(total_amount="10.00")
    assert refund_state(sale, NONE) == "none"
    assert refund_state(sale, refunds_position("c1", Decimal("10.00"), [refund("4.00")])) == (
        "partial"
    )
    assert refund_state(sale, refunds_position("c1", Decimal("10.00"), [refund("10.00")])) == (
        "full"
    )


def test_disputes_returns_and_captures_from_the_row() -> None:
    assert state_words(charge(status="chargeback"), refunds=NONE) == ("Disputed (?)",)
    items = {"items": [{"chargeback_id": "x"}]}
    assert state_words(charge(chargebacks=items), refunds=NONE) == ("Disputed (?)",)
    assert state_words(charge(chargebacks={"total_amount": "5.00"}), refunds=NONE) == (
        "Disputed (?)",
    )
    empty = {"total_amount": "0.00", "items": []}
    assert state_words(charge(chargebacks=empty), refunds=NONE) == ()
    assert state_words(charge(status="return"), refunds=NONE) == ("Returned",)
    assert state_words(charge(**{"return": {"return_code": "R01"}}), refunds=NONE) == ("Returned",)
    assert state_words(charge(captured_charge_id="cap"), refunds=NONE) == ("Captured",)
    assert state_words(charge(captured_charge_id=None), refunds=NONE) == ()
    assert state_words(charge(), refunds=NONE, capture_id="cap") == ("Captured",)


def disputed(*statuses: str | None) -> Charge:
    items = [{"chargeback_id": f"cb{i}", "status": s} for i, s in enumerate(statuses)]
    return charge(status="chargeback", chargebacks={"items": items})


def test_a_dispute_says_open_won_or_lost_from_its_items() -> None:
    assert state_words(disputed("open"), refunds=NONE) == ("Disputed (open)",)
    assert state_words(disputed("lost"), refunds=NONE) == ("Lost",)
    assert state_words(disputed("won"), refunds=NONE) == ("Won",)
    assert dispute_state(disputed("WON", "lost")) == "lost"
    assert dispute_state(disputed("won", "open")) == "open"
    assert dispute_state(disputed("won", "won")) == "won"
    # A status paytui does not know, or none: never called won.
    assert dispute_state(disputed("won", "mystery")) == "unknown"
    assert dispute_state(disputed(None)) == "unknown"
    # The second service's shape: a count, no items.
    assert dispute_state(charge(status="chargeback", chargebacks={"count": 1})) == "unknown"
    assert dispute_state(charge(total_amount="10.00")) == "none"


def test_refund_words_only_from_refunds_read_whole() -> None:
    sale = charge(total_amount="10.00")
    part = refunds_position("c1", sale.total_amount, [refund("4.00")])
    assert (part.refunded, part.left, part.word) == (
        Decimal("4.00"),
        Decimal("6.00"),
        "Partly refunded",
    )
    assert state_words(sale, refunds=part) == ("Partly refunded",)
    full = refunds_position("c1", sale.total_amount, [refund("4.00"), refund("6.00")])
    assert (full.left, full.word) == (Decimal(0), "Refunded")
    none = refunds_position("c1", sale.total_amount, [])
    assert (none.refunded, none.left, none.word) == (Decimal(0), Decimal("10.00"), None)
    # Another charge's refund (a service that ignored the filter) is not counted.
    other = refunds_position("c1", sale.total_amount, [refund("4.00"), refund("6.00", "c2")])
    assert other.refunded == Decimal("4.00") and other.count == 1
    # Not every page read, or a refund without an amount: a floor, no word, nothing "left".
    cut = refunds_position("c1", sale.total_amount, [refund("10.00")], complete=False)
    assert (cut.left, cut.word, cut.complete) == (None, None, False)
    blank = refunds_position("c1", sale.total_amount, [refund("4.00"), refund(None)])
    assert (blank.left, blank.word) == (None, None)


def test_the_executor_s_refund_reads_add_up_the_same() -> None:
    seen = (RefundSeen("r1", Decimal("2.50"), None, "success"),)
    assert refunds_position("c1", Decimal("2.50"), seen).word == "Refunded"


def test_may_have_refunds_asks_the_registry_s_refund_rule_as_looked_up_once() -> None:
    from types import SimpleNamespace

    from paytui.actions.registry import rule_for, why_not
    from paytui.charge_state import may_have_refunds

    rule = rule_for("refund")
    assert rule_for("refund") is rule and rule_for("app.refund") is not None
    assert rule_for("no_such_action")(charge()) is None
    subjects: list[object] = [
        None,
        SimpleNamespace(),
        charge(total_amount="10.00"),
        charge(charge_type="capture"),
        charge(charge_type="refund"),
        charge(charge_type="pre_authorization"),
        charge(status="declined"),
        charge(status="settled", charge_type="sale"),
        charge(result_code="Authorized", total_amount="5.00"),
    ]
    for subject in subjects:
        assert rule(subject) == why_not("refund", subject)
        assert may_have_refunds(subject) is (why_not("refund", subject) is None)
    assert [may_have_refunds(s) for s in subjects] == [
        False, True, True, True, False, False, False, True, False,
    ]  # fmt: skip
