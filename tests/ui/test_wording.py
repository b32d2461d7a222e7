"""One vocabulary (issue 22, item 15): a charge type reads the same wherever it shows, and the
words people read describe the product, not the spec or an earlier design."""

from __future__ import annotations

from rich.console import Console

from paytui.api.models import Charge
from paytui.ui import format as fmt
from paytui.ui.top_screens import SCREENS
from paytui.ui.widgets.charge_panels import summary_panel
from paytui.ui.widgets.charge_table import COLUMNS


def _summary_lines(charge: Charge, width: int) -> list[str]:
    """The charge detail's summary panel as plain lines at `width` cells."""
    panel = summary_panel(
        charge.model_dump(mode="json", by_alias=True, exclude_none=True),
        is_authorization=False,
        capture_id=None,
        capture_lookup=None,
    )
    console = Console(width=width, record=True, color_system=None, file=None)
    with console.capture() as captured:
        console.print(panel)
    return captured.get().splitlines()


def test_a_charge_type_reads_the_same_in_the_list_and_the_detail() -> None:
    """One word per type (issue 44): the list, the detail's heading and summary said
    `pre-auth`, `pre_authorization` and `pre-authorization` for the same charge."""
    from types import SimpleNamespace

    from paytui.ui.screens.charge_detail import ChargeDetailScreen

    check = Charge(charge_id="c1", charge_type="pre_authorization", total_amount=0)
    wire = check.model_dump(mode="json", by_alias=True, exclude_none=True)
    column = next(column for column in COLUMNS if column.key == "type")
    from rich.text import Text

    screen = SimpleNamespace(_wire=wire, charge_id="c1", charge=None, case_line=Text)
    heading = ChargeDetailScreen._heading(screen)  # type: ignore[arg-type]
    type_line = next(line for line in _summary_lines(check, 80) if "Type" in line)
    for shown in (column.render(check).plain, heading.plain, type_line):
        assert "pre-auth" in shown, shown
        assert "pre_authorization" not in shown and "pre-authorization" not in shown, shown
    assert fmt.charge_type_name("authorization") == "auth"  # as the search language's type:auth
    assert fmt.charge_type_name("refund\x1b[2J") == "refund␛[2J"  # another service's, made safe


def test_history_is_described_as_what_it_holds() -> None:
    (blurb,) = [blurb for mode, _title, blurb in SCREENS if mode == "history"]
    assert "this session" not in blurb and "across sessions" in blurb


def test_a_length_of_time_reads_in_its_two_largest_units() -> None:
    """Who-am-I said a token expires "in 7783 min"; a person reads days and hours."""
    assert [fmt.span(s) for s in (7, 61, 3599, 7783 * 60 + 5, 3 * 86400 + 4 * 3600 + 59)] == [
        "7 s",
        "1 min 1 s",
        "59 min 59 s",
        "5 d 9 h",
        "3 d 4 h",
    ]
    assert fmt.span(-3 * 3600) == "3 h 0 min"


def test_a_scope_name_is_never_broken_inside_a_word() -> None:
    from paytui.ui.screens.whoami import scope_lines

    long = "urn:v2:plugins:enrollment:create:prepopulate-processing-info"
    lines = scope_lines(["urn:v2:plugins:all", long, "urn:v2:refunds:all"], 44).splitlines()
    assert lines == [
        "urn:v2:plugins:all",
        "urn:v2:plugins:enrollment:create:",
        "  prepopulate-processing-info",
        "urn:v2:refunds:all",
    ]


def test_the_open_hint_stays_on_its_ids_line_in_a_half_width_panel() -> None:
    """At 120 columns the summary panel is about 55 cells wide; "o opens" wrapped onto a line
    of its own under the authorization id."""
    capture = Charge(
        charge_id="c" * 24, charge_type="capture", total_amount=5, original_charge_id="a" * 24
    )
    lines = _summary_lines(capture, 53)
    row = next(index for index, line in enumerate(lines) if "a" * 24 in line)
    assert "(o)" in lines[row]
