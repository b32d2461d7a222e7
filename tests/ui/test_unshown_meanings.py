"""The charge detail says only what the service's fields say: no meaning the spec does not give
(`reversal_flag`), no count it did not send (chargebacks without an `items` list), and boarding
statuses of another service offered as they come."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from paytui.api.models import Charge
from paytui.ui import format as fmt
from paytui.ui.widgets.charge_panels import chargebacks_panel, summary_panel
from paytui.ui.widgets.distribution_tree import as_mapping

CHARGE_ID = "6206bcbf973c0193850fb6c7"


def _text(renderable: Any) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _rows(renderable: Any) -> dict[str, list[str]]:
    """Key -> the words of its value, for a two-column field panel (single-word keys)."""
    words = (line.split() for line in _text(renderable).splitlines())
    return {parts[0]: parts[1:] for parts in words if parts}


def _wire(**fields: Any) -> dict[str, Any]:
    return as_mapping(Charge.model_validate({"charge_id": CHARGE_ID, **fields}))


def test_chargebacks_in_fields_of_its_own_are_not_read_as_none() -> None:
    wire = _wire(status="chargeback", chargebacks={"count": 2, "cases": [{"case": "A1"}]})
    rows = _rows(chargebacks_panel(wire))
    assert rows["Chargebacks"] == ["—"]  # not known: never "0"
    assert rows["count"] == ["2"] and "A1" in " ".join(rows["cases"])
    listed = _wire(chargebacks={"total_amount": 5, "items": []})
    assert _rows(chargebacks_panel(listed))["Chargebacks"] == ["0"]  # a list was sent: 0 is known


def test_reversal_flag_shows_as_sent_without_a_meaning() -> None:
    panel = summary_panel(
        _wire(reversal_flag=True), is_authorization=False, capture_id=None, capture_lookup=None
    )
    text = _text(panel)
    assert "refunded in full" not in text
    assert "Reversal flag" in text and "yes" in text


def test_boarding_statuses_of_another_service_are_offered_as_they_come() -> None:
    statuses = fmt.boarding_statuses(["approved", "pending_underwriting", None, "approved"])
    assert statuses[-1] == "pending_underwriting" and statuses.count("approved") == 1
    assert fmt.boarding_status("pending_underwriting").plain == "pending_underwriting"
