"""The footer (issue 15, part 6) and the done-when check "`b`, highlight a chargeback → refund is
disabled and `?` says why".

`fit` is tested as a function (no app); one pilot app then walks the charge list and a charge
detail at 80, 120 and 200 columns.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import cast

from rich.console import Console
from textual.dom import DOMNode

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.help import HelpScreen
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.footer import FooterItem, PaytuiFooter, fit
from tests.ui.conftest import screen_text, settle

AppFactory = Callable[..., PaytuiApp]


def item(key: str, label: str, action: str | None = None) -> FooterItem:
    return FooterItem(key, key, label, action or label.lower(), True, cast(DOMNode, None), "")


def test_fit_drops_whole_bindings_and_keeps_help() -> None:
    items = [item("c", "Capture"), item("r", "Refund"), item("b", "Chargebacks")]
    items.append(item("?", "Help", "app.help"))
    # " c Capture " 11 + " r Refund " 10 + " ? Help " 8 = 29; "Chargebacks" (15) does not fit.
    shown = fit(items, 30)
    assert [i.label for i in shown] == ["Capture", "Refund", "Help"]
    assert sum(i.width for i in shown) <= 30
    # A shorter one further down still fits where a longer one did not.
    items.insert(3, item("y", "Copy"))
    assert [i.label for i in fit(items, 38)] == ["Capture", "Refund", "Copy", "Help"]
    # Help keeps its place first; narrower still, nothing is shown cut.
    assert [i.label for i in fit(items, 12)] == ["Help"]
    assert fit(items, 7) == []


def footer_of(app: PaytuiApp) -> PaytuiFooter:
    return app.screen.query_one(PaytuiFooter)


def check_footer(app: PaytuiApp) -> list[str]:
    """Every label shown is a whole binding's, and the line fits the terminal."""
    footer = footer_of(app)
    labels = footer.shown_labels
    descriptions = {b.binding.description for b in app.screen.active_bindings.values()}
    assert all(label.split(" ", 1)[1] in descriptions for label in labels), labels
    # " key label " each, and the separator before the palette's key.
    assert sum(len(label) + 2 for label in labels) + 1 <= app.size.width
    last_line = screen_text(app).splitlines()[-1]
    for label in labels:
        assert label in last_line, (label, last_line)
    return labels


def help_lines(help_screen: HelpScreen) -> dict[str, object]:
    """The help's keys as drawn at its own width: how wide the key column is (where the header's
    "Action" starts) and the most lines one action takes (its first line has a key; a key list
    cut after " /" goes on on the next line)."""
    body = help_screen.query_one("#help-table")
    console = Console(width=body.content_region.width, file=io.StringIO(), record=True)
    console.print(help_screen._table())
    lines = console.export_text(styles=False).splitlines()
    header = next(line for line in lines if line.split()[:2] == ["Key", "Action"])
    start = header.index("Action")
    counts: list[tuple[str, int]] = []
    previous_key = ""
    for line in lines[lines.index(header) + 1 :]:
        key, action = line[:start].strip(), line[start:].strip()
        if key and not previous_key.endswith("/"):
            counts.append((key, 0))
        if action and counts:
            counts[-1] = (counts[-1][0], counts[-1][1] + 1)
        previous_key = key
    worst = max(counts, key=lambda pair: pair[1])
    return {"key_width": start, "longest": worst[1], "worst": worst[0]}


async def test_footer_at_80_120_200_and_a_chargeback_says_why(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        labels = check_footer(app)
        # The screen's own actions first: capture and refund lead, even at 80 columns.
        assert labels[:2] == ["c Capture", "r Refund"] and "? Help" in labels

        # Moving between two rows where the same actions apply repaints nothing.
        footer = footer_of(app)
        painted: list[int] = []
        render = footer.render
        footer.render = lambda: (painted.append(1), render())[1]  # type: ignore[method-assign]
        table = screen.query_one(ChargeTable)
        assert table.cursor_charge is not None and table.charge_at(1) is not None
        assert [table.cursor_charge.charge_type, table.charge_at(1).charge_type] == ["sale"] * 2  # type: ignore[union-attr]
        await pilot.press("j")
        await settle(app, pilot)
        assert painted == []

        for size in ((120, 40), (200, 50)):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            wide = check_footer(app)
            assert wide[:2] == ["c Capture", "r Refund"] and len(wide) > len(labels)

        # `b`: the first chargeback; refund is shown disabled and `?` says why.
        await pilot.resize_terminal(80, 24)
        await pilot.press("b")
        await settle(app, pilot)
        charge = table.cursor_charge
        assert charge is not None and charge.status == "chargeback"
        assert screen.check_action("refund", ()) is None  # shown, disabled
        refund = next(i for i in footer.shown_items if i.action == "refund")
        assert not refund.enabled
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        help_screen = app.screen
        why = next(live for live in help_screen.live if live.binding.action == "refund")
        assert not why.enabled and why.reason is not None and "charged-back" in why.reason
        console = Console(width=400, file=io.StringIO(), record=True)  # one line a key
        console.print(help_screen._table())
        assert f"(not available: {why.reason})" in console.export_text()
        # At 80x24 the key column is as wide as its keys and each action, its reason
        # included, takes at most two lines (the key column took 24 cells, capture 8 lines).
        drawn = help_lines(help_screen)
        assert drawn["key_width"] <= len("shift+tab") + 2, drawn
        assert drawn["longest"] <= 2, drawn
        await pilot.press("escape")
        await settle(app, pilot)

        # A charge detail at 80 columns: its money actions first.
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert check_footer(app)[:2] == ["c Capture", "r Refund"]
