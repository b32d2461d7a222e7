"""Text is data: a charge whose contact name and tags carry terminal escapes (OSC 2 window title,
OSC 52 clipboard, CSI 2J clear screen), BEL, NUL and a right-to-left override shows them as
visible placeholders in the list, the detail, the JSON view, History and notifications; form
fields refuse such text. The hostile charge is written into this test's own sandbox copy, so the
shared seed (and every snapshot) is untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from textual import events

from paytui.actions import Journal
from paytui.sandbox.hostile import (
    CLEAR,
    HOSTILE_NAME,
    HOSTILE_TAGS,
    INVISIBLE_NAME,
    INVISIBLE_TAGS,
    OSC2,
    make_hostile_charge,
)
from paytui.text import first_unsafe, safe
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.history import HistoryScreen
from paytui.ui.widgets.json_view import JsonView
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import make_app, screen_text, settle


@pytest.fixture
def hostile(sandbox_db: Path) -> str:
    return make_hostile_charge(sandbox_db)


@pytest.fixture
def journal(tmp_path: Path, hostile: str) -> Path:
    """A journal whose one failed action quotes the hostile text in its error."""
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as book:
        entry = book.record_intent(
            profile="sandbox (embedded)",
            base_url="http://sandbox",
            operation="capture",
            charge_id=hostile,
            amount=None,
            request_summary={},
        )
        book.transition(entry.id, "failed", expected={"pending"}, error=f"refused: {OSC2}")
    return path


def rendered_segments(app: PaytuiApp) -> Iterator[str]:
    """The text of every segment the compositor would write (not Textual's own controls)."""
    update = app.screen._compositor.render_update(full=True)
    for line in update.strips:  # type: ignore[attr-defined]
        for strip in line:
            for segment in strip:
                if not segment.control:
                    yield segment.text


def assert_neutralised(app: PaytuiApp) -> str:
    """Nothing unsafe in what the terminal would be sent; the screen text for more checks."""
    for text in rendered_segments(app):
        assert first_unsafe(text) is None, repr(text)
    shown = screen_text(app)
    assert first_unsafe(shown.replace("\n", "")) is None
    return shown


async def test_list_detail_json_history_and_notifications_show_placeholders(
    sandbox_transport: httpx.AsyncBaseTransport, hostile: str, journal: Path
) -> None:
    app = make_app(sandbox_transport, journal_path=journal)
    title_before = app.title
    async with app.run_test(size=(260, 40)) as pilot:  # wide: the list shows the tags too
        await settle(app, pilot)
        shown = assert_neutralised(app)
        assert "Eve␛]2;pwned␇Mal" in shown  # the list: the name, placeholders visible
        assert "vip␛]52;c;" in shown and "x␛[2Jy" in shown  # the tags

        await app.push_screen(ChargeDetailScreen(hostile))
        await settle(app, pilot)
        shown = assert_neutralised(app)
        assert "Eve␛]2;pwned␇Mal�exe.jpg" in shown
        assert "bell␇nul␀end" in shown

        await pilot.press("J")  # the JSON view: the same characters as JSON escapes
        await settle(app, pilot)
        shown = assert_neutralised(app)
        assert "\\u001b]2;pwned\\u0007" in shown
        assert "\\u202e" in app.screen.query_one(JsonView).text

        app.notify(f"Could not capture {HOSTILE_NAME}", title=f"Charge {OSC2}", markup=False)
        await settle(app, pilot)
        assert_neutralised(app)
        note = list(app._notifications)[-1]
        assert note.message == f"Could not capture {safe(HOSTILE_NAME)}"
        assert note.title == f"Charge {safe(OSC2)}"

        await pilot.press("escape", "5")  # History quotes the failed action's error
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        shown = assert_neutralised(app)
        assert "refused: ␛]2;pwned␇" in shown

        app.title = f"paytui {OSC2}"  # a title from a config value cannot rename the window
        assert app.title == f"paytui {safe(OSC2)}"
    assert title_before == "paytui"


async def test_the_data_itself_is_unchanged(
    sandbox_transport: httpx.AsyncBaseTransport, hostile: str
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await (await app.get_client()).get_charge(hostile)
    assert charge.contact_name == f"{HOSTILE_NAME} Doe"
    assert charge.tags == HOSTILE_TAGS


@pytest.mark.parametrize("text", [OSC2, CLEAR, "a\x00b", "rtl\u202e", "del\x7f", "c1\x9b2J"])
async def test_fields_refuse_control_characters_typed_or_pasted(
    sandbox_transport: httpx.AsyncBaseTransport, text: str
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        field = app.screen.query_one(QueryInput)
        field.focus()
        await pilot.press("v", "i", "p")
        field.post_message(events.Paste(text))
        await settle(app, pilot)
        assert field.value == "vip"  # nothing typed is lost, nothing hostile is inserted
        assert field.refused is not None and "control character" in field.refused
        assert any("control character" in n.message for n in app._notifications)
        field.insert_text_at_cursor("ok")
        assert field.value == "vipok"


async def test_a_field_shows_a_hostile_value_put_into_it_through_placeholders(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        field = app.screen.query_one(QueryInput)
        field.value = f"tag:{OSC2}"
        await settle(app, pilot)
        assert_neutralised(app)
        assert field.value == f"tag:{OSC2}"


async def test_an_id_with_markup_in_a_dialog_title_is_shown_as_typed(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Border titles read markup: an id from the service (or typed) goes in as data."""
    from paytui.ui.screens.modals.refund import RefundModal

    odd = "[/]ch[link=https://x.test]1"
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await app.push_screen(RefundModal(odd))
        await settle(app, pilot)
        assert app.is_running
        assert odd in screen_text(app)


async def test_zero_width_characters_show_as_placeholders_in_the_list_and_the_detail(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_db: Path
) -> None:
    """U+200B, U+200D, U+FEFF, U+2060, U+180E draw nothing: "Ad<ZWSP>min" would pass for
    "Admin". Like every other control and bidi character they are shown, never drawn raw."""
    charge_id = make_hostile_charge(sandbox_db, INVISIBLE_NAME, INVISIBLE_TAGS)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(260, 40)) as pilot:
        await settle(app, pilot)
        shown = assert_neutralised(app)
        assert "Ad�min�Z�W�J�X" in shown and "vi�p" in shown

        await app.push_screen(ChargeDetailScreen(charge_id))
        await settle(app, pilot)
        shown = assert_neutralised(app)
        assert "Ad�min�Z�W�J�X Doe" in shown and "�refund" in shown
