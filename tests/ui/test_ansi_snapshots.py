"""Each main screen in the terminal's own 16 colours (`ansi-dark`, docs/accessibility.md), at
120x40: the charge list, tokens, accounts, distributions, History and Today, and a refund dialog
with its amount field focused (focus seen without colour: the label reversed).

Plain `def` tests: `snap_compare` runs its own event loop. Update after checking the SVGs by eye:
`pytest tests/ui/test_ansi_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ui.conftest import make_app, wait_for_workers

SIZE = (120, 40)


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("1", id="charges"),
        pytest.param("2", id="tokens"),
        pytest.param("3", id="accounts"),
        pytest.param("4", id="distributions"),
        pytest.param("5", id="history"),
        pytest.param("0", id="today"),
    ],
)
def test_main_screen_in_16_colours(
    snap_compare: Any,
    sandbox_transport: httpx.AsyncBaseTransport,
    tmp_path: Path,
    utc: None,
    key: str,
) -> None:
    async def run_before(pilot: Any) -> None:
        pilot.app.theme = "ansi-dark"
        await wait_for_workers(pilot)
        await pilot.press(key)
        await wait_for_workers(pilot)

    app = make_app(sandbox_transport, journal_path=tmp_path / "journal.sqlite3")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_refund_dialog_in_16_colours(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path, utc: None
) -> None:
    async def run_before(pilot: Any) -> None:
        pilot.app.theme = "ansi-dark"
        await wait_for_workers(pilot)
        await pilot.press("slash", *"type:sale", "enter")
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await wait_for_workers(pilot)
        await pilot.press("r")
        await wait_for_workers(pilot)

    app = make_app(sandbox_transport, journal_path=tmp_path / "journal.sqlite3")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_theme_picker_offers_the_16_colour_themes_first(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from textual.command import CommandList

    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        app.search_themes()
        await wait_for_workers(pilot)
        options = app.screen.query_one(CommandList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        firsts = [line.splitlines()[0] for line in shown[:3]]
        assert firsts == ["ansi-dark", "ansi-light", "paytui-high-contrast"], shown[:4]
        assert "the terminal's own 16 colours, dark" in shown[0]
        rest = [line.splitlines()[0] for line in shown[3:]]
        assert rest == sorted(rest) and "textual-dark" in rest
        await pilot.press("enter")  # the first choice is taken, as any theme
        await wait_for_workers(pilot)
        assert app.theme == "ansi-dark"
